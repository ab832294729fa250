import CKernels
import Testing
@testable import ReplayKitless

/// The rasterizer's C tile kernel (CKernels/raster.c) has an AVX2 copy, chosen at run time, and a
/// portable one: both must draw the same bytes. A scene with every kind of pixel: lit curved
/// surfaces (per-pixel Lambert), flat faces, an unlit ring, silhouettes at many angles (8×8
/// coverage, centroids), a stem meeting its shape (depth tests between meshes), a far stem whose
/// rows hold one, two or three pixels (the depth test's short rows) and a shape cut by the frame's
/// edge, on 4:2:0 so whole blocks and odd columns blend.
@Suite(.serialized) struct RasterKernelTests {
    @Test func portableAndAVX2PathsDrawTheSameBytes() throws {
        let eye = HandCamera(position: [0.1, 1.2, 0.5], pitch: -0.1, yaw: 0.2, roll: 0.05, width: 237, height: 161)
        var sphere = placed(.sphere, size: 0.5, at: eye.world([0.1, 0.05, -1.6]))
        sphere.annotation.stem = true
        var farSphere = placed(.sphere, size: 0.4, at: eye.world([-0.55, 0.3, -3.2]), color: "#FF3B30")
        farSphere.annotation.stem = true
        let scene = [
            sphere,
            farSphere,
            placed(.box, size: 0.4, at: eye.world([-0.45, -0.1, -1.8]), color: "#34C759", orientation: [0.3, 0.7, 0.1]),
            placed(.ring, size: 0.35, at: eye.world([0.45, 0.2, -1.5]), color: "#007AFF"),
            placed(.cone, size: 0.3, at: eye.world([-0.2, 0.3, -1.2]), color: "#FF9500", orientation: [0.2, 0.4, 0]),
            placed(.star, size: 0.4, at: eye.world([0.62, -0.25, -1.4]), color: "#AF52DE", orientation: [0.4, 0.3, 0]),
            placed(.pin, size: 0.08, at: eye.world([0.3, 0.2, -2.5])),
        ]
        func drawn(portable: Bool) throws -> [UInt8] {
            ck_raster_force_portable(portable ? 1 : 0)
            defer { ck_raster_force_portable(0) }
            let frame = TestFrame(width: 237, height: 161, subsampling: .yuv420)
            try render(scene, eye, into: frame)
            #expect(frame.changed.count > 2000, "\(frame.changed.count) pixels drawn")
            return frame.bytes
        }
        #expect(try drawn(portable: true) == drawn(portable: false))
    }
}
