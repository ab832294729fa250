/// One step of mask shaping; ``MaskShaper`` applies a list of them in order.
package enum MaskOperation: Sendable, Equatable {
    /// `255 − a`: swaps what is kept and what is replaced.
    case invert
    /// Hard edge: `a ≥ level` becomes 255, anything below becomes 0.
    case threshold(UInt8)
    /// Softens the edge with a Gaussian blur of σ = `pixels` / 2, so about 95 % of the ramp lies
    /// within `pixels` on either side of the original edge. 0 or less does nothing.
    case feather(pixels: Double)
    /// Grows the foreground: each sample becomes the maximum over the square of side
    /// `2 · pixels + 1` centred on it. 0 or less does nothing.
    case expand(pixels: Int)
    /// Shrinks the foreground: the minimum over the same square. Beyond the frame counts as
    /// foreground, so a person cut off by the frame edge stays attached to it.
    case shrink(pixels: Int)
}

/// Applies ``MaskOperation``s to a frame-sized 8-bit mask in place, reusing its scratch memory
/// from frame to frame. Use one per thread.
///
/// `expand` and `shrink` are separable square dilation and erosion by the van Herk / Gil–Werman
/// algorithm: three comparisons per sample and direction, whatever the radius.
package final class MaskShaper {
    private let blur = GaussianBlur()
    private var lineMemory = ScratchBuffer<UInt8>()
    private var suffixMemory = ScratchBuffer<UInt8>()
    private var prefixRowMemory = ScratchBuffer<UInt8>()

    package init() {}

    /// Applies `operations` to `mask`, first to last.
    package func apply(_ operations: [MaskOperation], to mask: Plane) {
        for operation in operations { apply(operation, to: mask) }
    }

    /// Applies one operation to `mask`.
    package func apply(_ operation: MaskOperation, to mask: Plane) {
        switch operation {
        case .invert:
            Self.map(mask) { 255 &- $0 }
        case .threshold(let level):
            Self.map(mask) { $0 >= level ? 255 : 0 }
        case .feather(let pixels):
            if pixels > 0 { blur.blur(mask, into: mask, sigmaX: pixels / 2, sigmaY: pixels / 2) }
        case .expand(let pixels):
            morph(mask, radius: pixels, Dilation.self)
        case .shrink(let pixels):
            morph(mask, radius: pixels, Erosion.self)
        }
    }

    private static func map(_ plane: Plane, _ transform: (UInt8) -> UInt8) {
        for y in 0..<plane.height {
            let row = plane.base + y * plane.stride
            for x in 0..<plane.width { row[x] = transform(row[x]) }
        }
    }

    private func morph<Op: MorphologyOperator>(_ mask: Plane, radius: Int, _: Op.Type) {
        // A window wider than the plane sees the whole line, so larger radii change nothing more.
        let radiusX = min(max(radius, 0), mask.width - 1)
        let radiusY = min(max(radius, 0), mask.height - 1)
        if radiusX > 0 {
            let line = lineMemory.reserve(3 * Self.lineLength(count: mask.width, radius: radiusX))
            for y in 0..<mask.height {
                Self.morphRow(mask.base + y * mask.stride, count: mask.width, radius: radiusX, line: line, Op.self)
            }
        }
        if radiusY > 0 {
            let suffix = suffixMemory.plane(width: mask.width, height: mask.height)
            let prefix = prefixRowMemory.reserve(mask.width)
            Self.morphColumns(mask, radius: radiusY, suffix: suffix, prefix: prefix, Op.self)
        }
    }

    // van Herk / Gil–Werman on a line padded with `radius` neutral samples before it and cut into
    // blocks of k = 2·radius + 1: with g the running extreme from each block's start and h the one
    // to each block's end, the window [j, j + 2·radius] (padded indices) is op(h[j], g[j + 2·radius]),
    // since it spans at most two blocks.

    /// Dilates or erodes one row in place. `line` holds three scratch lines of `lineLength(…)` samples.
    private static func morphRow<Op: MorphologyOperator>(_ row: UnsafeMutablePointer<UInt8>, count: Int, radius: Int,
                                                        line: UnsafeMutablePointer<UInt8>, _: Op.Type) {
        let k = 2 * radius + 1, length = lineLength(count: count, radius: radius)
        let padded = line, fromStart = line + length, toEnd = line + 2 * length
        padded.update(repeating: Op.neutral, count: radius)
        (padded + radius).update(from: row, count: count)
        (padded + radius + count).update(repeating: Op.neutral, count: length - radius - count)
        for start in stride(from: 0, to: length, by: k) {
            fromStart[start] = padded[start]
            for i in (start + 1)..<(start + k) { fromStart[i] = Op.combine(fromStart[i - 1], padded[i]) }
            toEnd[start + k - 1] = padded[start + k - 1]
            for i in stride(from: start + k - 2, through: start, by: -1) { toEnd[i] = Op.combine(toEnd[i + 1], padded[i]) }
        }
        let windowEnd = fromStart + 2 * radius
        for x in 0..<count { row[x] = Op.combine(toEnd[x], windowEnd[x]) }
    }

    /// The padded line length for `morphRow`: `count + 2·radius` rounded up to whole blocks.
    private static func lineLength(count: Int, radius: Int) -> Int {
        let k = 2 * radius + 1
        return (count + 2 * radius + k - 1) / k * k
    }

    /// The same down columns, a whole row at a time so the inner loops are vector loops. Only h of
    /// the plane's own rows is kept (in `suffix`); `prefix` stands in for h below the plane during
    /// the backward sweep, then holds the running g row. Row j − 2·radius is written after row
    /// j − radius has been read, so the plane is overwritten in place.
    private static func morphColumns<Op: MorphologyOperator>(_ plane: Plane, radius: Int, suffix: Plane,
                                                            prefix: UnsafeMutablePointer<UInt8>, _: Op.Type) {
        let k = 2 * radius + 1, height = plane.height, count = plane.width
        func padded(_ i: Int) -> UnsafeMutablePointer<UInt8>? {
            i >= radius && i < radius + height ? plane.base + (i - radius) * plane.stride : nil
        }
        func suffixRow(_ i: Int) -> UnsafeMutablePointer<UInt8> { i < height ? suffix.base + i * suffix.stride : prefix }
        let start = min(height + 2 * radius - 1, ((height - 1) / k + 1) * k - 1)
        var phase = start % k
        for i in stride(from: start, through: 0, by: -1) {
            let target = suffixRow(i)
            if i == start || phase == k - 1 {
                Op.assign(padded(i), to: target, count: count)
            } else {
                Op.combine(padded(i), suffixRow(i + 1), into: target, count: count)
            }
            phase = phase == 0 ? k - 1 : phase - 1
        }
        phase = 0
        for j in 0..<(height + 2 * radius) {
            if phase == 0 {
                Op.assign(padded(j), to: prefix, count: count)
            } else {
                Op.combine(padded(j), prefix, into: prefix, count: count)
            }
            phase = phase == k - 1 ? 0 : phase + 1
            if j >= 2 * radius {
                let y = j - 2 * radius
                Op.combine(suffix.base + y * suffix.stride, prefix, into: plane.base + y * plane.stride, count: count)
            }
        }
    }
}

