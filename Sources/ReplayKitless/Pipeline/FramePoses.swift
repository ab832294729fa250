import CFFmpeg

/// Every frame's camera pose for a render, matched once before decoding starts from a packet
/// scan of the input (the same matching `fxreplay track` does, so placements agree exactly),
/// and looked up per decoded frame by its timestamp.
package final class FramePoses: Sendable {
    /// The packet scan: frame times, display size, SEI poses.
    package let scan: VideoPacketScan
    package let timeline: PoseTimeline
    /// How the poses were read and matched (and where the stream sits on a call's clock).
    package let settings: PoseSettings
    /// The scan's frames by timestamp.
    package let numbers: InputFrameNumbers

    package init(settings: PoseSettings, input: String) throws(ReplayError) {
        scan = try settings.scan(input)
        timeline = try settings.timeline(for: scan, input: input)
        self.settings = settings
        numbers = InputFrameNumbers(scan: scan)
    }

    /// The presentation index of the frame with timestamp `pts` in the video stream's time base.
    package func frameIndex(pts: Int64) -> Int? { numbers.index(of: pts) }

    /// The pose of the frame with timestamp `pts`; `nil` for a frame the policy hid or the scan never saw.
    package func pose(pts: Int64) -> Pose? {
        frameIndex(pts: pts).flatMap { timeline.poses[$0] }
    }

    /// The pose32 record (formats.md §1) of the frame with timestamp `pts`; `nil` when it has no pose.
    package func pose32(pts: Int64) -> Pose32? {
        pose(pts: pts).map { Pose32($0, frameHeight: scan.height) }
    }

    /// What the pose32 records leave out, when they do: they carry a vertical field of view only.
    package var pose32Warning: String? {
        guard timeline.poses.contains(where: { $0?.intrinsics != nil }) else { return nil }
        return "pose32 cannot carry intrinsics: the pose SEI holds the vertical field of view that fy spans over the "
            + "\(scan.height)-pixel frame height, 2·atan(H / 2fy); fx, cx and cy are not kept"
    }
}

extension Pose32 {
    /// The record for a pose (its rotation as Euler angles) on a frame `frameHeight` pixels high
    /// (display orientation). A pose read from float32 values gives those same values back; one
    /// with intrinsics gets the vertical field of view its fy spans over that height, 2·atan(H / 2fy).
    package init(_ pose: Pose, frameHeight: Int) {
        let p = pose.position, e = pose.euler
        let fovY = pose.intrinsics.map { 2 * atan(Double(frameHeight) / (2 * $0.fy)) * 180 / .pi } ?? pose.fovY
        self.init(position: [Float(p.x), Float(p.y), Float(p.z)], euler: [Float(e.x), Float(e.y), Float(e.z)],
                  zNear: Float(pose.zNear), fovY: Float(fovY))
    }
}

/// Frame side data for pose SEI: what reaches libx264/libx265 as `user_data_unregistered`.
enum PoseSideData {
    /// Replaces every unregistered-SEI entry of `frame` (the source encoder's version string, stale
    /// poses) with `payload`; with `nil` the frame carries none.
    static func replace(in frame: Frame, with payload: [UInt8]?) {
        av_frame_remove_side_data(frame.pointer, AV_FRAME_DATA_SEI_UNREGISTERED)
        if let payload, let side = av_frame_new_side_data(frame.pointer, AV_FRAME_DATA_SEI_UNREGISTERED, payload.count) {
            payload.withUnsafeBufferPointer { side.pointee.data.update(from: $0.baseAddress!, count: payload.count) }
        }
    }

    /// Keeps, of `frame`'s unregistered-SEI entries, only the pose `reader` recognises (carried
    /// through a render), dropping the rest (the source encoder's version string).
    static func keepOnlyPose(in frame: Frame, reader: PoseSEI) {
        // A frame may carry several entries (x264 puts its version string on frame 0).
        replace(in: frame, with: userData(of: frame).last { (try? reader.pose(inUserData: $0)) != nil })
    }

    /// The payloads (UUID + data) of `frame`'s unregistered-SEI entries, in order.
    static func userData(of frame: Frame) -> [[UInt8]] {
        let f = frame.pointer.pointee
        return (0..<Int(f.nb_side_data)).compactMap { index in
            guard let entry = f.side_data[index], entry.pointee.type == AV_FRAME_DATA_SEI_UNREGISTERED else { return nil }
            return [UInt8](UnsafeBufferPointer(start: entry.pointee.data, count: entry.pointee.size))
        }
    }
}
