/// Draws meshes into a ``RenderLayer``, anti-aliasing where the drawn surface ends and nowhere else.
///
/// `add` transforms a mesh to camera space, skips back faces of closed meshes, clips against the
/// near plane in camera space (so nothing behind the camera is ever projected), projects what is
/// left and notes which triangle edges are on the silhouette (``MeshEdges``: no neighbour drawn
/// whole across the edge, or one facing the other way). `resolve` rasterizes everything added, one
/// 64×64 tile of the frame at a time (the buffers are tile-sized, allocated once):
/// 1. each silhouette edge marks the pixels it passes through, walked row by row along the edge;
/// 2. each triangle takes the pixels whose centre it holds (a span per row, one depth test per
///    pixel on perspective-correct depth: the nearest is seen) and, in marked pixels, the samples
///    of an 8×8 grid (at (i + ½)/8 px) it covers: bits of a `UInt64`, each grid row a run of bits
///    cut by each edge near the pixel. A marked pixel's coverage is the union of them;
/// 3. each pixel is shaded once (Lambert with the perspective-correct normal) by the triangle
///    seen there.
/// Off the silhouette a neighbour continues the surface beyond every edge, so a pixel there is
/// wholly covered and the triangle holding its centre is the one seen: the inside of a mesh costs
/// what a one-sample rasterizer costs, whatever its triangles' size, and silhouettes get 64
/// coverage levels. Where a shape meets its own stem or another of its faces inside the
/// silhouette, the nearer colour takes the whole pixel. All meshes added between two `resolve`
/// calls (a shape and its stem) are depth-tested together.
final class MeshRasterizer {
    /// At most 64: a tile row's pixels are the bits of a `UInt64`.
    static let tileSize = 64

    struct ViewVertex {
        var position: SIMD3<Double>
        var normal: SIMD3<Double>
    }

    /// A projected triangle: its barycentric coordinates and inverse depth as linear functions of
    /// the pixel position, its corners, its normal (facing the viewer) and its colour.
    struct ScreenTriangle {
        var rect: PixelBounds
        /// Its area in pixels.
        var area: Double
        /// Barycentric coordinate k: 1 at corner `p`k, 0 along the opposite edge (edge k).
        var e0: Linear, e1: Linear, e2: Linear
        var p0: SIMD2<Double>, p1: SIMD2<Double>, p2: SIMD2<Double>
        /// Bit k set: edge k is on the silhouette.
        var silhouette: UInt8
        /// One colour all over (`base`): flat materials, and flat faces (all three normals alike)
        /// of lit ones, whose light does not change across them.
        var flat: Bool
        var inverseDepth: Linear
        /// The perspective-correct normal times a positive factor: Σ nᵢ·bᵢ/depthᵢ, linear in the
        /// pixel position (`normalX`·x + `normalY`·y + `normalAtOrigin`); shading normalizes it.
        var normalX: SIMD3<Float>, normalY: SIMD3<Float>, normalAtOrigin: SIMD3<Float>
        /// The colour at light intensity k is `base + k·range` (the material's black and its
        /// colour minus black); flat ones are `base`.
        var base: SIMD3<Float>, range: SIMD3<Float>
    }

