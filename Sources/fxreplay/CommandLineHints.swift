import Foundation
import ReplayKitless
import ArgumentParser

/// Usage mistakes worth a better answer than ArgumentParser's "unexpected argument": a misspelt
/// subcommand (did you mean …?) and options carried over from the ffmpeg command line.
enum CommandLineHints {
    /// ffmpeg options with no fxreplay spelling of their own, and what to write instead.
    static let ffmpegHabits: [String: String] = [
        "-i": "fxreplay takes the input as an argument, not -i: fxreplay render IN -o OUT",
        "-y": "-y: use --overwrite",
        "-n": "-n: fxreplay never replaces a file unless --overwrite is given",
        "-c:v": "-c:v: use --codec (h264, hevc, vp9, …)",
        "-vcodec": "-vcodec: use --codec (h264, hevc, vp9, …)",
        "-crf": "-crf: use --crf",
        "-b:v": "-b:v: use --bitrate (e.g. 2500k)",
        "-preset": "-preset: use --preset",
        "-s": "-s: use --size WxH",
        "-threads": "-threads: use --threads",
        "-hide_banner": "-hide_banner: fxreplay prints no banner",
        "-loglevel": "-loglevel: use --verbose for FFmpeg's own messages, --progress none for quiet",
    ]

    /// The message for the first mistake in `arguments` (without the program name), or `nil`.
    static func problem(in arguments: [String]) -> String? {
        if let name = misspeltSubcommand(arguments, of: Fxreplay.self, path: "fxreplay") { return name }
        for argument in arguments.prefix(while: { $0 != "--" }) {
            let option = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if let hint = ffmpegHabits[option] { return hint }
        }
        return nil
    }

    /// "unknown command …: did you mean …?" when the first argument (or the one after a group
    /// such as `qa`) is near a subcommand's name but none.
    private static func misspeltSubcommand(_ arguments: [String], of command: ParsableCommand.Type, path: String) -> String? {
        let subcommands = command.configuration.subcommands
        guard !subcommands.isEmpty, let first = arguments.first, !first.hasPrefix("-") else { return nil }
        if let chosen = subcommands.first(where: { $0._commandName == first }) {
            return misspeltSubcommand(Array(arguments.dropFirst()), of: chosen, path: path + " " + first)
        }
        // A command that takes arguments (render IN) is reached only through its name, so any other
        // word here is a subcommand name gone wrong.
        let names = subcommands.map { $0._commandName } + ["help"]
        guard !names.contains(first) else { return nil }
        let ranked = names.map { ($0, editDistance(first.lowercased(), $0)) }.sorted { $0.1 < $1.1 }
        let close = ranked.filter { $0.1 <= max(1, first.count / 3) || $0.0.hasPrefix(first.lowercased()) }.map(\.0)
        let list = names.dropLast().joined(separator: ", ")
        guard let best = close.first else { return "'\(first)' is not a command of \(path) (commands: \(list))" }
        return "'\(first)' is not a command of \(path): did you mean '\(best)'? (commands: \(list))"
    }

    /// Levenshtein distance: insertions, deletions and substitutions.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...max(1, b.count) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}

extension CommandLineHints {
    /// ArgumentParser's "Error: …" in fxreplay's one style, "fxreplay: error: …" (its usage lines kept).
    static func styled(_ message: String) -> String {
        message.hasPrefix("Error: ") ? "fxreplay: error: " + message.dropFirst(7) : message
    }
}

extension Fxreplay {
    /// `fxreplay --version`: fxreplay's version (and the tarball's folder when it is that bundled build), then the
    /// libraries whose versions decide the output's bytes.
    static func printVersion() -> Never {
        print("fxreplay \(configuration.version)" + (BundledBuild.root.map { " (bundled build, \($0))" } ?? ""))
        for line in LibraryVersions.lines { print(line) }
        Foundation.exit(0)
    }
}

/// A command with `--progress`: with `--progress json`, its messages on stderr are JSON too.
protocol ReportsProgress { var progress: ProgressOptions { get } }
extension Render: ReportsProgress {}
extension Compose: ReportsProgress {}
extension QAOverlay: ReportsProgress {}
extension PosesEmbed: ReportsProgress {}
extension Batch: ReportsProgress {}

/// How messages go to stderr: lines for people, or with `--progress json` one JSON object per
/// line (`{"event": "warning", "message": …}`), like the progress events, so a program reading
/// stderr needs one parser.
enum MessageStyle {
    /// Set once by `Fxreplay.main` after parsing, before anything runs.
    nonisolated(unsafe) static var json = false

    /// `text` (a `fxreplay: …` line) as a JSON event: `error`, `warning` or `message` by its prefix.
    static func event(_ text: String) -> String {
        var event = "message", message = text
        for (prefix, kind) in [("fxreplay: error: ", "error"), ("fxreplay: warning: ", "warning"), ("fxreplay: ", "message")]
        where text.hasPrefix(prefix) {
            (event, message) = (kind, String(text.dropFirst(prefix.count)))
            break
        }
        let object: [String: String] = ["event": event, "message": message]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return text }
        return String(decoding: data, as: UTF8.self)
    }
}
