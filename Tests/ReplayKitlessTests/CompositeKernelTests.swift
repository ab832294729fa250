import CKernels
import Testing
@testable import ReplayKitless

/// The C kernel behind LayerCompositor's whole 2×2 blocks (CKernels/composite.c): its AVX2 and
/// portable paths give the same bytes, both follow the compositor's documented formula, and
/// neither writes past the blocks it is given.
@Suite struct CompositeKernelTests {
    /// One chroma row of `blocks` blocks: two rows of texels and the frame's samples under them.
    struct Row {
        var top: [SIMD4<Float>], bottom: [SIMD4<Float>]
        /// Luma top and bottom (2·blocks each), then Cb and Cr (blocks each), each with `spare` bytes after.
        var planes: [[UInt8]]
        static let spare = 5

        /// Random texels, or with `nearHalves` (for `opacity`) texels whose every result lands within a
        /// Float rounding of a half (``CompositeKernelTests/nearHalfBlock(over:cb:cr:opacity:random:)``).
        init(blocks: Int, random: inout SplitMix, nearHalves: Bool = false, opacity: Float = 1) {
            planes = [2 * blocks, 2 * blocks, blocks, blocks].map { random.bytes($0 + Self.spare) }
            top = []
            bottom = []
            for block in 0..<blocks {
                let lumas = [planes[0][2 * block], planes[0][2 * block + 1], planes[1][2 * block], planes[1][2 * block + 1]]
                let texels = nearHalves ? CompositeKernelTests.nearHalfBlock(over: lumas, cb: planes[2][block], cr: planes[3][block], opacity: opacity, random: &random)
                                        : (0..<4).map { _ in CompositeKernelTests.randomTexel(&random) }
                top += texels[0...1]
                bottom += texels[2...3]
            }
        }

        /// Blends with `kernel` (`ck_blend_blocks_420` or its portable path) into a copy of the planes.
        func blended(opacity: Float, by kernel: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafeMutablePointer<UInt8>,
                                                  UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>,
                                                  Int32, Float) -> Void) -> [[UInt8]] {
            var (lumaTop, lumaBottom, cb, cr) = (planes[0], planes[1], planes[2], planes[3])
            top.withUnsafeBytes { top in
                bottom.withUnsafeBytes { bottom in
                    kernel(top.baseAddress!.assumingMemoryBound(to: Float.self), bottom.baseAddress!.assumingMemoryBound(to: Float.self),
                           &lumaTop, &lumaBottom, &cb, &cr, Int32(self.top.count / 2), opacity)
                }
            }
            return [lumaTop, lumaBottom, cb, cr]
        }

