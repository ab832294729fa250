import CFFmpeg

/// The one way a decoded picture is made ready for its use: `render`'s output frame, a call
/// stream's picture for its ordered effects (background replacement), a call tile's picture on
/// the canvas. The steps, each skipped when it would change nothing:
///
/// 1. crop (optional) and scale to the size that, turned, is the target size, in the working
///    pixel format and colour range (libswscale);
/// 2. turn it as shown and mirror it (``PictureOrientation``);
/// 3. copy it if it is still the caller's picture and effects are to draw on it (a decoder may
///    still read its picture as a reference);
/// 4. the effects, on the picture in display orientation at the target size;
/// 5. turn it back (a kept rotation);
/// 6. convert it to the consumer's pixel format and range (the encoder's).
///
/// Buffers come from the preparation's pool and go back to it when their frames are recycled, so
/// a run of frames of one geometry reuses the same memory. Use one per thread.
final class FramePreparation {
    /// A picture format between steps: its pixel layout and the colour space its samples are read
    /// in (the source's when `nil`). Only the range is converted: libswscale keeps a Y'CbCr
    /// picture's samples in their matrix, so a picture given another matrix (a call's canvas) is
    /// drawn on in that one, as what it will be shown as.
    struct Format: Equatable {
        var pixelFormat: AVPixelFormat
        var colorSpace: ColorSpace?

        /// The colour space of pictures of this format made from `source`.
        func colorSpace(from source: ColorSpace) -> ColorSpace { colorSpace ?? source }
    }

    /// Where one picture goes: how its stored picture is shown, the size it is shown at, the part
    /// of the stored picture used, and how it is turned back after the effects.
    struct Geometry: Equatable {
        /// How the stored picture is turned (and mirrored) to be shown.
        var orientation: PictureOrientation
        /// The shown picture's size: what the effects see.
        var size: PictureSize
        /// The part of the stored picture used (stored pixels); the whole when `nil`.
        var crop: PixelRect?
        /// How the shown picture is turned back after the effects (a kept rotation).
        var turnBack: PictureOrientation?

        /// The size the stored picture is scaled to before it is turned.
        var unturned: PictureSize { orientation.turned(size) }
    }

    let working: Format
    /// The consumer's format, when it differs from the working one.
    let output: Format?
    private let buffers: FramePool
    private let scaler: Scaler
    private let outputScaler = Scaler()
    /// A view of the cropped part of the picture, while it is scaled.
    private let cropView: Frame

    /// - Parameters:
    ///   - scalerFlags: libswscale's filter for the scale step (the encoder conversion always uses
    ///     the accurate default).
    ///   - buffers: where its frames come from; preparations running side by side share one, so
    ///     that the buffers kept number the frames in flight, not that times the lanes.
    init(working: Format, output: Format? = nil, scalerFlags: Int32 = SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT,
         buffers: FramePool = FramePool(keepsBuffers: true)) throws(ReplayError) {
        self.working = working
        self.output = output
        self.buffers = buffers
        scaler = Scaler(flags: scalerFlags)
        cropView = try Frame()
    }

