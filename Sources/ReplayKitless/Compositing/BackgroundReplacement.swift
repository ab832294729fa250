import CFFmpeg

/// Background replacement (formats.md §5) as a pipeline step: each frame's mask is read and
/// shaped, then the frame is blended with its background in planar Y'CbCr, or the mask becomes the
/// frame's alpha (`transparent`), or, with no background, the frame is left alone. Frames keep their
/// timing; only pixels change. Later effects (annotations drawn behind the person) see the shaped
/// mask of the frame (``EffectFrame/mask``, and ``currentMask`` after ``apply(to:at:)``).
///
/// Split for frames in flight (``SplitFrameEffect``): reading and smoothing the masks (and
/// advancing a background video) happen in order into the frame's slot; shaping the mask and
/// blending run per frame, on the lane's own shaper, blender and blur.
final class BackgroundReplacement: SplitFrameEffect, FrameMaskProvider, CountedEffect {
    let name = "background"
    private let settings: BackgroundSettings
    private let masks: MaskReader?
    private let output: Output
    private let smoother: MaskSmoother?
    private let operations: [MaskOperation]
    private var slots: LaneStates<Slot>
    private var lanes: LaneStates<Lane>
    private var bands = 1
    /// The shaped mask of the frame last given to ``apply(to:at:)``; `nil` when it kept its picture.
    private(set) var currentMask: Plane?

    /// A frame's mask, from the in-order step to the end of its per-frame step.
    private final class Slot {
        var maskMemory = ScratchBuffer<UInt8>()
        /// The mask source had none for the frame (`keep-original`): the frame stays as it is.
        var keepsOriginal = false
    }

    /// One thread's scratch and counts.
    private final class Lane {
        let shaper = MaskShaper()
        var blender = MaskBlender()
        var masked = 0
        var replaced = 0
    }

    /// Opens the mask source and the background, so a missing or unreadable file fails here,
    /// before any output is written.
    /// - Throws: `ReplayError.badInput` naming the file; `.usage` for settings out of range.
    init(settings: BackgroundSettings, context: EffectContext) throws(ReplayError) {
        try settings.validate()
        self.settings = settings
        if settings.mask == .inputAlpha {
            guard Self.hasAlpha(context.demuxer.stream(context.videoStream.index)) else {
                throw .badInput("\(context.options.input): `BackgroundSettings.mask` alpha: the video has no alpha channel", options: ["BackgroundSettings.mask"])
            }
            masks = nil
        } else {
            masks = try MaskReader(source: settings.mask, policy: settings.missingMask, mirror: context.options.mirror)
        }
        let size = context.outputSize, space = context.colorSpace
        switch settings.background {
        case nil:
            output = .none
        case .transparent:
            output = .alpha
        case .color(let color)?:
            output = .blend(StillLayer(color: space.yuv(red: color.red, green: color.green, blue: color.blue),
                                       width: size.width, height: size.height, colorSpace: space))
        case .blur(let sigma)?:
            output = .blend(BlurLayer(sigma: sigma, mode: settings.blurMode ?? .plain))
        case .image(let path)?:
            let fitter = try PictureFitter(width: size.width, height: size.height, colorSpace: space,
                                           fit: settings.fit, barColor: settings.letterboxColor)
            let reader = try VideoFrameReader(url: path)
            guard let picture = try reader.next() else { throw .badInput("\(path): no picture could be decoded") }
            let orientation = picture.displayOrientation(in: reader.stream)
            output = .blend(StillLayer(image: try fitter.fit(picture, rotation: orientation.rotation, mirrored: orientation.mirrored,
                                                             source: path), keeping: fitter))
        case .video(let path)?:
            output = .blend(VideoLayer(frames: try TimedFrames(url: path),
                                       fitter: try PictureFitter(width: size.width, height: size.height, colorSpace: space,
                                                                 fit: settings.fit, barColor: settings.letterboxColor)))
        }
        smoother = settings.smoothFrames > 1 ? try? MaskSmoother(frames: settings.smoothFrames) : nil
        operations = settings.maskOperations
        slots = LaneStates { Slot() }
        lanes = LaneStates { Lane() }
    }

    func reserve(slots slotCount: Int, lanes laneCount: Int, bands: Int) throws(ReplayError) {
        try slots.reserve(slotCount)
        try lanes.reserve(laneCount)
        self.bands = bands
        for lane in lanes.states { lane.blender = MaskBlender(workers: bands) }
        masks?.workers = bands
        if case .blend(let layer) = output { try layer.reserve(slots: slotCount, lanes: laneCount, bands: bands) }
    }

    /// The input's own alpha smoothed over time is only known in the per-frame step, so that one
    /// cannot run on several frames at once.
    var processesFramesAtOnce: Bool { masks != nil || smoother == nil }

