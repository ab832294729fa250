import CKernels

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
/// 3. each pixel is shaded once (Lambert with the perspective-correct normal; on a sphere's facets
///    the sphere's own, where the pixel's ray meets it) by the triangle seen there, or by the one
///    before it where that shades it alike (one colour, or one plane of a quad: `shaded_as`), so
///    runs of pixels go on across a face.
/// Off the silhouette a neighbour continues the surface beyond every edge, so a pixel there is
/// wholly covered and the triangle holding its centre is the one seen: the inside of a mesh costs
/// what a one-sample rasterizer costs, whatever its triangles' size, and silhouettes get 64
/// coverage levels. Where a shape meets its own stem or another of its faces inside the
/// silhouette, the nearer colour takes the whole pixel. A quad's two halves in one plane are
/// rasterized as one shape, and a convex mesh's own triangles lie inside its silhouette, so they
/// add no samples where one of its silhouette edges alone crosses a pixel. All meshes added between two `resolve`
/// calls (a shape and its stem) are depth-tested together. Steps 1–3 run in C, a tile per call
/// (`ck_raster_tile_draw`, CKernels/raster.c); this class sets the triangles up and sorts them
/// into tiles.
final class MeshRasterizer {
    /// At most 64: a tile row's pixels are the bits of a `UInt64`.
    static let tileSize = 1 << tileShift
    /// A power of two, so a pixel's tile is a shift away (a division by a signed 64 cost five instructions).
    private static let tileShift = 6

    struct ViewVertex {
        var position: SIMD3<Double>
        var normal: SIMD3<Double>
    }

    /// A projected triangle (`ck_raster_triangle`, CKernels.h): its barycentric coordinates and
    /// inverse depth as linear functions of the pixel position, its corners, which edges are on
    /// the silhouette, its normal (facing the viewer) and its colour; built by ``Setup``.
    typealias ScreenTriangle = ck_raster_triangle

    let lighting: Lighting
    private var vertices: [ViewVertex] = []
    /// Per triangle of the mesh being added, ``FaceFlag``s: one byte read per neighbour when
    /// silhouettes are found, where a facing and a flag in two arrays cost two bounds-checked loads.
    private var faces: [UInt8] = []
    /// What `add` knows of a mesh triangle once the whole mesh is transformed.
    private enum FaceFlag {
        /// Its corners are vertices of the mesh and it is not a closed mesh's back face.
        static let drawn: UInt8 = 1
        /// Drawn, and in front of the near plane: its neighbours' surfaces may go on across it.
        static let whole: UInt8 = 2
        /// Seen from behind (a double-sided face's back), lit like its front.
        static let reversed: UInt8 = 4
    }
    /// The triangles added since the last `resolve`, `triangleCount` of `triangleCapacity`: raw
    /// storage, so `add` builds each in place without an array's bookkeeping per triangle.
    private var triangles: UnsafeMutablePointer<ScreenTriangle>
    private var triangleCount = 0
    private var triangleCapacity = 256
    private var bounds = PixelBounds.empty
    /// How many convex meshes, whole and with their silhouettes known, were added since the last
    /// `resolve` (the kernel tells two apart: `ck_raster_triangle.convex_group`).
    private var convexMeshes = 0
    /// What the next `resolve` will cost, in pixel tests: the pixels each triangle added since the
    /// last `resolve` covers on screen (each costs a test per pixel), plus a tile's height per tile
    /// its rectangle reaches (each costs a span per row): a thin triangle across the frame costs its tiles.
    private(set) var drawingCost = 0.0
    /// Per tile of `resolve`'s area (row by row), where its triangles start in `tileTriangles`: a
    /// counting sort, so each tile visits only the triangles that reach it (not every triangle
    /// added, which made `resolve` cost triangles × tiles).
    private var tileStart: [Int] = []
    private var tileTriangles: [Int] = []
    /// The current tile's per-pixel scratch (coverage, depths, the triangle seen, the silhouette
    /// marks; CKernels.h), emptied by each tile's drawing.
    private let tileScratch: UnsafeMutablePointer<ck_raster_tile>
    /// `lighting` as the C kernel takes it.
    private var kernelLighting: ck_lighting
    /// Per row of the current tile, a bit per pixel drawn.
    private let drawnColumns: UnsafeMutablePointer<UInt64>
    /// The current tile's pixels as drawn, for `resolve`'s `blend`.
    private let tileLayer = RenderLayer(width: tileSize, height: tileSize)

