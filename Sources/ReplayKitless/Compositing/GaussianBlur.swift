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
///   is a running (integer) sum: constant time per sample.
///
/// Edges repeat the outermost sample (clamp-to-edge). Every pass rounds to 8 bits, to nearest, so a
/// constant plane stays exactly constant. Against an exact Gaussian the result is within ±3
/// (typically ±1) on hard-edged content. The blur owns its scratch memory; use one per thread.
public final class GaussianBlur {
    /// Largest σ honoured; larger values are treated as this one.
    public static let maximumSigma = 2000.0

    private var intermediateMemory = ScratchBuffer<UInt8>()
    private var paddedRowMemory = ScratchBuffer<UInt8>()
    private var prefixSumMemory = ScratchBuffer<Int32>()
    private var columnSumMemory = ScratchBuffer<Int32>()
    private var accumulatorMemory = ScratchBuffer<Float>()
    private var weightsMemoryX = ScratchBuffer<Float>()
    private var weightsMemoryY = ScratchBuffer<Float>()

    public init() {}

    /// Blurs every plane of `source` into `destination` (same size and layout; they may be the
    /// same image) with σ = `sigma` pixels at luma resolution. Chroma planes use σ divided by the
    /// subsampling factor in each direction (σ/2 both ways for 4:2:0, σ/2 along rows for 4:2:2),
    /// so the blur has the same extent in the picture. The alpha plane is blurred when both have one.
    public func blur(_ source: YUVImage, into destination: YUVImage, sigma: Double) {
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
    public func blur(_ source: Plane, into destination: Plane, sigmaX: Double, sigmaY: Double) {
        precondition(source.hasSameSize(as: destination), "blur source and destination sizes differ")
        let alongRows = BlurKernel(sigma: sigmaX, weights: &weightsMemoryX)
        let alongColumns = BlurKernel(sigma: sigmaY, weights: &weightsMemoryY)
        let sameMemory = source.base == destination.base
        if source.width == 0 || source.height == 0 { return }
        if alongRows.passes == 0 && alongColumns.passes == 0 {
            if !sameMemory { destination.copy(from: source) }
            return
        }
        let intermediate = intermediateMemory.plane(width: source.width, height: source.height)
        let accumulator = accumulatorMemory.reserve(source.width)
        // Column passes ping-pong between the intermediate plane and the destination and must end
        // in the destination, so they start from whichever of the two makes that come out right.
        let columnStart = alongColumns.passes % 2 == 0 ? destination : intermediate
        var current = source
        if alongRows.passes > 0 {
            let paddedCount = source.width + 2 * alongRows.padding
            let padded = paddedRowMemory.reserve(paddedCount)
            let prefix = prefixSumMemory.reserve(paddedCount + 1)
            for y in 0..<source.height {
                Self.blurRow(source.base + y * source.stride, into: columnStart.base + y * columnStart.stride,
                             count: source.width, kernel: alongRows,
                             padded: padded, prefix: prefix, accumulator: accumulator)
            }
            current = columnStart
        } else if alongColumns.passes % 2 == 1 && sameMemory {
            intermediate.copy(from: source)  // an odd number of column passes cannot run in place
            current = intermediate
        }
        let columnSums = columnSumMemory.reserve(source.width)
        for pass in 0..<alongColumns.passes {
            let target = (alongColumns.passes - pass) % 2 == 1 ? destination : intermediate
            Self.blurColumns(current, into: target, kernel: alongColumns, sums: columnSums, accumulator: accumulator)
            current = target
        }
    }

    // MARK: Along rows

    /// All passes of `kernel` along one row. Each pass first copies its input into `padded` with the
    /// edge samples repeated, so the kernels need no clamping; `input` may equal `output`.
    private static func blurRow(_ input: UnsafeMutablePointer<UInt8>, into output: UnsafeMutablePointer<UInt8>,
                                count: Int, kernel: BlurKernel, padded: UnsafeMutablePointer<UInt8>,
                                prefix: UnsafeMutablePointer<Int32>, accumulator: UnsafeMutablePointer<Float>) {
        let pad = kernel.padding
        for pass in 0..<kernel.passes {
            let from = pass == 0 ? input : output
            padded.update(repeating: from[0], count: pad)
            (padded + pad).update(from: from, count: count)
            (padded + pad + count).update(repeating: from[count - 1], count: pad)
            switch kernel.method {
            case .sampled(let radius, let weights):
                // Tap by tap over the whole row, so every inner loop is a plain vector loop.
                accumulator.update(repeating: 0, count: count)
                for k in 0...(2 * radius) {
                    let weight = weights[k], taps = padded + pad - radius + k
                    for x in 0..<count { accumulator[x] += weight * Float(taps[x]) }
                }
                for x in 0..<count { output[x] = roundedByte(accumulator[x]) }
            case .extendedBox(let radius, let inner, let outer):
                // Prefix sums turn every window sum into one subtraction; only the scan is serial.
                var running: Int32 = 0
                prefix[0] = 0
                let sums = prefix + 1
                for i in 0..<(count + 2 * pad) {
                    running &+= Int32(padded[i])
                    sums[i] = running
                }
                // Base pointers per offset keep the vector loop free of index arithmetic.
                let windowEnd = prefix + pad + radius + 1, windowStart = prefix + pad - radius
                let before = padded + pad - radius - 1, after = padded + pad + radius + 1
                for x in 0..<count {
                    let sum = windowEnd[x] &- windowStart[x]
                    let outside = Int32(before[x]) &+ Int32(after[x])
                    output[x] = roundedByte(Float(sum) * inner + Float(outside) * outer)
                }
            }
        }
    }

    // MARK: Down columns

    /// One pass of `kernel` down every column at once, so each inner loop walks a row. `source` and
    /// `destination` must be different memory.
    private static func blurColumns(_ source: Plane, into destination: Plane, kernel: BlurKernel,
                                    sums: UnsafeMutablePointer<Int32>, accumulator: UnsafeMutablePointer<Float>) {
        let last = source.height - 1, count = source.width
        func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { source.base + min(max(y, 0), last) * source.stride }
        switch kernel.method {
        case .sampled(let radius, let weights):
            for y in 0...last {
                let output = destination.base + y * destination.stride
                accumulator.update(repeating: 0, count: count)
                for k in 0...(2 * radius) {
                    let input = row(y - radius + k), weight = weights[k]
                    for x in 0..<count { accumulator[x] += weight * Float(input[x]) }
                }
                for x in 0..<count { output[x] = roundedByte(accumulator[x]) }
            }
        case .extendedBox(let radius, let inner, let outer):
            sums.update(repeating: 0, count: count)
            for i in -radius...radius {
                let input = row(i)
                for x in 0..<count { sums[x] &+= Int32(input[x]) }
            }
            for y in 0...last {
                let output = destination.base + y * destination.stride
                let above = row(y - radius - 1), leaving = row(y - radius), beyond = row(y + radius + 1)
                for x in 0..<count {
                    let sum = sums[x]
                    let outside = Int32(above[x]) &+ Int32(beyond[x])
                    output[x] = roundedByte(Float(sum) * inner + Float(outside) * outer)
                    sums[x] = sum &+ Int32(beyond[x]) &- Int32(leaving[x])
                }
            }
        }
    }
}

/// How one direction of the blur is done (see ``GaussianBlur``).
struct BlurKernel {
    enum Method {
        /// Taps `weights[0 ... 2·radius]` for offsets −radius…radius, summing to 1.
        case sampled(radius: Int, weights: UnsafeMutablePointer<Float>)
        /// Weight `inner` on offsets −radius…radius and `outer` (at most `inner`) on ±(radius + 1);
        /// (2·radius + 1) · inner + 2 · outer = 1.
        case extendedBox(radius: Int, inner: Float, outer: Float)
    }

    /// Below this σ the sampled kernel is used.
    static let directLimit = 3.0
    static let boxPasses = 4

    let method: Method
    /// How many times `method` is applied (0: this direction is left alone).
    let passes: Int
    /// The furthest offset any tap reaches.
    let padding: Int

    /// The kernel for `sigma`, writing sampled weights into `weights`.
    init(sigma: Double, weights: inout ScratchBuffer<Float>) {
        let sigma = sigma.isNaN ? 0 : min(max(sigma, 0), GaussianBlur.maximumSigma)
        if sigma == 0 {
            (method, passes, padding) = (.extendedBox(radius: 0, inner: 1, outer: 0), 0, 0)
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
            let inner = 1 / (2 * rr + 1 + 2 * alpha)
            (method, passes, padding) = (.extendedBox(radius: r, inner: Float(inner), outer: Float(alpha * inner)),
                                         Self.boxPasses, r + 1)
        }
    }
}
