import FxTestSupport
import CFFmpeg
import Foundation
import Testing
@testable import ReplayKitless

/// `fxreplay render --mask … --background …` on lossless FFV1 in and out, so pixels are exact:
/// the blend formula of formats.md §5, pairing by time, missing-mask policies, image sequences, shaping.
@Suite struct BackgroundRenderTests {
    @Test func blendFollowsTheFormulaWherePixelsArePartlyMasked() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mkv").path
        let maskPath = dir.appendingPathComponent("mask.mkv").path
        let output = dir.appendingPathComponent("out.mkv").path
        try writeLosslessVideo(input, width: 64, height: 48, frames: 6)
        // Columns 0–15 keep the frame, 48–63 take the background, a ramp in between (a different one per frame).
        let masks = (0..<6).map { frame in (0..<(64 * 48)).map { i in Self.rampMask(x: i % 64, y: i / 64, frame: frame) } }
        try writeGreyVideo(maskPath, width: 64, height: 48, rate: "30", frames: masks)
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--mask", maskPath,
                                   "--background", "color:#3080C0", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let source = try decodePictures(input), rendered = try decodePictures(output)
        #expect(rendered.count == 6)
        let background = bt601Limited(red: 0x30, green: 0x80, blue: 0xC0)
        for (index, (fg, out)) in zip(source, rendered).enumerated() {
            let check = blendMismatches(fg, out, mask: masks[index], background: background)
            #expect(check.kept == 0 && check.replaced == 0 && check.blended == 0, "frame \(index): \(check)")
        }
    }

    static func rampMask(x: Int, y: Int, frame: Int) -> UInt8 {
        x < 16 ? 255 : x >= 48 ? 0 : UInt8(min(255, (47 - x) * 8 + (y + frame * 3) % 7))
    }

    @Test func masksPairWithFramesByTimeNotIndex() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mkv").path
        let maskPath = dir.appendingPathComponent("mask10fps.mkv").path
        let output = dir.appendingPathComponent("out.mkv").path
        // 30 fps video with ±6 ms jitter, 10 fps masks: all, nothing, all, nothing.
        try writeLosslessVideo(input, width: 32, height: 32, frames: 12, timestamps: jitteredTimestamps(count: 12, start: 0.5))
        try writeGreyVideo(maskPath, width: 32, height: 32, rate: "10", frames: [255, 0, 255, 0].map { Array(repeating: $0, count: 1024) })
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--mask", maskPath,
                                   "--background", "color:#FFFFFF", "--missing-mask", "fail", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let source = try decodePictures(input), rendered = try decodePictures(output)
        let white = bt601Limited(red: 255, green: 255, blue: 255)
        let shown = zip(source, rendered).map { fg, out in out.y == fg.y ? "frame" : Set(out.y) == [white.y] ? "bg" : "?" }
        #expect(shown == ["frame", "frame", "frame", "bg", "bg", "bg", "frame", "frame", "frame", "bg", "bg", "bg"])
    }

    @Test(arguments: MissingMaskPolicy.allCases)
    func aMaskVideoThatEndsEarlyFollowsTheMissingMaskPolicy(_ policy: MissingMaskPolicy) throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mkv").path
        let maskPath = dir.appendingPathComponent("short.mkv").path
        let output = dir.appendingPathComponent("out.mkv").path
        let reportPath = dir.appendingPathComponent("report.json").path
        try writeLosslessVideo(input, width: 32, height: 32, frames: 8)
        try writeGreyVideo(maskPath, width: 32, height: 32, rate: "30", frames: [255, 255, 255, 255, 0].map { Array(repeating: $0, count: 1024) })
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--mask", maskPath, "--background", "color:#000000",
                                   "--missing-mask", policy.rawValue, "--report", reportPath, "--progress", "none"])
        if policy == .fail {
            #expect(run.status == 3)
            #expect(run.stderr.contains("short.mkv") && run.stderr.contains("frame 5"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["in.mkv", "short.mkv"])
            return
        }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: frames without a mask"))
        let source = try decodePictures(input), rendered = try decodePictures(output)
        let black = bt601Limited(red: 0, green: 0, blue: 0)
        let shown = zip(source, rendered).map { fg, out in out.y == fg.y ? "frame" : Set(out.y) == [black.y] ? "bg" : "?" }
        let tail = policy == .hold ? "bg" : "frame"
        #expect(shown == ["frame", "frame", "frame", "frame", "bg", tail, tail, tail])
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
        let counters = (report?["effects"] as? [String: Any])?["background"] as? [String: Int]
        #expect(counters?["masksHeld"] == (policy == .hold ? 3 : 0))
        #expect(counters?["framesKeptOriginal"] == (policy == .keepOriginal ? 3 : 0))
        // Frames whose mask is all person (255) are left as they were: not replaced.
        #expect(counters?["framesReplaced"] == shown.filter { $0 == "bg" }.count)
    }

    @Test func imageSequencesPairByNumberAndAreScaled() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mkv").path
        let output = dir.appendingPathComponent("out.mkv").path
        try writeLosslessVideo(input, width: 64, height: 48, frames: 5)
        // 32×24 masks: image N is uniform 255 for even N, 0 for odd N; image 3 is missing.
        try FileManager.default.createDirectory(atPath: dir.appendingPathComponent("masks").path, withIntermediateDirectories: false)
        for number in [0, 1, 2, 4] {
            try writeRawImage(dir.appendingPathComponent(String(format: "masks/mask_%05d.png", number)).path, width: 32, height: 24,
                              pixelFormat: "gray", bytes: Array(repeating: number % 2 == 0 ? 255 : 0, count: 32 * 24))
        }
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--mask", dir.appendingPathComponent("masks/mask_%05d.png").path,
                                   "--background", "color:#000000", "--missing-mask", "keep-original", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let source = try decodePictures(input), rendered = try decodePictures(output)
        let black = bt601Limited(red: 0, green: 0, blue: 0)
        let shown = zip(source, rendered).map { fg, out in out.y == fg.y ? "frame" : Set(out.y) == [black.y] ? "bg" : "?" }
        #expect(shown == ["frame", "bg", "frame", "frame", "frame"])
    }

    @Test func invertAndThresholdMakeAHardSwappedMask() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mkv").path
        let maskPath = dir.appendingPathComponent("ramp.png").path
        let output = dir.appendingPathComponent("out.mkv").path
        try writeLosslessVideo(input, width: 64, height: 16, frames: 2)
        // A horizontal ramp 0, 4, …, 252; inverted 255 − 4x; threshold 128 keeps x ≤ 31 as foreground.
        let ramp = (0..<(64 * 16)).map { UInt8(4 * ($0 % 64)) }
        try writeRawImage(maskPath, width: 64, height: 16, pixelFormat: "gray", bytes: ramp)
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--mask", maskPath, "--invert", "--threshold", "128",
                                   "--background", "color:#000000", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let source = try decodePictures(input), rendered = try decodePictures(output)
        let hard = ramp.map { 255 - $0 >= 128 ? UInt8(255) : 0 }
        for (fg, out) in zip(source, rendered) {
            let check = blendMismatches(fg, out, mask: hard, background: bt601Limited(red: 0, green: 0, blue: 0))
            #expect(check.kept == 0 && check.replaced == 0 && check.blended == 0, "\(check)")
        }
    }

    @Test func featherExpandAndSmoothingSoftenGrowAndCalmTheMask() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mkv").path
        let maskPath = dir.appendingPathComponent("blink.mkv").path
        try writeLosslessVideo(input, width: 64, height: 16, frames: 4, content: { _, _, _ in (200, 128, 128) })
        // Left half foreground on frames 0 and 2, nothing on frames 1 and 3.
        let half = (0..<(64 * 16)).map { $0 % 64 < 32 ? UInt8(255) : 0 }
        try writeGreyVideo(maskPath, width: 64, height: 16, rate: "30", frames: [half, Array(repeating: 0, count: 1024), half, Array(repeating: 0, count: 1024)])
        func render(_ name: String, _ flags: [String]) throws -> [DecodedPicture] {
            let output = dir.appendingPathComponent(name).path
            let run = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--mask", maskPath,
                                       "--background", "color:#000000", "--progress", "none"] + flags)
            #expect(run.status == 0, "\(run.stderr)")
            return try decodePictures(output)
        }
        // Luma 200 over black (16): out = 16 + 184 · a / 255 on a row's columns.
        func alongRow(_ picture: DecodedPicture) -> [Int] { (0..<64).map { Int(picture.y[8 * 64 + $0]) } }
        let feathered = alongRow(try render("feather.mkv", ["--feather", "8"])[0])
        #expect(feathered[12] == 200 && feathered[51] == 16, "\(feathered)")
        #expect(feathered[31] > 110 && feathered[31] < 190 && feathered[32] > 30 && feathered[32] < 110, "\(feathered)")
        #expect(zip(feathered, feathered.dropFirst()).allSatisfy { $0 >= $1 }, "ramp not monotonic: \(feathered)")
        let expanded = alongRow(try render("expand.mkv", ["--mask-expand", "3"])[0])
        #expect(expanded[34] == 200 && expanded[35] == 16)
        let smoothed = try render("smooth.mkv", ["--mask-smooth", "2"]).map(alongRow)
        // Frame 1 averages masks 255 and 0 on the left: a = 128 → 16 + 184 · 128/255 = 108.4.
        #expect(smoothed[0][0] == 200 && abs(smoothed[1][0] - 108) <= 1 && abs(smoothed[2][0] - 108) <= 1)
        #expect(smoothed.allSatisfy { $0[63] == 16 })
    }

    @Test func aMaskWithoutBackgroundLeavesThePixelsAlone() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mkv").path
        let maskPath = dir.appendingPathComponent("short.mkv").path
        let output = dir.appendingPathComponent("out.mkv").path
        let reportPath = dir.appendingPathComponent("report.json").path
        try writeLosslessVideo(input, width: 32, height: 32, frames: 4)
        try writeGreyVideo(maskPath, width: 32, height: 32, rate: "30", frames: [0, 128, 255].map { Array(repeating: $0, count: 1024) })
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--mask", maskPath, "--feather", "2",
                                   "--report", reportPath, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let source = try decodePictures(input), rendered = try decodePictures(output)
        #expect(rendered.map(\.y) == source.map(\.y) && rendered.map(\.cb) == source.map(\.cb) && rendered.map(\.cr) == source.map(\.cr))
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
        let counters = (report?["effects"] as? [String: Any])?["background"] as? [String: Int]
        #expect(counters == ["framesMasked": 4, "framesReplaced": 0, "masksHeld": 1, "framesKeptOriginal": 0, "maskDecodeErrors": 0])
    }

    @Test func annotationsCanHideBehindThePersonInTheMask() throws {
        let dir = try makeScratchDirectory()
        let video = dir.appendingPathComponent("flat.mp4").path
        let poses = dir.appendingPathComponent("poses.jsonl").path
        let scene = dir.appendingPathComponent("annotations.json").path
        let mask = dir.appendingPathComponent("left.png").path
        var settings = EncoderSettings()
        settings.preset = "ultrafast"
        let writer = try MediaWriter(path: video, video: .init(size: PictureSize(width: 320, height: 240), timeBase: Rational(1, 30), encoder: settings))
        for index in 0..<2 { try writer.addVideoFrame(pts: Int64(index), duration: 1) { $0.fill(YUVColor(y: 16, cb: 128, cr: 128)) } }
        try writer.finish()
        try (0..<2).map { #"{"frame": \#($0), "position": [0, 0, 0], "euler": [0, 0, 0], "zNear": 0.01, "fovY": 60}"# }
            .joined(separator: "\n").write(toFile: poses, atomically: true, encoding: .utf8)
        // A white sphere straight ahead, centred on the frame; the person (mask 255) fills the left half.
        try ##"{"version": 1, "annotations": [{"id": "ball", "anchor": {"world": [0, 0, -3]}, "shape": "sphere", "size": 0.4, "color": "#FFFFFF"}]}"##
            .write(toFile: scene, atomically: true, encoding: .utf8)
        try writeRawImage(mask, width: 320, height: 240, pixelFormat: "gray", bytes: (0..<(320 * 240)).map { $0 % 320 < 160 ? 255 : 0 })
        func drawn(_ flags: [String]) throws -> (left: Int, right: Int) {
            let output = dir.appendingPathComponent("out-\(UUID().uuidString).mkv").path
            let run = try runFxreplay(["render", video, "-o", output, "--codec", "ffv1", "--poses", poses, "--annotations", scene,
                                       "--mask", mask, "--progress", "none"] + flags)
            #expect(run.status == 0, "\(run.stderr)")
            let picture = try decodePictures(output)[0]
            let bright = picture.y.enumerated().filter { $0.element > 40 }.map { $0.offset % 320 }
            return (bright.filter { $0 < 158 }.count, bright.filter { $0 >= 162 }.count)
        }
        // With a background (black, like the picture) and with the mask alone: same drawing.
        for background in [["--background", "color:#000000"], []] {
            let plain = try drawn(background), occluded = try drawn(background + ["--occlude-with-mask"])
            #expect(plain.left > 100 && abs(plain.left - plain.right) < plain.left / 10, "\(plain)")
            #expect(occluded.left == 0 && occluded.right == plain.right, "\(occluded)")
        }
    }
}

