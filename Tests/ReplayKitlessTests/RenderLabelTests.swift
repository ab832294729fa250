import Foundation
import Testing
@testable import ReplayKitless

@Suite struct RenderLabelTests {
    @Test(arguments: [ChromaSubsampling.yuv444, .yuv420])
    func labelDrawsWhiteTextOnADarkPlateUpAndRightOfTheAnchor(subsampling: ChromaSubsampling) throws {
        let eye = HandCamera(position: [0.2, 1.4, 0.8], pitch: -0.2, yaw: 0.3, roll: 0, width: 320, height: 240)
        // The anchor projects to u = 160 − 207.85·0.3/2 ≈ 128.8, v = 120 + 207.85·0.1/2 ≈ 130.4.
        let (u, v) = (160 - 207.846 * 0.3 / 2, 120 + 207.846 * 0.1 / 2)
        let grey = YUVColor(y: 126, cb: 128, cr: 128)
        let frame = TestFrame(subsampling: subsampling, background: grey)
        var annotation = placed(.sphere, size: 0.02, at: eye.world([-0.3, -0.1, -2]), color: "#FF0000", label: "Hello")
        annotation.annotation.labelSize = 20
        try render([annotation], eye, into: frame)

        var white: [(x: Int, y: Int)] = [], dark: [(x: Int, y: Int)] = []
        for y in 0..<240 {
            for x in 0..<320 {
                if frame.image.luma[x, y] > 200 { white.append((x, y)) }
                if frame.image.luma[x, y] < 80 { dark.append((x, y)) }
            }
        }
        // "Hello" at 20 px: five glyphs, roughly 55 px wide and 15 px tall, all in the quadrant
        // right of and above the anchor, within a few label heights of it.
        #expect(white.count > 40)
        #expect(white.allSatisfy { Double($0.x) > u && Double($0.x) < u + 100 && Double($0.y) < v && Double($0.y) > v - 45 })
        #expect(Set(white.map(\.x)).count > 30, "text runs along a line")
        // The plate: dark (Y' ≈ 126 − 0.7·(126 − 40) ≈ 66) around the text, a larger area than the glyphs.
        #expect(dark.count > white.count)
        #expect(dark.allSatisfy { Double($0.x) > u - 3 && Double($0.y) < v + 3 })
        // White text is neutral: no tint in chroma where the luma is brightest.
        let brightest = try #require(white.max { frame.image.luma[$0.x, $0.y] < frame.image.luma[$1.x, $1.y] })
        let chroma = (brightest.x >> subsampling.shiftX, brightest.y >> subsampling.shiftY)
        #expect(abs(Int(frame.image.cb[chroma.0, chroma.1]) - 128) <= 2 && abs(Int(frame.image.cr[chroma.0, chroma.1]) - 128) <= 2)
    }

    @Test func labelsOfAnchorsBehindTheCameraAreNotDrawn() throws {
        let eye = HandCamera(position: [0, 1, 0], pitch: 0, yaw: 0, roll: 0, width: 160, height: 120)
        let frame = TestFrame(width: 160, height: 120, background: YUVColor(y: 126, cb: 128, cr: 128))
        try render([placed(.sphere, size: 0.1, at: eye.world([0, 0, 1]), label: "Behind")], eye, into: frame)
        #expect(frame.changed.isEmpty)
    }

    @Test func aMissingFontIsBadInputNamingIt() throws {
        let eye = HandCamera(position: [0, 1, 0], pitch: 0, yaw: 0, roll: 0, width: 160, height: 120)
        let frame = TestFrame(width: 160, height: 120)
        let options = AnnotationRenderer.Options(fontPath: "/nonexistent/font.ttf")
        do {
            try render([placed(.sphere, size: 0.1, at: eye.world([0, 0, -1]), label: "x")], eye, into: frame, options: options)
            Issue.record("rendered without a font")
        } catch let error as ReplayError {
            #expect(error.kind == .badInput && error.message.hasPrefix("/nonexistent/font.ttf:"))
        }
        // Without labels no font is needed.
        try render([placed(.sphere, size: 0.1, at: eye.world([0, 0, -1]))], eye, into: frame, options: options)
    }

    @Test func glyphsAreRasterizedOncePerSizeAndCodePoint() throws {
        let cache = try GlyphCache(path: AnnotationRenderer.Options.defaultFontPath)
        let a = cache.glyph(UInt32(("A" as Unicode.Scalar).value), size: 20)
        // A capital A at 20 px/em in DejaVu Sans: about 14 px wide and 15 px tall, sitting on the baseline.
        #expect((11...16).contains(a.width) && (13...16).contains(a.rows) && a.top == a.rows)
        #expect(a.coverage.count == a.width * a.rows && a.coverage.contains(255))
        let bigger = cache.glyph(UInt32(("A" as Unicode.Scalar).value), size: 40)
        #expect(bigger.rows >= 2 * a.rows - 2)
        #expect(cache.rasterizedCount == 2)
        let again = cache.glyph(UInt32(("A" as Unicode.Scalar).value), size: 20)
        #expect(again.coverage == a.coverage && cache.rasterizedCount == 2)
    }
}
