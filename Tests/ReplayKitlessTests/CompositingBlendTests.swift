import Testing
@testable import ReplayKitless

@Suite struct CompositingArithmeticTests {
    @Test func divideBy255MatchesRoundingForEveryProductOfTwoSamples() {
        var mismatches = 0
        for x in 0...65025 where Int(divideBy255Rounded(UInt16(x))) != Int((Double(x) / 255).rounded()) {
            mismatches += 1
        }
        #expect(mismatches == 0)
    }

    @Test func roundingDividerIsExactOverItsWholeRange() {
        // Exhaustively for small divisors, halves rounding up (x/d = q + ½ for even d).
        for divisor in 1...40 {
            let divide = RoundingDivider(divisor)
            let wrong = (0...(255 * divisor)).first { x in
                Int(divide(UInt32(x))) != Int((Double(x) / Double(divisor) + 0.5).rounded(.down))
            }
            #expect(wrong == nil, "divisor \(divisor) fails at \(wrong ?? -1)")
        }
        // Around every rounding boundary for large divisors, up to the documented maximum.
        for divisor in [181, 182, 255, 256, 1001, 4096, 65_535, 1_000_003, RoundingDivider.maximumDivisor] {
            let divide = RoundingDivider(divisor)
            for q in 0...255 {
                for x in [q * divisor, q * divisor + (divisor - 1) / 2, q * divisor + divisor / 2,
                          q * divisor + divisor - 1] where x <= 255 * divisor {
                    let expected = (2 * x + divisor) / (2 * divisor)
                    #expect(Int(divide(UInt32(x))) == expected, "divisor \(divisor), x \(x)")
                }
            }
        }
    }
}

@Suite struct CompositingBlendTests {
    /// round((fg·a + bg·(255 − a)) / 255) in floating point, the formula of formats.md §5.
    static func expectedBlend(_ fg: UInt8, _ bg: UInt8, _ a: UInt8) -> Int {
        let fg = Double(fg), bg = Double(bg), a = Double(a)
        return Int(((fg * a + bg * (255 - a)) / 255).rounded())
    }

    @Test(arguments: [ChromaSubsampling.yuv420, .yuv422, .yuv444])
    func fullMaskKeepsTheFrameAndEmptyMaskGivesTheBackground(_ subsampling: ChromaSubsampling) {
        let blender = MaskBlender()
        for maskValue: UInt8 in [255, 0] {
            let frame = TestImage(width: 7, height: 5, subsampling: subsampling, seed: 1)
            let background = TestImage(width: 7, height: 5, subsampling: subsampling, seed: 2)
            let expected = maskValue == 255 ? frame.planes.map(\.values) : background.planes.map(\.values)
            let mask = TestPlane(width: 7, height: 5, fill: maskValue)
            blender.blend(frame.image, with: background.image, mask: mask.plane)
            #expect(frame.planes.map(\.values) == expected)
            #expect(frame.planes.allSatisfy { $0.paddingIntact })
        }
    }

    @Test func partialMaskFollowsTheFormulaOnLuma() {
        let frame = TestImage(width: 33, height: 9, subsampling: .yuv420, seed: 3)
        let background = TestImage(width: 33, height: 9, subsampling: .yuv420, seed: 4)
        var random = SplitMix(seed: 5)
        let mask = TestPlane(width: 33, height: 9, values: random.bytes(33 * 9))
        let fg = frame.luma.values, bg = background.luma.values, a = mask.values
        MaskBlender().blend(frame.image, with: background.image, mask: mask.plane)
        let out = frame.luma.values
        let worst = out.indices.map { abs(Int(out[$0]) - Self.expectedBlend(fg[$0], bg[$0], a[$0])) }.max()
        #expect(worst == 0)
    }

    /// A 5×3 mask in 4:2:0: the chroma planes are 3×2, and the right column and bottom row of
    /// chroma samples cover only the luma samples that exist (2, 2 and 1 of them).
    static let oddMask: [[UInt8]] = [
        [0, 255, 10, 20, 200],
        [255, 255, 30, 40, 100],
        [7, 9, 60, 61, 250],
    ]

    @Test func chromaMaskAveragesOnlyExistingLumaSamples() {
        let mask = TestPlane(rows: Self.oddMask)
        let blender = MaskBlender()
        // By hand: (0+255+255+255)/4 = 191.25, (10+20+30+40)/4 = 25, (200+100)/2 = 150,
        //          (7+9)/2 = 8, (60+61)/2 = 60.5 → 61 (half up), 250/1 = 250.
        let chroma420 = blender.chromaMask(mask.plane, subsampling: .yuv420)
        #expect(TestPlane.rows(of: chroma420) == [[191, 25, 150], [8, 61, 250]])
        // 4:2:2 pairs columns only: (0+255)/2 = 127.5 → 128, (10+20)/2 = 15, 200; and so on.
        let chroma422 = blender.chromaMask(mask.plane, subsampling: .yuv422)
        #expect(TestPlane.rows(of: chroma422) == [[128, 15, 200], [255, 35, 100], [8, 61, 250]])
    }