    init(lighting: Lighting) {
        self.lighting = lighting
        kernelLighting = lighting.kernelLighting
        triangles = .allocate(capacity: triangleCapacity)
        tileScratch = .allocate(capacity: 1)
        ck_raster_tile_init(tileScratch)
        drawnColumns = .allocate(capacity: Self.tileSize)
        drawnColumns.initialize(repeating: 0, count: Self.tileSize)
    }

    deinit {
        triangles.deallocate()
        tileScratch.deallocate()
        drawnColumns.deallocate()
    }

    /// Sets up `mesh`, placed in the world by `transform`, as `camera` sees it. Without `edges`
    /// (the mesh's, ``MeshEdges``) every edge counts as a silhouette: right for any mesh, only slower.
    func add(_ mesh: Mesh, edges: MeshEdges? = nil, transform: ModelTransform, camera: Camera, material: SurfaceMaterial) {
        let vertexCount = mesh.positions.count
        guard mesh.normals.count == vertexCount else { return }
        let view = transform.viewed(by: camera)
        // The scratch arrays and results as locals for the loops (a property's every access is
        // checked for exclusivity at run time), put back when done.
        var vertices: [ViewVertex] = [], faces: [UInt8] = []
        swap(&vertices, &self.vertices)
        swap(&faces, &self.faces)
        // Clipping leaves at most two pieces of a triangle.
        reserveTriangles(2 * mesh.triangles.count)
        let triangles = self.triangles
        var drawingCost = self.drawingCost, count = triangleCount
        // The rectangle around the triangles set up (none is empty: `project` drops those).
        var low = SIMD2<Int32>(repeating: .max), high = SIMD2<Int32>(repeating: .min)
        defer {
            swap(&vertices, &self.vertices)
            swap(&faces, &self.faces)
            if low.x < high.x {
                bounds = bounds.union(PixelBounds(minX: Int(low.x), minY: Int(low.y), maxX: Int(high.x), maxY: Int(high.y)))
            }
            self.drawingCost = drawingCost
            triangleCount = count
        }
        Self.transform(mesh, by: view, into: &vertices)
        // The view ray through pixel (x, y): ((x − cx)/fx, −(y − cy)/fy, −1), for spheres' normals.
        let focal = camera.focal
        kernelLighting.ray_x = (Float(1 / focal.fx), 0, 0, 0)
        kernelLighting.ray_y = (0, Float(-1 / focal.fy), 0, 0)
        kernelLighting.ray_origin = (Float(-focal.cx / focal.fx), Float(focal.cy / focal.fy), -1, 0)
        let setup = Setup(focal: focal, near: camera.clippingNear, width: Int(camera.width),
                          height: Int(camera.height), material: material, lighting: lighting)
        let meshTriangles = mesh.triangles.count
        Self.grow(&faces, to: meshTriangles, with: 0)
        // An index is a vertex when below this as unsigned: negative ones wrap past it.
        let vertexLimit = UInt32(min(vertexCount, Int(Int32.max) + 1))
        // Through pointers: appending one element at a time cost more than the arithmetic.
        vertices.withUnsafeBufferPointer { vertices in
            faces.withUnsafeMutableBufferPointer { faces in
                for (index, triangle) in mesh.triangles.enumerated() {
                    let corners = SIMD3<UInt32>(truncatingIfNeeded: triangle)
                    guard max(max(corners.x, corners.y), corners.z) < vertexLimit else {
                        faces[index] = 0
                        continue
                    }
                    let a = vertices[Int(corners.x)].position, b = vertices[Int(corners.y)].position
                    let c = vertices[Int(corners.z)].position
                    // The camera is at the origin: a face whose normal points away from it is seen from behind.
                    let facing = (b - a).crossProduct(c - a).dotProduct(a)
                    let drawn = !(mesh.isClosed && facing >= 0)
                    let whole = drawn && -a.z >= setup.near && -b.z >= setup.near && -c.z >= setup.near
                    faces[index] = (drawn ? FaceFlag.drawn : 0) | (whole ? FaceFlag.whole : 0) | (facing > 0 ? FaceFlag.reversed : 0)
                }
            }
        }
        // The last triangle set up and the mesh's triangle it came from.
        var previous: Int?, previousSource = -1
        let neighbours = edges.flatMap { $0.neighbours.count == meshTriangles ? $0.neighbours : nil }
        var unclipped = true
        // (Most meshes have no sphere: no search of the list per triangle.)
        let meshStart = count, hasSpheres = !mesh.sphericalSurfaces.isEmpty
        for (index, triangle) in mesh.triangles.enumerated() {
            let face = faces[index]
            guard face & FaceFlag.drawn != 0 else { continue }
            let whole = face & FaceFlag.whole != 0
            unclipped = unclipped && whole
            var facet = Facet(normalSign: face & FaceFlag.reversed != 0 ? -1 : 1)
            facet.spherical = hasSpheres && index < mesh.surfaces.count && mesh.sphericalSurfaces.contains(mesh.surfaces[index])
            if let neighbours, whole {
                let across = SIMD3<UInt32>(truncatingIfNeeded: neighbours[index])
                facet.silhouette = 0
                for k in 0..<3 {
                    // The surface goes on across the edge only into a whole neighbour facing the same
                    // way: one whose flags are these (a negative index wraps out of range).
                    if across[k] >= meshTriangles || faces[Int(across[k])] != face { facet.silhouette |= 1 << k }
                }
            }
            let first = count, before = previous
            let samePlane = previousSource == index - 1 && index < mesh.continuesPlane.count && mesh.continuesPlane[index]
            // The second half of a quad, both halves whole and facing alike: the first may take it
            // in (below), so it is shaded only if not.
            let mayJoin = samePlane && before == first - 1 && whole && faces[index - 1] == face
            let (v0, v1, v2) = vertices.withUnsafeBufferPointer { vertices in
                (vertices[Int(triangle.x)], vertices[Int(triangle.y)], vertices[Int(triangle.z)])
            }
            // A whole triangle needs no clipping.
            if whole {
                setup.project(v0, v1, v2, as: facet, shaded: !mayJoin, into: triangles, count: &count)
            } else {
                setup.clip(v0, v1, v2, as: facet, into: triangles, count: &count)
            }
            for slot in first..<count {
                let triangle = triangles + slot
                // Shaded as the last triangle when that shades it alike: both one colour, or
                // lit on one plane with one normal field (the mesh's quads), so a face, an
                // unshaded mesh or a quad is shaded in runs across its triangles.
                if let previous {
                    let shading = triangles + Int(triangles[previous].shaded_as)
                    if shading.pointee.flat == triangle.pointee.flat, shading.pointee.base == triangle.pointee.base,
                       triangle.pointee.flat != 0 || (samePlane && shading.pointee.spherical == triangle.pointee.spherical) {
                        triangle.pointee.shaded_as = shading.pointee.shaded_as
                    }
                }
                previous = slot
                previousSource = index
                low = pointwiseMin(low, SIMD2(triangle.pointee.min_x, triangle.pointee.min_y))
                high = pointwiseMax(high, SIMD2(triangle.pointee.max_x, triangle.pointee.max_y))
                drawingCost += Self.drawingCost(of: triangle)
            }
            // Shaded alike too: one shape for the kernel.
            if mayJoin, let before, count == first + 1 {
                if triangles[first].shaded_as == triangles[before].shaded_as,
                   triangles[before].absorb(triangles + first, mine: mesh.triangles[index - 1], its: triangle) {
                    count -= 1
                    previous = before
                } else {
                    setup.shade(triangles + first, v0, v1, v2, normalSign: facet.normalSign)
                }
            }
        }
        if mesh.isConvex, neighbours != nil, unclipped, convexMeshes < 2 {
            convexMeshes += 1
            for slot in meshStart..<count { triangles[slot].convex_group = UInt8(convexMeshes) }
        }
    }

