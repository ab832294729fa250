import Foundation
import Testing
@testable import ReplayKitless

/// A camera written out by hand from formats.md §1–2, independent of `Pose`/`Camera`, so tests
/// check the renderer against the contract rather than against the library's own maths.
struct HandCamera {
    var position: [Double]
    var rows: [[Double]]   // R = Rz(roll)·Ry(yaw)·Rx(pitch), row-major
    var width: Double
    var height: Double
    var fovY: Double
    var euler: (pitch: Double, yaw: Double, roll: Double)

    init(position: [Double], pitch: Double, yaw: Double, roll: Double, width: Int, height: Int, fovY: Double = 60) {
        self.position = position
        self.width = Double(width)
        self.height = Double(height)
        self.fovY = fovY
        euler = (pitch, yaw, roll)
        let rx = [[1, 0, 0], [0, cos(pitch), -sin(pitch)], [0, sin(pitch), cos(pitch)]]
        let ry = [[cos(yaw), 0, sin(yaw)], [0, 1, 0], [-sin(yaw), 0, cos(yaw)]]
        let rz = [[cos(roll), -sin(roll), 0], [sin(roll), cos(roll), 0], [0, 0, 1]]
        func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
            (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
        }
        rows = multiply(rz, multiply(ry, rx))
    }

    /// `Xw = R·Xc + t`.
    func world(_ c: [Double]) -> SIMD3<Double> {
        SIMD3((0..<3).map { i in position[i] + (0..<3).reduce(0) { $0 + rows[i][$1] * c[$1] } })
    }

    /// `Xc = Rᵀ·(Xw − t)`, `d = −Xc.z`, `u = (sx·x/d + 1)·W/2`, `v = (1 − sy·y/d)·H/2`.
    func project(_ w: SIMD3<Double>) -> (u: Double, v: Double, d: Double) {
        let delta = (0..<3).map { w[$0] - position[$0] }
        let c = (0..<3).map { i in (0..<3).reduce(0) { $0 + rows[$1][i] * delta[$1] } }
        let d = -c[2]
        let sy = 1 / tan(fovY / 2 * .pi / 180), sx = sy * height / width
        return ((sx * c[0] / d + 1) * width / 2, (1 - sy * c[1] / d) * height / 2, d)
    }

    /// The library camera for the same pose.
    func camera(zNear: Double = 0.01) -> Camera {
        let pose = Pose(position: SIMD3(position), euler: [euler.pitch, euler.yaw, euler.roll], zNear: zNear, fovY: fovY)
        return Camera(pose: pose, width: Int(width), height: Int(height))
    }
}

/// A frame filled with one colour, and what changed after drawing into it.
struct TestFrame {
    let buffer: PlanarBuffer
    let background: YUVColor
    var image: YUVImage { buffer.image }

    init(width: Int = 320, height: Int = 240, subsampling: ChromaSubsampling = .yuv444,
         colorSpace: ColorSpace = .bt709Limited, background: YUVColor? = nil, alpha: Bool = false) {
        buffer = PlanarBuffer(width: width, height: height, subsampling: subsampling, colorSpace: colorSpace, alpha: alpha)
        self.background = background ?? YUVColor(y: colorSpace.fullRange ? 0 : 16, cb: 128, cr: 128)
        buffer.image.fill(self.background)
    }

    /// Pixels whose luma differs from the background.
    var changed: [(x: Int, y: Int)] {
        var result: [(x: Int, y: Int)] = []
        for y in 0..<image.height {
            for x in 0..<image.width where image.luma[x, y] != background.y { result.append((x, y)) }
        }
        return result
    }

    /// Every sample of every plane, to compare frames byte for byte.
    var bytes: [UInt8] {
        [image.luma, image.cb, image.cr].flatMap { plane in (0..<plane.height).flatMap { Array(plane.row($0)) } }
    }
}

func render(_ annotations: [PlacedAnnotation], _ camera: HandCamera, into frame: TestFrame, zNear: Double = 0.01,
            options: AnnotationRenderer.Options = .init(), occlusion: Plane? = nil, time: Double = 0) throws {
    let renderer = AnnotationRenderer(options: options)
    try renderer.render(annotations, camera: camera.camera(zNear: zNear), time: time, into: frame.image, occlusion: occlusion)
}

