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
/// Owns its scratch rows and reuses them; one meter per thread.
///
/// The sums are computed in another order than FFmpeg's (column sums of four rows, then block sums,
/// each a loop the compiler vectorises), which gives the same integers; the window formula and the
/// `double` accumulation along each row are FFmpeg's, so every value is the same.
package final class SSIMMeter {
    /// `ssim_c1`, `ssim_c2` of vf_ssim.c for 8-bit samples.
    static let c1 = cConstant(0.01 * 0.01 * maxSquared * 64)
    static let c2 = cConstant(0.03 * 0.03 * maxSquared * 64 * 63)
    private static let maxSquared: Double = 255 * 255
    /// `(int)(x + .5)`.
    private static func cConstant(_ x: Double) -> Int { Int(x + 0.5) }

    /// Blocks per row the scratch memory holds.
    private var capacity = 0
    /// Per sample column of one row of blocks: Σa, Σb, Σ(a² + b²), Σab over its 4 rows; 4 arrays of 4·capacity.
    private var columns = UnsafeMutablePointer<Int32>.allocate(capacity: 0)
    /// Two rows of per-block sums, each 4 arrays (Σa, Σb, Σ(a² + b²), Σab) of `capacity`.
    private var blocks = UnsafeMutablePointer<Int32>.allocate(capacity: 0)
    /// One row of window values.
    private var values = UnsafeMutablePointer<Float>.allocate(capacity: 0)
    /// Per plane of the last pair, Σ(a − b)² over the samples inside whole 4×4 blocks.
    private var squaredErrors = PlaneValues.zero

    package init() {}

    deinit {
        columns.deallocate()
        blocks.deallocate()
        values.deallocate()
    }

    /// The SSIM of `a` against `b` (same size and subsampling; alpha ignored).
    package func measure(_ a: YUVImage, _ b: YUVImage) throws(ReplayError) -> SSIMFrame {
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
            let (value, errors) = plane(PlanePair.plane(a, index), PlanePair.plane(b, index))
            ssim[index] = value
            squaredErrors[index] = Double(errors)
            all += weights[index] * ssim[index]
        }
        return SSIMFrame(ssim: ssim, all: all)
    }

    /// PSNR and SSIM of `a` against `b` in one pass over the samples. Inside whole 4×4 blocks the sum of
    /// squared differences comes from the SSIM block sums, Σ(a − b)² = Σ(a² + b²) − 2·Σab, exactly; the
    /// samples right of and below the last whole block are added directly. Same figures as
    /// ``PSNR/measure(_:_:)`` and ``measure(_:_:)``.
    package func measureBoth(_ a: YUVImage, _ b: YUVImage) throws(ReplayError) -> (psnr: PSNRFrame, ssim: SSIMFrame) {
        squaredErrors = .zero
        let ssim = try measure(a, b)
        let pair = try PlanePair(a, b)
        for index in 0..<PlanePair.planeCount {
            let pa = PlanePair.plane(a, index), pb = PlanePair.plane(b, index)
            let covered = (width: pa.width & ~3, height: pa.height & ~3)
            var rest: UInt64 = 0
            if covered.width < pa.width {
                rest += PSNR.sumOfSquaredDifferences(pa.region(x: covered.width, y: 0, width: pa.width - covered.width, height: covered.height),
                                                     pb.region(x: covered.width, y: 0, width: pa.width - covered.width, height: covered.height))
            }
            if covered.height < pa.height {
                rest += PSNR.sumOfSquaredDifferences(pa.region(x: 0, y: covered.height, width: pa.width, height: pa.height - covered.height),
                                                     pb.region(x: 0, y: covered.height, width: pa.width, height: pa.height - covered.height))
            }
            squaredErrors[index] += Double(rest)
        }
        return (PSNR.frame(squaredErrors: squaredErrors, of: pair), ssim)
    }

    /// Grows the scratch memory when a wider picture arrives; otherwise reuses it.
    private func reserve(blocks count: Int) {
        guard count > capacity else { return }
        columns.deallocate()
        blocks.deallocate()
        values.deallocate()
        capacity = count
        columns = .allocate(capacity: 16 * count)
        blocks = .allocate(capacity: 8 * count)
        values = .allocate(capacity: count)
    }

    /// `ssim_plane`: slides two rows of 4×4 block sums down the plane. Also returns Σ(a − b)² over
    /// the whole blocks (every row of blocks is summed exactly once).
    private func plane(_ a: Plane, _ b: Plane) -> (ssim: Double, squaredErrors: Int64) {
        let blocksX = a.width >> 2, blocksY = a.height >> 2
        var current = blocks, previous = blocks + 4 * capacity
        var total = 0.0
        var squaredErrors: Int64 = 0
        var z = 0
        for y in 1..<blocksY {
            while z <= y {
                swap(&current, &previous)
                blockSums(a.base + 4 * z * a.stride, a.stride, b.base + 4 * z * b.stride, b.stride, into: current, count: blocksX)
                let ss = current + 2 * capacity, s12 = current + 3 * capacity
                for block in 0..<blocksX { squaredErrors &+= Int64(ss[block] &- 2 &* s12[block]) }
                z += 1
            }
            total += windows(current, previous, count: blocksX - 1)
        }
        return (total / Double((blocksX - 1) * (blocksY - 1)), squaredErrors)
    }

    /// `ssim_4x4xn_8bit`: the sums of one row of 4×4 blocks, into `out`'s four arrays: first each
    /// sample column's sums over the 4 rows (one pass, vectorised), then every 4 columns added.
    private func blockSums(_ a: UnsafeMutablePointer<UInt8>, _ strideA: Int, _ b: UnsafeMutablePointer<UInt8>, _ strideB: Int,
                           into out: UnsafeMutablePointer<Int32>, count: Int) {
        let width = 4 * count, stride = 4 * capacity
        let s1 = columns, s2 = columns + stride, ss = columns + 2 * stride, s12 = columns + 3 * stride
        let a1 = a + strideA, a2 = a + 2 * strideA, a3 = a + 3 * strideA
        let b1 = b + strideB, b2 = b + 2 * strideB, b3 = b + 3 * strideB
        for x in 0..<width {
            let x0 = Int32(a[x]), x1 = Int32(a1[x]), x2 = Int32(a2[x]), x3 = Int32(a3[x])
            let y0 = Int32(b[x]), y1 = Int32(b1[x]), y2 = Int32(b2[x]), y3 = Int32(b3[x])
            s1[x] = x0 &+ x1 &+ x2 &+ x3
            s2[x] = y0 &+ y1 &+ y2 &+ y3
            ss[x] = x0 &* x0 &+ x1 &* x1 &+ x2 &* x2 &+ x3 &* x3 &+ y0 &* y0 &+ y1 &* y1 &+ y2 &* y2 &+ y3 &* y3
            s12[x] = x0 &* y0 &+ x1 &* y1 &+ x2 &* y2 &+ x3 &* y3
        }
        Self.addFours(s1, into: out, count: count)
        Self.addFours(s2, into: out + capacity, count: count)
        Self.addFours(ss, into: out + 2 * capacity, count: count)
        Self.addFours(s12, into: out + 3 * capacity, count: count)
    }

    /// Column sums to block sums: each four neighbouring columns added.
    @inline(__always)
    private static func addFours(_ columns: UnsafeMutablePointer<Int32>, into blocks: UnsafeMutablePointer<Int32>, count: Int) {
        for block in 0..<count {
            let x = 4 * block
            blocks[block] = columns[x] &+ columns[x + 1] &+ columns[x + 2] &+ columns[x + 3]
        }
    }

    /// `ssim_endn_8bit`: one SSIM value per 8×8 window along a row, four windows at a time, then summed
    /// in `double` in window order.
    private func windows(_ row0: UnsafeMutablePointer<Int32>, _ row1: UnsafeMutablePointer<Int32>, count: Int) -> Double {
        let stride = capacity
        /// The sums of windows `i…i+3` of one of the four arrays.
        @inline(__always) func sums(_ array: Int, _ i: Int) -> SIMD4<Int32> {
            let offset = array * stride + i
            return load(row0 + offset) &+ load(row0 + offset + 1) &+ load(row1 + offset) &+ load(row1 + offset + 1)
        }
        var i = 0
        while i + 4 <= count {
            let value = Self.window(sums(0, i), sums(1, i), sums(2, i), sums(3, i))
            UnsafeMutableRawPointer(values + i).storeBytes(of: value, as: SIMD4<Float>.self)
            i += 4
        }
        // The last windows one by one: a vector load would read past the arrays.
        @inline(__always) func sum(_ array: Int, _ i: Int) -> SIMD4<Int32> {
            let offset = array * stride + i
            return SIMD4(repeating: row0[offset] &+ row0[offset + 1] &+ row1[offset] &+ row1[offset + 1])
        }
        while i < count {
            values[i] = Self.window(sum(0, i), sum(1, i), sum(2, i), sum(3, i))[0]
            i += 1
        }
        var total = 0.0
        for i in 0..<count { total += Double(values[i]) }
        return total
    }

    @inline(__always)
    private func load(_ pointer: UnsafeMutablePointer<Int32>) -> SIMD4<Int32> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<Int32>.self)
    }

    /// `ssim_end1` for four windows: integer moments in `int`, then the SSIM formula in single precision,
    /// lane by lane exactly as the C code computes one window. For 8-bit sums no intermediate leaves the `int` range.
    @inline(__always)
    static func window(_ s1: SIMD4<Int32>, _ s2: SIMD4<Int32>, _ ss: SIMD4<Int32>, _ s12: SIMD4<Int32>) -> SIMD4<Float> {
        let c1 = SIMD4<Int32>(repeating: Int32(Self.c1)), c2 = SIMD4<Int32>(repeating: Int32(Self.c2))
        let variance = ss &* 64 &- s1 &* s1 &- s2 &* s2
        let covariance = s12 &* 64 &- s1 &* s2
        return SIMD4<Float>(2 &* s1 &* s2 &+ c1) * SIMD4<Float>(2 &* covariance &+ c2)
            / (SIMD4<Float>(s1 &* s1 &+ s2 &* s2 &+ c1) * SIMD4<Float>(variance &+ c2))
    }
}

