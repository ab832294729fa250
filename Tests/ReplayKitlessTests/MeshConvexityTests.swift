import Testing
@testable import ReplayKitless

/// ``Mesh/isConvex`` lets the rasterizer ask no triangle of a convex mesh for samples where only
/// that mesh's silhouette crosses a pixel. The claim is checked on the meshes, and the drawing
/// with it against the drawing without it.
@Suite struct MeshConvexityTests {
    static let convexShapes: [AnnotationShape] = [.sphere, .box, .cone, .cylinder]

    /// How far the farthest vertex lies outside the plane of some face (≤ 0 when convex), in the mesh's units.
    func farthestOutside(_ mesh: Mesh) -> Double {
        var farthest = -Double.infinity
        for triangle in mesh.triangles {
            let a = mesh.positions[Int(triangle.x)], b = mesh.positions[Int(triangle.y)], c = mesh.positions[Int(triangle.z)]
            let normal = (b - a).crossProduct(c - a).unitOrZero
            for p in mesh.positions { farthest = max(farthest, (p - a).dotProduct(normal)) }
        }
        return farthest
    }

    @Test(arguments: convexShapes, [8, 12, 20, 32])
    func convexShapesHaveEveryVertexInsideEveryFace(shape: AnnotationShape, segments: Int) throws {
        let mesh = try Mesh.unit(for: shape, segments: segments)
        #expect(mesh.isConvex && mesh.isClosed)
        #expect(farthestOutside(mesh) <= 1e-9, "a vertex \(farthestOutside(mesh)) outside a face of the \(shape)")
    }

    /// The stem is one flat square: every vertex in its plane, the polygon convex (each corner
    /// turns the same way round the face's normal).
    @Test func stemIsOneFlatConvexPolygon() {
        let stem = Mesh.stem()
        #expect(stem.isConvex && !stem.isClosed && stem.triangles.count == 2)
        #expect(abs(farthestOutside(stem)) <= 1e-12)
        let corners = stem.positions
        for k in corners.indices {
            let a = corners[k], b = corners[(k + 1) % 4], c = corners[(k + 2) % 4]
            #expect((b - a).crossProduct(c - b).z > 0, "corner \((k + 1) % 4)")
        }
    }

    @Test func shapesWithHollowsAreNotCalledConvex() throws {
        for shape in [AnnotationShape.arrow, .pin, .ring, .star] {
            let mesh = try Mesh.unit(for: shape, segments: 12)
            #expect(!mesh.isConvex, "\(shape)")
        }
        // The check above would catch them: the star's points stand outside its neighbours' faces.
        #expect(try farthestOutside(Mesh.unit(for: .star)) > 0.01)
    }

    /// Each convex shape with its stem (two convex meshes, crossing each other's silhouettes) and
    /// beside a star, drawn with the meshes' convexity known and with it withheld: the same bytes.
    @Test func knowingConvexityChangesNoPixel() throws {
        let eye = HandCamera(position: [0.1, 1.2, 0.5], pitch: -0.1, yaw: 0.2, roll: 0.05, width: 237, height: 161)
        let camera = eye.camera()
        for shape in Self.convexShapes {
            var annotation = placed(shape, size: 0.45, at: eye.world([0.05, 0.05, -1.5]), color: "#FF9500", orientation: [0.3, 0.5, 0.1])
            annotation.annotation.stem = true
            let star = placed(.star, size: 0.4, at: eye.world([0.3, -0.1, -1.7]), color: "#AF52DE", orientation: [0.4, 0.3, 0])
            func drawn(knowingConvexity: Bool) throws -> [UInt8] {
                let frame = TestFrame(width: 237, height: 161, subsampling: .yuv420)
                let rasterizer = MeshRasterizer(lighting: Lighting(ambient: 0.35))
                for item in [annotation, star] {
                    var mesh = try Mesh.unit(for: item.annotation.shape, segments: 16)
                    var stem = Mesh.stem()
                    if !knowingConvexity {
                        mesh.isConvex = false
                        stem.isConvex = false
                    }
                    let material = SurfaceMaterial(item.annotation.color, colorSpace: frame.image.colorSpace, shaded: true)
                    rasterizer.add(mesh, edges: MeshEdges(mesh), transform: AnnotationPlacement.shape(item.annotation, anchor: item.world,
                                                                                                      camera: camera, time: 0),
                                   camera: camera, material: material)
                    if item.annotation.stem, let transform = AnnotationPlacement.stem(anchor: item.world, size: item.annotation.size, camera: camera) {
                        rasterizer.add(stem, edges: MeshEdges(stem), transform: transform, camera: camera, material: material)
                    }
                    rasterizer.resolve(within: PixelBounds(minX: 0, minY: 0, maxX: 237, maxY: 161)) {
                        LayerCompositor.composite($0, opacity: 1, into: frame.image, occlusion: nil)
                    }
                }
                #expect(frame.changed.count > 1500, "\(shape): \(frame.changed.count) pixels drawn")
                return frame.bytes
            }
            #expect(try drawn(knowingConvexity: true) == drawn(knowingConvexity: false), "\(shape)")
        }
    }
}
