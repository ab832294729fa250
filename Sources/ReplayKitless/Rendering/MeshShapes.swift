import Foundation

/// The annotation shapes at size 1 (the renderer scales them by the annotation's `size` in metres).
/// The anchor is the model origin: the centre of every built-in shape except the pin, whose tip is
/// at the origin. Round shapes take the number of segments around their axis (`segments`, 32 for
/// the finest); the renderer picks it from their size on screen (``roundSegments(forRadius:)``).
extension Mesh {
    /// The finest tessellation of round shapes: segments around the axis.
    package static let maximumSegments = 32

    /// How far, in pixels, a round shape's outline may stray from the true circle: ¾ px (not ½),
    /// a third fewer triangles on spheres for 6 % of the drawing time (#37); still short of the
    /// pixel whose square a silhouette edge marks for anti-aliasing (the Lambert sphere test).
    package static let outlineTolerance = 0.75

    /// The fewest segments (a multiple of 4, 8…32) for which a circle of `radius` pixels strays at
    /// most ``outlineTolerance`` from its polygon, (1 − cos(π/n))·r ≤ tolerance: a finer mesh would
    /// only add triangles of a few pixels each, all of them edges to anti-alias. (The shading does
    /// not follow the facets: spheres are lit with their own normal, and the normals of a cone's or
    /// cylinder's side, interpolated around it, shade within half a level of the true ones on
    /// average, 2 at most, at ¾ px: a 41.6 px cylinder, 20 segments, 0.36 and 1.9 levels.)
    package static func roundSegments(forRadius radius: Double) -> Int {
        guard radius.isFinite, radius > 2 * outlineTolerance else { return radius.isFinite && radius > 0 ? 8 : maximumSegments }
        let needed = Double.pi / acos(1 - outlineTolerance / radius)
        guard needed < Double(maximumSegments) else { return maximumSegments }
        return max(8, Int((needed / 4).rounded(.up)) * 4)
    }

    /// The largest radius about its axis of a round shape at size 1, which its segments are picked
    /// for (``roundSegments(forRadius:)``): half the size, but smaller for an arrow (its head) and a
    /// pin (its ball), whose outlines a segment count picked for half their size made finer than
    /// ``outlineTolerance`` asks (2.3 and 2.5 times as many segments as needed at the same sagitta).
    package static func roundRadius(of shape: AnnotationShape) -> Double {
        switch shape {
        case .arrow: arrowHeadRadius
        case .pin: pinBallRadius
        default: 0.5
        }
    }

    private static let arrowHeadRadius = 0.22
    private static let pinBallRadius = 0.2

    /// The mesh of `shape` at size 1: a built-in one (round ones with `segments` around their
    /// axis), or the OBJ file scaled to unit extent.
    package static func unit(for shape: AnnotationShape, segments: Int = maximumSegments) throws(ReplayError) -> Mesh {
        switch shape {
        case .sphere: sphere(segments: segments)
        case .box: box()
        case .cone: cone(segments: segments)
        case .cylinder: cylinder(segments: segments)
        case .arrow: arrow(segments: segments)
        case .pin: pin(segments: segments)
        case .ring: ring(segments: segments)
        case .star: star()
        case .mesh(let path):
            if let scaled = try OBJLoader.load(path: path.string).scaledToUnitExtent() {
                scaled
            } else {
                throw ReplayError.badInput(file: path.string, "the mesh has no extent (all its vertices are one point)")
            }
        }
    }

    /// A sphere of diameter 1.
    package static func sphere(segments: Int = maximumSegments) -> Mesh {
        var builder = MeshBuilder(isClosed: true)
        builder.sphere(radius: 0.5, centre: .zero, rings: segments / 2, segments: segments)
        return builder.convexMesh
    }

    /// A cube of edge 1, faces flat-shaded.
    package static func box() -> Mesh {
        var builder = MeshBuilder(isClosed: true)
        for axis in 0..<3 {
            for sign in [-1.0, 1.0] {
                var normal = SIMD3<Double>.zero
                normal[axis] = sign
                // Two unit vectors spanning the face, walked around its edge.
                var u = SIMD3<Double>.zero, v = SIMD3<Double>.zero
                u[(axis + 1) % 3] = 0.5
                v[(axis + 2) % 3] = 0.5
                let centre = normal * 0.5
                let corners = [centre - u - v, centre + u - v, centre + u + v, centre - u + v]
                    .map { builder.vertex($0, normal: normal) }
                builder.nextSurface()
                builder.quad(corners[0], corners[1], corners[2], corners[3], outward: normal)
            }
        }
        return builder.convexMesh
    }

    /// A cone of base diameter 1 and height 1, from y = −½ (base) to its apex at y = +½.
    package static func cone(segments: Int = maximumSegments) -> Mesh {
        var builder = MeshBuilder(isClosed: true)
        builder.cone(baseRadius: 0.5, baseY: -0.5, apexY: 0.5, segments: segments)
        builder.disc(radius: 0.5, y: -0.5, facingUp: false, segments: segments)
        return builder.convexMesh
    }

    /// A cylinder of diameter 1 and height 1, centred, axis along Y, its round side made of
    /// `segments` flat strips.
    package static func cylinder(segments: Int = maximumSegments) -> Mesh {
        var builder = MeshBuilder(isClosed: true)
        builder.revolve([(0.5, -0.5, [1, 0]), (0.5, 0.5, [1, 0])], segments: segments)
        builder.disc(radius: 0.5, y: -0.5, facingUp: false, segments: segments)
        builder.disc(radius: 0.5, y: 0.5, facingUp: true, segments: segments)
        return builder.convexMesh
    }