    let lighting: Lighting
    private var vertices: [ViewVertex] = []
    /// Per triangle of the mesh being added: which way it faces, and whether it is drawn whole (in
    /// front of the near plane, facing the viewer or double-sided), for its neighbours' silhouettes.
    private var facings: [Double] = []
    private var drawnWhole: [Bool] = []
    private var triangles: [ScreenTriangle] = []
    private var bounds = PixelBounds.empty
    /// What the next `resolve` will cost, in pixel tests: the pixels each triangle added since the
    /// last `resolve` covers on screen (each costs a test per pixel), plus a tile's height per tile
    /// its rectangle reaches (each costs a span per row): a thin triangle across the frame costs its tiles.
    private(set) var drawingCost = 0.0
    /// Per tile of `resolve`'s area (row by row), where its triangles start in `tileTriangles`: a
    /// counting sort, so each tile visits only the triangles that reach it (not every triangle
    /// added, which made `resolve` cost triangles × tiles).
    private var tileStart: [Int] = []
    private var tileTriangles: [Int] = []
    /// Per marked pixel of the current tile: the samples covered (bit 8·row + column of the 8×8 grid).
    private let coverage: UnsafeMutablePointer<UInt64>
    /// Per pixel: 1/depth of the nearest triangle holding its centre (−∞: none), and of the nearest
    /// reaching it without its centre, with where it is shaded (its samples' centroid, from the
    /// pixel centre); the triangle seen. Emptied by the shading.
    private let centreDepth: UnsafeMutablePointer<Float>
    private let reachDepth: UnsafeMutablePointer<Float>
    private let reachOffset: UnsafeMutablePointer<SIMD2<Float>>
    private let owner: UnsafeMutablePointer<UInt32>
    /// Per row of the current tile, a bit per pixel drawn, one per pixel a silhouette edge passes
    /// through (marked), and one per pixel several do.
    private let touchedColumns: UnsafeMutablePointer<UInt64>
    private let edgeColumns: UnsafeMutablePointer<UInt64>
    private let severalEdgeColumns: UnsafeMutablePointer<UInt64>
    /// Per pixel one silhouette edge passes through: that edge, as 4 × its triangle + k for edge k.
    private let silhouetteEdge: UnsafeMutablePointer<UInt32>
    /// The current tile's pixels as drawn, for `resolve`'s `blend`.
    private let tileLayer = RenderLayer(width: tileSize, height: tileSize)

    init(lighting: Lighting) {
        self.lighting = lighting
        let pixels = Self.tileSize * Self.tileSize
        coverage = .allocate(capacity: pixels)
        coverage.initialize(repeating: 0, count: pixels)
        centreDepth = .allocate(capacity: pixels)
        centreDepth.initialize(repeating: -.infinity, count: pixels)
        reachDepth = .allocate(capacity: pixels)
        reachDepth.initialize(repeating: -.infinity, count: pixels)
        reachOffset = .allocate(capacity: pixels)
        reachOffset.initialize(repeating: .zero, count: pixels)
        owner = .allocate(capacity: pixels)
        owner.initialize(repeating: 0, count: pixels)
        touchedColumns = .allocate(capacity: Self.tileSize)
        touchedColumns.initialize(repeating: 0, count: Self.tileSize)
        edgeColumns = .allocate(capacity: Self.tileSize)
        edgeColumns.initialize(repeating: 0, count: Self.tileSize)
        severalEdgeColumns = .allocate(capacity: Self.tileSize)
        severalEdgeColumns.initialize(repeating: 0, count: Self.tileSize)
        silhouetteEdge = .allocate(capacity: pixels)
        silhouetteEdge.initialize(repeating: 0, count: pixels)
    }

    deinit {
        coverage.deallocate()
        centreDepth.deallocate()
        reachDepth.deallocate()
        reachOffset.deallocate()
        owner.deallocate()
        touchedColumns.deallocate()
        edgeColumns.deallocate()
        severalEdgeColumns.deallocate()
        silhouetteEdge.deallocate()
    }

