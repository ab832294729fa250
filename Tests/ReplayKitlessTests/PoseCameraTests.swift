import Foundation
import Testing
@testable import ReplayKitless

/// Camera maths against hand-computed values (formats.md §1–2). Frame 640×480, fovY 90° unless said:
/// sy = 1/tan(45°) = 1, sx = sy·H/W = 0.75, so u = (0.75·x/d + 1)·320 and v = (1 − y/d)·240.
@Suite struct PoseCameraTests {
    let s2 = 2.0.squareRoot() / 2

    func camera(position: SIMD3<Double> = .zero, euler: SIMD3<Double> = .zero, fovY: Double = 90,
                intrinsics: Intrinsics? = nil) -> Camera {
        Camera(pose: Pose(position: position, euler: euler, zNear: 0.01, fovY: fovY, intrinsics: intrinsics),
               width: 640, height: 480)
    }

    func expectNear(_ p: Projection, x: Double, y: Double, depth: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(abs(p.x - x) < 1e-9 && abs(p.y - y) < 1e-9 && abs(p.depth - depth) < 1e-12,
                "got (\(p.x), \(p.y), \(p.depth)), expected (\(x), \(y), \(depth))", sourceLocation: sourceLocation)
    }

    func expectNear(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ tolerance: Double = 1e-9,
                    sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(((a - b) * (a - b)).sum().squareRoot() < tolerance, "got \(a), expected \(b)", sourceLocation: sourceLocation)
    }

    @Test func identityProjectsByTheFormula() {
        // (1, 0.5, −2): u = (0.75·0.5 + 1)·320 = 440, v = (1 − 0.25)·240 = 180.
        expectNear(camera().project([1, 0.5, -2]), x: 440, y: 180, depth: 2)
        // fovY 60 at the centre: any fov maps the view axis to (W/2, H/2).
        expectNear(camera(fovY: 60).project([0, 0, -5]), x: 320, y: 240, depth: 5)
    }

    @Test func yawOfNinetyDegreesLooksDownMinusX() {
        // Ry(90°) turns the camera left: forward −Z becomes world −X, its right (+X) becomes world −Z.
        let c = camera(euler: [0, .pi / 2, 0])
        expectNear(c.project([-2, 0, 0]), x: 320, y: 240, depth: 2)
        // World (−2, 0, −1) is 1 m to the camera's right: like (1, 0, −2) in camera space.
        expectNear(c.project([-2, 0, -1]), x: 440, y: 240, depth: 2)
    }

    @Test func positivePitchLooksUp() {
        // Rx(45°): forward (0, sin, −cos). A point straight down world −Z is 45° below the axis: the bottom edge.
        let c = camera(euler: [.pi / 4, 0, 0])
        expectNear(c.project([0, 2 * s2, -2 * s2]), x: 320, y: 240, depth: 2)
        let below = c.project([0, 0, -2])
        expectNear(below, x: 320, y: 480, depth: 2 * s2)
        #expect(!c.isOnScreen(below))  // v = H is outside: 0 ≤ v < H
    }

    @Test func rollOfNinetyDegreesTurnsRightIntoUp() {
        // Rz(90°): the camera's +X axis points along world +Y.
        let c = camera(euler: [0, 0, .pi / 2])
        expectNear(c.project([0, 1, -2]), x: 440, y: 240, depth: 2)
    }

    @Test func combinedRotationAppliesPitchThenYawThenRoll() {
        // R = Rz(90°)·Ry(90°)·Rx(45°). By hand: Rx(45°)·(0,0,−1) = (0, s, −s); Ry(90°) maps (x,y,z) → (z, y, −x),
        // giving (−s, s, 0); Rz(90°) maps (x, y) → (−y, x): forward = (−s, −s, 0).
        // Up: Rx·(0,1,0) = (0, s, s) → Ry → (s, s, 0) → Rz → (−s, s, 0).
        let c = camera(position: [1, 2, 3], euler: [.pi / 4, .pi / 2, .pi / 2])
        let forward = SIMD3(-s2, -s2, 0), up = SIMD3(-s2, s2, 0)
        expectNear(c.project(SIMD3(1, 2, 3) + 2 * forward), x: 320, y: 240, depth: 2)
        // Half a metre up at 2 m: camera space (0, 0.5, −2) → v = (1 − 0.25)·240 = 180.
        expectNear(c.project(SIMD3(1, 2, 3) + 2 * forward + 0.5 * up), x: 320, y: 180, depth: 2)
    }

    @Test func unprojectIsTheFormulaAndInvertsProject() {
        // Inverse of the identity case above.
        expectNear(camera().unproject(x: 440, y: 180, depth: 2), [1, 0.5, -2])
        let poses: [(SIMD3<Double>, SIMD3<Double>, Double)] = [
            ([0.3, -1, 2], [0.2, -0.7, 0.1], 60), ([-4, 0.5, 0], [-1.2, 2.5, -0.4], 35), ([0, 0, 0], [0, 0, 0], 120),
        ]
        for (position, euler, fov) in poses {
            let c = camera(position: position, euler: euler, fovY: fov)
            for (x, y, depth) in [(0.0, 0.0, 0.5), (639.5, 12.25, 3), (100, 479.9, 10)] {
                let world = c.unproject(x: x, y: y, depth: depth)
                expectNear(c.project(world), x: x, y: y, depth: depth)
                // And the other way: project then unproject returns the world point.
                let back = c.unproject(x: c.project(world).x, y: c.project(world).y, depth: c.project(world).depth)
                expectNear(back, world)
            }
        }
    }

