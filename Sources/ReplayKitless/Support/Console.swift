import Synchronization

/// The terminal text a command-line front end shows (progress bars, the interrupt notice). The
/// library writes none of it itself: it hands the text to the sink the front end installed
/// (fxreplay writes it to stderr), and drops it when none is installed.
package enum Console {
    private static let sink = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Sends later terminal text to `write`.
    package static func install(_ write: @escaping @Sendable (String) -> Void) {
        sink.withLock { $0 = write }
    }

    package static func write(_ text: String) {
        sink.withLock { $0 }?(text)
    }
}
