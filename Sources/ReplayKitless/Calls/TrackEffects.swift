import CFFmpeg

/// A call stream's own effects (a job's `streams:` entry: poses, annotations, mask, background,
/// mirror, …), built with the same ``makeEffects(for:)`` as `render` and split by where they run:
///
/// - the ones that depend on the frames before (background replacement: the mask video, smoothing
///   over time) run on the track's decoding thread on every picture in turn, at the stream's own
///   size, on the picture as `render` gives it to them: turned upright by the stream's display
///   matrix (masks, backgrounds and the contract's pixel coordinates are in display orientation),
///   then mirrored when asked (``FramePreparation``). The picture stays so: upright;
/// - the ones that only draw (annotations and their labels, ``DrawingEffect``) run on the
///   composing thread, on the tile's picture once it is scaled to its size on the canvas
///   (``TilePainter``), so they are as sharp in a call as in a single render. What they need of
///   the picture (its ``FrameTime``, its mask) travels with it in its ``CallFrame``.
final class TrackEffects {
    /// The effects run on the decoding thread.
    private let ordered: [any FrameEffect]
    /// The effects drawn on the tile's picture, on the composing thread.
    let drawing: [any DrawingEffect]
    /// The size the ordered effects see: display orientation.
    private let size: PictureSize
    private let colorSpace: ColorSpace
    /// How a decoded picture is turned for the effects: as the stream shows it, mirrored once more with `mirror`.
    private let upright: PictureOrientation
    private let preparation: FramePreparation?
    /// The mask the ordered effects leave for each picture, and where copies of it are kept for
    /// the drawing effects (occlusion), when those need it.
    private let masks: (provider: FrameMaskProvider, kept: FramePool)?

    init(options: RenderOptions, demuxer: Demuxer, video: StreamInfo) throws(ReplayError) {
        guard video.width > 0, video.height > 0 else { throw .badInput("\(options.input): video stream has no picture size") }
        upright = PictureOrientation(rotation: video.rotation, mirrored: video.mirrored).mirrored(options.mirror)
        // Effects see the picture as the stream first shows it; a later resolution change is scaled to that.
        let requested = options.size ?? upright.turned(PictureSize(width: video.width, height: video.height))
        size = PictureSize(width: max(2, requested.width & ~1), height: max(2, requested.height & ~1))
        let stream = demuxer.stream(video.index)
        colorSpace = ColorSpace(codecParameters: stream.pointee.codecpar.pointee, height: size.height)
        let poses = try options.poses.map { (settings: PoseSettings) throws(ReplayError) in try FramePoses(settings: settings, input: options.input) }
        let context = EffectContext(options: options, demuxer: demuxer, videoStream: video, outputSize: size,
                                    colorSpace: colorSpace, poses: poses)
        let effects = try makeEffects(for: context)
        let drawing = effects.compactMap { $0 as? any DrawingEffect }
        let ordered = effects.filter { !($0 is any DrawingEffect) }
        let format = options.background?.needsAlphaPlane == true ? AV_PIX_FMT_YUVA420P : AV_PIX_FMT_YUV420P
        preparation = ordered.isEmpty ? nil : try FramePreparation(working: .init(pixelFormat: format))
        let provider = ordered.lazy.compactMap { $0 as? FrameMaskProvider }.first
        masks = provider.flatMap { drawing.contains(where: \.needsMask) ? ($0, FramePool(keepsBuffers: true)) : nil }
        self.drawing = drawing
        self.ordered = ordered
    }

    /// How the pictures ``apply(to:at:source:)`` gives are shown: upright after the ordered
    /// effects; as the stream shows them, mirrored with `mirror`, when there are none.
    var orientation: PictureOrientation { preparation == nil ? upright : .upright }

    /// `frame` after the ordered effects, upright at the stream's effect size in a buffer of its own
    /// (`frame` is then recycled), with the mask they used when the drawing effects need it;
    /// `frame` itself when there are no ordered effects.
    func apply(to frame: Frame, at time: FrameTime, source: String) throws(ReplayError) -> (picture: Frame, mask: Frame?) {
        guard let preparation else { return (frame, nil) }
        let prepared = try preparation.prepare(frame, .init(orientation: upright, size: size), colorSpace: colorSpace, drawsEffects: true,
                                               effects: { image throws(ReplayError) in
                                                   for effect in ordered { try effect.apply(to: image, at: time) }
                                               }, source: "\(source): frame \(time.index)")
        if prepared !== frame { frame.recycle() }
        guard let masks, let mask = masks.provider.currentMask else { return (prepared, nil) }
        do {
            let kept = try masks.kept.take(width: mask.width, height: mask.height, format: AV_PIX_FMT_GRAY8)
            kept.plane(0, width: mask.width, height: mask.height)?.copy(from: mask)
            return (prepared, kept)
        } catch {
            prepared.recycle()
            throw .processing("\(source): frame \(time.index): \(error)")
        }
    }

    /// What the effects counted, for the report.
    var counts: EffectCounts { EffectCounts(of: ordered + drawing.map { $0 as any FrameEffect }) }
}
