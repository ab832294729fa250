/// How a surface is coloured, in the frame's Y'CbCr: the colour at full light and black, lit by
/// `Lighting` (Lambert) or flat. Shading scales R'G'B', and Y'CbCr is affine in R'G'B', so a
/// shaded colour is `black + k·(color − black)`.
struct SurfaceMaterial {
    var color: SIMD3<Float>
    var black: SIMD3<Float>
    var shaded: Bool

    init(_ rgba: RGBAColor, colorSpace: ColorSpace, shaded: Bool) {
        color = Self.yuv(colorSpace, Double(rgba.red), Double(rgba.green), Double(rgba.blue))
        black = Self.yuv(colorSpace, 0, 0, 0)
        self.shaded = shaded
    }

    /// The colour where the surface faces `normal` (any length), in the frame's Y'CbCr.
    @inline(__always) func lit(by lighting: Lighting, normal: SIMD3<Float>) -> SIMD3<Float> {
        guard shaded else { return color }
        return black + lighting.intensity(normal: normal) * (color - black)
    }

    private static func yuv(_ space: ColorSpace, _ r: Double, _ g: Double, _ b: Double) -> SIMD3<Float> {
        let c = space.yuvUnrounded(red: r, green: g, blue: b)
        return SIMD3(Float(c.y), Float(c.cb), Float(c.cr))
    }
}

/// A fixed light in camera space plus ambient light: intensity `ambient + (1 − ambient)·max(0, n·l)`.
struct Lighting {
    let ambient: Double
    /// Unit vector towards the light, camera space: up, left and from behind the viewer.
    static let direction = SIMD3<Double>(-0.35, 0.55, 0.75).unitOrZero
    /// The same in single precision, converted once rather than per pixel.
    private let ambientLight: Float, diffuseLight: Float, towardsLight: SIMD3<Float>

    init(ambient: Double) {
        self.ambient = ambient
        ambientLight = Float(ambient)
        diffuseLight = Float(1 - ambient)
        towardsLight = SIMD3<Float>(Self.direction)
    }

    /// The intensity where the surface faces `normal` (any length), in single precision for per-pixel shading.
    @inline(__always) func intensity(normal: SIMD3<Float>) -> Float {
        let squared = (normal * normal).sum()
        guard squared > 0 else { return ambientLight }
        let cosine = (normal * towardsLight).sum() / squared.squareRoot()
        return ambientLight + diffuseLight * max(0, cosine)
    }
}

extension Camera {
    /// The near plane the rasterizer clips at: the pose's zNear, kept away from 0 so that
    /// projected coordinates stay finite whatever the pose data says.
    var clippingNear: Double {
        let minimum = 1e-4
        return pose.zNear.isFinite && pose.zNear > minimum ? pose.zNear : minimum
    }
}

/// Draws meshes into a ``RenderLayer``, anti-aliasing where it matters and nowhere else.
///
/// `add` transforms a mesh to camera space, skips back faces of closed meshes, clips against the
/// near plane in camera space (so nothing behind the camera is ever projected) and projects what
/// is left, noting which triangle edges are on the silhouette (``MeshEdges``). `resolve`
/// rasterizes everything added, one 64×64 tile of the frame at a time (the buffers are
/// tile-sized, allocated once), in two passes per tile:
/// 1. the triangles with a silhouette edge mark the pixels that edge passes through;
/// 2. every triangle is drawn. In a marked pixel it takes the samples of an 8×8 grid it covers
///    (64 per pixel, as bits of a `UInt64`: a row of samples is a run of bits cut by each edge,
///    so a mask costs a few operations per row) and the pixel's coverage is the union of them.
///    In any other pixel the surface goes on beyond every edge, so the pixel is wholly covered
///    and the triangle holding the pixel centre is the one seen.
/// Visibility is one depth test per pixel, at its centre, on perspective-correct depth, and each
/// pixel is shaded once (Lambert with the perspective-correct normal at the centre) by the
/// nearest triangle holding the centre (or, where none does, the nearest reaching the pixel).
/// So silhouettes are smooth while the inside of a mesh costs what a one-sample rasterizer costs;
/// where a shape meets its own stem or another face inside the silhouette, the nearer colour
/// wins the whole pixel. All meshes added between two `resolve` calls (a shape and its stem) are
/// depth-tested together.
final class MeshRasterizer {
    /// At most 64: a tile row's touched pixels are the bits of a `UInt64`.
    static let tileSize = 64
    /// Samples are at (i + ½)/8 of the pixel, i = 0…7: at most this far from its centre.
    static let sampleReach = 0.4375

