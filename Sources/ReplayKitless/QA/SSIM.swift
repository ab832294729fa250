import Foundation

/// The SSIM of one frame pair, computed as FFmpeg's `ssim` filter does (libavfilter/vf_ssim.c, 8-bit).
public struct SSIMFrame: Sendable, Equatable, Codable {
    /// Per-plane SSIM, 1 for identical planes.
    public var ssim: PlaneValues
    /// `All`: per-plane SSIM weighted by each plane's share of all samples.
    public var all: Double
    /// `All` in decibels, 10·log10(1 / (1 − All)); `+infinity` within 1e-9 of 1.
    public var decibels: Double { SSIM.decibels(all, weight: 1) }
}

/// Computes SSIM the way FFmpeg's `ssim` filter does (a faithful port of its C path, 8-bit).
///
/// Each plane is cut into 4×4 blocks; for every 2×2 group of neighbouring blocks (an 8×8 window
/// overlapping its neighbours by 4 pixels) the sums Σa, Σb, Σa²+Σb² and Σab give one SSIM value with
/// c1 = round(0.01²·255²·64) and c2 = round(0.03²·255²·64·63), computed in `int` then `float` as
/// `ssim_end1` does; the plane's SSIM is the mean over all windows (accumulated in `double`).
/// Rows and columns beyond the last whole 4×4 block are ignored, so planes need at least 8×8 samples.
///
/// FFmpeg's x86 builds replace the window loop with SSE4 assembly (`ff_ssim_end_line_sse4`) that sums
/// the same window values in another order (differences around 1e-15) and, in a row of 4k+1 windows
/// (⌊plane width/4⌋ − 1 ≡ 1 mod 4: widths 40, 360, 1080, …), leaves out the row's last window and counts
/// one computed from stale scratch sums instead. This port follows the portable C code, so for such
/// widths x86 FFmpeg can print a value off by up to about 1/(windows per row).
///
/// Owns its two scratch rows of block sums and reuses them; one meter per thread.
public final class SSIMMeter {
    /// `ssim_c1`, `ssim_c2` of vf_ssim.c for 8-bit samples.
    static let c1 = cConstant(0.01 * 0.01 * maxSquared * 64)
    static let c2 = cConstant(0.03 * 0.03 * maxSquared * 64 * 63)
    private static let maxSquared: Double = 255 * 255
    /// `(int)(x + .5)`.
    private static func cConstant(_ x: Double) -> Int { Int(x + 0.5) }

    /// Two rows of per-block sums (s1, s2, ss, s12), `capacity` blocks each.
    private var sums: UnsafeMutablePointer<SIMD4<Int32>>
    private var capacity: Int

    public init() {
        capacity = 0
        sums = .allocate(capacity: 0)
    }

    deinit { sums.deallocate() }

    /// The SSIM of `a` against `b` (same size and subsampling; alpha ignored).
    public func measure(_ a: YUVImage, _ b: YUVImage) throws(ReplayError) -> SSIMFrame {
        let pair = try PlanePair(a, b)
        for index in 0..<PlanePair.planeCount {
            let plane = PlanePair.plane(a, index)
            guard plane.width >= 8, plane.height >= 8 else {
                throw .badInput("a \(a.width)×\(a.height) picture is too small for SSIM: every plane needs at least 8×8 samples")
            }
        }
        reserve(blocks: a.luma.width >> 2)
        let weights = pair.weights
        var ssim = PlaneValues.zero
        var all = 0.0
        for index in 0..<PlanePair.planeCount {
            ssim[index] = plane(PlanePair.plane(a, index), PlanePair.plane(b, index))
            all += weights[index] * ssim[index]
        }
        return SSIMFrame(ssim: ssim, all: all)
    }

    /// Grows the scratch rows when a wider picture arrives; otherwise reuses them.
    private func reserve(blocks: Int) {
        guard blocks > capacity else { return }
        sums.deallocate()
        capacity = blocks
        sums = .allocate(capacity: 2 * capacity)
    }

    /// `ssim_plane`: slides two rows of 4×4 block sums down the plane.
    private func plane(_ a: Plane, _ b: Plane) -> Double {
        let blocksX = a.width >> 2, blocksY = a.height >> 2
        var current = sums, previous = sums + capacity
        var total = 0.0
        var z = 0
        for y in 1..<blocksY {
            while z <= y {
                swap(&current, &previous)
                blockSums(a.base + 4 * z * a.stride, a.stride, b.base + 4 * z * b.stride, b.stride, into: current, count: blocksX)
                z += 1
            }
            total += windows(current, previous, count: blocksX - 1)
        }
        return total / Double((blocksX - 1) * (blocksY - 1))
    }

