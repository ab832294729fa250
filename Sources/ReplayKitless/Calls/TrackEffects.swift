import CFFmpeg

/// A call stream's own effects (a job's `streams:` entry: poses, annotations, mask, background,
/// mirror, …), built with the same ``makeEffects(for:)`` as `render` and applied on the track's
/// decoding thread to each picture at the stream's own size, before the picture is placed.
final class TrackEffects {
    private let effects: [any FrameEffect]
    private let size: PictureSize
    private let colorSpace: ColorSpace
    private let mirror: Bool
    private let buffers = FramePool(keepsBuffers: true)
    private let scaler = Scaler()
    private let format: AVPixelFormat

    init(options: RenderOptions, demuxer: Demuxer, video: StreamInfo) throws(ReplayError) {
        guard video.width > 0, video.height > 0 else { throw .badInput("\(options.input): video stream has no picture size") }
        // Effects see the picture as the stream first shows it; a later resolution change is scaled to that.
        let requested = options.size ?? PictureSize(width: video.width, height: video.height)
        size = PictureSize(width: max(2, requested.width & ~1), height: max(2, requested.height & ~1))
        mirror = options.mirror
        format = options.background?.needsAlphaPlane == true ? AV_PIX_FMT_YUVA420P : AV_PIX_FMT_YUV420P
        let stream = demuxer.stream(video.index)
        colorSpace = ColorSpace(codecParameters: stream.pointee.codecpar.pointee, height: size.height)
        let poses = try options.poses.map { (settings: PoseSettings) throws(ReplayError) in try FramePoses(settings: settings, input: options.input) }
        let context = EffectContext(options: options, demuxer: demuxer, videoStream: video, outputSize: size,
                                    colorSpace: colorSpace, poses: poses)
        effects = try makeEffects(for: context)
    }

    /// `frame` with the effects applied, in a buffer of its own (the decoder may still read the
    /// decoded picture as a reference); `frame` is recycled.
    func apply(to frame: Frame, at time: FrameTime, source: String) throws(ReplayError) -> Frame {
        defer { frame.recycle() }
        var working: Frame?
        do {
            let scaled = try buffers.take(width: size.width, height: size.height, format: format)
            working = scaled
            scaled.copyProperties(from: frame)
            scaled.pts = frame.pts
            try scaler.convert(frame, into: scaled, colorSpace: colorSpace.fullRange ? colorSpace : nil)
            if mirror {
                let mirrored = try buffers.take(width: size.width, height: size.height, format: format)
                mirrored.copyProperties(from: scaled)
                mirrored.pts = scaled.pts
                working = mirrored
                reorient(scaled.yuvImage!, into: mirrored.yuvImage!, quarterTurns: 0, mirror: true)
                scaled.recycle()
            }
            guard var image = working?.yuvImage else { throw ReplayError.processing("unexpected pixel format") }
            image.colorSpace = colorSpace
            for effect in effects { try effect.apply(to: image, at: time) }
        } catch {
            working?.recycle()
            throw error as? ReplayError ?? .processing("\(source): frame \(time.index): \(error)")
        }
        return working!
    }

    /// Counters for the report, per effect.
    func reportLines() -> [String: [String: Int]] {
        Dictionary(effects.map { ($0.name, $0.reportLines()) }, uniquingKeysWith: { first, _ in first })
    }
}
