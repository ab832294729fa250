import FxTestSupport
import CFFmpeg
import Foundation
import Testing
@testable import ReplayKitless

/// Background replacement on real recordings (H.264/AAC MP4, VP8 WebM with a resolution change,
/// rotated video), and every bad input: its exit status and no output left behind.
@Suite struct BackgroundInputTests {
    /// A left-half-foreground mask of `width × height` as a PNG.
    func leftHalfMask(_ path: String, width: Int, height: Int) throws {
        try writeRawImage(path, width: width, height: height, pixelFormat: "gray",
                          bytes: (0..<(width * height)).map { $0 % width < width / 2 ? 255 : 0 })
    }

    /// Luma PSNR of the left half of `image` against the fixture pattern of frame `index`, and the
    /// largest distance of the right half's samples from `background`.
    func halves(_ image: YUVImage, index: Int, background: (y: UInt8, cb: UInt8, cr: UInt8)) -> (psnr: Double, off: Int) {
        let expected = PlanarBuffer(width: image.width, height: image.height)
        drawPattern(expected.image, index: index)
        let margin = 4, w = image.width, h = image.height
        var squared = 0.0, count = 0, off = 0
        for y in 0..<h {
            for x in 0..<(w / 2 - margin) {
                let d = Double(image.luma[x, y]) - Double(expected.image.luma[x, y])
                squared += d * d
                count += 1
            }
            for x in (w / 2 + margin)..<w { off = max(off, abs(Int(image.luma[x, y]) - Int(background.y))) }
        }
        for y in 0..<image.cb.height {
            for x in (w / 4 + margin)..<image.cb.width {
                off = max(off, abs(Int(image.cb[x, y]) - Int(background.cb)), abs(Int(image.cr[x, y]) - Int(background.cr)))
            }
        }
        let mse = squared / Double(count)
        return (mse == 0 ? 99 : 10 * log10(255 * 255 / mse), off)
    }

    @Test func mp4WithAudioAndVariableTimingKeepsEveryTimestampAndTheSound() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("call.mp4").path
        let mask = dir.appendingPathComponent("mask.png").path
        let output = dir.appendingPathComponent("out.mp4").path
        let pts = jitteredTimestamps(count: 30, start: 1.5, dropping: [7, 8, 21])
        try writeRecording(to: input, pts: pts, audioStart: 1.75)
        try leftHalfMask(mask, width: 160, height: 96)
        let run = try runFxreplay(["render", input, "-o", output, "--mask", mask, "--background", "color:#2040E0", "--crf", "10",
                                   "--missing-mask", "fail", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let source = try decodeFrames(input, measure: false), rendered = try decodeFrames(output, measure: false)
        #expect(rendered.count == pts.count)
        for (a, b) in zip(source, rendered) { #expect(abs(a.seconds - b.seconds) < 1e-6) }
        let audioIn = try readPackets(input, kind: .audio), audioOut = try readPackets(output, kind: .audio)
        #expect(!audioIn.isEmpty && audioIn.map(\.bytes) == audioOut.map(\.bytes) && audioIn.map(\.pts) == audioOut.map(\.pts))
        let reader = try VideoFrameReader(url: output)
        var index = 0
        let blue = bt601Limited(red: 0x20, green: 0x40, blue: 0xE0)
        while let frame = try reader.next() {
            let check = halves(try reader.image(of: frame), index: index, background: blue)
            #expect(check.psnr > 30 && check.off <= 4, "frame \(index): \(check)")
            index += 1
        }
    }

    @Test func webmWithAResolutionChangeIsMaskedThroughout() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("call.webm").path
        let mask = dir.appendingPathComponent("mask.png").path
        let output = dir.appendingPathComponent("out.mkv").path
        try writeRecording(to: input, pts: (0..<12).map { Int64($0) * 3000 }, sizes: [6: PictureSize(width: 320, height: 192)], codec: .vp8)
        // A mask at half the frame's size: scaled up to 160×96.
        try leftHalfMask(mask, width: 80, height: 48)
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--mask", mask, "--background", "color:#000000",
                                   "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let reader = try VideoFrameReader(url: output)
        var index = 0
        while let frame = try reader.next() {
            #expect(frame.width == 160 && frame.height == 96)
            let check = halves(try reader.image(of: frame), index: index, background: (16, 128, 128))
            // VP8 at CRF 18, and frames 6… scaled down 2:1 by the pipeline.
            #expect(check.psnr > (index < 6 ? 30 : 20) && check.off == 0, "frame \(index): \(check)")
            index += 1
        }
        #expect(index == 12)
    }

    @Test func rotatedInputIsMaskedInDisplayOrientation() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("rotated.mp4").path
        let mask = dir.appendingPathComponent("top.png").path
        let output = dir.appendingPathComponent("out.mkv").path
        // Stored 64×48 black with a white block top-left, shown turned 90° clockwise: 48×64, block top-right.
        try writeBlockRecording(to: input, rotation: 90)
        // An upright mask keeping the top half.
        try writeRawImage(mask, width: 48, height: 64, pixelFormat: "gray", bytes: (0..<(48 * 64)).map { $0 < 48 * 32 ? 255 : 0 })
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--mask", mask, "--background", "color:#FFFFFF",
                                   "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let picture = try decodePictures(output)[0]
        #expect(picture.width == 48 && picture.height == 64)
        func luma(_ x: Int, _ y: Int) -> Int { Int(picture.y[y * 48 + x]) }
        #expect(luma(43, 4) > 200 && luma(4, 4) < 40)      // the block, top-right; black top-left
        #expect(luma(4, 60) > 230 && luma(43, 60) > 230)   // bottom half: white background
        #expect(luma(24, 28) < 40)                          // above the mask's edge: the picture
    }

