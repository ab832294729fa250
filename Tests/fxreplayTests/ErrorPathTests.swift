import Foundation
import FxTestSupport
@testable import ReplayKitless
import Testing

@Suite struct ErrorPathTests {
    @Test func missingInputIsBadInputNamingThePath() throws {
        let dir = try makeScratchDirectory()
        let missing = dir.appendingPathComponent("nope.mp4").path
        let output = dir.appendingPathComponent("out.mp4").path
        let run = try runFxreplay(["render", missing, "-o", output])
        #expect(run.status == 3)
        #expect(run.stderr.contains(missing))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func garbageInputIsBadInputWithNoOutput() throws {
        let dir = try makeScratchDirectory()
        let garbage = dir.appendingPathComponent("garbage.mp4").path
        var generator = SplitMix(seed: 7)
        try Data((0..<20000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }).write(to: URL(fileURLWithPath: garbage))
        let output = dir.appendingPathComponent("out.mp4").path
        let run = try runFxreplay(["render", garbage, "-o", output])
        #expect(run.status == 3)
        #expect(run.stderr.contains("garbage.mp4"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["garbage.mp4"])
    }

    @Test func badUsageExitsTwo() throws {
        #expect(try runFxreplay(["render"]).status == 2)
        #expect(try runFxreplay(["render", "a.mp4", "-o", "b.mp4", "--codec", "mpeg1"]).status == 2)
        #expect(try runFxreplay(["render", "a.mp4", "-o", "b.mp4", "--crf", "99"]).status == 2)
        #expect(try runFxreplay(["render", "a.mp4", "-o", "b.mp4", "--size", "12by7"]).status == 2)
        // Values past what an Int holds were a trap, not a usage error.
        for flags in [["--bitrate", "1e20k"], ["--bitrate", "99999999999999999999k"], ["--bitrate", "2147483648k"],
                      ["--threads", "2147483648"], ["--threads", "-1"]] {
            let run = try runFxreplay(["render", "a.mp4", "-o", "b.mp4"] + flags)
            #expect(run.status == 2 && !run.stderr.contains("Fatal error"), "\(flags): \(run.stderr)")
        }
        for size in ["10x10x", "x10x10", "10xx10"] {
            #expect(try runFxreplay(["render", "a.mp4", "-o", "b.mp4", "--size", size]).status == 2, "\(size)")
        }
        #expect(try runFxreplay(["frobnicate"]).status == 2)
        #expect(try runFxreplay(["compare", "a.mp4", "b.mp4", "--min-psnr", "nan"]).status == 2)
        let sample = repositoryRoot.appendingPathComponent("Samples")
        #expect(try runFxreplay(["qa", "latency", sample.appendingPathComponent("call.mp4").path, "--poses-from-sei", "--annotations",
                                 sample.appendingPathComponent("annotations.json").path, "--delay", ""]).status == 2)
    }

    /// A file name given as "" is bad usage naming the option, in every command, before any work:
    /// it was bad input (a missing file), an I/O error (a rename onto ""), or a whole render that
    /// then failed to write its report.
    @Test func anEmptyFileNameIsBadUsageNamingTheOption() throws {
        let sample = repositoryRoot.appendingPathComponent("Samples")
        let call = sample.appendingPathComponent("call.mp4").path, scene = sample.appendingPathComponent("annotations.json").path
        let existing = sample.appendingPathComponent("call.poses.csv").path  // stands for any file: never read
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let render = ["render", call, "-o", "out.mp4", "--progress", "none"]
        func empty(_ option: String) -> String { "\(option): empty file name" }
        let cases: [(arguments: [String], message: String)] = [
            (render + ["--mask", ""], empty("--mask")),
            (render + ["--mask", "alpha", "--background", "image:"], "--background: 'image:': the image path is empty"),
            (render + ["--mask", "alpha", "--background", "video:"], "--background: 'video:': the video path is empty"),
            (["render", "", "-o", "out.mp4"], empty("INPUT")),
            (["render", call, "-o", ""], empty("-o")),
            (render + ["--report", ""], empty("--report")),
            (render + ["--preview", ""], empty("--preview")),
            (render + ["--poses", ""], empty("--poses")),
            (render + ["--poses-from-sei", "--annotations", ""], empty("--annotations")),
            (render + ["--poses-from-sei", "--annotations", scene, "--font", ""], empty("--font")),
            (render + ["--job", ""], empty("--job")),
            (["track", call, "--poses", "", "--annotations", scene, "-o", "t.csv"], empty("--poses")),
            (["track", call, "--poses-from-sei", "--annotations", scene, "-o", ""], empty("-o")),
            (["poses", "extract", call, "-o", ""], empty("-o")),
            (["poses", "embed", call, "--poses", "", "-o", "e.mp4"], empty("--poses")),
            (["probe", ""], empty("INPUT")),
            (["framehash", call, "--check", ""], empty("--check")),
            (["compare", call, call, "--diff", ""], empty("--diff")),
            (["qa", "compare", existing, ""], empty("B")),
            (["qa", "compare", existing, existing, "--plot", ""], empty("--plot")),
            (["qa", "latency", call, "--poses-from-sei", "--annotations", scene, "--delay", "0", "--report", ""], empty("--report")),
            (["qa", "overlay", call, "--track", existing, "--track", "", "-o", "o.mp4"], empty("--track")),
            (["batch", "", "--out", "batch"], empty("INPUTS")),
            (["batch", call, "--out", ""], empty("--out")),
            (["batch", "--manifest", "", "--out", "batch"], empty("--manifest")),
            (["batch", call, "--out", "batch", "--job", ""], empty("--job")),
            (["sample", "-o", ""], empty("-o")),
        ]
        for (arguments, message) in cases {
            let run = try runFxreplay(arguments, environment: batchEnvironment(), currentDirectory: dir)
            #expect(run.status == 2 && run.stderr.contains(message), "\(arguments): \(run.status) \(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// A number given as the next argument may be negative: a negative offset is taken, and a value
    /// out of range is named with its range (both were "Missing value").
    @Test func negativeNumbersAreValuesNotOptions() throws {
        let sample = repositoryRoot.appendingPathComponent("Samples")
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var tracks: [String] = []
        for offset in [["--pose-offset", "-0.5"], ["--pose-offset=-0.5"], []] {
            let track = dir.appendingPathComponent("t\(tracks.count).csv").path
            let run = try runFxreplay(["track", sample.appendingPathComponent("call.mp4").path, "--poses", sample.appendingPathComponent("call.poses.jsonl").path,
                                       "--annotations", sample.appendingPathComponent("annotations.json").path, "-o", track] + offset)
            #expect(run.status == 0, "\(offset): \(run.stderr)")
            tracks.append(try String(contentsOfFile: track, encoding: .utf8))
        }
        #expect(tracks[0] == tracks[1] && tracks[0] != tracks[2])
        for (flags, range) in [(["--crf", "-5"], "between 0 and 63"), (["--threads", "-1"], "0 to 1024")] {
            let run = try runFxreplay(["render", "a.mp4", "-o", "b.mp4"] + flags)
            #expect(run.status == 2 && run.stderr.contains(range), "\(flags): \(run.stderr)")
        }
    }

    /// A scene's OBJ meshes and the label font are inputs too: no output may be written over them.
    @Test func meshesAndTheFontAreNeverWrittenOver() throws {
        let sample = repositoryRoot.appendingPathComponent("Samples")
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mesh = dir.appendingPathComponent("triangle.obj").path, scene = dir.appendingPathComponent("scene.json").path
        try "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".write(toFile: mesh, atomically: true, encoding: .utf8)
        try #"{"version": 1, "annotations": [{"id": "t", "anchor": {"world": [0, 1, -2]}, "shape": "mesh", "mesh": "triangle.obj"}]}"#
            .write(toFile: scene, atomically: true, encoding: .utf8)
        let font = dir.appendingPathComponent("font.ttf").path
        try FileManager.default.copyItem(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", toPath: font)
        let before = try [mesh, font].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let input = sample.appendingPathComponent("call.mp4").path
        let track = try runFxreplay(["track", input, "--poses-from-sei", "--annotations", scene, "-o", mesh])
        #expect(track.status == 2 && track.stderr.contains("refusing to write over"), "\(track.stderr)")
        let latency = try runFxreplay(["qa", "latency", input, "--poses-from-sei", "--annotations", scene, "--delay", "100ms", "--plot", mesh])
        #expect(latency.status == 2 && latency.stderr.contains("refusing to write over"), "\(latency.stderr)")
        for (flag, target) in [("--report", font), ("--report", mesh), ("-o", mesh)] {
            var arguments = ["render", input, "--poses-from-sei", "--annotations", scene, "--font", font, "--overwrite", "--progress", "none"]
            arguments += flag == "-o" ? ["-o", target] : ["-o", dir.appendingPathComponent("out.mkv").path, flag, target]
            let run = try runFxreplay(arguments)
            #expect(run.status == 2 && run.stderr.contains("refusing to write over"), "\(flag) \(target): \(run.stderr)")
        }
        #expect(try [mesh, font].map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
    }

    @Test func refusesToOverwriteExistingOutputOrTheInput() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mp4").path
        try writeRecording(to: input, pts: (0..<5).map { Int64($0) * 3000 })
        let inputBytes = try Data(contentsOf: URL(fileURLWithPath: input))
        let existing = dir.appendingPathComponent("existing.mp4").path
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))

        let refused = try runFxreplay(["render", input, "-o", existing, "--progress", "none"])
        #expect(refused.status == 2 && refused.stderr.contains("--overwrite"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == Data("keep me".utf8))

        let overInput = try runFxreplay(["render", input, "-o", input, "--overwrite", "--progress", "none"])
        #expect(overInput.status == 2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == inputBytes)

        // The report is an output like the video: checked before the render, never the video itself.
        let reportOverVideo = try runFxreplay(["render", input, "-o", dir.appendingPathComponent("new.mp4").path,
                                               "--report", dir.appendingPathComponent("new.mp4").path, "--progress", "none"])
        #expect(reportOverVideo.status == 2 && reportOverVideo.stderr.contains("another output"), "\(reportOverVideo.stderr)")
        let reportOverExisting = try runFxreplay(["render", input, "-o", dir.appendingPathComponent("new.mp4").path,
                                                  "--report", existing, "--progress", "none"])
        #expect(reportOverExisting.status == 2 && reportOverExisting.stderr.contains("--overwrite"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("new.mp4").path))
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == Data("keep me".utf8))

        let replaced = try runFxreplay(["render", input, "-o", existing, "--overwrite", "--progress", "none"])
        #expect(replaced.status == 0)
        #expect(try decodeFrames(existing, measure: false).count == 5)
    }

    /// A render's outputs appear together or not at all: when its report cannot be written (here
    /// /dev/full, as a full disk), the finished video is not left behind either.
    @Test func aReportThatCannotBeWrittenLeavesNoVideo() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.mp4").path, output = dir.appendingPathComponent("out.mp4").path
        try writeRecording(to: input, pts: (0..<3).map { Int64($0) * 3000 })
        let run = try runFxreplay(["render", input, "-o", output, "--report", "/dev/full", "--progress", "none"])
        #expect(run.status == 4 && run.stderr.contains("/dev/full"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["in.mp4"])
        // The same with a preview sheet as well: neither is left.
        let preview = dir.appendingPathComponent("sheet.png").path
        let both = try runFxreplay(["render", input, "-o", output, "--preview", preview, "--report", "/dev/full", "--progress", "none"])
        #expect(both.status == 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["in.mp4"])
    }

    @Test func unwritableOutputDirectoryIsAnOutputFailure() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mp4").path
        try writeRecording(to: input, pts: (0..<3).map { Int64($0) * 3000 })
        let run = try runFxreplay(["render", input, "-o", "/nonexistent-dir/out.mp4", "--progress", "none"])
        #expect(run.status == 4)
        #expect(run.stderr.contains("/nonexistent-dir"))
        // A file where the directory should be.
        let underFile = try runFxreplay(["render", input, "-o", input + "/out.mp4", "--progress", "none"])
        #expect(underFile.status == 4 && underFile.stderr.contains("in.mp4 is a file, not a directory"), "\(underFile.stderr)")
    }

    /// `fileSizeSignal`: `ulimit -f` as a shell leaves it, SIGXFSZ at its default, which kills
    /// the process mid-write (leaving the part); fxreplay ignores it, so the write fails either way.
    @Test(.disabled(if: runsUnderSanitizer,
                    "TSan's runtime itself faults (SIGBUS) under a file-size limit"),
          arguments: [false, true])
    func aWriteFailingPartWayIsAnOutputFailureWithNoPartialFile(fileSizeSignal: Bool) throws {
        // As on a full disk: writes past 256 KiB fail (EFBIG from the file-size limit, where a full
        // disk gives ENOSPC; both reach the same error path), long after the output was opened.
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.mp4").path
        try writeRecording(to: input, size: PictureSize(width: 320, height: 240), pts: (0..<60).map { Int64($0) * 3000 })
        let output = dir.appendingPathComponent("out.mkv").path
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--progress", "none"],
                                  fileSizeLimitKiB: 256, fileSizeSignal: fileSizeSignal)
        #expect(run.status == 4, "\(run.stderr)")
        #expect(run.stderr.contains(output) && run.stderr.contains("write failed") && run.stderr.contains("file-size limit"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["in.mp4"], "no output, no temporary file")
        // Without the limit the same render is far larger than 256 KiB: the limit did bite.
        let unlimited = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--progress", "none"])
        #expect(unlimited.status == 0)
        #expect(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int ?? 0 > 512 * 1024)
    }

    @Test func aReadOnlyInputDirectoryIsOnlyRead() throws {
        // Mode 0555 stops everyone but root; as root (CI) the listing check still catches any
        // file the render would leave or make next to its input.
        let dir = try makeScratchDirectory()
        let inputs = dir.appendingPathComponent("inputs")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: false)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: inputs.path)
            try? FileManager.default.removeItem(at: dir)
        }
        let input = inputs.appendingPathComponent("call.mp4").path
        try writeRecording(to: input, pts: (0..<10).map { Int64($0) * 3000 })
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: inputs.path)
        func listing() throws -> [String: Date] {
            var entries: [String: Date] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: inputs.path) {
                entries[name] = try FileManager.default.attributesOfItem(atPath: inputs.appendingPathComponent(name).path)[.modificationDate] as? Date
            }
            return entries
        }
        let before = try listing()
        let output = dir.appendingPathComponent("out.mp4").path
        let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try decodeFrames(output, measure: false).count == 10)
        #expect(try listing() == before)
    }

    /// Starts a slow render of a fresh recording (under `launcher`, when given; its stderr to
    /// `stderr`, with `--progress progress`) and waits until its temporary file exists.
    private func startSlowRender(launcher: String? = nil, progress: String = "none",
                                 stderr: FileHandle = .nullDevice) throws -> (Process, URL) {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("long.mp4").path
        try writeRecording(to: input, size: PictureSize(width: 640, height: 360), pts: (0..<600).map { Int64($0) * 3000 })
        let output = dir.appendingPathComponent("out.mp4").path
        let arguments = ["render", input, "-o", output, "--preset", "veryslow", "--progress", progress]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: unblockingSignals[0])
        process.arguments = Array(unblockingSignals.dropFirst()) + (launcher.map { [$0] } ?? []) + [fxreplayExecutable.path] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, (try FileManager.default.contentsOfDirectory(atPath: dir.path)).count < 2 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        Thread.sleep(forTimeInterval: 0.3)
        return (process, dir)
    }

    /// Every signal that ends a run by default and that users, schedulers and limits send:
    /// SIGXCPU (`ulimit -t`), SIGALRM (`timeout -s ALRM`), SIGUSR1/2 too.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP, SIGXCPU, SIGALRM, SIGUSR1, SIGUSR2])
    func aSignalRemovesTheTemporaryOutput(signalNumber: Int32) throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("interrupt-\(UUID().uuidString).log")
        try #require(FileManager.default.createFile(atPath: log.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: log) }
        let (process, dir) = try startSlowRender(progress: "json", stderr: try FileHandle(forWritingTo: log))
        let interrupted = Date()
        kill(process.processIdentifier, signalNumber)
        process.waitUntilExit()
        // With --progress json, stderr stays JSON lines and `fxreplay:` lines: no blank line before the message.
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let ending = [SIGINT, SIGTERM, SIGHUP].contains(signalNumber) ? "fxreplay: interrupted, no output written"
            : "fxreplay: stopped by \(signalNumber == SIGXCPU ? "SIGXCPU (the CPU-time limit, ulimit -t)" : signalNumber == SIGALRM ? "SIGALRM" : signalNumber == SIGUSR1 ? "SIGUSR1" : "SIGUSR2"), no output written"
        #expect(lines.last.map(String.init) == ending && lines.allSatisfy { $0.hasPrefix("{") || $0.hasPrefix("fxreplay: ") },
                "\(lines)")
        // Within a second, as promised; sanitizer builds run several times slower.
        let bound = runsUnderSanitizer ? 3.0 : 1.0
        #expect(Date().timeIntervalSince(interrupted) < bound)
        #expect(process.terminationReason == .exit && process.terminationStatus == 128 + signalNumber)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["long.mp4"])
    }

    /// A run killed where nothing can be caught (SIGKILL; a crash, an allocation failure) leaves its
    /// temporary file; the next run writing the same output removes it, and only it.
    @Test func aKilledRunsTemporaryFileIsSweptByTheNextRunOfThatOutput() throws {
        let (process, dir) = try startSlowRender()
        defer { try? FileManager.default.removeItem(at: dir) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".part") }
        try #require(left.count == 1 && left[0].hasPrefix(".out.mp4.fxreplay-\(process.processIdentifier)@"), "\(left)")
        // Another output's part, of a live writer (this test process), stays.
        let live = ".other.mp4.fxreplay-\(getpid())@\(TemporaryName.host)-1.part"
        try #require(FileManager.default.createFile(atPath: dir.appendingPathComponent(live).path, contents: Data()))
        let input = dir.appendingPathComponent("short.mp4").path
        try writeRecording(to: input, pts: (0..<5).map { Int64($0) * 3000 })
        let run = try runFxreplay(["render", input, "-o", dir.appendingPathComponent("out.mp4").path, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == [live, "long.mp4", "out.mp4", "short.mp4"])
    }

    /// A legal name of 255 bytes (multi-byte characters included) renders: the temporary name,
    /// longer by its suffix, is shortened to fit and still names its writer for the sweep.
    @Test func aLongestLegalOutputNameRenders() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.mp4").path
        try writeRecording(to: input, pts: (0..<5).map { Int64($0) * 3000 })
        let name = String(repeating: "é", count: 125) + "a.mp4"
        try #require(name.utf8.count == 255)
        let run = try runFxreplay(["render", input, "-o", dir.appendingPathComponent(name).path, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["in.mp4", name].sorted())
        #expect(try decodeFrames(dir.appendingPathComponent(name).path, measure: false).count == 5)
    }

    @Test func underNohupAHangUpIsIgnored() throws {
        let (process, dir) = try startSlowRender(launcher: "/usr/bin/nohup")
        kill(process.processIdentifier, SIGHUP)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(process.isRunning)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["long.mp4"])
    }
}
