import Foundation

/// Gaussian blur of 8-bit planes, separable, with a bounded cost per sample whatever σ.
///
/// Along each direction independently:
/// - σ < 3: direct convolution with the sampled Gaussian out to ⌈4σ⌉ (at most 25 taps), 14-bit
///   integer weights summing exactly to 2¹⁴.
/// - σ ≥ 3: four successive *extended* box blurs (Gwosdek, Grewenig, Bruhn, Weickert, “Theoretical
///   foundations of Gaussian convolution by extended box filtering”, 2011): a box of radius r plus
///   a fractional weight on the two samples just outside it, which lets each pass have exactly
///   variance σ²/4. Plain boxes of odd integer width (Kovesi's / Kutskir's “boxes for gauss”) miss σ²
///   by up to a pass-width step, e.g. σ = 3 comes out as 2.83, and are far off below σ ≈ 2. Each
///   pass is a running sum: constant time per sample.
///
/// Edges repeat the outermost sample (clamp-to-edge); integer arithmetic with each pass rounded to
/// nearest, so a constant plane stays exactly constant. Against an exact Gaussian the result is
/// within ±3 (typically ±1) on hard-edged content. The blur owns its scratch memory; use one per thread.
public final class GaussianBlur {
    /// Largest σ honoured; larger values are treated as this one.
    public static let maximumSigma = 2000.0

    private var intermediateMemory = ScratchBuffer<UInt8>()
    private var paddedRowMemory = ScratchBuffer<UInt8>()
    private var accumulatorMemory = ScratchBuffer<UInt32>()
    private var weightsMemoryX = ScratchBuffer<UInt32>()
    private var weightsMemoryY = ScratchBuffer<UInt32>()

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
        // Column passes ping-pong between the intermediate plane and the destination and must end
        // in the destination, so they start from whichever of the two makes that come out right.
        let columnStart = alongColumns.passes % 2 == 0 ? destination : intermediate
        var current = source
        if alongRows.passes > 0 {
            let padded = paddedRowMemory.reserve(source.width + 2 * alongRows.padding)
            for y in 0..<source.height {
                Self.blurRow(source.base + y * source.stride, into: columnStart.base + y * columnStart.stride,
                             count: source.width, kernel: alongRows, padded: padded)
            }
            current = columnStart
        } else if alongColumns.passes % 2 == 1 && sameMemory {
            intermediate.copy(from: source)  // an odd number of column passes cannot run in place
            current = intermediate
        }
        let accumulator = accumulatorMemory.reserve(source.width)
        for pass in 0..<alongColumns.passes {
            let target = (alongColumns.passes - pass) % 2 == 1 ? destination : intermediate
            Self.blurColumns(current, into: target, kernel: alongColumns, accumulator: accumulator)
            current = target
        }
    }

    // MARK: Along rows

    /// All passes of `kernel` along one row. Each pass first copies its input into `padded` with the
    /// edge samples repeated, so the kernels need no clamping; `input` may equal `output`.
    private static func blurRow(_ input: UnsafeMutablePointer<UInt8>, into output: UnsafeMutablePointer<UInt8>,
                                count: Int, kernel: BlurKernel, padded: UnsafeMutablePointer<UInt8>) {
        let pad = kernel.padding
        for pass in 0..<kernel.passes {
            let from = pass == 0 ? input : output
            padded.update(repeating: from[0], count: pad)
            (padded + pad).update(from: from, count: count)
            (padded + pad + count).update(repeating: from[count - 1], count: pad)
            let centre = padded + pad
            switch kernel.method {
            case .sampled(let radius, let weights):
                for x in 0..<count {
                    var sum: UInt32 = 0
                    for k in 0...(2 * radius) { sum &+= weights[k] &* UInt32(centre[x - radius + k]) }
                    output[x] = UInt8(truncatingIfNeeded: (sum &+ BlurKernel.half) >> BlurKernel.weightBits)
                }
            case .extendedBox(let radius, let outer):
                let divide = kernel.divider
                var sum: UInt32 = 0
                for i in -radius...radius { sum &+= UInt32(centre[i]) }
                for x in 0..<count {
                    let leaving = UInt32(centre[x - radius]), beyond = UInt32(centre[x + radius + 1])
                    let outside = UInt32(centre[x - radius - 1]) &+ beyond
                    output[x] = UInt8(truncatingIfNeeded: divide(sum &* BlurKernel.unit &+ outside &* outer))
                    sum = sum &+ beyond &- leaving
                }
            }
        }
    }

    // MARK: Down columns

    /// One pass of `kernel` down every column at once, so each inner loop walks a row. `source` and
    /// `destination` must be different memory.
    private static func blurColumns(_ source: Plane, into destination: Plane, kernel: BlurKernel,
                                    accumulator: UnsafeMutablePointer<UInt32>) {
        let last = source.height - 1, count = source.width
        func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { source.base + min(max(y, 0), last) * source.stride }
        switch kernel.method {
        case .sampled(let radius, let weights):
            for y in 0...last {
                let output = destination.base + y * destination.stride
                accumulator.update(repeating: BlurKernel.half, count: count)
                for k in 0...(2 * radius) {
                    let input = row(y - radius + k), weight = weights[k]
                    for x in 0..<count { accumulator[x] &+= weight &* UInt32(input[x]) }
                }
                for x in 0..<count { output[x] = UInt8(truncatingIfNeeded: accumulator[x] >> BlurKernel.weightBits) }
            }
        case .extendedBox(let radius, let outer):
            let divide = kernel.divider
            accumulator.update(repeating: 0, count: count)
            for i in -radius...radius {
                let input = row(i)
                for x in 0..<count { accumulator[x] &+= UInt32(input[x]) }
            }
            for y in 0...last {
                let output = destination.base + y * destination.stride
                let above = row(y - radius - 1), leaving = row(y - radius), beyond = row(y + radius + 1)
                for x in 0..<count {
                    let sum = accumulator[x]
                    let outside = UInt32(above[x]) &+ UInt32(beyond[x])
                    output[x] = UInt8(truncatingIfNeeded: divide(sum &* BlurKernel.unit &+ outside &* outer))
                    accumulator[x] = sum &+ UInt32(beyond[x]) &- UInt32(leaving[x])
                }
            }
        }
    }
}

