import CKernels

/// A half-open rectangle of pixels, `minX..<maxX` × `minY..<maxY`.
struct PixelBounds: Equatable {
    var minX: Int, minY: Int, maxX: Int, maxY: Int

    static let empty = PixelBounds(minX: 0, minY: 0, maxX: 0, maxY: 0)

    var isEmpty: Bool { minX >= maxX || minY >= maxY }
    /// How many pixels it holds.
    var area: Int { isEmpty ? 0 : (maxX - minX) * (maxY - minY) }

    /// The pixels in both.
    func intersection(_ other: PixelBounds) -> PixelBounds {
        PixelBounds(minX: max(minX, other.minX), minY: max(minY, other.minY),
                  maxX: min(maxX, other.maxX), maxY: min(maxY, other.maxY))
    }

    /// The smallest rectangle holding both.
    func union(_ other: PixelBounds) -> PixelBounds {
        if isEmpty { return other }
        if other.isEmpty { return self }
        return PixelBounds(minX: min(minX, other.minX), minY: min(minY, other.minY),
                         maxX: max(maxX, other.maxX), maxY: max(maxY, other.maxY))
    }

    /// The pixels whose areas meet the continuous box `x0…x1` × `y0…y1`, clipped to a frame.
    static func covering(x0: Double, y0: Double, x1: Double, y1: Double, width: Int, height: Int) -> PixelBounds {
        // Clamped first, then rounded by conversion (the same result as rounding first): no calls to
        // floor and ceil, around which the rasterizer's setup spilled every register.
        @inline(__always) func clamp(_ v: Double, _ limit: Int) -> Double { max(0, min(Double(limit), v)) }
        @inline(__always) func down(_ v: Double, _ limit: Int) -> Int { Int(clamp(v, limit)) }
        @inline(__always) func up(_ v: Double, _ limit: Int) -> Int {
            let clamped = clamp(v, limit), whole = Int(clamped)
            return Double(whole) < clamped ? whole + 1 : whole
        }
        guard x0 <= x1, y0 <= y1 else { return .empty }   // also false for NaN
        return PixelBounds(minX: down(x0, width), minY: down(y0, height), maxX: up(x1, width), maxY: up(y1, height))
    }
}

