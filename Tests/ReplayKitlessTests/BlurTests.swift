import Foundation
import Testing
@testable import ReplayKitless

@Suite struct BlurTests {
    /// A reference Gaussian blur by direct (separable) convolution with the sampled, normalised
    /// kernel out to 5σ, edges clamped, all in Double.
    static func referenceBlur(_ values: [UInt8], width: Int, height: Int, sigma: Double) -> [Double] {
        let radius = Int((5 * sigma).rounded(.up))
        let raw = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        let kernel = raw.map { $0 / total }
        func convolve(_ input: [Double], along horizontal: Bool) -> [Double] {
            var output = input
            for y in 0..<height {
                for x in 0..<width {
                    var sum = 0.0
                    for (k, weight) in kernel.enumerated() {
                        let offset = k - radius
                        let sx = horizontal ? min(max(x + offset, 0), width - 1) : x
                        let sy = horizontal ? y : min(max(y + offset, 0), height - 1)
                        sum += weight * input[sy * width + sx]
                    }
                    output[y * width + x] = sum
                }
            }
            return output
        }
        return convolve(convolve(values.map(Double.init), along: true), along: false)
    }

    /// Squares, a diagonal band and noise: sharp edges in every direction.
    static func testPattern(width: Int, height: Int) -> [UInt8] {
        var random = SplitMix(seed: 11)
        return (0..<(width * height)).map { index in
            let x = index % width, y = index / width
            let squares: UInt8 = ((x / 8 + y / 8) % 2 == 0) ? 200 : 40
            let band: UInt8 = abs(x - y) < 4 ? 60 : 0
            let noise = UInt8(truncatingIfNeeded: random.next() % 16)
            return squares &+ band &- noise
        }
    }

    @Test(arguments: [0.75, 1.5, 2.5, 3.0, 3.5, 6.0])
    func approximatesATrueGaussianAwayFromTheEdges(sigma: Double) {
        let width = 96, height = 80
        let pattern = Self.testPattern(width: width, height: height)
        let plane = TestPlane(width: width, height: height, values: pattern)
        GaussianBlur().blur(plane.plane, into: plane.plane, sigmaX: sigma, sigmaY: sigma)
        let reference = Self.referenceBlur(pattern, width: width, height: height, sigma: sigma)
        let margin = Int(3 * sigma) + 1
        var worst = 0.0, total = 0.0, count = 0
        let out = plane.values
        for y in margin..<(height - margin) {
            for x in margin..<(width - margin) {
                let difference = abs(Double(out[y * width + x]) - reference[y * width + x])
                worst = max(worst, difference)
                total += difference
                count += 1
            }
        }
        #expect(worst <= 3, "σ \(sigma): max difference \(worst)")
        #expect(total / Double(count) <= 1, "σ \(sigma): mean difference \(total / Double(count))")
        #expect(plane.paddingIntact)
    }

    @Test(arguments: [2.0, 5.0])
    func directionsAreIndependent(sigma: Double) {
        // Stripes that only vary across x: a blur down the columns must leave them exactly alone,
        // and a blur along the rows must turn every row into the same 1-D Gaussian blur.
        let width = 60, height = 40
        let stripe: [UInt8] = (0..<width).map { ($0 / 5) % 2 == 0 ? 230 : 20 }
        let pattern = (0..<height).flatMap { _ in stripe }
        let down = TestPlane(width: width, height: height, values: pattern)
        GaussianBlur().blur(down.plane, into: down.plane, sigmaX: 0, sigmaY: sigma)
        #expect(down.values == pattern)
        let along = TestPlane(width: width, height: height, values: pattern)
        GaussianBlur().blur(along.plane, into: along.plane, sigmaX: sigma, sigmaY: 0)
        #expect(Set(along.rows).count == 1)
        let reference = Self.referenceBlur(stripe, width: width, height: 1, sigma: sigma)
        let margin = Int(3 * sigma) + 1
        let worst = (margin..<(width - margin)).map { abs(Double(along.rows[0][$0]) - reference[$0]) }.max() ?? 0
        #expect(worst <= 3)
        #expect(along.values != pattern)
    }