func placed(_ shape: AnnotationShape, size: Double, at anchor: SIMD3<Double>, color: String = "#FFFFFF",
            label: String? = nil, orientation: SIMD3<Double> = .zero) -> PlacedAnnotation {
    PlacedAnnotation(annotation: Annotation(id: "a", anchor: .world(anchor), shape: shape, size: size,
                                color: RGBAColor(hex: color)!, label: label, orientation: orientation), world: anchor)
}

@Suite struct RenderRasterTests {
    static let formats: [(ChromaSubsampling, ColorSpace)] = [
        (.yuv444, ColorSpace(matrix: .bt709, fullRange: true)), (.yuv420, .bt709Limited),
    ]

    @Test(arguments: formats)
    func sphereCentroidIsTheAnchorsProjection(subsampling: ChromaSubsampling, colorSpace: ColorSpace) throws {
        let eye = HandCamera(position: [0.3, 1.2, 0.5], pitch: -0.15, yaw: 0.25, roll: 0.05, width: 320, height: 240)
        // 2 m in front, a little right and below: u = (1.299038·0.125 + 1)·160, v = (1 + 1.732051·0.05)·120.
        let anchor = eye.world([0.25, -0.1, -2])
        let expected = (u: (1.299038 * 0.125 + 1) * 160, v: (1 + 1.732051 * 0.05) * 120)
        let frame = TestFrame(subsampling: subsampling, colorSpace: colorSpace)
        try render([placed(.sphere, size: 0.2, at: anchor)], eye, into: frame)
        let changed = frame.changed
        // Radius ≈ fy·0.1/2 = 207.8·0.05 ≈ 10.4 px: about π·10.4² ≈ 340 pixels.
        #expect(changed.count > 300 && changed.count < 420)
        let cx = changed.reduce(0) { $0 + Double($1.x) + 0.5 } / Double(changed.count)
        let cy = changed.reduce(0) { $0 + Double($1.y) + 0.5 } / Double(changed.count)
        #expect(abs(cx - expected.u) < 0.5, "centroid x \(cx), expected \(expected.u)")
        #expect(abs(cy - expected.v) < 0.5, "centroid y \(cy), expected \(expected.v)")
    }

    @Test func boxSilhouetteReachesTheProjectedCorners() throws {
        let eye = HandCamera(position: [-0.4, 1.5, 1.0], pitch: -0.3, yaw: 0.4, roll: 0.1, width: 320, height: 240)
        let anchor = eye.world([-0.2, 0.1, -2.5])
        let frame = TestFrame()
        try render([placed(.box, size: 0.4, at: anchor)], eye, into: frame)
        var corners: [(u: Double, v: Double, d: Double)] = []
        for dx in [-0.2, 0.2] { for dy in [-0.2, 0.2] { for dz in [-0.2, 0.2] {
            corners.append(eye.project(anchor + [dx, dy, dz]))
        } } }
        let changed = frame.changed
        #expect(!changed.isEmpty)
        // Left/top edges of the outermost changed pixels against the leftmost/topmost corner, and so on.
        let left = Double(changed.map(\.x).min() ?? 0), right = Double((changed.map(\.x).max() ?? 0) + 1)
        let top = Double(changed.map(\.y).min() ?? 0), bottom = Double((changed.map(\.y).max() ?? 0) + 1)
        #expect(abs(left - corners.map(\.u).min()!) <= 1)
        #expect(abs(right - corners.map(\.u).max()!) <= 1)
        #expect(abs(top - corners.map(\.v).min()!) <= 1)
        #expect(abs(bottom - corners.map(\.v).max()!) <= 1)
    }

    @Test func nearBoxHidesFarSphereWhicheverComesFirst() throws {
        let eye = HandCamera(position: [1, 1.6, 2], pitch: -0.1, yaw: 0.3, roll: 0, width: 320, height: 240)
        let sphere = placed(.sphere, size: 0.6, at: eye.world([0, 0, -3]), color: "#FF0000")
        let box = placed(.box, size: 0.3, at: eye.world([0.1, 0, -2]), color: "#00FF00")
        // Box centre: u = 160 + 207.85·0.1/2 ≈ 170.4, v = 120; the sphere (radius ≈ 20.8 px) is behind it there.
        for order in [[sphere, box], [box, sphere]] {
            let frame = TestFrame()
            try render(order, eye, into: frame)
            // Green has Cr < 128, red Cr > 128 (BT.709: Cr ∝ R' − Y').
            #expect(frame.image.cr[170, 120] < 110, "box in front")
            #expect(frame.image.cr[145, 120] > 150, "sphere beside the box")
        }
    }

