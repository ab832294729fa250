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

/// Draws meshes into a ``RenderLayer`` with 4×4 multisampling: each sample has its own depth and
/// owner, so hidden surfaces, shared edges and silhouettes resolve exactly, and only the final
/// per-pixel average (colour and coverage) reaches the layer.
///
/// `add` transforms a mesh to camera space, skips back faces of closed meshes, clips against the
/// near plane in camera space (so nothing behind the camera is ever projected) and projects what
/// is left. `resolve` rasterizes everything added, one 64×64 tile of the frame at a time (the
/// sample buffers are tile-sized, allocated once), with a per-sample depth test on
/// perspective-correct depth; then it shades each pixel once per visible triangle (Lambert with the
/// perspective-correct normal, at the centre of that triangle's samples) and averages. All meshes
/// added between two `resolve` calls (a shape and its stem) are depth-tested together.
///
/// A pixel's 16 samples are handled together in SIMD registers, and a pixel that one triangle
/// covers entirely (most pixels inside a mesh) keeps no samples at all until another triangle
/// reaches it: it is shaded once, at its centre, which is what its samples would average to.
final class MeshRasterizer {
    /// At most 64: a tile row's touched pixels are the bits of a `UInt64`.
    static let tileSize = 64

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
        var inverseDepth: Linear
        /// How much 1/depth changes from a pixel centre to each of its samples.
        var depthOffsets: SIMD16<Float>
        /// The smooth surface it belongs to, numbered across the meshes of one `resolve`, and
        /// apart for the two sides of a double-sided surface.
        var surface: UInt32
        /// The perspective-correct normal times a positive factor: Σ nᵢ·bᵢ/depthᵢ, linear in the
        /// pixel position (`normalX`·x + `normalY`·y + `normalAtOrigin`); shading normalizes it.
        var normalX: SIMD3<Float>, normalY: SIMD3<Float>, normalAtOrigin: SIMD3<Float>
        var material: SurfaceMaterial
        /// Its colour everywhere, when that is one colour: flat materials, and flat faces (all three
        /// normals alike) of lit ones, whose light does not change across them.
        var uniformColor: SIMD3<Float>?
    }

    /// Sample k of a pixel sits at (sampleX[k], sampleY[k]) from its centre: a 4×4 grid at ±⅛, ±⅜ px.
    static let sampleX = SIMD16<Double>(-0.375, -0.125, 0.125, 0.375, -0.375, -0.125, 0.125, 0.375,
                                        -0.375, -0.125, 0.125, 0.375, -0.375, -0.125, 0.125, 0.375)
    static let sampleY = SIMD16<Double>(-0.375, -0.375, -0.375, -0.375, -0.125, -0.125, -0.125, -0.125,
                                        0.125, 0.125, 0.125, 0.125, 0.375, 0.375, 0.375, 0.375)
    /// Bit k of a sample mask stands for sample k.
    private static let sampleBits = SIMD16<UInt32>(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)

    let lighting: Lighting
    private var vertices: [ViewVertex] = []
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
    /// Per pixel of the current tile: `empty`, `mixed`, or `uniform + i` when triangle i alone
    /// covers all its samples (most pixels inside a mesh: those skip the per-sample buffers).
    private let pixelState: UnsafeMutablePointer<UInt32>
    private static let empty: UInt32 = 0, mixed: UInt32 = 1, uniform: UInt32 = 2
    /// Per mixed pixel, the surface of every triangle that reached it, or `severalSurfaces`.
    private let pixelSurface: UnsafeMutablePointer<UInt32>
    private static let severalSurfaces = UInt32.max
    /// The first surface number free for the next mesh `add`ed before `resolve`.
    private var surfaceBase: UInt32 = 0
    /// Per mixed pixel of the current tile, its 16 samples: 1/depth of the nearest surface
    /// (0 = empty) and the index of its triangle. All zero for the other pixels.
    private let sampleDepth: UnsafeMutablePointer<SIMD16<Float>>
    private let sampleOwner: UnsafeMutablePointer<SIMD16<UInt32>>
    /// Per row of the current tile, a bit per pixel holding samples.
    private let touchedColumns: UnsafeMutablePointer<UInt64>
    /// The current tile's pixels as drawn, for `resolve`'s `blend`.
    private let tileLayer = RenderLayer(width: tileSize, height: tileSize)

    init(lighting: Lighting) {
        self.lighting = lighting
        let pixels = Self.tileSize * Self.tileSize
        pixelState = .allocate(capacity: pixels)
        pixelState.initialize(repeating: Self.empty, count: pixels)
        pixelSurface = .allocate(capacity: pixels)
        pixelSurface.initialize(repeating: 0, count: pixels)
        sampleDepth = .allocate(capacity: pixels)
        sampleDepth.initialize(repeating: .zero, count: pixels)
        sampleOwner = .allocate(capacity: pixels)
        sampleOwner.initialize(repeating: .zero, count: pixels)
        touchedColumns = .allocate(capacity: Self.tileSize)
        touchedColumns.initialize(repeating: 0, count: Self.tileSize)
    }

    deinit {
        pixelState.deallocate()
        pixelSurface.deallocate()
        sampleDepth.deallocate()
        sampleOwner.deallocate()
        touchedColumns.deallocate()
    }

    /// Sets up `mesh`, placed in the world by `transform`, as `camera` sees it.
    func add(_ mesh: Mesh, transform: ModelTransform, camera: Camera, material: SurfaceMaterial) {
        let count = mesh.positions.count
        guard mesh.normals.count == count else { return }
        let view = transform.viewed(by: camera)
        vertices.removeAll(keepingCapacity: true)
        for i in 0..<count {
            vertices.append(ViewVertex(position: view.apply(mesh.positions[i]), normal: view.rotation * mesh.normals[i]))
        }
        var setup = Setup(focal: camera.focal, near: camera.clippingNear, width: Int(camera.width),
                          height: Int(camera.height), material: material, lighting: lighting)
        let surfaces = mesh.surfaces.count == mesh.triangles.count ? mesh.surfaces : mesh.triangles.indices.map { UInt32($0) }
        defer { surfaceBase &+= 2 &* ((surfaces.max() ?? 0) &+ 1) }
        for (index, triangle) in mesh.triangles.enumerated() {
            let i0 = Int(triangle.x), i1 = Int(triangle.y), i2 = Int(triangle.z)
            guard i0 >= 0, i1 >= 0, i2 >= 0, i0 < count, i1 < count, i2 < count else { continue }
            let a = vertices[i0], b = vertices[i1], c = vertices[i2]
            // The camera is at the origin: a face whose normal points away from it is seen from behind.
            let facing = (b.position - a.position).crossProduct(c.position - a.position).dotProduct(a.position)
            if mesh.isClosed && facing >= 0 { continue }
            setup.normalSign = facing > 0 ? -1 : 1
            setup.surface = surfaceBase &+ 2 &* surfaces[index] &+ (facing > 0 ? 1 : 0)
            setup.clip(a, b, c) { triangle in
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
                    for slot in tileStart[cell]..<tileStart[cell + 1] {
                        let index = tileTriangles[slot]
                        let part = triangles[index].rect.intersection(tile)
                        if !part.isEmpty { rasterize(index, of: triangles, part, tile: tile) }
                    }
                    tileLayer.move(toX: left, y: top)
                    shadeSamples(of: tile, triangles: triangles, into: tileLayer)
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
        surfaceBase = 0
    }

    /// Where pixel (`x`, `y`)'s samples are in the tile's sample buffers.
    @inline(__always) private func samples(_ x: Int, _ y: Int, in tile: PixelBounds) -> Int {
        (y - tile.minY) * Self.tileSize + (x - tile.minX)
    }

    /// How much a linear function changes from the pixel centre to each sample.
    @inline(__always) private static func sampleOffsets(_ f: Linear) -> SIMD16<Float> {
        SIMD16<Float>(f.a * sampleX + f.b * sampleY)
    }

    /// Takes the samples of `part` (inside `tile`) that the triangle covers and is nearest at.
    /// All 16 samples of a pixel at once, in SIMD registers.
    private func rasterize(_ owner: Int, of triangles: UnsafeBufferPointer<ScreenTriangle>, _ part: PixelBounds, tile: PixelBounds) {
        let t = triangles[owner]
        let e0 = t.e0, e1 = t.e1, e2 = t.e2
        let edge0 = Self.sampleOffsets(e0), edge1 = Self.sampleOffsets(e1), edge2 = Self.sampleOffsets(e2)
        let owners = SIMD16<UInt32>(repeating: UInt32(owner))
        for py in part.minY..<part.maxY {
            let y = Double(py) + 0.5
            guard let span = Self.span(of: t, row: y, within: part) else { continue }
            for px in span {
                let x = Double(px) + 0.5
                let b0 = e0.at(x, y), b1 = e1.at(x, y), b2 = e2.at(x, y)
                // The samples lie within ±0.375 px of the centre: test that square first.
                if b0 + e0.reach < 0 || b1 + e1.reach < 0 || b2 + e2.reach < 0 { continue }
                // Near an edge, test the samples. Near it the coordinate is small, so single
                // precision keeps it to ~1e-8 px and neighbours sharing the edge leave no gap.
                var covered = SIMD16<Int32>(repeating: -1)
                let partial = b0 < e0.reach || b1 < e1.reach || b2 < e2.reach
                if partial {
                    if b0 < e0.reach { covered &= Self.lanes(SIMD16(repeating: Float(b0)) + edge0 .>= 0) }
                    if b1 < e1.reach { covered &= Self.lanes(SIMD16(repeating: Float(b1)) + edge1 .>= 0) }
                    if b2 < e2.reach { covered &= Self.lanes(SIMD16(repeating: Float(b2)) + edge2 .>= 0) }
                    // (Lanes are 0 or −1: the sum is 0 only when none is set; cheaper than `!=`.)
                    guard covered.wrappedSum() != 0 else { continue }
                }
                touchedColumns[py - tile.minY] |= 1 << UInt64(px - tile.minX)
                let pixel = samples(px, py, in: tile)
                let state = pixelState[pixel]
                if state == Self.empty && !partial {
                    pixelState[pixel] = Self.uniform + UInt32(owner)
                    continue
                }
                if state == Self.empty {
                    pixelSurface[pixel] = t.surface
                } else if state >= Self.uniform {
                    // Another triangle meets this pixel: spell out the samples of the one covering it.
                    let other = triangles[Int(state - Self.uniform)]
                    sampleDepth[pixel] = SIMD16(repeating: Float(other.inverseDepth.at(x, y))) + other.depthOffsets
                    sampleOwner[pixel] = SIMD16(repeating: state - Self.uniform)
                    pixelSurface[pixel] = other.surface
                }
                if pixelSurface[pixel] != t.surface { pixelSurface[pixel] = Self.severalSurfaces }
                pixelState[pixel] = Self.mixed
                let depth = SIMD16(repeating: Float(t.inverseDepth.at(x, y))) + t.depthOffsets
                let nearer = covered & Self.lanes(depth .> sampleDepth[pixel])
                sampleDepth[pixel] = Self.select(nearer, depth, sampleDepth[pixel])
                sampleOwner[pixel] = Self.select(nearer, owners, sampleOwner[pixel])
            }
        }
    }

    /// A mask's lanes as integers, −1 where true and 0 where false, for plain bitwise operations
    /// (which the compiler keeps in vector registers, unlike some `SIMDMask` operations).
    @inline(__always) private static func lanes(_ mask: SIMDMask<SIMD16<Int32>>) -> SIMD16<Int32> {
        unsafeBitCast(mask, to: SIMD16<Int32>.self)
    }

    /// Lane by lane, `a` where `mask` is −1 and `b` where it is 0.
    @inline(__always) private static func select<V: SIMD>(_ mask: SIMD16<Int32>, _ a: V, _ b: V) -> V {
        let a = unsafeBitCast(a, to: SIMD16<Int32>.self), b = unsafeBitCast(b, to: SIMD16<Int32>.self)
        return unsafeBitCast((a & mask) | (b & ~mask), to: V.self)
    }

    /// Bits of the samples that belong to `owner`. (Integer arithmetic: `.==` on integer vectors
    /// compiles to a loop over the lanes.)
    @inline(__always) private static func samples(of owner: UInt32, in owners: SIMD16<UInt32>) -> UInt32 {
        let difference = owners ^ SIMD16(repeating: owner)
        let differs = (difference | (0 &- difference)) &>> 31   // 1 where non-zero (indices < 2³¹)
        return (sampleBits & (differs &- 1)).wrappedSum()
    }

    /// The mask as bits: bit k for sample k.
    @inline(__always) private static func bits(_ mask: SIMDMask<SIMD16<Int32>>) -> UInt32 {
        (sampleBits & SIMD16<UInt32>(truncatingIfNeeded: lanes(mask))).wrappedSum()
    }

    /// The pixels of row `y` (a pixel centre) in `part` whose sample squares may meet the
    /// triangle: where all three barycentric coordinates can reach 0, widened by far more than
    /// rounding could take away (the test per pixel decides). Keeps long thin triangles from
    /// costing their whole bounding box, and small ones from costing a pixel more at each end.
    @inline(__always) private static func span(of t: ScreenTriangle, row y: Double, within part: PixelBounds) -> ClosedRange<Int>? {
        var low = Double(part.minX), high = Double(part.maxX - 1)
        // (Rounding by truncation, valid between the non-negative bounds: `rounded(.up)` is a
        // libm call on baseline x86-64, and this runs for every row of every triangle.)
        func narrow(by e: Linear) -> Bool {
            // a·x + b·y + c + reach ≥ 0 at the centre x = px + 0.5
            let bound = -(e.reach + e.b * y + e.c)
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

    /// Shades each pixel of the tile once per triangle owning some of its samples, writes the
    /// average colour and the covered fraction to the layer, and empties the samples.
    private func shadeSamples(of tile: PixelBounds, triangles: UnsafeBufferPointer<ScreenTriangle>, into layer: RenderLayer) {
        for py in tile.minY..<tile.maxY {
            var columns = touchedColumns[py - tile.minY]
            touchedColumns[py - tile.minY] = 0
            guard columns != 0 else { continue }
            layer.touch(row: py, from: tile.minX + columns.trailingZeroBitCount, to: tile.minX + 64 - columns.leadingZeroBitCount)
            let texels = layer.row(py)
            while columns != 0 {
                let px = tile.minX + columns.trailingZeroBitCount
                columns &= columns - 1
                let pixel = samples(px, py, in: tile)
                let state = pixelState[pixel]
                pixelState[pixel] = Self.empty
                if state >= Self.uniform {
                    texels[px] = SIMD4(shade(triangles[Int(state - Self.uniform)], x: Float(px) + 0.5, y: Float(py) + 0.5), 1)
                    continue
                }
                var remaining = Self.bits(sampleDepth[pixel] .> 0)
                guard remaining != 0 else { continue }
                sampleDepth[pixel] = .zero
                let ownerOf = sampleOwner[pixel]
                // Covered by one smooth surface: shade once, with the triangle nearest the centre.
                if remaining == 0xFFFF && pixelSurface[pixel] != Self.severalSurfaces {
                    texels[px] = SIMD4(shade(triangles[Int(ownerOf[5])], x: Float(px) + 0.5, y: Float(py) + 0.5), 1)
                    continue
                }
                let covered = Float(remaining.nonzeroBitCount)
                var sum = SIMD3<Float>.zero
                repeat {
                    let owner = ownerOf[remaining.trailingZeroBitCount]
                    let mine = remaining & Self.samples(of: owner, in: ownerOf)
                    remaining &= ~mine
                    let count = mine.nonzeroBitCount
                    // Σ offsetX(k) and Σ offsetY(k) over its samples, by grid column and row.
                    let columns = (mine & 0x2222).nonzeroBitCount + 2 * (mine & 0x4444).nonzeroBitCount
                        + 3 * (mine & 0x8888).nonzeroBitCount
                    let rows = (mine & 0x00F0).nonzeroBitCount + 2 * (mine & 0x0F00).nonzeroBitCount
                        + 3 * (mine & 0xF000).nonzeroBitCount
                    // Shade at the centre of this triangle's samples, which lies inside it.
                    let n = Float(count)
                    let offsetX = Float(columns) * 0.25 - 0.375 * n, offsetY = Float(rows) * 0.25 - 0.375 * n
                    let x = Float(px) + 0.5 + offsetX / n, y = Float(py) + 0.5 + offsetY / n
                    sum += shade(triangles[Int(owner)], x: x, y: y) * Float(count)
                } while remaining != 0
                texels[px] = SIMD4(sum / covered, covered / 16)
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
        /// The surface of the triangles being set up.
        var surface: UInt32 = 0

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
            return ScreenTriangle(rect: rect, area: abs(area) / 2, e0: e0, e1: e1, e2: e2, inverseDepth: inverseDepth,
                                  depthOffsets: MeshRasterizer.sampleOffsets(inverseDepth), surface: surface,
                                  normalX: SIMD3<Float>(n0 * e0.a + n1 * e1.a + n2 * e2.a),
                                  normalY: SIMD3<Float>(n0 * e0.b + n1 * e1.b + n2 * e2.b),
                                  normalAtOrigin: SIMD3<Float>(n0 * e0.c + n1 * e1.c + n2 * e2.c),
                                  material: material, uniformColor: uniformColor(a.normal, b.normal, c.normal))
        }
    }

    /// A linear function of the pixel position, `a·x + b·y + c`.
    private struct Linear {
        let a: Double, b: Double, c: Double
        /// How much it can change within the sample square (±0.375 px).
        let reach: Double
        /// 1/a (0 when a is 0), so that spans multiply rather than divide, row after row.
        let inverseA: Double

        init(a: Double, b: Double, c: Double) {
            self.a = a
            self.b = b
            self.c = c
            reach = (abs(a) + abs(b)) * 0.375
            inverseA = a != 0 ? 1 / a : 0
        }

        /// The barycentric coordinate that is 0 along the edge `p`→`q` and 1 at the third vertex
        /// of a triangle of signed `area`.
        init(edgeFrom p: (x: Double, y: Double), to q: (x: Double, y: Double), area: Double) {
            let a = -(q.y - p.y) / area, b = (q.x - p.x) / area
            self.init(a: a, b: b, c: -(a * p.x + b * p.y))
        }

        @inline(__always) func at(_ x: Double, _ y: Double) -> Double { a * x + b * y + c }
    }
}