    @Test func chromaIsBlendedWithTheMeanMaskAtOddSizes() {
        let frame = TestImage(width: 5, height: 3, subsampling: .yuv420, fill: YUVColor(y: 235, cb: 200, cr: 30))
        let background = TestImage(width: 5, height: 3, subsampling: .yuv420, fill: YUVColor(y: 16, cb: 50, cr: 220))
        let mask = TestPlane(rows: Self.oddMask)
        MaskBlender().blend(frame.image, with: background.image, mask: mask.plane)
        let means: [UInt8] = [191, 25, 150, 8, 61, 250]
        #expect(frame.cb.values == means.map { UInt8(Self.expectedBlend(200, 50, $0)) })
        #expect(frame.cr.values == means.map { UInt8(Self.expectedBlend(30, 220, $0)) })
        #expect(frame.luma.values == Self.oddMask.flatMap { $0 }.map { UInt8(Self.expectedBlend(235, 16, $0)) })
        // Spot check one by hand: a = 61, 200·61 + 50·194 = 21900, /255 = 85.88 → 86.
        #expect(frame.cb.plane[1, 1] == 86)
    }

    @Test func transparentBackgroundCopiesTheMaskAndKeepsStraightColour() {
        let frame = TestImage(width: 6, height: 4, subsampling: .yuv420, withAlpha: true, seed: 6)
        let before = frame.planes.map(\.values)
        var random = SplitMix(seed: 7)
        let mask = TestPlane(width: 6, height: 4, values: random.bytes(24))
        MaskBlender().applyAlpha(mask.plane, to: frame.image, premultiplied: false)
        #expect(frame.alpha?.values == mask.values)
        #expect(frame.planes.map(\.values) == before)
    }

    @Test func premultipliedAlphaScalesTowardsBlackAndNeutralChroma() {
        // Limited range: black is 16. Each column is one case, computed by hand:
        //   Y 235, a 128: 16 + 219·128/255 = 125.93 → 126.   Y 4 (below black): 16 − 12·128/255 = 9.98 → 10.
        //   Cb 240, a 128: 128 + 112·128/255 = 184.22 → 184.  Cb 16: 128 − 56.22 → 72.
        let frame = TestImage(width: 2, height: 1, subsampling: .yuv444, withAlpha: true)
        frame.luma.values = [235, 4]
        frame.cb.values = [240, 16]
        frame.cr.values = [128, 0]
        let mask = TestPlane(width: 2, height: 1, values: [128, 128])
        MaskBlender().applyAlpha(mask.plane, to: frame.image, premultiplied: true)
        #expect(frame.luma.values == [126, 10])
        #expect(frame.cb.values == [184, 72])
        #expect(frame.cr.values == [128, 64])  // 128 − 128·128/255 = 128 − 64.25 → 64
        #expect(frame.alpha?.values == [128, 128])
    }

    @Test func premultipliedAlphaFollowsTheFormulaInFullRange420() {
        let frame = TestImage(width: 5, height: 3, subsampling: .yuv420,
                              colorSpace: ColorSpace(matrix: .bt709, fullRange: true), withAlpha: true, seed: 8)
        let luma = frame.luma.values, cb = frame.cb.values
        let mask = TestPlane(rows: Self.oddMask)
        MaskBlender().applyAlpha(mask.plane, to: frame.image, premultiplied: true)
        func scaled(_ value: UInt8, around centre: Double, by a: UInt8) -> UInt8 {
            let offset = (Double(value) - centre) * Double(a) / 255
            return UInt8(centre + (offset < 0 ? -(-offset).rounded() : offset.rounded()))
        }
        let lumaMask = Self.oddMask.flatMap { $0 }
        #expect(frame.luma.values == luma.indices.map { scaled(luma[$0], around: 0, by: lumaMask[$0]) })
        let means: [UInt8] = [191, 25, 150, 8, 61, 250]
        #expect(frame.cb.values == cb.indices.map { scaled(cb[$0], around: 128, by: means[$0]) })
    }
}

extension TestPlane {
    /// The samples of any plane, row by row.
    static func rows(of plane: Plane) -> [[UInt8]] {
        (0..<plane.height).map { y in (0..<plane.width).map { x in plane[x, y] } }
    }
}
