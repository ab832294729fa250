import Testing
@testable import ReplayKitless

@Suite struct CameraTests {
    @Test func identityPoseProjectsForwardPointToCentre() {
        let pose = Pose(position: [0, 0, 0], euler: [0, 0, 0], zNear: 0.01, fovY: 90)
        let camera = Camera(pose: pose, width: 640, height: 480)
        let p = camera.project([0, 0, -2])
        #expect(abs(p.x - 320) < 1e-9 && abs(p.y - 240) < 1e-9 && abs(p.depth - 2) < 1e-12)
        // fovY 90°: tan(45°) = 1, so a point at height d on the view axis lands on the top edge.
        let top = camera.project([0, 2, -2])
        #expect(abs(top.y) < 1e-9)
    }
}