// MARK: - Fixtures and checks shared by the Background suites

/// Y'CbCr of an 8-bit sRGB colour in BT.601 limited range (frames up to 576 lines), by the textbook equations.
func bt601Limited(red: Double, green: Double, blue: Double) -> (y: UInt8, cb: UInt8, cr: UInt8) {
    let r = red / 255, g = green / 255, b = blue / 255
    let y = 0.299 * r + 0.587 * g + 0.114 * b
    return (UInt8((16 + 219 * y).rounded()), UInt8((128 + 224 * (b - y) / 1.772).rounded()), UInt8((128 + 224 * (r - y) / 1.402).rounded()))
}

/// One decoded picture as 8-bit planes (4:2:0 chroma, alpha when the picture has one).
struct DecodedPicture {
    var width: Int, height: Int
    var y: [UInt8], cb: [UInt8], cr: [UInt8]
    var alpha: [UInt8]?
    var pixelFormat: String
}

/// Decodes every picture of `path`, converting deeper or other layouts to 8-bit 4:2:0 (with alpha when present).
func decodePictures(_ path: String) throws -> [DecodedPicture] {
    let reader = try VideoFrameReader(url: path)
    let scaler = Scaler(), converted = try Frame()
    var pictures: [DecodedPicture] = []
    func values(_ plane: Plane) -> [UInt8] { (0..<plane.height).flatMap { y in Array(plane.row(y)) } }
    while let frame = try reader.next() {
        let name = String(cString: av_get_pix_fmt_name(frame.pixelFormat))
        var image = frame.yuvImage
        if image == nil || image?.subsampling != .yuv420 {
            let hasAlpha = av_pix_fmt_desc_get(frame.pixelFormat)!.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
            try converted.allocate(width: frame.width, height: frame.height, format: hasAlpha ? AV_PIX_FMT_YUVA420P : AV_PIX_FMT_YUV420P)
            try scaler.convert(frame, into: converted)
            image = converted.yuvImage
        }
        let picture = image!
        pictures.append(DecodedPicture(width: frame.width, height: frame.height, y: values(picture.luma), cb: values(picture.cb),
                                       cr: values(picture.cr), alpha: picture.alpha.map(values), pixelFormat: name))
    }
    return pictures
}

