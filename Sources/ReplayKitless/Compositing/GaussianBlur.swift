import CKernels
import Foundation

/// Gaussian blur of 8-bit planes, separable, with a bounded cost per sample whatever σ.
///
/// Along each direction independently:
/// - σ < 3: direct convolution with the sampled Gaussian out to ⌈4σ⌉ (at most 25 taps).
/// - σ ≥ 3: four successive *extended* box blurs (Gwosdek, Grewenig, Bruhn, Weickert, “Theoretical
///   foundations of Gaussian convolution by extended box filtering”, 2011): a box of radius r plus
///   a fractional weight on the two samples just outside it, which gives each pass exactly the
///   variance σ²/4. Plain boxes of odd integer width (Kovesi's / Kutskir's “boxes for gauss”) miss
///   σ² by up to a width step, e.g. σ = 3 comes out as 2.83, and are far off below σ ≈ 2. Each pass
///   is a running (integer) sum: constant time per sample. The weights are fixed point (16 fraction
///   bits, 23 for radii beyond 63) summing exactly to one, and the cascade runs in C (`CKernels`,
///   `blur.c`): AVX2 where the CPU has it, 16 lines at a time, all four passes in one sweep.
///
/// Edges repeat the outermost sample (clamp-to-edge), once for the whole cascade of passes, as for
/// a single Gaussian (clamping again before every pass bends the result near the edges by up to
/// ±14 at σ = 15). Every pass rounds to 8 bits, to nearest, so a
/// constant plane stays exactly constant. Against an exact Gaussian the result is within ±1 for
/// σ < 3 and within ±5 (on average under 1) from σ = 3 on, measured on hard-edged content.
///
/// From σ = 3 on, rows and then columns are split over `workers` threads (``RowBands``): lines are
/// independent and the arithmetic is exact, so the bytes are the same for any worker count. The
/// sampled kernel (σ < 3, the masks' feathering) runs on the calling thread. The blur owns its
/// scratch memory: one blur serves one picture at a time.
package final class GaussianBlur {
    /// Largest σ honoured; larger values are treated as this one.
    package static let maximumSigma = 2000.0

    /// Threads the box cascade may use.
    package let workers: Int
    private var intermediateMemory = ScratchBuffer<UInt8>()
    private var paddedRowMemory = ScratchBuffer<UInt8>()
    private var accumulatorMemory = ScratchBuffer<Float>()
    private var weightsMemoryX = ScratchBuffer<Float>()
    private var weightsMemoryY = ScratchBuffer<Float>()
    /// The box cascade's scratch, one block per band of rows or strips.
    private var bandScratchMemory = ScratchBuffer<UInt8>()

    /// - Parameter workers: threads for the box cascade; `nil` uses every core this process may use.
    package init(workers: Int? = nil) {
        self.workers = max(1, workers ?? RowBands.availableCores)
    }

    /// Blurs every plane of `source` into `destination` (same size and layout; they may be the
    /// same image) with σ = `sigma` pixels at luma resolution. Chroma planes use σ divided by the
    /// subsampling factor in each direction (σ/2 both ways for 4:2:0, σ/2 along rows for 4:2:2),
    /// so the blur has the same extent in the picture. The alpha plane is blurred when both have one.
    package func blur(_ source: YUVImage, into destination: YUVImage, sigma: Double) {
        precondition(source.luma.hasSameSize(as: destination.luma) && source.subsampling == destination.subsampling,
                     "blur source and destination layouts differ")
        blur(source.luma, into: destination.luma, sigmaX: sigma, sigmaY: sigma)
        let chromaSigmaX = sigma / Double(1 << source.subsampling.shiftX)
        let chromaSigmaY = sigma / Double(1 << source.subsampling.shiftY)
        blur(source.cb, into: destination.cb, sigmaX: chromaSigmaX, sigmaY: chromaSigmaY)
        blur(source.cr, into: destination.cr, sigmaX: chromaSigmaX, sigmaY: chromaSigmaY)
        if let alpha = source.alpha, let alphaOut = destination.alpha {
            blur(alpha, into: alphaOut, sigmaX: sigma, sigmaY: sigma)
        }
    }

    /// Blurs `source` into `destination` (same size; may be the same plane) with standard deviations
    /// `sigmaX` along rows and `sigmaY` down columns, in pixels. σ ≤ 0 (or NaN) leaves a direction
    /// alone; σ = 0 both ways copies.
    package func blur(_ source: Plane, into destination: Plane, sigmaX: Double, sigmaY: Double) {
        precondition(source.hasSameSize(as: destination), "blur source and destination sizes differ")
        let alongRows = BlurKernel(sigma: sigmaX, weights: &weightsMemoryX)
        let alongColumns = BlurKernel(sigma: sigmaY, weights: &weightsMemoryY)
        let sameMemory = source.base == destination.base
        if source.width == 0 || source.height == 0 { return }
        if alongRows.passes == 0 && alongColumns.passes == 0 {
            if !sameMemory { destination.copy(from: source) }
            return
        }
        let width = source.width, height = source.height
        // The box cascade works in place both ways; the sampled column pass must not read the plane
        // it writes, so rows then go to a scratch plane (and so does an unblurred source).
        let columnsInPlace = alongColumns.box != nil || alongColumns.passes == 0
        let rowTarget = columnsInPlace ? destination : intermediateMemory.plane(width: width, height: height)
        var current = source
        if let box = alongRows.box {
            boxRows(source, into: rowTarget, kernel: box)
            current = rowTarget
        } else if case .sampled(let radius, let weights) = alongRows.method {
            let lineLength = width + 2 * radius
            let line = paddedRowMemory.reserve(lineLength)
            let accumulator = accumulatorMemory.reserve(lineLength)
            for y in 0..<height {
                Self.blurRow(source.base + y * source.stride, into: rowTarget.base + y * rowTarget.stride, count: width,
                             radius: radius, weights: weights, line: line, accumulator: accumulator)
            }
            current = rowTarget
        } else if !columnsInPlace && sameMemory {
            rowTarget.copy(from: source)
            current = rowTarget
        }
        if let box = alongColumns.box {
            boxColumns(current, into: destination, kernel: box)
        } else if case .sampled(let radius, let weights) = alongColumns.method, alongColumns.passes > 0 {
            let accumulator = accumulatorMemory.reserve(width)
            let last = height - 1
            Self.blurColumns({ [current] row in current.base + min(max(row - radius, 0), last) * current.stride },
                             into: destination, radius: radius, weights: weights, accumulator: accumulator)
        }
    }

    // MARK: Box cascade (CKernels)

    /// Bands of rows on `workers` threads, each with its own scratch.
    private func boxRows(_ source: Plane, into destination: Plane, kernel: ck_box_kernel) {
        let scratch = bandScratch(bytes: ck_box_scratch_bytes(kernel, Int32(source.width)), rows: source.height, minimumRows: 16)
        RowBands.forEachBand(rows: source.height, workers: workers, minimumRows: 16) { band, rows in
            ck_box_blur_rows(source.base + rows.lowerBound * source.stride, source.stride,
                             destination.base + rows.lowerBound * destination.stride, destination.stride,
                             Int32(source.width), Int32(rows.count), kernel, scratch(band))
        }
    }

    /// Bands of 16-column strips on `workers` threads, each with its own scratch.
    private func boxColumns(_ source: Plane, into destination: Plane, kernel: ck_box_kernel) {
        let strip = 16, strips = (source.width + strip - 1) / strip
        let scratch = bandScratch(bytes: ck_box_scratch_bytes(kernel, 0), rows: strips, minimumRows: 4)
        RowBands.forEachBand(rows: strips, workers: workers, minimumRows: 4) { band, strips in
            let start = strips.lowerBound * strip, end = min(strips.upperBound * strip, source.width)
            ck_box_blur_columns(source.base + start, source.stride, destination.base + start, destination.stride,
                                Int32(end - start), Int32(source.height), kernel, scratch(band))
        }
    }

    /// `bytes` of scratch for each band `RowBands` cuts `rows` into, each block on its own cache lines.
    private func bandScratch(bytes: Int, rows: Int, minimumRows: Int) -> (Int) -> UnsafeMutableRawPointer {
        let block = (bytes + 63) & ~63, bands = RowBands.count(rows: rows, workers: workers, minimumRows: minimumRows)
        let base = UnsafeMutableRawPointer(bandScratchMemory.reserve(bands * block))
        return { band in base + band * block }
    }

    // MARK: Sampled kernel (σ < 3)

    /// The sampled kernel along one row; `input` may equal `output`. The row is first copied into
    /// `line` with its edge samples repeated `radius` times, then convolved tap by tap over the whole
    /// row, so every inner loop is a plain vector loop.
    private static func blurRow(_ input: UnsafeMutablePointer<UInt8>, into output: UnsafeMutablePointer<UInt8>, count: Int,
                                radius: Int, weights: UnsafeMutablePointer<Float>, line: UnsafeMutablePointer<UInt8>,
                                accumulator: UnsafeMutablePointer<Float>) {
        line.update(repeating: input[0], count: radius)
        (line + radius).update(from: input, count: count)
        (line + radius + count).update(repeating: input[count - 1], count: radius)
        accumulator.update(repeating: 0, count: count)
        for k in 0...(2 * radius) {
            let weight = weights[k], taps = line + k
            for x in 0..<count { accumulator[x] += weight * Float(taps[x]) }
        }
        for x in 0..<count { output[x] = roundedByte(accumulator[x]) }
    }

    /// The sampled kernel down every column at once, so each inner loop walks a row: output row y
    /// reads input rows y … y + 2·`radius` (`input` clamps). The input must not be the output's memory.
    private static func blurColumns(_ input: (Int) -> UnsafeMutablePointer<UInt8>, into destination: Plane, radius: Int,
                                    weights: UnsafeMutablePointer<Float>, accumulator: UnsafeMutablePointer<Float>) {
        let count = destination.width
        for y in 0..<destination.height {
            let output = destination.base + y * destination.stride
            accumulator.update(repeating: 0, count: count)
            for k in 0...(2 * radius) {
                let source = input(y + k), weight = weights[k]
                for x in 0..<count { accumulator[x] += weight * Float(source[x]) }
            }
            for x in 0..<count { output[x] = roundedByte(accumulator[x]) }
        }
    }
}

