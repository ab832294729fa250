import CFFmpeg

/// A call stream's own effects (a job's `streams:` entry: poses, annotations, mask, background,
/// mirror, …), built with the same ``makeEffects(for:)`` as `render` and applied on the track's
/// decoding thread to each picture at the stream's own size, before the picture is placed.
///
/// The effects see the picture as `render` gives it to them: turned upright by the stream's
/// display matrix (masks, backgrounds and the contract's pixel coordinates are in display
/// orientation), then mirrored when asked. Afterwards it is turned back to the stream's stored
/// orientation, so every picture of a call reaches its tile stored alike, and the tile turns it.
final class TrackEffects {
    private let effects: [any FrameEffect]
    /// The size effects see: display orientation.
    private let size: PictureSize
    private let colorSpace: ColorSpace
    /// How the stream's pictures are shown, and how a decoded picture is turned for the effects
    /// (the same, mirrored once more with `mirror`).
    private let shown: PictureOrientation
    private let upright: PictureOrientation
    private let buffers = FramePool(keepsBuffers: true)
    private let scaler = Scaler()
    private let format: AVPixelFormat

    init(options: RenderOptions, demuxer: Demuxer, video: StreamInfo) throws(ReplayError) {
        guard video.width > 0, video.height > 0 else { throw .badInput("\(options.input): video stream has no picture size") }
        shown = PictureOrientation(rotation: video.rotation, mirrored: video.mirrored)
        upright = shown.mirrored(options.mirror)
        // Effects see the picture as the stream first shows it; a later resolution change is scaled to that.
        let requested = options.size ?? shown.turned(PictureSize(width: video.width, height: video.height))
        size = PictureSize(width: max(2, requested.width & ~1), height: max(2, requested.height & ~1))
        format = options.background?.needsAlphaPlane == true ? AV_PIX_FMT_YUVA420P : AV_PIX_FMT_YUV420P
        let stream = demuxer.stream(video.index)
        colorSpace = ColorSpace(codecParameters: stream.pointee.codecpar.pointee, height: size.height)
        let poses = try options.poses.map { (settings: PoseSettings) throws(ReplayError) in try FramePoses(settings: settings, input: options.input) }
        let context = EffectContext(options: options, demuxer: demuxer, videoStream: video, outputSize: size,
                                    colorSpace: colorSpace, poses: poses)
        effects = try makeEffects(for: context)
    }

    /// `frame` with the effects applied, in a buffer of its own (the decoder may still read the
    /// decoded picture as a reference), in the stream's stored orientation; `frame` is recycled.
    func apply(to frame: Frame, at time: FrameTime, source: String) throws(ReplayError) -> Frame {
        defer { frame.recycle() }
        let stored = shown.turned(size)
        var working: Frame?
        /// Moves the picture into a new buffer of `size`, filled by `fill` from the current one.
        func step(to size: PictureSize, _ fill: (Frame, Frame) throws -> Void) throws {
            let next = try buffers.take(width: size.width, height: size.height, format: format)
            let current = working ?? frame
            next.copyProperties(from: current)
            next.pts = current.pts
            do { try fill(current, next) } catch {
                next.recycle()
                throw error
            }
            working?.recycle()
            working = next
        }
        do {
            try step(to: stored) { try scaler.convert($0, into: $1, colorSpace: colorSpace.fullRange ? colorSpace : nil) }
            if !upright.isUpright { try step(to: size) { upright.show($0.yuvImage!, into: $1.yuvImage!) } }
            guard var image = working?.yuvImage else { throw ReplayError.processing("unexpected pixel format") }
            image.colorSpace = colorSpace
            for effect in effects { try effect.apply(to: image, at: time) }
            if !shown.isUpright { try step(to: stored) { shown.inverse.show($0.yuvImage!, into: $1.yuvImage!) } }
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
