import CFFmpeg
import Foundation
import Testing
@testable import ReplayKitless

/// Background pictures: colour conversion into the frame's Y'CbCr and placement on the frame.
@Suite struct BackgroundFitterTests {
    /// R'G'B' → Y'CbCr by the textbook equations (Kr, Kb of the matrix), unrounded.
    static func yuv(_ rgb: (Double, Double, Double), kr: Double, kb: Double, full: Bool) -> (Double, Double, Double) {
        let r = rgb.0 / 255, g = rgb.1 / 255, b = rgb.2 / 255
        let y = kr * r + (1 - kr - kb) * g + kb * b
        let cb = (b - y) / (2 - 2 * kb), cr = (r - y) / (2 - 2 * kr)
        return full ? (255 * y, 128 + 255 * cb, 128 + 255 * cr) : (16 + 219 * y, 128 + 224 * cb, 128 + 224 * cr)
    }

    /// A uniform RGB picture of `width × height` as a decoded frame.
    static func rgbPicture(width: Int, height: Int, _ pixel: (Int, Int) -> (UInt8, UInt8, UInt8)) throws -> Frame {
        try BackgroundMaskExtractionTests.frame(AV_PIX_FMT_RGB24, width: width, height: height) { _, byte, y in
            let p = pixel(byte / 3, y)
            return [p.0, p.1, p.2][byte % 3]
        }
    }