/// How one direction of the blur is done (see ``GaussianBlur``).
struct BlurKernel {
    enum Method {
        /// Taps `weights[0 ... 2·radius]` for offsets −radius…radius, summing to 1.
        case sampled(radius: Int, weights: UnsafeMutablePointer<Float>)
        /// Weight `inner` on offsets −radius…radius and `outer` (at most `inner`) on ±(radius + 1),
        /// in fixed point with `shift` fraction bits: (2·radius + 1) · inner + 2 · outer = 1 << shift.
        case extendedBox(radius: Int, inner: UInt32, outer: UInt32, shift: Int)
    }

    /// Below this σ the sampled kernel is used.
    static let directLimit = 3.0
    static let boxPasses = 4

    let method: Method
    /// How many times `method` is applied (0: this direction is left alone).
    let passes: Int
    /// The furthest offset any tap of one pass reaches.
    let padding: Int
    /// The furthest offset the whole cascade of passes reaches.
    var reach: Int { padding * passes }

    /// The cascade as the C kernel takes it, when this direction is an extended-box cascade.
    var box: ck_box_kernel? {
        guard passes > 0, case .extendedBox(let radius, let inner, let outer, let shift) = method else { return nil }
        return ck_box_kernel(radius: Int32(radius), passes: Int32(passes), inner: inner, outer: outer, shift: Int32(shift))
    }

