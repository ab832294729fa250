import Foundation
import FxTestSupport
@testable import FxreplayBatch
@testable import ReplayKitless
import Testing

/// The environment without any cluster shard variables, so these tests do the whole batch
/// even when the test run itself is inside a Kubernetes or Slurm job.
func batchEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
    ProcessInfo.processInfo.environment
        .filter { !$0.key.hasPrefix("SLURM_ARRAY_") && $0.key != "JOB_COMPLETION_INDEX" && $0.key != "FXREPLAY_SHARD_COUNT" }
        .merging(extra) { $1 }
}

/// Runs `fxreplay batch …` and decodes the report it wrote.
func runBatch(_ arguments: [String], out: URL, environment: [String: String] = [:],
              report: String = "batch-report.json") throws -> (RunResult, BatchReport?) {
    let run = try runFxreplay(["batch"] + arguments + ["--out", out.path, "--progress", "none"], environment: batchEnvironment(environment))
    let data = try? Data(contentsOf: out.appendingPathComponent(report))
    return (run, try data.map { try JSONDecoder().decode(BatchReport.self, from: $0) })
}

/// The `batch-report.json` a batch wrote to `out`.
func batchReport(in out: URL) throws -> BatchReport {
    try JSONDecoder().decode(BatchReport.self, from: Data(contentsOf: out.appendingPathComponent("batch-report.json")))
}

/// Small recordings (160×96, `frames` frames at 30 fps) named `NAME.mp4` in a fresh directory.
func makeRecordings(_ names: [String], frames: Int = 10) throws -> URL {
    let dir = try makeScratchDirectory()
    for name in names {
        try writeRecording(to: dir.appendingPathComponent("\(name).mp4").path, pts: (0..<frames).map { Int64($0) * 3000 })
    }
    return dir
}

/// The `--progress json` events of a batch that name a recording, per recording, in the order printed.
func recordingEvents(_ stderr: String) -> [String: [String]] {
    let objects = stderr.split(separator: "\n").filter { $0.hasPrefix("{") }.compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    var byName: [String: [String]] = [:]
    for object in objects {
        if let name = object["name"] as? String, let event = object["event"] as? String { byName[name, default: []].append(event) }
    }
    return byName
}

func modificationDate(_ url: URL) throws -> Date? {
    try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
}

@Suite struct BatchTests {
    @Test func aBrokenRecordingFailsAloneAndTheReportSaysWhy() throws {
        let dir = try makeRecordings(["a", "b", "c"])
        try Data("this is not a video".utf8).write(to: dir.appendingPathComponent("broken.mp4"))
        let out = dir.appendingPathComponent("out")
        let (run, report) = try runBatch([dir.path + "/*.mp4", "-j", "2"], out: out)
        #expect(run.status == 1, "\(run.stderr)")
        let entries = try #require(report).recordings
        #expect(entries.map(\.name) == ["a", "b", "broken", "c"])
        let broken = try #require(entries.first { $0.name == "broken" })
        #expect(broken.status == .failed && broken.exitCode == 3)
        #expect(broken.error?.contains("broken.mp4") == true, "\(broken.error ?? "")")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("broken.mp4").path))
        for entry in entries where entry.name != "broken" {
            // Every frame the input decodes to, counted independently of render.
            let frames = try decodeFrames(dir.appendingPathComponent("\(entry.name).mp4").path, measure: false).count
            #expect(entry.status == .done && entry.exitCode == 0 && entry.frames == frames)
            let output = out.appendingPathComponent("\(entry.name).mp4")
            #expect(entry.bytes == (try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int64))
            #expect(try decodeFrames(output.path).count == frames)
        }
        // The broken one's log holds render's own error; the summary table names it too.
        let log = try String(contentsOf: out.appendingPathComponent("logs/broken.log"), encoding: .utf8)
        // (render runs with --progress json, so its error is a JSON event: {"event":"error","message":…})
        #expect(log.contains(#""event":"error""#) && log.contains("broken.mp4"), "\(log)")
        #expect(run.stdout.contains("broken  failed"))
        #expect(run.stderr.contains("1 of 4 recordings failed"))
    }

