import Foundation
import ReplayKitless

/// What a batch did: written to `DIR/batch-report.json` (`batch-report-I-of-N.json` for a shard)
/// and summarised as a table.
package struct BatchReport: Codable, Sendable, Equatable {
    /// What became of one recording.
    package enum Status: String, Codable, Sendable {
        /// Rendered by this run.
        case done
        /// Render failed or crashed; see `error` and the log.
        case failed
        /// Its output was already made from the same input and options.
        case skipped
        /// Stopped by SIGINT/SIGTERM; a re-run does it.
        case interrupted
        /// Not started because the batch was interrupted.
        case pending
    }

    /// One recording's outcome.
    package struct Entry: Codable, Sendable, Equatable {
        package var name: String
        package var input: String
        package var output: String
        package var status: Status
        /// Render's exit status (absent when skipped, pending or killed by a signal).
        package var exitCode: Int32?
        /// The signal that ended render, if one did.
        package var signal: Int32?
        /// The last message render printed before failing.
        package var error: String?
        /// Wall time of the render.
        package var seconds: Double?
        package var frames: Int?
        /// Frames per second of wall time.
        package var fps: Double?
        /// Output size in bytes (also for skipped recordings).
        package var bytes: Int64?
        /// Render's stderr.
        package var log: String?
    }

    package var version: String
    /// `INDEX/COUNT` when this run was one shard of a batch.
    package var shard: String?
    /// Renders run at once.
    package var jobs: Int
    package var wallSeconds: Double
    package var done: Int
    package var failed: Int
    package var skipped: Int
    /// Set when SIGINT/SIGTERM stopped the batch.
    package var interruptedBy: Int32?
    package var recordings: [Entry]

    package init(version: String, shard: String?, jobs: Int, wallSeconds: Double, interruptedBy: Int32?, recordings: [Entry]) {
        self.version = version
        self.shard = shard
        self.jobs = jobs
        self.wallSeconds = wallSeconds
        self.interruptedBy = interruptedBy
        self.recordings = recordings
        done = recordings.count { $0.status == .done }
        failed = recordings.count { $0.status == .failed }
        skipped = recordings.count { $0.status == .skipped }
    }

    /// A fixed-width table, one row per recording, and a closing count.
    package var table: String {
        let header = ["NAME", "STATUS", "SECONDS", "FPS", "SIZE", "ERROR"]
        let rows = recordings.map { entry in
            [TerminalText.escaped(entry.name), entry.status.rawValue,
             entry.seconds.map { String(format: "%.1f", $0) } ?? "-",
             entry.fps.map { String(format: "%.1f", $0) } ?? "-",
             entry.bytes.map(Self.size) ?? "-",
             TerminalText.escaped(entry.error ?? "")]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        let lines = ([header] + rows).map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        var summary = "\(recordings.count) recording\(recordings.count == 1 ? "" : "s"): \(done) done, \(failed) failed, \(skipped) skipped"
        let unfinished = recordings.count - done - failed - skipped
        if unfinished > 0 { summary += ", \(unfinished) not finished" }
        summary += String(format: " in %.1f s", wallSeconds)
        return (lines + [summary]).joined(separator: "\n")
    }

    static func size(_ bytes: Int64) -> String {
        let value = Double(bytes)
        let mebibyte = 1024.0 * 1024
        if value >= 1024 * mebibyte { return String(format: "%.2f GiB", value / (1024 * mebibyte)) }
        if value >= mebibyte { return String(format: "%.1f MiB", value / mebibyte) }
        return String(format: "%.0f KiB", (value / 1024).rounded(.up))
    }
}
