import CFFmpeg

/// Paints one participant's picture into its tile of the composed picture: the picture keeps its
/// display aspect ratio, contained (centred, the rest background) or covering (centre-cropped),
/// by the same ``BackgroundPlacement`` as a background picture.
///
/// The picture is placed as `render` shows it (formats.md §9): turned upright and mirrored as its
/// ``CallFrame`` says. A ``FramePreparation`` crops and scales it once, straight to its size on
/// the canvas, turns it there (a small picture turned, not the decoded one), and draws the
/// stream's drawing effects (annotations, labels) on it at that final size, in a buffer of its
/// own (libswscale writes rows in whole SIMD blocks, which would spill into a neighbouring tile if
/// it wrote into the canvas); then it is copied into place. A picture that has not changed since
/// the last output frame, in an unchanged tile, is not prepared again; only the part of the tile
/// the picture leaves uncovered (contain's bars) is painted background.
final class TilePainter {
    private let preparation: FramePreparation
    /// The prepared picture, and what it is: the picture (its track and serial) and where it goes.
    private var prepared: (frame: Frame, key: Key)?
    /// What the drawing effects are told with the picture; the picture's mask scaled to the tile.
    private let effectFrame = EffectFrame(slot: 0, time: FrameTime(index: 0, pts: 0, seconds: 0, streamSeconds: 0, duration: 0),
                                          size: PictureSize(width: 2, height: 2))
    private var maskMemory = ScratchBuffer<UInt8>()
    private let maskScaler = BilinearPlaneScaler()

    /// A painter for a canvas whose samples are in `colorSpace` (limited range, as the composed
    /// video is tagged): the tile's picture is converted to its range, and its effects draw in it.
    init(canvas colorSpace: ColorSpace) throws(ReplayError) {
        // (The ffmpeg CLI's filter.)
        preparation = try FramePreparation(working: .init(pixelFormat: AV_PIX_FMT_YUV420P, colorSpace: colorSpace), scalerFlags: SWS_BICUBIC)
    }

    deinit { prepared?.frame.recycle() }

    private struct Key: Equatable {
        var track: ObjectIdentifier
        var serial: Int
        var rect: PixelRect
        var fit: BackgroundFit
    }

    /// Where a `width × height` picture with sample aspect ratio `sar`, shown turned and mirrored by
    /// `orientation`, lands in `tile`: the part of the stored picture used (stored pixels) and the
    /// rectangle the shown picture takes on the canvas, on even pixels for 4:2:0; and which part of
    /// the shown picture (its display size, display orientation) that is.
    static func placement(width: Int, height: Int, sar: AVRational, orientation: PictureOrientation = .upright,
                          tile: PixelRect, fit: BackgroundFit) -> (placement: BackgroundPlacement, window: PictureWindow) {
        let square = sar.num <= 0 || sar.den <= 0 || sar.num == sar.den
        let displayWidth = square ? width : max(1, Int(clamping: Double(width) * Double(sar.num) / Double(sar.den), rounding: .toNearestOrAwayFromZero))
        let unturned = PictureSize(width: displayWidth, height: height)
        let shown = orientation.turned(unturned)
        var placement = BackgroundPlacement(fit: fit, pictureWidth: shown.width, pictureHeight: shown.height,
                                            frameWidth: tile.width, frameHeight: tile.height)
        let window = PictureWindow(whole: shown, shown: placement.source)
        // The part used, back in the stored orientation.
        placement.source = orientation.storedRect(of: placement.source, stored: unturned)
        if !square {
            // Back from display columns to stored ones. (A stream's aspect ratio is any pair of
            // Int32s: the products are clamped, never trapped on.)
            let scale = Double(width) / Double(displayWidth)
            let x = Int(clamping: Double(placement.source.x) * scale, rounding: .toNearestOrAwayFromZero)
            placement.source.x = min(x, width - 1)
            placement.source.width = max(1, min(width - placement.source.x, Int(clamping: Double(placement.source.width) * scale, rounding: .toNearestOrAwayFromZero)))
        }
        // Inward to even edges, so the chroma planes line up.
        let destination = placement.destination
        let left = (tile.x + destination.x + 1) & ~1, top = (tile.y + destination.y + 1) & ~1
        let right = max(left + 2, (tile.x + destination.x + destination.width) & ~1)
        let bottom = max(top + 2, (tile.y + destination.y + destination.height) & ~1)
        placement.destination = PixelRect(x: left, y: top, width: right - left, height: bottom - top)
        return (placement, window)
    }