    /// Makes room for `extra` more triangles.
    private func reserveTriangles(_ extra: Int) {
        let needed = triangleCount + extra
        guard needed > triangleCapacity else { return }
        let capacity = max(needed, 2 * triangleCapacity)
        let grown = UnsafeMutablePointer<ScreenTriangle>.allocate(capacity: capacity)
        grown.moveInitialize(from: triangles, count: triangleCount)
        triangles.deallocate()
        (triangles, triangleCapacity) = (grown, capacity)
    }

    /// Makes `array` hold at least `count` elements, never shrinking it: the scratch arrays are
    /// written up to the mesh's count before they are read, and nothing past it is read, so they
    /// are not refilled for every mesh.
    private static func grow<Element>(_ array: inout [Element], to count: Int, with filler: Element) {
        if array.count < count { array.append(contentsOf: repeatElement(filler, count: count - array.count)) }
    }

    /// Writes `mesh`'s vertices in camera space (`view`: model to camera) at the start of `vertices`,
    /// through a pointer into storage kept from call to call, the matrices' columns in registers:
    /// the same arithmetic as `view.apply` and `view.rotation *`, in the same order.
    private static func transform(_ mesh: Mesh, by view: ModelTransform, into vertices: inout [ViewVertex]) {
        let count = mesh.positions.count
        grow(&vertices, to: count, with: ViewVertex(position: .zero, normal: .zero))
        let (l0, l1, l2) = view.linear.columns, (r0, r1, r2) = view.rotation.columns, translation = view.translation
        mesh.positions.withUnsafeBufferPointer { positions in
            mesh.normals.withUnsafeBufferPointer { normals in
                vertices.withUnsafeMutableBufferPointer { vertices in
                    for i in 0..<count {
                        let p = positions[i], n = normals[i]
                        vertices[i] = ViewVertex(position: l0 * p.x + l1 * p.y + l2 * p.z + translation,
                                                 normal: r0 * n.x + r1 * n.y + r2 * n.z)
                    }
                }
            }
        }
    }