    /// With --keep-rotation the stored picture is written, but the mask (and background) are still
    /// in display orientation: they are applied to the upright picture, which is then turned back.
    /// They used to be applied to the stored picture: a 90° mask stretched across, a 180° one upside down.
    @Test(arguments: [90, 180]) func keptRotationStillMasksInDisplayOrientation(rotation: Int) throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("rotated.mp4").path
        let mask = dir.appendingPathComponent("top.png").path
        let output = dir.appendingPathComponent("out.mp4").path
        try writeBlockRecording(to: input, rotation: rotation)
        // Upright: 48×64 for the quarter turn, 64×48 for the half turn; the top half is the person.
        let (width, height) = rotation == 90 ? (48, 64) : (64, 48)
        try writeRawImage(mask, width: width, height: height, pixelFormat: "gray",
                          bytes: (0..<(width * height)).map { $0 < width * height / 2 ? 255 : 0 })
        let run = try runFxreplay(["render", input, "-o", output, "--keep-rotation", "--mask", mask,
                                   "--background", "color:#FFFFFF", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let picture = try decodePictures(output)[0]
        #expect(picture.width == 64 && picture.height == 48)
        func luma(_ x: Int, _ y: Int) -> Int { Int(picture.y[y * 64 + x]) }
        // The display's top half is the stored left half (turned clockwise) or bottom half (upside down):
        // there the stored picture (black, block top-left) stays; the rest is the white background.
        if rotation == 90 {
            #expect(luma(4, 4) > 200 && luma(4, 44) < 40 && luma(24, 44) < 40)
            #expect(luma(44, 4) > 230 && luma(60, 44) > 230)
        } else {
            #expect(luma(60, 44) < 40 && luma(4, 44) < 40)
            #expect(luma(60, 4) > 230 && luma(30, 20) > 230)
        }
    }

    /// --mirror flips the recording and its mask together, so the mask still covers the person; the
    /// mask used to stay unflipped and keep the wrong side.
    @Test func mirrorFlipsTheMaskWithThePicture() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("block.mp4").path
        let mask = dir.appendingPathComponent("left.png").path
        let output = dir.appendingPathComponent("out.mkv").path
        // 64×48 black with a white block top-left; the mask keeps the left half, where the block is.
        try writeBlockRecording(to: input, rotation: 0)
        try leftHalfMask(mask, width: 64, height: 48)
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--mirror", "--mask", mask,
                                   "--background", "color:#FFFFFF", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let picture = try decodePictures(output)[0]
        func luma(_ x: Int, _ y: Int) -> Int { Int(picture.y[y * 64 + x]) }
        // Flipped: block top-right, kept with the black below it; the left half is the white background.
        #expect(luma(60, 4) > 200 && luma(60, 40) < 40 && luma(36, 40) < 40)
        #expect(luma(4, 40) > 230 && luma(4, 4) > 230 && luma(28, 20) > 230)
    }