    @Test func aRerunSkipsUpToDateOutputsAndRedoesChangedOnes() throws {
        let dir = try makeRecordings(["one", "two"])
        let out = dir.appendingPathComponent("out")
        let job = dir.appendingPathComponent("job.yaml")
        try Data("crf: 30\npreset: ultrafast\n".utf8).write(to: job)
        let arguments = [dir.path + "/one.mp4", dir.path + "/two.mp4", "--job", job.path]
        let outputs = ["one", "two"].map { out.appendingPathComponent("\($0).mp4") }

        let (first, firstReport) = try runBatch(arguments, out: out)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(firstReport?.done == 2)
        let times = try outputs.map(modificationDate)
        let firstBytes = try outputs.map { try Data(contentsOf: $0) }

        // A temporary file a killed run left behind.
        let stale = out.appendingPathComponent(".one.mp4.fxreplay-99999-1.part")
        try Data("partial".utf8).write(to: stale)
        let (second, secondReport) = try runBatch(arguments, out: out)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(secondReport?.skipped == 2 && secondReport?.done == 0)
        #expect(secondReport?.recordings.allSatisfy { $0.seconds == nil && $0.bytes != nil } == true)
        #expect(try outputs.map(modificationDate) == times)
        #expect(!FileManager.default.fileExists(atPath: stale.path))

        // Other options: both are rendered again, with a different result.
        try Data("crf: 45\npreset: ultrafast\n".utf8).write(to: job)
        let (third, thirdReport) = try runBatch(arguments, out: out)
        #expect(third.status == 0 && thirdReport?.done == 2)
        #expect(try outputs.map { try Data(contentsOf: $0) } != firstBytes)

        // A touched input: only that recording.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)],
                                              ofItemAtPath: dir.appendingPathComponent("two.mp4").path)
        let (fourth, fourthReport) = try runBatch(arguments, out: out)
        #expect(fourth.status == 0)
        #expect(fourthReport?.recordings.map(\.status) == [.skipped, .done])

