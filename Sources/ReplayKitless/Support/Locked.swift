import Foundation

/// A value shared between threads, reached only under its lock.
///
/// Like the standard library's `Synchronization.Mutex`, but built on `NSLock` (a pthread mutex):
/// ThreadSanitizer follows pthread locks, whereas on Linux it cannot see `Mutex`'s futex wait
/// and reports races on every contended `withLock` (checked with a two-thread counter), which
/// would hide real ones in `scripts/sanitizers.sh`.
package final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
