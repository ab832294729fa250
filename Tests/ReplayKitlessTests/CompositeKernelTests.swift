import CKernels
import Testing

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

        init(blocks: Int, random: inout SplitMix) {
            func unit() -> Float { Float(random.next() >> 40) / Float(1 << 24) }
            func texel() -> SIMD4<Float> {
                let coverage: Float = switch random.next() % 4 { case 0: 0; case 1: 1; default: unit() }
                return [255.5 * unit(), 255.5 * unit(), 255.5 * unit(), coverage]
            }
            top = (0..<(2 * blocks)).map { _ in texel() }
            bottom = (0..<(2 * blocks)).map { _ in texel() }
            planes = [2 * blocks, 2 * blocks, blocks, blocks].map { random.bytes($0 + Self.spare) }
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
            #expect(dispatched == portable, "\(blocks) blocks, opacity \(opacity), AVX2 \(ck_composite_uses_avx2() != 0)")
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
}