/// Dilation (max, neutral 0) or erosion (min, neutral 255), as static functions so the morphology
/// loops are specialised for each.
private protocol MorphologyOperator {
    static var neutral: UInt8 { get }
    static func combine(_ a: UInt8, _ b: UInt8) -> UInt8
}

extension MorphologyOperator {
    /// `target = row`, or neutral samples when `row` is outside the plane (`nil`).
    @inline(__always)
    static func assign(_ row: UnsafeMutablePointer<UInt8>?, to target: UnsafeMutablePointer<UInt8>, count: Int) {
        if let row { target.update(from: row, count: count) } else { target.update(repeating: neutral, count: count) }
    }

    /// `target = combine(row, other)` sample by sample; a `nil` row is neutral.
    @inline(__always)
    static func combine(_ row: UnsafeMutablePointer<UInt8>?, _ other: UnsafeMutablePointer<UInt8>,
                        into target: UnsafeMutablePointer<UInt8>, count: Int) {
        guard let row else {
            if other != target { target.update(from: other, count: count) }
            return
        }
        for x in 0..<count { target[x] = combine(row[x], other[x]) }
    }
}

private enum Dilation: MorphologyOperator {
    static var neutral: UInt8 { 0 }
    @inline(__always) static func combine(_ a: UInt8, _ b: UInt8) -> UInt8 { max(a, b) }
}

private enum Erosion: MorphologyOperator {
    static var neutral: UInt8 { 255 }
    @inline(__always) static func combine(_ a: UInt8, _ b: UInt8) -> UInt8 { min(a, b) }
}
