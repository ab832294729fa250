import FxTestSupport
import Foundation
import Testing
@testable import ReplayKitless

/// `--background transparent` (the mask becomes the output's alpha) and `--mask alpha` (the input's alpha is the mask).
@Suite struct BackgroundAlphaTests {
    /// A 64×48 lossless clip and a still mask with a ramp, a foreground block and a background block.
    func fixture(_ dir: URL, frames: Int = 3) throws -> (input: String, mask: String, values: [UInt8]) {
        let input = dir.appendingPathComponent("in.mkv").path
        let mask = dir.appendingPathComponent("mask.png").path
        try writeLosslessVideo(input, width: 64, height: 48, frames: frames)
        let values: [UInt8] = (0..<(64 * 48)).map { i in
            let x = i % 64, y = i / 64
            return y < 16 ? UInt8(4 * x + y % 4) : y < 32 ? (x < 32 ? 255 : 0) : UInt8(255 - 3 * x)
        }
        try writeRawImage(mask, width: 64, height: 48, pixelFormat: "gray", bytes: values)
        return (input, mask, values)
    }

    func render(_ arguments: [String]) throws -> RunResult {
        try runFxreplay(["render"] + arguments + ["--progress", "none"])
    }

    @Test func ffv1CarriesTheMaskAsAlphaExactlyWithStraightColour() throws {
        let dir = try makeScratchDirectory()
        let (input, mask, values) = try fixture(dir)
        let output = dir.appendingPathComponent("alpha.mkv").path
        let run = try render([input, "-o", output, "--mask", mask, "--background", "transparent"])
        #expect(run.status == 0, "\(run.stderr)")
        let source = try decodePictures(input), rendered = try decodePictures(output)
        #expect(rendered.count == 3)
        for (fg, out) in zip(source, rendered) {
            #expect(out.pixelFormat == "yuva420p")
            #expect(out.alpha == values)
            #expect(out.y == fg.y && out.cb == fg.cb && out.cr == fg.cr)
        }
    }

    @Test func premultipliedColourIsScaledTowardsBlackAndNeutralChroma() throws {
        let dir = try makeScratchDirectory()
        let (input, mask, values) = try fixture(dir, frames: 1)
        let output = dir.appendingPathComponent("premultiplied.mkv").path
        let run = try render([input, "-o", output, "--mask", mask, "--background", "transparent", "--premultiply"])
        #expect(run.status == 0, "\(run.stderr)")
        let fg = try decodePictures(input)[0], out = try decodePictures(output)[0]
        #expect(out.alpha == values)
        // Premultiplying over black is blending with black (Y' 16, Cb = Cr = 128): the same ±1 check.
        let check = blendMismatches(fg, out, mask: values, background: (16, 128, 128))
        #expect(check.kept == 0 && check.replaced == 0 && check.blended == 0, "\(check)")
    }

