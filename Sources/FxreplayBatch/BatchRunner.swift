import Foundation
import ReplayKitless

/// How a batch runs.
package struct BatchSettings: Sendable {
    /// Output directory; logs go to `DIR/logs`.
    package var outputDirectory: String
    /// Renders at once.
    package var jobs: Int
    /// Render even when an up-to-date output exists.
    package var force = false
    package var progress: ProgressStyle = .auto
    /// Pass `--verbose` to every render.
    package var verbose = false
    /// Options every render gets after its own (the batch's command line, over any manifest row).
    package var renderArguments: [String] = []
    /// Part of every fingerprint: a new version re-renders everything.
    package var version: String
    package var shard: Shard?
    /// The `fxreplay` executable the renders run (default: this process's own).
    package var executable = ChildProcess.currentExecutable

    package init(outputDirectory: String, jobs: Int, version: String) {
        self.outputDirectory = outputDirectory
        self.jobs = jobs
        self.version = version
    }

    /// Renders at once by default: half the cores, but at least two when there are two cores.
    /// Each render is multi-threaded already; a second one mainly fills the serial phases
    /// (opening, encoder lookahead and flush), which on two cores was worth more than the
    /// contention cost (benchmarks/batch.sh). More than half the cores only adds memory.
    package static var defaultJobs: Int {
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return min(maximumJobs, cores, max(2, cores / 2))
    }

    /// Most renders at once `fxreplay batch -j` accepts. Each render already runs several threads
    /// and takes about 200 MiB at 720p: more than this only exhausts memory and process limits
    /// (a slip such as `-j 1000` would start every recording at once).
    package static let maximumJobs = 64

    /// `DIR/batch-report.json`, or `DIR/batch-report-I-of-N.json` for a shard so that workers
    /// sharing the directory do not overwrite each other's report.
    package var reportPath: String {
        outputDirectory + "/" + (shard.map { "batch-report-\($0.index)-of-\($0.count).json" } ?? "batch-report.json")
    }
}