    /// Paints `picture` (of the track `track`) into `tile` of `canvas` (4:2:0, even-sized): the
    /// picture where it lands with `effects` drawn on it, `background` on the rest of the tile.
    /// Returns the rectangle the picture takes (where its name goes); `nil` when it fits nowhere.
    /// - Parameters:
    ///   - effects: the stream's drawing effects (``TrackEffects/drawing``), used on this thread only.
    ///   - source: names the stream in messages (built only when something fails).
    func paint(_ picture: CallFrame, of track: ObjectIdentifier, in tile: PixelRect, fit: BackgroundFit,
               effects: [any DrawingEffect] = [], onto canvas: YUVImage, background: YUVColor,
               source: @autoclosure () -> String) throws(ReplayError) -> PixelRect? {
        let key = Key(track: track, serial: picture.serial, rect: tile, fit: fit)
        let frame = picture.frame
        let (placement, window) = Self.placement(width: frame.width, height: frame.height, sar: frame.pointer.pointee.sample_aspect_ratio,
                                                 orientation: picture.orientation, tile: tile, fit: fit)
        let target = placement.destination
        guard target.x + target.width <= canvas.width, target.y + target.height <= canvas.height else {
            Self.fill(tile, on: canvas, with: background)
            return nil
        }
        if prepared?.key != key {
            prepared?.frame.recycle()
            prepared = nil
            let size = PictureSize(width: target.width, height: target.height)
            let made = try preparation.prepare(frame, .init(orientation: picture.orientation, size: size, crop: placement.source),
                                               colorSpace: frame.colorSpace, drawsEffects: !effects.isEmpty, effects: { image throws(ReplayError) in
                                                   try draw(effects, on: image, picture: picture, window: window, crop: placement.source)
                                               }, source: source())
            prepared = (made, key)
        }
        guard let image = prepared?.frame.yuvImage else { throw .processing("\(source()): scaled picture has no planes") }
        Self.fill(tile, except: target, on: canvas, with: background)
        image.luma.paste(into: canvas.luma, x: target.x, y: target.y)
        image.cb.paste(into: canvas.cb, x: target.x / 2, y: target.y / 2)
        image.cr.paste(into: canvas.cr, x: target.x / 2, y: target.y / 2)
        return target
    }

    /// Draws `effects` on the tile's picture `image`, which shows `window` of `picture`: told the
    /// picture's time and, when it has one, its mask cropped as the picture was (`crop`; the mask
    /// is upright, as a picture with a mask is) and scaled to the tile.
    private func draw(_ effects: [any DrawingEffect], on image: YUVImage, picture: CallFrame, window: PictureWindow,
                      crop: PixelRect) throws(ReplayError) {
        effectFrame.time = picture.time
        effectFrame.size = PictureSize(width: image.width, height: image.height)
        effectFrame.window = window
        effectFrame.mask = nil
        if let mask = picture.mask, let whole = mask.plane(0, width: mask.width, height: mask.height) {
            let part = Plane(base: whole.base + crop.y * whole.stride + crop.x, stride: whole.stride, width: crop.width, height: crop.height)
            let scaled = maskMemory.plane(width: image.width, height: image.height)
            maskScaler.scale(part, into: scaled)
            effectFrame.mask = scaled
        }
        for effect in effects { try effect.process(image, effectFrame, lane: 0) }
    }

    /// Paints `rect` of `canvas` (clipped to it) with `color`, leaving `hole` (on even pixels,
    /// inside `rect`) as it is: the bars around a contained picture, without painting under it.
    static func fill(_ rect: PixelRect, except hole: PixelRect? = nil, on canvas: YUVImage, with color: YUVColor) {
        guard let hole else { return fillRect(rect, on: canvas, with: color) }
        let right = rect.x + rect.width, bottom = rect.y + rect.height
        let holeRight = hole.x + hole.width, holeBottom = hole.y + hole.height
        fillRect(PixelRect(x: rect.x, y: rect.y, width: rect.width, height: hole.y - rect.y), on: canvas, with: color)
        fillRect(PixelRect(x: rect.x, y: holeBottom, width: rect.width, height: bottom - holeBottom), on: canvas, with: color)
        fillRect(PixelRect(x: rect.x, y: hole.y, width: hole.x - rect.x, height: hole.height), on: canvas, with: color)
        fillRect(PixelRect(x: holeRight, y: hole.y, width: right - holeRight, height: hole.height), on: canvas, with: color)
    }

    /// Paints `rect` (luma pixels; the chroma samples it touches, rounded outward) with `color`.
    private static func fillRect(_ rect: PixelRect, on canvas: YUVImage, with color: YUVColor) {
        guard rect.width > 0, rect.height > 0 else { return }
        canvas.luma.fill(color.y, x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        let chroma = PixelRect(x: rect.x / 2, y: rect.y / 2, width: (rect.x + rect.width + 1) / 2 - rect.x / 2,
                               height: (rect.y + rect.height + 1) / 2 - rect.y / 2)
        canvas.cb.fill(color.cb, x: chroma.x, y: chroma.y, width: chroma.width, height: chroma.height)
        canvas.cr.fill(color.cr, x: chroma.x, y: chroma.y, width: chroma.width, height: chroma.height)
    }
}