/// One annotation's picture before it is blended into the frame: per pixel a colour in the
/// frame's Y'CbCr and its coverage. It holds a `width` × `height` window of the frame whose
/// top-left pixel is (`originX`, `originY`): a frame-sized layer stays at (0, 0); the rasterizer
/// moves a 64×64 one from tile to tile, so shapes need no frame-sized buffer. Allocated once;
/// writers declare the pixels they write row by row (`touch`), and only those runs are blended
/// and cleared, so an untouched layer costs nothing and a thin diagonal shape costs its pixels,
/// not its bounding box. Coordinates in the API are the frame's.
final class RenderLayer {
    let width: Int
    let height: Int
    /// The frame pixel of the window's top-left corner.
    private(set) var originX = 0, originY = 0
    /// (Y', Cb, Cr, coverage 0…1) per pixel of the window, row-major from its origin.
    let texels: UnsafeMutablePointer<SIMD4<Float>>
    /// The rectangle around every pixel touched since the last `clear()`.
    private(set) var touched = PixelBounds.empty
    /// Per row of the window, the touched columns `start..<end` (empty: `start >= end`).
    private let rowStart: UnsafeMutablePointer<Int>
    private let rowEnd: UnsafeMutablePointer<Int>

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        texels = .allocate(capacity: width * height)
        texels.initialize(repeating: .zero, count: width * height)
        rowStart = .allocate(capacity: height)
        rowStart.initialize(repeating: Int.max, count: height)
        rowEnd = .allocate(capacity: height)
        rowEnd.initialize(repeating: Int.min, count: height)
    }

    deinit {
        texels.deallocate()
        rowStart.deallocate()
        rowEnd.deallocate()
    }

    /// The frame pixels the window holds.
    var bounds: PixelBounds { PixelBounds(minX: originX, minY: originY, maxX: originX + width, maxY: originY + height) }

    /// Moves the window, which must be clear, so that its top-left pixel is frame pixel (`x`, `y`).
    func move(toX x: Int, y: Int) {
        precondition(touched.isEmpty, "a layer moves only when clear")
        originX = x
        originY = y
    }

    /// Row `y` of the frame: element `x` is the texel of frame pixel (`x`, `y`), for pixels inside `bounds`.
    @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
        texels + ((y - originY) * width - originX)
    }

    /// Declares that pixels `start..<end` of row `y` are (about to be) written.
    @inline(__always) func touch(row y: Int, from start: Int, to end: Int) {
        guard start < end else { return }
        rowStart[y - originY] = min(rowStart[y - originY], start)
        rowEnd[y - originY] = max(rowEnd[y - originY], end)
        touched = touched.union(PixelBounds(minX: start, minY: y, maxX: end, maxY: y + 1))
    }

    /// Declares touched, for each row `top + j` (`j` < `rows`), the columns `left + i` whose bit i
    /// of `columns[j]` is set (their runs from the first bit set to the last): the rows' bounds
    /// gathered first, so the rectangle around them is updated once.
    func touch(columns: UnsafePointer<UInt64>, rows: Int, left: Int, top: Int) {
        // The rows' bounds through pointers offset once: the properties were reloaded at every row.
        let starts = rowStart + (top - originY), ends = rowEnd + (top - originY)
        // The rectangle's columns from every row's bits at once (their first set bit is the
        // rows' first, their last the rows' last), not a minimum and a maximum per row.
        var union: UInt64 = 0, firstRow = 0, lastRow = 0
        for j in 0..<rows where columns[j] != 0 {
            starts[j] = min(starts[j], left + columns[j].trailingZeroBitCount)
            ends[j] = max(ends[j], left + 64 - columns[j].leadingZeroBitCount)
            if union == 0 { firstRow = j }
            union |= columns[j]
            lastRow = j
        }
        guard union != 0 else { return }
        touched = touched.union(PixelBounds(minX: left + union.trailingZeroBitCount, minY: top + firstRow,
                                            maxX: left + 64 - union.leadingZeroBitCount, maxY: top + lastRow + 1))
    }

    /// Declares a rectangle touched, row by row.
    func touch(_ rect: PixelBounds) {
        guard !rect.isEmpty else { return }
        for y in rect.minY..<rect.maxY { touch(row: y, from: rect.minX, to: rect.maxX) }
    }

    /// The touched columns of row `y`.
    @inline(__always) func touchedColumns(row y: Int) -> Range<Int> {
        rowStart[y - originY] < rowEnd[y - originY] ? rowStart[y - originY]..<rowEnd[y - originY] : 0..<0
    }

    /// Resets the touched pixels to empty.
    func clear() {
        guard !touched.isEmpty else { return }
        for y in touched.minY..<touched.maxY {
            let columns = touchedColumns(row: y)
            (row(y) + columns.lowerBound).update(repeating: .zero, count: columns.count)
            rowStart[y - originY] = Int.max
            rowEnd[y - originY] = Int.min
        }
        touched = .empty
    }

    /// Clears as `clear()` does, by `body` instead, for a pass that reads the touched texels anyway:
    /// handed the window from frame row `y` on (at or above every touched row), it must zero every
    /// touched texel and empty every row's columns.
    func clear(fromRow y: Int, by body: (ck_layer) -> Void) {
        guard !touched.isEmpty else { return }
        precondition(y >= originY && y <= touched.minY, "the rows handed over hold every touched one")
        let skipped = y - originY
        let first = UnsafeMutableRawPointer(texels + skipped * width).assumingMemoryBound(to: Float.self)
        body(ck_layer(texels: first, width: width, origin_x: originX, row_start: rowStart + skipped, row_end: rowEnd + skipped))
        touched = .empty
    }
}
