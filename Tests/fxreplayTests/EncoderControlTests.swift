import Foundation
@testable import ReplayKitless
import Testing

/// The four-character types of the top-level boxes of an MP4/MOV file, in file order.
func topLevelBoxes(_ path: String) throws -> [String] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    var boxes: [String] = [], offset = 0
    func be(_ at: Int, _ count: Int) -> UInt64 { data[at..<at + count].reduce(0) { $0 << 8 | UInt64($1) } }
    while offset + 8 <= data.count {
        var size = be(offset, 4)
        let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
        if size == 1 { size = be(offset + 8, 8) } else if size == 0 { size = UInt64(data.count - offset) }
        guard size >= 8 else { break }
        boxes.append(type)
        offset += Int(size)
    }
    return boxes
}

@Suite struct EncoderControlTests {
    /// A smooth 96×64 test pattern, 40 frames at 25 fps (no scene cuts for x264 to key on).
    private func testPattern(_ dir: URL) throws -> String {
        let input = dir.appendingPathComponent("pattern.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25", "-frames:v", "40", "-c:v", "libx264",
                                              "-pix_fmt", "yuv420p", input]).status == 0)
        return input
    }

    /// `--keyint 10` reads back as a keyframe every 10 frames (ffprobe's key_frame flags).
    @Test func keyintIsTheKeyframeSpacing() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try testPattern(dir)
        let output = dir.appendingPathComponent("out.mp4").path
        let run = try runFxreplay(["render", input, "-o", output, "--keyint", "10", "--progress", "none"])
        try #require(run.status == 0, "\(run.stderr)")
        let flags = try ffprobe(["-select_streams", "v:0", "-show_entries", "frame=key_frame", "-of", "default=nw=1:nk=1", output])
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(flags.count == 40)
        #expect(flags.indices.filter { flags[$0] == "1" } == [0, 10, 20, 30])
    }

    /// `--profile`, `--level` and `--pix-fmt` read back with ffprobe; an 8-bit 4:4:4 picture needs
    /// x264's High 4:4:4 profile, a 10-bit format is refused (exit 2, naming the option).
    @Test func profileLevelAndPixelFormatReadBack() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try testPattern(dir)
        for (name, arguments, expected) in [
            ("main.mp4", ["--profile", "main", "--level", "3.1"], "h264,Main,yuv420p,31"),
            ("444.mkv", ["--pix-fmt", "yuv444p", "--profile", "high444", "--level", "4.0"], "h264,High 4:4:4 Predictive,yuv444p,40"),
            ("422.mp4", ["--pix-fmt", "yuv422p", "--level", "2.1"], "h264,High 4:2:2,yuv422p,21"),
        ] {
            let output = dir.appendingPathComponent(name).path
            let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"] + arguments)
            try #require(run.status == 0, "\(name): \(run.stderr)")
            #expect(try ffprobe(["-select_streams", "v:0", "-show_entries", "stream=codec_name,profile,pix_fmt,level", "-of", "csv=p=0", output]) == expected)
        }
        for arguments in [["--pix-fmt", "yuv420p10le"], ["--pix-fmt", "nonsense"], ["--profile", "baseline", "--pix-fmt", "yuv444p"]] {
            let output = dir.appendingPathComponent("refused.mp4").path
            let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"] + arguments)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(arguments[1]), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }

    /// `--encoder-opt` passes an option the encoder has (x264's bframes=0: no B-frames, which the
    /// default preset writes) and refuses one it has not: exit 2 naming the key, no output.
    @Test func encoderOptionsAreCheckedAndPassedThrough() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try testPattern(dir)
        let output = dir.appendingPathComponent("out.mp4").path
        let unknown = try runFxreplay(["render", input, "-o", output, "--encoder-opt", "nosuchkey=1", "--progress", "none"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("nosuchkey"), "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let badValue = try runFxreplay(["render", input, "-o", output, "--encoder-opt", "aq-mode=loud", "--progress", "none"])
        #expect(badValue.status == 2, "\(badValue.stderr)")
        for (name, extra, hasBFrames) in [("default.mp4", [String](), true), ("nob.mp4", ["--encoder-opt", "bf=0"], false)] {
            let path = dir.appendingPathComponent(name).path
            let run = try runFxreplay(["render", input, "-o", path, "--preset", "medium", "--progress", "none"] + extra)
            try #require(run.status == 0, "\(run.stderr)")
            let types = try ffprobe(["-select_streams", "v:0", "-show_entries", "frame=pict_type", "-of", "default=nw=1:nk=1", path])
            #expect(types.contains("B") == hasBFrames, "\(name): \(types)")
        }
    }

    /// Compose takes the same controls: a keyframe at least every `--keyint` frames, the index
    /// first, an unknown `--encoder-opt` refused (exit 2 naming it).
    @Test func composeTakesTheEncoderControls() throws {
        let sample = try GeneratedSample.get()
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("call.mp4").path
        let common = ["compose", sample.path("call-archive.zip"), "-o", output, "--size", "160x90", "--fps", "10", "--progress", "none"]
        let run = try runFxreplay(common + ["--keyint", "5"])
        try #require(run.status == 0, "\(run.stderr)")
        let flags = try ffprobe(["-select_streams", "v:0", "-show_entries", "frame=key_frame", "-of", "default=nw=1:nk=1", output])
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let keys = flags.indices.filter { flags[$0] == "1" }
        #expect(flags.count > 10 && keys.first == 0)
        #expect(zip(keys, keys.dropFirst() + [flags.count]).allSatisfy { $1 - $0 <= 5 }, "keyframes at \(keys) of \(flags.count)")
        let boxes = try topLevelBoxes(output)
        #expect(try #require(boxes.firstIndex(of: "moov")) < #require(boxes.firstIndex(of: "mdat")), "\(boxes)")
        let refused = try runFxreplay(common + ["--overwrite", "--encoder-opt", "nosuchkey=1"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("nosuchkey"), "\(refused.stderr)")
    }

    /// MP4 and MOV are written with moov before mdat (read from the file's top-level boxes), and
    /// after it with `--no-faststart`.
    @Test func faststartPutsTheIndexFirst() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try testPattern(dir)
        for (name, extra, moovFirst) in [("fast.mp4", [String](), true), ("fast.mov", [], true), ("slow.mp4", ["--no-faststart"], false)] {
            let output = dir.appendingPathComponent(name).path
            let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"] + extra)
            try #require(run.status == 0, "\(run.stderr)")
            let boxes = try topLevelBoxes(output)
            let moov = try #require(boxes.firstIndex(of: "moov")), mdat = try #require(boxes.firstIndex(of: "mdat"))
            #expect((moov < mdat) == moovFirst, "\(name): \(boxes)")
            #expect(try probedFrameTimes(output).count == 40)
        }
    }
}