/// FFmpeg's SSIM decibel conversion.
package enum SSIM {
    /// `ssim_db`: 10·log10(weight / (weight − ssim)), `+infinity` when they are within 1e-9.
    package static func decibels(_ ssim: Double, weight: Double) -> Double {
        abs(weight - ssim) > 1e-9 ? 10.0 * log10(weight / (weight - ssim)) : .infinity
    }
}

/// Whole-stream SSIM as FFmpeg logs it when the filter ends: the mean of per-frame values.
package struct SSIMSummary: Sendable, Equatable, Codable {
    package var frames: Int
    package var ssim: PlaneValues
    package var all: Double
    /// Per-plane decibels, `ssim_db(Σssim, n)`.
    package var planeDecibels: PlaneValues
    package var allDecibels: Double

    /// The line FFmpeg logs, e.g. `SSIM Y:0.989350 (19.726645) U:… V:… All:0.987989 (19.204122)`.
    package var ffmpegLine: String {
        "SSIM Y:\(cFormat(ssim.y)) (\(cFormat(planeDecibels.y))) U:\(cFormat(ssim.u)) (\(cFormat(planeDecibels.u)))"
            + " V:\(cFormat(ssim.v)) (\(cFormat(planeDecibels.v))) All:\(cFormat(all)) (\(cFormat(allDecibels)))"
    }
}

/// Sums per-frame SSIM results into the whole-stream figures, in FFmpeg's order of operations.
package struct SSIMAccumulator: Sendable {
    private var planeSum = PlaneValues.zero
    private var allSum = 0.0
    package private(set) var frames = 0

    package init() {}

    package mutating func add(_ frame: SSIMFrame) {
        for index in 0..<PlanePair.planeCount { planeSum[index] += frame.ssim[index] }
        allSum += frame.all
        frames += 1
    }

    /// `nil` before the first frame (FFmpeg then logs nothing).
    package var summary: SSIMSummary? {
        guard frames > 0 else { return nil }
        let n = Double(frames)
        return SSIMSummary(frames: frames, ssim: planeSum.map { $0 / n }, all: allSum / n,
                           planeDecibels: planeSum.map { SSIM.decibels($0, weight: n) },
                           allDecibels: SSIM.decibels(allSum, weight: n))
    }
}