/// How one direction of the blur is done (see ``GaussianBlur``).
struct BlurKernel {
    enum Method {
        /// Taps `weights[0 ... 2·radius]` for offsets −radius…radius, summing to 2¹⁴.
        case sampled(radius: Int, weights: UnsafeMutablePointer<UInt32>)
        /// Weight ``unit`` on offsets −radius…radius and `outer` (0…unit) on ±(radius + 1).
        case extendedBox(radius: Int, outer: UInt32)
    }

    static let weightBits: UInt32 = 14
    static let half: UInt32 = 1 << (weightBits - 1)
    /// Below this σ the sampled kernel is used.
    static let directLimit = 3.0
    static let boxPasses = 4
    /// The weight of one inner box sample, in the extended box's fixed point.
    static let unit: UInt32 = 256

    let method: Method
    /// How many times `method` is applied (0: this direction is left alone).
    let passes: Int
    /// The furthest offset any tap reaches.
    let padding: Int
    /// Divides by the extended box's total weight.
    let divider: RoundingDivider

    /// The kernel for `sigma`, writing sampled weights into `weights`.
    init(sigma: Double, weights: inout ScratchBuffer<UInt32>) {
        let sigma = sigma.isNaN ? 0 : min(max(sigma, 0), GaussianBlur.maximumSigma)
        if sigma == 0 {
            self.init(method: .extendedBox(radius: 0, outer: 0), passes: 0, padding: 0)
        } else if sigma < Self.directLimit {
            let radius = Int((4 * sigma).rounded(.up))
            let taps = weights.reserve(2 * radius + 1)
            func gaussian(_ offset: Int) -> Double { exp(-Double(offset * offset) / (2 * sigma * sigma)) }
            let scale = Double(1 << Self.weightBits) / (-radius...radius).reduce(0) { $0 + gaussian($1) }
            for offset in -radius...radius { taps[offset + radius] = UInt32((gaussian(offset) * scale).rounded()) }
            // Put the rounding remainder on the centre tap so the weights sum exactly to 2¹⁴.
            let total = (0...(2 * radius)).reduce(0) { $0 + Int(taps[$1]) }
            taps[radius] = UInt32(Int(taps[radius]) + (1 << Self.weightBits) - total)
            self.init(method: .sampled(radius: radius, weights: taps), passes: 1, padding: radius)
        } else {
            // Per pass variance v: the largest box radius with r(r+1)/3 ≤ v, and the outer weight
            // α = (2r+1)(3v − r(r+1)) / (6((r+1)² − v)) that makes the variance exactly v.
            let v = sigma * sigma / Double(Self.boxPasses)
            let r = Int(((12 * v + 1).squareRoot() - 1) / 2)
            let rr = Double(r)
            let alpha = (2 * rr + 1) * (3 * v - rr * (rr + 1)) / (6 * ((rr + 1) * (rr + 1) - v))
            let outer = UInt32(min(max(alpha, 0), 1) * Double(Self.unit) + 0.5)
            self.init(method: .extendedBox(radius: r, outer: outer), passes: Self.boxPasses, padding: r + 1)
        }
    }

    private init(method: Method, passes: Int, padding: Int) {
        self.method = method
        self.passes = passes
        self.padding = padding
        if case .extendedBox(let radius, let outer) = method {
            divider = RoundingDivider(Int(Self.unit) * (2 * radius + 1) + 2 * Int(outer))
        } else {
            divider = RoundingDivider(1)
        }
    }
}
