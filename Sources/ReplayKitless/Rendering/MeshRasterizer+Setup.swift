import CKernels

/// Turning a mesh's triangles into ``MeshRasterizer/ScreenTriangle``s: near-plane clipping,
/// projection, and the linear functions the rasterizer evaluates per pixel.
extension MeshRasterizer {
    /// What a mesh triangle being set up is, beyond its vertices. (Apart from ``Setup``, which
    /// stays the same for a whole `add`: a setup changed per triangle was copied to memory for
    /// every call.)
    struct Facet {
        /// −1 for the back side of a double-sided face, so it is lit like its front.
        var normalSign: Double = 1
        /// Bit k set: edge k is on the silhouette.
        var silhouette: UInt8 = 7
        /// Whether it is a facet of a sphere.
        var spherical = false
    }

    /// Clipping and projection for one `add` call.
    struct Setup {
        let focal: Intrinsics
        let near: Double
        let width: Int
        let height: Int
        let material: SurfaceMaterial
        let lighting: Lighting

        /// Clips the triangle to depth ≥ near (keeping its winding) and writes what is left at
        /// `triangles[count]` on, counting it (built in place: a triangle is 384 bytes, and each copy
        /// of it cost more than its setup's arithmetic; room for two is the caller's); the pieces of
        /// a clipped triangle have every edge on the silhouette.
        func clip(_ a: ViewVertex, _ b: ViewVertex, _ c: ViewVertex, as facet: Facet,
                  into triangles: UnsafeMutablePointer<ScreenTriangle>, count: inout Int) {
            let inA = -a.position.z >= near, inB = -b.position.z >= near, inC = -c.position.z >= near
            var piece = facet
            piece.silhouette = 7
            func out(_ p: ViewVertex, _ q: ViewVertex, _ r: ViewVertex) {
                project(p, q, r, as: piece, shaded: true, into: triangles, count: &count)
            }
            switch (inA, inB, inC) {
            case (true, true, true): project(a, b, c, as: facet, shaded: true, into: triangles, count: &count)
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

        /// The colour of a triangle with these vertex normals when it is one colour all over, or nil.
        @inline(__always) private func uniformColor(_ n0: SIMD3<Double>, _ n1: SIMD3<Double>, _ n2: SIMD3<Double>,
                                                    normalSign: Double) -> SIMD3<Float>? {
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

        /// Projects a triangle lying in front of the near plane and writes it at `triangles[count]`,
        /// counting it, its depth and normal only if `shaded`; nothing when it has no area on screen
        /// or misses the frame. Without `shaded`, it gets no depth or normal until
        /// ``shade(_:_:_:_:normalSign:)`` (the caller's, unless the triangle joins another). (A triangle the caller
        /// knows to be wholly in front comes here straight, not through `clip`.)
        func project(_ a: ViewVertex, _ b: ViewVertex, _ c: ViewVertex, as facet: Facet, shaded: Bool,
                     into triangles: UnsafeMutablePointer<ScreenTriangle>, count: inout Int) {
            func pixel(_ v: ViewVertex) -> (x: Double, y: Double, inverseDepth: Double) {
                let d = -v.position.z
                return (focal.cx + focal.fx * v.position.x / d, focal.cy - focal.fy * v.position.y / d, 1 / d)
            }
            let v0 = pixel(a), v1 = pixel(b), v2 = pixel(c)
            let area = (v1.x - v0.x) * (v2.y - v0.y) - (v1.y - v0.y) * (v2.x - v0.x)
            guard area.isFinite, abs(area) > 1e-9 else { return }
            // (Nested two-argument min/max: the variadic forms allocate an array.)
            let rect = PixelBounds.covering(x0: min(min(v0.x, v1.x), v2.x), y0: min(min(v0.y, v1.y), v2.y),
                                          x1: max(max(v0.x, v1.x), v2.x), y1: max(max(v0.y, v1.y), v2.y),
                                          width: width, height: height)
            guard !rect.isEmpty else { return }
            // Barycentric coordinate i: 1 at vertex i, 0 along the opposite edge.
            let e0 = ck_linear(edgeFrom: (v1.x, v1.y), to: (v2.x, v2.y), area: area)
            let e1 = ck_linear(edgeFrom: (v2.x, v2.y), to: (v0.x, v0.y), area: area)
            let e2 = ck_linear(edgeFrom: (v0.x, v0.y), to: (v1.x, v1.y), area: area)
            let uniform = uniformColor(a.normal, b.normal, c.normal, normalSign: facet.normalSign)
            let triangle = triangles + count
            triangle.initialize(to: ScreenTriangle(
                edge: (e0, e1, e2, ck_linear()), inverse_depth: ck_linear(),
                corner: ((v0.x, v0.y), (v1.x, v1.y), (v2.x, v2.y), (0, 0)), area: abs(area) / 2,
                normal_x: (0, 0, 0, 0), normal_y: (0, 0, 0, 0), normal_origin: (0, 0, 0, 0),
                base: Self.lanes(uniform ?? material.black), range: Self.lanes(material.color - material.black),
                // (Within the frame: no overflow to check for.)
                min_x: Int32(truncatingIfNeeded: rect.minX), min_y: Int32(truncatingIfNeeded: rect.minY),
                max_x: Int32(truncatingIfNeeded: rect.maxX), max_y: Int32(truncatingIfNeeded: rect.maxY),
                shaded_as: UInt32(truncatingIfNeeded: count), silhouette: facet.silhouette, flat: uniform != nil ? 1 : 0,
                spherical: facet.spherical ? 1 : 0, corners: 3, convex_group: 0))
            count += 1
            if shaded { shade(triangle, a, b, c, normalSign: facet.normalSign) }
        }

        /// Sets the depth and normal of `triangle`, projected from `a`, `b`, `c` (and `normalSign`,
        /// the facet's) by `project`: a quad's second half, which the first takes in, goes without.
        @inline(__always) func shade(_ triangle: UnsafeMutablePointer<ScreenTriangle>, _ a: ViewVertex, _ b: ViewVertex,
                                     _ c: ViewVertex, normalSign: Double) {
            let (e0, e1, e2, _) = triangle.pointee.edge
            let d0 = 1 / -a.position.z, d1 = 1 / -b.position.z, d2 = 1 / -c.position.z
            // 1/depth is linear in screen space: the barycentric mix of the vertices' 1/depth.
            triangle.pointee.inverse_depth = ck_linear(a: e0.a * d0 + e1.a * d1 + e2.a * d2, b: e0.b * d0 + e1.b * d1 + e2.b * d2,
                                                       c: e0.c * d0 + e1.c * d1 + e2.c * d2)
            // Σ nᵢ·bᵢ/depthᵢ, each bᵢ linear in the pixel position.
            let n0 = a.normal * (normalSign * d0), n1 = b.normal * (normalSign * d1), n2 = c.normal * (normalSign * d2)
            triangle.pointee.normal_x = Self.lanes(SIMD3<Float>(n0 * e0.a + n1 * e1.a + n2 * e2.a))
            triangle.pointee.normal_y = Self.lanes(SIMD3<Float>(n0 * e0.b + n1 * e1.b + n2 * e2.b))
            triangle.pointee.normal_origin = Self.lanes(SIMD3<Float>(n0 * e0.c + n1 * e1.c + n2 * e2.c))
        }

        /// Four lanes for C, the fourth unused.
        private static func lanes(_ v: SIMD3<Float>) -> (Float, Float, Float, Float) { (v.x, v.y, v.z, 0) }
    }
}

/// A linear function of the pixel position, `a·x + b·y + c` (CKernels.h), with what the rasterizer
/// derives from it once rather than per pixel.
extension ck_linear {
    init(a: Double, b: Double, c: Double) {
        // How much it can change from a pixel centre to its samples (±7/16 px); 1/a (0 when a is
        // 0), so that spans multiply rather than divide, row after row.
        self.init(a: a, b: b, c: c, reach: (abs(a) + abs(b)) * (7.0 / 16), inverse_a: a != 0 ? 1 / a : 0)
    }

    /// The barycentric coordinate that is 0 along the edge `p`→`q` and 1 at the third vertex
    /// of a triangle of signed `area`.
    init(edgeFrom p: (x: Double, y: Double), to q: (x: Double, y: Double), area: Double) {
        let a = -(q.y - p.y) / area, b = (q.x - p.x) / area
        self.init(a: a, b: b, c: -(a * p.x + b * p.y))
    }
}

extension MeshRasterizer.ScreenTriangle {
    /// The pixels that reach it.
    var rect: PixelBounds {
        PixelBounds(minX: Int(min_x), minY: Int(min_y), maxX: Int(max_x), maxY: Int(max_y))
    }

    /// Takes in `half`, the other half of this triangle's quad (mesh triangles `mine` and `its`,
    /// sharing an edge, in one plane and shaded alike), as the quadrilateral they make, so the
    /// kernel walks its rows once instead of twice; false, and nothing changed, unless that is
    /// convex and bounded by at most two edges on each side of a row (CKernels.h). Depth and
    /// shading stay this half's, which are the other's up to rounding. (`half` is read in place:
    /// copying its 384 bytes cost more than the test.)
    mutating func absorb(_ half: UnsafePointer<Self>, mine: SIMD3<Int32>, its: SIMD3<Int32>) -> Bool {
        guard corners == 3, half.pointee.corners == 3,
              let k = (0..<3).first(where: { mine[$0] != its.x && mine[$0] != its.y && mine[$0] != its.z }),
              let m = (0..<3).first(where: { its[$0] != mine.x && its[$0] != mine.y && its[$0] != mine.z }),
              // The shared edge runs mine[k + 1] → mine[k + 2] here and back in the other half.
              its[(m + 1) % 3] == mine[(k + 2) % 3], its[(m + 2) % 3] == mine[(k + 1) % 3] else { return false }
        // In winding order: corner k, k + 1, the other's own corner, k + 2; edge j runs from corner j + 1 to j + 2.
        let outline = (half.pointee.edge(at: (m + 1) % 3), half.pointee.edge(at: (m + 2) % 3), edge(at: (k + 1) % 3),
                       edge(at: (k + 2) % 3))
        let added = half.pointee.corner(at: m)
        func sides(_ sign: Double) -> Int {
            (outline.0.a * sign > 0 ? 1 : 0) + (outline.1.a * sign > 0 ? 1 : 0) + (outline.2.a * sign > 0 ? 1 : 0) + (outline.3.a * sign > 0 ? 1 : 0)
        }
        // Convex where the other corner lies inside both of this half's outer edges.
        guard outline.2.at(added) > 0, outline.3.at(added) > 0, sides(1) <= 2, sides(-1) <= 2 else { return false }
        func bit(_ mask: UInt8, _ k: Int) -> UInt8 { (mask >> k) & 1 }
        silhouette = bit(half.pointee.silhouette, (m + 1) % 3) | bit(half.pointee.silhouette, (m + 2) % 3) << 1
            | bit(silhouette, (k + 1) % 3) << 2 | bit(silhouette, (k + 2) % 3) << 3
        corner = (corner(at: k), corner(at: (k + 1) % 3), added, corner(at: (k + 2) % 3))
        edge = outline
        corners = 4
        area += half.pointee.area
        (min_x, min_y, max_x, max_y) = (min(min_x, half.pointee.min_x), min(min_y, half.pointee.min_y),
                                        max(max_x, half.pointee.max_x), max(max_y, half.pointee.max_y))
        return true
    }

    /// Edge `k` (0, 1 or 2) of a triangle, read as a field: no copy of the tuple.
    private func edge(at k: Int) -> ck_linear {
        k == 0 ? edge.0 : k == 1 ? edge.1 : edge.2
    }

    private func corner(at k: Int) -> (Double, Double) {
        k == 0 ? corner.0 : k == 1 ? corner.1 : corner.2
    }
}

extension ck_linear {
    /// The value at point `p`.
    func at(_ p: (Double, Double)) -> Double { a * p.0 + b * p.1 + c }
}