    /// `frame` prepared as `geometry` says, with `effects` drawn on it in display orientation (in
    /// the working colour space) when `drawsEffects`. (A closure that is not optional does not escape:
    /// no context is allocated for it per frame.) Returns `frame` itself when no step makes a new picture
    /// (effects are drawn on its own when `releasesSource` and nobody else holds its picture); otherwise a
    /// frame of this preparation's pool with `frame`'s timing and properties. `frame` stays the caller's.
    /// - Parameters:
    ///   - colorSpace: the colour space of `frame`'s samples.
    ///   - releasesSource: drops `frame`'s picture (the caller keeps the frame, empty, to recycle)
    ///     once a picture of the pool's own is made from it, before the effects: a decoder's buffer
    ///     is then not held while a frame is drawn on.
    ///   - source: names the picture in messages (built only when something fails).
    func prepare(_ frame: Frame, _ geometry: Geometry, colorSpace source: ColorSpace, releasesSource: Bool = false,
                 drawsEffects: Bool = false, effects: (YUVImage) throws(ReplayError) -> Void = { _ in },
                 source name: @autoclosure () -> String) throws(ReplayError) -> Frame {
        let workingSpace = working.colorSpace(from: source)
        var current = frame
        /// Moves on to `next` (a picture made from `current`), releasing `current` unless it is the caller's.
        func replace(with next: Frame) {
            next.copyProperties(from: current)
            next.duration = current.duration
            next.pts = current.pts
            if current !== frame { current.recycle() } else if releasesSource { frame.unref() }
            current = next
        }
        func take(_ size: PictureSize, _ format: AVPixelFormat) throws -> Frame {
            try buffers.take(width: size.width, height: size.height, format: format)
        }
        func turn(_ orientation: PictureOrientation) throws {
            guard !orientation.isUpright else { return }
            let size = PictureSize(width: current.width, height: current.height)
            let turned = try take(orientation.turned(size), working.pixelFormat)
            orientation.show(current.yuvImage!, into: turned.yuvImage!)
            replace(with: turned)
            // Its pixels' shape turns with it.
            let sar = current.pointer.pointee.sample_aspect_ratio
            if orientation.swapsSides { current.pointer.pointee.sample_aspect_ratio = AVRational(num: sar.den, den: sar.num) }
        }
        do {
            let unturned = geometry.unturned
            if geometry.crop != nil || current.width != unturned.width || current.height != unturned.height
                || current.pixelFormat != working.pixelFormat || workingSpace.fullRange != source.fullRange {
                let scaled = try take(unturned, working.pixelFormat)
                defer { av_frame_unref(cropView.pointer) }
                if let crop = geometry.crop { try cropView.reference(frame, croppedTo: crop) }
                try Self.convert(geometry.crop == nil ? frame : cropView, into: scaled, from: source, toFullRange: workingSpace.fullRange, with: scaler)
                replace(with: scaled)
                if workingSpace.fullRange != source.fullRange {
                    current.pointer.pointee.color_range = workingSpace.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
                }
            }
            try turn(geometry.orientation)
            if drawsEffects {
                // A decoder keeps the pictures later ones are predicted from: drawn on a copy. One it
                // has let go of (no other reference), the caller's to drop, is drawn on as it is.
                if current === frame, !(releasesSource && frame.isWritable) {
                    let copy = try take(geometry.size, working.pixelFormat)
                    try ffmpeg("av_frame_copy", av_frame_copy(copy.pointer, current.pointer))
                    replace(with: copy)
                }
                guard var image = current.yuvImage else { throw ReplayError.processing("unexpected pixel format in the pipeline") }
                image.colorSpace = workingSpace
                try effects(image)
            }
            if let turnBack = geometry.turnBack { try turn(turnBack) }
            if let output, case let fullRange = output.colorSpace(from: source).fullRange,
               output.pixelFormat != working.pixelFormat || fullRange != workingSpace.fullRange {
                let converted = try take(PictureSize(width: current.width, height: current.height), output.pixelFormat)
                try Self.convert(current, into: converted, from: workingSpace, toFullRange: fullRange, with: outputScaler)
                replace(with: converted)
            }
        } catch {
            if current !== frame { current.recycle() }
            throw error as? ReplayError ?? .processing("\(name()): \(error)")
        }
        return current
    }

    /// Scales and converts `picture` into `destination`, in full or limited range. libswscale reads
    /// a yuv420p picture as limited range and a yuvj420p one as full whatever the frame says: a
    /// full range (or a change of range) is spelled out to it.
    private static func convert(_ picture: Frame, into destination: Frame, from source: ColorSpace, toFullRange fullRange: Bool,
                                with scaler: Scaler) throws(ReplayError) {
        let changes = source.fullRange != fullRange
        try scaler.convert(picture, into: destination, colorSpace: source.fullRange || changes ? source : nil,
                           outputColorSpace: changes ? ColorSpace(matrix: source.matrix, fullRange: fullRange) : nil)
    }
}