    private struct ViewVertex {
        var position: SIMD3<Double>
        var normal: SIMD3<Double>
    }

    /// A projected triangle: its barycentric coordinates and inverse depth as linear functions of
    /// the pixel position, its normal (facing the viewer) and its material.
    private struct ScreenTriangle {
        var rect: PixelBounds
        /// Its area in pixels.
        var area: Double
        var e0: Linear, e1: Linear, e2: Linear
        /// Bit k set: edge k (`e`k = 0, opposite vertex k) is on the silhouette.
        var silhouette: UInt8
        var inverseDepth: Linear
        /// The perspective-correct normal times a positive factor: Σ nᵢ·bᵢ/depthᵢ, linear in the
        /// pixel position (`normalX`·x + `normalY`·y + `normalAtOrigin`); shading normalizes it.
        var normalX: SIMD3<Float>, normalY: SIMD3<Float>, normalAtOrigin: SIMD3<Float>
        var material: SurfaceMaterial
        /// Its colour everywhere, when that is one colour: flat materials, and flat faces (all three
        /// normals alike) of lit ones, whose light does not change across them.
        var uniformColor: SIMD3<Float>?
    }

    let lighting: Lighting
    private var vertices: [ViewVertex] = []
    /// Per triangle of the mesh being added: drawn whole (in front of the near plane, facing the
    /// viewer or double-sided), and which way it faces.
    private var drawnWhole: [Bool] = []
    private var facings: [Double] = []
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
    /// Per pixel of the current tile: the samples covered (bit 8·row + column of the 8×8 grid).
    private let coverage: UnsafeMutablePointer<UInt64>
    /// Per pixel: 1/depth of the nearest triangle holding its centre (0: none), of the nearest
    /// reaching it without its centre (−∞: none), and the one that is seen.
    private let centreDepth: UnsafeMutablePointer<Float>
    private let reachDepth: UnsafeMutablePointer<Float>
    private let owner: UnsafeMutablePointer<UInt32>
    /// Per row of the current tile, a bit per pixel holding samples, and one per pixel a silhouette passes through.
    private let touchedColumns: UnsafeMutablePointer<UInt64>
    private let edgeColumns: UnsafeMutablePointer<UInt64>
    /// The current tile's pixels as drawn, for `resolve`'s `blend`.
    private let tileLayer = RenderLayer(width: tileSize, height: tileSize)

    init(lighting: Lighting) {
        self.lighting = lighting
        let pixels = Self.tileSize * Self.tileSize
        coverage = .allocate(capacity: pixels)
        coverage.initialize(repeating: 0, count: pixels)
        centreDepth = .allocate(capacity: pixels)
        centreDepth.initialize(repeating: 0, count: pixels)
        reachDepth = .allocate(capacity: pixels)
        reachDepth.initialize(repeating: -.infinity, count: pixels)
        owner = .allocate(capacity: pixels)
        owner.initialize(repeating: 0, count: pixels)
        touchedColumns = .allocate(capacity: Self.tileSize)
        touchedColumns.initialize(repeating: 0, count: Self.tileSize)
        edgeColumns = .allocate(capacity: Self.tileSize)
        edgeColumns.initialize(repeating: 0, count: Self.tileSize)
    }

    deinit {
        coverage.deallocate()
        centreDepth.deallocate()
        reachDepth.deallocate()
        owner.deallocate()
        touchedColumns.deallocate()
        edgeColumns.deallocate()
    }

