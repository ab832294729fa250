import Foundation

/// The one error type ReplayKitless throws. Its ``Kind`` maps to the documented exit status.
///
/// Messages are written for the person running the tool: they name the file and, where it
/// applies, the line, frame or field, and say what to do. An option is named by its property
/// (`RenderOptions.overwrite`), listed in ``options`` so that a front end can show its own name for
/// it instead (the command line shows its flag, `--overwrite`): ``message(naming:)``.
///
/// It is a `LocalizedError` whose `errorDescription` is ``message``, so a caller's
/// `catch { print(error.localizedDescription) }` shows the same text the command line prints.
public struct ReplayError: Error, LocalizedError, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, which decides the process exit status (formats.md §8).
    public enum Kind: Sendable, Equatable {
        /// A comparison or QA check failed its threshold (exit 1).
        case checkFailed
        /// The command line is wrong (exit 2).
        case usage
        /// An input is missing, unreadable or malformed (exit 3).
        case badInput
        /// Processing or writing the output failed (exit 4).
        case processing
        /// Interrupted by a signal (exit 128 + signal number).
        case interrupted(signal: Int32)
        /// The caller cancelled the task running the job (exit 130, as for Ctrl-C): the `async`
        /// forms stop at the next frame and leave no output.
        case cancelled
    }

    /// What went wrong, and so the exit status.
    public var kind: Kind
    /// The sentence shown to the person running the job: names the file and the line, frame or field.
    public var message: String
    /// The option properties ``message`` names (`RenderOptions.overwrite`), each written in it
    /// between backticks; empty when it names none.
    public var options: [String]

    /// An error of `kind` saying `message`, which names `options` between backticks.
    public init(_ kind: Kind, _ message: String, options: [String] = []) {
        self.kind = kind
        self.message = message
        self.options = options
    }

    /// ``message`` with each of ``options`` (and its backticks) replaced by what `name` calls it:
    /// a front end's own name for the option, such as a command-line flag. An option `name`
    /// returns `nil` for keeps its property name.
    public func message(naming name: (String) -> String?) -> String {
        options.reduce(message) { text, option in text.replacingOccurrences(of: "`\(option)`", with: name(option) ?? "`\(option)`") }
    }

    /// A wrong argument or option (exit 2), naming `options` between backticks.
    public static func usage(_ message: String, options: [String] = []) -> ReplayError { ReplayError(.usage, message, options: options) }
    /// A missing, unreadable or malformed input (exit 3).
    public static func badInput(_ message: String, options: [String] = []) -> ReplayError { ReplayError(.badInput, message, options: options) }
    /// Processing or writing the output failed (exit 4).
    public static func processing(_ message: String) -> ReplayError { ReplayError(.processing, message) }
    /// A QA check failed its threshold (exit 1).
    public static func checkFailed(_ message: String) -> ReplayError { ReplayError(.checkFailed, message) }

    /// The job was cancelled by its task (``Kind/cancelled``).
    public static let cancelled = ReplayError(.cancelled, "cancelled")

    /// A malformed input file, naming the file and where in it.
    public static func badInput(file: String, line: Int? = nil, field: String? = nil, _ message: String,
                                options: [String] = []) -> ReplayError {
        var place = file
        if let line { place += ":\(line)" }
        if let field { place += " (\(field))" }
        return ReplayError(.badInput, "\(place): \(message)", options: options)
    }

    /// The process exit status documented in formats.md §8.
    public var exitCode: Int32 {
        switch kind {
        case .checkFailed: 1
        case .usage: 2
        case .badInput: 3
        case .processing: 4
        case .interrupted(let signal): 128 + signal
        case .cancelled: 130
        }
    }

    /// The message.
    public var description: String { message }
    /// The message, for `localizedDescription`.
    public var errorDescription: String? { message }
}

/// Runs `body` for a standard-library API whose closure parameter is typed `any Error` although
/// only ``ReplayError``s are thrown in it; anything else (a Foundation decoder's error) becomes a
/// ``ReplayError`` of `kind`, so public calls keep one error type.
func throwingReplayError<T>(as kind: ReplayError.Kind = .processing, _ body: () throws -> T) throws(ReplayError) -> T {
    do {
        return try body()
    } catch let error as ReplayError {
        throw error
    } catch {
        throw ReplayError(kind, "\(error)")
    }
}