    func apply(to image: YUVImage, at time: FrameTime) throws(ReplayError) {
        let frame = EffectFrame(slot: 0, time: time, size: PictureSize(width: image.width, height: image.height))
        try sequence(frame)
        try process(image, frame, lane: 0)
        currentMask = frame.mask
    }

    func sequence(_ frame: EffectFrame) throws(ReplayError) {
        let slot = slots[frame.slot]
        slot.keepsOriginal = false
        frame.mask = nil
        if let masks {
            let mask = slot.maskMemory.plane(width: frame.size.width, height: frame.size.height)
            guard try masks.mask(for: frame.time, into: mask) else {
                slot.keepsOriginal = true
                return
            }
            smoother?.smooth(mask)
            frame.mask = mask
        }
        if case .blend(let layer) = output { try layer.sequence(slot: frame.slot, at: frame.time) }
    }

    func process(_ image: YUVImage, _ frame: EffectFrame, lane laneIndex: Int) throws(ReplayError) {
        let slot = slots[frame.slot], lane = lanes[laneIndex]
        if slot.keepsOriginal {
            image.alpha?.fill(255)  // keep-original: the whole frame stays, opaque
            return
        }
        let mask: Plane
        if let read = frame.mask {
            mask = read
        } else {
            guard let alpha = image.alpha else { throw .processing("frame \(frame.time.index): the picture lost its alpha plane") }
            mask = slot.maskMemory.plane(width: image.width, height: image.height)
            mask.copy(from: alpha)
            // (Only without smoothing, which needs the frames in order: see `processesFramesAtOnce`.)
            smoother?.smooth(mask)
        }
        lane.shaper.apply(operations, to: mask)
        frame.mask = mask
        lane.masked += 1
        switch output {
        case .blend(let layer):
            lane.blender.blend(image, with: try layer.picture(behind: image, mask: mask, slot: frame.slot, lane: laneIndex), mask: mask)
        case .alpha: lane.blender.applyAlpha(mask, to: image, premultiplied: settings.premultiply)
        case .none: return
        }
        // A mask that is all person changes nothing.
        if mask.hasSample(below: 255) { lane.replaced += 1 }
    }

    /// What the mask does to the frame.
    private enum Output {
        /// Shows this background where the mask is low.
        case blend(any BackgroundLayer)
        /// Becomes the frame's alpha.
        case alpha
        /// Nothing: only later effects use it.
        case none
    }

    /// Why the mask video looks cut short (it ran out well before the end its file declares).
    var maskCutShort: String? { masks?.cutShort }

    func count(into counts: inout EffectCounts) {
        var loops: Int?
        if case .blend(let layer) = output, let video = layer as? VideoLayer { loops = video.loops }
        counts.background = BackgroundCounts(framesMasked: lanes.states.reduce(0) { $0 + $1.masked },
                                             framesReplaced: lanes.states.reduce(0) { $0 + $1.replaced }, masksHeld: masks?.held ?? 0,
                                             framesKeptOriginal: masks?.kept ?? 0, maskDecodeErrors: masks?.decodeErrors ?? 0,
                                             backgroundLoops: loops)
    }

    /// Whether the stream's pictures carry alpha: an alpha pixel format, or VP9 with alpha in
    /// Matroska side data (`alpha_mode`).
    static func hasAlpha(_ stream: UnsafeMutablePointer<AVStream>) -> Bool {
        let format = AVPixelFormat(rawValue: stream.pointee.codecpar.pointee.format)
        if let descriptor = av_pix_fmt_desc_get(format), descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 {
            return true
        }
        return Decoder.alphaDecoder(for: stream) != nil
    }
}

/// The pixels shown where a frame's mask is low.
protocol BackgroundLayer: AnyObject {
    /// Makes room for `slots` frames in flight and `lanes` threads, each cutting a frame into up to
    /// `bands` row bands (see ``SplitFrameEffect``).
    func reserve(slots: Int, lanes: Int, bands: Int) throws(ReplayError)
    /// The in-order step for the frame shown at `time`, using slot `slot`.
    func sequence(slot: Int, at time: FrameTime) throws(ReplayError)
    /// The background for `frame` (same size and layout), valid until the slot or lane is used
    /// again; `mask` is the frame's shaped mask.
    func picture(behind frame: YUVImage, mask: Plane, slot: Int, lane: Int) throws(ReplayError) -> YUVImage
}

extension BackgroundLayer {
    func reserve(slots: Int, lanes: Int, bands: Int) throws(ReplayError) {}
    func sequence(slot: Int, at time: FrameTime) throws(ReplayError) {}
}

/// A background made once: a picture or a solid colour.
private final class StillLayer: BackgroundLayer {
    private let image: YUVImage
    /// Whatever owns the image's memory.
    private let owner: AnyObject

    init(image: YUVImage, keeping owner: AnyObject) {
        self.image = image
        self.owner = owner
    }

