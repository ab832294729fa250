import Testing
@testable import ReplayKitless

@Suite struct RenderCompositeTests {
    /// A layer with colour (Y' 200, Cb 60, Cr 200) at the given coverage per pixel, declared
    /// touched in `touching` (everywhere by default).
    func layer(width: Int, height: Int, touching: PixelBounds? = nil, coverage: (Int, Int) -> Float) -> RenderLayer {
        let layer = RenderLayer(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width { layer.texels[y * width + x] = [200, 60, 200, coverage(x, y)] }
        }
        layer.touch(touching ?? PixelBounds(minX: 0, minY: 0, maxX: width, maxY: height))
        return layer
    }

    @Test func chromaBlendsByTheMeanCoverageOfItsLumaSamples() {
        let frame = TestFrame(width: 4, height: 2, subsampling: .yuv420, background: YUVColor(y: 50, cb: 128, cr: 128))
        // Left column of the first 2×2 block covered, the second block untouched.
        let source = layer(width: 4, height: 2) { x, _ in x == 0 ? 1 : 0 }
        LayerCompositor.composite(source, opacity: 1, into: frame.image, occlusion: nil)
        #expect(frame.image.luma[0, 0] == 200 && frame.image.luma[0, 1] == 200)
        #expect(frame.image.luma[1, 0] == 50 && frame.image.luma[2, 0] == 50)
        // Half of the block covered: 128 + (60 − 128)/2 = 94 and 128 + (200 − 128)/2 = 164.
        #expect(frame.image.cb[0, 0] == 94 && frame.image.cr[0, 0] == 164)
        #expect(frame.image.cb[1, 0] == 128 && frame.image.cr[1, 0] == 128)
    }

    @Test func oddSizedFramesAverageOverTheSamplesThatExist() {
        // 3×3 in 4:2:0: the last chroma column and row cover 2 and 1 luma samples.
        let frame = TestFrame(width: 3, height: 3, subsampling: .yuv420, background: YUVColor(y: 50, cb: 128, cr: 128))
        let source = layer(width: 3, height: 3) { x, y in x == 2 && y == 2 ? 1 : 0 }
        LayerCompositor.composite(source, opacity: 1, into: frame.image, occlusion: nil)
        #expect(frame.image.cb[1, 1] == 60, "the corner chroma sample covers one luma sample, fully covered")
        #expect(frame.image.cb[0, 0] == 128 && frame.image.cb[1, 0] == 128 && frame.image.cb[0, 1] == 128)
    }

    @Test func opacityAndOcclusionScaleCoverage() {
        let frame = TestFrame(width: 2, height: 1, subsampling: .yuv444, background: YUVColor(y: 50, cb: 128, cr: 128))
        let mask = PlanarBuffer(width: 2, height: 1, subsampling: .yuv444)
        mask.image.luma[0, 0] = 0
        mask.image.luma[1, 0] = 153   // keeps (255 − 153)/255 = 0.4
        let source = layer(width: 2, height: 1) { _, _ in 1 }
        LayerCompositor.composite(source, opacity: 0.5, into: frame.image, occlusion: mask.image.luma)
        #expect(frame.image.luma[0, 0] == 125)   // 50 + 0.5·150
        #expect(frame.image.luma[1, 0] == 80)    // 50 + 0.2·150
        #expect(frame.image.cr[1, 0] == 142)     // 128 + 0.2·72 = 142.4
    }

