import CFFmpeg

/// Turns decoded pictures of any pixel format (a background image or video) into frame-sized
/// 8-bit 4:2:0 Y'CbCr in the frame's colour space, placed by ``BackgroundPlacement``: covered and
/// centre-cropped, contained with bars of a colour, or stretched.
///
/// libswscale does the resampling and the colour conversion. A picture that fills the frame goes
/// straight to the frame's format when it is RGB or already in the frame's colour space; anything
/// else is first scaled into a frame-sized planar RGB canvas, which is then converted as a whole.
/// A picture that leaves bars is scaled into a buffer of its own (libswscale writes rows in whole
/// SIMD blocks, which would spill into the bar on its right) and copied into the canvas with its
/// edge pixels repeated out to the frame's edges, so the chroma filter, which reaches a few rows
/// across, sees the picture's own colours at its edge, as at a frame's edge. The bars are painted
/// afterwards in the frame's format: exactly their colour, and a chroma sample that is half bar,
/// half picture (an odd offset) the mean of the two. Conversions reuse their buffers; use one per thread.
final class PictureFitter {
    let width: Int
    let height: Int
    let colorSpace: ColorSpace
    let fit: BackgroundFit
    let barColor: RGBAColor

    private let output: Frame
    private let canvas: Frame
    /// The picture's cropped region (a reference, no copy), and that region scaled when it leaves bars.
    private let cropped: Frame
    private let scaled: Frame
    private let pictureScaler = Scaler()
    private let canvasScaler = Scaler()
    /// A turned picture, and the full-resolution planes it is turned from.
    private let planar: Frame
    private let upright: Frame
    private let uprightScaler = Scaler()

    /// - Throws: `ReplayError.processing` when the buffers cannot be allocated.
    init(width: Int, height: Int, colorSpace: ColorSpace, fit: BackgroundFit, barColor: RGBAColor) throws(ReplayError) {
        self.width = width
        self.height = height
        self.colorSpace = colorSpace
        self.fit = fit
        self.barColor = barColor
        cropped = try Frame()
        scaled = try Frame()
        planar = try Frame()
        upright = try Frame()
        do {
            output = try Frame(width: width, height: height, format: AV_PIX_FMT_YUV420P)
            canvas = try Frame(width: width, height: height, format: AV_PIX_FMT_GBRP)
        } catch { throw .processing("background buffers: \(error)") }
    }

    /// Fits the `decoded` picture to the frame; the result is valid until the next call.
    /// - Parameters:
    ///   - rotation: the picture's display rotation (degrees clockwise) and mirroring, from its
    ///     container: it is turned upright first.
    ///   - source: the file the picture came from, for messages.
    func fit(_ decoded: Frame, rotation: Int = 0, mirrored: Bool = false, source: String) throws(ReplayError) -> YUVImage {
        guard decoded.width > 0, decoded.height > 0, let decodedDescriptor = av_pix_fmt_desc_get(decoded.pixelFormat)?.pointee else {
            throw .badInput("\(source): picture has no size or an unknown pixel format")
        }
        let decodedIsRGB = decodedDescriptor.flags & UInt64(AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL) != 0
        let orientation = PictureOrientation(rotation: rotation, mirrored: mirrored)
        let picture = orientation.isUpright ? decoded : try turnUpright(decoded, orientation, isRGB: decodedIsRGB, source: source)
        guard let descriptor = av_pix_fmt_desc_get(picture.pixelFormat)?.pointee else { throw .processing("\(source): no pixel format") }
        let placement = BackgroundPlacement(fit: fit, pictureWidth: picture.width, pictureHeight: picture.height,
                                            frameWidth: width, frameHeight: height)
        try crop(picture, to: placement.source, source: source)
        let isRGB = descriptor.flags & UInt64(AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL) != 0
        let pictureSpace = picture.colorSpace
        let fillsFrame = placement.destination == PixelRect(x: 0, y: 0, width: width, height: height)
        if fillsFrame && (isRGB || pictureSpace == colorSpace) {
            try pictureScaler.convert(cropped, into: output, colorSpace: colorSpace)
        } else {
            if fillsFrame {
                try pictureScaler.convert(cropped, into: canvas, colorSpace: isRGB ? nil : pictureSpace)
            } else {
                let rect = placement.destination
                do { try scaled.allocate(width: rect.width, height: rect.height, format: AV_PIX_FMT_GBRP) }
                catch { throw .processing("background buffers: \(error)") }
                try pictureScaler.convert(cropped, into: scaled, colorSpace: isRGB ? nil : pictureSpace)
                for index in 0..<3 { canvas.plane(index).extend(scaled.plane(index), placedAt: rect) }
            }
            try canvasScaler.convert(canvas, into: output, colorSpace: colorSpace)
        }
        av_frame_unref(cropped.pointer)
        guard var image = output.yuvImage else { throw .processing("\(source): background buffer has no picture") }
        image.colorSpace = colorSpace
        if !fillsFrame { paintBars(image, around: placement.destination) }
        return image
    }

