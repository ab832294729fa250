import CFFmpeg
import Logging
import Synchronization

/// Where the library's warnings and FFmpeg's own messages go: a swift-log `Logger` the caller
/// chooses. The library itself never writes to stderr; by default these messages are dropped.
///
/// ```swift
/// import Logging
/// ReplayLog.logger = Logger(label: "my-app")   // swift-log's handler, or one of your own
/// ```
///
/// Warnings (a damaged packet skipped, a glob that matched nothing) are logged at `.warning`.
/// FFmpeg's lines are logged with the metadata `source: "ffmpeg"` at the level FFmpeg gave them,
/// once ``FFmpegLogging/configure(verbose:)`` lets FFmpeg speak.
public enum ReplayLog {
    private static let current = Mutex(Logger(label: "ReplayKitless", factory: { _ in SwiftLogNoOpLogHandler() }))

    /// The logger every message goes to, unless the job was given its own (``JobEnvironment``);
    /// set it before starting a job. Thread-safe.
    public static var logger: Logger {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// A condition the job survives but the caller should hear about.
    package static func warning(_ message: String) {
        JobEnvironment.logger.warning("\(message)")
    }

    /// Metadata key naming what produced a message: `"ffmpeg"` for FFmpeg's own lines.
    public static let sourceKey = "source"

    /// One line from FFmpeg's log (without its newline), at FFmpeg's level.
    static func ffmpeg(level: Int32, line: String) {
        let mapped: Logger.Level = switch level {
        case ...AV_LOG_ERROR: .error
        case ...AV_LOG_WARNING: .warning
        case ...AV_LOG_INFO: .info
        case ...AV_LOG_VERBOSE: .debug
        default: .trace
        }
        JobEnvironment.logger.log(level: mapped, "\(line)", metadata: [sourceKey: "ffmpeg"])
    }
}