        // --force: everything.
        let (fifth, fifthReport) = try runBatch(arguments + ["--force"], out: out)
        #expect(fifth.status == 0 && fifthReport?.done == 2 && fifthReport?.skipped == 0)
    }

    @Test func shardsSplitTheWorkWithoutOverlapAndTheEnvironmentPicksTheSame() throws {
        let names = ["r0", "r1", "r2", "r3", "r4", "r5"]
        let dir = try makeRecordings(names, frames: 4)
        let out = dir.appendingPathComponent("out")
        let pattern = dir.path + "/r*.mp4"
        var done: [Set<String>] = []
        for index in 0..<3 {
            let (run, report) = try runBatch([pattern, "--shard", "\(index)/3"], out: out, report: "batch-report-\(index)-of-3.json")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(report?.shard == "\(index)/3")
            done.append(Set(report?.recordings.filter { $0.status == .done }.map(\.name) ?? []))
        }
        #expect(done[0].isDisjoint(with: done[1]) && done[0].isDisjoint(with: done[2]) && done[1].isDisjoint(with: done[2]))
        #expect(done[0].union(done[1]).union(done[2]) == Set(names))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".mp4") && !$0.hasPrefix(".") }.count == 6)

        // A Kubernetes Indexed Job's pod 1 and a Slurm array task 11 of 10…12 both do shard 1/3.
        let kubernetes = try runBatch([pattern, "--shard-count", "3"], out: dir.appendingPathComponent("k8s"),
                                      environment: ["JOB_COMPLETION_INDEX": "1"], report: "batch-report-1-of-3.json")
        #expect(kubernetes.0.status == 0, "\(kubernetes.0.stderr)")
        #expect(Set(kubernetes.1?.recordings.map(\.name) ?? []) == done[1])
        #expect(kubernetes.0.stderr.contains("shard 1/3 (from JOB_COMPLETION_INDEX)"))
        let slurm = try runBatch([pattern], out: dir.appendingPathComponent("slurm"),
                                 environment: ["SLURM_ARRAY_TASK_ID": "11", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_COUNT": "3"],
                                 report: "batch-report-1-of-3.json")
        #expect(slurm.0.status == 0, "\(slurm.0.stderr)")
        #expect(Set(slurm.1?.recordings.map(\.name) ?? []) == done[1])
        // The index without a count is bad usage.
        let noCount = try runBatch([pattern], out: dir.appendingPathComponent("none"), environment: ["JOB_COMPLETION_INDEX": "1"])
        #expect(noCount.0.status == 2 && noCount.0.stderr.contains("--shard-count"))
    }

    /// -j takes 1 to 64 renders at once; beyond that (any count was taken) or below is bad usage
    /// giving the range, before anything is written.
    @Test func jobsOutsideOneToSixtyFourAreBadUsage() throws {
        let dir = try makeRecordings(["a"], frames: 2)
        let out = dir.appendingPathComponent("out")
        for jobs in ["0", "-1", "65", "1000"] {
            let (run, _) = try runBatch([dir.path + "/a.mp4", "-j", jobs], out: out)
            #expect(run.status == 2 && run.stderr.contains("--jobs must be between 1 and 64"), "-j \(jobs): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
        let (largest, report) = try runBatch([dir.path + "/a.mp4", "-j", "64"], out: out)
        #expect(largest.status == 0 && report?.jobs == 64, "\(largest.stderr)")
    }

    /// `--progress json` says when each render starts: one `started` event per rendered recording,
    /// before its `recording` event; a recording found up to date gets none.
    @Test func jsonProgressSaysWhenEachRenderStarts() throws {
        let dir = try makeRecordings(["a", "b"], frames: 4)
        let arguments = ["batch", dir.path + "/*.mp4", "--out", dir.appendingPathComponent("out").path, "-j", "2", "--progress", "json"]
        let first = try runFxreplay(arguments, environment: batchEnvironment())
        #expect(first.status == 0, "\(first.stderr)")
        #expect(recordingEvents(first.stderr) == ["a": ["started", "recording"], "b": ["started", "recording"]], "\(first.stderr)")

        // A touched input: only that one is rendered again.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)],
                                              ofItemAtPath: dir.appendingPathComponent("b.mp4").path)
        let second = try runFxreplay(arguments, environment: batchEnvironment())
        #expect(second.status == 0, "\(second.stderr)")
        #expect(recordingEvents(second.stderr) == ["b": ["started", "recording"]], "\(second.stderr)")
    }

    /// A re-run that spells the same recordings and output directory another way (relative from
    /// their directory, then absolute from elsewhere) finds the outputs up to date.
    @Test func aRerunSkipsWhateverTheSpellingOfThePaths() throws {
        let dir = try makeRecordings(["a", "b"], frames: 4)
        let manifest = dir.appendingPathComponent("list.csv")
        try Data("input\na.mp4\n./b.mp4\n".utf8).write(to: manifest)
        // (arguments after `batch`, working directory: nil is the package's)
        let sub = dir.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let runs: [([String], URL?)] = [(["*.mp4", "--out", "out"], dir), ([dir.path + "/*.mp4", "--out", dir.path + "/./out"], nil),
                                        (["--manifest", "list.csv", "--out", "out/"], dir), (["--manifest", manifest.path, "--out", dir.path + "/out"], nil),
                                        (["../*.mp4", "--out", "../out"], sub), (["*.mp4", "--out", "sub/../out"], dir)]
        for (index, (arguments, directory)) in runs.enumerated() {
            let run = try runFxreplay(["batch"] + arguments + ["--progress", "none"], environment: batchEnvironment(), currentDirectory: directory)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            let report = try batchReport(in: dir.appendingPathComponent("out"))
            #expect(report.recordings.map(\.status) == (index == 0 ? [.done, .done] : [.skipped, .skipped]), "\(arguments)")
        }
    }

    @Test func manifestRowsOverrideTheJobAndNameOutputs() throws {
        let dir = try makeRecordings(["a", "b"])
        let manifest = dir.appendingPathComponent("list.csv")
        try Data("input,output,size\na.mp4,,80x48\nb.mp4,bee.mkv,\n".utf8).write(to: manifest)
        let job = dir.appendingPathComponent("job.json")
        try Data(#"{"size": "96x64", "preset": "ultrafast"}"#.utf8).write(to: job)
        let out = dir.appendingPathComponent("out")
        let (run, report) = try runBatch(["--manifest", manifest.path, "--job", job.path], out: out)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(report?.recordings.map(\.output) == [out.path + "/a.mp4", out.path + "/bee.mkv"])
        let frames = try decodeFrames(dir.appendingPathComponent("a.mp4").path, measure: false).count
        let a = try decodeFrames(out.appendingPathComponent("a.mp4").path, measure: false)
        let bee = try decodeFrames(out.appendingPathComponent("bee.mkv").path, measure: false)
        #expect(frames > 0 && a.count == frames && a.allSatisfy { $0.width == 80 && $0.height == 48 })
        #expect(bee.count == frames && bee.allSatisfy { $0.width == 96 && $0.height == 64 })
    }

    @Test func aRowsPoseSourceReplacesTheJobs() throws {
        // The recordings carry no pose SEI: the job's choice would fail; the row's sidecar replaces it.
        let dir = try makeRecordings(["a"], frames: 4)
        let sidecar = (0..<4).map { #"{"frame": \#($0), "position": [0, 1.5, 0], "euler": [0, 0, 0], "zNear": 0.01, "fovY": 60}"# }
        try Data(sidecar.joined(separator: "\n").utf8).write(to: dir.appendingPathComponent("lens.jsonl"))
        let manifest = dir.appendingPathComponent("list.csv")
        try Data("input,poses\na.mp4,lens.jsonl\n".utf8).write(to: manifest)
        let job = dir.appendingPathComponent("job.json")
        try Data(#"{"poses-from-sei": true, "preset": "ultrafast"}"#.utf8).write(to: job)
        let (run, report) = try runBatch(["--manifest", manifest.path, "--job", job.path], out: dir.appendingPathComponent("out"))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(report?.done == 1)
    }

    @Test func aManifestsRelativePathsWorkFromAnyWorkingDirectory() throws {
        // The auxiliary files have names the naming convention does not find: only the row names them.
        let dir = try makeScratchDirectory()
        let side = dir.appendingPathComponent("side")
        try FileManager.default.createDirectory(at: side, withIntermediateDirectories: true)
        let copies = [("Samples/call.mp4", "call.mp4"), ("Samples/call.poses.jsonl", "side/p.jsonl"),
                      ("Samples/call.mask.mkv", "side/m.mkv"), ("Samples/background.png", "side/bg.png"),
                      ("Samples/annotations.json", "side/scene.json"),
                      ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "side/font.ttf")]
        for (from, to) in copies { try FileManager.default.copyItem(atPath: from, toPath: dir.appendingPathComponent(to).path) }
        let manifest = dir.appendingPathComponent("list.csv")
        try Data(("input,output,poses,mask,background,annotations,font,preview,codec,deterministic\n"
                  + "call.mp4,call.mkv,side/p.jsonl,side/m.mkv,image:side/bg.png,side/scene.json,side/font.ttf,sheet.png,ffv1,true\n").utf8)
            .write(to: manifest)
        let out = dir.appendingPathComponent("out")
        // The tests run in the package's directory, not the manifest's.
        #expect(FileManager.default.currentDirectoryPath != dir.path)
        let (run, report) = try runBatch(["--manifest", manifest.path], out: out)
        #expect(run.status == 0, "\(run.stderr) \(report?.recordings.first?.error ?? "")")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("sheet.png").path))
        // The same render with every path spelled out in full.
        let direct = dir.appendingPathComponent("direct.mkv").path
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let render = try runFxreplay(["render", path("call.mp4"), "-o", direct, "--poses", path("side/p.jsonl"),
                                      "--mask", path("side/m.mkv"), "--background", "image:" + path("side/bg.png"),
                                      "--annotations", path("side/scene.json"), "--font", path("side/font.ttf"),
                                      "--codec", "ffv1", "--deterministic", "--progress", "none"])
        #expect(render.status == 0, "\(render.stderr)")
        func frameHashes(_ video: String) throws -> String {
            try runFFmpegCLI(["-i", video, "-map", "0:v", "-f", "framemd5", video + ".md5"])
            return try String(contentsOfFile: video + ".md5", encoding: .utf8)
        }
        let hashes = try frameHashes(out.appendingPathComponent("call.mkv").path)
        #expect(hashes.split(separator: "\n").count > 100)
        #expect(try hashes == frameHashes(direct))
    }

    @Test func badJobsAndManifestsStopTheBatchBeforeAnyRender() throws {
        let dir = try makeRecordings(["a"], frames: 2)
        let job = dir.appendingPathComponent("job.yaml")
        try Data("crf: 20\nsharpness: 3\n".utf8).write(to: job)
        let out = dir.appendingPathComponent("out")
        let (run, _) = try runBatch([dir.path + "/a.mp4", "--job", job.path], out: out)
        #expect(run.status == 3)
        #expect(run.stderr.contains("\(job.path):2 (sharpness): Unknown option '--sharpness'"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))

        // Rows repeating options are checked once per distinct set: the first bad row is still the one named.
        let manifest = dir.appendingPathComponent("m.csv")
        try Data("input,crf\na.mp4,20\na.mp4,20\na.mp4,99\na.mp4,99\n".utf8).write(to: manifest)
        let (bad, _) = try runBatch(["--manifest", manifest.path], out: out)
        #expect(bad.status == 3)
        #expect(bad.stderr.contains("\(manifest.path):4 (crf): --crf must be between 0 and 63"), "\(bad.stderr)")
        // Options that are fine alone but not together are blamed on the row.
        try Data("input,crf,bitrate\na.mp4,20,\na.mp4,20,1M\n".utf8).write(to: manifest)
        let (clash, _) = try runBatch(["--manifest", manifest.path], out: out)
        #expect(clash.status == 3)
        #expect(clash.stderr.contains("\(manifest.path):3: --crf and --bitrate exclude each other"), "\(clash.stderr)")
        // A naming pattern for an option render does not have (it was accepted, and failed every render
        // once such a file existed).
        try Data("batch:\n  contaner: \"{name}.x\"\n".utf8).write(to: job)
        let (pattern, _) = try runBatch([dir.path + "/a.mp4", "--job", job.path], out: out)
        #expect(pattern.status == 3)
        #expect(pattern.stderr.contains("\(job.path):2 (contaner): Unknown option '--contaner'"), "\(pattern.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// A batch over one long recording (mid-render for a while at --preset veryslow) and two
    /// short ones, started in the background and returned once the first render is writing.
    func startSlowBatch() throws -> (batch: Process, dir: URL, out: URL, arguments: [String]) {
        let dir = try makeScratchDirectory()
        try writeRecording(to: dir.appendingPathComponent("a-long.mp4").path, size: PictureSize(width: 640, height: 360),
                           pts: (0..<75).map { Int64($0) * 3000 })
        for name in ["b", "c"] {
            try writeRecording(to: dir.appendingPathComponent("\(name).mp4").path, pts: (0..<10).map { Int64($0) * 3000 })
        }
        let job = dir.appendingPathComponent("job.yaml")
        try Data("preset: veryslow\n".utf8).write(to: job)
        let out = dir.appendingPathComponent("out")
        let arguments = ["batch", dir.path + "/*.mp4", "--job", job.path, "--out", out.path, "-j", "1", "--progress", "none"]

        let batch = Process()
        batch.executableURL = fxreplayExecutable
        batch.arguments = arguments
        batch.environment = batchEnvironment()
        batch.standardOutput = FileHandle.nullDevice
        batch.standardError = FileHandle.nullDevice
        try batch.run()
        let deadline = Date(timeIntervalSinceNow: 20)
        while Date() < deadline, !((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).contains(where: { $0.hasSuffix(".part") }) {
            usleep(20_000)
        }
        return (batch, dir, out, arguments)
    }

    /// Two batches on one directory (a relaunched job while the old one still runs): a recording
    /// another batch is rendering is waited for, then skipped when that batch made it. Here the test
    /// plays the other batch: it holds the recording's lock, and puts the output's fingerprint back
    /// before letting go. The second batch used to render at once, writing the same files.
    @Test func aRecordingAnotherBatchIsRenderingIsWaitedForThenSkipped() throws {
        let dir = try makeRecordings(["a"], frames: 4)
        let out = dir.appendingPathComponent("out")
        let (first, _) = try runBatch([dir.path + "/a.mp4"], out: out)
        #expect(first.status == 0, "\(first.stderr)")
        let fingerprint = out.appendingPathComponent(".a.mp4.fxreplay.json")
        let saved = try Data(contentsOf: fingerprint)
        try FileManager.default.removeItem(at: fingerprint)
        let lock = open(out.appendingPathComponent("logs/a.lock").path, O_RDWR | O_CREAT, 0o644)
        #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)

        let batch = Process()
        batch.executableURL = fxreplayExecutable
        batch.arguments = ["batch", dir.path + "/a.mp4", "--out", out.path, "--progress", "json"]
        batch.environment = batchEnvironment()
        batch.standardOutput = FileHandle.nullDevice
        let progress = Pipe()
        batch.standardError = progress
        try batch.run()
        usleep(1_500_000)
        #expect(batch.isRunning)
        try saved.write(to: fingerprint)
        close(lock)
        let stderr = String(decoding: progress.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        batch.waitUntilExit()
        #expect(batch.terminationStatus == 0)
        let report = try batchReport(in: out)
        #expect(report.recordings.map(\.status) == [.skipped])
        // Skipped after the wait: it never started.
        #expect(recordingEvents(stderr) == ["a": ["recording"]], "\(stderr)")
    }

    @Test func sigtermStopsEveryRenderAndLeavesNothingHalfWritten() throws {
        let (batch, _, out, _) = try startSlowBatch()
        let children = childProcesses(of: batch.processIdentifier)
        #expect(!children.isEmpty)
        kill(batch.processIdentifier, SIGTERM)
        batch.waitUntilExit()
        #expect(batch.terminationReason == .exit && batch.terminationStatus == 143)
        // The batch waited for its renders, and they removed their temporary files.
        #expect(!children.contains(where: isAlive))
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(!files.contains { $0.hasSuffix(".part") || $0 == "a-long.mp4" }, "\(files)")
        let report = try batchReport(in: out)
        #expect(report.interruptedBy == SIGTERM)
        #expect(report.recordings.map(\.status) == [.interrupted, .pending, .pending])
    }

    /// Ctrl-C in a terminal signals the batch and its renders together; the render may see it
    /// first. Here it does by a fifth of a second, and is still interrupted, not failed.
    @Test func aRenderInterruptedJustBeforeTheBatchIsInterruptedNotFailed() throws {
        let (batch, _, out, _) = try startSlowBatch()
        let children = childProcesses(of: batch.processIdentifier)
        #expect(children.count == 1)
        children.forEach { kill($0, SIGINT) }
        usleep(200_000)
        kill(batch.processIdentifier, SIGINT)
        batch.waitUntilExit()
        #expect(batch.terminationReason == .exit && batch.terminationStatus == 130)
        let report = try batchReport(in: out)
        #expect(report.interruptedBy == SIGINT)
        #expect(report.recordings.map(\.status) == [.interrupted, .pending, .pending])
        #expect(report.recordings.first?.exitCode == 130)
    }

    /// A render interrupted on its own (the batch is not) failed, and the batch goes on.
    @Test func aRenderInterruptedAloneFailsAndTheBatchGoesOn() throws {
        let (batch, _, out, _) = try startSlowBatch()
        childProcesses(of: batch.processIdentifier).forEach { kill($0, SIGTERM) }
        batch.waitUntilExit()
        #expect(batch.terminationReason == .exit && batch.terminationStatus == 1)
        let report = try batchReport(in: out)
        #expect(report.interruptedBy == nil)
        #expect(report.recordings.map(\.status) == [.failed, .done, .done])
        #expect(report.recordings.first?.exitCode == 143)
    }

    @Test func aBatchKilledMidRunLeavesNoPartialOutputAndTheNextRunFinishes() throws {
        let (batch, dir, out, arguments) = try startSlowBatch()
        let children = childProcesses(of: batch.processIdentifier)
        #expect(!children.isEmpty)
        kill(batch.processIdentifier, SIGKILL)
        batch.waitUntilExit()
        #expect(batch.terminationReason == .uncaughtSignal)
        // The orphaned render ends at its next write to the dead batch's pipe.
        let orphanDeadline = Date(timeIntervalSinceNow: 15)
        while Date() < orphanDeadline, children.contains(where: isAlive) { usleep(50_000) }
        #expect(!children.contains(where: isAlive))

        // Whatever is under a final name is complete: every frame the input decodes to.
        var frames: [String: Int] = [:]
        for name in ["a-long", "b", "c"] {
            frames[name] = try decodeFrames(dir.appendingPathComponent("\(name).mp4").path, measure: false).count
            let path = out.appendingPathComponent("\(name).mp4").path
            if FileManager.default.fileExists(atPath: path) {
                #expect(try decodeFrames(path, measure: false).count == frames[name], "\(name) is partial")
            }
        }

        let rerun = try runFxreplay(arguments, environment: batchEnvironment())
        #expect(rerun.status == 0, "\(rerun.stderr)")
        for name in ["a-long", "b", "c"] {
            #expect(try decodeFrames(out.appendingPathComponent("\(name).mp4").path, measure: false).count == frames[name])
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".part") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}

/// Processes whose parent is `pid`, from /proc.
func childProcesses(of pid: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { candidate in
        guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        // Fields after the command name: state, ppid, …
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 && Int32(fields[1]) == pid
    }
}

/// Whether `pid` is a live process (zombies count as ended).
func isAlive(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return false }
    return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
}

@Suite struct RenderJobTests {
    @Test func commandLineOptionsOverrideTheJob() throws {
        let dir = try makeRecordings(["in"])
        let input = dir.appendingPathComponent("in.mp4").path
        let job = dir.appendingPathComponent("job.yaml")
        try Data("crf: 45\nsize: 80x48\ndeterministic: true\npreset: ultrafast\n".utf8).write(to: job)
        func render(_ name: String, _ arguments: [String]) throws -> Data {
            let output = dir.appendingPathComponent(name).path
            let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
            return try Data(contentsOf: URL(fileURLWithPath: output))
        }
        // The job with --crf 10 on the command line is exactly the render with crf 10 …
        let overridden = try render("job.mp4", ["--job", job.path, "--crf", "10"])
        let direct = try render("direct.mp4", ["--crf", "10", "--size", "80x48", "--deterministic", "--preset", "ultrafast"])
        let jobOnly = try render("jobonly.mp4", ["--job", job.path])
        #expect(overridden == direct)
        // … and not the job's own crf 45.
        #expect(overridden != jobOnly)
        let jobAsIs = try render("asis.mp4", ["--crf", "45", "--size", "80x48", "--deterministic", "--preset", "ultrafast"])
        #expect(jobOnly == jobAsIs)
        // The same job as JSON.
        let json = dir.appendingPathComponent("job.json")
        try Data(#"{"crf": 45, "size": "80x48", "deterministic": true, "preset": "ultrafast"}"#.utf8).write(to: json)
        #expect(try render("json.mp4", ["--job=\(json.path)"]) == jobAsIs)
    }

    @Test func anUnknownJobKeyNamesTheFileAndKey() throws {
        let dir = try makeRecordings(["in"], frames: 2)
        let job = dir.appendingPathComponent("job.yaml")
        try Data("crf: 20\nkeep_rotation: true\n".utf8).write(to: job)
        let output = dir.appendingPathComponent("out.mp4").path
        let run = try runFxreplay(["render", "--job", job.path, dir.appendingPathComponent("in.mp4").path, "-o", output])
        #expect(run.status == 3)
        #expect(run.stderr.contains("\(job.path):2 (keep_rotation): 'keep_rotation' is not an option name"), "\(run.stderr)")
        #expect(run.stderr.contains("did you mean 'keep-rotation'?"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        // A JSON job names the line too, and a key given twice is an error, not the last one winning.
        let json = dir.appendingPathComponent("job.json")
        try Data("{\n  \"crf\": 20,\n  \"presett\": \"fast\"\n}\n".utf8).write(to: json)
        let misspelt = try runFxreplay(["render", "--job", json.path, dir.appendingPathComponent("in.mp4").path, "-o", output])
        #expect(misspelt.status == 3 && misspelt.stderr.contains("\(json.path):3 (presett): Unknown option '--presett'"), "\(misspelt.stderr)")
        try Data("{\"crf\": 20,\n \"crf\": 30}\n".utf8).write(to: json)
        let twice = try runFxreplay(["render", "--job", json.path, dir.appendingPathComponent("in.mp4").path, "-o", output])
        #expect(twice.status == 3 && twice.stderr.contains("\(json.path):2: not valid JSON: duplicate key \"crf\""), "\(twice.stderr)")
        let missing = try runFxreplay(["render", "--job", dir.appendingPathComponent("nope.yaml").path, "x.mp4", "-o", output])
        #expect(missing.status == 3 && missing.stderr.contains("nope.yaml: cannot read the job spec (no such file)"))
    }
}
