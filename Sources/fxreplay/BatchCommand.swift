import ArgumentParser
import Foundation
import FxreplayBatch
import ReplayKitless

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render many recordings: several at once on one machine, or one shard per worker on a cluster.",
        discussion: """
        Each recording is rendered by its own `fxreplay render` process with the job's options; \
        outputs go to DIR/NAME.EXT, logs to DIR/logs/NAME.log, the outcome to DIR/batch-report.json. \
        A re-run skips outputs already made from the same input and options. Exit status: 0 when \
        every recording is done or skipped, 1 when any failed.
        """)

    @Argument(help: "Recordings: files, URLs or glob patterns (quote patterns to let fxreplay expand them).", completion: .file())
    var inputs: [String] = []

    @Option(help: "A manifest instead of INPUTS: CSV with a header, or JSON Lines; columns input, output (optional) and any render option.", completion: .file(extensions: ["csv", "jsonl"]))
    var manifest: String?

    @Option(help: "Output directory (created if missing).", completion: .directory)
    var out: String

    @Option(help: "Job spec (YAML or JSON): render options for every recording, keyed by option name.", completion: .file(extensions: ["yaml", "yml", "json"]))
    var job: String?

    @Option(name: [.customShort("j"), .long], parsing: .unconditional, help: "Renders at once, 1 to \(BatchSettings.maximumJobs) (default: half the cores, and at least 2 on a machine with 2 or more).")
    var jobs: Int?

    @Flag(help: "Render every recording, even those whose output is up to date, replacing files in DIR no batch made.")
    var force = false

    @Option(help: "Do only this worker's share, INDEX/COUNT (e.g. 0/4). Default: from a Kubernetes Indexed Job or a Slurm job array.")
    var shard: String?

    @Option(parsing: .unconditional, help: "Number of shards when the index comes from the environment (JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID).")
    var shardCount: Int?

    @Flag(name: .customLong("dry-run"), help: "Print what would run and why (up to date, to render, refused) and write nothing.")
    var dryRun = false

    @OptionGroup var progress: ProgressOptions

    @OptionGroup var inputAccess: InputAccessOptions

    func validate() throws {
        try requireFileNames(["INPUTS": inputs, "--manifest": [manifest], "--out": [out], "--job": [job]])
        if inputs.isEmpty && manifest == nil { throw ValidationError("give recordings (files or glob patterns) or --manifest FILE") }
        if !inputs.isEmpty && manifest != nil { throw ValidationError("give recordings (files or glob patterns) or --manifest FILE, not both") }
        if let jobs, !(1...BatchSettings.maximumJobs).contains(jobs) {
            throw ValidationError("--jobs must be between 1 and \(BatchSettings.maximumJobs)")
        }
        if let shardCount, shardCount < 1 { throw ValidationError("--shard-count must be 1 or more") }
    }

    func run() throws {
        let rows = try manifest.map { path throws(ReplayError) in try Manifest.load(path) }
        // Calls (.zip, .json) are composed: a batch of calls only has its job checked as compose's.
        let callsOnly = rows.map { $0.allSatisfy { BatchRecording.isCall($0.input) } } ?? inputs.allSatisfy(BatchRecording.isCall)
        let spec = try job.map { path throws(ReplayError) -> JobSpec in
            let spec = try JobSpec(contentsOf: path)
            try RenderJob.check(spec.options, origin: path, compose: callsOnly)
            // The batch section's naming patterns become render options too.
            for option in spec.patternOptions { try RenderJob.check([option], origin: path) }
            return spec
        }
        let selected = try resolveShard()
        var settings = BatchSettings(outputDirectory: out, jobs: jobs ?? BatchSettings.defaultJobs,
                                     version: Fxreplay.configuration.version)
        settings.shard = selected?.0
        var planner = BatchPlanner(outputDirectory: out, job: spec)
        planner.reportPath = settings.reportPath
        var recordings: [BatchRecording]
        if let manifest, let rows {
            var checkers = [false: RenderJob.OptionChecker(), true: RenderJob.OptionChecker(compose: true)]
            for row in rows {
                try checkers[BatchRecording.isCall(row.input)]!.check(BatchPlanner.jobOptions(spec?.options ?? [], under: row.options) + row.options,
                                                                      origin: manifest, line: row.line)
            }
            recordings = try planner.recordings(rows: rows, manifest: manifest)
        } else {
            recordings = try planner.recordings(matching: inputs)
        }

        if let (shard, source) = selected {
            let total = recordings.count
            recordings = recordings.filter { shard.contains($0.listed) }
            printError("fxreplay: shard \(shard) (from \(source.rawValue)): \(recordings.count) of \(total) recordings")
        }

        settings.force = force
        settings.progress = progress.progress
        settings.verbose = progress.verbose
        settings.renderArguments = inputAccess.arguments
        if dryRun { return printDryRun(BatchRunner(recordings: recordings, settings: settings).dryRun()) }
        let report = try BatchRunner(recordings: recordings, settings: settings).run()
        try AtomicOutput.write(try prettyJSON(report), to: PathArgument.output(settings.reportPath), inputs: [manifest, job].compactMap { $0 })
        print(report.table)
        printLine("report: \(settings.reportPath)")

        if let signalNumber = report.interruptedBy {
            throw ReplayError(.interrupted(signal: signalNumber), "interrupted: \(recordings.count - report.done - report.failed - report.skipped) recordings not finished (run again to finish them)")
        }
        if report.failed > 0 {
            throw ReplayError.checkFailed("\(report.failed) of \(recordings.count) recordings failed (see \(settings.reportPath) and \(out)/logs)")
        }
    }

    /// `--dry-run`: one line per recording (what, why), the command that would make it, and a count.
    private func printDryRun(_ entries: [BatchDryRunEntry]) {
        for entry in entries {
            printLine("\(entry.action.rawValue): \(entry.recording.name): \(entry.reason)")
            if entry.action == .render {
                let words = ["fxreplay", entry.recording.command] + entry.recording.arguments
                printLine("  " + words.map(Self.shellQuoted).joined(separator: " "))
            }
        }
        let counts = BatchDryRunEntry.Action.allCases.map { action in "\(entries.filter { $0.action == action }.count) \(action.rawValue)" }
        print("dry run: " + counts.joined(separator: ", ") + "; nothing written")
    }

    /// `word` as a shell reads it back: bare when it is safe, else in single quotes.
    static func shellQuoted(_ word: String) -> String {
        let safe = !word.isEmpty && word.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_./=:,+@%".unicodeScalars.contains($0)) }
        return safe ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `--shard`, else the environment of a Kubernetes Indexed Job or a Slurm job array.
    private func resolveShard() throws(ReplayError) -> (Shard, Shard.Source)? {
        if let shard {
            let parsed = try Shard(parsing: shard)
            if let shardCount, shardCount != parsed.count {
                throw .usage("--shard \(shard) and --shard-count \(shardCount) disagree")
            }
            return (parsed, .commandLine)
        }
        let found = try Shard.fromEnvironment(ProcessInfo.processInfo.environment, count: shardCount)
        if found == nil, shardCount != nil {
            throw .usage("--shard-count needs a shard index: --shard INDEX/COUNT, JOB_COMPLETION_INDEX (Kubernetes) or SLURM_ARRAY_TASK_ID (Slurm)")
        }
        return found
    }
}