    /// Sets up `mesh`, placed in the world by `transform`, as `camera` sees it. Without `edges`
    /// (the mesh's, ``MeshEdges``) every edge counts as a silhouette: right for any mesh, only slower.
    func add(_ mesh: Mesh, edges: MeshEdges? = nil, transform: ModelTransform, camera: Camera, material: SurfaceMaterial) {
        let count = mesh.positions.count
        guard mesh.normals.count == count else { return }
        let view = transform.viewed(by: camera)
        // The scratch arrays and results as locals for the loops (a property's every access is
        // checked for exclusivity at run time), put back when done.
        var vertices: [ViewVertex] = [], facings: [Double] = [], drawnWhole: [Bool] = [], triangles: [ScreenTriangle] = []
        swap(&vertices, &self.vertices)
        swap(&facings, &self.facings)
        swap(&drawnWhole, &self.drawnWhole)
        swap(&triangles, &self.triangles)
        var bounds = self.bounds, drawingCost = self.drawingCost
        defer {
            swap(&vertices, &self.vertices)
            swap(&facings, &self.facings)
            swap(&drawnWhole, &self.drawnWhole)
            swap(&triangles, &self.triangles)
            self.bounds = bounds
            self.drawingCost = drawingCost
        }
        vertices.removeAll(keepingCapacity: true)
        for i in 0..<count {
            vertices.append(ViewVertex(position: view.apply(mesh.positions[i]), normal: view.rotation * mesh.normals[i]))
        }
        var setup = Setup(focal: camera.focal, near: camera.clippingNear, width: Int(camera.width),
                          height: Int(camera.height), material: material, lighting: lighting)
        func corners(_ triangle: SIMD3<Int32>) -> (Int, Int, Int)? {
            let i0 = Int(triangle.x), i1 = Int(triangle.y), i2 = Int(triangle.z)
            guard i0 >= 0, i1 >= 0, i2 >= 0, i0 < count, i1 < count, i2 < count else { return nil }
            return (i0, i1, i2)
        }
        facings.removeAll(keepingCapacity: true)
        drawnWhole.removeAll(keepingCapacity: true)
        for triangle in mesh.triangles {
            guard let (i0, i1, i2) = corners(triangle) else {
                facings.append(0)
                drawnWhole.append(false)
                continue
            }
            let a = vertices[i0].position, b = vertices[i1].position, c = vertices[i2].position
            // The camera is at the origin: a face whose normal points away from it is seen from behind.
            let facing = (b - a).crossProduct(c - a).dotProduct(a)
            facings.append(facing)
            drawnWhole.append(!(mesh.isClosed && facing >= 0) && -a.z >= setup.near && -b.z >= setup.near && -c.z >= setup.near)
        }
        let neighbours = edges.flatMap { $0.neighbours.count == mesh.triangles.count ? $0.neighbours : nil }
        for (index, triangle) in mesh.triangles.enumerated() {
            guard let (i0, i1, i2) = corners(triangle) else { continue }
            let facing = facings[index]
            if mesh.isClosed && facing >= 0 { continue }
            setup.normalSign = facing > 0 ? -1 : 1
            setup.silhouette = 7
            if let neighbours, drawnWhole[index] {
                let across = neighbours[index]
                setup.silhouette = 0
                for k in 0..<3 {
                    let other = Int(across[k])
                    // The surface goes on across the edge only into a whole neighbour facing the same way.
                    if other < 0 || other >= drawnWhole.count || !drawnWhole[other] || (facings[other] > 0) != (facing > 0) {
                        setup.silhouette |= 1 << k
                    }
                }
            }
            setup.clip(vertices[i0], vertices[i1], vertices[i2]) { triangle in
                triangles.append(triangle)
                bounds = bounds.union(triangle.rect)
                let rect = triangle.rect
                drawingCost += min(triangle.area, Double(rect.area)) + Double(Self.tiles(of: rect).count * Self.tileSize)
            }
        }
    }

    /// Rasterizes everything added since the last call, clipped to `frame`, and forgets it. Tile
    /// by tile of the frame's 64-pixel grid, the pixels drawn are handed to `blend` in a small
    /// layer, cleared after it returns, so no frame-sized buffer is needed. (A grid fixed to the
    /// frame keeps a chroma sample's luma pixels in one tile, so tiles blend independently.)
    func resolve(within frame: PixelBounds, blend: (RenderLayer) -> Void) {
        defer { discard() }
        let area = bounds.intersection(frame)
        guard !area.isEmpty, area.minX >= 0, area.minY >= 0 else { return }
        let size = Self.tileSize
        let grid = Self.tiles(of: area)
        sortIntoTiles(grid, area: area)
        triangles.withUnsafeBufferPointer { triangles in
            for (row, top) in stride(from: grid.minY * size, to: area.maxY, by: size).enumerated() {
                for (column, left) in stride(from: grid.minX * size, to: area.maxX, by: size).enumerated() {
                    let tile = PixelBounds(minX: left, minY: top, maxX: left + size, maxY: top + size).intersection(area)
                    let slots = tileStart[row * grid.columns + column]..<tileStart[row * grid.columns + column + 1]
                    for slot in slots where triangles[tileTriangles[slot]].silhouette != 0 {
                        let part = triangles[tileTriangles[slot]].rect.intersection(tile)
                        if !part.isEmpty { markSilhouette(of: tileTriangles[slot], in: triangles, part, tile: tile) }
                    }
                    coverSingleEdgePixels(of: tile, triangles: triangles)
                    for slot in slots {
                        let index = tileTriangles[slot]
                        let part = triangles[index].rect.intersection(tile)
                        if !part.isEmpty { rasterize(index, of: triangles, part, tile: tile) }
                    }
                    tileLayer.move(toX: left, y: top)
                    shadePixels(of: tile, triangles: triangles, into: tileLayer)
                    guard !tileLayer.touched.isEmpty else { continue }
                    blend(tileLayer)
                    tileLayer.clear()
                }
            }
        }
    }