    /// On a 4:2:0 opaque frame with nothing in front, whole 2×2 blocks take a vector path; a mask
    /// of zeros (which hides nothing) sends every sample through the per-sample path that the
    /// tests above check by hand. The two must agree byte for byte, over random frames and layers
    /// with coverage 0, 1 and between, colours to the edge of their range, and an odd size; large
    /// enough that arithmetic differing by an ulp would likely round one sample differently.
    @Test(arguments: [Float(1), 0.37, 0.8])
    func wholeBlocksBlendExactlyAsSampleBySample(opacity: Float) {
        let width = 513, height = 257
        var random = SplitMix(seed: 5)
        func unit() -> Float { Float(random.next() >> 40) / Float(1 << 24) }
        let source = RenderLayer(width: width, height: height)
        for i in 0..<(width * height) {
            let coverage: Float = switch random.next() % 4 { case 0: 0; case 1: 1; default: unit() }
            source.texels[i] = [255.5 * unit(), 255.5 * unit(), 255.5 * unit(), coverage]
        }
        source.touch(PixelBounds(minX: 3, minY: 1, maxX: width, maxY: height))
        let frames = (0..<2).map { _ in TestFrame(width: width, height: height, subsampling: .yuv420) }
        for plane in [\YUVImage.luma, \YUVImage.cb, \YUVImage.cr] {
            let bytes = random.bytes(frames[0].image[keyPath: plane].height * frames[0].image[keyPath: plane].width)
            for frame in frames {
                let target = frame.image[keyPath: plane]
                for y in 0..<target.height { for x in 0..<target.width { target[x, y] = bytes[y * target.width + x] } }
            }
        }
        let before = frames[0].bytes
        let nothingInFront = PlanarBuffer(width: width, height: height, subsampling: .yuv444)
        nothingInFront.image.luma.fill(0)
        LayerCompositor.composite(source, opacity: opacity, into: frames[0].image, occlusion: nil)
        LayerCompositor.composite(source, opacity: opacity, into: frames[1].image, occlusion: nothingInFront.image.luma)
        let changed = zip(before, frames[0].bytes).filter { $0 != $1 }.count
        #expect(changed > before.count / 2, "the layer changes most samples: \(changed) of \(before.count)")
        let differing = zip(frames[0].bytes, frames[1].bytes).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) samples differ between the two paths")
    }

    @Test func onATransparentFrameAlphaBecomesCoverageAndColourStaysStraight() {
        let frame = TestFrame(width: 2, height: 2, subsampling: .yuv420, background: YUVColor(y: 50, cb: 128, cr: 128), alpha: true)
        let alpha = frame.image.alpha!
        alpha.fill(0)
        let source = layer(width: 2, height: 2) { x, _ in x == 0 ? 0.5 : 0 }
        LayerCompositor.composite(source, opacity: 1, into: frame.image, occlusion: nil)
        #expect(alpha[0, 0] == 128 && alpha[1, 0] == 0)   // 0.5·255 = 127.5
        #expect(frame.image.luma[0, 0] == 200, "straight alpha: the colour itself, not mixed with hidden background")
        #expect(frame.image.luma[1, 0] == 50)
        #expect(frame.image.cb[0, 0] == 60 && frame.image.cr[0, 0] == 200)
    }

    @Test func touchedRunsAreWhatIsBlendedAndCleared() {
        // Drawn at x 1..<3 on row 0 and x 5 on row 3, declared touched exactly there.
        let drawnPixels: Set<[Int]> = [[1, 0], [2, 0], [5, 3]]
        let frame = TestFrame(width: 8, height: 4, subsampling: .yuv420, background: YUVColor(y: 50, cb: 128, cr: 128))
        let source = layer(width: 8, height: 4, touching: .empty) { x, y in drawnPixels.contains([x, y]) ? 1 : 0 }
        source.touch(row: 0, from: 1, to: 3)
        source.touch(row: 3, from: 5, to: 6)
        #expect(source.touched == PixelBounds(minX: 1, minY: 0, maxX: 6, maxY: 4))
        LayerCompositor.composite(source, opacity: 1, into: frame.image, occlusion: nil)
        var blended: Set<[Int]> = []
        for y in 0..<4 { for x in 0..<8 where frame.image.luma[x, y] != 50 { blended.insert([x, y]) } }
        #expect(blended == drawnPixels)
        // Chroma: each block over a run blends by a quarter (one of its four luma samples), no other.
        #expect(frame.image.cb[0, 0] == 128 - 68 / 4 && frame.image.cb[1, 0] == 128 - 68 / 4 && frame.image.cb[2, 1] == 128 - 68 / 4)
        #expect(frame.image.cb[2, 0] == 128 && frame.image.cb[3, 1] == 128 && frame.image.cb[0, 1] == 128)

        // Clearing empties the runs and nothing else, even where other pixels hold colour.
        let full = layer(width: 8, height: 4, touching: .empty) { _, _ in 1 }
        full.touch(row: 0, from: 1, to: 3)
        full.touch(row: 3, from: 5, to: 6)
        full.clear()
        #expect(full.texels[1].w == 0 && full.texels[2].w == 0 && full.texels[3 * 8 + 5].w == 0)
        #expect(full.texels[0].w == 1 && full.texels[3].w == 1 && full.texels[8 + 2].w == 1 && full.texels[3 * 8 + 4].w == 1)
        #expect(full.touched.isEmpty)
    }

    @Test func aMovedLayerAddressesFramePixels() {
        // A 4×4 window whose top-left is frame pixel (4, 2) of an 8×6 frame.
        let window = RenderLayer(width: 4, height: 4)
        window.move(toX: 4, y: 2)
        #expect(window.bounds == PixelBounds(minX: 4, minY: 2, maxX: 8, maxY: 6))
        window.row(3)[5] = [200, 60, 200, 1]
        #expect(window.texels[1 * 4 + 1] == [200, 60, 200, 1], "frame (5, 3) is window (1, 1)")
        window.touch(row: 3, from: 5, to: 6)
        #expect(window.touchedColumns(row: 3) == 5..<6 && window.touched == PixelBounds(minX: 5, minY: 3, maxX: 6, maxY: 4))
        let frame = TestFrame(width: 8, height: 6, subsampling: .yuv420, background: YUVColor(y: 50, cb: 128, cr: 128))
        LayerCompositor.composite(window, opacity: 1, into: frame.image, occlusion: nil)
        var blended: [[Int]] = []
        for y in 0..<6 { for x in 0..<8 where frame.image.luma[x, y] != 50 { blended.append([x, y]) } }
        #expect(blended == [[5, 3]])
        #expect(frame.image.cb[2, 1] == 128 - 68 / 4, "the chroma sample over (4…5, 2…3) blends a quarter")
        window.clear()
        #expect(window.texels[1 * 4 + 1] == .zero && window.touched.isEmpty)
        window.move(toX: 0, y: 0)
        #expect(window.touchedColumns(row: 3).isEmpty, "cleared rows stay empty wherever the window goes")
    }

    @Test func clearingEmptiesOnlyWhatWasTouched() {
        let source = layer(width: 4, height: 4, touching: PixelBounds(minX: 1, minY: 1, maxX: 3, maxY: 2)) { _, _ in 1 }
        source.clear()
        #expect(source.texels[1 * 4 + 1] == .zero && source.texels[1 * 4 + 2] == .zero)
        #expect(source.texels[0].w == 1 && source.texels[2 * 4 + 1].w == 1, "outside the touched rectangle: kept")
        #expect(source.touched.isEmpty)
    }
}
