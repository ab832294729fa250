import Foundation

/// The PSNR of one frame pair, computed as FFmpeg's `psnr` filter does (libavfilter/vf_psnr.c, 8-bit):
/// per plane, MSE = Σ(a − b)² / samples and PSNR = 10·log10(255² / MSE); the average MSE weights each
/// plane by its share of all samples, and the average PSNR is taken from that MSE.
/// Identical planes have MSE 0 and PSNR `+infinity` (FFmpeg prints `inf`).
public struct PSNRFrame: Sendable, Equatable, Codable {
    /// Per-plane mean squared error of the pair (sample values 0–255 squared).
    public var mse: PlaneValues
    /// Σ mse[c] · weight[c] (`mse_avg`).
    public var mseAverage: Double
    /// Per-plane PSNR in dB, `10·log10(255² / mse)`; `+infinity` for identical planes.
    public var psnr: PlaneValues
    /// PSNR of `mseAverage` (`psnr_avg`).
    public var psnrAverage: Double
}

/// FFmpeg's PSNR arithmetic.
package enum PSNR {
    /// The peak sample value of 8-bit video; also FFmpeg's `average_max`, `lrint(Σ 255·weight)`.
    static let peak = 255.0

    /// `get_psnr`: 10·log10(max² / (summed MSE / frames)); `+infinity` when the MSE is 0.
    package static func decibels(mse: Double, frames: Int = 1) -> Double {
        10.0 * log10(peak * peak / (mse / Double(frames)))
    }

    /// The PSNR of `a` against `b` (same size and subsampling; alpha ignored).
    package static func measure(_ a: YUVImage, _ b: YUVImage) throws(ReplayError) -> PSNRFrame {
        let pair = try PlanePair(a, b)
        var squaredErrors = PlaneValues.zero
        for index in 0..<PlanePair.planeCount {
            squaredErrors[index] = Double(sumOfSquaredDifferences(PlanePair.plane(a, index), PlanePair.plane(b, index)))
        }
        return frame(squaredErrors: squaredErrors, of: pair)
    }

    /// The figures of a pair whose planes have the sums of squared differences `squaredErrors`
    /// (integers, exact in a `Double`).
    static func frame(squaredErrors: PlaneValues, of pair: PlanePair) -> PSNRFrame {
        let weights = pair.weights
        var mse = PlaneValues.zero
        var average = 0.0
        for index in 0..<PlanePair.planeCount {
            let plane = PlanePair.plane(pair.a, index)
            mse[index] = squaredErrors[index] / Double(plane.width * plane.height)
            average += mse[index] * weights[index]
        }
        return PSNRFrame(mse: mse, mseAverage: average, psnr: mse.map { decibels(mse: $0) },
                         psnrAverage: decibels(mse: average))
    }

    /// Σ (a − b)² over a plane, exact in integers as FFmpeg's `sse_line_8bit`.
    static func sumOfSquaredDifferences(_ a: Plane, _ b: Plane) -> UInt64 {
        var total: UInt64 = 0
        for y in 0..<a.height {
            let rowA = UnsafePointer(a.base + y * a.stride), rowB = UnsafePointer(b.base + y * b.stride)
            var line: UInt32 = 0
            for x in 0..<a.width {
                let d = Int32(rowA[x]) &- Int32(rowB[x])
                line &+= UInt32(bitPattern: d &* d)
            }
            total &+= UInt64(line)
        }
        return total
    }
}

/// Whole-stream PSNR as FFmpeg logs it when the filter ends: per plane and average from the MSE summed
/// over frames (`get_psnr(Σmse, n)`, not a mean of per-frame PSNRs); `min` is the PSNR of the worst
/// frame's average MSE and `max` that of the best.
package struct PSNRSummary: Sendable, Equatable, Codable {
    package var frames: Int
    package var psnr: PlaneValues
    package var average: Double
    package var min: Double
    package var max: Double

    /// The line FFmpeg logs, e.g. `PSNR y:27.064964 u:26.511387 v:26.546299 average:26.878793 min:… max:…`.
    package var ffmpegLine: String {
        "PSNR y:\(cFormat(psnr.y)) u:\(cFormat(psnr.u)) v:\(cFormat(psnr.v)) average:\(cFormat(average))"
            + " min:\(cFormat(min)) max:\(cFormat(max))"
    }
}

/// Sums per-frame PSNR results into the whole-stream figures, in FFmpeg's order of operations.
package struct PSNRAccumulator: Sendable {
    private var mseSum = 0.0
    private var planeMSESum = PlaneValues.zero
    private var minMSE = Double.infinity
    private var maxMSE = -Double.infinity
    package private(set) var frames = 0

    package init() {}

    package mutating func add(_ frame: PSNRFrame) {
        minMSE = Swift.min(minMSE, frame.mseAverage)
        maxMSE = Swift.max(maxMSE, frame.mseAverage)
        mseSum += frame.mseAverage
        for index in 0..<PlanePair.planeCount { planeMSESum[index] += frame.mse[index] }
        frames += 1
    }

    /// `nil` before the first frame (FFmpeg then logs nothing).
    package var summary: PSNRSummary? {
        guard frames > 0 else { return nil }
        return PSNRSummary(frames: frames, psnr: planeMSESum.map { PSNR.decibels(mse: $0, frames: frames) },
                           average: PSNR.decibels(mse: mseSum, frames: frames),
                           min: PSNR.decibels(mse: maxMSE), max: PSNR.decibels(mse: minMSE))
    }
}

/// `printf("%f")`, which FFmpeg uses for its quality logs (`inf` for infinity).
func cFormat(_ value: Double) -> String {
    String(format: "%f", value)
}
