import CFFmpeg

/// Background replacement (formats.md §5) as a pipeline step: each frame's mask is read and
/// shaped, then the frame is blended with its background in planar Y'CbCr, or the mask becomes the
/// frame's alpha (`transparent`), or, with no background, the frame is left alone. Frames keep their
/// timing; only pixels change. Later effects (annotations drawn behind the person) see the shaped
/// mask of the frame as ``currentMask``.
final class BackgroundReplacement: FrameEffect, FrameMaskProvider {
    let name = "background"
    private let settings: BackgroundSettings
    private let masks: MaskReader?
    private let output: Output
    private let smoother: MaskSmoother?
    private let operations: [MaskOperation]
    private let shaper = MaskShaper()
    private let blender = MaskBlender()
    private var maskMemory = ScratchBuffer<UInt8>()
    private var replaced = 0
    private var masked = 0
    /// The shaped mask of the frame being processed; `nil` when the frame kept its picture.
    private(set) var currentMask: Plane?

    /// Opens the mask source and the background, so a missing or unreadable file fails here,
    /// before any output is written.
    /// - Throws: `ReplayError.badInput` naming the file; `.usage` for settings out of range.
    init(settings: BackgroundSettings, context: EffectContext) throws(ReplayError) {
        try settings.validate()
        self.settings = settings
        if settings.mask == .inputAlpha {
            guard Self.hasAlpha(context.demuxer.stream(context.videoStream.index)) else {
                throw .badInput("\(context.options.input): --mask alpha: the video has no alpha channel")
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
    }

    func apply(to image: YUVImage, at time: FrameTime) throws(ReplayError) {
        let mask = maskMemory.plane(width: image.width, height: image.height)
        currentMask = nil
        if let masks {
            guard try masks.mask(for: time, into: mask) else {
                image.alpha?.fill(255)  // keep-original: the whole frame stays, opaque
                return
            }
        } else {
            guard let alpha = image.alpha else { throw .processing("frame \(time.index): the picture lost its alpha plane") }
            mask.copy(from: alpha)
        }
        smoother?.smooth(mask)
        shaper.apply(operations, to: mask)
        currentMask = mask
        masked += 1
        switch output {
        case .blend(let layer): blender.blend(image, with: try layer.picture(behind: image, mask: mask, at: time), mask: mask)
        case .alpha: blender.applyAlpha(mask, to: image, premultiplied: settings.premultiply)
        case .none: return
        }
        // A mask that is all person changes nothing.
        if mask.hasSample(below: 255) { replaced += 1 }
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

    func reportLines() -> [String: Int] {
        var lines = ["framesMasked": masked, "framesReplaced": replaced, "masksHeld": masks?.held ?? 0,
                     "framesKeptOriginal": masks?.kept ?? 0, "maskDecodeErrors": masks?.decodeErrors ?? 0]
        if case .blend(let layer) = output, let video = layer as? VideoLayer { lines["backgroundLoops"] = video.loops }
        return lines
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
    /// The background for `frame` (same size and layout), valid until the next call; `mask` is the
    /// frame's shaped mask.
    func picture(behind frame: YUVImage, mask: Plane, at time: FrameTime) throws(ReplayError) -> YUVImage
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

    func picture(behind frame: YUVImage, mask: Plane, at time: FrameTime) throws(ReplayError) -> YUVImage { image }
}

/// The frame itself, Gaussian-blurred (with the person left out in ``BlurMode/masked``).
private final class BlurLayer: BackgroundLayer {
    private let sigma: Double
    private let blur = GaussianBlur()
    private let masked: MaskedBlur?
    private var buffer: PlanarBuffer?

    init(sigma: Double, mode: BlurMode) {
        self.sigma = sigma
        masked = mode == .masked ? MaskedBlur(blur: blur) : nil
    }

    func picture(behind frame: YUVImage, mask: Plane, at time: FrameTime) throws(ReplayError) -> YUVImage {
        if buffer.map({ !$0.image.luma.hasSameSize(as: frame.luma) || $0.image.subsampling != frame.subsampling }) ?? true {
            buffer = PlanarBuffer(width: frame.width, height: frame.height, subsampling: frame.subsampling,
                                  colorSpace: frame.colorSpace)
        }
        let image = buffer!.image
        if let masked {
            masked.blur(frame, mask: mask, into: image, sigma: sigma)
        } else {
            blur.blur(frame, into: image, sigma: sigma)
        }
        return image
    }
}

/// A video, looped, each picture shown at its own time (paired like masks, see ``MaskReader``).
final class VideoLayer: BackgroundLayer {
    private let frames: TimedFrames
    private let fitter: PictureFitter
    private var fitted: YUVImage?
    /// Seconds of the render at which the current pass of the video started.
    private var passStart = 0.0
    /// Times the video started again from its beginning.
    private(set) var loops = 0

    init(frames: TimedFrames, fitter: PictureFitter) {
        self.frames = frames
        self.fitter = fitter
    }

    func picture(behind frame: YUVImage, mask: Plane, at time: FrameTime) throws(ReplayError) -> YUVImage {
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
        if let fitted, !changed { return fitted }
        let orientation = frames.orientation
        let image = try fitter.fit(frames.current, rotation: orientation.rotation, mirrored: orientation.mirrored, source: frames.url)
        fitted = image
        return image
    }
}