    /// The tiles of the 64-pixel grid a rectangle of pixels reaches: first column and row, and how many.
    private static func tiles(of rect: PixelBounds) -> (minX: Int, minY: Int, columns: Int, rows: Int, count: Int) {
        guard !rect.isEmpty else { return (0, 0, 0, 0, 0) }
        let minX = rect.minX / tileSize, minY = rect.minY / tileSize
        let columns = (rect.maxX - 1) / tileSize - minX + 1, rows = (rect.maxY - 1) / tileSize - minY + 1
        return (minX, minY, columns, rows, columns * rows)
    }

    /// Fills `tileStart` and `tileTriangles` for the tiles of `grid` (over `area`), triangles in the
    /// order added within each tile (the order ties in depth are settled by). (On local arrays
    /// through pointers: the properties' exclusivity checks cost more than the sort.)
    private func sortIntoTiles(_ grid: (minX: Int, minY: Int, columns: Int, rows: Int, count: Int), area: PixelBounds) {
        var start: [Int] = [], order: [Int] = []
        swap(&start, &tileStart)
        swap(&order, &tileTriangles)
        defer {
            swap(&start, &tileStart)
            swap(&order, &tileTriangles)
        }
        start.removeAll(keepingCapacity: true)
        start.append(contentsOf: repeatElement(0, count: grid.count + 1))
        triangles.withUnsafeBufferPointer { triangles in
            start.withUnsafeMutableBufferPointer { start in
                /// Calls `body` with each cell of the grid triangle `index` reaches.
                @inline(__always) func forEachCell(of index: Int, _ body: (Int) -> Void) {
                    let cells = Self.tiles(of: triangles[index].rect.intersection(area))
                    for row in cells.minY..<cells.minY + cells.rows {
                        for column in cells.minX..<cells.minX + cells.columns { body((row - grid.minY) * grid.columns + column - grid.minX) }
                    }
                }
                for index in triangles.indices { forEachCell(of: index) { start[$0 + 1] += 1 } }
                for cell in 0..<grid.count { start[cell + 1] += start[cell] }
                order.removeAll(keepingCapacity: true)
                order.append(contentsOf: repeatElement(0, count: start[grid.count]))
                order.withUnsafeMutableBufferPointer { order in
                    // Each cell's next free slot, kept in the start of the following cell until the fill is done.
                    for index in triangles.indices {
                        forEachCell(of: index) { cell in
                            order[start[cell]] = index
                            start[cell] += 1
                        }
                    }
                }
                for cell in stride(from: grid.count, to: 0, by: -1) { start[cell] = start[cell - 1] }
                start[0] = 0
            }
        }
    }

    /// Forgets everything added since the last `resolve`, drawing nothing.
    func discard() {
        triangles.removeAll(keepingCapacity: true)
        bounds = .empty
        drawingCost = 0
    }

    /// Bits `first...last` of a tile row (0 ≤ first ≤ last < 64).
    @inline(__always) private static func columns(_ first: Int, _ last: Int) -> UInt64 {
        (UInt64.max &>> UInt64(63 - (last - first))) &<< UInt64(first)
    }

    /// ⌊`value`⌋ clamped to `low...high` (`low` ≥ 0, so truncation floors; NaN gives `low`).
    @inline(__always) private static func clampedFloor(_ value: Double, _ low: Int, _ high: Int) -> Int {
        value >= Double(low) ? (value < Double(high) ? Int(value) : high) : low
    }

