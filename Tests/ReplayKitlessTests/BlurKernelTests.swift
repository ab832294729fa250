import CKernels
import Foundation
import Testing
@testable import ReplayKitless

/// The C box cascade behind the blur (CKernels/blur.c): accurate at sizes that leave partial blocks
/// of 16 lines, and the same bytes whatever the worker count or SIMD path.
@Suite(.serialized) struct BlurKernelTests {
    /// 83 × 61 leaves 3 columns and 13 rows outside whole blocks of 16; every sample, edges included,
    /// against the double-precision direct convolution of ``BlurTests/referenceBlur``.
    @Test(arguments: [3.5, 8.0, 12.0, 25.0])
    func matchesADirectGaussianAtSizesOffTheBlocks(sigma: Double) {
        let width = 83, height = 61
        let pattern = BlurTests.testPattern(width: width, height: height)
        let plane = TestPlane(width: width, height: height, values: pattern)
        GaussianBlur(workers: 2).blur(plane.plane, into: plane.plane, sigmaX: sigma, sigmaY: sigma)
        let reference = BlurTests.referenceBlur(pattern, width: width, height: height, sigma: sigma)
        let errors = zip(plane.values, reference).map { abs(Double($0) - $1) }
        #expect(errors.max()! <= 3, "σ \(sigma): max \(errors.max()!)")
        #expect(errors.reduce(0, +) / Double(errors.count) <= 1, "σ \(sigma): mean \(errors.reduce(0, +) / Double(errors.count))")
        #expect(plane.paddingIntact)
    }

    /// 1, 2 and 3 workers split rows and column strips differently (200 × 100 gives 3 bands of rows
    /// and of 16-column strips); σ = 100 takes the wide-box portable path, the others AVX2 where the
    /// CPU has it, and the portable path must give the same bytes as AVX2.
    @Test(arguments: [4.0, 12.0, 100.0])
    func sameBytesForAnyWorkerCountAndPath(sigma: Double) {
        func blurred(workers: Int, portable: Bool = false) -> [[UInt8]] {
            let image = TestImage(width: 200, height: 100, subsampling: .yuv420, seed: 21)
            ck_blur_force_portable(portable ? 1 : 0)
            defer { ck_blur_force_portable(0) }
            let output = TestImage(width: 200, height: 100, subsampling: .yuv420)
            GaussianBlur(workers: workers).blur(image.image, into: output.image, sigma: sigma)
            return output.planes.map(\.values)
        }
        let one = blurred(workers: 1)
        #expect(blurred(workers: 2) == one)
        #expect(blurred(workers: 3) == one)
        #expect(blurred(workers: 1, portable: true) == one)
        #expect(one != TestImage(width: 200, height: 100, subsampling: .yuv420, seed: 21).planes.map(\.values))
    }
}

/// `--blur-mode masked`: the person left out of the blur, so their colours do not bleed around them.
@Suite struct MaskedBlurTests {
    static let width = 96, height = 64, personColumns = 40..<72
    static let background = YUVColor(y: 16, cb: 160, cr: 128), person = YUVColor(y: 235, cb: 90, cr: 128)

    /// A bright person (columns 40…71) on a dark background, the mask 255 on the person.
    static func scene() -> (frame: TestImage, mask: TestPlane) {
        let frame = TestImage(width: width, height: height, subsampling: .yuv420, fill: background)
        frame.luma.values = (0..<(width * height)).map { personColumns.contains($0 % width) ? person.y : background.y }
        frame.cb.values = (0..<(width / 2 * height / 2)).map { personColumns.contains(2 * ($0 % (width / 2))) ? person.cb : background.cb }
        let mask = TestPlane(width: width, height: height, values: (0..<(width * height)).map { personColumns.contains($0 % width) ? 255 : 0 })
        return (frame, mask)
    }

    @Test func theBackgroundBesideThePersonStaysDark() {
        let sigma = 6.0
        let (frame, mask) = Self.scene()
        let plain = TestImage(width: Self.width, height: Self.height, subsampling: .yuv420)
        let masked = TestImage(width: Self.width, height: Self.height, subsampling: .yuv420)
        let blur = GaussianBlur(workers: 1)
        blur.blur(frame.image, into: plain.image, sigma: sigma)
        MaskedBlur(blur: blur).blur(frame.image, mask: mask.plane, into: masked.image, sigma: sigma)
        // Plain: 3 pixels from a 16 → 235 edge a Gaussian of σ 6 carries Φ(−0.5) ≈ 31 % of the step.
        let beside = 36, row = Self.height / 2
        #expect(Double(plain.luma.plane[beside, row]) >= 16 + 0.25 * 219)
        // Masked: the background is 16 everywhere, so ideally exactly 16. Blurred weight W ≥ 255/2 − 2
        // beside a straight edge; with blurred numerator and W each off by ≤ 2 levels, the quotient
        // is at most (16 · W / 255 + 2) · 255 / (W − 2) ≤ 20.5 there.
        for y in 0..<Self.height {
            for x in 0..<Self.width where !Self.personColumns.contains(x) {
                #expect(masked.luma.plane[x, y] <= 20, "luma at \(x),\(y): \(masked.luma.plane[x, y])")
            }
            for x in 0..<(Self.width / 2) where !Self.personColumns.contains(2 * x) && y < Self.height / 2 {
                #expect(masked.cb.plane[x, y] >= 156, "cb at \(x),\(y): \(masked.cb.plane[x, y])")
            }
        }
        #expect(plain.cb.plane[beside / 2 + 1, row / 2] < 145)
        // Deep inside the person the background weight blurs to (nearly) nothing: the plain blur.
        #expect(masked.luma.plane[56, row] == plain.luma.plane[56, row])
        #expect(masked.luma.paddingIntact)
    }
}
