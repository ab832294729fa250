/// Bilinear resampling of one 8-bit plane, for masks whose size differs from the frame's.
///
/// Continuous coordinates as in formats.md §2: destination pixel (i, j) has its centre at
/// (i + 0.5, j + 0.5), which maps to source position `(i + 0.5) · sw / dw − 0.5` (likewise
/// vertically), clamped to the outermost source centres, and interpolates the four samples
/// around it with 11-bit weights, rounding to nearest. Meant for upscaling and mild downscaling:
/// it does not average over more than 2 × 2 source samples.
///
/// The coordinate tables are kept and rebuilt only when the sizes change; use one per thread.
public final class BilinearPlaneScaler {
    private static let weightBits: UInt32 = 11
    private static let one: UInt32 = 1 << weightBits

    private var columnTaps = ScratchBuffer<Tap>()
    private var rowTaps = ScratchBuffer<Tap>()
    private var columnKey = (source: 0, destination: 0)
    private var rowKey = (source: 0, destination: 0)

    public init() {}

    /// Resamples `source` to fill `destination` (any sizes).
    public func scale(_ source: Plane, into destination: Plane) {
        if source.hasSameSize(as: destination) {
            destination.copy(from: source)
            return
        }
        if source.width == 0 || source.height == 0 { return }
        let columns = Self.taps(&columnTaps, key: &columnKey, source: source.width, destination: destination.width)
        let rows = Self.taps(&rowTaps, key: &rowKey, source: source.height, destination: destination.height)
        let one = Self.one
        let roundingHalf: UInt32 = 1 << (2 * Self.weightBits - 1)
        for y in 0..<destination.height {
            let row = rows[y]
            let top = source.base + Int(row.first) * source.stride
            let bottom = top + (row.next ? source.stride : 0)
            let weightBottom = row.weight, weightTop = one - row.weight
            let output = destination.base + y * destination.stride
            for x in 0..<destination.width {
                let column = columns[x]
                let left = Int(column.first), right = left + (column.next ? 1 : 0)
                let weightRight = column.weight, weightLeft = one - column.weight
                let upper = UInt32(top[left]) * weightLeft + UInt32(top[right]) * weightRight
                let lower = UInt32(bottom[left]) * weightLeft + UInt32(bottom[right]) * weightRight
                output[x] = UInt8(truncatingIfNeeded: (upper * weightTop + lower * weightBottom + roundingHalf) >> (2 * Self.weightBits))
            }
        }
    }

    /// For one destination index: the first source sample, whether the next one takes part, and
    /// the next one's weight out of 2¹¹.
    struct Tap {
        var first: Int32
        var next: Bool
        var weight: UInt32
    }

    /// The taps mapping `source` samples onto `destination` samples, cached by size.
    private static func taps(_ memory: inout ScratchBuffer<Tap>, key: inout (source: Int, destination: Int),
                             source: Int, destination: Int) -> UnsafeMutablePointer<Tap> {
        let taps = memory.reserve(destination)
        if key == (source, destination) { return taps }
        key = (source, destination)
        let ratio = Double(source) / Double(destination)
        for i in 0..<destination {
            let position = min(max((Double(i) + 0.5) * ratio - 0.5, 0), Double(source - 1))
            let first = Int(position)
            let weight = UInt32(((position - Double(first)) * Double(Self.one)).rounded())
            taps[i] = Tap(first: Int32(first), next: first + 1 < source && weight > 0, weight: first + 1 < source ? weight : 0)
        }
        return taps
    }
}