    /// Marks the pixels of `part` (inside `tile`) that a silhouette edge of triangle `index` passes through.
    private func markSilhouette(of index: Int, in triangles: UnsafeBufferPointer<ScreenTriangle>, _ part: PixelBounds, tile: PixelBounds) {
        let t = triangles[index], code = UInt32(truncatingIfNeeded: index) &* 4
        if t.silhouette & 1 != 0 { markEdge(t.p1, t.p2, code, part, tile: tile) }
        if t.silhouette & 2 != 0 { markEdge(t.p2, t.p0, code + 1, part, tile: tile) }
        if t.silhouette & 4 != 0 { markEdge(t.p0, t.p1, code + 2, part, tile: tile) }
    }

    /// Edge k of `t`: its barycentric coordinate k, ≥ 0 on the triangle's side.
    @inline(__always) private static func edge(_ k: UInt32, of t: ScreenTriangle) -> Linear {
        k == 0 ? t.e0 : k == 1 ? t.e1 : t.e2
    }

    /// The pixels of the tile that one silhouette edge crosses (no silhouette vertex inside): the
    /// drawn surface's outline there is that edge alone, so its side of the edge is covered
    /// throughout the pixel and the other side is not, unless another part of the meshes reaches
    /// over it (those triangles add their samples in `rasterize`). Covers them with the samples on
    /// the edge's side, seen (until a triangle holds the centre) as the edge's triangle.
    private func coverSingleEdgePixels(of tile: PixelBounds, triangles: UnsafeBufferPointer<ScreenTriangle>) {
        for row in 0..<(tile.maxY - tile.minY) {
            var single = edgeColumns[row] & ~severalEdgeColumns[row]
            let y = Double(tile.minY + row) + 0.5
            var touched: UInt64 = 0
            while single != 0 {
                let column = single.trailingZeroBitCount
                single &= single - 1
                let pixel = row * Self.tileSize + column
                let code = silhouetteEdge[pixel]
                let t = triangles[Int(code / 4)], e = Self.edge(code % 4, of: t)
                let x = Double(tile.minX + column) + 0.5
                let value = e.at(x, y)
                let mask = value >= e.reach ? UInt64.max : value + e.reach < 0 ? 0 : e.samplesInside(at: value)
                guard mask != 0 else { continue }
                coverage[pixel] = mask
                touched |= 1 &<< UInt64(column)
                let offset = Self.centroid(of: mask)
                reachDepth[pixel] = Float(t.inverseDepth.at(x + offset.x, y + offset.y))
                reachOffset[pixel] = SIMD2(Float(offset.x), Float(offset.y))
                owner[pixel] = code / 4
            }
            touchedColumns[row] |= touched
        }
    }

    /// Marks the pixels of `part` whose square the segment `p`–`q` meets, widened by far more than
    /// rounding could take away (the samples lie 1/16 px inside the square): row by row, the
    /// columns between where the segment enters and leaves the row.
    private func markEdge(_ p: SIMD2<Double>, _ q: SIMD2<Double>, _ code: UInt32, _ part: PixelBounds, tile: PixelBounds) {
        let margin = 1e-3
        let (top, bottom) = p.y <= q.y ? (p, q) : (q, p)
        guard top.y - margin < Double(part.maxY), bottom.y + margin >= Double(part.minY) else { return }
        let firstRow = Self.clampedFloor(top.y - margin, part.minY, part.maxY - 1)
        let lastRow = Self.clampedFloor(bottom.y + margin, part.minY, part.maxY - 1)
        let dy = bottom.y - top.y
        let slope = dy > 1e-12 ? (bottom.x - top.x) / dy : 0
        for py in firstRow...lastRow {
            var x0 = top.x, x1 = bottom.x
            if dy > 1e-12 {
                x0 = top.x + (max(top.y, Double(py) - margin) - top.y) * slope
                x1 = top.x + (min(bottom.y, Double(py + 1) + margin) - top.y) * slope
            }
            if x0 > x1 { swap(&x0, &x1) }
            guard x1 + margin >= Double(part.minX), x0 - margin < Double(part.maxX) else { continue }
            let row = py - tile.minY
            let first = Self.clampedFloor(x0 - margin, part.minX, part.maxX - 1) - tile.minX
            let columns = Self.columns(first, Self.clampedFloor(x1 + margin, part.minX, part.maxX - 1) - tile.minX)
            severalEdgeColumns[row] |= edgeColumns[row] & columns
            var fresh = columns & ~edgeColumns[row]
            edgeColumns[row] |= columns
            while fresh != 0 {
                silhouetteEdge[row * Self.tileSize + fresh.trailingZeroBitCount] = code
                fresh &= fresh - 1
            }
        }
    }