    /// `picture` as its container shows it: converted to full-resolution planes (planar RGB, or
    /// 4:4:4 Y'CbCr at its own range) and turned clockwise, then mirrored, plane by plane.
    private func turnUpright(_ picture: Frame, _ orientation: PictureOrientation, isRGB: Bool, source: String) throws(ReplayError) -> Frame {
        let format = isRGB ? AV_PIX_FMT_GBRP : AV_PIX_FMT_YUV444P
        let space = picture.colorSpace
        let shown = orientation.turned(PictureSize(width: picture.width, height: picture.height))
        do {
            try planar.allocate(width: picture.width, height: picture.height, format: format)
            try upright.allocate(width: shown.width, height: shown.height, format: format)
            try ffmpeg("av_frame_copy_props", av_frame_copy_props(upright.pointer, picture.pointer))
        } catch { throw .processing("\(source): \(error)") }
        try uprightScaler.convert(picture, into: planar, colorSpace: isRGB ? nil : space)
        // Tag what the planes hold: the turned size could change an untagged picture's guessed matrix.
        upright.pointer.pointee.color_range = space.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        switch space.matrix {
        case .bt601: upright.pointer.pointee.colorspace = AVCOL_SPC_BT470BG
        case .bt709: upright.pointer.pointee.colorspace = AVCOL_SPC_BT709
        case .bt2020: upright.pointer.pointee.colorspace = AVCOL_SPC_BT2020_NCL
        }
        for index in 0..<3 { orientation.show(planar.plane(index), into: upright.plane(index)) }
        return upright
    }

    /// Points `cropped` at `rect` of `picture` without copying.
    private func crop(_ picture: Frame, to rect: PixelRect, source: String) throws(ReplayError) {
        do { try cropped.reference(picture, croppedTo: rect) } catch { throw error.inputError("\(source): cannot crop the picture") }
    }

    /// Paints the bar colour on the 4:2:0 `image` outside `rect`: every luma sample, and every
    /// chroma sample by the share of its 2×2 luma samples outside (all of them: the bar's colour;
    /// half: the mean of bar and picture).
    private func paintBars(_ image: YUVImage, around rect: PixelRect) {
        let bar = colorSpace.yuv(red: barColor.red, green: barColor.green, blue: barColor.blue)
        let columns = rect.x..<(rect.x + rect.width), rows = rect.y..<(rect.y + rect.height)
        for y in 0..<image.height {
            let row = image.luma.row(y)
            guard rows.contains(y) else { row.update(repeating: bar.y); continue }
            row[..<columns.lowerBound].update(repeating: bar.y)
            row[columns.upperBound...].update(repeating: bar.y)
        }
        /// Of the luma samples `2c, 2c + 1` (those inside `0..<limit`), how many are in `inside`, and how many in all.
        func share(_ c: Int, _ inside: Range<Int>, limit: Int) -> (inside: Int, all: Int) {
            let footprint = (2 * c)..<min(2 * c + 2, limit)
            return (footprint.clamped(to: inside).count, footprint.count)
        }
        // The chroma columns wholly over the picture's: in rows wholly over it, only the others change.
        let firstOver = (columns.lowerBound + 1) / 2
        let endOver = max(firstOver, columns.upperBound >= image.width ? image.cb.width : columns.upperBound / 2)
        for chromaY in 0..<image.cb.height {
            let vertical = share(chromaY, rows, limit: image.height)
            let cbRow = image.cb.row(chromaY), crRow = image.cr.row(chromaY)
            func paint(_ chromaX: Int) {
                let horizontal = share(chromaX, columns, limit: image.width)
                let inside = vertical.inside * horizontal.inside, all = vertical.all * horizontal.all
                guard inside < all else { return }
                func mixed(_ picture: UInt8, _ bar: UInt8) -> UInt8 {
                    UInt8((Int(picture) * inside + Int(bar) * (all - inside) + all / 2) / all)
                }
                cbRow[chromaX] = mixed(cbRow[chromaX], bar.cb)
                crRow[chromaX] = mixed(crRow[chromaX], bar.cr)
            }
            if vertical.inside == vertical.all {
                for chromaX in 0..<firstOver { paint(chromaX) }
                for chromaX in endOver..<image.cb.width { paint(chromaX) }
            } else {
                for chromaX in 0..<image.cb.width { paint(chromaX) }
            }
        }
    }
}

private extension Frame {
    /// Plane `index` of a planar picture whose planes all have the picture's size (GBRP, 4:4:4).
    func plane(_ index: Int) -> Plane {
        let frame = pointer.pointee
        let base = withUnsafeBytes(of: frame.data) { $0.load(fromByteOffset: index * 8, as: UnsafeMutablePointer<UInt8>?.self) }
        let stride = withUnsafeBytes(of: frame.linesize) { $0.load(fromByteOffset: index * 4, as: Int32.self) }
        return Plane(base: base!, stride: Int(stride), width: width, height: height)
    }
}

private extension Plane {
    /// Copies `picture` to `rect` (inside the plane) and fills the rest with its nearest edge
    /// sample: rows above and below repeat its first and last row, columns its first and last column.
    func extend(_ picture: Plane, placedAt rect: PixelRect) {
        for y in 0..<height {
            let source = picture.row(min(max(y - rect.y, 0), picture.height - 1)), target = row(y)
            _ = target[rect.x..<(rect.x + rect.width)].update(fromContentsOf: source)
            target[..<rect.x].update(repeating: source[0])
            target[(rect.x + rect.width)...].update(repeating: source[source.count - 1])
        }
    }
}
