import Foundation
import Testing

/// What programs read from fxreplay (#26 item 7): progress and warnings as JSON lines, and a batch
/// dry run that says what it would do, and why, writing nothing.
@Suite struct MachineOutputTests {
    /// Every stderr line with `--progress json` is one JSON object; progress events carry percent,
    /// output time, speed and ETA; the warning (frames without a mask) is an event too.
    @Test func progressAndWarningsAreJSONEvents() throws {
        let sample = try GeneratedSample.get()
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let truth = try sample.truth()
        // A mask video of the first half-second only: the rest hold its last mask, which render warns about.
        let shortMask = dir.appendingPathComponent("short.mkv").path
        let cut = try QAFixtures.run("ffmpeg", ["-i", sample.path("call.mask.mkv"), "-t", "0.5", "-c", "copy", shortMask])
        try #require(cut.status == 0, "\(cut.log)")
        let run = try runFxreplay(["render", sample.path("call.mp4"), "-o", dir.appendingPathComponent("out.mkv").path, "--codec", "ffv1",
                                   "--mask", shortMask, "--background", "color:#00FF00", "--progress", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let events = try run.stderr.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        let done = try #require(events.first { $0["event"] as? String == "done" }, "\(run.stderr)")
        #expect(done["frames"] as? Int == truth.frames)
        #expect(done["percent"] as? Double == 100)
        // The output's time at the end is the input's duration; the speed is that over the elapsed time.
        let duration = try #require(Double(String(decoding: try QAFixtures.run("ffprobe", ["-show_entries", "format=duration", "-of", "csv=p=0",
                                                                                           sample.path("call.mp4")]).stdout, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        let time = try #require(done["time"] as? Double), elapsed = try #require(done["elapsed"] as? Double)
        #expect(abs(time - duration) < 0.002, "time \(time) vs ffprobe's duration \(duration)")
        let speed = try #require(done["speed"] as? Double)
        #expect(abs(speed - time / elapsed) <= 0.01 * max(1, speed), "speed \(speed) vs \(time) / \(elapsed)")
        let warnings = events.filter { $0["event"] as? String == "warning" }
        #expect(warnings.contains { ($0["message"] as? String)?.contains("frames without a mask") == true }, "\(run.stderr)")
        #expect(events.contains { $0["event"] as? String == "message" && ($0["message"] as? String)?.hasPrefix("wrote ") == true })
    }

    @Test func batchDryRunSaysWhatAndWhyWritingNothing() throws {
        let sample = try GeneratedSample.get()
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let inputs = [sample.path("call.mp4")]
        let first = try runFxreplay(["batch"] + inputs + ["--out", out.path, "--dry-run", "--progress", "none"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("to render: call: no output yet"), "\(first.stdout)")
        #expect(first.stdout.contains("fxreplay render \(sample.path("call.mp4")) -o \(out.path)/call.mp4"), "\(first.stdout)")
        #expect(first.stdout.contains("dry run: 0 up to date, 1 to render, 0 refused; nothing written"), "\(first.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out.path), "a dry run made \(out.path)")

        // After a real run it is up to date; a file no batch made in the way is refused.
        let real = try runFxreplay(["batch"] + inputs + ["--out", out.path, "--progress", "none"])
        try #require(real.status == 0, "\(real.stderr)")
        let listing = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        let again = try runFxreplay(["batch"] + inputs + ["--out", out.path, "--dry-run"])
        #expect(again.stdout.contains("up to date: call: "), "\(again.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == listing)

        let foreign = dir.appendingPathComponent("foreign")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        try Data("not a batch output".utf8).write(to: foreign.appendingPathComponent("call.mp4"))
        let refused = try runFxreplay(["batch"] + inputs + ["--out", foreign.path, "--dry-run"])
        #expect(refused.stdout.contains("refused: call: \(foreign.path)/call.mp4 exists and no batch made it"), "\(refused.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: foreign.path) == ["call.mp4"])
    }
}