    /// Rasterizes everything added since the last call, clipped to `frame`, and forgets it. Tile
    /// by tile of the frame's 64-pixel grid, the pixels drawn are handed to `blend` in a small
    /// layer, cleared after it returns, so no frame-sized buffer is needed. (A grid fixed to the
    /// frame keeps a chroma sample's luma pixels in one tile, so tiles blend independently.)
    /// `willDraw` hears of each tile's pixels before they are drawn (to fetch what `blend` will read).
    func resolve(within frame: PixelBounds, willDraw: (PixelBounds) -> Void = { _ in }, blend: (RenderLayer) -> Void) {
        defer { discard() }
        let area = bounds.intersection(frame)
        guard !area.isEmpty, area.minX >= 0, area.minY >= 0 else { return }
        let size = Self.tileSize
        let grid = Self.tiles(of: area)
        sortIntoTiles(grid, area: area)
        let triangles = self.triangles
        // The lighting through a pointer to a copy: passing the property cost an exclusivity check per tile.
        withUnsafePointer(to: kernelLighting) { lighting in
            tileTriangles.withUnsafeBufferPointer { order in
                order.withMemoryRebound(to: Int64.self) { order in
                    for (row, top) in stride(from: grid.minY * size, to: area.maxY, by: size).enumerated() {
                        for (column, left) in stride(from: grid.minX * size, to: area.maxX, by: size).enumerated() {
                            let tile = PixelBounds(minX: left, minY: top, maxX: left + size, maxY: top + size).intersection(area)
                            let first = tileStart[row * grid.columns + column], end = tileStart[row * grid.columns + column + 1]
                            // (A shape and its stem leave tiles of their joint rectangle empty.)
                            guard end > first else { continue }
                            willDraw(tile)
                            tileLayer.move(toX: left, y: top)
                            let texels = UnsafeMutableRawPointer(tileLayer.row(tile.minY) + tile.minX).assumingMemoryBound(to: Float.self)
                            ck_raster_tile_draw(tileScratch, triangles, order.baseAddress.map { $0 + first }, Int64(end - first),
                                                Int32(tile.minX), Int32(tile.minY), Int32(tile.maxX), Int32(tile.maxY), lighting,
                                                texels, drawnColumns)
                            tileLayer.touch(columns: drawnColumns, rows: tile.maxY - tile.minY, left: tile.minX, top: tile.minY)
                            guard !tileLayer.touched.isEmpty else { continue }
                            blend(tileLayer)
                            tileLayer.clear()
                        }
                    }
                }
            }
        }
    }