    static let colours: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (0, 0, 0), (200, 120, 40)]

    @Test(arguments: [(ColorSpace.Matrix.bt709, false, 0.2126, 0.0722), (.bt709, true, 0.2126, 0.0722),
                      (.bt601, false, 0.299, 0.114), (.bt601, true, 0.299, 0.114)])
    func rgbPicturesAreConvertedWithTheFramesMatrixAndRange(matrix: ColorSpace.Matrix, full: Bool, kr: Double, kb: Double) throws {
        let space = ColorSpace(matrix: matrix, fullRange: full)
        for colour in Self.colours {
            let picture = try Self.rgbPicture(width: 32, height: 16) { _, _ in colour }
            let fitter = try PictureFitter(width: 16, height: 8, colorSpace: space, fit: .cover, barColor: RGBAColor(red: 0, green: 0, blue: 0))
            let image = try fitter.fit(picture, source: "test")
            let expected = Self.yuv((Double(colour.0), Double(colour.1), Double(colour.2)), kr: kr, kb: kb, full: full)
            #expect(abs(Double(image.luma[5, 3]) - expected.0) <= 1, "\(matrix) full \(full) \(colour): Y \(image.luma[5, 3]) vs \(expected.0)")
            #expect(abs(Double(image.cb[2, 1]) - expected.1) <= 1, "\(matrix) full \(full) \(colour): Cb \(image.cb[2, 1]) vs \(expected.1)")
            #expect(abs(Double(image.cr[2, 1]) - expected.2) <= 1, "\(matrix) full \(full) \(colour): Cr \(image.cr[2, 1]) vs \(expected.2)")
        }
    }

    @Test func yuvPicturesInAnotherColourSpaceAreConverted() throws {
        // A full-range BT.601 picture (a JPEG's yuvj420p) onto a limited-range BT.709 frame.
        let jpegSpace = (kr: 0.299, kb: 0.114)
        let colour = (200.0, 120.0, 40.0)
        let source = Self.yuv(colour, kr: jpegSpace.kr, kb: jpegSpace.kb, full: true)
        let picture = try BackgroundMaskExtractionTests.frame(AV_PIX_FMT_YUVJ420P, width: 16, height: 8) { index, _, _ in
            UInt8([source.0, source.1, source.2][index].rounded())
        }
        let fitter = try PictureFitter(width: 16, height: 8, colorSpace: .bt709Limited, fit: .stretch, barColor: RGBAColor(red: 0, green: 0, blue: 0))
        let image = try fitter.fit(picture, source: "test")
        let expected = Self.yuv(colour, kr: 0.2126, kb: 0.0722, full: false)
        #expect(abs(Double(image.luma[3, 3]) - expected.0) <= 2, "Y \(image.luma[3, 3]) vs \(expected.0)")
        #expect(abs(Double(image.cb[1, 1]) - expected.1) <= 2, "Cb \(image.cb[1, 1]) vs \(expected.1)")
        #expect(abs(Double(image.cr[1, 1]) - expected.2) <= 2, "Cr \(image.cr[1, 1]) vs \(expected.2)")
    }

    /// A 120×40 picture: green left third, grey middle, blue right third, on a 160×96 frame.
    static func thirds() throws -> Frame {
        try rgbPicture(width: 120, height: 40) { x, _ in x < 40 ? (0, 255, 0) : x < 80 ? (128, 128, 128) : (0, 0, 255) }
    }

    static func name(_ image: YUVImage, _ x: Int, _ y: Int) -> String {
        let luma = Int(image.luma[x, y]), cb = Int(image.cb[x / 2, y / 2]), cr = Int(image.cr[x / 2, y / 2])
        // BT.601 limited: green (145, 54, 34), grey (126, 128, 128), blue (41, 240, 110), red (81, 90, 240).
        let known = ["green": (145, 54, 34), "grey": (126, 128, 128), "blue": (41, 240, 110), "red": (81, 90, 240)]
        return known.first { abs($0.value.0 - luma) <= 3 && abs($0.value.1 - cb) <= 3 && abs($0.value.2 - cr) <= 3 }?.key
            ?? "(\(luma), \(cb), \(cr))"
    }

    @Test func coverScalesToTheHeightAndCropsTheSides() throws {
        let fitter = try PictureFitter(width: 160, height: 96, colorSpace: .bt601Limited, fit: .cover, barColor: RGBAColor(red: 255, green: 0, blue: 0))
        let image = try fitter.fit(try Self.thirds(), source: "test")
        // Scale 96/40 = 2.4; 160/2.4 = 66.7 → 67 picture columns from (120 − 67)/2 = 26: green ends at
        // (40 − 26) · 160/67 = 33.4, blue starts at (80 − 26) · 160/67 = 129.
        for y in [0, 1, 47, 94, 95] {
            #expect(Self.name(image, 2, y) == "green")
            #expect(Self.name(image, 25, y) == "green")
            #expect(Self.name(image, 40, y) == "grey")
            #expect(Self.name(image, 45, y) == "grey")
            #expect(Self.name(image, 122, y) == "grey")
            #expect(Self.name(image, 136, y) == "blue")
        }
    }

    @Test func stretchUsesTheWholePictureOnTheWholeFrame() throws {
        let fitter = try PictureFitter(width: 160, height: 96, colorSpace: .bt601Limited, fit: .stretch, barColor: RGBAColor(red: 255, green: 0, blue: 0))
        let image = try fitter.fit(try Self.thirds(), source: "test")
        // Thirds of 160: green below 53.3, blue from 106.7 (x = 45 is grey with cover).
        for y in [0, 48, 95] {
            #expect(Self.name(image, 45, y) == "green")
            #expect(Self.name(image, 60, y) == "grey")
            #expect(Self.name(image, 100, y) == "grey")
            #expect(Self.name(image, 115, y) == "blue")
        }
    }

    @Test func containLeavesBarsAtOddOffsetsInTheBarColour() throws {
        let fitter = try PictureFitter(width: 160, height: 96, colorSpace: .bt601Limited, fit: .contain, barColor: RGBAColor(red: 255, green: 0, blue: 0))
        let image = try fitter.fit(try Self.thirds(), source: "test")
        // Height 40 · 160/120 = 53.3 → 53 rows from (96 − 53)/2 = 21: bars are rows 0–20 and 74–95.
        for x in [0, 50, 80, 159] {
            // Chroma is subsampled with libswscale's filter, which reaches a few rows across the edge.
            for y in [0, 10, 16, 80, 95] { #expect(Self.name(image, x, y) == "red", "(\(x), \(y))") }
            #expect(abs(Int(image.luma[x, 20]) - 81) <= 1, "last bar row at x \(x): \(image.luma[x, 20])")
            #expect(abs(Int(image.luma[x, 74]) - 81) <= 1, "first lower bar row at x \(x): \(image.luma[x, 74])")
        }
        #expect(abs(Int(image.luma[10, 21]) - 145) <= 1 && abs(Int(image.luma[10, 73]) - 145) <= 1)
        #expect(Self.name(image, 10, 48) == "green" && Self.name(image, 80, 48) == "grey" && Self.name(image, 150, 48) == "blue")
    }

    @Test func containOfATallPictureLeavesSideBarsInTheBarColour() throws {
        // 60×120 grey on a 160×90 frame: width 60 · 90/120 = 45 from column (160 − 45)/2 = 57, so
        // columns 0–56 and 102–159 are bars. (libswscale writes whole SIMD blocks: a picture scaled
        // straight into the canvas spilled a few columns of its row padding into the right bar.)
        let picture = try Self.rgbPicture(width: 60, height: 120) { _, _ in (128, 128, 128) }
        let fitter = try PictureFitter(width: 160, height: 90, colorSpace: .bt601Limited, fit: .contain, barColor: RGBAColor(red: 255, green: 0, blue: 0))
        let image = try fitter.fit(picture, source: "test")
        let barLuma = Self.yuv((255, 0, 0), kr: 0.299, kb: 0.114, full: false).0
        let greyLuma = Self.yuv((128, 128, 128), kr: 0.299, kb: 0.114, full: false).0
        for y in [0, 30, 45, 89] {
            for x in Array(0...55) + Array(103...159) {
                #expect(abs(Double(image.luma[x, y]) - barLuma) <= 1, "bar (\(x), \(y)): \(image.luma[x, y])")
            }
            for x in 58...100 { #expect(abs(Double(image.luma[x, y]) - greyLuma) <= 1, "picture (\(x), \(y)): \(image.luma[x, y])") }
        }
        for y in [0, 20, 44] {
            for x in Array(0...25) + Array(53...79) { #expect(Self.name(image, 2 * x, 2 * y) == "red", "chroma (\(x), \(y))") }
        }
    }

    @Test func containOnATallFrameLeavesBarsAboveAndBelow() throws {
        // 120×40 on a 33×64 frame: width 33, height round(40 · 33/120) = 11 from row (64 − 11)/2 = 26.
        let fitter = try PictureFitter(width: 33, height: 64, colorSpace: .bt601Limited, fit: .contain, barColor: RGBAColor(red: 0, green: 0, blue: 255))
        let image = try fitter.fit(try Self.thirds(), source: "test")
        #expect(abs(Int(image.luma[16, 25]) - 41) <= 1 && abs(Int(image.luma[16, 37]) - 41) <= 1)
        #expect(abs(Int(image.luma[16, 26]) - 126) <= 2 && abs(Int(image.luma[16, 36]) - 126) <= 2)
    }
}