    @Test func kernelsHaveTheRequestedVariance() {
        var weights = ScratchBuffer<Float>()
        for sigma in [1.0, 1.5, 2.5, 2.99, 3.0, 4.2, 15.0, 42.0, 300.0] {
            let kernel = BlurKernel(sigma: sigma, weights: &weights)
            let variance: Double
            switch kernel.method {
            case .sampled(let radius, let taps):
                #expect(sigma < 3 && kernel.passes == 1)
                let w = (0...(2 * radius)).map { Double(taps[$0]) }
                #expect(abs(w.reduce(0, +) - 1) < 1e-6)
                variance = w.enumerated().map { Double(($0.offset - radius) * ($0.offset - radius)) * $0.element }
                    .reduce(0, +)
            case .extendedBox(let radius, let fixedInner, let fixedOuter, let shift):
                #expect(sigma >= 3 && kernel.passes == 4)
                // Weight `inner` on −r…r and `outer` on ±(r+1): Σw = 1 exactly in fixed point, and
                // variances of passes add.
                #expect((2 * radius + 1) * Int(fixedInner) + 2 * Int(fixedOuter) == 1 << shift)
                let one = Double(1 << shift)
                let r = Double(radius), inner = Double(fixedInner) / one, outer = Double(fixedOuter) / one
                #expect(outer <= inner)
                let perPass = inner * r * (r + 1) * (2 * r + 1) / 3 + 2 * outer * (r + 1) * (r + 1)
                variance = 4 * perPass
            }
            #expect(abs(variance - sigma * sigma) <= 0.01 * sigma * sigma, "σ \(sigma): variance \(variance)")
        }
    }

    @Test(arguments: [0.7, 4.0, 60.0, 5000.0])
    func constantPicturesStayExactlyConstant(sigma: Double) {
        let image = TestImage(width: 37, height: 21, subsampling: .yuv420, fill: YUVColor(y: 173, cb: 91, cr: 240))
        GaussianBlur().blur(image.image, into: image.image, sigma: sigma)
        #expect(Set(image.luma.values) == [173])
        #expect(Set(image.cb.values) == [91])
        #expect(Set(image.cr.values) == [240])
    }

    @Test func zeroSigmaCopies() {
        let source = TestImage(width: 9, height: 7, subsampling: .yuv420, seed: 12)
        let destination = TestImage(width: 9, height: 7, subsampling: .yuv420)
        GaussianBlur().blur(source.image, into: destination.image, sigma: 0)
        #expect(destination.planes.map(\.values) == source.planes.map(\.values))
    }

    @Test func preservesTheMeanWhenTheBorderIsUniform() {
        // Clamped edges only add mass when the edge differs from the rest; with a uniform border
        // wider than the blur's reach the total is conserved up to per-pass rounding.
        let width = 120, height = 100, sigma = 4.0
        var random = SplitMix(seed: 13)
        let values: [UInt8] = (0..<(width * height)).map { index in
            let x = index % width, y = index / width
            let inside = x >= 40 && x < 80 && y >= 35 && y < 65
            return inside ? UInt8(truncatingIfNeeded: random.next()) : 90
        }
        let plane = TestPlane(width: width, height: height, values: values)
        GaussianBlur().blur(plane.plane, into: plane.plane, sigmaX: sigma, sigmaY: sigma)
        func mean(_ samples: [UInt8]) -> Double { Double(samples.reduce(0) { $0 + Int($1) }) / Double(samples.count) }
        #expect(abs(mean(plane.values) - mean(values)) < 0.05)
        #expect(plane.values != values)
    }

    @Test func chromaIsBlurredWithSigmaScaledBySubsampling() {
        let sigma = 6.0
        let image = TestImage(width: 64, height: 48, subsampling: .yuv422, seed: 14)
        let cb = image.cb.values
        GaussianBlur().blur(image.image, into: image.image, sigma: sigma)
        // 4:2:2 chroma is half width, full height: σ/2 along rows and σ down columns.
        let expected = TestPlane(width: 32, height: 48, values: cb)
        GaussianBlur().blur(expected.plane, into: expected.plane, sigmaX: sigma / 2, sigmaY: sigma)
        let unscaled = TestPlane(width: 32, height: 48, values: cb)
        GaussianBlur().blur(unscaled.plane, into: unscaled.plane, sigmaX: sigma, sigmaY: sigma)
        #expect(image.cb.values == expected.values)
        #expect(image.cb.values != unscaled.values)
    }

    @Test func blurringIntoAnotherImageLeavesTheSourceAlone() {
        let source = TestImage(width: 20, height: 16, subsampling: .yuv420, seed: 15)
        let before = source.planes.map(\.values)
        let destination = TestImage(width: 20, height: 16, subsampling: .yuv420)
        let inPlace = TestImage(width: 20, height: 16, subsampling: .yuv420, seed: 15)
        let blur = GaussianBlur()
        blur.blur(source.image, into: destination.image, sigma: 2)
        blur.blur(inPlace.image, into: inPlace.image, sigma: 2)
        #expect(source.planes.map(\.values) == before)
        #expect(destination.planes.map(\.values) == inPlace.planes.map(\.values))
        #expect(destination.planes.map(\.values) != before)
    }
}