/// Content of lossless test videos: Y, Cb, Cr at (x, y) of frame `index`.
typealias PictureContent = @Sendable (_ x: Int, _ y: Int, _ index: Int) -> (UInt8, UInt8, UInt8)

let variedContent: PictureContent = { x, y, index in
    (UInt8(16 + (x * 7 + y * 13 + index * 5) % 220), UInt8(60 + (x * 3 + y) % 140), UInt8(200 - (x + 2 * y) % 120))
}

/// A lossless (FFV1, 4:2:0) video whose pictures are `content`, at 30 fps unless timestamps (1/90000) are given.
func writeLosslessVideo(_ path: String, width: Int, height: Int, frames: Int, timestamps: [Int64]? = nil,
                        content: PictureContent = variedContent) throws {
    var settings = EncoderSettings()
    settings.codec = .ffv1
    let writer = try MediaWriter(path: path, video: .init(size: PictureSize(width: width, height: height), timeBase: Rational(1, 90000),
                                                          encoder: settings, colorSpace: .bt601Limited))
    let pts = timestamps ?? (0..<frames).map { Int64($0) * 3000 }
    for (index, timestamp) in pts.enumerated() {
        // The last picture lasts as long as the one before it.
        let next = index + 1 < pts.count ? pts[index + 1] : timestamp + (index > 0 ? timestamp - pts[index - 1] : 3000)
        try writer.addVideoFrame(pts: timestamp, duration: next - timestamp) { image in
            for y in 0..<height { for x in 0..<width { image.luma[x, y] = content(x, y, index).0 } }
            for y in 0..<image.cb.height {
                for x in 0..<image.cb.width {
                    let (_, cb, cr) = content(2 * x, 2 * y, index)
                    image.cb[x, y] = cb
                    image.cr[x, y] = cr
                }
            }
        }
    }
    try writer.finish()
}