    /// Draws triangle `index` over the pixels of `part` (inside `tile`): the pixels whose centre
    /// it holds, with a depth test there, and in marked pixels the samples it covers.
    private func rasterize(_ index: Int, of triangles: UnsafeBufferPointer<ScreenTriangle>, _ part: PixelBounds, tile: PixelBounds) {
        let t = triangles[index]
        let me = UInt32(index)
        let depthX = t.inverseDepth.a
        let partColumns = Self.columns(part.minX - tile.minX, part.maxX - 1 - tile.minX)
        var spans = RowSpans(t, part: part)
        for py in part.minY..<part.maxY {
            spans.next()
            let row = py - tile.minY
            let y = Double(py) + 0.5
            let depthRow = t.inverseDepth.b * y + t.inverseDepth.c
            // Pixel px of this row is at `rowStart + px` in the tile's buffers.
            let rowStart = row * Self.tileSize - tile.minX
            var low = 1, high = 0
            if let centres = spans.pixels(of: t, y: y, reach: false) {
                low = centres.first
                high = centres.last
                for px in low...high {
                    let depth = Float(depthX * (Double(px) + 0.5) + depthRow)
                    if depth > centreDepth[rowStart + px] {
                        centreDepth[rowStart + px] = depth
                        owner[rowStart + px] = me
                    }
                }
                touchedColumns[row] |= Self.columns(low - tile.minX, high - tile.minX)
            }
            let marked = edgeColumns[row] & partColumns
            guard marked != 0, let reached = spans.pixels(of: t, y: y, reach: true) else { continue }
            let single = ~severalEdgeColumns[row]
            var candidates = marked & Self.columns(reached.first - tile.minX, reached.last - tile.minX)
            var touched: UInt64 = 0
            while candidates != 0 {
                let column = candidates.trailingZeroBitCount
                candidates &= candidates - 1
                let px = tile.minX + column, pixel = rowStart + px
                let holdsCentre = px >= low && px <= high
                // Wholly covered already, its centre held: nothing left to learn here.
                if coverage[pixel] == .max && (holdsCentre || centreDepth[pixel] > -.infinity) { continue }
                if single & (1 &<< UInt64(column)) != 0 {
                    // One silhouette edge crosses the pixel, its side already covered: a triangle
                    // wholly on that side (its own, its neighbours) adds nothing.
                    let code = silhouetteEdge[pixel]
                    let e = Self.edge(code % 4, of: triangles[Int(code / 4)])
                    if e.at(t.p0.x, t.p0.y) >= -1e-9 && e.at(t.p1.x, t.p1.y) >= -1e-9 && e.at(t.p2.x, t.p2.y) >= -1e-9 { continue }
                }
                let x = Double(px) + 0.5
                let mask = Self.samples(of: t, x: x, y: y)
                guard mask != 0 else { continue }
                coverage[pixel] |= mask
                touched |= 1 &<< UInt64(column)
                guard !holdsCentre, centreDepth[pixel] == -.infinity else { continue }
                // Seen here only while no triangle holds the centre: the nearest at its own samples.
                let offset = Self.centroid(of: mask)
                let depth = Float(depthX * (x + offset.x) + t.inverseDepth.b * (y + offset.y) + t.inverseDepth.c)
                if depth > reachDepth[pixel] {
                    reachDepth[pixel] = depth
                    reachOffset[pixel] = SIMD2(Float(offset.x), Float(offset.y))
                    owner[pixel] = me
                }
            }
            touchedColumns[row] |= touched
        }
    }

