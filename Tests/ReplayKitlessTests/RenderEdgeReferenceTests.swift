import Foundation
import Testing
@testable import ReplayKitless

/// Issue #25's edge-quality bar for the annotation rasterizer: each annotation drawn by the fast
/// path, against a slow and simple reference written here: 64 samples per pixel (an 8×8 grid at
/// (i + ½)/8 of the pixel), each tested against every projected triangle of the shape with plain
/// edge functions. Drawn flat (ambient 1) in white on black, full range, so a pixel's luma is
/// 255 × its coverage; on the pixels where either picture is partly covered, the fast path must be
/// within 2 levels on average and 24 at worst.
///
/// Only the mesh and its placement come from the library (tested elsewhere); projection is
/// `HandCamera`'s (formats.md §1–2) and coverage is the point-in-triangle test below.
///
/// The rasterizer samples silhouette pixels on the same 8×8 grid, so the bar holds with room to
/// spare; the 4×4 grid it replaced missed it (mean 5–11 levels, worst 31–36 on these cases: a 4×4
/// grid has only 4 coverage steps along a level edge).
@Suite struct RenderEdgeReferenceTests {
    static let width = 160, height = 120
    static let eye = HandCamera(position: [0.2, 1.3, 0.4], pitch: -0.12, yaw: 0.3, roll: 0.07, width: width, height: height)

    /// Shapes of every kind, turned so that their edges run at many angles, some nearly level.
    static let cases: [(AnnotationShape, Double, [Double], SIMD3<Double>)] = [
        (.sphere, 0.5, [0.1, 0.05, -1.6], [0, 0, 0]),
        (.box, 0.45, [-0.1, 0, -1.8], [0.3, 0.7, 0.1]),
        (.box, 0.5, [0.05, -0.05, -2], [0, 0, 0.004]),
        (.cone, 0.4, [0, 0.05, -1.5], [0.2, 0.4, 0]),
        (.cylinder, 0.35, [-0.05, 0, -1.4], [0.6, 0, 0.3]),
        (.arrow, 0.5, [0.1, -0.05, -1.5], [0, 0.8, 1.1]),
        (.pin, 0.4, [0, -0.15, -1.3], [0, 0.5, 0]),
        (.ring, 0.45, [0, 0, -1.5], [0, 0, 0]),
        (.star, 0.5, [0.05, 0, -1.6], [0.4, 0.3, 0]),
        (.sphere, 0.08, [0.3, 0.2, -2.5], [0, 0, 0]),
    ]