/// Runs a batch: each recording as its own `fxreplay render` child process, a few at a time,
/// so a failure or crash in one never stops the others. Outputs that a previous run already
/// made from the same input and options are skipped; SIGINT/SIGTERM/SIGHUP are passed on to the
/// children, which remove their temporary files.
package final class BatchRunner: @unchecked Sendable {
    let recordings: [BatchRecording]
    let settings: BatchSettings
    private let layout: BatchLayout
    /// Held while `state` is read or changed.
    private let stateLock = NSLock()
    private var state = RunState()

    private struct RunState {
        var entries: [BatchReport.Entry] = []
        var children: [Int: ChildProcess] = [:]
        var interruptedBy: Int32?
    }

    package init(recordings: [BatchRecording], settings: BatchSettings) {
        self.recordings = recordings
        self.settings = settings
        layout = BatchLayout(directory: settings.outputDirectory)
    }

    /// Renders everything not up to date and returns the report (not yet written).
    package func run() throws(ReplayError) -> BatchReport {
        let started = Date()
        for directory in [settings.outputDirectory, layout.logs] {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw .processing("\(directory): cannot create the directory: \(error.localizedDescription)")
            }
        }
        let toRender = try sortOutUpToDate()
        let progress = BatchProgress(style: settings.progress, toRender: toRender.count, skipped: recordings.count - toRender.count)
        let ticker = DispatchSource.makeTimerSource(queue: .global())
        ticker.schedule(deadline: .now() + 0.25, repeating: 0.25)
        ticker.setEventHandler { progress.tick() }
        ticker.resume()
        let signals = installSignalForwarding()
        defer {
            signals.forEach { $0.cancel() }
            for signalNumber in InterruptCleanup.caught { signal(signalNumber, SIG_DFL) }
        }

        let slots = DispatchSemaphore(value: max(1, settings.jobs))
        let group = DispatchGroup()
        for (index, key) in toRender {
            slots.wait()
            guard !isInterrupted else { slots.signal(); break }
            group.enter()
            Thread { [self] in
                if let entry = render(index, key: key, progress: progress) {
                    record(entry, at: index)
                    progress.finished(entry)
                }
                slots.signal()
                group.leave()
            }.start()
        }
        group.wait()
        ticker.cancel()
        progress.finish()
        let final = stateLock.withLock { state }
        return BatchReport(version: settings.version, shard: settings.shard?.description, jobs: settings.jobs,
                           wallSeconds: Date().timeIntervalSince(started), interruptedBy: final.interruptedBy,
                           recordings: final.entries)
    }

    /// Removes what killed runs left behind, marks recordings whose output is up to date as
    /// skipped, and returns the others with their fingerprint keys. Refuses (before any render)
    /// to replace a file that no fingerprint vouches for, unless forced.
    private func sortOutUpToDate() throws(ReplayError) -> [(index: Int, key: String)] {
        var toRender: [(index: Int, key: String)] = []
        var entries: [BatchReport.Entry] = []
        var unvouched: [String] = []
        for (index, recording) in recordings.enumerated() {
            for path in [recording.output, OutputFingerprint.path(forOutput: recording.output), layout.report(recording)] {
                removeStaleTemporaryFiles(for: FilePath(path))
            }
            let key = OutputFingerprint.key(version: settings.version, arguments: recording.arguments, files: recording.files)
            var entry = BatchReport.Entry(name: recording.name, input: recording.input, output: recording.output, status: .pending)
            if !settings.force, OutputFingerprint.load(forOutput: recording.output)?.matches(key: key, output: recording.output) == true {
                entry.status = .skipped
                entry.bytes = FileStatus(FilePath(recording.output))?.size
            } else {
                toRender.append((index, key))
                // (A recording another batch holds is checked once its lock is had: that batch may be making it.)
                if !settings.force, !isLockedElsewhere(recording) { unvouched += Self.unvouchedFiles(of: recording) }
            }
            entries.append(entry)
        }
        if let first = unvouched.first {
            throw .usage("\(first)\(unvouched.count > 1 ? " (and \(unvouched.count - 1) more)" : ""): exists, and no batch made it "
                         + "(no fingerprint vouches for it); pass --force to replace it")
        }
        stateLock.withLock { state.entries = entries }
        return toRender
    }

    /// Files a render of `recording` would replace that no batch fingerprint vouches for: an
    /// existing output the fingerprint next to it does not describe (size and time), a preview its
    /// arguments do not name. A batch makes or replaces only its own files unless `--force`.
    static func unvouchedFiles(of recording: BatchRecording) -> [String] {
        let fingerprint = OutputFingerprint.load(forOutput: recording.output).flatMap { $0.describes(recording.output) ? $0 : nil }
        func exists(_ path: String) -> Bool { var info = stat(); return lstat(path, &info) == 0 }
        var files: [String] = []
        if exists(recording.output), fingerprint == nil { files.append(recording.output) }
        for preview in BatchLayout.previews(recording) where exists(preview) && fingerprint?.arguments.contains("--preview=\(preview)") != true {
            files.append(preview)
        }
        return files
    }

    /// Whether another process holds `recording`'s lock now.
    private func isLockedElsewhere(_ recording: BatchRecording) -> Bool {
        let descriptor = open(layout.lock(recording), O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    private var isInterrupted: Bool { stateLock.withLock { state.interruptedBy != nil } }

    /// Renders one recording while holding its lock, so that another batch on the same directory
    /// (a relaunched job while the old one still runs) waits for it rather than writing the same
    /// output, fingerprint and log at once; then finds the output up to date and skips it.
    /// `nil` when interrupted before the render started (the recording stays pending).
    private func render(_ index: Int, key: String, progress: BatchProgress) -> BatchReport.Entry? {
        let recording = recordings[index]
        guard let lock = OutputLock(path: layout.lock(recording), whileWaiting: { !isInterrupted }) else { return nil }
        defer { lock.release() }
        var entry = stateLock.withLock { state.entries[index] }
        if lock.waited, !settings.force, OutputFingerprint.load(forOutput: recording.output)?.matches(key: key, output: recording.output) == true {
            entry.status = .skipped
            entry.bytes = FileStatus(FilePath(recording.output))?.size
            return entry
        }
        if !settings.force, let file = Self.unvouchedFiles(of: recording).first {
            entry.status = .failed
            entry.error = "\(file): exists, and no batch made it (no fingerprint vouches for it); pass --force to replace it"
            return entry
        }
        let child: ChildProcess
        do {
            // Started under the lock: a signal forwarded meanwhile finds the child, or none is started.
            stateLock.lock()
            defer { stateLock.unlock() }
            guard state.interruptedBy == nil else { return nil }
            child = try start(recording)
            state.children[index] = child
        } catch {
            entry.status = .failed
            entry.error = error.message
            return entry
        }
        progress.started(recording.name)
        let finished = finish(recording, child: child, key: key, started: Date(), progress: progress)
        stateLock.withLock { state.children[index] = nil }
        return finished
    }


    private func record(_ entry: BatchReport.Entry, at index: Int) {
        stateLock.withLock { state.entries[index] = entry }
    }

    /// Starts render for one recording. The old fingerprint's key goes first, so that a run killed
    /// after the new output replaced the old one never finds a fingerprint that calls it up to
    /// date; it still vouches that batch made the old output, which a failed render leaves.
    private func start(_ recording: BatchRecording) throws(ReplayError) -> ChildProcess {
        // A manifest may put outputs in subdirectories of DIR.
        try? FileManager.default.createDirectory(atPath: PathNames.directory(of: recording.output), withIntermediateDirectories: true)
        OutputFingerprint.invalidate(forOutput: recording.output)
        unlink(layout.report(recording))
        var control = ["--progress=json", "--report=\(layout.report(recording))", "--overwrite"]
        if settings.verbose { control.append("--verbose") }
        control += settings.renderArguments
        return try ChildProcess(executable: settings.executable, arguments: [recording.command] + recording.arguments + control)
    }

    /// Copies the child's output to its log while following its progress, waits for it, and
    /// turns the outcome into a report entry (writing the fingerprint after a success).
    private func finish(_ recording: BatchRecording, child: ChildProcess, key: String, started: Date,
                        progress: BatchProgress) -> BatchReport.Entry {
        let log = open(layout.log(recording), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        var pending: [UInt8] = []
        var messages = ChildMessages()
        child.readOutput { chunk in
            if log >= 0 { _ = write(log, chunk.baseAddress, chunk.count) }
            pending.append(contentsOf: chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespaces)
                pending.removeSubrange(...newline)
                if line.hasPrefix("{") {
                    if let (frames, total) = Self.progressLine(line) { progress.progress(recording.name, frames: frames, total: total) }
                    else { messages.noteEvent(line) }
                } else if !line.isEmpty {
                    messages.note(line)
                }
            }
        }
        if log >= 0 { close(log) }
        let termination = child.wait()

        var entry = BatchReport.Entry(name: recording.name, input: recording.input, output: recording.output, status: .failed)
        entry.seconds = Date().timeIntervalSince(started)
        entry.log = layout.log(recording)
        let message = messages.error
        let interrupted = endedByInterrupt(termination) ? awaitInterruption() : isInterrupted
        switch termination {
        case .exited(0):
            guard let fingerprint = OutputFingerprint(key: key, version: settings.version, arguments: recording.arguments,
                                                      output: recording.output) else {
                entry.exitCode = 0
                entry.error = "render succeeded but \(recording.output) is missing"
                return entry
            }
            entry.status = .done
            entry.exitCode = 0
            entry.bytes = fingerprint.outputBytes
            if let data = FileManager.default.contents(atPath: layout.report(recording)),
               let report = try? JSONDecoder().decode(RenderReport.self, from: data) {
                entry.frames = report.framesEncoded
                entry.fps = report.speedFPS
            }
            do { try fingerprint.write(forOutput: recording.output) } catch {
                entry.error = "rendered, but the fingerprint was not saved (the next run renders it again): \(error.message)"
            }
        case .exited(let code):
            entry.exitCode = code
            entry.status = interrupted && InterruptCleanup.signals.contains(code - 128) ? .interrupted : .failed
            entry.error = message ?? "render exited with status \(code)"
        case .signaled(let signalNumber):
            entry.signal = signalNumber
            entry.status = interrupted ? .interrupted : .failed
            entry.error = "render was killed by signal \(signalNumber)" + (message.map { " after: \($0)" } ?? "")
        }
        return entry
    }

    /// Whether a render ended by SIGINT, SIGTERM or SIGHUP, caught (exit 128 + N) or not.
    private func endedByInterrupt(_ termination: ChildProcess.Termination) -> Bool {
        switch termination {
        case .exited(let code): InterruptCleanup.signals.contains(code - 128)
        case .signaled(let signalNumber): InterruptCleanup.signals.contains(signalNumber)
        }
    }

    /// Whether the batch itself is interrupted, waiting up to a second for its signal. Ctrl-C in a
    /// terminal signals the batch and its renders at once, and the batch handles its copy
    /// asynchronously: a render can end of it first, and must not then be called failed.
    private func awaitInterruption() -> Bool {
        let deadline = Date(timeIntervalSinceNow: 1)
        while !isInterrupted {
            guard Date() < deadline else { return false }
            usleep(10_000)
        }
        return true
    }

    /// Frames done and expected from one of render's `--progress json` lines.
    static func progressLine(_ line: String) -> (Int, Int?)? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let frames = object["frames"] as? Int else { return nil }
        return (frames, object["total"] as? Int)
    }

    /// Passes SIGINT/SIGTERM/SIGHUP on to every running render and stops starting new ones.
    private func installSignalForwarding() -> [any DispatchSourceSignal] {
        InterruptCleanup.handle { [self] signalNumber in
            let children = stateLock.withLock {
                if state.interruptedBy == nil { state.interruptedBy = signalNumber }
                return Array(state.children.values)
            }
            children.forEach { $0.send(signalNumber) }
        }
    }
}

