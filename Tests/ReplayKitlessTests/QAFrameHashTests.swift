import Foundation
import Testing
@testable import ReplayKitless

@Suite struct QAFrameHashTests {
    @Test func md5KnownVectors() throws {
        let md5 = try MD5()
        #expect(md5.finalize() == "d41d8cd98f00b204e9800998ecf8427e")
        md5.update(Array("abc".utf8))
        #expect(md5.finalize() == "900150983cd24fb0d6963f7d28e17f72")
        // Fed in pieces, and reused after finalize.
        md5.update(Array("The quick brown fox ".utf8))
        md5.update(Array("jumps over the lazy dog".utf8))
        #expect(md5.finalize() == "9e107d9d372bb6826bd81d3542a419d6")
    }

    @Test func dataLinePadding() {
        #expect(FrameMD5.dataLine(stream: 0, dts: 0, pts: 0, duration: 2048, size: 1152, hash: "eff072f4fcca05f183a6d771d6190e32")
            == "0,          0,          0,     2048,     1152, eff072f4fcca05f183a6d771d6190e32")
        // Wider than the field: printed whole, as printf does.
        #expect(FrameMD5.dataLine(stream: 1, dts: -9_223_372_036_854_775_808, pts: 12_345_678_901, duration: -1, size: 123_456_789, hash: "x")
            == "1, -9223372036854775808, 12345678901,       -1, 123456789, x")
    }

    /// Encodes three testsrc frames with ffmpeg, then checks our lines against `ffmpeg -f framemd5`
    /// (the command formats.md §8 names) for the same decoded frames.
    @Test func linesMatchFFmpegFramemd5() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let video = directory.appendingPathComponent("in.mp4").path
        let golden = directory.appendingPathComponent("golden.framemd5").path
        let raw = directory.appendingPathComponent("frames.yuv").path
        #expect(try runFFmpeg(["-f", "lavfi", "-i", "testsrc=size=32x24:rate=5", "-frames:v", "3", "-pix_fmt", "yuv420p",
                               "-c:v", "libx264", "-preset", "ultrafast", video]).status == 0)
        #expect(try runFFmpeg(["-i", video, "-map", "0:v:0", "-fps_mode", "passthrough", "-enc_time_base", "-1",
                               "-fflags", "+bitexact", "-f", "framemd5", golden]).status == 0)
        #expect(try runFFmpeg(["-i", video, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", raw]).status == 0)

        let goldenText = try String(contentsOfFile: golden, encoding: .utf8)
        let lines = goldenText.split(separator: "\n").map(String.init)
        let header = lines.filter { $0.hasPrefix("#") }, data = lines.filter { !$0.hasPrefix("#") }
        #expect(data.count == 3)
        let frameSize = 32 * 24 + 2 * 16 * 12
        let bytes = try Data(contentsOf: URL(fileURLWithPath: raw))
        #expect(bytes.count == 3 * frameSize)

        let md5 = try MD5()
        for (index, line) in data.enumerated() {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let numbers = fields.prefix(5).compactMap { Int64($0) }
            #expect(numbers.count == 5 && numbers[4] == Int64(frameSize))
            md5.update(bytes[(index * frameSize)..<((index + 1) * frameSize)])
            let ours = FrameMD5.dataLine(stream: Int(numbers[0]), dts: numbers[1], pts: numbers[2], duration: numbers[3],
                                         size: frameSize, hash: md5.finalize())
            #expect(ours == line)

            // The same frame hashed plane by plane from a picture with padded rows.
            let padded = PlanarBuffer(width: 40, height: 24)
            var offset = index * frameSize
            for (wide, size) in zip([padded.image.luma, padded.image.cb, padded.image.cr], [(32, 24), (16, 12), (16, 12)]) {
                let view = Plane(base: wide.base, stride: wide.stride, width: size.0, height: size.1)
                for y in 0..<view.height {
                    for x in 0..<view.width { view[x, y] = bytes[offset + y * view.width + x] }
                }
                offset += view.width * view.height
                md5.update(plane: view)
            }
            #expect(md5.finalize() == String(line.suffix(32)))
        }

        // Header: time base from FFmpeg's own file; 32×24, square pixels.
        let timeBase = try #require(header.first { $0.hasPrefix("#tb 0: ") }).dropFirst(7).split(separator: "/").compactMap { Int32($0) }
        #expect(FrameMD5.headerLines(timeBase: (timeBase[0], timeBase[1]), width: 32, height: 24, sampleAspectRatio: (1, 1)) == header)

        // And the golden file checks clean against itself.
        #expect(try FrameHashGolden.load(path: FilePath(golden)).compare(data) == nil)
    }

    static let golden = """
        #format: frame checksums
        #tb 0: 1/25
        #stream#, dts,        pts, duration,     size, hash
        0,          0,          0,        1,     1152, 00000000000000000000000000000000
        0,          1,          1,        1,     1152, 11111111111111111111111111111111

        0,          2,          2,        1,     1152, 22222222222222222222222222222222

        """

    @Test func checkerFindsFirstDifference() throws {
        let golden = try FrameHashGolden(Self.golden, file: "g.framemd5")
        #expect(golden.lines.count == 3)
        let good = golden.lines
        // Spacing alone is not a difference.
        #expect(golden.compare(good.map { $0.replacingOccurrences(of: "  ", with: " ") }) == nil)
        var changed = good
        changed[1] = "0,          1,          1,        1,     1152, 11111111111111111111111111111112"
        changed[2] = "0,          9,          9,        1,     1152, 99999999999999999999999999999999"
        #expect(golden.compare(changed) == .differs(frame: 1, expected: good[1], actual: changed[1]))
        #expect(golden.compare(Array(good.prefix(2))) == .missing(expected: 3, actual: 2))
        let extra = "0,          3,          3,        1,     1152, 33333333333333333333333333333333"
        #expect(golden.compare(good + [extra]) == .extra(frame: 3, actual: extra))
        // Frame 1's golden line is the file's 5th (three # lines first); frame 2's the 7th, after a blank one.
        #expect(golden.lineNumbers == [4, 5, 7])
        let failure = try #require(golden.compare(changed)).error(in: golden)
        #expect(failure.exitCode == 1 && failure.message.hasPrefix("g.framemd5:5: frame 1 differs"), "\(failure.message)")
        #expect(try #require(golden.compare(Array(good.prefix(2)))).error(in: golden).message.hasPrefix("g.framemd5: the input has 2 frames"))
    }

    @Test func checkerStopsEarly() throws {
        var checker = FrameHashChecker(golden: try FrameHashGolden(Self.golden, file: "g"))
        #expect(checker.check(checker.golden.lines[0]) == nil)
        #expect(checker.check("0, 1, 1, 1, 1152, ffff") != nil)
        #expect(checker.frames == 2)
    }

    @Test func malformedGoldenNamesTheLine() {
        do {
            _ = try FrameHashGolden("#tb 0: 1/25\n0, 0, 0, 1, 1152, aa\nnot a line\n", file: "g.framemd5")
            Issue.record("accepted a malformed golden file")
        } catch {
            #expect(error.kind == .badInput && error.message.hasPrefix("g.framemd5:3:"))
        }
        #expect(throws: ReplayError.self) { try FrameHashGolden.load(path: "/nonexistent/golden") }
    }

    /// Recordings made by ffmpeg: each recipe is one or more ffmpeg argument lists, the last output `clip.<ext>`.
    static let recipes: [(name: String, steps: [[String]])] = {
        let source = { (rate: Int, frames: Int, size: String) in
            ["-f", "lavfi", "-i", "testsrc=size=\(size):rate=\(rate)", "-frames:v", "\(frames)"]
        }
        let x264 = ["-c:v", "libx264", "-preset", "ultrafast"]
        return [
            ("b-frames.mp4", [source(30, 12, "64x48") + ["-pix_fmt", "yuv420p", "-c:v", "libx264", "-bf", "2"]]),
            ("vfr.mp4", [source(30, 10, "64x48") + ["-vf", "setpts=N*N*50", "-fps_mode", "passthrough", "-pix_fmt", "yuv420p"] + x264]),
            ("vp9.webm", [source(24, 6, "64x48") + ["-pix_fmt", "yuv420p", "-c:v", "libvpx-vp9", "-deadline", "realtime"]]),
            ("start-offset.mp4", [source(30, 6, "64x48") + ["-pix_fmt", "yuv420p", "-output_ts_offset", "1.5"] + x264]),
            ("odd-size.mkv", [source(25, 5, "33x17") + ["-pix_fmt", "yuv420p", "-c:v", "ffv1"]]),
            ("yuv444.mp4", [source(25, 4, "48x32") + ["-pix_fmt", "yuv444p"] + x264]),
            ("nv12.nut", [source(25, 4, "32x24") + ["-pix_fmt", "nv12", "-c:v", "rawvideo"]]),
            // MPEG-TS: the file starts with the audio, before the first video frame.
            ("with-audio.ts", [["-f", "lavfi", "-i", "testsrc=size=64x48:rate=25:duration=0.32", "-f", "lavfi", "-i", "sine=duration=0.4",
                                "-pix_fmt", "yuv420p", "-c:a", "aac"] + x264]),
        ] + [90, 180, 270].map { degrees in
            ("rotate-\(degrees).mp4", [source(15, 4, "34x20") + ["-pix_fmt", "yuv420p"] + x264,
                                       ["-i", "STEP0", "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)"]])
        } + [("yuv420p10le", "ffv1", 90), ("bgra", "ffv1", 270), ("rgb24", "png", 90), ("yuv422p10le", "ffv1", 180)].map { format, codec, degrees in
            // Phone footage that is not 8-bit 4:2:0 (10-bit HDR, RGB screen captures), turned upright.
            ("rotate-\(degrees)-\(format).mov", [source(10, 3, "34x20") + ["-pix_fmt", format, "-c:v", codec],
                                                  ["-i", "STEP0", "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)"]])
        }
    }()

    @Test(arguments: recipes.map(\.name))
    func videoListingMatchesFFmpeg(name: String) throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ext = URL(fileURLWithPath: name).pathExtension
        var previous = ""
        for (index, step) in try #require(Self.recipes.first { $0.name == name }).steps.enumerated() {
            let output = directory.appendingPathComponent("step\(index).\(ext)").path
            let result = try runFFmpeg(step.map { $0 == "STEP0" ? previous : $0 } + [output])
            #expect(result.status == 0, "\(result.log)")
            previous = output
        }
        let golden = directory.appendingPathComponent("golden.framemd5").path
        let run = try runFFmpeg(["-i", previous, "-map", "0:v:0", "-fps_mode", "passthrough", "-enc_time_base", "-1",
                                 "-fflags", "+bitexact", "-f", "framemd5", golden])
        #expect(run.status == 0, "\(run.log)")
        let expected = try String(contentsOfFile: golden, encoding: .utf8).split(separator: "\n").map(String.init)

        let hasher = try VideoFrameHasher(url: previous)
        var lines = hasher.headerLines
        while let line = try hasher.nextLine() { lines.append(line) }
        #expect(lines.filter { !$0.hasPrefix("#") } == expected.filter { !$0.hasPrefix("#") })
        #expect(lines.filter { $0.hasPrefix("#") } == expected.filter { $0.hasPrefix("#") })
        #expect(hasher.frames > 0)
    }
}
