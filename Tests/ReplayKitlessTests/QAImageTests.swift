import Foundation
import Testing
@testable import ReplayKitless

/// PNG output, colour conversion, placement markers, the heat map of `compare --diff`, and the overlay effect.
@Suite struct QAImageTests {
    /// The pixels of a picture file as packed rgb24, decoded by the ffmpeg CLI.
    static func decodedRGB(_ path: String, in directory: URL) throws -> [UInt8] {
        let raw = directory.appendingPathComponent("decoded.rgb").path
        #expect(try runFFmpeg(["-y", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", raw]).status == 0)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
    }

    @Test func pngRoundTripIsLossless() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var random = FixtureRandom(seed: 7)
        var picture = RGBPicture(width: 37, height: 23)
        for index in picture.pixels.indices { picture.pixels[index] = random.next() }
        let path = directory.appendingPathComponent("noise.png").path
        try ImageWriter.png(picture).write(to: URL(fileURLWithPath: path))

        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(try Self.decodedRGB(path, in: directory) == picture.pixels)
        let frame = try #require(try VideoFrameReader(url: path).next())
        #expect(frame.width == 37 && frame.height == 23)
    }

    @Test func pasteClipsToThePicture() {
        var canvas = RGBPicture(width: 4, height: 3)
        var patch = RGBPicture(width: 2, height: 2)
        patch.pixels = [UInt8](repeating: 9, count: 12)
        canvas.paste(patch, x: 3, y: -1)
        #expect(canvas[3, 0] == (9, 9, 9) && canvas[2, 0] == (0, 0, 0) && canvas[3, 1] == (0, 0, 0))
    }

    /// Y'CbCr → R'G'B' by the textbook inverse with each matrix's Kr, Kb, in both ranges.
    @Test(arguments: [(ColorSpace.Matrix.bt601, 0.299, 0.114), (.bt709, 0.2126, 0.0722)], [false, true])
    func conversionUsesThePicturesColourSpace(matrix: (ColorSpace.Matrix, Double, Double), fullRange: Bool) throws {
        let (name, kr, kb) = matrix
        let space = ColorSpace(matrix: name, fullRange: fullRange)
        let buffer = PlanarBuffer(width: 16, height: 16, colorSpace: space)
        let sample = YUVColor(y: 120, cb: 90, cr: 190)
        buffer.image.fill(sample)
        let rgb = try ImageWriter.rgb(buffer.image)
        let y = fullRange ? Double(sample.y) / 255 : (Double(sample.y) - 16) / 219
        let pb = (Double(sample.cb) - 128) / (fullRange ? 255 : 224), pr = (Double(sample.cr) - 128) / (fullRange ? 255 : 224)
        let r = y + 2 * (1 - kr) * pr, b = y + 2 * (1 - kb) * pb
        let g = (y - kr * r - kb * b) / (1 - kr - kb)
        let expected = [r, g, b].map { Int((max(0, min(1, $0)) * 255).rounded()) }
        let pixel = rgb[8, 8]
        for (value, wanted) in zip([pixel.red, pixel.green, pixel.blue], expected) {
            #expect(abs(Int(value) - wanted) <= 2, "\(name) full \(fullRange): \(pixel) vs \(expected)")
        }
    }

    @Test func scalesToTheRequestedWidth() throws {
        let buffer = PlanarBuffer(width: 640, height: 360)
        buffer.image.fill(YUVColor(y: 16, cb: 128, cr: 128))
        let small = try ImageWriter.rgb(buffer.image, width: 320)
        #expect(small.width == 320 && small.height == 180 && small.pixels.allSatisfy { $0 <= 1 })
    }

    /// A marker at (20, 20), radius 6, line 2, over a black outline 1 px wider each side: sample centres
    /// (i + 0.5, j + 0.5) decide, by hand.
    @Test func markerCoversRingAndCross() {
        let buffer = PlanarBuffer(width: 64, height: 48, colorSpace: .bt601Limited)
        let grey = YUVColor(y: 126, cb: 128, cr: 128)
        buffer.image.fill(grey)
        let red = RGBAColor(red: 255, green: 59, blue: 48)
        MarkerStyle(color: red, radius: 6, thickness: 2).draw(at: 20, 20, in: buffer.image)
        let fill = buffer.image.colorSpace.yuv(red: 255, green: 59, blue: 48)
        let luma = buffer.image.luma
        #expect(luma[19, 19] == fill.y && luma[20, 20] == fill.y)          // cross centre
        #expect(luma[25, 19] == fill.y)                                    // arm: |dx| 5.5 ≤ 6, |dy| 0.5 ≤ 1
        #expect(luma[26, 19] == fill.y)                                    // ring: |√(6.5² + 0.5²) − 6| = 0.52 ≤ 1
        #expect(luma[23, 23] == 16)                                        // outline: |4.95 − 6| = 1.05 ≤ 2, > 1
        #expect(luma[22, 22] == grey.y)                                    // inside: |3.54 − 6| > 2, off the arms
        #expect(luma[50, 40] == grey.y && luma[29, 20] == grey.y)          // outside: |9.5 − 6| > 2
        // The chroma sample (10, 10) covers luma (20…21, 20…21), centre (21, 21): on the cross.
        #expect(buffer.image.cr[10, 10] == fill.cr && buffer.image.cb[10, 10] == fill.cb)
        #expect(buffer.image.cr[24, 20] == grey.cr)
    }

    @Test func markersOffThePictureDrawNothing() {
        let buffer = PlanarBuffer(width: 32, height: 32)
        buffer.image.fill(YUVColor(y: 50, cb: 60, cr: 70))
        let style = MarkerStyle.sized(for: 32, color: MarkerStyle.trackColor(0))
        for (x, y) in [(1e300, 5.0), (-1e12, -1e12), (.nan, 3), (5, .infinity), (-20, 16), (60, 16)] {
            style.draw(at: x, y, in: buffer.image)
        }
        #expect(rawBytes(buffer.image).allSatisfy { $0 == 50 || $0 == 60 || $0 == 70 })
    }

    /// d = |ΔY|: s = min(8d, 510), red = min(s, 255), green = s − red.
    @Test func heatMapOfTheLumaDifference() throws {
        let a = makePicture(width: 8, height: 8) { plane, x, _ in plane == 0 ? 100 : 128 }
        let b = makePicture(width: 8, height: 8) { plane, x, _ in plane == 0 ? UInt8(100 + [0, 4, 40, 100, 20, 0, 0, 0][x]) : 128 }
        let picture = try DiffPicture.sideBySide(a.image, b.image)
        #expect(picture.width == 24 && picture.height == 8)
        let heat = (0..<5).map { picture[16 + $0, 3] }
        #expect(heat.map(\.red) == [0, 32, 255, 255, 160] && heat.map(\.green) == [0, 0, 65, 255, 0] && heat.allSatisfy { $0.blue == 0 })
        // A and B are the pictures themselves: grey 100 → (100 − 16)·255/219 = 97.8.
        #expect(abs(Int(picture[2, 2].red) - 98) <= 1 && abs(Int(picture[8, 2].green) - 98) <= 1)
    }

    @Test func overlayDrawsTheRowsOfEachFrameIndex() throws {
        let rows = (0..<4).map { PlacementRow(frame: $0, t: Double($0) / 30, id: "a", visible: $0 != 2, x: 16, y: 16, depth: 2) }
        let overlay = PlacementOverlay(tracks: [PlacementTrack(file: "a.csv", rows: rows)])
        let buffer = PlanarBuffer(width: 32, height: 32, colorSpace: .bt601Limited)
        let expected = buffer.image.colorSpace.yuv(red: 255, green: 59, blue: 48).y
        for index in 0..<5 {
            buffer.image.fill(YUVColor(y: 50, cb: 128, cr: 128))
            try overlay.apply(to: buffer.image, at: FrameTime(index: index, pts: Int64(index), seconds: 0, streamSeconds: 0, duration: 0))
            // Drawn on frames 0, 1 and 3: frame 2's row is not visible, frame 4 has none.
            #expect((buffer.image.luma[16, 16] == expected) == [0, 1, 3].contains(index), "frame \(index)")
        }
        #expect(overlay.reportLines() == ["track 1 markers": 3])
    }

    @Test func thumbnailFramesWorstFirstEachFrameOnce() throws {
        func rows(_ errors: [Double], id: String, shift: Bool) -> [PlacementRow] {
            errors.enumerated().map { PlacementRow(frame: $0.offset, t: Double($0.offset) / 30, id: id, visible: true,
                                                   x: shift ? $0.element : 0, y: 0, depth: 1) }
        }
        let a = PlacementTrack(file: "a.csv", rows: rows([0, 0, 0, 0], id: "p", shift: false) + rows([0, 0, 0, 0], id: "q", shift: false))
        let b = PlacementTrack(file: "b.csv", rows: rows([1, 7, 2, 0], id: "p", shift: true) + rows([0, 3, 9, 9], id: "q", shift: true))
        let report = TrackComparisonReport(comparing: a, with: b)
        let frames = report.thumbnailFrames(limit: 5)
        // q's worst (9 px, frame 2; the first of the tie) before p's (7 px, frame 1).
        #expect(frames.map(\.frame.frame) == [2, 1])
        #expect(frames[0].label.hasPrefix("q: worst error 9.00 px, frame 2"))
        #expect(report.thumbnailFrames(limit: 1).count == 1)
    }
}
