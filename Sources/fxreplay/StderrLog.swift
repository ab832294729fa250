import Foundation
import Logging
import ReplayKitless

/// fxreplay's view of the library's messages: everything goes to stderr as the tool always printed
/// it, warnings as `fxreplay: warning: …`, FFmpeg's lines (shown with --verbose) as FFmpeg prints them,
/// progress bars as they are drawn. The library itself writes nothing there.
enum StderrLog {
    /// Installed first thing in `main`, before any library call.
    static func install() {
        ReplayLog.logger = Logger(label: "fxreplay") { _ in Handler() }
        Console.install { text in FileHandle.standardError.write(Data(text.utf8)) }
    }

    /// Formats one message; FFmpeg's own log level (``FFmpegLogging``) already chose which of its lines come.
    static func line(level: Logger.Level, message: String, fromFFmpeg: Bool) -> String {
        if fromFFmpeg { return message + "\n" }
        let prefix = switch level {
        case .warning: "fxreplay: warning: "
        case .error, .critical: "fxreplay: error: "
        default: "fxreplay: "
        }
        return prefix + message + "\n"
    }

    struct Handler: LogHandler {
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fromFFmpeg = event.metadata?[ReplayLog.sourceKey] == "ffmpeg"
            let message = event.message.description
            let text = StderrLog.line(level: event.level, message: fromFFmpeg ? message : OptionFlags.warning(message), fromFFmpeg: fromFFmpeg)
            // The library's own lines as the tool's other messages: escaped, a JSON event with --progress json.
            if fromFFmpeg { Console.write(text) } else { printError(String(text.dropLast())) }
        }
    }
}
