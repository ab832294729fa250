import Foundation
@testable import ReplayKitless
import Testing

@Suite struct DamagedInputTests {
    /// FFV1 with slice CRCs: a flipped byte inside a frame is a detected decode error.
    func corruptedFFV1(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("damaged.mkv").path
        try writeRecording(to: path, pts: (0..<30).map { Int64($0) * 3000 }, codec: .ffv1)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for offset in stride(from: bytes.count * 2 / 5, to: bytes.count * 3 / 5, by: 997) { bytes[offset] ^= 0x5A }
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func decodeErrorsAreSkippedAndCounted() throws {
        let dir = try makeScratchDirectory()
        let input = try corruptedFFV1(in: dir)
        let output = dir.appendingPathComponent("out.mkv").path
        let reportPath = dir.appendingPathComponent("report.json").path
        let run = try runFxreplay(["render", input, "-o", output, "--report", reportPath, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
        let errors = report?["decodeErrors"] as? Int ?? 0
        let encoded = report?["framesEncoded"] as? Int ?? 0
        #expect(errors > 0)
        // Where the damage falls decides whether a picture is rejected (skipped) or concealed (kept).
        #expect(encoded > 0 && encoded <= 30)
        #expect(try decodeFrames(output, measure: false).count == encoded)
        #expect(run.stderr.contains("warning"))
    }

    /// With frame-threaded H.264 decoding, which errors damaged input reports depends on how the
    /// threads ran (6 to 19 on this fixture). `--deterministic` makes the report repeatable too.
    @Test func deterministicRendersCountTheSameDecodeErrors() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("damaged.ts").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-t", "3", "-c:v", "libx264",
                                              "-preset", "veryfast", input]).status == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: input))
        for offset in stride(from: bytes.count * 2 / 5, to: bytes.count * 3 / 5, by: 997) { bytes[offset] ^= 0x5A }
        try bytes.write(to: URL(fileURLWithPath: input))
        var counts: [Int] = []
        for _ in 0..<4 {
            let output = dir.appendingPathComponent("out.mkv").path, reportPath = dir.appendingPathComponent("report.json").path
            let run = try runFxreplay(["render", input, "-o", output, "--deterministic", "--overwrite", "--report", reportPath, "--progress", "none"])
            #expect(run.status == 0, "\(run.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
            counts.append(report?["decodeErrors"] as? Int ?? -1)
        }
        #expect(counts.first ?? 0 > 0 && Set(counts).count == 1, "\(counts)")
    }

    @Test func strictAndMaxDecodeErrorsFailWithNoOutput() throws {
        let dir = try makeScratchDirectory()
        let input = try corruptedFFV1(in: dir)
        for flags in [["--strict"], ["--max-decode-errors", "0"]] {
            let output = dir.appendingPathComponent("out.mkv").path
            let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"] + flags)
            #expect(run.status == 3, "\(flags): \(run.stderr)")
            #expect(run.stderr.contains("damaged.mkv"))
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["damaged.mkv"])
    }

    /// Without and with audio (then the file's duration counts both streams, and the video's own
    /// comes from Matroska's per-track DURATION tag).
    @Test(arguments: [nil, 0.0])
    func truncatedMatroskaRendersWhatIsThere(audioStart: Double?) throws {
        let dir = try makeScratchDirectory()
        let full = dir.appendingPathComponent("full.mkv").path
        try writeRecording(to: full, pts: (0..<40).map { Int64($0) * 3000 }, audioStart: audioStart, codec: .ffv1, audioSeconds: 1.33)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: full))
        let truncated = dir.appendingPathComponent("truncated.mkv").path
        try bytes.prefix(bytes.count * 6 / 10).write(to: URL(fileURLWithPath: truncated))
        let output = dir.appendingPathComponent("out.mp4").path
        let run = try runFxreplay(["render", truncated, "-o", output, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let frames = try decodeFrames(output)
        #expect(frames.count >= 20 && frames.count < 40)
        #expect(frames.allSatisfy { $0.psnr > 30 })
        // It reads to a clean end of file: only the declared duration (40 frames, 1.33 s; 1.35 s in the DURATION tag) tells.
        #expect(run.stderr.contains("warning: the video ends at") && run.stderr.contains("s: is the file cut short?") && run.stderr.contains("declares 1.3"),
                "\(run.stderr)")
        let strict = try runFxreplay(["render", truncated, "-o", output, "--progress", "none", "--overwrite", "--strict"])
        #expect(strict.status == 3 && strict.stderr.contains("truncated.mkv: the video ends at"), "\(strict.stderr)")
        #expect(try decodeFrames(output).count == frames.count, "the earlier output is left as it was")
        // The whole file says nothing of the kind.
        let whole = try runFxreplay(["render", full, "-o", dir.appendingPathComponent("whole.mp4").path, "--progress", "none"])
        #expect(whole.status == 0 && !whole.stderr.contains("warning"), "\(whole.stderr)")
    }

    /// An index whose data is cut off decodes to nothing: bad input, and no output with no frames.
    @Test func anInputWithoutAPictureIsBadInput() throws {
        let dir = try makeScratchDirectory()
        let full = dir.appendingPathComponent("faststart.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=1", "-c:v", "libx264",
                                              "-movflags", "+faststart", full]).status == 0)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: full)))
        let mdat = try #require((0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual("mdat".utf8) })
        let headerOnly = dir.appendingPathComponent("header-only.mp4").path
        try Data(bytes.prefix(mdat + 4)).write(to: URL(fileURLWithPath: headerOnly))
        let output = dir.appendingPathComponent("out.mp4").path
        let run = try runFxreplay(["render", headerOnly, "-o", output, "--progress", "none"])
        #expect(run.status == 3 && run.stderr.contains("header-only.mp4: no video frame could be decoded"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A raw H.264 stream has no timestamps: its pictures follow one another at its rate.
    @Test func aRawStreamIsTimedByItsRate() throws {
        let dir = try makeScratchDirectory()
        let raw = dir.appendingPathComponent("camera.h264").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25:duration=0.4", "-c:v", "libx264", raw]).status == 0)
        let output = dir.appendingPathComponent("out.mkv").path
        let run = try runFxreplay(["render", raw, "-o", output, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let times = try decodeFrames(output, measure: false).map(\.seconds)
        #expect(times.count == 10 && zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 0.04) < 0.002 }, "\(times)")
    }

    @Test func truncatedMP4WithoutIndexIsBadInput() throws {
        let dir = try makeScratchDirectory()
        let full = dir.appendingPathComponent("full.mp4").path
        try writeRecording(to: full, pts: (0..<20).map { Int64($0) * 3000 })
        let bytes = try Data(contentsOf: URL(fileURLWithPath: full))
        let truncated = dir.appendingPathComponent("cut.mp4").path
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        let output = dir.appendingPathComponent("out.mp4").path
        let run = try runFxreplay(["render", truncated, "-o", output, "--progress", "none"])
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains("cut.mp4"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
