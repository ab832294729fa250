import Foundation
import Testing
@testable import ReplayKitless

@Suite struct RenderGeometryTests {
    /// Signed volume by the divergence theorem: positive when every face winds counter-clockwise
    /// seen from outside.
    func volume(_ mesh: Mesh) -> Double {
        mesh.triangles.reduce(0) { sum, t in
            let a = mesh.positions[Int(t.x)], b = mesh.positions[Int(t.y)], c = mesh.positions[Int(t.z)]
            return sum + (a.x * (b.y * c.z - b.z * c.y) - a.y * (b.x * c.z - b.z * c.x) + a.z * (b.x * c.y - b.y * c.x)) / 6
        }
    }

    @Test func solidsHaveTheirVolumesAndWindOutward() throws {
        // Analytic volumes at size 1, less a little for the 32-sided tessellation (cos-ish shrinkage).
        let expected: [(AnnotationShape, Double, Double)] = [
            (.box, 1, 1e-12),
            (.sphere, Double.pi / 6, 0.02),
            (.cylinder, Double.pi / 4, 0.01),
            (.cone, Double.pi / 12, 0.01),
        ]
        for (shape, analytic, tolerance) in expected {
            let v = volume(try Mesh.unit(for: shape))
            #expect(v <= analytic + 1e-12 && v >= analytic * (1 - tolerance), "\(shape): \(v) vs \(analytic)")
        }
        for shape in [AnnotationShape.arrow, .pin, .star] {
            #expect(volume(try Mesh.unit(for: shape)) > 0, "\(shape)")
        }
    }

    @Test(arguments: [AnnotationShape.sphere, .box, .cone, .cylinder, .arrow, .pin, .ring, .star])
    func faceWindingAgreesWithVertexNormals(shape: AnnotationShape) throws {
        let mesh = try Mesh.unit(for: shape)
        #expect(mesh.positions.count == mesh.normals.count)
        for t in mesh.triangles {
            let a = mesh.positions[Int(t.x)], b = mesh.positions[Int(t.y)], c = mesh.positions[Int(t.z)]
            let u = b - a, v = c - a
            let face = SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
            let normals = mesh.normals[Int(t.x)] + mesh.normals[Int(t.y)] + mesh.normals[Int(t.z)]
            #expect((face * normals).sum() > 0)
        }
    }

    @Test func shapesHaveTheirDocumentedExtents() throws {
        func bounds(_ shape: AnnotationShape) throws -> (min: SIMD3<Double>, max: SIMD3<Double>) {
            try Mesh.unit(for: shape).bounds
        }
        // Sphere diameter 1, box edge 1, cone/cylinder/arrow 1 tall and centred.
        for shape in [AnnotationShape.sphere, .box, .cylinder, .cone, .arrow] {
            let b = try bounds(shape)
            #expect(abs(b.min.y + 0.5) < 1e-12 && abs(b.max.y - 0.5) < 1e-12, "\(shape)")
        }
        #expect(abs(try bounds(.sphere).max.x - 0.5) < 1e-12)
        #expect(try bounds(.box).max == [0.5, 0.5, 0.5])
        // The pin stands on its tip at the origin and is 1 tall; its tip is a real vertex.
        let pin = try Mesh.unit(for: .pin)
        #expect(pin.bounds.min.y == 0 && abs(pin.bounds.max.y - 1) < 1e-12)
        #expect(pin.positions.contains(.zero))
        // Ring and star: outer diameter 1, flat ring in the XY plane; the star points up.
        let ring = try bounds(.ring)
        #expect(abs(ring.max.x - 0.5) < 1e-12 && ring.min.z == 0 && ring.max.z == 0)
        let star = try bounds(.star)
        #expect(abs(star.max.y - 0.5) < 1e-12 && abs(star.max.z - 0.08) < 1e-12)
    }

    @Test func sphereNormalsPointAwayFromTheCentre() {
        let sphere = Mesh.sphere()
        for (p, n) in zip(sphere.positions, sphere.normals) {
            #expect(abs(p.x * 2 - n.x) < 1e-9 && abs(p.y * 2 - n.y) < 1e-9 && abs(p.z * 2 - n.z) < 1e-9)
        }
    }

