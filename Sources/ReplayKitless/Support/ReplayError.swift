/// The one error type ReplayKitless throws. Its ``Kind`` maps to the documented exit status.
///
/// Messages are written for the person running the tool: they name the file and, where it
/// applies, the line, frame or field, and say what to do.
public struct ReplayError: Error, CustomStringConvertible, Sendable, Equatable {
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
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public static func usage(_ message: String) -> ReplayError { ReplayError(.usage, message) }
    public static func badInput(_ message: String) -> ReplayError { ReplayError(.badInput, message) }
    public static func processing(_ message: String) -> ReplayError { ReplayError(.processing, message) }
    public static func checkFailed(_ message: String) -> ReplayError { ReplayError(.checkFailed, message) }

    /// A malformed input file, naming the file and where in it.
    public static func badInput(file: String, line: Int? = nil, field: String? = nil, _ message: String) -> ReplayError {
        var place = file
        if let line { place += ":\(line)" }
        if let field { place += " (\(field))" }
        return ReplayError(.badInput, "\(place): \(message)")
    }

    /// The process exit status documented in formats.md §8.
    public var exitCode: Int32 {
        switch kind {
        case .checkFailed: 1
        case .usage: 2
        case .badInput: 3
        case .processing: 4
        case .interrupted(let signal): 128 + signal
        }
    }

    public var description: String { message }
}
