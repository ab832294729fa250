import Foundation
import Testing

/// `--encoder-opt` reaches the encoder only with keys known to be safe (issue #33): options that name
/// files, start a multi-pass or analysis run, or raise the thread or log caps are refused (exit 2,
/// naming the key) before any file is opened; a job spec or manifest row cannot set encoder options.
@Suite struct EncoderOptionSafetyTests {
    private func scratchWithRecording() throws -> (dir: URL, input: String) {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mp4").path
        try writeRecording(to: input, pts: (0..<10).map { Int64($0) * 3000 })
        return (dir, input)
    }

    /// Renders `input` into `dir`'s `name` with `--encoder-opt option` and `--codec codec`.
    private func render(_ input: String, in dir: URL, codec: String = "h264", option: String,
                        to name: String = "out.mp4") throws -> (run: RunResult, output: String) {
        let output = dir.appendingPathComponent(name).path
        let run = try runFxreplay(["render", input, "-o", output, "--codec", codec, "--encoder-opt", option, "--progress", "none"],
                                  currentDirectory: dir)
        return (run, output)
    }

    /// Runs fxreplay under `timeout`, killed after `seconds`: a run that blocks (opening a FIFO) ends
    /// with 137 instead of hanging the suite.
    private func runKilled(after seconds: Int, _ arguments: [String], currentDirectory: URL) throws -> RunResult {
        let process = Process()
        process.currentDirectoryURL = currentDirectory
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["-s", "KILL", String(seconds), fxreplayExecutable.path] + arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stdout: "", stderr: String(decoding: errData, as: UTF8.self))
    }

    /// x264's dump-yuv over the input (the red-team finding) and every other spelling of an option
    /// that writes or reads a file: refused naming the key, the input unchanged, nothing written.
    @Test func optionsThatNameFilesAreRefused() throws {
        let (dir, input) = try scratchWithRecording()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = try Data(contentsOf: URL(fileURLWithPath: input))
        let written = dir.appendingPathComponent("written.bin").path
        let cases: [(codec: String, option: String, key: String)] = [
            ("h264", "x264-params=dump-yuv=\(input)", "dump-yuv"),
            ("h264", "x264-params=crf=20:dump_yuv=\(input)", "dump_yuv"),
            ("h264", "x264opts=bframes=0:dump-yuv=\(input)", "dump-yuv"),
            ("h264", "x264-params=stats=\(written)", "stats"),
            ("h264", "x264-params=pass=1", "pass"),
            ("h264", "x264-params=cqmfile=\(written)", "cqmfile"),
            ("h264", "x264-params=qpfile=\(written)", "qpfile"),
            ("h264", "stats=\(written)", "stats"),
            ("h264", "passlogfile=\(written)", "passlogfile"),
            ("hevc", "x265-params=csv=\(written)", "csv"),
            ("hevc", "x265-params=analysis-save=\(written)", "analysis-save"),
            ("hevc", "x265-params=analysis-load=\(input)", "analysis-load"),
            ("hevc", "x265-params=stats=\(written)", "stats"),
        ]
        for (codec, option, key) in cases {
            let (run, output) = try render(input, in: dir, codec: codec, option: option)
            #expect(run.status == 2, "\(option): \(run.stderr)")
            #expect(run.stderr.contains("'\(key)'"), "\(option): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(option)")
            #expect(!FileManager.default.fileExists(atPath: written), "\(option)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == original, "\(option) changed the input")
        }
        // --level reaches x265 among its parameters: a level that smuggles a parameter in stays one value.
        let leveled = try runFxreplay(["render", input, "-o", dir.appendingPathComponent("level.mp4").path, "--codec", "hevc",
                                       "--level", "4:csv=\(written)", "--progress", "none"], currentDirectory: dir)
        #expect(leveled.status == 2 && leveled.stderr.contains("--level"), "\(leveled.stderr)")
        #expect(!FileManager.default.fileExists(atPath: written))
    }

    /// `flags` starting a first or second pass, in any spelling ffmpeg takes, is refused naming it.
    @Test func multiPassFlagsAreRefused() throws {
        let (dir, input) = try scratchWithRecording()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (option, flag) in [("flags=+pass1", "pass1"), ("flags=pass2", "pass2"), ("flags=+loop+pass1", "pass1"), ("flags=-pass2", "pass2"),
                               ("flags=512", "512")] {
            let (run, output) = try render(input, in: dir, option: option)
            #expect(run.status == 2, "\(option): \(run.stderr)")
            #expect(run.stderr.contains(flag) && run.stderr.contains("flags"), "\(option): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        let allowed = try render(input, in: dir, option: "flags=+loop", to: "loop.mp4").run
        #expect(allowed.status == 0, "\(allowed.stderr)")
    }

    /// `threads` given as an encoder option is held to --threads' cap (1024), and x265's frame threads to 16.
    @Test func encoderOptionThreadsAreCapped() throws {
        let (dir, input) = try scratchWithRecording()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (codec, option, cap) in [("h264", "threads=100000", "1024"), ("h264", "x264-params=threads=100000", "1024"),
                                     ("hevc", "x265-params=frame-threads=64", "16"), ("hevc", "threads=17", "16")] {
            let (run, output) = try render(input, in: dir, codec: codec, option: option)
            #expect(run.status == 2, "\(option): \(run.stderr)")
            #expect(run.stderr.contains("threads") && run.stderr.contains(cap), "\(option): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        let allowed = try render(input, in: dir, option: "threads=2", to: "two.mp4").run
        #expect(allowed.status == 0, "\(allowed.stderr)")
    }

    /// A user's x265-params are merged with fxreplay's own log level: x265 prints nothing of its
    /// own (its "x265 [info]" lines) on stderr; a log-level of the user's is refused.
    @Test func x265ParamsKeepTheLogLevel() throws {
        let (dir, input) = try scratchWithRecording()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.mp4").path
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "hevc", "--encoder-opt", "x265-params=crf=28", "--progress", "none"],
                                  currentDirectory: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("x265 ["), "\(run.stderr)")
        let leveled = try runFxreplay(["render", input, "-o", output, "--codec", "hevc", "--level", "4", "--overwrite",
                                       "--encoder-opt", "x265-params=crf=28:bframes=2", "--progress", "none"], currentDirectory: dir)
        #expect(leveled.status == 0 && !leveled.stderr.contains("x265 ["), "\(leveled.stderr)")
        for option in ["x265-params=log-level=info", "x265-params=crf=28:log_level=full"] {
            let refused = try runFxreplay(["render", input, "-o", output, "--codec", "hevc", "--overwrite", "--encoder-opt", option,
                                           "--progress", "none"], currentDirectory: dir)
            #expect(refused.status == 2 && refused.stderr.contains("log"), "\(option): \(refused.stderr)")
        }
    }

    /// A FIFO given to cqmfile or analysis-load is refused before anything opens it: no hang.
    @Test func aFIFOGivenToAnEncoderIsNeverOpened() throws {
        let (dir, input) = try scratchWithRecording()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("matrix.cfg").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for (codec, option) in [("h264", "x264-params=cqmfile=\(fifo)"), ("hevc", "x265-params=analysis-load=\(fifo)")] {
            let run = try runKilled(after: 30, ["render", input, "-o", dir.appendingPathComponent("out.mp4").path, "--codec", codec,
                                                "--encoder-opt", option, "--progress", "none"], currentDirectory: dir)
            #expect(run.status == 2, "\(option): \(run.status) \(run.stderr)")
        }
    }

    /// A manifest row or a job spec cannot set encoder options: refused naming the file and key, and
    /// nothing is written outside --out.
    @Test func encoderOptionsComeFromTheCommandLineOnly() throws {
        let (dir, _) = try scratchWithRecording()
        defer { try? FileManager.default.removeItem(at: dir) }
        let outside = dir.appendingPathComponent("outside.yuv")
        let manifest = dir.appendingPathComponent("rows.csv")
        try "input,output,encoder-opt\nin.mp4,in.mp4,x264-params=dump-yuv=../outside.yuv\n".write(to: manifest, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out")
        let cwd = dir.appendingPathComponent("cwd")
        try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
        let batch = try runFxreplay(["batch", "--manifest", manifest.path, "--out", out.path, "--progress", "none"],
                                    environment: batchEnvironment([:]), currentDirectory: cwd)
        #expect(batch.status == 3, "\(batch.stderr)")
        #expect(batch.stderr.contains(manifest.path + ":2") && batch.stderr.contains("encoder-opt"), "\(batch.stderr)")
        #expect(!FileManager.default.fileExists(atPath: outside.path))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("in.mp4").path))

        let job = dir.appendingPathComponent("job.yaml").path
        try "crf: 20\nencoder-opt: [\"x264-params=dump-yuv=../outside.yuv\"]\n".write(toFile: job, atomically: true, encoding: .utf8)
        let render = try runFxreplay(["render", "--job", job, dir.appendingPathComponent("in.mp4").path, "-o",
                                      dir.appendingPathComponent("job.mp4").path, "--progress", "none"], currentDirectory: cwd)
        #expect(render.status == 3 && render.stderr.contains(job) && render.stderr.contains("encoder-opt"), "\(render.stderr)")
        #expect(!FileManager.default.fileExists(atPath: outside.path))
    }
}