    @Test(arguments: cases.indices)
    func edgesMatchA64SampleReference(index: Int) throws {
        let (shape, size, cameraOffset, orientation) = Self.cases[index]
        let anchor = Self.eye.world(cameraOffset)
        let annotation = placed(shape, size: size, at: anchor, color: "#FFFFFF", orientation: orientation)
        let frame = TestFrame(width: Self.width, height: Self.height, colorSpace: ColorSpace(matrix: .bt709, fullRange: true))
        try render([annotation], Self.eye, into: frame, options: .init(ambient: 1))

        let reference = try Self.referenceCoverage(annotation)
        var sum = 0.0, worst = 0.0, edgePixels = 0
        var worstAt = (x: -1, y: -1)
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let expected = Double(reference[y * Self.width + x]) / 64 * 255
                let drawn = Double(frame.image.luma[x, y])
                let partial = (expected > 0 && expected < 255) || (drawn > 0 && drawn < 255)
                guard partial else {
                    #expect(drawn == expected, "(\(x), \(y)): drawn \(drawn), reference \(expected)")
                    continue
                }
                edgePixels += 1
                let error = abs(drawn - expected)
                sum += error
                if error > worst { worst = error; worstAt = (x, y) }
            }
        }
        #expect(edgePixels >= 10, "\(shape): \(edgePixels) edge pixels")
        let mean = sum / Double(max(edgePixels, 1))
        print("edge reference, case \(index) (\(shape)): mean \(mean) levels, worst \(worst) at \(worstAt), \(edgePixels) edge pixels")
        #expect(mean <= 2, "\(shape): mean error \(mean) levels over \(edgePixels) edge pixels")
        #expect(worst <= 24, "\(shape): worst error \(worst) levels at \(worstAt)")
    }

    /// The rasterizer's shortcuts (silhouettes found from the mesh's neighbours, the pixels one
    /// silhouette edge alone crosses covered from that edge) against the same rasterizer told that
    /// every edge is a silhouette, which then unites every triangle's own samples in every pixel
    /// an edge crosses (as for meshes too large to look up neighbours): the same coverage.
    @Test(arguments: cases.indices)
    func silhouetteShortcutsCoverAsEveryEdgeDoes(index: Int) throws {
        let (shape, size, cameraOffset, orientation) = Self.cases[index]
        let anchor = Self.eye.world(cameraOffset)
        let annotation = placed(shape, size: size, at: anchor, color: "#FFFFFF", orientation: orientation).annotation
        let camera = Self.eye.camera()
        let fy = Double(Self.height) / 2 / tan(30 * Double.pi / 180)
        let mesh = try Mesh.unit(for: shape, segments: Mesh.roundSegments(forRadius: fy * size * Mesh.roundRadius(of: shape) / Self.eye.project(anchor).d))
        let transform = AnnotationPlacement.shape(annotation, anchor: anchor, camera: camera, time: 0)
        let material = SurfaceMaterial(annotation.color, colorSpace: .bt709Limited, shaded: false)
        func coverage(_ edges: MeshEdges?) -> [Float] {
            let rasterizer = MeshRasterizer(lighting: Lighting(ambient: 1))
            rasterizer.add(mesh, edges: edges, transform: transform, camera: camera, material: material)
            var result = [Float](repeating: 0, count: Self.width * Self.height)
            rasterizer.resolve(within: PixelBounds(minX: 0, minY: 0, maxX: Self.width, maxY: Self.height)) { layer in
                let rect = layer.touched
                for y in rect.minY..<rect.maxY {
                    for x in layer.touchedColumns(row: y) { result[y * Self.width + x] = layer.row(y)[x].w }
                }
            }
            return result
        }
        let shortcuts = coverage(MeshEdges(mesh)), everyEdge = coverage(nil)
        let partial = everyEdge.filter { $0 > 0 && $0 < 1 }.count
        let differing = zip(shortcuts, everyEdge).enumerated().filter { $0.element.0 != $0.element.1 }
        print("silhouette shortcuts, case \(index) (\(shape)): \(differing.count) of \(partial) edge pixels differ, "
              + "most by \(differing.map { abs($0.element.0 - $0.element.1) }.max() ?? 0)")
        #expect(partial >= 10, "\(shape): \(partial) edge pixels")
        #expect(differing.isEmpty, "\(shape): \(differing.prefix(5).map { ($0.offset % Self.width, $0.offset / Self.width, $0.element) })")
    }

    /// Per pixel, how many of its 64 samples some triangle of the annotation's mesh covers.
    static func referenceCoverage(_ placed: PlacedAnnotation) throws -> [Int] {
        let annotation = placed.annotation
        let camera = eye.camera()
        // The tessellation the renderer picks for the shape's size on screen.
        let anchor = eye.project(placed.world)
        let fy = Double(height) / 2 / tan(30 * Double.pi / 180)
        let mesh = try Mesh.unit(for: annotation.shape, segments: Mesh.roundSegments(forRadius: fy * annotation.size * Mesh.roundRadius(of: annotation.shape) / anchor.d))
        let transform = AnnotationPlacement.shape(annotation, anchor: placed.world, camera: camera, time: 0)
        let screen = mesh.positions.map { p -> (u: Double, v: Double, d: Double) in eye.project(transform.apply(p)) }
        // Sample (i, j) of the 8·width × 8·height grid sits at ((i + ½)/8, (j + ½)/8) px; each
        // triangle marks the samples inside it, looking only within its bounding box.
        let columns = 8 * width, rows = 8 * height
        var covered = [Bool](repeating: false, count: columns * rows)
        for t in mesh.triangles {
            let a = screen[Int(t.x)], b = screen[Int(t.y)], c = screen[Int(t.z)]
            guard a.d > 0, b.d > 0, c.d > 0, abs((b.u - a.u) * (c.v - a.v) - (b.v - a.v) * (c.u - a.u)) > 1e-12 else { continue }
            let i0 = max(0, Int((8 * min(a.u, b.u, c.u)).rounded(.down)) - 1), i1 = min(columns - 1, Int((8 * max(a.u, b.u, c.u)).rounded(.up)))
            let j0 = max(0, Int((8 * min(a.v, b.v, c.v)).rounded(.down)) - 1), j1 = min(rows - 1, Int((8 * max(a.v, b.v, c.v)).rounded(.up)))
            guard i0 <= i1, j0 <= j1 else { continue }
            for j in j0...j1 {
                for i in i0...i1 where !covered[j * columns + i] {
                    if inside((Double(i) + 0.5) / 8, (Double(j) + 0.5) / 8, a, b, c) { covered[j * columns + i] = true }
                }
            }
        }
        var coverage = [Int](repeating: 0, count: width * height)
        for j in 0..<rows {
            for i in 0..<columns where covered[j * columns + i] { coverage[(j / 8) * width + i / 8] += 1 }
        }
        return coverage
    }

    /// Whether (x, y) lies in the triangle (either winding): the three edge functions share a sign.
    static func inside(_ x: Double, _ y: Double, _ a: (u: Double, v: Double, d: Double),
                       _ b: (u: Double, v: Double, d: Double), _ c: (u: Double, v: Double, d: Double)) -> Bool {
        func edge(_ p: (u: Double, v: Double, d: Double), _ q: (u: Double, v: Double, d: Double)) -> Double {
            (q.u - p.u) * (y - p.v) - (q.v - p.v) * (x - p.u)
        }
        let e0 = edge(a, b), e1 = edge(b, c), e2 = edge(c, a)
        return (e0 >= 0 && e1 >= 0 && e2 >= 0) || (e0 <= 0 && e1 <= 0 && e2 <= 0)
    }
}