    /// The samples of the pixel centred at (`x`, `y`) that `t` covers.
    @inline(__always) private static func samples(of t: ScreenTriangle, x: Double, y: Double) -> UInt64 {
        let b0 = t.e0.at(x, y), b1 = t.e1.at(x, y), b2 = t.e2.at(x, y)
        if b0 + t.e0.reach < 0 || b1 + t.e1.reach < 0 || b2 + t.e2.reach < 0 { return 0 }
        var mask = UInt64.max
        if b0 < t.e0.reach { mask &= t.e0.samplesInside(at: b0) }
        if b1 < t.e1.reach { mask &= t.e1.samplesInside(at: b1) }
        if b2 < t.e2.reach { mask &= t.e2.samplesInside(at: b2) }
        return mask
    }

    /// Where the samples of `mask` lie on average, from the pixel centre.
    @inline(__always) private static func centroid(of mask: UInt64) -> (x: Double, y: Double) {
        let count = Double(mask.nonzeroBitCount)
        let columns = (mask & 0xAAAA_AAAA_AAAA_AAAA).nonzeroBitCount + 2 * (mask & 0xCCCC_CCCC_CCCC_CCCC).nonzeroBitCount
            + 4 * (mask & 0xF0F0_F0F0_F0F0_F0F0).nonzeroBitCount
        let rows = (mask & 0xFF00_FF00_FF00_FF00).nonzeroBitCount + 2 * (mask & 0xFFFF_0000_FFFF_0000).nonzeroBitCount
            + 4 * (mask & 0xFFFF_FFFF_0000_0000).nonzeroBitCount
        return ((Double(columns) / count - 3.5) / 8, (Double(rows) / count - 3.5) / 8)
    }

    /// A triangle's pixels row by row down a part of the frame: where all three barycentric
    /// coordinates can reach 0 at the pixel centre (the pixels whose centre it holds) or at some
    /// sample. Where an edge crosses a row moves by a fixed step from row to row, so a row costs a
    /// few additions (this runs for every row of every triangle, and most triangles are thin).
    /// Lane k < 3 of `lower` is edge k's bound on the first pixel (−∞ unless a > 0), of `upper` its
    /// bound on the last (+∞ unless a < 0); lane 3 holds the part's. Widened by far more than rounding
    /// could take away (2·10⁻⁶ px, while an edge crossing a row within a frame has |x| < 10⁶):
    /// triangles sharing an edge both take a centre on it, never neither.
    private struct RowSpans {
        private var lower: SIMD4<Double>, upper: SIMD4<Double>
        private var lowerStep = SIMD4<Double>.zero, upperStep = SIMD4<Double>.zero
        /// Added to the bounds to reach the pixels whose samples may meet the triangle.
        private var lowerReach = SIMD4<Double>.zero, upperReach = SIMD4<Double>.zero
        /// Bit k: edge k is level (a = 0), so it takes a row whole or not at all.
        private var level: UInt8 = 0

        /// Set for the row above `part`: `next()` moves to its first row.
        init(_ t: ScreenTriangle, part: PixelBounds) {
            lower = SIMD4(-.infinity, -.infinity, -.infinity, Double(part.minX))
            upper = SIMD4(.infinity, .infinity, .infinity, Double(part.maxX - 1))
            let y = Double(part.minY) - 0.5
            func bound(_ k: Int, _ e: Linear) {
                // a·(px + 0.5) + b·y + c ≥ 0: px ≥ x for a > 0, px ≤ x for a < 0.
                let x = -(e.b * y + e.c) * e.inverseA - 0.5
                if e.a > 0 {
                    lower[k] = x - 2e-6
                    lowerStep[k] = -e.b * e.inverseA
                    lowerReach[k] = -e.reach * e.inverseA
                } else if e.a < 0 {
                    upper[k] = x + 2e-6
                    upperStep[k] = -e.b * e.inverseA
                    upperReach[k] = -e.reach * e.inverseA
                } else {
                    level |= 1 << k
                }
            }
            bound(0, t.e0)
            bound(1, t.e1)
            bound(2, t.e2)
        }

        /// Moves to the next row.
        @inline(__always) mutating func next() {
            lower += lowerStep
            upper += upperStep
        }

