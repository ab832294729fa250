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
/// Edges repeat the outermost sample (clamp-to-edge), once for the whole cascade of passes, as for
/// a single Gaussian (clamping again before every pass bends the result near the edges by up to
/// ±14 at σ = 15). Every pass rounds to 8 bits, to nearest, so a
/// constant plane stays exactly constant. Against an exact Gaussian the result is within ±1 for
/// σ < 3 and within ±5 (on average under 1) from σ = 3 on, measured on hard-edged content.
/// The blur owns its scratch memory; use one per thread.
public final class GaussianBlur {
    /// Largest σ honoured; larger values are treated as this one.
    public static let maximumSigma = 2000.0

    private var intermediateMemory = ScratchBuffer<UInt8>()
    private var columnMemoryA = ScratchBuffer<UInt8>()
    private var columnMemoryB = ScratchBuffer<UInt8>()
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
        let width = source.width, height = source.height
        // Rows go to the destination unless columns follow: a single column pass must not read the
        // plane it writes, so rows then go to a scratch plane (and so does an unblurred source).
        let rowTarget = alongColumns.passes == 0 ? destination : intermediateMemory.plane(width: width, height: height)
        var current = source
        if alongRows.passes > 0 {
            let lineLength = width + 2 * alongRows.reach
            let lines = paddedRowMemory.reserve(2 * lineLength)
            let prefix = prefixSumMemory.reserve(lineLength + 1)
            let accumulator = accumulatorMemory.reserve(lineLength)
            for y in 0..<height {
                Self.blurRow(source.base + y * source.stride, into: rowTarget.base + y * rowTarget.stride, count: width,
                             kernel: alongRows, lines: (lines, lines + lineLength), prefix: prefix, accumulator: accumulator)
            }
            current = rowTarget
        } else if alongColumns.passes == 1 && sameMemory {
            rowTarget.copy(from: source)
            current = rowTarget
        }
        guard alongColumns.passes > 0 else { return }
        // The column passes run on the plane extended by the cascade's whole reach above and below
        // (edge rows repeated once), each pass `padding` rows shorter at both ends than its input.
        let sums = columnSumMemory.reserve(width)
        let accumulator = accumulatorMemory.reserve(width)
        let step = alongColumns.padding, scratchHeight = height + 2 * (alongColumns.reach - step)
        let scratch = alongColumns.passes > 1
            ? (columnMemoryA.plane(width: width, height: scratchHeight), columnMemoryB.plane(width: width, height: scratchHeight))
            : (destination, destination)
        let reach = alongColumns.reach, last = height - 1
        var input: (Int) -> UnsafeMutablePointer<UInt8> = { [current] row in current.base + min(max(row - reach, 0), last) * current.stride }
        var rows = height + 2 * reach
        for pass in 0..<alongColumns.passes {
            rows -= 2 * step
            let target = pass == alongColumns.passes - 1 ? destination : pass % 2 == 0 ? scratch.0 : scratch.1
            Self.blurColumns(input, into: target, rows: rows, width: width, kernel: alongColumns, sums: sums, accumulator: accumulator)
            input = { [target] row in target.base + row * target.stride }
        }
    }

    // MARK: Along rows

    /// All passes of `kernel` along one row; `input` may equal `output`. The row is first copied into
    /// the first of `lines` with its edge samples repeated for the cascade's whole reach; every pass
    /// then reads one line and writes the other (the last writes `output`), `padding` samples shorter
    /// at both ends, so the kernels need no clamping and the edge is clamped once, as for one Gaussian.
    private static func blurRow(_ input: UnsafeMutablePointer<UInt8>, into output: UnsafeMutablePointer<UInt8>,
                                count: Int, kernel: BlurKernel, lines: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>),
                                prefix: UnsafeMutablePointer<Int32>, accumulator: UnsafeMutablePointer<Float>) {
        let reach = kernel.reach, step = kernel.padding
        var line = lines.0, spare = lines.1
        line.update(repeating: input[0], count: reach)
        (line + reach).update(from: input, count: count)
        (line + reach + count).update(repeating: input[count - 1], count: reach)
        var length = count + 2 * reach
        for pass in 0..<kernel.passes {
            let produced = length - 2 * step
            let target = pass == kernel.passes - 1 ? output : spare
            switch kernel.method {
            case .sampled(let radius, let weights):
                // Tap by tap over the whole row, so every inner loop is a plain vector loop.
                accumulator.update(repeating: 0, count: produced)
                for k in 0...(2 * radius) {
                    let weight = weights[k], taps = line + k
                    for x in 0..<produced { accumulator[x] += weight * Float(taps[x]) }
                }
                for x in 0..<produced { target[x] = roundedByte(accumulator[x]) }
            case .extendedBox(let radius, let inner, let outer):
                // Prefix sums turn every window sum into one subtraction; only the scan is serial.
                var running: Int32 = 0
                prefix[0] = 0
                for i in 0..<length {
                    running &+= Int32(line[i])
                    prefix[i + 1] = running
                }
                // Output x is centred on line[x + radius + 1]: inner window line[x + 1 ... x + 2·radius + 1],
                // outer samples line[x] and line[x + 2·radius + 2]. Base pointers keep the loop vectorisable.
                let windowEnd = prefix + 2 * radius + 2, windowStart = prefix + 1, after = line + 2 * radius + 2
                for x in 0..<produced {
                    let sum = windowEnd[x] &- windowStart[x]
                    let outside = Int32(line[x]) &+ Int32(after[x])
                    target[x] = roundedByte(Float(sum) * inner + Float(outside) * outer)
                }
            }
            swap(&line, &spare)
            length = produced
        }
    }

    // MARK: Down columns

    /// One pass of `kernel` down every column at once, so each inner loop walks a row: output row y
    /// is centred on input row y + `padding` (input rows y … y + 2·`padding`). The input must not
    /// be the output's memory.
    private static func blurColumns(_ input: (Int) -> UnsafeMutablePointer<UInt8>, into destination: Plane, rows: Int, width count: Int,
                                    kernel: BlurKernel, sums: UnsafeMutablePointer<Int32>, accumulator: UnsafeMutablePointer<Float>) {
        switch kernel.method {
        case .sampled(let radius, let weights):
            for y in 0..<rows {
                let output = destination.base + y * destination.stride
                accumulator.update(repeating: 0, count: count)
                for k in 0...(2 * radius) {
                    let source = input(y + k), weight = weights[k]
                    for x in 0..<count { accumulator[x] += weight * Float(source[x]) }
                }
                for x in 0..<count { output[x] = roundedByte(accumulator[x]) }
            }
        case .extendedBox(let radius, let inner, let outer):
            // Running sums of the inner window, input rows y + 1 … y + 2·radius + 1.
            sums.update(repeating: 0, count: count)
            for i in 1...(2 * radius + 1) {
                let source = input(i)
                for x in 0..<count { sums[x] &+= Int32(source[x]) }
            }
            for y in 0..<rows {
                let output = destination.base + y * destination.stride
                let above = input(y), leaving = input(y + 1), beyond = input(y + 2 * radius + 2)
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
    /// The furthest offset any tap of one pass reaches.
    let padding: Int
    /// The furthest offset the whole cascade of passes reaches.
    var reach: Int { padding * passes }

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