/// How many samples break the blend of formats.md §5: where the mask is 255 the output must equal
/// the frame, where it is 0 the background, in between `round((fg·a + bg·(255 − a)) / 255)` ± 1;
/// chroma uses the mean of the mask over each 2×2 block.
func blendMismatches(_ fg: DecodedPicture, _ out: DecodedPicture, mask: [UInt8],
                     background: (y: UInt8, cb: UInt8, cr: UInt8)) -> (kept: Int, replaced: Int, blended: Int) {
    var kept = 0, replaced = 0, blended = 0
    func check(_ f: UInt8, _ o: UInt8, _ b: UInt8, _ a: Int) {
        if a == 255 { if o != f { kept += 1 } }
        else if a == 0 { if o != b { replaced += 1 } }
        else {
            let expected = ((Double(f) * Double(a) + Double(b) * Double(255 - a)) / 255).rounded()
            if abs(Double(o) - expected) > 1 { blended += 1 }
        }
    }
    for i in 0..<(fg.width * fg.height) { check(fg.y[i], out.y[i], background.y, Int(mask[i])) }
    let chromaWidth = (fg.width + 1) / 2
    for i in 0..<fg.cb.count {
        let cx = i % chromaWidth, cy = i / chromaWidth
        let covered = [(0, 0), (1, 0), (0, 1), (1, 1)].compactMap { dx, dy -> Int? in
            let x = 2 * cx + dx, y = 2 * cy + dy
            return x < fg.width && y < fg.height ? Int(mask[y * fg.width + x]) : nil
        }
        let a = (covered.reduce(0, +) * 2 + covered.count) / (2 * covered.count)
        check(fg.cb[i], out.cb[i], background.cb, a)
        check(fg.cr[i], out.cr[i], background.cr, a)
    }
    return (kept, replaced, blended)
}

