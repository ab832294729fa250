import Foundation

// One call for each common job; the lower-level types they use stay available for anything else.
// Media inputs are strings, a local path or a URL that `InputPolicy` allows; files are `FilePath`s.

extension Renderer {
    /// Renders `input` upright to `output` with the person (where `mask` is opaque) over the still
    /// `picture`, fitted to cover the frame: `fxreplay render IN -o OUT --mask M --background P`.
    /// Cancelling the task leaves no output (see ``run(onProgress:)``).
    /// - Parameters:
    ///   - input: the recording: a local path or a URL that ``InputPolicy`` allows.
    ///   - output: the file written; its extension picks the container (and the codec: H.264, VP9 for WebM).
    ///   - mask: per-frame masks: a mask video or single image, numbered images, or the input's alpha.
    ///   - picture: the still picture (PNG, JPEG, …) shown where the mask is transparent: a local
    ///     path or a URL that ``InputPolicy`` allows.
    ///   - overwrite: replace an existing `output` (without it, an existing file is a usage error).
    ///   - onProgress: called about ten times a second; throwing from it stops the render with that error.
    public static func render(_ input: String, to output: FilePath, mask: MaskSource, background picture: String,
                              overwrite: Bool = false,
                              onProgress: @escaping @Sendable (JobProgress) throws(ReplayError) -> Void = { _ in })
        async throws(ReplayError) -> RenderReport {
        var options = RenderOptions(input: input, output: output)
        options.overwrite = overwrite
        options.background = BackgroundSettings(mask: mask, background: .image(path: picture))
        try options.background?.validate()
        return try await Renderer(options: options).run(onProgress: onProgress)
    }
}

/// A camera pose and the time of the frame it belongs to.
public struct TimedPose: Sendable, Equatable {
    /// Seconds since the recording's first frame (presentation order).
    public var time: Double
    /// The pose the frame's SEI carries.
    public var pose: Pose32

    /// `pose` at `time` seconds.
    public init(time: Double, pose: Pose32) {
        self.time = time
        self.pose = pose
    }
}

extension PoseSEI {
    /// The poses `recording`'s H.264/HEVC video carries in its SEI (formats.md §4), one per frame
    /// that has one, in presentation order; nothing is decoded.
    /// - Parameters:
    ///   - recording: the video (MP4, MOV, MKV or a raw H.264/HEVC stream): a local path or a URL that ``InputPolicy`` allows.
    ///   - uuid: the SEI's UUID when it is not the default.
    /// - Throws: ``ReplayError`` (bad input) for another codec or a malformed SEI.
    public static func poses(in recording: String, uuid: String? = nil) throws(ReplayError) -> [TimedPose] {
        let sei = try uuid.map(PoseSEI.init(uuid:)) ?? PoseSEI()
        let scan = try VideoPacketScan(path: recording, sei: sei)
        return zip(scan.frames, scan.seiPoses).compactMap { frame, pose in pose.map { TimedPose(time: frame.time, pose: $0) } }
    }
}

extension PoseSidecar {
    /// Writes the poses `recording`'s SEI carries to the sidecar `output` (complete or not at all; its
    /// extension picks the format), keyed by frame time: `fxreplay poses extract`. Returns how many
    /// poses it wrote, from how many frames. `recording` is a local path or a URL that ``InputPolicy`` allows.
    /// - Parameter sei: the pose SEI to read, when not the default UUID's.
    /// - Throws: ``ReplayError`` (bad input) when no frame has a pose, or when a frame lacks one and
    ///   the format is `.pose32` (one record per frame, no times: a gap would shift every later pose).
    public static func extract(from recording: String, to output: FilePath, sei: PoseSEI = PoseSEI()) throws(ReplayError) -> (poses: Int, frames: Int) {
        let format = try PoseSidecarFormat(path: output)
        let scan = try VideoPacketScan(path: recording, sei: sei)
        let samples = scan.seiSamples
        guard !samples.isEmpty else { throw ReplayError.badInput("\(recording): no pose SEI found in the video") }
        if format == .pose32, let gap = scan.seiPoses.firstIndex(where: { $0 == nil }) {
            throw ReplayError.badInput("\(recording): frame \(gap) has no pose SEI, and .pose32 needs one record per frame; "
                                       + "write .jsonl or .csv instead")
        }
        let bytes: [UInt8]
        do throws(ReplayError) { bytes = try encode(samples, format: format) } catch {
            throw ReplayError(error.kind, "\(recording) → \(output): \(error.message)", options: error.options)
        }
        try AtomicOutput.write(Data(bytes), to: output, inputs: [recording])
        return (samples.count, scan.frames.count)
    }
}

/// Where each annotation lands on every frame of a recording: the result of
/// ``PlacementTrack/track(of:poses:scene:)``.
public struct RecordingTrack: Sendable {
    /// One row per frame and annotation (``PlacementTrack/text(_:format:)`` writes them as `fxreplay track` does).
    public var rows: [PlacementRow]
    /// Frames in the recording.
    public var frameCount: Int
    /// The annotation scene read.
    public var scene: AnnotationScene
    /// How the poses met the frames.
    public var poseMatching: PoseMatchReport
    /// Why the poses may be the wrong ones (most samples missed their frames: the wrong pose time?), if so.
    public var poseWarning: String?
    /// The first frame's presentation time in seconds (rows' `t` count from it).
    public var firstFrameTime: Double
}

extension PlacementTrack {
    /// Where each annotation of `scene` lands on every frame of `recording`, with the camera poses
    /// `poses` gives: what `fxreplay track` writes. Only packets are read, nothing is decoded.
    /// `recording` is a local path or a URL that ``InputPolicy`` allows.
    public static func track(of recording: String, poses: PoseSettings, scene: FilePath) throws(ReplayError) -> RecordingTrack {
        let annotations = try AnnotationScene.load(path: scene)
        let scan = try poses.scan(recording)
        let timeline = try poses.timeline(for: scan, input: recording)
        let frames = zip(scan.frames, timeline.poses).map { timing, pose in
            TrackFrame(time: timing.time, width: scan.width, height: scan.height, pose: pose)
        }
        let rows = try rows(frames: frames, scene: annotations, sceneFile: scene, sceneTimeOrigin: poses.sceneTimeOrigin(for: scan, scene: annotations, file: scene.string))
        return RecordingTrack(rows: rows, frameCount: frames.count, scene: annotations,
                              poseMatching: timeline.report, poseWarning: timeline.warning, firstFrameTime: scan.firstFrameTime)
    }
}
