import Foundation
import Testing
@testable import ReplayKitless

@Suite struct MetricPSNRTests {
    /// 10·log10(255² / mse), written out independently of the code under test.
    func expectedPSNR(_ mse: Double) -> Double { 10 * log10(255.0 * 255.0 / mse) }

    @Test func lumaOffByTwoHasMSEFour() throws {
        let a = makePicture(width: 32, height: 16) { plane, x, y in UInt8(40 + x + y + plane) }
        let b = makePicture(width: 32, height: 16) { plane, x, y in UInt8(40 + x + y + plane + (plane == 0 ? 2 : 0)) }
        let frame = try PSNR.measure(a.image, b.image)
        #expect(frame.mse.y == 4)
        #expect(frame.mse.u == 0 && frame.mse.v == 0)
        #expect(abs(frame.psnr.y - expectedPSNR(4)) < 1e-12)
        #expect(frame.psnr.u == .infinity && frame.psnr.v == .infinity)
        // Luma holds 4 of every 6 samples in 4:2:0: average MSE = 4 · 4/6.
        #expect(abs(frame.mseAverage - 8.0 / 3.0) < 1e-12)
        #expect(abs(frame.psnrAverage - expectedPSNR(8.0 / 3.0)) < 1e-12)
    }

    @Test func averageWeighsChromaByItsSampleCount() throws {
        // Odd size: chroma planes are 17×9 (rounded up), luma 33×17.
        let a = makePicture(width: 33, height: 17) { _, _, _ in 100 }
        let b = makePicture(width: 33, height: 17) { plane, _, _ in [100, 103, 99][plane] }
        let frame = try PSNR.measure(a.image, b.image)
        #expect(frame.mse.y == 0 && frame.mse.u == 9 && frame.mse.v == 1)
        // Weighted MSE is the total squared error over all samples.
        let luma = 33.0 * 17.0, chroma = 17.0 * 9.0
        let expected = (9 * chroma + 1 * chroma) / (luma + 2 * chroma)
        #expect(abs(frame.mseAverage - expected) < 1e-12)
        #expect(abs(frame.psnrAverage - expectedPSNR(expected)) < 1e-12)
    }

    @Test func identicalFramesAreInfinite() throws {
        let a = makePicture(width: 16, height: 16) { _, x, y in UInt8(x * y & 0xFF) }
        let frame = try PSNR.measure(a.image, a.image)
        #expect(frame.psnrAverage == .infinity)
        var totals = PSNRAccumulator()
        totals.add(frame)
        #expect(totals.summary?.ffmpegLine == "PSNR y:inf u:inf v:inf average:inf min:inf max:inf")
    }

    @Test func streamAverageComesFromSummedMSE() throws {
        let a = makePicture(width: 16, height: 16) { _, _, _ in 50 }
        let b2 = makePicture(width: 16, height: 16) { _, _, _ in 52 } // MSE 4 in every plane
        let b4 = makePicture(width: 16, height: 16) { _, _, _ in 54 } // MSE 16
        var totals = PSNRAccumulator()
        totals.add(try PSNR.measure(a.image, b2.image))
        totals.add(try PSNR.measure(a.image, b4.image))
        let summary = try #require(totals.summary)
        #expect(summary.frames == 2)
        // Mean MSE 10, not the mean of the two PSNRs.
        #expect(abs(summary.average - expectedPSNR(10)) < 1e-12)
        #expect(abs(summary.psnr.u - expectedPSNR(10)) < 1e-12)
        #expect(abs(summary.min - expectedPSNR(16)) < 1e-12)
        #expect(abs(summary.max - expectedPSNR(4)) < 1e-12)
    }

    @Test func differentSizesAreRejected() {
        let a = makePicture(width: 16, height: 16) { _, _, _ in 0 }
        let b = makePicture(width: 16, height: 18) { _, _, _ in 0 }
        #expect(throws: ReplayError.self) { try PSNR.measure(a.image, b.image) }
    }

    @Test(arguments: [(64, 48), (33, 17)])
    func matchesFFmpegPSNRFilter(size: (Int, Int)) throws {
        let (a, b) = noisySequence(width: size.0, height: size.1, frames: 3, seed: 11)
        var totals = PSNRAccumulator()
        var frames: [PSNRFrame] = []
        for (x, y) in zip(a, b) {
            let frame = try PSNR.measure(x.image, y.image)
            frames.append(frame)
            totals.add(frame)
        }
        let ffmpeg = try ffmpegQuality("psnr", a, b)
        // Integer sums and the same double arithmetic: FFmpeg's log line, character for character.
        #expect(totals.summary?.ffmpegLine == ffmpeg.summary)
        #expect(ffmpeg.frames.count == 3)
        for (number, (frame, line)) in zip(frames, ffmpeg.frames).enumerated() {
            let p = { (value: Double) in String(format: "%0.2f", value) }
            let expected = "n:\(number + 1) mse_avg:\(p(frame.mseAverage)) mse_y:\(p(frame.mse.y))"
                + " mse_u:\(p(frame.mse.u)) mse_v:\(p(frame.mse.v)) psnr_avg:\(p(frame.psnrAverage))"
                + " psnr_y:\(p(frame.psnr.y)) psnr_u:\(p(frame.psnr.u)) psnr_v:\(p(frame.psnr.v))"
            #expect(line.trimmingCharacters(in: .whitespaces) == expected)
        }
    }
}

@Suite struct MetricThresholdTests {
    @Test func identicalStreamsPassEveryThreshold() throws {
        var random = FixtureRandom(seed: 21)
        let a = makePicture(width: 40, height: 30) { _, _, _ in random.next() }
        let comparison = QualityComparison()
        for _ in 0..<3 { try comparison.add(a.image, a.image) }
        let summary = try #require(comparison.summary)
        #expect(summary.psnr.average == .infinity && summary.psnr.frames == 3 && summary.ssim.frames == 3)
        #expect(summary.failures(minPSNR: 1000, minSSIM: 1).isEmpty)
    }

    @Test func thresholdsFailWithReasons() throws {
        let a = makePicture(width: 32, height: 32) { _, x, y in UInt8((x * 5 + y * 3) & 0xFF) }
        let b = makePicture(width: 32, height: 32) { _, x, y in UInt8((x * 5 + y * 3) & 0xFF) ^ UInt8((x + y) % 4) }
        let comparison = QualityComparison()
        try comparison.add(a.image, b.image)
        let summary = try #require(comparison.summary)
        #expect(summary.failures(minPSNR: nil, minSSIM: nil).isEmpty)
        #expect(summary.failures(minPSNR: summary.psnr.average, minSSIM: summary.ssim.all).isEmpty)
        let reasons = summary.failures(minPSNR: summary.psnr.average + 0.01, minSSIM: summary.ssim.all + 0.001)
        #expect(reasons.count == 2 && reasons[0].contains("PSNR") && reasons[1].contains("SSIM"))
    }
}
