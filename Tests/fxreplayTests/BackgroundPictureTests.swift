import FxTestSupport
import Foundation
import Testing
@testable import ReplayKitless

/// Image, blur and video backgrounds through `fxreplay render`, with an all-background mask so the
/// output is the background itself.
@Suite struct BackgroundPictureTests {
    /// Renders a 160×96 lossless clip whose every pixel is replaced by `background` (extra flags appended).
    func renderBackground(_ dir: URL, _ background: String, frames: Int = 2, size: (Int, Int) = (160, 96),
                          content: PictureContent = variedContent, _ flags: [String] = []) throws -> (source: [DecodedPicture], output: [DecodedPicture], report: [String: Int]) {
        let input = dir.appendingPathComponent("in.mkv").path
        let mask = dir.appendingPathComponent("nothing.png").path
        let output = dir.appendingPathComponent("out-\(UUID().uuidString).mkv").path
        let reportPath = dir.appendingPathComponent("report.json").path
        try writeLosslessVideo(input, width: size.0, height: size.1, frames: frames, content: content)
        try writeRawImage(mask, width: 16, height: 16, pixelFormat: "gray", bytes: Array(repeating: 0, count: 256))
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--mask", mask, "--background", background,
                                   "--progress", "none", "--overwrite", "--report", reportPath] + flags)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
        return (try decodePictures(input), try decodePictures(output),
                ((report?["effects"] as? [String: Any])?["background"] as? [String: Int]) ?? [:])
    }

    /// A 120×40 picture: green left third, grey middle, blue right third.
    func writeThirds(_ path: String) throws {
        let pixels = (0..<(120 * 40)).flatMap { i -> [UInt8] in
            let x = i % 120
            return x < 40 ? [0, 255, 0] : x < 80 ? [128, 128, 128] : [0, 0, 255]
        }
        try writeRawImage(path, width: 120, height: 40, pixelFormat: "rgb24", bytes: pixels)
    }

    /// Which known colour pixel (x, y) shows (BT.601 limited, within `tolerance`).
    func colourName(_ picture: DecodedPicture, _ x: Int, _ y: Int, tolerance: Int = 3) -> String {
        let chroma = (y / 2) * ((picture.width + 1) / 2) + x / 2
        let sample = (Int(picture.y[y * picture.width + x]), Int(picture.cb[chroma]), Int(picture.cr[chroma]))
        let known: [(String, (Double, Double, Double))] = [("green", (0, 255, 0)), ("grey", (128, 128, 128)), ("blue", (0, 0, 255)), ("red", (255, 0, 0))]
        for (name, rgb) in known {
            let expected = bt601Limited(red: rgb.0, green: rgb.1, blue: rgb.2)
            if abs(Int(expected.y) - sample.0) <= tolerance && abs(Int(expected.cb) - sample.1) <= tolerance
                && abs(Int(expected.cr) - sample.2) <= tolerance { return name }
        }
        return "\(sample)"
    }

    @Test func imageBackgroundsCoverContainOrStretch() throws {
        let dir = try makeScratchDirectory()
        let picture = dir.appendingPathComponent("thirds.png").path
        try writeThirds(picture)
        // Cover: 67 picture columns from 26 fill the width; green ends at x ≈ 33, blue starts at 129.
        let cover = try renderBackground(dir, "image:\(picture)").output
        for frame in cover {
            for y in [0, 48, 95] {
                #expect(colourName(frame, 20, y) == "green" && colourName(frame, 45, y) == "grey")
                #expect(colourName(frame, 122, y) == "grey" && colourName(frame, 140, y) == "blue")
            }
        }
        // Stretch: thirds of the width, no bars.
        let stretch = try renderBackground(dir, "image:\(picture)", ["--background-fit", "stretch"]).output[0]
        #expect(colourName(stretch, 45, 0) == "green" && colourName(stretch, 80, 95) == "grey" && colourName(stretch, 115, 48) == "blue")
        // Contain: the picture is 53 rows high from row 21; the bars are red.
        let contain = try renderBackground(dir, "image:\(picture)", ["--background-fit", "contain", "--letterbox-color", "#FF0000"]).output[0]
        for x in [0, 45, 80, 159] {
            #expect(colourName(contain, x, 4) == "red" && colourName(contain, x, 90) == "red")
            #expect(abs(Int(contain.y[20 * 160 + x]) - 81) <= 1 && abs(Int(contain.y[74 * 160 + x]) - 81) <= 1)
        }
        #expect(colourName(contain, 45, 48) == "green" && colourName(contain, 80, 48) == "grey" && colourName(contain, 150, 48) == "blue")
    }

    /// Contain bars are exactly their colour right up to the picture, and the picture's colour
    /// reaches its edge: the chroma filter rings across the boundary no more. A chroma sample
    /// half over each (an odd offset) is their mean.
    @Test func containBarsMeetThePictureWithoutBleeding() throws {
        let dir = try makeScratchDirectory()
        let red = bt601Limited(red: 255, green: 0, blue: 0)
        // Uniform green pictures on the 160×96 frame: bars above and below (even and odd offsets), or at the sides.
        let cases: [(picture: (Int, Int), rows: Range<Int>, columns: Range<Int>)] = [
            ((80, 40), 8..<88, 0..<160), ((120, 40), 21..<74, 0..<160), ((30, 40), 0..<96, 44..<116)]
        for (index, (picture, rows, columns)) in cases.enumerated() {
            let path = dir.appendingPathComponent("green\(index).png").path
            try writeRawImage(path, width: picture.0, height: picture.1, pixelFormat: "rgb24",
                              bytes: Array(repeatElement([UInt8](arrayLiteral: 0, 255, 0), count: picture.0 * picture.1).joined()))
            let frame = try renderBackground(dir, "image:\(path)", ["--background-fit", "contain", "--letterbox-color", "#FF0000"]).output[0]
            // The picture's own colour, from its centre.
            let green = (y: frame.y[48 * 160 + 80], cb: frame.cb[24 * 80 + 40], cr: frame.cr[24 * 80 + 40])
            #expect(abs(Int(green.y) - Int(bt601Limited(red: 0, green: 255, blue: 0).y)) <= 1)
            var wrong: [String] = []
            for y in 0..<96 {
                for x in 0..<160 where frame.y[y * 160 + x] != (rows.contains(y) && columns.contains(x) ? green.y : red.y) {
                    wrong.append("Y(\(x),\(y))=\(frame.y[y * 160 + x])")
                }
            }
            for chromaY in 0..<48 {
                for chromaX in 0..<80 {
                    // How many of the sample's 2×2 luma samples show the picture.
                    let inside = (2 * chromaY..<2 * chromaY + 2).clamped(to: rows).count * (2 * chromaX..<2 * chromaX + 2).clamped(to: columns).count
                    let at = chromaY * 80 + chromaX
                    for (value, bar, own, plane) in [(frame.cb[at], red.cb, green.cb, "Cb"), (frame.cr[at], red.cr, green.cr, "Cr")] {
                        let expected = (Int(own) * inside + Int(bar) * (4 - inside)) / 4
                        if abs(Int(value) - expected) > (inside == 2 ? 1 : 0) { wrong.append("\(plane)(\(chromaX),\(chromaY))=\(value)") }
                    }
                }
            }
            #expect(wrong.isEmpty, "\(picture): \(wrong.count) samples, first \(wrong.prefix(8))")
        }
    }

    @Test func aJPEGInItsOwnColourSpaceLandsInTheFramesColours() throws {
        let dir = try makeScratchDirectory()
        let png = dir.appendingPathComponent("thirds.png").path
        let jpeg = dir.appendingPathComponent("thirds.jpg").path
        try writeThirds(png)
        try runFFmpegCLI(["-i", png, "-q:v", "1", jpeg])  // full-range BT.601 Y'CbCr (yuvj)
        let frame = try renderBackground(dir, "image:\(jpeg)").output[0]
        for y in [10, 48, 85] {
            #expect(colourName(frame, 10, y, tolerance: 8) == "green")
            #expect(colourName(frame, 80, y, tolerance: 8) == "grey")
            #expect(colourName(frame, 150, y, tolerance: 8) == "blue")
        }
    }

    @Test func blurBackgroundIsAGaussianOfTheFrame() throws {
        let dir = try makeScratchDirectory()
        // 16-pixel squares of luma 40 and 200: sharp edges everywhere, the frame's edges included.
        let squares: PictureContent = { x, y, _ in ((x / 16 + y / 16) % 2 == 0 ? 200 : 40, 128, 128) }
        for sigma in [1.5, 6.0] {
            let result = try renderBackground(dir, "blur:\(sigma)", size: (64, 48), content: squares)
            let reference = gaussianReference(result.source[0].y, width: 64, height: 48, sigma: sigma)
            let errors = zip(result.output[0].y, reference).map { abs(Double($0) - $1) }
            #expect(errors.max()! <= 3, "σ \(sigma): max error \(errors.max()!)")
            #expect(errors.reduce(0, +) / Double(errors.count) <= 1, "σ \(sigma): mean error")
            #expect(Set(result.output[0].cb) == [128] && Set(result.output[0].cr) == [128])
        }
    }

    @Test func rotatedBackgroundVideosAreTurnedUpright() throws {
        let dir = try makeScratchDirectory()
        // Stored 96×48, left half luma 60, right half 200; shown turned 90° clockwise: top half 60, bottom 200.
        // MP4 keeps the rotation (FFmpeg 5.1 writes none to Matroska); H.264 at CRF 0 is lossless.
        let video = dir.appendingPathComponent("portrait.mp4").path
        var settings = EncoderSettings()
        settings.preset = "ultrafast"
        settings.crf = 0
        let writer = try MediaWriter(path: video, video: .init(size: PictureSize(width: 96, height: 48), timeBase: Rational(1, 30),
                                                               encoder: settings, rotation: 90))
        for index in 0..<2 {
            try writer.addVideoFrame(pts: Int64(index), duration: 1) { image in
                image.fill(YUVColor(y: 200, cb: 128, cr: 128))
                for y in 0..<48 { for x in 0..<48 { image.luma[x, y] = 60 } }
            }
        }
        try writer.finish()
        let frame = try renderBackground(dir, "video:\(video)", ["--background-fit", "stretch"]).output[0]
        for x in [0, 80, 159] {
            #expect(frame.y[10 * 160 + x] == 60 && frame.y[40 * 160 + x] == 60, "x \(x)")
            #expect(frame.y[56 * 160 + x] == 200 && frame.y[90 * 160 + x] == 200, "x \(x)")
        }
    }

    /// A photo stored sideways with EXIF Orientation 6 (turn 90° clockwise to show) is used upright.
    @Test func photosAreTurnedByTheirEXIFOrientation() throws {
        let dir = try makeScratchDirectory()
        // Stored 96×48, left half dark, right half light: shown, the top half is dark.
        let plain = dir.appendingPathComponent("plain.jpg").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "color=c=0x3C3C3C:s=48x48,pad=96:48:0:0:0xC8C8C8", "-frames:v", "1",
                                              "-q:v", "1", plain]).status == 0)
        // APP1 "Exif": big-endian TIFF header, one IFD entry: Orientation (0x0112), SHORT, 1 value, 6.
        let exif: [UInt8] = [0xFF, 0xE1, 0x00, 0x22] + Array("Exif".utf8) + [0, 0, 0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0x00, 0x01,
                                                                            0x01, 0x12, 0x00, 0x03, 0, 0, 0, 1, 0x00, 0x06, 0, 0, 0, 0, 0, 0]
        let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        let photo = dir.appendingPathComponent("photo.jpg").path
        try Data(jpeg.prefix(2) + exif + jpeg.dropFirst(2)).write(to: URL(fileURLWithPath: photo))
        let frame = try renderBackground(dir, "image:\(photo)", ["--background-fit", "stretch"]).output[0]
        for x in [0, 80, 159] {
            #expect(abs(Int(frame.y[10 * 160 + x]) - 66) <= 4 && abs(Int(frame.y[40 * 160 + x]) - 66) <= 4, "x \(x): \(frame.y[10 * 160 + x])")
            #expect(abs(Int(frame.y[56 * 160 + x]) - 188) <= 4 && abs(Int(frame.y[90 * 160 + x]) - 188) <= 4, "x \(x): \(frame.y[90 * 160 + x])")
        }
    }

    @Test func videoBackgroundsLoopAndPairByTime() throws {
        let dir = try makeScratchDirectory()
        // Four 10 fps pictures of luma 30, 90, 150, 210: 0.4 s per pass under 1 s of 30 fps video.
        let video = dir.appendingPathComponent("bg.mkv").path
        try writeLosslessVideo(video, width: 160, height: 96, frames: 4, timestamps: (0..<4).map { Int64($0) * 9000 },
                               content: { _, _, index in (UInt8(30 + 60 * index), 128, 128) })
        let result = try renderBackground(dir, "video:\(video)", frames: 30)
        #expect(result.output.count == 30)
        let shown = result.output.map { Set($0.y) }
        let expected = (0..<30).map { k in Set([UInt8(30 + 60 * ((k % 12) / 3))]) }
        #expect(shown == expected)
        #expect(result.report["backgroundLoops"] == 2)
    }
}

/// Direct separable Gaussian convolution in Double (kernel out to 5σ, edges clamped): an
/// independent reference for the blur background.
func gaussianReference(_ values: [UInt8], width: Int, height: Int, sigma: Double) -> [Double] {
    let radius = Int((5 * sigma).rounded(.up))
    let raw = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
    let total = raw.reduce(0, +)
    let kernel = raw.map { $0 / total }
    func convolve(_ input: [Double], horizontal: Bool) -> [Double] {
        (0..<(width * height)).map { index in
            let x = index % width, y = index / width
            return kernel.enumerated().reduce(0) { sum, tap in
                let offset = tap.offset - radius
                let sx = horizontal ? min(max(x + offset, 0), width - 1) : x
                let sy = horizontal ? y : min(max(y + offset, 0), height - 1)
                return sum + tap.element * input[sy * width + sx]
            }
        }
    }
    return convolve(convolve(values.map(Double.init), horizontal: true), horizontal: false)
}
