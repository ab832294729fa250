import Foundation
import Testing
@testable import ReplayKitless

/// Pose SEI through real encoders: libx264 and libx265 get the payload as frame side data
/// (`AV_FRAME_DATA_SEI_UNREGISTERED`); the packets are then read back without decoding.
@Suite struct SEIStreamTests {
    func poses(_ count: Int) -> [Pose32] {
        (0..<count).map { i in
            Pose32(position: [Float(i) * 0.1, 1.5, 0], euler: [0, Float(i) / 3, -0.25], zNear: 0.001, fovY: 60)
        }
    }

    /// Writes 160×96 frames at 30 fps (1/90000 time base) with a pose SEI on every frame but `skipping`.
    func write(_ path: String, codec: VideoCodec, poses: [Pose32], skipping: Set<Int> = [], rotation: Int = 0) throws {
        var settings = EncoderSettings()
        settings.codec = codec
        settings.preset = "ultrafast"
        let writer = try MediaWriter(path: path, video: .init(size: PictureSize(width: 160, height: 96), timeBase: Rational(1, 90000),
                                                              encoder: settings, rotation: rotation))
        for (index, pose) in poses.enumerated() {
            let payload = skipping.contains(index) ? nil : PoseSEI().userDataPayload(for: pose)
            try writer.addVideoFrame(pts: 6000 + Int64(index) * 3000, duration: 3000, sei: payload) { image in
                image.luma.fill(UInt8(16 + index * 7))
                image.cb.fill(128)
                image.cr.fill(128)
            }
        }
        try writer.finish()
    }

    @Test(arguments: [(VideoCodec.h264, "mp4"), (.hevc, "mkv"), (.hevc, "mp4")])
    func readsEveryFramesPoseFromTheEncodedStream(codec: VideoCodec, container: String) throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/poses.\(container)"
        let expected = poses(8)
        try write(path, codec: codec, poses: expected, skipping: [5], rotation: 90)
        let scan = try VideoPacketScan(path: path, sei: PoseSEI())
        #expect(scan.seiPoses.count == 8)
        for index in 0..<8 {
            #expect(scan.seiPoses[index]?.bytes == (index == 5 ? nil : expected[index].bytes), "frame \(index)")
        }
        // Frames 1/30 s apart from 6000/90000 s; the containers keep time to the millisecond (Matroska's
        // time base, MP4's edit list), so allow 1 ms.
        #expect(abs(scan.firstFrameTime - 6000.0 / 90000) < 0.001)
        for (index, frame) in scan.frames.enumerated() {
            #expect(abs(frame.time - Double(index) / 30) < 0.001 && abs(frame.duration - 1.0 / 30) < 0.001)
        }
        // MP4 stores the 90° display rotation (Matroska in FFmpeg 5.1 does not): width and height swap.
        #expect(container == "mp4" ? (scan.width == 96 && scan.height == 160) : (scan.width == 160 && scan.height == 96))
        #expect(scan.seiSamples.count == 7 && scan.seiSamples[5].key == .time(scan.frames[6].time))
        // Another UUID finds nothing.
        let other = try VideoPacketScan(path: path, sei: try PoseSEI(uuid: "00000000-0000-0000-0000-000000000001"))
        #expect(other.seiPoses.allSatisfy { $0 == nil })
    }

    @Test func vp8HasNoSEI() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/v.webm"
        try write(path, codec: .vp8, poses: poses(2), skipping: [0, 1])
        #expect(try VideoPacketScan(path: path).frames.count == 2)
        let error = replayError { _ = try VideoPacketScan(path: path, sei: PoseSEI()) }
        #expect(error?.kind == .badInput && error?.message.contains("sidecar") == true)
    }
}