    /// The kernel for `sigma`, writing sampled weights into `weights`.
    init(sigma: Double, weights: inout ScratchBuffer<Float>) {
        let sigma = sigma.isNaN ? 0 : min(max(sigma, 0), GaussianBlur.maximumSigma)
        if sigma == 0 {
            (method, passes, padding) = (.extendedBox(radius: 0, inner: 1, outer: 0, shift: 0), 0, 0)
        } else if sigma < Self.directLimit {
            let radius = Int((4 * sigma).rounded(.up))
            let taps = weights.reserve(2 * radius + 1)
            func gaussian(_ offset: Int) -> Double { exp(-Double(offset * offset) / (2 * sigma * sigma)) }
            let total = (-radius...radius).reduce(0) { $0 + gaussian($1) }
            for offset in -radius...radius { taps[offset + radius] = Float(gaussian(offset) / total) }
            (method, passes, padding) = (.sampled(radius: radius, weights: taps), 1, radius)
        } else {
            // Per pass variance v: the largest box radius with r(r+1)/3 ≤ v, and the outer weight
            // α = (2r+1)(3v − r(r+1)) / (6((r+1)² − v)) that makes the variance exactly v.
            let v = sigma * sigma / Double(Self.boxPasses)
            let r = Int(((12 * v + 1).squareRoot() - 1) / 2)
            let rr = Double(r)
            let alpha = min(max((2 * rr + 1) * (3 * v - rr * (rr + 1)) / (6 * ((rr + 1) * (rr + 1) - v)), 0), 1)
            // Fixed point: 16 fraction bits keep the AVX2 path's 16-bit products (radius ≤ 63); wider
            // boxes have small weights and take 23 bits (255 · 2²³ still fits 32 bits).
            let shift = r <= 63 ? 16 : 23, one = 1 << shift
            // `inner` even, so that the two outer weights split the rest exactly.
            var inner = 2 * Int((Double(one) / (2 * rr + 1 + 2 * alpha) / 2).rounded())
            if (2 * r + 1) * inner > one { inner -= 2 }
            let outer = (one - (2 * r + 1) * inner) / 2
            (method, passes, padding) = (.extendedBox(radius: r, inner: UInt32(inner), outer: UInt32(outer), shift: shift),
                                         Self.boxPasses, r + 1)
        }
    }
}