    @Test func fullRangeInputKeepsItsRangeAndGetsFullRangeBackgroundColours() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("full.mp4").path
        let mask = dir.appendingPathComponent("mask.png").path
        let output = dir.appendingPathComponent("out.mkv").path
        // Lossless full-range H.264 (decoded as yuvj420p), light grey: Y' 224 in full range (208 if squeezed to limited).
        try runFFmpegCLI(["-f", "lavfi", "-i", "color=c=0xE0E0E0:size=64x48:duration=0.2", "-pix_fmt", "yuvj420p",
                          "-c:v", "libx264", "-qp", "0", input])
        try leftHalfMask(mask, width: 64, height: 48)
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--mask", mask, "--background", "color:#2040E0",
                                   "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let demuxer = try Demuxer(url: output)
        #expect(demuxer.stream(demuxer.bestVideoStream!.index).pointee.codecpar.pointee.color_range == AVCOL_RANGE_JPEG)
        // BT.601 full range: Y' = 255 (0.299 R + 0.587 G + 0.114 B), Cb = 128 + 255 (B − Y)/1.772, Cr = 128 + 255 (R − Y)/1.402.
        let y = 0.299 * 0x20 + 0.587 * 0x40 + 0.114 * 0xE0
        let blue = (Int(y.rounded()), Int((128 + (0xE0 - y) / 1.772).rounded()), Int((128 + (0x20 - y) / 1.402).rounded()))
        for picture in try decodePictures(output) {
            #expect(abs(Int(picture.y[10 * 64 + 5]) - 224) <= 1)
            #expect(Int(picture.y[10 * 64 + 60]) == blue.0)
            #expect(Int(picture.cb[5 * 32 + 30]) == blue.1 && Int(picture.cr[5 * 32 + 30]) == blue.2)
        }
    }

    @Test func missingOrUnreadableFilesAreBadInputWithNoOutput() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mkv").path
        let mask = dir.appendingPathComponent("mask.png").path
        let garbage = dir.appendingPathComponent("garbage.png").path
        try writeLosslessVideo(input, width: 32, height: 32, frames: 3)
        try leftHalfMask(mask, width: 32, height: 32)
        var generator = SplitMix(seed: 3)
        try Data((0..<4000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }).write(to: URL(fileURLWithPath: garbage))
        let before = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        let output = dir.appendingPathComponent("out.mkv").path
        let cases: [([String], String)] = [
            (["--mask", dir.appendingPathComponent("nope.mkv").path, "--background", "blur:4"], "nope.mkv"),
            (["--mask", dir.appendingPathComponent("seq/mask_%05d.png").path, "--background", "blur:4"], "mask_00000.png"),
            (["--mask", garbage, "--background", "blur:4"], "garbage.png"),
            (["--mask", mask, "--background", "image:\(garbage)"], "garbage.png"),
            (["--mask", mask, "--background", "image:\(dir.appendingPathComponent("beach.jpg").path)"], "beach.jpg"),
            (["--mask", mask, "--background", "video:\(dir.appendingPathComponent("loop.mp4").path)"], "loop.mp4"),
        ]
        for (flags, named) in cases {
            let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"] + flags)
            #expect(run.status == 3, "\(flags): \(run.stderr)")
            #expect(run.stderr.contains(named), "\(flags): \(run.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == before, "\(flags) left files behind")
        }
    }

    /// Every image of a mask sequence is an input: no output replaces one, even with --overwrite
    /// (a preview or report used to be written over it).
    @Test func maskImagesAreNeverWrittenOver() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mkv").path
        try writeLosslessVideo(input, width: 32, height: 32, frames: 3)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("seq"), withIntermediateDirectories: true)
        for index in 0..<3 { try leftHalfMask(dir.appendingPathComponent("seq/mask_0000\(index).png").path, width: 32, height: 32) }
        let image = dir.appendingPathComponent("seq/mask_00001.png").path
        let before = try Data(contentsOf: URL(fileURLWithPath: image))
        for flag in ["--preview", "--report"] {
            let run = try runFxreplay(["render", input, "-o", dir.appendingPathComponent("out.mkv").path, "--progress", "none",
                                       "--mask", dir.appendingPathComponent("seq/mask_%05d.png").path, "--background", "blur:4",
                                       flag, image, "--overwrite"])
            #expect(run.status == 2, "\(flag): \(run.stderr)")
            #expect(run.stderr.contains("refusing to write over"), "\(run.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: image)) == before)
        }
    }

    /// Recordings are often named by time: a colon in a relative name (`call-10:00.mkv`) is part of
    /// the file name, not a libavformat protocol ("Protocol not found" before).
    @Test func namesWithColonsAreFiles() throws {
        let dir = try makeScratchDirectory()
        try writeLosslessVideo(dir.appendingPathComponent("in-10:00.mkv").path, width: 32, height: 32, frames: 3)
        try leftHalfMask(dir.appendingPathComponent("mask-10:00.png").path, width: 32, height: 32)
        try writeRawImage(dir.appendingPathComponent("bg-10:00.png").path, width: 8, height: 8, pixelFormat: "gray",
                          bytes: [UInt8](repeating: 255, count: 64))
        let run = try runFxreplay(["render", "in-10:00.mkv", "-o", "out-10:00.mkv", "--mask", "mask-10:00.png",
                                   "--background", "image:bg-10:00.png", "--progress", "none"], currentDirectory: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try decodePictures(dir.appendingPathComponent("out-10:00.mkv").path).count == 3)
    }

    /// A damaged mask video is damage like a damaged input: counted and warned about, and with
    /// --strict the render fails naming the mask, leaving no output (it passed silently).
    @Test func aDamagedMaskCountsAsDamage() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mkv").path
        let mask = dir.appendingPathComponent("mask.mkv").path
        try writeLosslessVideo(input, width: 64, height: 48, frames: 20)
        // FFV1 with per-slice CRCs: flipped bytes make a packet fail to decode rather than decode wrong.
        try runFFmpegCLI(["-f", "lavfi", "-i", "testsrc=s=64x48:d=2:r=10", "-c:v", "ffv1", "-level", "3", "-slicecrc", "1",
                          "-pix_fmt", "gray", mask])
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: mask)))
        for index in (bytes.count / 3)..<(bytes.count / 3 + 200) { bytes[index] ^= 0x55 }
        try Data(bytes).write(to: URL(fileURLWithPath: mask))
        let output = dir.appendingPathComponent("out.mkv").path
        let arguments = ["render", input, "-o", output, "--mask", mask, "--background", "color:#000000", "--progress", "none"]
        let strict = try runFxreplay(arguments + ["--strict"])
        #expect(strict.status == 3, "\(strict.stderr)")
        #expect(strict.stderr.contains("mask.mkv: ") && strict.stderr.contains("damaged packets; stopping"), "\(strict.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let lenient = try runFxreplay(arguments)
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(lenient.stderr.contains("warning: \(mask): "), "\(lenient.stderr)")
    }

    /// A mask video cut short: FFmpeg's own messages about it (Matroska's "File ended prematurely",
    /// NUT's missing index, FFV1's broken slice) stay off stderr without --verbose, while fxreplay's
    /// own warnings are printed; with --verbose FFmpeg's lines appear too.
    @Test func aTruncatedMaskIsWarnedAboutWithoutFFmpegsOwnMessages() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.mkv").path
        try writeLosslessVideo(input, width: 64, height: 48, frames: 30)
        // Matroska drops the cut packet (the mask just ends early); NUT hands it to the decoder (damage).
        for (container, warning) in [("mkv", "frames without a mask"), ("nut", "damaged packets skipped")] {
            let mask = dir.appendingPathComponent("mask.\(container)")
            try runFFmpegCLI(["-f", "lavfi", "-i", "testsrc=s=64x48:d=1:r=30", "-c:v", "ffv1", "-level", "3", "-slicecrc", "1",
                              "-pix_fmt", "gray", mask.path])
            let bytes = try Data(contentsOf: mask)
            try bytes.prefix(bytes.count * 6 / 10).write(to: mask)
            let arguments = ["render", input, "-o", dir.appendingPathComponent("out.mkv").path, "--mask", mask.path,
                             "--background", "color:#000000", "--progress", "none", "--overwrite"]
            let quiet = try runFxreplay(arguments)
            #expect(quiet.status == 0, "\(quiet.stderr)")
            #expect(quiet.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("fxreplay: ") }, "\(container): \(quiet.stderr)")
            #expect(quiet.stderr.contains("warning: ") && quiet.stderr.contains(warning), "\(container): \(quiet.stderr)")
            let verbose = try runFxreplay(arguments + ["--verbose"])
            // FFmpeg prefixes its lines with the reporting object: "[matroska,webm @ 0x…]".
            #expect(verbose.stderr.contains(container == "mkv" ? "File ended prematurely" : "[nut @ "), "\(container): \(verbose.stderr)")
            #expect(verbose.stderr.contains(warning), "\(container): \(verbose.stderr)")
        }
    }

    /// A Matroska mask cut between packets reads to a clean end of file, so only its header's
    /// duration tells: like the input's own, that is a warning naming the mask, and damage under
    /// --strict (exit 3, no output). A mask that is merely shorter than the video is neither.
    @Test func aMaskVideoCutShortIsDamageNamingTheMask() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.mkv").path, output = dir.appendingPathComponent("out.mkv").path
        try writeLosslessVideo(input, width: 64, height: 48, frames: 90)
        let cut = dir.appendingPathComponent("cut.mkv").path, short = dir.appendingPathComponent("short.mkv").path
        for (path, seconds) in [(cut, "3"), (short, "1")] {
            try runFFmpegCLI(["-f", "lavfi", "-i", "testsrc=s=64x48:d=\(seconds):r=30", "-c:v", "ffv1", "-pix_fmt", "gray", path])
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: cut))
        try bytes.prefix(bytes.count * 6 / 10).write(to: URL(fileURLWithPath: cut))   // about 1.8 s of 3 s
        func render(_ mask: String, _ extra: [String] = []) throws -> (status: Int32, stderr: String) {
            let run = try runFxreplay(["render", input, "-o", output, "--mask", mask, "--background", "color:#000000",
                                       "--progress", "none", "--overwrite"] + extra)
            return (run.status, run.stderr)
        }
        let warned = try render(cut)
        #expect(warned.status == 0, "\(warned.stderr)")
        #expect(warned.stderr.contains("warning: \(cut): the video ends at 1.") && warned.stderr.contains("declares 3.00 s: is the file cut short?"),
                "\(warned.stderr)")
        try FileManager.default.removeItem(atPath: output)
        let strict = try render(cut, ["--strict"])
        #expect(strict.status == 3, "\(strict.stderr)")
        #expect(strict.stderr.contains("\(cut): the video ends at"), "\(strict.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let shorter = try render(short, ["--strict"])
        #expect(shorter.status == 0 && !shorter.stderr.contains("cut short"), "\(shorter.stderr)")
        #expect(shorter.stderr.contains("held the last mask"), "\(shorter.stderr)")
        // The cut file as both the input and its mask: two counts of damage.
        for (limit, status) in [("1", Int32(3)), ("2", Int32(0))] {
            let run = try runFxreplay(["render", cut, "-o", output, "--mask", cut, "--background", "color:#000000",
                                       "--progress", "none", "--overwrite", "--max-decode-errors", limit])
            #expect(run.status == status, "--max-decode-errors \(limit): \(run.stderr)")
        }
    }

    @Test func jobSpecsCarryTheBackgroundOptions() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mkv").path
        let mask = dir.appendingPathComponent("mask.png").path
        let job = dir.appendingPathComponent("job.yaml").path
        let output = dir.appendingPathComponent("out.mkv").path
        try writeLosslessVideo(input, width: 32, height: 32, frames: 2)
        try leftHalfMask(mask, width: 32, height: 32)
        try "codec: ffv1\nmask: \(mask)\nbackground: \"color:#000000\"\ninvert: true\n".write(toFile: job, atomically: true, encoding: .utf8)
        let run = try runFxreplay(["render", "--job", job, input, "-o", output, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        // Inverted: the left half shows the (black) background, the right half the picture.
        let source = try decodePictures(input), rendered = try decodePictures(output)
        let inverted = (0..<1024).map { $0 % 32 < 16 ? UInt8(0) : 255 }
        for (fg, out) in zip(source, rendered) {
            let check = blendMismatches(fg, out, mask: inverted, background: bt601Limited(red: 0, green: 0, blue: 0))
            #expect(check.kept == 0 && check.replaced == 0 && check.blended == 0, "\(check)")
        }
    }

    @Test func badBackgroundOptionsAreUsageErrors() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mkv").path
        try writeLosslessVideo(input, width: 32, height: 32, frames: 1)
        let output = dir.appendingPathComponent("out.mkv").path
        for flags in [["--background", "blur:3"], ["--mask", "m.mkv", "--background", "beach.jpg"],
                      ["--mask", "m.mkv", "--background", "blur:0"], ["--mask", "m.mkv", "--background", "color:red"],
                      ["--mask", "m.mkv", "--background", "blur:3", "--threshold", "300"],
                      ["--mask", "m.mkv", "--background", "blur:3", "--background-fit", "fill"],
                      ["--mask", "m.mkv", "--background", "blur:3", "--letterbox-color", "#12345"],
                      ["--mask", "m.mkv", "--background", "blur:3", "--mask-expand", "2", "--mask-shrink", "2"],
                      ["--mask", "m.mkv", "--background", "blur:3", "--mask-smooth", "0"],
                      ["--mask", "m.mkv", "--background", "blur:3", "--premultiply"],
                      ["--mask", "m.mkv", "--background", "blur:3", "--missing-mask", "ignore"],
                      ["--feather", "3"]] {
            let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"] + flags)
            #expect(run.status == 2, "\(flags): \(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["in.mkv"])
    }
}