    /// Sets up `mesh`, placed in the world by `transform`, as `camera` sees it. Without `edges`
    /// every edge counts as a silhouette (right for any mesh, only slower).
    func add(_ mesh: Mesh, edges: MeshEdges? = nil, transform: ModelTransform, camera: Camera, material: SurfaceMaterial) {
        let count = mesh.positions.count
        guard mesh.normals.count == count else { return }
        let view = transform.viewed(by: camera)
        vertices.removeAll(keepingCapacity: true)
        for i in 0..<count {
            vertices.append(ViewVertex(position: view.apply(mesh.positions[i]), normal: view.rotation * mesh.normals[i]))
        }
        var setup = Setup(focal: camera.focal, near: camera.clippingNear, width: Int(camera.width),
                          height: Int(camera.height), material: material, lighting: lighting)
        // Which triangles are drawn whole, so that their neighbours know where the surface ends.
        drawnWhole.removeAll(keepingCapacity: true)
        facings.removeAll(keepingCapacity: true)
        for triangle in mesh.triangles {
            let i0 = Int(triangle.x), i1 = Int(triangle.y), i2 = Int(triangle.z)
            guard i0 >= 0, i1 >= 0, i2 >= 0, i0 < count, i1 < count, i2 < count else {
                drawnWhole.append(false)
                facings.append(0)
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
            let i0 = Int(triangle.x), i1 = Int(triangle.y), i2 = Int(triangle.z)
            guard i0 >= 0, i1 >= 0, i2 >= 0, i0 < count, i1 < count, i2 < count else { continue }
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
                    if other < 0 || !drawnWhole[other] || (facings[other] > 0) != (facing > 0) { setup.silhouette |= 1 << k }
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
                    let cell = row * grid.columns + column
                    for slot in tileStart[cell]..<tileStart[cell + 1] where triangles[tileTriangles[slot]].silhouette != 0 {
                        let part = triangles[tileTriangles[slot]].rect.intersection(tile)
                        if !part.isEmpty { markSilhouette(of: triangles[tileTriangles[slot]], part, tile: tile) }
                    }
                    for slot in tileStart[cell]..<tileStart[cell + 1] {
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
    /// order added within each tile (the order ties in depth are settled by).
    private func sortIntoTiles(_ grid: (minX: Int, minY: Int, columns: Int, rows: Int, count: Int), area: PixelBounds) {
        tileStart.removeAll(keepingCapacity: true)
        tileStart.append(contentsOf: repeatElement(0, count: grid.count + 1))
        func forEachCell(of index: Int, _ body: (Int) -> Void) {
            let cells = Self.tiles(of: triangles[index].rect.intersection(area))
            for row in cells.minY..<cells.minY + cells.rows {
                for column in cells.minX..<cells.minX + cells.columns { body((row - grid.minY) * grid.columns + column - grid.minX) }
            }
        }
        for index in triangles.indices { forEachCell(of: index) { tileStart[$0 + 1] += 1 } }
        for cell in 0..<grid.count { tileStart[cell + 1] += tileStart[cell] }
        tileTriangles.removeAll(keepingCapacity: true)
        tileTriangles.append(contentsOf: repeatElement(0, count: tileStart[grid.count]))
        // Each cell's next free slot, kept in the start of the following cell until the fill is done.
        for index in triangles.indices {
            forEachCell(of: index) { cell in
                tileTriangles[tileStart[cell]] = index
                tileStart[cell] += 1
            }
        }
        for cell in stride(from: grid.count, to: 0, by: -1) { tileStart[cell] = tileStart[cell - 1] }
        tileStart[0] = 0
    }

    /// Forgets everything added since the last `resolve`, drawing nothing.
    func discard() {
        triangles.removeAll(keepingCapacity: true)
        bounds = .empty
        drawingCost = 0
    }

    /// Where pixel (`x`, `y`) is in the tile's buffers.
    @inline(__always) private func pixelIndex(_ x: Int, _ y: Int, in tile: PixelBounds) -> Int {
        (y - tile.minY) * Self.tileSize + (x - tile.minX)
    }

    /// Marks the pixels of `part` (inside `tile`) whose samples a silhouette edge of `t` may cut.
    private func markSilhouette(of t: ScreenTriangle, _ part: PixelBounds, tile: PixelBounds) {
        let e0 = t.e0, e1 = t.e1, e2 = t.e2
        let s0 = t.silhouette & 1 != 0, s1 = t.silhouette & 2 != 0, s2 = t.silhouette & 4 != 0
        for py in part.minY..<part.maxY {
            let y = Double(py) + 0.5
            guard let span = Self.span(of: t, row: y, within: part) else { continue }
            var marks: UInt64 = 0
            for px in span {
                let x = Double(px) + 0.5
                let b0 = e0.at(x, y), b1 = e1.at(x, y), b2 = e2.at(x, y)
                if b0 + e0.reach < 0 || b1 + e1.reach < 0 || b2 + e2.reach < 0 { continue }
                if (s0 && b0 < e0.reach) || (s1 && b1 < e1.reach) || (s2 && b2 < e2.reach) {
                    marks |= 1 << UInt64(px - tile.minX)
                }
            }
            edgeColumns[py - tile.minY] |= marks
        }
    }

    /// Draws triangle `index` over the pixels of `part` (inside `tile`): coverage, and the centre's
    /// depth test. A row without marked pixels under the triangle needs only the pixels whose centre
    /// it holds (its narrow span); elsewhere every pixel its samples may reach is looked at.
    private func rasterize(_ index: Int, of triangles: UnsafeBufferPointer<ScreenTriangle>, _ part: PixelBounds, tile: PixelBounds) {
        let t = triangles[index]
        let e0 = t.e0, e1 = t.e1, e2 = t.e2
        let me = UInt32(index)
        let partColumns = (UInt64.max >> UInt64(64 - part.maxX + part.minX)) << UInt64(part.minX - tile.minX)
        for py in part.minY..<part.maxY {
            let y = Double(py) + 0.5
            let edges = edgeColumns[py - tile.minY] & partColumns
            guard let span = Self.span(of: t, row: y, within: part, reach: edges == 0 ? 0 : 1) else { continue }
            var touched: UInt64 = 0
            for px in span {
                let x = Double(px) + 0.5
                let b0 = e0.at(x, y), b1 = e1.at(x, y), b2 = e2.at(x, y)
                let column = UInt64(px - tile.minX)
                let pixel = pixelIndex(px, py, in: tile)
                let holdsCentre = b0 >= 0 && b1 >= 0 && b2 >= 0
                if edges & (1 << column) != 0 {
                    if b0 + e0.reach < 0 || b1 + e1.reach < 0 || b2 + e2.reach < 0 { continue }
                    var mask = UInt64.max
                    if b0 < e0.reach { mask &= e0.samplesInside(at: b0) }
                    if b1 < e1.reach { mask &= e1.samplesInside(at: b1) }
                    if b2 < e2.reach { mask &= e2.samplesInside(at: b2) }
                    guard mask != 0 || holdsCentre else { continue }
                    coverage[pixel] |= mask
                    touched |= 1 << column
                    if !holdsCentre {
                        // Nearest where its samples are (the pixel centre may lie far outside it).
                        guard centreDepth[pixel] == 0 else { continue }
                        let (dx, dy) = Self.centroid(of: mask)
                        let depth = Float(t.inverseDepth.at(x + dx, y + dy))
                        if depth > reachDepth[pixel] {
                            reachDepth[pixel] = depth
                            owner[pixel] = me
                        }
                        continue
                    }
                } else {
                    guard holdsCentre else { continue }
                    coverage[pixel] = .max
                    touched |= 1 << column
                }
                let depth = Float(t.inverseDepth.at(x, y))
                if depth > centreDepth[pixel] {
                    centreDepth[pixel] = depth
                    owner[pixel] = me
                }
            }
            touchedColumns[py - tile.minY] |= touched
        }
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

    /// The pixels of row `y` (a pixel centre) in `part` whose samples may meet the triangle:
    /// where all three barycentric coordinates can reach 0, widened by far more than rounding
    /// could take away (the test per pixel decides). Keeps long thin triangles from costing
    /// their whole bounding box, and small ones from costing a pixel more at each end.
    /// With `reach` 0, only the pixels whose centre it may hold.
    @inline(__always) private static func span(of t: ScreenTriangle, row y: Double, within part: PixelBounds,
                                               reach: Double = 1) -> ClosedRange<Int>? {
        var low = Double(part.minX), high = Double(part.maxX - 1)
        // (Rounding by truncation, valid between the non-negative bounds: `rounded(.up)` is a
        // libm call on baseline x86-64, and this runs for every row of every triangle.)
        func narrow(by e: Linear) -> Bool {
            // a·x + b·y + c + reach ≥ 0 at the centre x = px + 0.5 (reach: the samples' or 0)
            let bound = -(e.reach * reach + e.b * y + e.c)
            if e.a > 0 {
                let edge = bound * e.inverseA
                let first = edge - 0.5 - (1e-6 + 1e-12 * abs(edge))
                if first > high { return false }
                if first > low { low = Double(Int(first)) < first ? Double(Int(first)) + 1 : first }
            } else if e.a < 0 {
                let edge = bound * e.inverseA
                let last = edge - 0.5 + (1e-6 + 1e-12 * abs(edge))
                if last < low { return false }
                if last < high { high = Double(Int(last)) }
            } else if bound > 0 {
                return false
            }
            return true
        }
        guard narrow(by: t.e0), narrow(by: t.e1), narrow(by: t.e2), low <= high else { return nil }
        return Int(low)...Int(high)
    }

    /// Shades each touched pixel of the tile once, with the triangle seen there, writes its
    /// colour and coverage to the layer, and empties the tile's buffers.
    private func shadePixels(of tile: PixelBounds, triangles: UnsafeBufferPointer<ScreenTriangle>, into layer: RenderLayer) {
        for py in tile.minY..<tile.maxY {
            var columns = touchedColumns[py - tile.minY]
            touchedColumns[py - tile.minY] = 0
            edgeColumns[py - tile.minY] = 0
            guard columns != 0 else { continue }
            layer.touch(row: py, from: tile.minX + columns.trailingZeroBitCount, to: tile.minX + 64 - columns.leadingZeroBitCount)
            let texels = layer.row(py)
            let y = Float(py) + 0.5
            while columns != 0 {
                let px = tile.minX + columns.trailingZeroBitCount
                columns &= columns - 1
                let pixel = pixelIndex(px, py, in: tile)
                let samples = coverage[pixel]
                coverage[pixel] = 0
                centreDepth[pixel] = 0
                reachDepth[pixel] = -.infinity
                let covered: Float = samples == .max ? 1 : Float(samples.nonzeroBitCount) / 64
                texels[px] = SIMD4(shade(triangles[Int(owner[pixel])], x: Float(px) + 0.5, y: y), covered)
            }
        }
    }

    /// The triangle's colour at a pixel position: Lambert with the perspective-correct normal.
    @inline(__always) private func shade(_ t: ScreenTriangle, x: Float, y: Float) -> SIMD3<Float> {
        if let uniformColor = t.uniformColor { return uniformColor }
        return t.material.lit(by: lighting, normal: t.normalX * x + t.normalY * y + t.normalAtOrigin)
    }

    /// Clipping and projection for one `add` call.
    private struct Setup {
        let focal: Intrinsics
        let near: Double
        let width: Int
        let height: Int
        let material: SurfaceMaterial
        let lighting: Lighting
        /// −1 for the back side of a double-sided face, so it is lit like its front.
        var normalSign: Double = 1
        /// Bit k set: edge k of the triangle being set up is on the silhouette.
        var silhouette: UInt8 = 7

        /// Clips the triangle to depth ≥ near (keeping its winding) and emits what is left.
        func clip(_ a: ViewVertex, _ b: ViewVertex, _ c: ViewVertex, _ emit: (ScreenTriangle) -> Void) {
            let inA = -a.position.z >= near, inB = -b.position.z >= near, inC = -c.position.z >= near
            func out(_ p: ViewVertex, _ q: ViewVertex, _ r: ViewVertex) {
                if let t = project(p, q, r) { emit(t) }
            }
            switch (inA, inB, inC) {
            case (true, true, true): out(a, b, c)
            case (false, false, false): return
            // One vertex in front: a smaller triangle.
            case (true, false, false): out(a, crossing(a, b), crossing(a, c))
            case (false, true, false): out(b, crossing(b, c), crossing(b, a))
            case (false, false, true): out(c, crossing(c, a), crossing(c, b))
            // One vertex behind: a quadrilateral from where the edge after it enters to where the
            // edge before it leaves.
            case (false, true, true):
                out(crossing(b, a), b, c); out(crossing(b, a), c, crossing(c, a))
            case (true, false, true):
                out(crossing(c, b), c, a); out(crossing(c, b), a, crossing(a, b))
            case (true, true, false):
                out(crossing(a, c), a, b); out(crossing(a, c), b, crossing(b, c))
            }
        }

        /// The colour of a triangle with these vertex normals, when it is one colour all over.
        private func uniformColor(_ n0: SIMD3<Double>, _ n1: SIMD3<Double>, _ n2: SIMD3<Double>) -> SIMD3<Float>? {
            guard material.shaded else { return material.color }
            guard n0 == n1, n1 == n2 else { return nil }
            return material.lit(by: lighting, normal: SIMD3<Float>(n0 * normalSign))
        }

        /// The point on segment `inside`–`outside` at depth `near`.
        private func crossing(_ inside: ViewVertex, _ outside: ViewVertex) -> ViewVertex {
            let dIn = -inside.position.z, dOut = -outside.position.z
            let t = (dIn - near) / (dIn - dOut)
            return ViewVertex(position: inside.position + (outside.position - inside.position) * t,
                              normal: inside.normal + (outside.normal - inside.normal) * t)
        }

        /// Projects a triangle lying in front of the near plane; `nil` when it has no area on
        /// screen or misses the frame.
        private func project(_ a: ViewVertex, _ b: ViewVertex, _ c: ViewVertex) -> ScreenTriangle? {
            func pixel(_ v: ViewVertex) -> (x: Double, y: Double, inverseDepth: Double) {
                let d = -v.position.z
                return (focal.cx + focal.fx * v.position.x / d, focal.cy - focal.fy * v.position.y / d, 1 / d)
            }
            let v0 = pixel(a), v1 = pixel(b), v2 = pixel(c)
            let area = (v1.x - v0.x) * (v2.y - v0.y) - (v1.y - v0.y) * (v2.x - v0.x)
            guard area.isFinite, abs(area) > 1e-9 else { return nil }
            // (Nested two-argument min/max: the variadic forms allocate an array.)
            let rect = PixelBounds.covering(x0: min(min(v0.x, v1.x), v2.x), y0: min(min(v0.y, v1.y), v2.y),
                                          x1: max(max(v0.x, v1.x), v2.x), y1: max(max(v0.y, v1.y), v2.y),
                                          width: width, height: height)
            guard !rect.isEmpty else { return nil }
            // Barycentric coordinate i: 1 at vertex i, 0 along the opposite edge.
            let e0 = Linear(edgeFrom: (v1.x, v1.y), to: (v2.x, v2.y), area: area)
            let e1 = Linear(edgeFrom: (v2.x, v2.y), to: (v0.x, v0.y), area: area)
            let e2 = Linear(edgeFrom: (v0.x, v0.y), to: (v1.x, v1.y), area: area)
            // 1/depth is linear in screen space: the barycentric mix of the vertices' 1/depth.
            let inverseDepth = Linear(a: e0.a * v0.inverseDepth + e1.a * v1.inverseDepth + e2.a * v2.inverseDepth,
                                      b: e0.b * v0.inverseDepth + e1.b * v1.inverseDepth + e2.b * v2.inverseDepth,
                                      c: e0.c * v0.inverseDepth + e1.c * v1.inverseDepth + e2.c * v2.inverseDepth)
            // Σ nᵢ·bᵢ/depthᵢ, each bᵢ linear in the pixel position.
            let n0 = a.normal * (normalSign * v0.inverseDepth), n1 = b.normal * (normalSign * v1.inverseDepth)
            let n2 = c.normal * (normalSign * v2.inverseDepth)
            return ScreenTriangle(rect: rect, area: abs(area) / 2, e0: e0, e1: e1, e2: e2, silhouette: silhouette,
                                  inverseDepth: inverseDepth,
                                  normalX: SIMD3<Float>(n0 * e0.a + n1 * e1.a + n2 * e2.a),
                                  normalY: SIMD3<Float>(n0 * e0.b + n1 * e1.b + n2 * e2.b),
                                  normalAtOrigin: SIMD3<Float>(n0 * e0.c + n1 * e1.c + n2 * e2.c),
                                  material: material, uniformColor: uniformColor(a.normal, b.normal, c.normal))
        }
    }

    /// A linear function of the pixel position, `a·x + b·y + c`.
    private struct Linear {
        let a: Double, b: Double, c: Double
        /// How much it can change from the pixel centre to a sample (±``sampleReach`` px).
        let reach: Double
        /// 1/a (0 when a is 0), so that spans multiply rather than divide, row after row.
        let inverseA: Double
        /// Per row j of the 8×8 sample grid, how far its 0 crossing lies from the centre row's,
        /// in sample columns: −b·(j − 3.5)/a.
        let rowCrossings: SIMD8<Float>

        init(a: Double, b: Double, c: Double) {
            self.a = a
            self.b = b
            self.c = c
            reach = (abs(a) + abs(b)) * MeshRasterizer.sampleReach
            inverseA = a != 0 ? 1 / a : 0
            let rows = SIMD8<Double>(-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5)
            rowCrossings = SIMD8<Float>(rows * (-b * inverseA))
        }

        /// The barycentric coordinate that is 0 along the edge `p`→`q` and 1 at the third vertex
        /// of a triangle of signed `area`.
        init(edgeFrom p: (x: Double, y: Double), to q: (x: Double, y: Double), area: Double) {
            let a = -(q.y - p.y) / area, b = (q.x - p.x) / area
            self.init(a: a, b: b, c: -(a * p.x + b * p.y))
        }

        @inline(__always) func at(_ x: Double, _ y: Double) -> Double { a * x + b * y + c }

        /// The samples of the 8×8 grid (bit 8·j + i for the sample at ((i + ½)/8, (j + ½)/8) of
        /// the pixel) where it is ≥ 0, given its value at the pixel centre. Along a row of samples
        /// that is a run of columns from one side: each row's run starts (a > 0) or ends (a < 0)
        /// where the value crosses 0, found for the eight rows at once, with no test per sample.
        @inline(__always) func samplesInside(at centre: Double) -> UInt64 {
            var mask: UInt64 = 0
            if a == 0 {
                var row = centre - b * (3.5 / 8)
                for j in 0..<8 {
                    if row >= 0 { mask |= 0xFF << UInt64(8 * j) }
                    row += b / 8
                }
                return mask
            }
            // Row j crosses 0 at column i₀ = 3.5 − 8·(centre + b·(j − 3.5)/8)/a; columns before it
            // number round(i₀ + ½), clamped to 0…8 (adding 1.5·2²³ rounds in the mantissa).
            let crossing = (SIMD8<Float>(repeating: Float(3.5 - 8 * centre * inverseA)) + rowCrossings)
                .clamped(lowerBound: SIMD8(repeating: -1), upperBound: SIMD8(repeating: 8)) + 0.5
            let before = unsafeBitCast(crossing + 12_582_912, to: SIMD8<UInt32>.self) & 0x7F_FFFF &- 0x40_0000
            for j in 0..<8 {
                let k = UInt64(min(before[j], 8))
                // a > 0: the columns from the crossing on; a < 0: those before it.
                let run: UInt64 = a > 0 ? (0xFF << k) & 0xFF : (1 << k) - 1
                mask |= run << UInt64(8 * j)
            }
            return mask
        }
    }
}