    convenience init(color: YUVColor, width: Int, height: Int, colorSpace: ColorSpace) {
        let buffer = PlanarBuffer(width: width, height: height, colorSpace: colorSpace)
        buffer.image.fill(color)
        self.init(image: buffer.image, keeping: buffer)
    }

    func picture(behind frame: YUVImage, mask: Plane, slot: Int, lane: Int) throws(ReplayError) -> YUVImage { image }
}

/// The frame itself, Gaussian-blurred (with the person left out in ``BlurMode/masked``); each lane
/// blurs into its own buffer.
private final class BlurLayer: BackgroundLayer {
    private let sigma: Double
    private let mode: BlurMode
    private var lanes: LaneStates<BlurLane>

    private final class BlurLane {
        let blur: GaussianBlur
        let masked: MaskedBlur?
        var buffer: PlanarBuffer?

        init(mode: BlurMode, bands: Int) {
            blur = GaussianBlur(workers: bands)
            masked = mode == .masked ? MaskedBlur(blur: blur) : nil
        }
    }

    init(sigma: Double, mode: BlurMode) {
        self.sigma = sigma
        self.mode = mode
        lanes = LaneStates { BlurLane(mode: mode, bands: 1) }
    }

    func reserve(slots: Int, lanes count: Int, bands: Int) throws(ReplayError) {
        if bands != lanes[0].blur.workers {
            let mode = self.mode
            lanes = LaneStates { BlurLane(mode: mode, bands: bands) }
        }
        try lanes.reserve(count)
    }

    func picture(behind frame: YUVImage, mask: Plane, slot: Int, lane index: Int) throws(ReplayError) -> YUVImage {
        let lane = lanes[index]
        if lane.buffer.map({ !$0.image.luma.hasSameSize(as: frame.luma) || $0.image.subsampling != frame.subsampling }) ?? true {
            lane.buffer = PlanarBuffer(width: frame.width, height: frame.height, subsampling: frame.subsampling,
                                       colorSpace: frame.colorSpace)
        }
        let image = lane.buffer!.image
        if let masked = lane.masked {
            masked.blur(frame, mask: mask, into: image, sigma: sigma)
        } else {
            lane.blur.blur(frame, into: image, sigma: sigma)
        }
        return image
    }
}

/// A video, looped, each picture shown at its own time (paired like masks, see ``MaskReader``).
/// Pictures are read and fitted in order; with several frames in flight each slot keeps a copy
/// of its frame's picture, made only when the picture changed since the slot's last frame.
final class VideoLayer: BackgroundLayer {
    private let frames: TimedFrames
    private let fitter: PictureFitter
    private var fitted: YUVImage?
    /// Counts the pictures fitted, so a slot knows whether its copy is still the current picture.
    private var fittedNumber = 0
    /// Seconds of the render at which the current pass of the video started.
    private var passStart = 0.0
    /// Times the video started again from its beginning.
    private(set) var loops = 0
    /// Per slot, its copy of the picture and which one it is: boxes made in `reserve`, so the
    /// in-order step fills one slot's box while lanes read other slots' (never the array itself).
    private var copies = LaneStates { SlotCopy() }

    private final class SlotCopy {
        var buffer: PlanarBuffer?
        var number = 0
    }

    init(frames: TimedFrames, fitter: PictureFitter) {
        self.frames = frames
        self.fitter = fitter
    }

    func reserve(slots: Int, lanes: Int, bands: Int) throws(ReplayError) {
        try copies.reserve(slots)
    }

    func sequence(slot: Int, at time: FrameTime) throws(ReplayError) {
        var changed = false
        if !frames.isStill {
            let point = frames.pairingTime(for: time)
            while fitted != nil && frames.isExhausted && frames.currentEnd > 0 && point - passStart >= frames.currentEnd {
                passStart += frames.currentEnd
                loops += 1
                try frames.rewind()
            }
            changed = try frames.advance(to: point - passStart)
        }
        if fitted == nil || changed {
            let orientation = frames.orientation
            fitted = try fitter.fit(frames.current, rotation: orientation.rotation, mirrored: orientation.mirrored, source: frames.url)
            fittedNumber += 1
        }
        // One slot: the fitted picture itself stays valid until this slot's next frame.
        guard copies.states.count > 1, let fitted, copies[slot].number != fittedNumber else { return }
        let copy = copies[slot]
        let buffer = copy.buffer ?? PlanarBuffer(width: fitted.width, height: fitted.height, subsampling: fitted.subsampling,
                                                 colorSpace: fitted.colorSpace)
        buffer.image.copy(from: fitted)
        copy.buffer = buffer
        copy.number = fittedNumber
    }

    func picture(behind frame: YUVImage, mask: Plane, slot: Int, lane: Int) throws(ReplayError) -> YUVImage {
        if copies.states.count > 1, let buffer = copies[slot].buffer { return buffer.image }
        guard let fitted else { throw .processing("\(frames.url): no background picture read (internal error)") }
        return fitted
    }
}