    @Test func nothingBehindTheCameraIsDrawn() throws {
        let eye = HandCamera(position: [0, 1, 0], pitch: 0.2, yaw: -0.5, roll: 0, width: 320, height: 240)
        let frame = TestFrame()
        // Mirrored through the camera these would land near the middle of the frame.
        try render([placed(.sphere, size: 0.5, at: eye.world([0.1, 0, 2])),
                    placed(.box, size: 0.5, at: eye.world([-0.1, 0.1, 1]))], eye, into: frame)
        #expect(frame.changed.isEmpty)
    }

    @Test func aBoxThroughTheNearPlaneDrawsOnlyItsFrontPart() throws {
        let eye = HandCamera(position: [0, 1, 0], pitch: 0, yaw: 0.7, roll: 0, width: 320, height: 240)
        let frame = TestFrame()
        // Turned with the camera, the box spans camera x 0.1…1.1, y ±0.5, z ±0.5: half behind the
        // camera. What is in front (d ≥ 0.05) projects right of u = 160 + 207.85·0.1/0.5 ≈ 201.6;
        // a mirrored back half (x > 0, d < 0) would land left of the centre.
        let box = placed(.box, size: 1, at: eye.world([0.6, 0, 0]), orientation: [0, 0.7, 0])
        try render([box], eye, into: frame, zNear: 0.05)
        let changed = frame.changed
        #expect(changed.count > 1000)
        #expect(changed.allSatisfy { $0.x >= 201 }, "leftmost \(changed.map(\.x).min() ?? -1)")
    }

    @Test func pinTipLandsOnTheAnchor() throws {
        // Level camera (pitch = roll = 0): the pin stands vertical on screen, tip down.
        let eye = HandCamera(position: [0.5, 1.4, -0.3], pitch: 0, yaw: 1.1, roll: 0, width: 320, height: 240)
        let anchor = eye.world([0.05, -0.1, -1.5])
        // u = 160 + 207.85·0.05/1.5 ≈ 166.93, v = 120 + 207.85·0.1/1.5 ≈ 133.86
        let (u, v) = (160 + 207.846 * 0.05 / 1.5, 120 + 207.846 * 0.1 / 1.5)
        let frame = TestFrame()
        try render([placed(.pin, size: 0.3, at: anchor)], eye, into: frame)
        let changed = frame.changed
        let lowest = try #require(changed.max { $0.y < $1.y })
        // The needle narrows to nothing at the tip, so the last covered row may stop a little short.
        #expect(Double(lowest.y + 1) <= v + 0.5 && Double(lowest.y + 1) >= v - 1.5, "lowest row \(lowest.y), v \(v)")
        #expect(abs(Double(lowest.x) + 0.5 - u) <= 1)
        // The pin rises 0.3 m ≈ 41.6 px above the tip.
        let highest = Double(changed.map(\.y).min() ?? 0)
        #expect(abs(highest - (v - 207.846 * 0.3 / 1.5)) <= 1.5)
    }

    @Test func stemIsAFlatGreyLineDownToTheGround() throws {
        // Level camera 1 m above the ground, anchor 0.8 m up and 1.5 m ahead. The stem, radius
        // 0.04·0.3 m, is 207.85·0.012/1.5 ≈ 1.66 px either side of u = 160, from the sphere's bottom
        // (v ≈ 168.5) down past the frame's bottom edge (the ground is at v = 120 + 207.85/1.5 ≈ 258.6).
        let eye = HandCamera(position: [0, 1, 0], pitch: 0, yaw: 0, roll: 0, width: 320, height: 240)
        let frame = TestFrame()
        var annotation = placed(.sphere, size: 0.3, at: [0, 0.8, -1.5], color: "#FF0000")
        annotation.annotation.stem = true
        try render([annotation], eye, into: frame)
        // At world y = 0.3: v = 120 + 207.85·0.7/1.5 ≈ 217. Grey (142, 142, 147), flat, BT.709 limited:
        // Y' = 16 + 219·(0.9278·142 + 0.0722·147)/255 = 138.26.
        #expect(frame.image.luma[159, 217] == 138 && frame.image.luma[160, 217] == 138)
        #expect(frame.image.luma[157, 217] == 16 && frame.image.luma[162, 217] == 16)
        #expect(frame.image.luma[160, 239] == 138, "reaches the bottom of the frame")
        var plain = annotation
        plain.annotation.stem = false
        let without = TestFrame()
        try render([plain], eye, into: without)
        #expect(without.image.luma[160, 217] == 16)
    }