    @Test func intrinsicsReplaceFovY() {
        // u = cx + fx·x/d = 300 + 500·0.5 = 550; v = cy − fy·y/d = 200 − 400·0.25 = 100.
        let k = Intrinsics(fx: 500, fy: 400, cx: 300, cy: 200)
        let c = camera(fovY: 10, intrinsics: k)
        expectNear(c.project([1, 0.5, -2]), x: 550, y: 100, depth: 2)
        expectNear(c.unproject(x: 550, y: 100, depth: 2), [1, 0.5, -2])
    }

    @Test func onScreenNeedsDepthBeyondZNearAndHalfOpenBounds() {
        let c = camera()  // zNear 0.01
        #expect(c.isOnScreen(Projection(x: 0, y: 0, depth: 1)))
        #expect(c.isOnScreen(Projection(x: 639.999, y: 479.999, depth: 1)))
        #expect(!c.isOnScreen(Projection(x: 640, y: 10, depth: 1)))
        #expect(!c.isOnScreen(Projection(x: 10, y: 480, depth: 1)))
        #expect(!c.isOnScreen(Projection(x: -0.001, y: 10, depth: 1)))
        #expect(!c.isOnScreen(Projection(x: 10, y: 10, depth: 0.01)))  // d must exceed zNear
        #expect(c.isOnScreen(Projection(x: 10, y: 10, depth: 0.0101)))
        #expect(!c.isOnScreen(c.project([0, 0, 2])))  // behind the camera
    }

    @Test func eulerAnglesRebuildTheRotation() {
        // From a rotation alone: the triple with yaw in [−π/2, π/2] (these are such triples).
        for euler: SIMD3<Double> in [[0.2, -0.7, 0.1], [-1.2, 1.4, -3], [3.0, 0, 0], [0, 0, -2.5]] {
            let pose = Pose(position: .zero, rotation: Pose.rotation(euler: euler), zNear: 0, fovY: 60)
            expectNear(pose.euler, euler, 1e-12)
        }
        // Gimbal lock (yaw 90°): angles are not unique, but the rotation they rebuild is the same.
        let locked = Pose(position: .zero, rotation: Pose.rotation(euler: [0.3, .pi / 2, 0.2]), zNear: 0, fovY: 60)
        let rebuilt = Pose.rotation(euler: locked.euler)
        for column in 0..<3 {
            for row in 0..<3 { #expect(abs(rebuilt[row, column] - locked.rotation[row, column]) < 1e-9) }
        }
    }

    @Test func aPoseGivenEulerAnglesGivesThemBack() {
        // Yaw beyond 90° and roll beyond 180°: the same rotation as (−3.0416, 1.1416, 0.9584)-ish, but
        // a recorded pose written back (pose SEI, sidecars) must keep its own numbers.
        let given: SIMD3<Double> = [0.1, 2.0, 4.0]
        var pose = Pose(position: [1, 2, 3], euler: given, zNear: 0.01, fovY: 60)
        #expect(pose.euler == given)
        let fromRotation = Pose(position: [1, 2, 3], rotation: pose.rotation, zNear: 0.01, fovY: 60)
        #expect(fromRotation == pose, "equal poses whichever angles made them")
        #expect(fromRotation.euler != given && abs(fromRotation.euler.y) <= .pi / 2)
        expectNear(Pose.rotation(euler: fromRotation.euler).columns.0, pose.rotation.columns.0, 1e-12)
        // A new rotation forgets the angles.
        pose.rotation = Pose.rotation(euler: [0.2, 0.3, 0.4])
        expectNear(pose.euler, [0.2, 0.3, 0.4], 1e-12)
    }

    @Test func overridesReplaceLensValues() throws {
        let pose = Pose(position: [1, 2, 3], euler: [0.1, 0.2, 0.3], zNear: 0.5, fovY: 40,
                        intrinsics: Intrinsics(fx: 1, fy: 1, cx: 0, cy: 0))
        let fov = try PoseOverrides(fovY: 75).apply(to: pose)
        #expect(fov.fovY == 75 && fov.intrinsics == nil && fov.zNear == 0.5 && fov.position == pose.position)
        let near = try PoseOverrides(zNear: 0.002).apply(to: pose)
        #expect(near.zNear == 0.002 && near.fovY == 40 && near.intrinsics == pose.intrinsics)
        let k = try PoseOverrides.parseIntrinsics("500, 400,320.5,240")
        #expect(k == Intrinsics(fx: 500, fy: 400, cx: 320.5, cy: 240))
        // Intrinsics win over an fov override.
        let both = try PoseOverrides(fovY: 75, intrinsics: k).apply(to: pose)
        #expect(both.intrinsics == k && both.fovY == 75)
        #expect(PoseOverrides.none.apply(to: pose) == pose)
    }

    @Test func badOverridesAreUsageErrorsNamingTheOption() {
        #expect(throws: ReplayError.self) { try PoseOverrides(fovY: 180) }
        #expect(throws: ReplayError.self) { try PoseOverrides(zNear: -1) }
        for text in ["1,2,3", "1,2,3,x", "0,1,1,1", ""] {
            do {
                _ = try PoseOverrides.parseIntrinsics(text)
                Issue.record("accepted \"\(text)\"")
            } catch {
                #expect(error.kind == .usage && error.message.contains("`PoseOverrides.intrinsics`") && error.options == ["PoseOverrides.intrinsics"])
            }
        }
    }
}