    /// What `resolve` will spend on a triangle `project` set up, in pixel tests (``drawingCost``):
    /// its pixels on screen, at most its rectangle's, and a tile's height per tile its rectangle
    /// reaches. (`tiles(of:)` and `PixelBounds.area` less their tests for an empty rectangle, which
    /// `project` never leaves: they cost more than the sums.)
    private static func drawingCost(of triangle: UnsafePointer<ScreenTriangle>) -> Double {
        let t = triangle.pointee
        let pixels = Int(t.max_x &- t.min_x) &* Int(t.max_y &- t.min_y)
        let columns = Int((t.max_x &- 1) >> tileShift &- t.min_x >> tileShift &+ 1)
        let rows = Int((t.max_y &- 1) >> tileShift &- t.min_y >> tileShift &+ 1)
        return min(t.area, Double(pixels)) + Double(columns &* rows &* tileSize)
    }

    /// The tiles of the 64-pixel grid a rectangle of pixels reaches: first column and row, and how many.
    private static func tiles(of rect: PixelBounds) -> (minX: Int, minY: Int, columns: Int, rows: Int, count: Int) {
        guard !rect.isEmpty else { return (0, 0, 0, 0, 0) }
        let minX = rect.minX >> tileShift, minY = rect.minY >> tileShift
        let columns = (rect.maxX - 1) >> tileShift - minX + 1, rows = (rect.maxY - 1) >> tileShift - minY + 1
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
        let triangles = UnsafeBufferPointer(start: self.triangles, count: triangleCount)
        start.withUnsafeMutableBufferPointer { start in
            /// Calls `body` with each cell of the grid triangle `index` reaches.
            // (Wrapping arithmetic: cells and counts are within the grid and the triangle count, and the
            // overflow checks cost more than the sums.)
            @inline(__always) func forEachCell(of index: Int, _ body: (Int) -> Void) {
                let cells = Self.tiles(of: triangles[index].rect.intersection(area))
                var rowStart = (cells.minY &- grid.minY) &* grid.columns &+ cells.minX &- grid.minX
                for _ in 0..<cells.rows {
                    for column in 0..<cells.columns { body(rowStart &+ column) }
                    rowStart &+= grid.columns
                }
            }
            for index in triangles.indices { forEachCell(of: index) { start[$0 &+ 1] &+= 1 } }
            for cell in 0..<grid.count { start[cell &+ 1] &+= start[cell] }
            Self.grow(&order, to: start[grid.count], with: 0)
            order.withUnsafeMutableBufferPointer { order in
                // Each cell's next free slot, kept in the start of the following cell until the fill is done.
                for index in triangles.indices {
                    forEachCell(of: index) { cell in
                        order[start[cell]] = index
                        start[cell] &+= 1
                    }
                }
            }
            for cell in stride(from: grid.count, to: 0, by: -1) { start[cell] = start[cell - 1] }
            start[0] = 0
        }
    }

    /// Forgets everything added since the last `resolve`, drawing nothing.
    func discard() {
        triangleCount = 0
        bounds = .empty
        drawingCost = 0
        convexMeshes = 0
    }
}