    /// A stem shows a round pole's outline from every side: on each row, the coverage it draws adds
    /// up to the width between the two tangents from the camera to a vertical cylinder of the stem's
    /// radius, f·(tan(φ + α) − tan(φ − α)) with φ the axis's angle off the view axis and
    /// sin α = r / (its level distance). (An octagonal prism's width would swing by 7.6 % with the
    /// side it turns to the camera: 0.4 px here.)
    @Test func stemShowsARoundPolesWidthFromEverySide() throws {
        let eye = HandCamera(position: [0, 1, 0], pitch: 0, yaw: 0, roll: 0, width: 320, height: 240)
        let focal = 1 / tan(Double.pi / 6) * 240 / 320 * 160   // sx·W/2 of HandCamera.project
        let grey = 138.26, black = 16.0, radius = 0.04 * 0.5, depth = 1.5
        for degrees in [0.0, 11.25, 22.5, -16, 30] {
            let angle = degrees * Double.pi / 180
            let axis = SIMD3(depth * tan(angle), 0.8, -depth)
            var annotation = placed(.sphere, size: 0.5, at: axis, color: "#FF0000")
            annotation.annotation.stem = true
            let frame = TestFrame()
            try render([annotation], eye, into: frame)
            let half = asin(radius / (depth / cos(angle)))
            let expected = focal * (tan(angle + half) - tan(angle - half))
            // World y = 0.3 on the axis: below the sphere (bottom at 0.55), above the ground.
            let row = Int(eye.project(SIMD3(axis.x, 0.3, axis.z)).v)
            let centre = eye.project(SIMD3(axis.x, 0.3, axis.z)).u
            var width = 0.0
            for x in 0..<320 {
                let coverage = (Double(frame.image.luma[x, row]) - black) / (grey - black)
                if abs(Double(x) + 0.5 - centre) > expected / 2 + 1 {
                    #expect(frame.image.luma[x, row] == 16, "\(degrees)°: column \(x) drawn, away from the stem at \(centre)")
                }
                width += coverage
            }
            #expect(abs(width - expected) < 0.15, "\(degrees)°: \(width) px drawn across, \(expected) expected")
        }
    }

    @Test func objCubeMatchesTheBuiltInBox() throws {
        // A cube of edge 2 (scaled to the annotation's size), mixing every face syntax.
        let obj = """
        # cube
        v -1 -1 -1
        v 1 -1 -1
        v 1 1 -1
        v -1 1 -1
        v -1 -1 1
        v 1 -1 1
        v 1 1 1
        v -1 1 1
        vt 0 0
        vn 0 0 1
        vn 0 -1 0
        f 5/1/1 6/1/1 7/1/1 8/1/1
        f 2 1 4 3
        f -7//-1 -3//-1 -4//-1 -8//-1
        f 1 5 8 4
        f 4 8 7 3
        f 2/1 3/1 7/1 6/1
        """
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("render-cube-\(UUID()).obj").path
        try obj.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let eye = HandCamera(position: [0.2, 1.3, 0.4], pitch: -0.35, yaw: 0.6, roll: 0, width: 320, height: 240)
        let anchor = eye.world([0.1, -0.05, -1.8])
        let builtIn = TestFrame(), loaded = TestFrame()
        try render([placed(.box, size: 0.35, at: anchor)], eye, into: builtIn)
        try render([placed(.mesh(path: FilePath(path)), size: 0.35, at: anchor)], eye, into: loaded)
        let a = Set(builtIn.changed.map { $0.y * 320 + $0.x }), b = Set(loaded.changed.map { $0.y * 320 + $0.x })
        #expect(a.count > 1000)
        #expect(Double(a.intersection(b).count) / Double(a.union(b).count) >= 0.99)
        // Same normals, same light: the same shading. Drawn double-sided, the file's hidden faces
        // (listed after the visible ones) must lose the depth test to show this.
        let close = a.intersection(b).filter { i in
            abs(Int(builtIn.image.luma[i % 320, i / 320]) - Int(loaded.image.luma[i % 320, i / 320])) <= 2
        }
        #expect(Double(close.count) / Double(a.count) >= 0.99)
    }

