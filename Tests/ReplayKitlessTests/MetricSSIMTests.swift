import Foundation
import Testing
@testable import ReplayKitless

@Suite struct MetricSSIMTests {
    /// Brute-force SSIM of one plane, independent of the block-sum machinery: every 8×8 window at
    /// multiples of 4 that lies inside the whole 4×4 blocks, its sums taken directly from the pixels,
    /// FFmpeg's formula (c1 = 416, c2 = 235963, sums over 64 samples) evaluated in double.
    func bruteForceSSIM(_ a: Plane, _ b: Plane) -> Double {
        let blocksX = a.width / 4, blocksY = a.height / 4
        var total = 0.0
        for wy in 0..<(blocksY - 1) {
            for wx in 0..<(blocksX - 1) {
                var s1 = 0.0, s2 = 0.0, ss = 0.0, s12 = 0.0
                for y in (4 * wy)..<(4 * wy + 8) {
                    for x in (4 * wx)..<(4 * wx + 8) {
                        let p = Double(a[x, y]), q = Double(b[x, y])
                        s1 += p; s2 += q; ss += p * p + q * q; s12 += p * q
                    }
                }
                let c1 = 416.0, c2 = 235963.0
                let variance = ss * 64 - s1 * s1 - s2 * s2, covariance = s12 * 64 - s1 * s2
                total += (2 * s1 * s2 + c1) * (2 * covariance + c2) / ((s1 * s1 + s2 * s2 + c1) * (variance + c2))
            }
        }
        return total / Double((blocksX - 1) * (blocksY - 1))
    }

    @Test func constantsAreFFmpegs() {
        #expect(SSIMMeter.c1 == 416)
        #expect(SSIMMeter.c2 == 235963)
    }

    @Test func identicalFramesScoreOneExactly() throws {
        var random = FixtureRandom(seed: 3)
        let a = makePicture(width: 48, height: 32) { _, _, _ in random.next() }
        let frame = try SSIMMeter().measure(a.image, a.image)
        #expect(frame.ssim.y == 1 && frame.ssim.u == 1 && frame.ssim.v == 1)
        #expect(abs(frame.all - 1) < 1e-15)
        #expect(frame.decibels == .infinity)
    }

    @Test func matchesBruteForceWindows() throws {
        // 4:4:4 with sizes that leave partial blocks (ignored) on the right and bottom.
        var random = FixtureRandom(seed: 5)
        let a = makePicture(width: 27, height: 21, subsampling: .yuv444) { _, x, y in UInt8((x * 9 + y * 4) & 0xFF) }
        let b = makePicture(width: 27, height: 21, subsampling: .yuv444) { plane, x, y in
            UInt8(clamping: Int(PlanePair.plane(a.image, plane)[x, y]) + random.next(in: -25...25))
        }
        let frame = try SSIMMeter().measure(a.image, b.image)
        for index in 0..<3 {
            let expected = bruteForceSSIM(PlanePair.plane(a.image, index), PlanePair.plane(b.image, index))
            // The port evaluates each window in single precision, as FFmpeg does.
            #expect(abs(frame.ssim[index] - expected) < 1e-6)
            #expect(frame.ssim[index] < 1)
        }
        #expect(abs(frame.all - (frame.ssim.y + frame.ssim.u + frame.ssim.v) / 3) < 1e-12)
    }

    @Test func allWeighsPlanesBySize() throws {
        let a = makePicture(width: 32, height: 32) { _, x, y in UInt8((x * 7 + y * 3) & 0xFF) }
        // Only Cb is disturbed: All = ssimU · (16·16) / (32·32 + 2·16·16) + the two perfect planes' shares.
        let b = makePicture(width: 32, height: 32) { plane, x, y in
            UInt8((x * 7 + y * 3) & 0xFF) ^ (plane == 1 && (x + y) % 3 == 0 ? 0x20 : 0)
        }
        let frame = try SSIMMeter().measure(a.image, b.image)
        #expect(frame.ssim.y == 1 && frame.ssim.v == 1 && frame.ssim.u < 1)
        #expect(abs(frame.all - (4.0 / 6.0 + frame.ssim.u / 6.0 + 1.0 / 6.0)) < 1e-12)
    }

