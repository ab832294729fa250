/// Draws the sample's room: a floor on y = 0 meeting a back wall, then, with the annotation
/// rasterizer (silhouettes anti-aliased, depth-tested together, lit by its camera-fixed light), a grid of
/// thin lines on the floor and the boxes.
///
/// Floor and wall are flat colours, so they are painted directly: the wall above the image of
/// the line where they meet (anti-aliased over a pixel), the floor below it. That keeps the
/// rasterizer to the few pixels that need it.
final class SampleWorldPainter {
    private struct Part {
        var transform: ModelTransform
        var material: SurfaceMaterial
    }

    private let rasterizer = MeshRasterizer(lighting: Lighting(ambient: 0.55))
    private let cube = Mesh.box()
    private lazy var cubeEdges = MeshEdges(cube)
    private let parts: [Part]
    private let floor: (y: Double, cb: Double, cr: Double)
    private let wall: (y: Double, cb: Double, cr: Double)

    /// Grid lines every half metre, 12 mm wide, 2 mm thick, lying on the floor.
    static let gridSpacing = 0.5
    /// The room: floor and grid from x −8…8 and z −2.5…4, the back wall at z = −2.5.
    static let wallZ = -2.5

    init(width: Int, height: Int, colorSpace: ColorSpace) {
        /// A box from `low` to `high`.
        func slab(_ low: SIMD3<Double>, _ high: SIMD3<Double>, _ material: SurfaceMaterial) -> Part {
            Part(transform: ModelTransform(linear: Matrix3.identity.scaled(by: high - low), translation: (low + high) / 2,
                                           rotation: .identity),
                 material: material)
        }
        let line = SurfaceMaterial(RGBAColor(red: 222, green: 216, blue: 200), colorSpace: colorSpace, shaded: false)
        var parts: [Part] = []
        let half = 0.006, thickness = 0.002
        for z in stride(from: Self.wallZ + Self.gridSpacing, through: 4, by: Self.gridSpacing) {
            parts.append(slab([-8, 0, z - half], [8, thickness, z + half], line))
        }
        for x in stride(from: -8.0, through: 8, by: Self.gridSpacing) {
            parts.append(slab([x - half, 0, Self.wallZ], [x + half, thickness, 4], line))
        }
        for box in SampleScene.boxes {
            parts.append(slab(box.center - box.size / 2, box.center + box.size / 2,
                              SurfaceMaterial(box.color, colorSpace: colorSpace, shaded: true)))
        }
        self.parts = parts
        floor = colorSpace.yuvUnrounded(red: 128, green: 118, blue: 104)
        wall = colorSpace.yuvUnrounded(red: 196, green: 188, blue: 170)
    }

    /// Paints the room as `camera` sees it over the whole picture.
    func paint(_ camera: Camera, into image: YUVImage) {
        paintFloorAndWall(camera, into: image)
        for part in parts {
            rasterizer.add(cube, edges: cubeEdges, transform: part.transform, camera: camera, material: part.material)
        }
        rasterizer.resolve(within: PixelBounds(minX: 0, minY: 0, maxX: image.width, maxY: image.height)) {
            LayerCompositor.composite($0, opacity: 1, into: image, occlusion: nil)
        }
    }

    /// Wall above the image of the floor's far edge, floor below. The edge is the image of the 3D
    /// line y = 0, z = wallZ (a straight line; two of its points in front of the camera fix it);
    /// a sample's floor share is its vertical distance below that line, clamped to 0…1.
    private func paintFloorAndWall(_ camera: Camera, into image: YUVImage) {
        let x = camera.pose.position.x
        let a = camera.project(SIMD3(x - 1, 0, Self.wallZ)), b = camera.project(SIMD3(x + 1, 0, Self.wallZ))
        let slope = (b.y - a.y) / (b.x - a.x)
        /// Floor share of a sample whose centre is at (`cx`, `cy`), luma pixel units.
        func floorShare(_ cx: Double, _ cy: Double) -> Double {
            max(0, min(1, cy - (a.y + slope * (cx - a.x)) + 0.5))
        }
        func mix(_ share: Double, _ wall: Double, _ floor: Double) -> UInt8 {
            UInt8((wall + share * (floor - wall)).rounded())
        }
        for y in 0..<image.height {
            let row = image.luma.row(y)
            for x in 0..<image.width { row[x] = mix(floorShare(Double(x) + 0.5, Double(y) + 0.5), wall.y, floor.y) }
        }
        let scaleX = Double(1 << image.subsampling.shiftX), scaleY = Double(1 << image.subsampling.shiftY)
        for y in 0..<image.cb.height {
            let cb = image.cb.row(y), cr = image.cr.row(y)
            for x in 0..<image.cb.width {
                let share = floorShare((Double(x) + 0.5) * scaleX, (Double(y) + 0.5) * scaleY)
                cb[x] = mix(share, wall.cb, floor.cb)
                cr[x] = mix(share, wall.cr, floor.cr)
            }
        }
    }
}