    /// Writes `text` to a temporary .obj file for the duration of `body`.
    func withOBJ(_ text: String, _ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("render-\(UUID()).obj").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    /// The documented light: ambient 0.35, the rest from (−0.35, 0.55, 0.75)/|…| in camera space.
    func lambert(_ normal: SIMD3<Double>) -> Double {
        let light = SIMD3(-0.35, 0.55, 0.75) / 0.99373
        let n = normal / (normal * normal).sum().squareRoot()
        return 0.35 + 0.65 * max(0, (n * light).sum())
    }

    @Test func normalsAreInterpolatedPerspectiveCorrectly() throws {
        // One triangle receding from 1 m to 3 m, a different normal at each corner. Its extent is
        // 2 (z), so size 2 keeps it at its own coordinates, anchored at the camera's origin.
        let (a, b, c) = (SIMD3(-0.5, -0.4, -1.0), SIMD3(0.6, -0.3, -3.0), SIMD3(0.0, 0.5, -2.0))
        let normals = [SIMD3(0.0, 0, 1), SIMD3(1.0, 0, 0), SIMD3(0.0, 1, 0)]
        let obj = "v -0.5 -0.4 -1\nv 0.6 -0.3 -3\nv 0 0.5 -2\nvn 0 0 1\nvn 1 0 0\nvn 0 1 0\nf 1//1 2//2 3//3\n"
        let eye = HandCamera(position: [0, 0, 0], pitch: 0, yaw: 0, roll: 0, width: 320, height: 240)
        let frame = TestFrame()
        try withOBJ(obj) { path in try render([placed(.mesh(path: FilePath(path)), size: 2, at: .zero)], eye, into: frame) }
        // Where the ray through the centre of pixel (130, 150) meets the triangle, by hand.
        let f = 207.846
        let ray = SIMD3((130.5 - 160) / f, -(150.5 - 120) / f, -1)
        func cross(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> SIMD3<Double> {
            [u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x]
        }
        let n = cross(b - a, c - a), nn = (n * n).sum()
        let p = ray * ((n * a).sum() / (n * ray).sum())
        let la = (cross(b - p, c - p) * n).sum() / nn, lb = (cross(c - p, a - p) * n).sum() / nn, lc = 1 - la - lb
        try #require(la > 0.05 && lb > 0.05 && lc > 0.05, "well inside")
        let expected = 16 + 219 * lambert(normals[0] * la + normals[1] * lb + normals[2] * lc)
        #expect(abs(Double(frame.image.luma[130, 150]) - expected) <= 1, "expected \(expected)")
    }

    @Test func openMeshesAreLitTheSameFromBehind() throws {
        // A square facing +Z, seen from the front and from behind: both sides face the viewer.
        let square = "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nf 1 2 3 4\n"
        let front = HandCamera(position: [0, 0, 2], pitch: 0, yaw: 0, roll: 0, width: 160, height: 120)
        let behind = HandCamera(position: [0, 0, -2], pitch: 0, yaw: Double.pi, roll: 0, width: 160, height: 120)
        let expected = (16 + 219 * lambert([0, 0, 1])).rounded()   // 200
        try withOBJ(square) { path in
            for eye in [front, behind] {
                let frame = TestFrame(width: 160, height: 120)
                try render([placed(.mesh(path: FilePath(path)), size: 0.5, at: .zero)], eye, into: frame)
                #expect(Double(frame.image.luma[80, 60]) == expected)
            }
        }
    }

    @Test(arguments: [0.8, 0.12])
    func sphereShadingMatchesLambertOnTheTrueSphere(size: Double) throws {
        // The camera at the origin looking down −Z (camera space = world space), a white sphere
        // 2 m ahead, large (radius ≈ 42 px, 20 segments) or small (≈ 6 px, 8 segments). Each
        // pixel whose centre ray meets the true sphere well inside its outline must have the
        // Lambert shade of the true sphere's normal there, on average within a level. Single pixels
        // may miss by a few levels (2 % of the range) where the ray meets a facet far from the true
        // surface: near the outline, and on the coarse facets of the small sphere.
        let eye = HandCamera(position: [0, 0, 0], pitch: 0, yaw: 0, roll: 0, width: 320, height: 240)
        let centre = SIMD3(0.0, 0, -2), radius = size / 2
        let frame = TestFrame()
        try render([placed(.sphere, size: size, at: centre)], eye, into: frame)
        let f = 120 / tan(Double.pi / 6)   // 207.846 px
        var compared = 0, total = 0.0, worst = 0.0
        for y in 0..<240 {
            for x in 0..<320 {
                let ray = SIMD3((Double(x) + 0.5 - 160) / f, -(Double(y) + 0.5 - 120) / f, -1)
                let unit = ray / (ray * ray).sum().squareRoot()
                // |t·unit − centre| = radius: t² − 2t(unit·centre) + |centre|² − radius² = 0.
                let b = (unit * centre).sum(), c = (centre * centre).sum() - radius * radius
                let discriminant = b * b - c
                // At least 1.5 px inside the outline: the ray misses a sphere 1.5 px larger by far.
                let inner = radius - 1.5 * 2 / f
                guard discriminant > 0, b * b - ((centre * centre).sum() - inner * inner) > 0 else { continue }
                let hit = unit * (b - discriminant.squareRoot())
                let expected = 16 + 219 * lambert((hit - centre) / radius)
                let difference = abs(Double(frame.image.luma[x, y]) - expected)
                compared += 1
                total += difference
                worst = max(worst, difference)
            }
        }
        #expect(compared > (size > 0.5 ? 4500 : 60))
        #expect(total / Double(compared) <= 1, "mean difference \(total / Double(compared))")
        #expect(worst <= 5, "worst difference \(worst)")
    }

    @Test(arguments: [ChromaSubsampling.yuv444, .yuv420])
    func flatRingInteriorHasTheExactColour(subsampling: ChromaSubsampling) throws {
        let eye = HandCamera(position: [0, 1.5, 0], pitch: 0.3, yaw: -0.2, roll: 0.1, width: 320, height: 240)
        let frame = TestFrame(subsampling: subsampling)
        // Outer radius 207.85·0.25/2 ≈ 26 px, inner 0.7 of that ≈ 18.2 px, round the frame centre.
        try render([placed(.ring, size: 0.5, at: eye.world([0, 0, -2]), color: "#4A90D9")], eye, into: frame)
        // BT.709 limited, R'G'B' = (74, 144, 217)/255:
        // Y' = 0.2126·0.290196 + 0.7152·0.564706 + 0.0722·0.850980 = 0.527015 → 16 + 219·Y' = 131.42
        // Cb = 128 + 224·(0.850980 − Y')/1.8556 = 167.11;  Cr = 128 + 224·(0.290196 − Y')/1.5748 = 94.31
        let (x, y) = (181, 119)   // 21.5 px right of the centre: inside the band, as is its 2×2 block
        #expect(frame.image.luma[x, y] == 131)
        let (cx, cy) = (x >> subsampling.shiftX, y >> subsampling.shiftY)
        #expect(frame.image.cb[cx, cy] == 167)
        #expect(frame.image.cr[cx, cy] == 94)
        #expect(frame.image.luma[160, 120] == 16, "the hole in the middle stays background")
    }

    @Test func fullAmbientLightDrawsAFlatBox() throws {
        let eye = HandCamera(position: [0, 1.5, 0], pitch: 0.4, yaw: 0.9, roll: 0, width: 160, height: 120)
        let frame = TestFrame(width: 160, height: 120, subsampling: .yuv420)
        try render([placed(.box, size: 0.3, at: eye.world([0, 0, -1.5]), color: "#FF0000")], eye, into: frame,
                   options: .init(ambient: 1))
        // Pure red, BT.709 limited: Y' = 16 + 219·0.2126 = 62.56, Cb = 128 − 224·0.2126/1.8556 = 102.34,
        // Cr = 128 + 224·0.7874/1.5748 = 240.
        #expect(frame.image.luma[80, 60] == 63)
        #expect(frame.image.cb[40, 30] == 102)
        #expect(frame.image.cr[40, 30] == 240)
    }

    @Test func halfAlphaBlendsHalfWay() throws {
        let eye = HandCamera(position: [0, 1.5, 0], pitch: 0, yaw: 0, roll: 0, width: 160, height: 120)
        let background = YUVColor(y: 16, cb: 128, cr: 128)
        let frame = TestFrame(width: 160, height: 120, subsampling: .yuv420, background: background)
        try render([placed(.box, size: 0.3, at: eye.world([0, 0, -1.5]), color: "#FF000080")], eye, into: frame,
                   options: .init(ambient: 1))
        // Half way from black (16, 128, 128) to red (62.56, 102.34, 240).
        #expect(abs(Double(frame.image.luma[80, 60]) - (16 + 62.56) / 2) <= 1)
        #expect(abs(Double(frame.image.cb[40, 30]) - (128 + 102.34) / 2) <= 1)
        #expect(abs(Double(frame.image.cr[40, 30]) - (128 + 240) / 2) <= 1)
    }

    @Test func aFullOcclusionMaskLeavesTheFrameUntouched() throws {
        let eye = HandCamera(position: [0, 1.5, 0], pitch: 0, yaw: 0, roll: 0, width: 160, height: 120)
        let scene = [placed(.sphere, size: 0.4, at: eye.world([0, 0, -1.5]), color: "#3366CC", label: "Valve"),
                     placed(.box, size: 0.2, at: eye.world([0.2, 0.1, -1]), color: "#FFCC00")]
        let mask = PlanarBuffer(width: 160, height: 120, subsampling: .yuv444)
        let frame = TestFrame(width: 160, height: 120, subsampling: .yuv420, background: YUVColor(y: 90, cb: 100, cr: 150))
        let before = frame.bytes
        mask.image.luma.fill(255)
        try render(scene, eye, into: frame, occlusion: mask.image.luma)
        #expect(frame.bytes == before)

        // Person on the right half only: the annotations show on the left half alone.
        for y in 0..<120 { for x in 0..<160 { mask.image.luma[x, y] = x < 80 ? 0 : 255 } }
        try render(scene, eye, into: frame, occlusion: mask.image.luma)
        let changed = frame.changed
        #expect(changed.count > 100)
        #expect(changed.allSatisfy { $0.x < 80 })
    }

    @Test func aMaskOfTheWrongSizeIsRejected() throws {
        let frame = TestFrame(width: 160, height: 120)
        let mask = PlanarBuffer(width: 80, height: 60, subsampling: .yuv444)
        let eye = HandCamera(position: [0, 0, 0], pitch: 0, yaw: 0, roll: 0, width: 160, height: 120)
        #expect(throws: ReplayError.self) {
            try render([placed(.sphere, size: 0.4, at: [0, 0, -1])], eye, into: frame, occlusion: mask.image.luma)
        }
    }
}

/// A mesh may pile up only so many layers on screen: 100 frame-filling triangles are refused
/// (drawing time grows with them, without bound), 10 are drawn.
@Suite struct RenderOverdrawTests {
    @Test func aMeshCoveringTheFrameTooManyTimesIsRefused() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let eye = HandCamera(position: [0, 1, 0], pitch: 0, yaw: 0, roll: 0, width: 320, height: 240)
        for (layers, refused) in [(100, true), (10, false)] {
            let path = directory.appendingPathComponent("layers\(layers).obj").path
            let triangles = (0..<layers).map { i in "f \(3 * i + 1) \(3 * i + 2) \(3 * i + 3)" }
            let vertices = Array(repeating: "v -1 -1 0\nv 1 -1 0\nv 0 1 0", count: layers)
            try (vertices + triangles).joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
            // 4 m wide, 1 m in front: every triangle covers nearly all the view.
            let frame = TestFrame(subsampling: .yuv420, colorSpace: .bt709Limited)
            do {
                try render([placed(.mesh(path: FilePath(path)), size: 4, at: eye.world([0, 0, -1]))], eye, into: frame)
                #expect(!refused, "\(layers) layers were drawn")
                #expect(frame.changed.count > 320 * 240 * 9 / 10)
            } catch let error as ReplayError {
                #expect(refused, "\(error)")
                #expect(error.kind == .badInput && error.message.contains("annotation \"a\"") && error.message.contains("64 times"), "\(error)")
                #expect(frame.changed.isEmpty)
            }
        }
    }
}
