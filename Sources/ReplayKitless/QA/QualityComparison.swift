/// PSNR and SSIM of one frame pair.
package struct FrameQuality: Sendable, Equatable, Codable {
    /// Position of the pair in the comparison, from 0.
    package var index: Int
    package var psnr: PSNRFrame
    package var ssim: SSIMFrame
}

/// Whole-stream PSNR and SSIM, the figures FFmpeg's `psnr` and `ssim` filters log at the end.
package struct QualitySummary: Sendable, Equatable, Codable {
    package var psnr: PSNRSummary
    package var ssim: SSIMSummary

    /// Why the comparison fails the thresholds, empty when it passes: the average PSNR must be at least
    /// `minPSNR` dB and the `All` SSIM at least `minSSIM`, give or take 1e-9 (the plane weights of `All`
    /// need not sum to exactly 1, so identical streams can score 0.9999999999999999; FFmpeg treats SSIM
    /// within 1e-9 of 1 as perfect too). Infinite PSNR (identical streams) passes any bound.
    package func failures(minPSNR: Double?, minSSIM: Double?) -> [String] {
        var reasons: [String] = []
        if let minPSNR, !(psnr.average >= minPSNR) {
            reasons.append("average PSNR \(cFormat(psnr.average)) dB is below the minimum \(cFormat(minPSNR)) dB")
        }
        if let minSSIM, !(ssim.all >= minSSIM - 1e-9) {
            reasons.append("SSIM All \(cFormat(ssim.all)) is below the minimum \(cFormat(minSSIM))")
        }
        return reasons
    }
}

/// Compares two videos frame by frame (pairs handed in by the caller, in order) and keeps the
/// whole-stream figures. Reuses its SSIM scratch rows: no allocation per frame.
package final class QualityComparison {
    private let ssimMeter = SSIMMeter()
    private var psnrTotals = PSNRAccumulator()
    private var ssimTotals = SSIMAccumulator()

    package init() {}

    /// Measures one pair (`a` is FFmpeg's "main" input, `b` the reference) and adds it to the totals.
    @discardableResult
    package func add(_ a: YUVImage, _ b: YUVImage) throws(ReplayError) -> FrameQuality {
        let (psnr, ssim) = try ssimMeter.measureBoth(a, b)
        let quality = FrameQuality(index: psnrTotals.frames, psnr: psnr, ssim: ssim)
        psnrTotals.add(psnr)
        ssimTotals.add(ssim)
        return quality
    }

    /// `nil` before the first pair.
    package var summary: QualitySummary? {
        guard let psnr = psnrTotals.summary, let ssim = ssimTotals.summary else { return nil }
        return QualitySummary(psnr: psnr, ssim: ssim)
    }
}