    @Test func roundShapesUseTheFewestSegmentsThatKeepOutlinesWithinTheTolerance() {
        // A circle of radius r drawn as an n-gon strays from it by the sagitta r·(1 − cos(π/n)).
        func sagitta(_ n: Int, _ r: Double) -> Double { r * (1 - cos(Double.pi / Double(n))) }
        for radius in [0.3, 1, 2.5, 4, 7, 10, 15, 20, 30, 40, 60, 100, 1000, 1e9] {
            let n = Mesh.roundSegments(forRadius: radius)
            #expect((8...32).contains(n) && n % 4 == 0, "r = \(radius): \(n)")
            if n < 32 { #expect(sagitta(n, radius) <= Mesh.outlineTolerance, "r = \(radius): \(n) segments stray too far") }
            if n > 8 { #expect(sagitta(n - 4, radius) > Mesh.outlineTolerance, "r = \(radius): \(n - 4) segments would do") }
        }
        #expect(Mesh.roundSegments(forRadius: 20) == 12 && Mesh.roundSegments(forRadius: 41) == 20)
        #expect(Mesh.roundSegments(forRadius: .infinity) == 32 && Mesh.roundSegments(forRadius: -.infinity) == 32)
        #expect(Mesh.roundSegments(forRadius: .nan) == 32)
        #expect(Mesh.sphere(segments: 8).triangles.count < Mesh.sphere().triangles.count / 10)
    }

    @Test func spinTurnsAboutWorldUpOverTime() {
        let camera = HandCamera(position: [0, 0, 0], pitch: 0, yaw: 0, roll: 0, width: 160, height: 120).camera()
        let annotation = Annotation(id: "s", anchor: .world([1, 2, 3]), shape: .star, size: 0.1, spin: 1)
        // A quarter turn after 0.25 s at 1 turn/s: right-handed about +Y, +X goes to −Z.
        let t = AnnotationPlacement.shape(annotation, anchor: [1, 2, 3], camera: camera, time: 0.25)
        let tip = t.apply([1, 0, 0])
        #expect(abs(tip.x - 1) < 1e-12 && abs(tip.y - 2) < 1e-12 && abs(tip.z - 2.9) < 1e-12)
        // Orientation first (pitch π/2: +Y to +Z), then the spin about world +Y (+Z to +X).
        var turned = annotation
        turned.orientation = [Double.pi / 2, 0, 0]
        let both = AnnotationPlacement.shape(turned, anchor: [1, 2, 3], camera: camera, time: 0.25).apply([0, 1, 0])
        #expect(abs(both.x - 1.1) < 1e-12 && abs(both.y - 2) < 1e-12 && abs(both.z - 3) < 1e-12)
    }

    @Test func billboardsFaceTheCamera() {
        let camera = HandCamera(position: [0.4, 1.5, 2], pitch: -0.4, yaw: 0.8, roll: 0.2, width: 160, height: 120).camera()
        // `orientation` does not tilt them: billboards take the camera's rotation instead of it.
        for annotation in [Annotation(id: "b", anchor: .world(.zero), shape: .box, orientation: [0.3, -1, 0.5], billboard: true, spin: 2),
                           Annotation(id: "r", anchor: .world(.zero), shape: .ring, orientation: [1.2, 0, 0])] {
            let view = AnnotationPlacement.shape(annotation, anchor: [0, 1, 0], camera: camera, time: 0.3).viewed(by: camera)
            // Model +Z is camera +Z (towards the viewer), model +Y camera up.
            let z = view.rotation * [0, 0, 1], y = view.rotation * [0, 1, 0]
            #expect(abs(z.z - 1) < 1e-12 && abs(y.y - 1) < 1e-12, "\(annotation.shape)")
        }
    }

    @Test func stemRunsFromTheAnchorDownToTheGroundAcrossTheView() throws {
        // The camera 2 m up, level offset (3, −4) from the anchor's axis: the strip's width runs
        // level and square to that offset, (4, 3)/5, for any height on the axis.
        let camera = HandCamera(position: [4, 2, -1], pitch: -0.3, yaw: 0.9, roll: 0.1, width: 160, height: 120).camera()
        let stem = try #require(AnnotationPlacement.stem(anchor: [1, 2, 3], size: 0.1, camera: camera))
        #expect(stem.apply([0, -0.5, 0]) == [1, 0, 3])
        #expect(stem.apply([0, 0.5, 0]) == [1, 2, 3])
        let side = stem.apply([0.5, 0, 0]) - [1, 1, 3]
        #expect(abs(abs(side.x) - 0.004 * 4 / 5) < 1e-12 && side.y == 0 && abs(abs(side.z) - 0.004 * 3 / 5) < 1e-12,
                "radius 4% of the size, across the view: \(side)")
        #expect(abs(side.x * 3 + side.z * -4) < 1e-12)
        #expect(AnnotationPlacement.stem(anchor: [1, 0, 3], size: 0.1, camera: camera) == nil)
        // Straight above the axis, looking down: across the camera's own level backward axis.
        let above = HandCamera(position: [1, 5, 3], pitch: -Double.pi / 2 + 0.2, yaw: 0, roll: 0, width: 160, height: 120).camera()
        let seenFromAbove = try #require(AnnotationPlacement.stem(anchor: [1, 2, 3], size: 0.1, camera: above))
        let across = seenFromAbove.apply([0.5, 0, 0]) - [1, 1, 3]
        #expect(abs(abs(across.x) - 0.004) < 1e-12 && abs(across.z) < 1e-12, "\(across)")
    }
}
