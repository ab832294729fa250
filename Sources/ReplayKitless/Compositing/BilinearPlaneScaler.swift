/// Bilinear resampling of one 8-bit plane, for masks whose size differs from the frame's.
///
/// Continuous coordinates as in formats.md §2: destination pixel (i, j) has its centre at
/// (i + 0.5, j + 0.5), which maps to source position `(i + 0.5) · sw / dw − 0.5` (likewise
/// vertically), clamped to the outermost source centres; the four samples around it are
/// interpolated and the result rounded to nearest. Meant for upscaling and mild downscaling:
/// it never averages more than 2 × 2 source samples.
///
/// Source rows are interpolated horizontally once each and kept while consecutive destination rows
/// use them; the coordinate tables are rebuilt only when the sizes change. Use one per thread; its
/// own work is cut into row bands over `workers` threads (``RowBands``), each band with its own two
/// cached rows, so the bytes are the same whatever the number.
package final class BilinearPlaneScaler {
    /// Threads one call may use (1: the calling thread only).
    package var workers: Int
    private var columnTaps = ScratchBuffer<Tap>()
    private var rowTaps = ScratchBuffer<Tap>()
    private var rowMemory = ScratchBuffer<Float>()
    private var columnKey = (source: 0, destination: 0)
    private var rowKey = (source: 0, destination: 0)

    package init(workers: Int = 1) { self.workers = max(1, workers) }

    /// Resamples `source` to fill `destination` (any sizes).
    package func scale(_ source: Plane, into destination: Plane) {
        if source.hasSameSize(as: destination) {
            destination.copy(from: source)
            return
        }
        if source.width == 0 || source.height == 0 { return }
        let columns = Self.taps(&columnTaps, key: &columnKey, source: source.width, destination: destination.width)
        let rows = Self.taps(&rowTaps, key: &rowKey, source: source.height, destination: destination.height)
        let width = destination.width
        let bands = RowBands.count(rows: destination.height, workers: workers)
        let memory = rowMemory.reserve(2 * width * bands)
        RowBands.forEachBand(rows: destination.height, workers: workers) { band, bandRows in
            var upper = memory + 2 * width * band, lower = upper + width
            var upperRow = -1, lowerRow = -1
            for y in bandRows {
                let tap = rows[y]
                let first = Int(tap.first), second = Int(tap.second)
                if upperRow != first {
                    if lowerRow == first {
                        swap(&upper, &lower)
                        swap(&upperRow, &lowerRow)
                    } else {
                        Self.interpolate(source.base + first * source.stride, columns: columns, count: width, into: upper)
                        upperRow = first
                    }
                }
                if lowerRow != second {
                    Self.interpolate(source.base + second * source.stride, columns: columns, count: width, into: lower)
                    lowerRow = second
                }
                let weight = tap.weight
                let output = destination.base + y * destination.stride
                for x in 0..<width { output[x] = roundedByte(upper[x] + (lower[x] - upper[x]) * weight) }
            }
        }
    }

    /// One source row interpolated at every destination column.
    private static func interpolate(_ row: UnsafeMutablePointer<UInt8>, columns: UnsafeMutablePointer<Tap>,
                                    count: Int, into output: UnsafeMutablePointer<Float>) {
        for x in 0..<count {
            let tap = columns[x]
            let left = Float(row[Int(tap.first)]), right = Float(row[Int(tap.second)])
            output[x] = left + (right - left) * tap.weight
        }
    }

    /// For one destination index: the two source samples around it and the second one's weight.
    struct Tap {
        var first: Int32
        var second: Int32
        var weight: Float
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
            taps[i] = Tap(first: Int32(first), second: Int32(min(first + 1, source - 1)),
                          weight: Float(position - Double(first)))
        }
        return taps
    }
}
