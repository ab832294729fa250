import Foundation
import ReplayKitless

/// What `fxreplay batch --dry-run` says of one recording: what a real run would do with it, and why.
package struct BatchDryRunEntry: Sendable, Equatable {
    package enum Action: String, Sendable, CaseIterable {
        /// The output exists and its fingerprint matches the input and options: skipped.
        case upToDate = "up to date"
        case render = "to render"
        /// The run would stop before rendering anything because of it.
        case refused
    }

    package var recording: BatchRecording
    package var action: Action
    package var reason: String
}

extension BatchRunner {
    /// Decides for every recording what ``run()`` would, with the same fingerprints and checks,
    /// and writes nothing: no directory, lock, log, output or report, and no cleaning up.
    package func dryRun() -> [BatchDryRunEntry] {
        recordings.map { recording in
            let key = OutputFingerprint.key(version: settings.version, arguments: recording.arguments, files: recording.files)
            let fingerprint = OutputFingerprint.load(forOutput: recording.output)
            func entry(_ action: BatchDryRunEntry.Action, _ reason: String) -> BatchDryRunEntry {
                BatchDryRunEntry(recording: recording, action: action, reason: reason)
            }
            if let missing = recording.files.first(where: { !FileManager.default.fileExists(atPath: $0) }) {
                return entry(.refused, "\(missing): no such file (render would fail, exit 3)")
            }
            if settings.force { return entry(.render, "--force renders every recording") }
            if fingerprint?.matches(key: key, output: recording.output) == true {
                return entry(.upToDate, "\(recording.output) was made from the same inputs, options and fxreplay version")
            }
            if let unvouched = Self.unvouchedFiles(of: recording).first {
                return entry(.refused, "\(unvouched) exists and no batch made it; --force would replace it")
            }
            guard FileStatus(FilePath(recording.output)) != nil else { return entry(.render, "no output yet") }
            return entry(.render, fingerprint == nil ? "the output has no fingerprint"
                         : "an input, an option or the fxreplay version changed since \(recording.output) was made")
        }
    }
}
