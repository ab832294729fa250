import Testing
@testable import ReplayKitless

/// Labels drawn once and composited straight from the picture kept of them on later frames
/// (``LabelPictures``): the same bytes as the label drawn afresh into the frame-sized layer.
@Suite struct LabelPictureTests {
    /// One renderer draws a label on a first frame and then, from its kept picture, at plate corners
    /// moved by odd and even numbers of pixels both ways (so its 2×2 blocks fall differently), over a
    /// patterned background; a new renderer draws each of those frames from scratch. 4:2:0 takes the
    /// block path of the compositor, 4:4:4 and an occlusion mask the per-sample one; the label's
    /// colour is translucent so opacity counts.
    @Test(arguments: [(ChromaSubsampling.yuv420, false), (.yuv420, true), (.yuv444, false)])
    func keptLabelsGiveTheBytesOfFreshlyDrawnOnes(subsampling: ChromaSubsampling, occluded: Bool) throws {
        let width = 160, height = 120
        var random = SplitMix(seed: 7)
        let mask = PlanarBuffer(width: width, height: height, subsampling: .yuv444)
        for y in 0..<height { for x in 0..<width { mask.image.luma[x, y] = x % 5 == 0 ? UInt8(truncatingIfNeeded: random.next()) : 0 } }
        func frame() -> TestFrame {
            let frame = TestFrame(width: width, height: height, subsampling: subsampling, background: YUVColor(y: 126, cb: 128, cr: 128))
            for plane in [frame.image.luma, frame.image.cb, frame.image.cr] {
                for y in 0..<plane.height { for x in 0..<plane.width { plane[x, y] = UInt8(40 + (x * 7 + y * 13) % 170) } }
            }
            return frame
        }
        let kept = AnnotationRenderer()
        for (step, shift) in [(0.0, 0.0), (0.011, 0.0), (0.023, 0.004), (0.031, 0.017), (-0.02, -0.013), (0.0, 0.009)].enumerated() {
            let eye = HandCamera(position: [shift.0, 1.4 + shift.1, 0.8], pitch: -0.1, yaw: 0.1, roll: 0, width: width, height: height)
            var annotation = placed(.sphere, size: 0.02, at: HandCamera(position: [0, 1.4, 0.8], pitch: -0.1, yaw: 0.1, roll: 0,
                                                                      width: width, height: height).world([-0.3, -0.1, -2]),
                                    color: "#30C0E0B0", label: "Kept Wg")
            annotation.annotation.labelSize = 18
            let occlusion = occluded ? mask.image.luma : nil
            let (fromPicture, fresh) = (frame(), frame())
            try kept.render([annotation], camera: eye.camera(), time: 0, into: fromPicture.image, occlusion: occlusion)
            try AnnotationRenderer().render([annotation], camera: eye.camera(), time: 0, into: fresh.image, occlusion: occlusion)
            let differing = zip(fromPicture.bytes, fresh.bytes).filter { $0 != $1 }.count
            #expect(differing == 0, "pose \(step): \(differing) samples differ")
            #expect(fresh.bytes != frame().bytes, "pose \(step): the label is drawn")
        }
    }

    /// The first time a label is drawn into the layer; the next time, moved, the layer stays empty and
    /// the kept picture comes back placed where the label lands, costing the budget what drawing did.
    @Test func aLabelIsDrawnOnceThenPlacedFromItsPicture() throws {
        let pictures = LabelPictures(), layer = RenderLayer(width: 160, height: 120)
        let renderer = LabelRenderer(glyphs: try GlyphCache(path: AnnotationRenderer.Options.defaultFontPath), colorSpace: .bt709Limited)
        let first = pictures.draw("Kept", size: 18, anchorX: 40.3, anchorY: 80.6, clearance: 3, with: renderer, colorSpace: .bt709Limited, into: layer)
        let box = layer.touched
        #expect(first.kept == nil && first.drawn > 0 && !box.isEmpty)
        layer.clear()
        let again = pictures.draw("Kept", size: 18, anchorX: 43.3, anchorY: 81.6, clearance: 3, with: renderer, colorSpace: .bt709Limited, into: layer)
        let placed = try #require(again.kept)
        #expect(layer.touched.isEmpty && again.drawn == first.drawn)
        #expect(placed.touched == PixelBounds(minX: box.minX + 3, minY: box.minY + 1, maxX: box.maxX + 3, maxY: box.maxY + 1))
        #expect(placed.bounds == PixelBounds(minX: box.minX + 2, minY: box.minY, maxX: box.maxX + 4, maxY: box.maxY + 2))
        // Cut by the layer's edge: drawn again, not placed.
        let cut = pictures.draw("Kept", size: 18, anchorX: 150, anchorY: 80.6, clearance: 3, with: renderer, colorSpace: .bt709Limited, into: layer)
        #expect(cut.kept == nil && !layer.touched.isEmpty)
    }
}
