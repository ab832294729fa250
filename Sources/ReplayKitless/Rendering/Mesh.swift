import Foundation

/// A triangle mesh in model space: one position and one unit normal per vertex, and triangles as
/// index triples wound counter-clockwise seen from outside (the Wavefront OBJ convention).
///
/// Hard edges are made by giving a corner one vertex per face, each with that face's normal.
package struct Mesh: Sendable, Equatable {
    package var positions: [SIMD3<Double>]
    package var normals: [SIMD3<Double>]
    package var triangles: [SIMD3<Int32>]
    /// Per triangle, the smooth surface it belongs to (a sphere, the side of a cylinder, one face
    /// of a box): where neighbours on one surface meet inside a pixel, the pixel is shaded once at
    /// its centre instead of once per triangle, since the shading is continuous there.
    package var surfaces: [UInt32]
    /// Closed and wound outward, so faces turned away from the camera can be skipped. Open meshes
    /// (loaded files, flat shapes) are drawn double-sided instead.
    package var isClosed: Bool
    /// The surfaces that are spheres (their normals radial): shaded with the sphere's own normal
    /// where a pixel's ray meets it, not the facet's, so their facets may be coarse.
    package var sphericalSurfaces: [UInt32] = []
    /// Per triangle (missing ones false), whether it lies in the plane of the triangle before it
    /// with its normals on the same affine map of the position (the second half of a cylinder's or
    /// a sphere's quad): the rasterizer shades it with that one's functions, which differ from its
    /// own in rounding only, in runs across both.
    package var continuesPlane: [Bool] = []
    /// Convex (a closed solid with every face on the inner side of every other face's plane, or one
    /// flat convex polygon), so that seen from anywhere its silhouette bounds all of it: the
    /// rasterizer then asks no triangle of it for samples where one silhouette edge alone crosses a pixel.
    package var isConvex = false

    /// A mesh; without `surfaces`, every triangle is a surface of its own.
    package init(positions: [SIMD3<Double>], normals: [SIMD3<Double>], triangles: [SIMD3<Int32>], surfaces: [UInt32]? = nil,
                isClosed: Bool) {
        self.positions = positions
        self.normals = normals
        self.triangles = triangles
        self.surfaces = surfaces ?? triangles.indices.map { UInt32(truncatingIfNeeded: $0) }
        self.isClosed = isClosed
    }

    /// The axis-aligned box around all positions; zero when the mesh is empty.
    package var bounds: (min: SIMD3<Double>, max: SIMD3<Double>) {
        guard var low = positions.first else { return (.zero, .zero) }
        var high = low
        for p in positions {
            low = pointwiseMin(low, p)
            high = pointwiseMax(high, p)
        }
        return (low, high)
    }

    /// The same mesh scaled about its origin so its largest bounding-box dimension is 1, or `nil`
    /// when it has no extent. The origin stays put: it is where the modeller put the anchor.
    package func scaledToUnitExtent() -> Mesh? {
        let (low, high) = bounds
        let extent = (high - low).max()
        guard extent.isFinite, extent > 0 else { return nil }
        var scaled = self
        scaled.positions = positions.map { $0 / extent }
        return scaled
    }
}

/// Builds meshes face by face, winding every triangle to match the outward direction it is given,
/// so generators never have to get the vertex order right by hand.
struct MeshBuilder {
    private(set) var mesh: Mesh
    /// The surface triangles are added to; see ``nextSurface()``.
    private var surface: UInt32 = 0

    init(isClosed: Bool) {
        mesh = Mesh(positions: [], normals: [], triangles: [], isClosed: isClosed)
    }

    /// Starts a new smooth surface: triangles added from now on belong to it.
    mutating func nextSurface() {
        if mesh.surfaces.last == surface { surface += 1 }
    }

    /// The mesh built, for a builder that made a convex one (``Mesh/isConvex``).
    var convexMesh: Mesh {
        var convex = mesh
        convex.isConvex = true
        return convex
    }

    mutating func vertex(_ position: SIMD3<Double>, normal: SIMD3<Double>) -> Int32 {
        mesh.positions.append(position)
        mesh.normals.append(normal.unitOrZero)
        return Int32(mesh.positions.count - 1)
    }

    /// Adds the triangle wound so that its face normal points along `outward`; drops it when it
    /// has no area (the apex of a cone, the poles of a sphere).
    mutating func triangle(_ a: Int32, _ b: Int32, _ c: Int32, outward: SIMD3<Double>) {
        let pa = mesh.positions[Int(a)], pb = mesh.positions[Int(b)], pc = mesh.positions[Int(c)]
        let face = (pb - pa).crossProduct(pc - pa)
        guard face.norm > 1e-12 else { return }
        mesh.triangles.append(face.dotProduct(outward) >= 0 ? [a, b, c] : [a, c, b])
        mesh.surfaces.append(surface)
    }

