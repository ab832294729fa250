import Foundation
import ReplayKitless

/// Finds each recording's own inputs by naming convention, next to the recording:
/// `NAME.poses.jsonl` (or `.csv`, `.pose32`) → `--poses`, `NAME.mask.mkv` (or `.mp4`, `.webm`)
/// → `--mask`, `NAME.annotations.json` → `--annotations`. A job spec's `batch:` section
/// replaces the patterns of an option, or turns its discovery off with `null`.
package struct InputDiscovery: Sendable, Equatable {
    /// The built-in conventions.
    package static let defaultPatterns: [String: [String]] = [
        "poses": ["{name}.poses.jsonl", "{name}.poses.csv", "{name}.poses.pose32"],
        "mask": ["{name}.mask.mkv", "{name}.mask.mp4", "{name}.mask.webm"],
        "annotations": ["{name}.annotations.json"],
    ]

    /// Render option → file name patterns, tried in order. `{name}` is the recording's file name
    /// without its extension; relative patterns are relative to the recording's directory.
    package var patterns: [String: [String]]

    package init(patterns: [String: [String]] = InputDiscovery.defaultPatterns) {
        self.patterns = patterns
    }

    /// One input found for a recording.
    package struct Found: Sendable, Equatable {
        package var option: String
        package var path: String
        /// `--option=path`.
        package var argument: String { "--\(option)=\(path)" }
    }

    /// The first existing file per option, sorted by option. Recordings given as URLs have none.
    package func inputs(for recording: String, exists: (String) -> Bool = PathNames.isRegularFile) -> [Found] {
        guard !PathNames.isURL(recording) else { return [] }
        return patterns.keys.sorted().compactMap { option in
            patterns[option, default: []].lazy.map { Self.expand($0, for: recording) }.first(where: exists)
                .map { Found(option: option, path: $0) }
        }
    }

    /// Every path a pattern could name for `recording`, whether it exists or not.
    package func candidates(for recording: String) -> [String] {
        guard !PathNames.isURL(recording) else { return [] }
        return patterns.values.flatMap { $0.map { Self.expand($0, for: recording) } }
    }

    /// The path `pattern` names for `recording`.
    package static func expand(_ pattern: String, for recording: String) -> String {
        let file = pattern.replacingOccurrences(of: "{name}", with: PathNames.name(of: recording))
        if file.hasPrefix("/") { return file }
        return PathNames.normalize(PathNames.directory(of: recording) + "/" + file)
    }

    /// Why a pattern list is unusable, or `nil`.
    static func problem(option: String, patterns: [String]) -> String? {
        for pattern in patterns {
            guard pattern.contains("{name}") else {
                return "'\(pattern)' has no {name}: one file for every recording belongs in the job itself (\(option): FILE)"
            }
            if pattern.replacingOccurrences(of: "{name}", with: "").contains("{") {
                return "'\(pattern)': {name} is the only placeholder"
            }
        }
        return nil
    }
}
