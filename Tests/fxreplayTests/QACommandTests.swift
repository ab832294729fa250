import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import ReplayKitless
import Testing

/// Helpers of the QA command tests: the real `ffmpeg`/`ffprobe` CLIs as independent references,
/// lossless fixtures with hand-chosen sample values, and report parsing.
enum QAFixtures {
    /// Runs `ffmpeg` or `ffprobe`; returns its exit status, stdout and stderr.
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data, log: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = (tool == "ffmpeg" ? ["-hide_banner", "-nostdin", "-nostats", "-y"] : ["-v", "error"]) + arguments
        // The log goes to a file, so neither it nor stdout can fill a pipe and stall the tool.
        let logFile = FileManager.default.temporaryDirectory.appendingPathComponent("qa-tool-\(UUID().uuidString).log")
        try #require(FileManager.default.createFile(atPath: logFile.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: logFile) }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: logFile)
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data, String(decoding: try Data(contentsOf: logFile), as: UTF8.self))
    }

    /// FFmpeg's closing PSNR and SSIM lines for A against B (both autorotated, as ffmpeg does).
    static func ffmpegQualityLines(_ a: String, _ b: String) throws -> [String] {
        let result = try run("ffmpeg", ["-filter_threads", "1", "-i", a, "-i", b, "-lavfi", "[0:v][1:v]psnr;[0:v][1:v]ssim", "-f", "null", "-"])
        return result.log.split(separator: "\n").compactMap { line in
            (line.range(of: "PSNR y:") ?? line.range(of: "SSIM Y:")).map { String(line[$0.lowerBound...]) }
        }
    }

    /// Writes a video with the project's writer: one picture per timestamp (1/90000 s), drawn by `draw`
    /// with the picture's position in the list. FFV1 (lossless) unless told otherwise.
    static func writeVideo(_ path: String, width: Int = 64, height: Int = 48, pts: [Int64], codec: VideoCodec = .ffv1,
                           draw: (YUVImage, Int) -> Void) throws {
        var settings = EncoderSettings()
        settings.codec = codec
        settings.preset = "ultrafast"
        let writer = try MediaWriter(path: path, video: .init(size: PictureSize(width: width, height: height),
                                                              timeBase: Rational(1, 90000), encoder: settings))
        for (index, timestamp) in pts.enumerated() {
            let next = index + 1 < pts.count ? pts[index + 1] : timestamp + 3000
            try writer.addVideoFrame(pts: timestamp, duration: next - timestamp) { draw($0, index) }
        }
        try writer.finish()
    }

    /// Pictures of one flat colour.
    static func flat(_ y: UInt8, _ cb: UInt8, _ cr: UInt8) -> (YUVImage, Int) -> Void {
        { image, _ in image.fill(YUVColor(y: y, cb: cb, cr: cr)) }
    }

    /// The pixels of a picture file as packed rgb24, decoded by the ffmpeg CLI.
    static func rgb24(_ path: String) throws -> [UInt8] {
        [UInt8](try run("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).stdout)
    }

    /// Whether `text` is well-formed XML (FoundationXML's parser).
    static func isWellFormedXML(_ text: String) -> Bool {
        XMLParser(data: Data(text.utf8)).parse()
    }

    /// The JSON object a command printed.
    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The `src` attributes of an HTML page's images, resolved against the page's folder.
    static func imageFiles(inPage path: String) throws -> [String] {
        let page = try String(contentsOfFile: path, encoding: .utf8)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        return page.components(separatedBy: "<img src=\"").dropFirst().compactMap { rest in
            rest.split(separator: "\"").first.map { folder.appendingPathComponent(String($0).removingPercentEncoding ?? String($0)).path }
        }
    }

    static func frameTimes(_ count: Int) -> [Int64] { (0..<Int64(count)).map { $0 * 3000 } }
}

@Suite struct QACommandTests {
    @Test func compareMatchesFFmpegAndAppliesThresholds() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let reference = dir.appendingPathComponent("ref.mp4").path, worse = dir.appendingPathComponent("worse.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc=size=96x64:rate=25", "-frames:v", "8", "-pix_fmt", "yuv420p",
                                              "-c:v", "libx264", "-qp", "0", reference]).status == 0)
        #expect(try QAFixtures.run("ffmpeg", ["-i", reference, "-c:v", "libx264", "-crf", "38", worse]).status == 0)

        let run = try runFxreplay(["compare", worse, reference])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(worse) vs \(reference): 8 frames compared")
        #expect(Array(lines.dropFirst().prefix(2)) == (try QAFixtures.ffmpegQualityLines(worse, reference)))
        #expect(lines.last == "PASS")

        let strict = try runFxreplay(["compare", worse, reference, "--min-psnr", "60", "--min-ssim", "0.5", "--json"])
        #expect(strict.status == 1 && strict.stderr.contains("PSNR") && !strict.stderr.contains("SSIM"))
        #expect(strict.stderr.contains("worst frame"))
        let object = try QAFixtures.object(strict.stdout)
        #expect(object["frames"] as? Int == 8 && object["pass"] as? Bool == false)
        #expect(try runFxreplay(["compare", reference, reference, "--min-psnr", "99", "--min-ssim", "1"]).status == 0)

        let shorter = dir.appendingPathComponent("short.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-i", reference, "-frames:v", "5", "-c:v", "libx264", "-qp", "0", shorter]).status == 0)
        let mismatch = try runFxreplay(["compare", shorter, reference])
        #expect(mismatch.status == 1 && mismatch.stderr.contains("frame counts differ"))
        #expect(mismatch.stdout.hasPrefix("\(shorter) vs \(reference): 5 frames compared (\(shorter) has 5, \(reference) has 8)"))
        // Another size fails the comparison too (exit 1, naming both sizes and the frames), not "bad input".
        let smaller = dir.appendingPathComponent("small.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-i", reference, "-vf", "scale=48:32", "-c:v", "libx264", smaller]).status == 0)
        let resized = try runFxreplay(["compare", smaller, reference])
        #expect(resized.status == 1 && resized.stderr.contains("frame 0") && resized.stderr.contains("48×32 and 96×64"), "\(resized.stderr)")
    }

    @Test func compareTurnsRotatedVideoUpright() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plain = dir.appendingPathComponent("plain.mp4").path, rotated = dir.appendingPathComponent("rotated.mp4").path
        let upright = dir.appendingPathComponent("upright.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc=size=80x64:rate=25", "-frames:v", "4", "-pix_fmt", "yuv420p",
                                              "-c:v", "libx264", plain]).status == 0)
        #expect(try QAFixtures.run("ffmpeg", ["-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated]).status == 0)
        // ffmpeg turns the rotated input upright while re-encoding it (lossy, so the two differ a little).
        #expect(try QAFixtures.run("ffmpeg", ["-i", rotated, "-c:v", "libx264", "-crf", "30", upright]).status == 0)
        let run = try runFxreplay(["compare", rotated, upright])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Array(run.stdout.split(separator: "\n").map(String.init).dropFirst().prefix(2))
                == (try QAFixtures.ffmpegQualityLines(rotated, upright)))
    }

    /// Videos of different pixel formats: FFmpeg converts its filters' second input to the first's
    /// format (full-range MJPEG against limited-range H.264; 4:4:4 against 4:2:0), either way round.
    @Test(arguments: [("full.mov", ["-pix_fmt", "yuvj420p", "-c:v", "mjpeg", "-q:v", "5"]),
                      ("chroma444.mkv", ["-pix_fmt", "yuv444p", "-c:v", "libx264", "-crf", "30"])])
    func compareConvertsBToAsPixelFormatAsFFmpegDoes(name: String, encoding: [String]) throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let reference = dir.appendingPathComponent("ref.mkv").path, other = dir.appendingPathComponent(name).path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25", "-frames:v", "6", "-pix_fmt", "yuv420p",
                                              "-c:v", "ffv1", reference]).status == 0)
        #expect(try QAFixtures.run("ffmpeg", ["-i", reference] + encoding + [other]).status == 0)
        for (a, b) in [(other, reference), (reference, other)] {
            let run = try runFxreplay(["compare", a, b])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Array(run.stdout.split(separator: "\n").map(String.init).dropFirst().prefix(2))
                    == (try QAFixtures.ffmpegQualityLines(a, b)))
        }
    }

    /// A luma offset of 10 and a Cb offset of 3 everywhere: MSE 100, 9 and 0 per plane, by hand.
    @Test func psnrOfAKnownDifference() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.mkv").path, b = dir.appendingPathComponent("b.mkv").path
        try QAFixtures.writeVideo(a, pts: QAFixtures.frameTimes(3), draw: QAFixtures.flat(110, 131, 128))
        try QAFixtures.writeVideo(b, pts: QAFixtures.frameTimes(3), draw: QAFixtures.flat(100, 128, 128))
        let run = try runFxreplay(["compare", a, b, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let psnr = try #require(try QAFixtures.object(run.stdout)["psnr"] as? [String: Any])
        // 64×48 luma and two 32×24 chroma planes: weights 4/6, 1/6, 1/6.
        let averageMSE = (100.0 * 4 + 9 + 0) / 6
        let expected = ["y": 10 * log10(65025.0 / 100), "u": 10 * log10(65025.0 / 9), "average": 10 * log10(65025 / averageMSE),
                        "min": 10 * log10(65025 / averageMSE)]
        for (key, value) in expected {
            let measured = try #require(psnr[key] as? Double, "psnr.\(key)")
            #expect(abs(measured - value) < 1e-9, "psnr.\(key) \(measured) ≠ \(value)")
        }
        #expect(psnr["v"] as? String == "inf")

        #expect(try runFxreplay(["compare", a, b, "--min-psnr", "28"]).status == 0)
        let failing = try runFxreplay(["compare", a, b, "--min-psnr", "35"])
        #expect(failing.status == 1 && failing.stderr.contains("worst frame 0 at 0.000 s"), "\(failing.stderr)")
    }

    @Test func identicalVideosHaveSSIMOneAndInfinitePSNR() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.mkv").path
        try QAFixtures.writeVideo(a, pts: QAFixtures.frameTimes(4)) { image, index in drawPattern(image, index: index) }
        let run = try runFxreplay(["compare", a, a, "--json", "--min-ssim", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try QAFixtures.object(run.stdout)
        let ssim = try #require(object["ssim"] as? [String: Any]), psnr = try #require(object["psnr"] as? [String: Any])
        #expect(ssim["y"] as? Double == 1 && ssim["u"] as? Double == 1 && ssim["v"] as? Double == 1 && ssim["min"] as? Double ?? 0 > 1 - 1e-12)
        #expect(abs((ssim["all"] as? Double ?? 0) - 1) < 1e-12)
        #expect(psnr["average"] as? String == "inf" && psnr["y"] as? String == "inf")
        #expect(object["pass"] as? Bool == true && object["frames"] as? Int == 4)
    }

    /// B lost frame 4 of 10: by time the other nine pair with their identical partners and frame 4 is
    /// reported unmatched; by index frames 5… pair with the wrong pictures.
    @Test func alignsByTimeAroundADroppedFrame() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.mkv").path, b = dir.appendingPathComponent("b.mkv").path
        let times = QAFixtures.frameTimes(10)
        let kept = Array(0..<10).filter { $0 != 4 }
        try QAFixtures.writeVideo(a, pts: times) { image, index in drawPattern(image, index: index) }
        try QAFixtures.writeVideo(b, pts: kept.map { times[$0] }) { image, index in drawPattern(image, index: kept[index]) }

        let byTime = try runFxreplay(["compare", a, b, "--json"])
        #expect(byTime.status == 1)
        #expect(byTime.stderr.contains("1 frames of \(a) have no frame of \(b)") && byTime.stderr.contains("frame 4 at 0.133 s"),
                "\(byTime.stderr)")
        let object = try QAFixtures.object(byTime.stdout)
        let timestamps = try #require(object["timestamps"] as? [String: Any])
        #expect(object["frames"] as? Int == 9 && timestamps["unmatchedA"] as? Int == 1 && timestamps["unmatchedB"] as? Int == 0)
        #expect((timestamps["firstUnmatchedA"] as? [String: Any])?["frame"] as? Int == 4)
        #expect(timestamps["maxDelta"] as? Double == 0)
        #expect((object["psnr"] as? [String: Any])?["average"] as? String == "inf")
        #expect((object["a"] as? [String: Any])?["frames"] as? Int == 10 && (object["b"] as? [String: Any])?["frames"] as? Int == 9)

        let byIndex = try QAFixtures.object(try runFxreplay(["compare", a, b, "--json", "--align", "index"]).stdout)
        let worst = try #require(byIndex["worst"] as? [String: Any])
        #expect(byIndex["frames"] as? Int == 9 && (byIndex["psnr"] as? [String: Any])?["average"] is Double)
        #expect(worst["index"] as? Int ?? 0 >= 4 && worst["frameB"] as? Int == (worst["index"] as? Int ?? 0))
        #expect(((byIndex["timestamps"] as? [String: Any])?["maxDelta"] as? Double ?? 0) > 0.03)
    }

    @Test func reportsAudioAndDurationDifferences() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let silent = dir.appendingPathComponent("silent.mp4").path, sound = dir.appendingPathComponent("sound.mp4").path
        try writeRecording(to: silent, pts: QAFixtures.frameTimes(6))
        #expect(try QAFixtures.run("ffmpeg", ["-i", silent, "-f", "lavfi", "-i", "sine=d=0.2", "-c:v", "copy", "-c:a", "aac", sound]).status == 0)
        let run = try runFxreplay(["compare", silent, sound])
        #expect(run.status == 1 && run.stderr.contains("\(sound) has audio, \(silent) has none"), "\(run.stderr)")
        #expect(run.stdout.contains("audio: A no, B yes"))
        #expect(try runFxreplay(["compare", silent, sound, "--ignore-audio"]).status == 0)
    }

    /// The worst pair side by side: A | B | heat map, 3 × 64 pixels wide. Frame 1 differs most (luma 40).
    @Test func diffWritesTheWorstFrameSideBySide() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.mkv").path, b = dir.appendingPathComponent("b.mkv").path
        let png = dir.appendingPathComponent("worst.png").path
        try QAFixtures.writeVideo(a, pts: QAFixtures.frameTimes(3), draw: QAFixtures.flat(100, 128, 128))
        try QAFixtures.writeVideo(b, pts: QAFixtures.frameTimes(3)) { image, index in
            image.fill(YUVColor(y: 100, cb: 128, cr: 128))
            for y in 0..<16 { for x in 0..<16 { image.luma[x, y] = index == 1 ? 140 : 104 } }
        }
        let run = try runFxreplay(["compare", a, b, "--diff", png, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let worst = try #require(try QAFixtures.object(run.stdout)["worst"] as? [String: Any])
        #expect(worst["index"] as? Int == 1 && abs((worst["t"] as? Double ?? 0) - 1.0 / 30) < 0.001, "\(worst)")  // Matroska keeps milliseconds

        let reader = try VideoFrameReader(url: png)
        let frame = try #require(try reader.next())
        let height = frame.height
        #expect(frame.width == 3 * 64 && height > 48 + 2 * 12)
        let pixels = try QAFixtures.rgb24(png)
        #expect(pixels.count == 3 * 64 * height * 3)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(pixels[(y * 192 + x) * 3..<(y * 192 + x) * 3 + 3]) }
        // The panels lie under a band of labels: A's grey (Y 100 → (100 − 16)·255/219 = 97.8) starts the picture's rows.
        let top = try #require((0..<height).first { y in pixel(40, y).allSatisfy { abs(Int($0) - 98) <= 1 } })
        #expect(top >= 12 && top + 48 < height)
        // Heat: s = min(8·|ΔY|, 510) = 320 inside the block: red 255, green 65; black outside.
        #expect(pixel(128 + 5, top + 5) == [255, 65, 0] && pixel(128 + 40, top + 30) == [0, 0, 0])
        for value in pixel(40, top + 30) + pixel(64 + 40, top + 30) { #expect(abs(Int(value) - 98) <= 1) }
        // B's block, Y 140: (140 − 16)·255/219 = 144.4.
        for value in pixel(64 + 5, top + 5) { #expect(abs(Int(value) - 144) <= 1) }
        // Each panel's label: light text pixels in the band above it.
        for panel in 0..<3 {
            let label = (0..<top).flatMap { y in (panel * 64..<panel * 64 + 64).map { pixel($0, y) } }
            #expect(label.contains { $0.allSatisfy { $0 > 160 } }, "panel \(panel) has no label")
        }
        // Under the panels: text (the frame) under A and B, and under the heat map a colour scale running
        // from black (d = 0) through red to yellow (d ≥ 64), never darker to the right.
        let footer = top + 48
        #expect((footer..<height).contains { y in (0..<128).contains { pixel($0, y).allSatisfy { $0 > 160 } } })
        let scaleRow = try #require((footer..<height).first { y in (128..<192).contains { pixel($0, y)[0] > 100 && pixel($0, y)[2] == 0 } })
        // The bar's pixels (blue 0; the band around it is (32, 32, 36)).
        let scale: [[UInt8]] = (128..<192).map { pixel($0, scaleRow) }.filter { (colour: [UInt8]) -> Bool in colour[2] == 0 }
        #expect(scale.count >= 48)
        let heat = scale.map { Int($0[0]) + Int($0[1]) }
        #expect(heat.first == 0 && heat.last == 510 && zip(heat, heat.dropFirst()).allSatisfy { $0 <= $1 }, "\(heat)")
        #expect(scale.contains { $0[0] == 255 && $0[1] < 100 })
    }

    /// Inputs whose listing depends on ffmpeg's choices: VP9 with alpha (its default decoder drops
    /// the alpha), no aspect ratio anywhere (0/1), a non-square one, a raw H.264 stream (no
    /// timestamps: ffmpeg counts them in microseconds at the stream's rate).
    @Test(arguments: [("alpha.webm", ["-vf", "format=yuva420p", "-c:v", "libvpx-vp9", "-auto-alt-ref", "0"]),
                      ("unknown-aspect.mkv", ["-vf", "setsar=0", "-c:v", "ffv1"]),
                      ("aspect.mp4", ["-vf", "setsar=2/3", "-c:v", "libx264"]),
                      ("raw.h264", ["-c:v", "libx264"])])
    func framehashListsWhatTheFFmpegCommandLists(_ name: String, _ encoding: [String]) throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.appendingPathComponent(name).path, listing = dir.appendingPathComponent("ffmpeg.framemd5").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=48x32:rate=10", "-frames:v", "4"] + encoding + [video]).status == 0)
        #expect(try QAFixtures.run("ffmpeg", ["-i", video, "-map", "0:v:0", "-fps_mode", "passthrough", "-enc_time_base", "-1",
                                              "-fflags", "+bitexact", "-f", "framemd5", listing]).status == 0)
        let run = try runFxreplay(["framehash", video])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == (try String(contentsOfFile: listing, encoding: .utf8)))
    }

    /// A stream that changes size and pixel format mid-way (raw H.264: 48×32 4:2:0, 30×20 4:4:4,
    /// 64×40 4:2:0; the same in MP4 turned a quarter by its display matrix; also WebM VP8 as a call
    /// recording adapting its resolution would have it): ffmpeg turns every picture upright and
    /// scales it to the first upright one's size and format, and so must framehash.
    @Test(arguments: ["changes.h264", "rotated.mp4", "changes.webm"])
    func framehashScalesPicturesAfterAChangeAsFFmpegDoes(_ name: String) throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = !name.hasSuffix(".webm")
        var parts: [String] = []
        let rotated = name.hasSuffix(".mp4")
        for (index, (size, format)) in [("48x32", "yuv420p"), ("30x20", raw && !rotated ? "yuv444p" : "yuv420p"), ("64x40", "yuv420p")].enumerated() {
            let part = dir.appendingPathComponent("part\(index)" + (raw ? ".h264" : ".webm")).path
            // (No B-frames for MP4: copied from raw H.264, their decode order would become their times.)
            let codec = raw ? ["-c:v", "libx264"] + (rotated ? ["-bf", "0"] : []) : ["-c:v", "libvpx", "-b:v", "200k"]
            #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=10", "-frames:v", "3",
                                                  "-pix_fmt", format] + codec + [part]).status == 0)
            parts.append(part)
        }
        let video = dir.appendingPathComponent(name).path, listing = dir.appendingPathComponent("ffmpeg.framemd5").path
        if raw {
            let joined = dir.appendingPathComponent("joined.h264").path
            try Data(parts.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }.joined()).write(to: URL(fileURLWithPath: joined))
            if rotated {
                #expect(try QAFixtures.run("ffmpeg", ["-r", "10", "-i", joined, "-c", "copy", "-metadata:s:v:0", "rotate=90", video]).status == 0)
            } else {
                try FileManager.default.moveItem(atPath: joined, toPath: video)
            }
        } else {
            let list = dir.appendingPathComponent("parts.txt")
            try Data(parts.map { "file '\($0)'\n" }.joined().utf8).write(to: list)
            #expect(try QAFixtures.run("ffmpeg", ["-f", "concat", "-safe", "0", "-i", list.path, "-c", "copy", video]).status == 0)
        }
        #expect(try QAFixtures.run("ffmpeg", ["-i", video, "-map", "0:v:0", "-fps_mode", "passthrough", "-enc_time_base", "-1",
                                              "-fflags", "+bitexact", "-f", "framemd5", listing]).status == 0)
        let expected = try String(contentsOfFile: listing, encoding: .utf8)
        // The listing is of 9 pictures, all of the first (upright) size: 48·32·1.5 bytes.
        #expect(expected.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains(" 2304, ") }.count == 9, "\(expected)")
        let run = try runFxreplay(["framehash", video])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == expected)
    }

    /// Raw H.264 with B-frames copied into MP4 takes decode order for presentation times, so some
    /// pictures come out earlier than the one before. ffmpeg raises such a time to the previous
    /// line's ("Non-monotonous DTS") and drops a picture more than 0.6 frame behind; so must framehash.
    @Test func framehashRaisesATimeThatGoesBackAsFFmpegDoes() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("raw.h264").path, video = dir.appendingPathComponent("reordered.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=48x32:rate=10", "-frames:v", "12", "-c:v", "libx264", raw]).status == 0)
        #expect(try QAFixtures.run("ffmpeg", ["-r", "10", "-i", raw, "-c", "copy", video]).status == 0)
        let listing = try QAFixtures.run("ffmpeg", ["-v", "warning", "-i", video, "-map", "0:v:0", "-fps_mode", "passthrough",
                                                    "-enc_time_base", "-1", "-fflags", "+bitexact", "-f", "framemd5", "-"])
        #expect(listing.log.contains("Non-monotonous DTS"), "the fixture no longer goes back in time")
        let run = try runFxreplay(["framehash", video])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == String(decoding: listing.stdout, as: UTF8.self))
    }

    @Test func framehashPrintsFFmpegLinesChecksAndUpdatesGolden() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.appendingPathComponent("clip.mp4").path, golden = dir.appendingPathComponent("golden.framemd5").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc=size=48x32:rate=30", "-frames:v", "5", "-pix_fmt", "yuv420p",
                                              "-c:v", "libx264", video]).status == 0)
        #expect(try QAFixtures.run("ffmpeg", ["-i", video, "-map", "0:v:0", "-fps_mode", "passthrough", "-enc_time_base", "-1",
                                              "-fflags", "+bitexact", "-f", "framemd5", golden]).status == 0)
        let expected = try String(contentsOfFile: golden, encoding: .utf8)

        let run = try runFxreplay(["framehash", video])
        #expect(run.status == 0)
        #expect(run.stdout == expected)
        #expect(try runFxreplay(["framehash", video, "--check", golden]).status == 0)

        // Frame 3's hash changed: exit 1 naming frame 3.
        var lines = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let index = try #require(lines.indices.filter { !lines[$0].hasPrefix("#") && !lines[$0].isEmpty }.dropFirst(3).first)
        lines[index] = String(lines[index].dropLast(4)) + "0000"
        let broken = dir.appendingPathComponent("broken.framemd5").path
        try lines.joined(separator: "\n").write(toFile: broken, atomically: true, encoding: .utf8)
        let failed = try runFxreplay(["framehash", video, "--check", broken])
        // The message names the golden file and the line of that frame's golden line.
        #expect(failed.status == 1 && failed.stderr.contains("\(broken):\(index + 1): frame 3 differs"), "\(failed.stderr)")
        #expect(try runFxreplay(["framehash", video, "--check", dir.appendingPathComponent("missing").path]).status == 3)

        // --update rewrites the golden file deliberately: afterwards it is ffmpeg's listing again.
        let updated = try runFxreplay(["framehash", video, "--check", broken, "--update"])
        #expect(updated.status == 0 && updated.stdout.contains("wrote \(broken) with 5 frames (before: frame 3 differs"), "\(updated.stdout)")
        #expect(try String(contentsOfFile: broken, encoding: .utf8) == expected)
        #expect(try runFxreplay(["framehash", video, "--check", broken]).status == 0)
        #expect(try runFxreplay(["framehash", video, "--update"]).status == 2)
    }
}