        /// LayerCompositor's formula in Double: per luma sample Y'bg + a·(Y' − Y'bg), per chroma sample
        /// (Σ a·C + Cbg·Σ(1 − a)) / 4, a = coverage·opacity; unrounded, past the blocks the bytes as they were.
        func reference(opacity: Float) -> [[Double]] {
            var out = planes.map { $0.map(Double.init) }
            for block in 0..<(top.count / 2) {
                var sumCb = 0.0, sumCr = 0.0, background = 0.0
                for (row, texels) in [top, bottom].enumerated() {
                    for x in [2 * block, 2 * block + 1] {
                        let texel = SIMD4<Double>(texels[x]), a = texel.w * Double(opacity)
                        out[row][x] += a * (texel.x - out[row][x])
                        sumCb += a * texel.y
                        sumCr += a * texel.z
                        background += 1 - a
                    }
                }
                out[2][block] = (sumCb + out[2][block] * background) / 4
                out[3][block] = (sumCr + out[3][block] * background) / 4
            }
            return out
        }
    }

    /// Texels with coverage 0, 1 or between, Y', Cb and Cr up to the edge of the byte range (255.5 rounds to the clamp).
    static func randomTexel(_ random: inout SplitMix) -> SIMD4<Float> {
        func unit() -> Float { Float(random.next() >> 40) / Float(1 << 24) }
        let coverage: Float = switch random.next() % 4 { case 0: 0; case 1: 1; default: unit() }
        return [255.5 * unit(), 255.5 * unit(), 255.5 * unit(), coverage]
    }

    /// The four texels of a block (top left, top right, bottom left, bottom right) over luma samples
    /// `lumas` and chroma `cb`, `cr`, chosen so that every result the formula gives is a half in exact
    /// arithmetic before its inputs are rounded to Float: each covered texel's Y' solved from
    /// Y'bg + a·(Y' − Y'bg) = k + ½, the most covered texel's Cb and Cr from the chroma formula. Which
    /// way such a sample rounds depends on every rounding of the float operations before it, so
    /// arithmetic in another order, fused, or in Double gives other bytes for many of them.
    static func nearHalfBlock(over lumas: [UInt8], cb: UInt8, cr: UInt8, opacity: Float, random: inout SplitMix) -> [SIMD4<Float>] {
        var texels = (0..<4).map { _ in randomTexel(&random) }
        let a = texels.map { Double($0.w * opacity) }
        /// `value + slope·x` = k + ½ for a whole k, with x in 0…255.5 (nil when no k fits).
        func solve(_ value: Double, slope: Double) -> Float? {
            guard slope > 1e-3 else { return nil }
            let low = (value - 0.5).rounded(.up), high = (value + 255.5 * slope - 0.5).rounded(.down)
            guard low <= high else { return nil }
            let k = low + Double(random.next() % UInt64(high - low + 1))
            return Float((k + 0.5 - value) / slope)
        }
        for i in 0..<4 {
            if let y = solve(Double(lumas[i]) * (1 - a[i]), slope: a[i]) { texels[i].x = y }
        }
        let most = a.indices.max { a[$0] < a[$1] }!
        let background = a.reduce(0) { $0 + (1 - $1) }
        for component in [1, 2] {
            let others = a.indices.filter { $0 != most }.reduce(0.0) { $0 + a[$1] * Double(texels[$1][component]) }
            let chroma = Double(component == 1 ? cb : cr)
            if let value = solve((others + chroma * background) / 4, slope: a[most] / 4) { texels[most][component] = value }
        }
        return texels
    }

    /// Block counts that leave every remainder of the AVX2 path's four-block steps, opacities 1 and
    /// below; Y', Cb, Cr up to the edge of the byte range (255.5 rounds to the clamp).
    @Test(arguments: [Float(1), 0.37, 0.8])
    func avx2AndPortableAgreeAndFollowTheFormula(opacity: Float) {
        var random = SplitMix(seed: 25)
        var checked = 0, nearHalf = 0
        for blocks in [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 31, 64] {
            let row = Row(blocks: blocks, random: &random)
            let dispatched = row.blended(opacity: opacity, by: ck_blend_blocks_420)
            let portable = row.blended(opacity: opacity, by: ck_blend_blocks_420_portable)
            #expect(dispatched == portable, "\(blocks) blocks, opacity \(opacity), AVX2 \(ck_cpu_has_avx2() != 0)")
            let reference = row.reference(opacity: opacity)
            for plane in 0..<4 {
                for (index, exact) in reference[plane].enumerated() {
                    let fraction = exact - exact.rounded(.down)
                    // Float arithmetic may round a value within a hair of a half either way.
                    if abs(fraction - 0.5) < 1e-3 { nearHalf += 1; continue }
                    let expected = UInt8(max(0, min(255, (exact + 0.5).rounded(.down))))
                    #expect(portable[plane][index] == expected,
                            "\(blocks) blocks, plane \(plane), sample \(index): \(portable[plane][index]), formula \(exact)")
                    checked += 1
                }
                #expect(portable[plane].suffix(Row.spare) == row.planes[plane].suffix(Row.spare), "nothing written past the blocks")
            }
        }
        #expect(nearHalf < checked / 100, "\(nearHalf) samples left unchecked near a half, \(checked) checked")
    }

    /// Rows of results all near a half, where an operation in another order or fused shows: both
    /// paths give the same bytes. Short rows too: the AVX2 path blends the last one to three blocks
    /// of a row another way than its steps of four.
    @Test(arguments: [Float(1), 0.37, 0.8])
    func avx2AndPortableAgreeOnNearHalves(opacity: Float) {
        var random = SplitMix(seed: 26)
        for blocks in (0..<60).map({ 1 + $0 % 7 }) + [64, 1001] {
            let row = Row(blocks: blocks, random: &random, nearHalves: true, opacity: opacity)
            #expect(row.blended(opacity: opacity, by: ck_blend_blocks_420) == row.blended(opacity: opacity, by: ck_blend_blocks_420_portable),
                    "\(blocks) blocks, opacity \(opacity), AVX2 \(ck_cpu_has_avx2() != 0)")
        }
    }

    /// Through LayerCompositor: a 4:2:0 opaque frame takes the kernel for whole blocks; a mask of
    /// zeros (which hides nothing) sends every sample through the per-sample Swift path, which
    /// RenderCompositeTests checks by hand. On results near halves the two give the same bytes.
    @Test(arguments: [Float(1), 0.37])
    func theKernelRoundsNearHalvesAsThePerSamplePathDoes(opacity: Float) {
        let width = 130, height = 66
        var random = SplitMix(seed: 27)
        let frames = Self.randomFrames(2, width: width, height: height, random: &random)
        let layer = RenderLayer(width: width, height: height)
        let image = frames[0].image
        for chromaY in 0..<(height / 2) {
            for chromaX in 0..<(width / 2) {
                let (x, y) = (2 * chromaX, 2 * chromaY)
                let lumas = [image.luma[x, y], image.luma[x + 1, y], image.luma[x, y + 1], image.luma[x + 1, y + 1]]
                let texels = Self.nearHalfBlock(over: lumas, cb: image.cb[chromaX, chromaY], cr: image.cr[chromaX, chromaY],
                                                opacity: opacity, random: &random)
                layer.row(y)[x] = texels[0]; layer.row(y)[x + 1] = texels[1]
                layer.row(y + 1)[x] = texels[2]; layer.row(y + 1)[x + 1] = texels[3]
            }
        }
        layer.touch(PixelBounds(minX: 0, minY: 0, maxX: width, maxY: height))
        let nothingInFront = PlanarBuffer(width: width, height: height, subsampling: .yuv444)
        nothingInFront.image.luma.fill(0)
        let before = frames[0].bytes
        LayerCompositor.composite(layer, opacity: opacity, into: frames[0].image, occlusion: nil)
        LayerCompositor.composite(layer, opacity: opacity, into: frames[1].image, occlusion: nothingInFront.image.luma)
        #expect(zip(before, frames[0].bytes).filter { $0 != $1 }.count > before.count / 2)
        let differing = zip(frames[0].bytes, frames[1].bytes).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) samples differ between the kernel and the per-sample path")
    }

    /// `count` 4:2:0 frames, all the same random bytes.
    static func randomFrames(_ count: Int, width: Int, height: Int, random: inout SplitMix) -> [TestFrame] {
        let frames = (0..<count).map { _ in TestFrame(width: width, height: height, subsampling: .yuv420) }
        for plane in [\YUVImage.luma, \YUVImage.cb, \YUVImage.cr] {
            let target = frames[0].image[keyPath: plane], bytes = random.bytes(target.width * target.height)
            for frame in frames {
                let copy = frame.image[keyPath: plane]
                for y in 0..<copy.height { for x in 0..<copy.width { copy[x, y] = bytes[y * copy.width + x] } }
            }
        }
        return frames
    }

    /// Two 64×64 layers alike, at (`left`, `top`) of a frame: per row a random run of columns (some
    /// rows none, runs starting and ending on odd columns too), its texels chosen near halves, the
    /// rest zero.
    static func tileLayers(left: Int, top: Int, opacity: Float, over image: YUVImage, random: inout SplitMix) -> [RenderLayer] {
        let layers = [RenderLayer(width: 64, height: 64), RenderLayer(width: 64, height: 64)]
        for layer in layers { layer.move(toX: left, y: top) }
        for y in stride(from: top, to: top + 64, by: 2) {
            let runs = (0..<2).map { _ -> Range<Int> in
                guard random.next() % 4 != 0 else { return 0..<0 }
                let ends = [random.next() % 65, random.next() % 65].map { left + Int($0) }
                return ends.min()!..<ends.max()!
            }
            for x in stride(from: left, to: left + 64, by: 2) {
                let lumas = [image.luma[x, y], image.luma[x + 1, y], image.luma[x, y + 1], image.luma[x + 1, y + 1]]
                let texels = nearHalfBlock(over: lumas, cb: image.cb[x / 2, y / 2], cr: image.cr[x / 2, y / 2], opacity: opacity,
                                           random: &random)
                for (index, texel) in texels.enumerated() where runs[index / 2].contains(x + index % 2) {
                    for layer in layers { layer.row(y + index / 2)[x + index % 2] = texel }
                }
            }
            for (row, run) in runs.enumerated() {
                for layer in layers { layer.touch(row: y + row, from: run.lowerBound, to: run.upperBound) }
            }
        }
        return layers
    }

    /// `LayerCompositor.compositeAndClear` on tiles in whole 2×2 blocks of a 4:2:0 opaque frame
    /// (`ck_blend_and_clear_420`), and its portable path, give the bytes of the per-sample Swift path
    /// (a mask of zeros sends every sample there), and leave the layer clear: every texel zero.
    @Test(arguments: [Float(1), 0.37])
    func blendAndClearGivesThePerSampleBytesAndClearsTheLayer(opacity: Float) {
        var random = SplitMix(seed: 28)
        // The frame reaches past the tiles by an odd column and row: they stay whole blocks.
        let width = 193, height = 129
        let nothingInFront = PlanarBuffer(width: width, height: height, subsampling: .yuv444)
        nothingInFront.image.luma.fill(0)
        for (left, top) in [(0, 0), (128, 64), (64, 0)] {
            let frames = Self.randomFrames(3, width: width, height: height, random: &random)
            let layers = Self.tileLayers(left: left, top: top, opacity: opacity, over: frames[0].image, random: &random)
            let before = frames[0].bytes
            LayerCompositor.composite(layers[0], opacity: opacity, into: frames[0].image, occlusion: nothingInFront.image.luma)
            LayerCompositor.compositeAndClear(layers[0], opacity: opacity, into: frames[1].image, occlusion: nil)
            let image = frames[2].image, first = layers[1].touched.minY & ~1, rows = (layers[1].touched.maxY - first + 1) / 2
            layers[1].clear(fromRow: first) { window in
                ck_blend_and_clear_420_portable(window, image.luma.base + first * image.luma.stride, image.luma.stride,
                                                image.cb.base + first / 2 * image.cb.stride, image.cb.stride,
                                                image.cr.base + first / 2 * image.cr.stride, image.cr.stride, Int32(rows), opacity)
            }
            #expect(zip(before, frames[0].bytes).filter { $0 != $1 }.count > 1000)
            #expect(frames[1].bytes == frames[0].bytes, "tile at (\(left), \(top)), AVX2 \(ck_cpu_has_avx2() != 0)")
            #expect(frames[2].bytes == frames[0].bytes, "tile at (\(left), \(top)), portable")
            for layer in layers {
                #expect(layer.touched.isEmpty)
                #expect(UnsafeBufferPointer(start: layer.texels, count: 64 * 64).allSatisfy { $0 == .zero })
            }
        }
    }
}