    /// An arrow of length 1 pointing +Y, centred: a shaft and a conical head.
    package static func arrow(segments: Int = maximumSegments) -> Mesh {
        var builder = MeshBuilder(isClosed: true)
        let shaftRadius = 0.08, headRadius = arrowHeadRadius, headBase = 0.1
        builder.revolve([(shaftRadius, -0.5, [1, 0]), (shaftRadius, headBase, [1, 0])], segments: segments)
        builder.disc(radius: shaftRadius, y: -0.5, facingUp: false, segments: segments)
        builder.cone(baseRadius: headRadius, baseY: headBase, apexY: 0.5, segments: segments)
        builder.disc(radius: headRadius, y: headBase, facingUp: false, segments: segments)
        return builder.mesh
    }

    /// A map pin of height 1: a thin cone with its tip exactly at the origin, widening upwards
    /// to a ball whose top is at y = 1.
    package static func pin(segments: Int = maximumSegments) -> Mesh {
        var builder = MeshBuilder(isClosed: true)
        let needleTop = 0.65, ballRadius = pinBallRadius
        builder.cone(baseRadius: 0.08, baseY: needleTop, apexY: 0, segments: segments)
        builder.disc(radius: 0.08, y: needleTop, facingUp: true, segments: segments)
        builder.sphere(radius: ballRadius, centre: [0, 1 - ballRadius, 0], rings: segments / 2, segments: segments)
        return builder.mesh
    }

    /// A stem: the unit square in the XY plane (x and y from −½ to ½), facing +Z, drawn double-sided
    /// (``AnnotationPlacement/stem(anchor:size:camera:)`` stands it up facing the camera).
    package static func stem() -> Mesh {
        var builder = MeshBuilder(isClosed: false)
        let normal = SIMD3<Double>(0, 0, 1)
        let corners = [SIMD3<Double>(-0.5, -0.5, 0), [0.5, -0.5, 0], [0.5, 0.5, 0], [-0.5, 0.5, 0]]
            .map { builder.vertex($0, normal: normal) }
        builder.quad(corners[0], corners[1], corners[2], corners[3], outward: normal)
        return builder.convexMesh
    }

    /// A flat ring (annulus) of outer diameter 1 in the XY plane, facing +Z; drawn double-sided.
    package static func ring(segments: Int = maximumSegments) -> Mesh {
        var builder = MeshBuilder(isClosed: false)
        let outer = 0.5, inner = 0.35
        let normal = SIMD3<Double>(0, 0, 1)
        let rims = (0..<segments).map { k -> (Int32, Int32) in
            let angle = 2 * Double.pi * Double(k) / Double(segments)
            let direction = SIMD3(cos(angle), sin(angle), 0)
            return (builder.vertex(direction * inner, normal: normal), builder.vertex(direction * outer, normal: normal))
        }
        for k in 0..<segments {
            let (a, b) = rims[k], (c, d) = rims[(k + 1) % segments]
            builder.quad(a, b, d, c, outward: normal)
        }
        return builder.mesh
    }

    /// A five-pointed star of outer diameter 1 in the XY plane, extruded 0.16 along Z, a point up.
    package static func star() -> Mesh {
        var builder = MeshBuilder(isClosed: true)
        let outer = 0.5, inner = 0.5 * 0.381966, halfDepth = 0.08   // inner/outer of a regular pentagram
        let outline = (0..<10).map { k -> SIMD3<Double> in
            let angle = Double.pi / 2 + Double(k) * Double.pi / 5
            let radius = k.isMultiple(of: 2) ? outer : inner
            return [radius * cos(angle), radius * sin(angle), 0]
        }
        for side in [-1.0, 1.0] {
            builder.nextSurface()
            let normal = SIMD3<Double>(0, 0, side)
            let centre = builder.vertex(normal * halfDepth, normal: normal)
            let rim = outline.map { builder.vertex($0 + normal * halfDepth, normal: normal) }
            for k in 0..<10 {
                builder.triangle(centre, rim[k], rim[(k + 1) % 10], outward: normal)
            }
        }
        let depth = SIMD3<Double>(0, 0, halfDepth)
        for k in 0..<10 {
            let a = outline[k], b = outline[(k + 1) % 10]
            let edge = b - a
            var normal = SIMD3(edge.y, -edge.x, 0).unitOrZero
            if normal.dotProduct(a + b) < 0 { normal = -normal }
            let corners = [a - depth, b - depth, b + depth, a + depth].map { builder.vertex($0, normal: normal) }
            builder.nextSurface()
            builder.quad(corners[0], corners[1], corners[2], corners[3], outward: normal)
        }
        return builder.mesh
    }
}

extension MeshBuilder {
    /// The slanted side of a cone about +Y (smooth normals, no base).
    mutating func cone(baseRadius: Double, baseY: Double, apexY: Double, segments: Int) {
        let height = apexY - baseY
        // The side runs from (r, baseY) to (0, apexY); (|h|, r·sign h) is perpendicular, pointing outward.
        let normal = SIMD2(abs(height), baseRadius * (height > 0 ? 1 : -1))
        revolve([(baseRadius, baseY, normal), (0, apexY, normal)], segments: segments)
    }
}
