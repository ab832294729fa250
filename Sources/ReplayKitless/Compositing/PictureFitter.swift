import CFFmpeg

/// Turns decoded pictures of any pixel format (a background image or video) into frame-sized
/// 8-bit 4:2:0 Y'CbCr in the frame's colour space, placed by ``BackgroundPlacement``: covered and
/// centre-cropped, contained with bars of a colour, or stretched.
///
/// libswscale does the resampling and the colour conversion. A picture that fills the frame goes
/// straight to the frame's format when it is RGB or already in the frame's colour space; anything
/// else is first scaled into a frame-sized planar RGB canvas (bars filled with their colour, any
/// offset, odd ones included), which is then converted as a whole, so the 4:2:0 chroma at a bar's
/// edge is subsampled like everywhere else. A picture that leaves bars is scaled into a buffer of
/// its own and copied into the canvas: libswscale writes rows in whole SIMD blocks, which would
/// spill into the bar on its right. Conversions reuse their buffers; use one per thread.
final class PictureFitter {
    let width: Int
    let height: Int
    let colorSpace: ColorSpace
    let fit: BackgroundFit
    let barColor: RGBAColor

    private let output: Frame
    private let canvas: Frame
    /// The picture's cropped region (a reference, no copy), and that region scaled when it leaves bars.
    private let cropped = Frame()
    private let scaled = Frame()
    private let pictureScaler = Scaler()
    private let canvasScaler = Scaler()
    /// A turned picture, and the full-resolution planes it is turned from.
    private let planar = Frame()
    private let upright = Frame()
    private let uprightScaler = Scaler()

    /// - Throws: `ReplayError.processing` when the buffers cannot be allocated.
    init(width: Int, height: Int, colorSpace: ColorSpace, fit: BackgroundFit, barColor: RGBAColor) throws(ReplayError) {
        self.width = width
        self.height = height
        self.colorSpace = colorSpace
        self.fit = fit
        self.barColor = barColor
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
        let picture = rotation % 360 == 0 && !mirrored
            ? decoded : try turnUpright(decoded, quarterTurns: rotation / 90, mirrored: mirrored, isRGB: decodedIsRGB, source: source)
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
                fillCanvas()
                let rect = placement.destination
                do { try scaled.allocate(width: rect.width, height: rect.height, format: AV_PIX_FMT_GBRP) }
                catch { throw .processing("background buffers: \(error)") }
                try pictureScaler.convert(cropped, into: scaled, colorSpace: isRGB ? nil : pictureSpace)
                for index in 0..<3 { canvas.plane(index).region(rect).copy(from: scaled.plane(index)) }
            }
            try canvasScaler.convert(canvas, into: output, colorSpace: colorSpace)
        }
        av_frame_unref(cropped.pointer)
        guard var image = output.yuvImage else { throw .processing("\(source): background buffer has no picture") }
        image.colorSpace = colorSpace
        return image
    }

    /// `picture` as its container shows it: converted to full-resolution planes (planar RGB, or
    /// 4:4:4 Y'CbCr at its own range) and turned clockwise, then mirrored, plane by plane.
    private func turnUpright(_ picture: Frame, quarterTurns: Int, mirrored: Bool, isRGB: Bool,
                             source: String) throws(ReplayError) -> Frame {
        let format = isRGB ? AV_PIX_FMT_GBRP : AV_PIX_FMT_YUV444P
        let space = picture.colorSpace
        let turns = ((quarterTurns % 4) + 4) % 4
        do {
            try planar.allocate(width: picture.width, height: picture.height, format: format)
            try upright.allocate(width: turns % 2 == 1 ? picture.height : picture.width,
                                 height: turns % 2 == 1 ? picture.width : picture.height, format: format)
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
        for index in 0..<3 {
            reorient(planar.plane(index), into: upright.plane(index), quarterTurns: turns, mirror: mirrored)
        }
        return upright
    }

    /// Points `cropped` at `rect` of `picture` without copying.
    private func crop(_ picture: Frame, to rect: PixelRect, source: String) throws(ReplayError) {
        av_frame_unref(cropped.pointer)
        do {
            try ffmpeg("av_frame_ref", av_frame_ref(cropped.pointer, picture.pointer))
            let frame = cropped.pointer
            frame.pointee.crop_left = rect.x
            frame.pointee.crop_top = rect.y
            frame.pointee.crop_right = picture.width - rect.x - rect.width
            frame.pointee.crop_bottom = picture.height - rect.y - rect.height
            try ffmpeg("av_frame_apply_cropping", av_frame_apply_cropping(frame, Int32(AV_FRAME_CROP_UNALIGNED)))
        } catch { throw .badInput("\(source): cannot crop the picture: \(error)") }
    }

    /// Fills the canvas with the bar colour (planar RGB is stored G, B, R).
    private func fillCanvas() {
        canvas.plane(0).fill(barColor.green)
        canvas.plane(1).fill(barColor.blue)
        canvas.plane(2).fill(barColor.red)
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
    /// The samples of `rect` (inside the plane), as a view.
    func region(_ rect: PixelRect) -> Plane {
        Plane(base: base + rect.y * stride + rect.x, stride: stride, width: rect.width, height: rect.height)
    }
}