    /// Adds a triangle in the order given (files define their own winding).
    mutating func triangleAsWound(_ a: Int32, _ b: Int32, _ c: Int32) {
        mesh.triangles.append([a, b, c])
        mesh.surfaces.append(surface)
    }

    /// A quadrilateral `a b c d` (in order around its edge) as two triangles of the current surface.
    mutating func quad(_ a: Int32, _ b: Int32, _ c: Int32, _ d: Int32, outward: SIMD3<Double>) {
        let before = mesh.triangles.count
        triangle(a, b, c, outward: outward)
        let halves = mesh.triangles.count
        triangle(a, c, d, outward: outward)
        guard halves == before + 1, mesh.triangles.count == halves + 1, continuesPlane(a, b, c, d) else { return }
        mesh.continuesPlane += repeatElement(false, count: mesh.triangles.count - mesh.continuesPlane.count)
        mesh.continuesPlane[halves] = true
    }

    /// Whether `d` lies in the plane of `a b c` with the normal the affine map through their
    /// normals gives it (to 10⁻⁹).
    private func continuesPlane(_ a: Int32, _ b: Int32, _ c: Int32, _ d: Int32) -> Bool {
        let p = mesh.positions, n = mesh.normals
        let u = p[Int(b)] - p[Int(a)], v = p[Int(c)] - p[Int(a)], w = p[Int(d)] - p[Int(a)]
        let normal = u.crossProduct(v), area = normal.dotProduct(normal)
        guard area > 0, abs(w.dotProduct(normal)) <= 1e-9 * (w.norm * normal.norm) else { return false }
        // d = a + β·u + γ·v in the plane.
        let beta = w.crossProduct(v).dotProduct(normal) / area, gamma = u.crossProduct(w).dotProduct(normal) / area
        let predicted = n[Int(a)] + (n[Int(b)] - n[Int(a)]) * beta + (n[Int(c)] - n[Int(a)]) * gamma
        return (predicted - n[Int(d)]).norm <= 1e-9
    }

    /// Part of a surface of revolution about +Y: each profile point is (radius, y) with its
    /// (radial, y) normal; consecutive points are joined by a smooth band of `segments` quads.
    /// One surface.
    mutating func revolve(_ profile: [(radius: Double, y: Double, normal: SIMD2<Double>)], segments: Int) {
        nextSurface()
        var previous: [Int32] = []
        for point in profile {
            var ring: [Int32] = []
            for k in 0..<segments {
                let angle = 2 * Double.pi * Double(k) / Double(segments)
                let radial = SIMD3(cos(angle), 0, -sin(angle))
                let position = radial * point.radius + SIMD3(0, point.y, 0)
                ring.append(vertex(position, normal: radial * point.normal.x + SIMD3(0, point.normal.y, 0)))
            }
            if !previous.isEmpty {
                for k in 0..<segments {
                    let next = (k + 1) % segments
                    let outward = mesh.normals[Int(previous[k])] + mesh.normals[Int(ring[next])]
                    quad(previous[k], previous[next], ring[next], ring[k], outward: outward)
                }
            }
            previous = ring
        }
    }

    /// A flat disc of `radius` at height `y`, facing +Y or −Y. One surface.
    mutating func disc(radius: Double, y: Double, facingUp: Bool, segments: Int) {
        nextSurface()
        let normal = SIMD3<Double>(0, facingUp ? 1 : -1, 0)
        let centre = vertex([0, y, 0], normal: normal)
        let rim = (0..<segments).map { k -> Int32 in
            let angle = 2 * Double.pi * Double(k) / Double(segments)
            return vertex([radius * cos(angle), y, -radius * sin(angle)], normal: normal)
        }
        for k in 0..<segments {
            triangle(centre, rim[k], rim[(k + 1) % segments], outward: normal)
        }
    }

    /// A sphere of `radius` centred at `centre`.
    mutating func sphere(radius: Double, centre: SIMD3<Double>, rings: Int, segments: Int) {
        let start = mesh.positions.count
        let profile = (0...rings).map { i -> (radius: Double, y: Double, normal: SIMD2<Double>) in
            let polar = Double.pi * Double(i) / Double(rings)
            return (radius * sin(polar), -radius * cos(polar), [sin(polar), -cos(polar)])
        }
        revolve(profile, segments: segments)
        mesh.sphericalSurfaces.append(surface)
        for i in start..<mesh.positions.count { mesh.positions[i] += centre }
    }
}
