import Foundation
import ReplayKitless
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
        #expect(try runFxreplay(["frobnicate"]).status == 2)
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

        let replaced = try runFxreplay(["render", input, "-o", existing, "--overwrite", "--progress", "none"])
        #expect(replaced.status == 0)
        #expect(try decodeFrames(existing, measure: false).count == 5)
    }

    @Test func unwritableOutputDirectoryIsAnOutputFailure() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mp4").path
        try writeRecording(to: input, pts: (0..<3).map { Int64($0) * 3000 })
        let run = try runFxreplay(["render", input, "-o", "/nonexistent-dir/out.mp4", "--progress", "none"])
        #expect(run.status == 4)
        #expect(run.stderr.contains("/nonexistent-dir"))
    }

    @Test func interruptRemovesTheTemporaryOutput() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("long.mp4").path
        try writeRecording(to: input, size: PictureSize(width: 640, height: 360), pts: (0..<600).map { Int64($0) * 3000 })
        let output = dir.appendingPathComponent("out.mp4").path
        let process = Process()
        process.executableURL = fxreplayExecutable
        process.arguments = ["render", input, "-o", output, "--preset", "veryslow", "--progress", "none"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until the temporary file exists, then interrupt.
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, (try FileManager.default.contentsOfDirectory(atPath: dir.path)).count < 2 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        Thread.sleep(forTimeInterval: 0.3)
        let interrupted = Date()
        process.interrupt()
        process.waitUntilExit()
        // Within a second, as promised; sanitizer builds run several times slower.
        let bound = ProcessInfo.processInfo.environment["FXREPLAY_SANITIZED"] == nil ? 1.0 : 3.0
        #expect(Date().timeIntervalSince(interrupted) < bound)
        #expect(process.terminationStatus == 130)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["long.mp4"])
    }
}