        /// The current row's pixels (centre `y`) whose centre `t` may hold, or with `reach` whose
        /// samples it may reach; `nil` when there are none.
        @inline(__always) func pixels(of t: ScreenTriangle, y: Double, reach: Bool) -> (first: Int, last: Int)? {
            let lows = reach ? lower + lowerReach : lower, highs = reach ? upper + upperReach : upper
            // (Pairwise: the vector reductions go lane by lane.)
            let low = Swift.max(Swift.max(lows.x, lows.y), Swift.max(lows.z, lows.w))
            let high = Swift.min(Swift.min(highs.x, highs.y), Swift.min(highs.z, highs.w))
            guard low <= high else { return nil }
            if level != 0 {
                let margin = reach ? 1.0 : 0
                if level & 1 != 0 && t.e0.b * y + t.e0.c + margin * t.e0.reach < 0 { return nil }
                if level & 2 != 0 && t.e1.b * y + t.e1.c + margin * t.e1.reach < 0 { return nil }
                if level & 4 != 0 && t.e2.b * y + t.e2.c + margin * t.e2.reach < 0 { return nil }
            }
            // 0 ≤ low ≤ high < the frame's width (< 2²⁰): ⌈low⌉ and ⌊high⌋ are the integers nearest
            // low + ½ − 10⁻⁹ and high − ½ + 10⁻⁹ (within the slack), which adding 1.5·2⁵² leaves in
            // the low mantissa bits: no conversion, whose range check costs more than the rest.
            let magic = 6_755_399_441_055_744.0
            let first = Int(truncatingIfNeeded: (low + (0.5 - 1e-9) + magic).bitPattern & 0xF_FFFF)
            let last = Int(truncatingIfNeeded: (high - (0.5 - 1e-9) + magic).bitPattern & 0xF_FFFF)
            return first <= last ? (first, last) : nil
        }
    }

    /// Shades each drawn pixel of the tile once, with the triangle seen there, writes its colour
    /// and coverage to the layer, and empties the tile's buffers.
    private func shadePixels(of tile: PixelBounds, triangles: UnsafeBufferPointer<ScreenTriangle>, into layer: RenderLayer) {
        for py in tile.minY..<tile.maxY {
            let row = py - tile.minY
            var columns = touchedColumns[row]
            let marked = edgeColumns[row]
            touchedColumns[row] = 0
            edgeColumns[row] = 0
            severalEdgeColumns[row] = 0
            guard columns != 0 else { continue }
            layer.touch(row: py, from: tile.minX + columns.trailingZeroBitCount, to: tile.minX + 64 - columns.leadingZeroBitCount)
            let texels = layer.row(py)
            let left = Float(tile.minX) + 0.5, centreY = Float(py) + 0.5
            while columns != 0 {
                let column = columns.trailingZeroBitCount
                columns &= columns - 1
                let pixel = row * Self.tileSize + column
                let seen = Int(owner[pixel])
                owner[pixel] = 0
                var x = left + Float(column), y = centreY
                var covered: Float = 1
                if marked & (1 &<< UInt64(column)) != 0 {
                    let samples = coverage[pixel]
                    coverage[pixel] = 0
                    if centreDepth[pixel] == -.infinity {
                        x += reachOffset[pixel].x
                        y += reachOffset[pixel].y
                    }
                    reachDepth[pixel] = -.infinity
                    centreDepth[pixel] = -.infinity
                    guard samples != 0 else { continue }
                    covered = samples == .max ? 1 : Float(samples.nonzeroBitCount) / 64
                } else {
                    centreDepth[pixel] = -.infinity
                }
                texels[tile.minX + column] = SIMD4(shade(triangles[seen], x: x, y: y), covered)
            }
        }
    }

    /// The triangle's colour at a pixel position: Lambert with the perspective-correct normal.
    @inline(__always) private func shade(_ t: ScreenTriangle, x: Float, y: Float) -> SIMD3<Float> {
        if t.flat { return t.base }
        return t.base + lighting.intensity(normal: t.normalX * x + t.normalY * y + t.normalAtOrigin) * t.range
    }

}