    /// `ssim_4x4xn_8bit`: sums of one row of 4×4 blocks.
    @inline(__always)
    private func blockSums(_ a: UnsafeMutablePointer<UInt8>, _ strideA: Int, _ b: UnsafeMutablePointer<UInt8>, _ strideB: Int,
                           into out: UnsafeMutablePointer<SIMD4<Int32>>, count: Int) {
        for block in 0..<count {
            var s1: Int32 = 0, s2: Int32 = 0, ss: Int32 = 0, s12: Int32 = 0
            for row in 0..<4 {
                let pa = a + row * strideA + 4 * block, pb = b + row * strideB + 4 * block
                for x in 0..<4 {
                    let va = Int32(pa[x]), vb = Int32(pb[x])
                    s1 &+= va
                    s2 &+= vb
                    ss &+= va &* va &+ vb &* vb
                    s12 &+= va &* vb
                }
            }
            out[block] = SIMD4(s1, s2, ss, s12)
        }
    }

    /// `ssim_endn_8bit`: one SSIM value per 8×8 window along a row, summed in `double`.
    @inline(__always)
    private func windows(_ row0: UnsafeMutablePointer<SIMD4<Int32>>, _ row1: UnsafeMutablePointer<SIMD4<Int32>>, count: Int) -> Double {
        var total = 0.0
        for i in 0..<count {
            let s = row0[i] &+ row0[i + 1] &+ row1[i] &+ row1[i + 1]
            total += Double(Self.window(Int(s[0]), Int(s[1]), Int(s[2]), Int(s[3])))
        }
        return total
    }

    /// `ssim_end1`: integer moments, then the SSIM formula in single precision. No `int` overflow is
    /// possible for 8-bit sums, so 64-bit integers give the same values as the C code.
    @inline(__always)
    static func window(_ s1: Int, _ s2: Int, _ ss: Int, _ s12: Int) -> Float {
        let variance = ss * 64 - s1 * s1 - s2 * s2
        let covariance = s12 * 64 - s1 * s2
        return Float(2 * s1 * s2 + c1) * Float(2 * covariance + c2)
            / (Float(s1 * s1 + s2 * s2 + c1) * Float(variance + c2))
    }
}

/// FFmpeg's SSIM decibel conversion.
public enum SSIM {
    /// `ssim_db`: 10·log10(weight / (weight − ssim)), `+infinity` when they are within 1e-9.
    public static func decibels(_ ssim: Double, weight: Double) -> Double {
        abs(weight - ssim) > 1e-9 ? 10.0 * log10(weight / (weight - ssim)) : .infinity
    }
}

/// Whole-stream SSIM as FFmpeg logs it when the filter ends: the mean of per-frame values.
public struct SSIMSummary: Sendable, Equatable, Codable {
    public var frames: Int
    public var ssim: PlaneValues
    public var all: Double
    /// Per-plane decibels, `ssim_db(Σssim, n)`.
    public var planeDecibels: PlaneValues
    public var allDecibels: Double

    /// The line FFmpeg logs, e.g. `SSIM Y:0.989350 (19.726645) U:… V:… All:0.987989 (19.204122)`.
    public var ffmpegLine: String {
        "SSIM Y:\(cFormat(ssim.y)) (\(cFormat(planeDecibels.y))) U:\(cFormat(ssim.u)) (\(cFormat(planeDecibels.u)))"
            + " V:\(cFormat(ssim.v)) (\(cFormat(planeDecibels.v))) All:\(cFormat(all)) (\(cFormat(allDecibels)))"
    }
}

/// Sums per-frame SSIM results into the whole-stream figures, in FFmpeg's order of operations.
public struct SSIMAccumulator: Sendable {
    private var planeSum = PlaneValues.zero
    private var allSum = 0.0
    public private(set) var frames = 0

    public init() {}

    public mutating func add(_ frame: SSIMFrame) {
        for index in 0..<PlanePair.planeCount { planeSum[index] += frame.ssim[index] }
        allSum += frame.all
        frames += 1
    }

    /// `nil` before the first frame (FFmpeg then logs nothing).
    public var summary: SSIMSummary? {
        guard frames > 0 else { return nil }
        let n = Double(frames)
        return SSIMSummary(frames: frames, ssim: planeSum.map { $0 / n }, all: allSum / n,
                           planeDecibels: planeSum.map { SSIM.decibels($0, weight: n) },
                           allDecibels: SSIM.decibels(allSum, weight: n))
    }
}
