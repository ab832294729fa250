import Foundation

/// Every file the running jobs have read: the one guard that keeps outputs off inputs.
///
/// Each reader records the file at its one choke point (``readInputFile(_:limit:kind:isText:)``,
/// the demuxer, the font, an opened call with every file it names), and ``AtomicOutput`` checks
/// the record when it reserves an output and again just before it moves the output into place, so
/// a file read after the output was reserved (a font, a layout, a participant's track opened late)
/// is protected as much as the files a command names up front. No command keeps its own list.
///
/// What is read is kept while a job runs: a command line, a render, a compose (``scope(_:)``).
/// Jobs running at once in one process share the record, which only ever refuses more; it is
/// emptied when the last of them ends, so a program that reads a file in one job may write it
/// in a later one.
public enum ReadFiles {
    private struct Record {
        var openScopes = 0
        /// The spelling read, by the file's device and inode (every link and spelling of it)…
        var byIdentity: [FileIdentity: String] = [:]
        /// …and by its canonical path (files that do not exist, or cannot be stat'ed).
        var byPath: [String: String] = [:]
    }
    private static let record = Locked(Record())

    /// Runs `body` as one job: what is read until it ends is never written over by an output.
    public static func scope<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        record.withLock { $0.openScopes += 1 }
        defer {
            record.withLock {
                $0.openScopes -= 1
                if $0.openScopes == 0 { $0 = Record() }
            }
        }
        return try body()
    }

    /// Notes that `spelling` is read, with every local file it may open (a `file:` URL, the files
    /// of `concat:a|b`, …; see ``LocalFiles``). Outside any ``scope(_:)`` nothing is kept: no job
    /// is writing then.
    public static func note(_ spelling: String) {
        guard record.withLock({ $0.openScopes > 0 }) else { return }
        let keys = LocalFiles.paths(spelling).map { (FileIdentity($0), LocalFiles.canonicalPath($0).string) }
        record.withLock { record in
            for (identity, path) in keys {
                if let identity { record.byIdentity[identity] = spelling }
                record.byPath[path] = spelling
            }
        }
    }

    /// The spelling under which the file at the local path `path` was read, if it was.
    public static func readAs(_ path: FilePath) -> String? {
        let identity = FileIdentity(path)
        let canonical = LocalFiles.canonicalPath(path).string
        return record.withLock { record in
            identity.flatMap { record.byIdentity[$0] } ?? record.byPath[canonical]
        }
    }
}
