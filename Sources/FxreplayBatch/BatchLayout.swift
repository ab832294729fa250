import Foundation
import ReplayKitless

/// Where a batch writes: the outputs, previews and fingerprints, and per recording a log, a render
/// report and a lock in `DIR/logs`. Jobs and manifests come from other people, so every one of
/// these must stay inside the output directory (symbolic links followed) and be none of the files
/// the batch reads (``BatchPlanner`` checks both before anything runs).
package struct BatchLayout: Sendable {
    /// The output directory (`--out`).
    package let directory: String

    package init(directory: String) { self.directory = directory }

    package var logs: String { directory + "/logs" }
    package func log(_ recording: BatchRecording) -> String { "\(logs)/\(recording.name).log" }
    package func report(_ recording: BatchRecording) -> String { "\(logs)/\(recording.name).report.json" }
    package func lock(_ recording: BatchRecording) -> String { "\(logs)/\(recording.name).lock" }

    /// Render's `--preview` files of `recording` (its options are all `--key=value`, with checked keys).
    package static func previews(_ recording: BatchRecording) -> [String] {
        recording.arguments.dropFirst(3).compactMap { $0.hasPrefix("--preview=") ? String($0.dropFirst(10)) : nil }
    }

    /// Every file written for `recording`, with the manifest field it comes from.
    package func writtenFiles(_ recording: BatchRecording) -> [(field: String, path: String)] {
        [("output", recording.output)] + Self.previews(recording).map { ("preview", $0) }
            + [("output", OutputFingerprint.path(forOutput: recording.output)),
               ("output", log(recording)), ("output", report(recording)), ("output", lock(recording))]
    }

    /// Whether a path whose ``LocalFiles/canonicalPath(_:)`` is `canonical` ends up inside the
    /// directory (canonical: `root`), every symbolic link on the way followed.
    static func isInside(canonical: String, root: String) -> Bool {
        canonical.hasPrefix(root == "/" ? "/" : root + "/")
    }

    /// Why a manifest's `output` or `preview` cell cannot name a file inside the output directory:
    /// it must be a relative path without `..` (checked as written; ``contains(_:)`` then follows links).
    package static func problem(ofWrittenPath value: String) -> String? {
        if value.isEmpty { return "is empty" }
        if value.hasPrefix("/") { return "'\(value)' is absolute: give a path relative to --out" }
        if value.split(separator: "/").contains("..") { return "'\(value)' goes up with '..': it must stay inside --out" }
        return nil
    }
}