/// What a failed render said last: its error line (`fxreplay: error: …`, older `fxreplay: …` or the
/// argument parser's `Error: …`, which a usage summary and a help hint follow; with `--progress json`
/// an `{"event": "error", …}` line), else its last line.
struct ChildMessages {
    private var lastError: String?
    private var lastLine: String?

    mutating func note(_ line: String) {
        lastLine = line
        for prefix in ["fxreplay: error: ", "fxreplay: ", "Error: "] where line.hasPrefix(prefix) && !line.hasPrefix("fxreplay: warning:") {
            lastError = String(line.dropFirst(prefix.count))
            break
        }
    }

    /// A JSON message event (`--progress json`): its message counts as the line it stands for.
    mutating func noteEvent(_ line: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let event = object["event"] as? String, let message = object["message"] as? String else { return }
        lastLine = message
        if event == "error" { lastError = message }
    }

    var error: String? { lastError ?? lastLine }
}

/// An exclusive lock on a file (`flock`), held until ``release()`` or the process ends (even by
/// `kill -9`), so a crashed batch never leaves it held.
struct OutputLock {
    private let descriptor: Int32
    /// Another process held it when asked.
    let waited: Bool

    /// Takes the lock, polling while another process holds it and `whileWaiting` says to go on;
    /// `nil` when it says to stop. Where locks cannot be had (a lock file that cannot be opened,
    /// a file system without locks) it goes on unlocked.
    init?(path: String, whileWaiting: () -> Bool) {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        var waited = false
        while descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { break }
            guard whileWaiting() else {
                close(descriptor)
                return nil
            }
            waited = true
            usleep(200_000)
        }
        self.waited = waited
    }

    func release() {
        if descriptor >= 0 { close(descriptor) }
    }
}
