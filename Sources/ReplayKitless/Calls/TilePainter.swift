import CFFmpeg

/// Paints one participant's picture into its tile of the composed picture: the picture keeps its
/// display aspect ratio, contained (centred, the rest background) or covering (centre-cropped),
/// by the same ``BackgroundPlacement`` as a background picture.
///
/// The picture is placed as `render` shows it (formats.md §9): turned upright and mirrored by its
/// stream's ``PictureOrientation``. The decoded picture is scaled once, straight to its size on
/// the canvas (in its stored orientation), into a buffer that is reused from frame to frame
/// (libswscale writes rows in whole SIMD blocks, which would spill into a neighbouring tile if it
/// wrote into the canvas), turned there when it is stored sideways or mirrored (a small picture
/// turned, not the decoded one), then copied into place. A picture that
/// has not changed since the last output frame, in an unchanged tile, is not scaled again; only
/// the part of the tile the picture leaves uncovered (contain's bars) is painted background.
final class TilePainter {
    private let scaler = Scaler(flags: SWS_BICUBIC)
    private let cropped: Frame
    private let scaled: Frame
    private let turned: Frame
    /// What `scaled` holds: the picture (its track and serial) and where it goes.
    private var key: Key?

    init() throws(ReplayError) {
        cropped = try Frame()
        scaled = try Frame()
        turned = try Frame()
    }

    private struct Key: Equatable {
        var track: ObjectIdentifier
        var serial: Int
        var rect: PixelRect
        var fit: BackgroundFit
    }

    /// Where a `width × height` picture with sample aspect ratio `sar`, shown turned and mirrored by
    /// `orientation`, lands in `tile`: the part of the stored picture used (stored pixels) and the
    /// rectangle the shown picture takes on the canvas, on even pixels for 4:2:0.
    static func placement(width: Int, height: Int, sar: AVRational, orientation: PictureOrientation = .upright,
                          tile: PixelRect, fit: BackgroundFit) -> BackgroundPlacement {
        let square = sar.num <= 0 || sar.den <= 0 || sar.num == sar.den
        let displayWidth = square ? width : max(1, Int(clamping: Double(width) * Double(sar.num) / Double(sar.den), rounding: .toNearestOrAwayFromZero))
        let unturned = PictureSize(width: displayWidth, height: height)
        let shown = orientation.turned(unturned)
        var placement = BackgroundPlacement(fit: fit, pictureWidth: shown.width, pictureHeight: shown.height,
                                            frameWidth: tile.width, frameHeight: tile.height)
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
        return placement
    }

    /// Paints `picture` (of the track `track`, stored as `orientation` says it is shown) into `tile`
    /// of `canvas` (4:2:0, even-sized): the picture where it lands, `background` on the rest of the
    /// tile. Returns the rectangle the picture takes (where its name goes); `nil` when it fits nowhere.
    /// - Parameter source: names the stream in messages (built only when something fails).
    func paint(_ picture: CallFrame, of track: ObjectIdentifier, shown orientation: PictureOrientation, in tile: PixelRect,
               fit: BackgroundFit, onto canvas: YUVImage, background: YUVColor,
               source: @autoclosure () -> String) throws(ReplayError) -> PixelRect? {
        let newKey = Key(track: track, serial: picture.serial, rect: tile, fit: fit)
        let frame = picture.frame
        let placement = Self.placement(width: frame.width, height: frame.height, sar: frame.pointer.pointee.sample_aspect_ratio,
                                       orientation: orientation, tile: tile, fit: fit)
        let target = placement.destination
        guard target.x + target.width <= canvas.width, target.y + target.height <= canvas.height else {
            Self.fill(tile, on: canvas, with: background)
            return nil
        }
        if key != newKey {
            key = nil
            let stored = orientation.turned(PictureSize(width: target.width, height: target.height))
            do {
                try cropped.reference(frame, croppedTo: placement.source)
                try scaled.allocate(width: stored.width, height: stored.height, format: AV_PIX_FMT_YUV420P)
                if !orientation.isUpright { try turned.allocate(width: target.width, height: target.height, format: AV_PIX_FMT_YUV420P) }
            } catch { throw .processing("\(source()): \(error)") }
            try scaler.convert(cropped, into: scaled, colorSpace: frame.colorSpace.fullRange ? frame.colorSpace : nil,
                               outputColorSpace: frame.colorSpace.fullRange ? ColorSpace(matrix: frame.colorSpace.matrix, fullRange: false) : nil)
            av_frame_unref(cropped.pointer)
            if !orientation.isUpright, let stored = scaled.yuvImage, let shown = turned.yuvImage { orientation.show(stored, into: shown) }
            key = newKey
        }
        guard let image = (orientation.isUpright ? scaled : turned).yuvImage else {
            throw .processing("\(source()): scaled picture has no planes")
        }
        Self.fill(tile, except: target, on: canvas, with: background)
        image.luma.paste(into: canvas.luma, x: target.x, y: target.y)
        image.cb.paste(into: canvas.cb, x: target.x / 2, y: target.y / 2)
        image.cr.paste(into: canvas.cr, x: target.x / 2, y: target.y / 2)
        return target
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