    @Test func proRes4444AndVP9CarryTheMaskAsAlpha() throws {
        let dir = try makeScratchDirectory()
        let (input, mask, values) = try fixture(dir, frames: 4)
        for (name, maxError, meanError) in [("alpha.mov", 1.0, 0.5), ("alpha.webm", 24.0, 3.0)] {
            let output = dir.appendingPathComponent(name).path
            let reportPath = dir.appendingPathComponent("\(name).json").path
            let run = try render([input, "-o", output, "--mask", mask, "--background", "transparent", "--report", reportPath])
            #expect(run.status == 0, "\(run.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
            let properties = report?["output"] as? [String: Any]
            #expect(properties?["pixelFormat"] as? String == (name.hasSuffix(".mov") ? "yuva444p10le" : "yuva420p"))
            let rendered = try decodePictures(output)
            #expect(rendered.count == 4)
            for picture in rendered {
                guard let alpha = picture.alpha else {
                    Issue.record("\(name): decoded without alpha (\(picture.pixelFormat))")
                    continue
                }
                let errors = zip(alpha, values).map { abs(Double($0) - Double($1)) }
                #expect(errors.max()! <= maxError && errors.reduce(0, +) / Double(errors.count) <= meanError,
                        "\(name): alpha max error \(errors.max()!), mean \(errors.reduce(0, +) / Double(errors.count))")
            }
        }
        // FFmpeg's native VP9 decoder drops the alpha WebM keeps beside the picture: the stream is
        // tagged, so fxreplay decodes it with libvpx.
        let demuxer = try Demuxer(url: dir.appendingPathComponent("alpha.webm").path)
        #expect(BackgroundReplacement.hasAlpha(demuxer.stream(demuxer.bestVideoStream!.index)))
    }

    @Test(arguments: ["mkv", "webm"])
    func theInputsOwnAlphaIsTheMask(_ container: String) throws {
        let dir = try makeScratchDirectory()
        let (input, mask, values) = try fixture(dir, frames: 2)
        let withAlpha = dir.appendingPathComponent("with-alpha.\(container)").path
        #expect(try render([input, "-o", withAlpha, "--mask", mask, "--background", "transparent"]).status == 0)
        let output = dir.appendingPathComponent("replaced.mkv").path
        let run = try render([withAlpha, "-o", output, "--codec", "ffv1", "--mask", "alpha", "--background", "color:#FF0000"])
        #expect(run.status == 0, "\(run.stderr)")
        let fg = try decodePictures(withAlpha), out = try decodePictures(output)
        #expect(out.count == 2 && out.allSatisfy { $0.pixelFormat == "yuv420p" && $0.alpha == nil })
        for (source, picture) in zip(fg, out) {
            let alpha = try #require(source.alpha)
            if container == "mkv" { #expect(alpha == values) }
            let check = blendMismatches(source, picture, mask: alpha, background: bt601Limited(red: 255, green: 0, blue: 0))
            #expect(check.kept == 0 && check.replaced == 0 && check.blended == 0, "\(container): \(check)")
        }
    }

    @Test func keptOriginalFramesAreOpaque() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mkv").path
        let masks = dir.appendingPathComponent("short.mkv").path
        try writeLosslessVideo(input, width: 32, height: 32, frames: 4)
        let output = dir.appendingPathComponent("out.mkv").path
        // Two masks for four frames: frames 2 and 3 keep their picture, so they must be opaque.
        try writeGreyVideo(masks, width: 32, height: 32, rate: "30", frames: [Array(repeating: 0, count: 1024), Array(repeating: 100, count: 1024)])
        let run = try render([input, "-o", output, "--mask", masks, "--background", "transparent", "--missing-mask", "keep-original"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try decodePictures(output).map { Set($0.alpha ?? []) } == [[0], [100], [255], [255]])
    }

    @Test func outputsThatCannotCarryAlphaAreRefused() throws {
        let dir = try makeScratchDirectory()
        let (input, mask, _) = try fixture(dir, frames: 1)
        for (output, flags) in [("out.mp4", []), ("out.mov", ["--codec", "h264"]), ("out.mkv", ["--codec", "hevc"]),
                                ("out.mp4", ["--codec", "vp9"]), ("out.mov", ["--preset", "standard"])] {
            let path = dir.appendingPathComponent(output).path
            let run = try render([input, "-o", path, "--mask", mask, "--background", "transparent"] + flags)
            #expect(run.status == 2, "\(output) \(flags): \(run.stderr)")
            #expect(run.stderr.contains("transparent"))
            let advice = run.stderr.contains("prores") && run.stderr.contains("vp9") && run.stderr.contains("ffv1")
            #expect(advice || flags.contains("vp9") && run.stderr.contains(".webm") || flags.contains("standard") && run.stderr.contains("4444"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["in.mkv", "mask.png"])
    }

    @Test func anInputWithoutAlphaCannotBeItsOwnMask() throws {
        let dir = try makeScratchDirectory()
        let (input, _, _) = try fixture(dir, frames: 1)
        let run = try render([input, "-o", dir.appendingPathComponent("out.mkv").path, "--mask", "alpha", "--background", "blur:3"])
        #expect(run.status == 3)
        #expect(run.stderr.contains("in.mkv") && run.stderr.contains("alpha"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["in.mkv", "mask.png"])
    }
}