    @Test func decreasesAsNoiseGrows() throws {
        let meter = SSIMMeter()
        let a = makePicture(width: 64, height: 48) { plane, x, y in UInt8((x * 3 + y * 2 + plane * 40) & 0xFF) }
        var previous = 1.0
        for amplitude in [2, 8, 24, 64] {
            var random = FixtureRandom(seed: 9)
            let b = makePicture(width: 64, height: 48) { plane, x, y in
                UInt8(clamping: Int(PlanePair.plane(a.image, plane)[x, y]) + random.next(in: -amplitude...amplitude))
            }
            let all = try meter.measure(a.image, b.image).all
            #expect(all < previous)
            previous = all
        }
    }

    @Test func tooSmallPlanesAreRejected() {
        // 4:2:0 14×14 has 7×7 chroma planes: not a single 8×8 window.
        let a = makePicture(width: 14, height: 14) { _, _, _ in 9 }
        #expect(throws: ReplayError.self) { try SSIMMeter().measure(a.image, a.image) }
    }

    @Test func meterReusedAcrossSizes() throws {
        let meter = SSIMMeter()
        let small = makePicture(width: 16, height: 16) { _, x, _ in UInt8(x) }
        let large = makePicture(width: 80, height: 32) { _, x, y in UInt8((x ^ y) & 0xFF) }
        let noisy = makePicture(width: 80, height: 32) { _, x, y in UInt8((x ^ y) & 0xFF) &+ UInt8((x * y) % 5) }
        #expect(try meter.measure(small.image, small.image).all > 0.999_999)
        let first = try meter.measure(large.image, noisy.image)
        let fresh = try SSIMMeter().measure(large.image, noisy.image)
        #expect(first == fresh)
    }

    /// Sizes whose plane widths avoid the x86 SSE4 quirk described on ``SSIMMeter`` (so FFmpeg's
    /// optimised and C paths agree): ⌊width/4⌋ − 1 is not 1 mod 4 for luma or chroma.
    @Test(arguments: [(64, 48), (44, 28), (96, 40)])
    func matchesFFmpegSSIMFilter(size: (Int, Int)) throws {
        let (a, b) = noisySequence(width: size.0, height: size.1, frames: 3, seed: 13)
        let comparison = QualityComparison()
        var frames: [FrameQuality] = []
        for (x, y) in zip(a, b) { frames.append(try comparison.add(x.image, y.image)) }
        let summary = try #require(comparison.summary)
        let ffmpeg = try ffmpegQuality("ssim", a, b)
        // FFmpeg prints 6 decimals; its SIMD code sums the same window values in another order.
        let expected = numbers(in: ffmpeg.summary), actual = numbers(in: summary.ssim.ffmpegLine)
        #expect(expected.count == 8 && actual.count == 8)
        for (e, m) in zip(expected, actual) { #expect(abs(e - m) <= 1.5e-6, "\(ffmpeg.summary) vs \(summary.ssim.ffmpegLine)") }
        #expect(ffmpeg.frames.count == 3)
        for (frame, line) in zip(frames, ffmpeg.frames) {
            // n:1 Y:… U:… V:… All:… (dB)
            let values = numbers(in: line)
            let mine = [Double(frame.index + 1), frame.ssim.ssim.y, frame.ssim.ssim.u, frame.ssim.ssim.v,
                        frame.ssim.all, frame.ssim.decibels]
            #expect(values.count == mine.count)
            for (e, m) in zip(values, mine) { #expect(abs(e - m) <= 1.5e-6, "\(line)") }
        }
    }
}
