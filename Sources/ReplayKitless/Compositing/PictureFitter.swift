import CFFmpeg

/// Turns decoded pictures of any pixel format (a background image or video) into frame-sized
/// 8-bit 4:2:0 Y'CbCr in the frame's colour space, placed by ``BackgroundPlacement``: covered and
/// centre-cropped, contained with bars of a colour, or stretched.
///
/// libswscale does the resampling and the colour conversion. A picture that fills the frame goes
/// straight to the frame's format when it is RGB or already in the frame's colour space; anything
/// else is first scaled into a frame-sized planar RGB canvas (bars filled with their colour, any
/// offset, odd ones included), which is then converted as a whole, so the 4:2:0 chroma at a bar's
/// edge is subsampled like everywhere else. Conversions reuse their buffers; use one per thread.
final class PictureFitter {
    let width: Int
    let height: Int
    let colorSpace: ColorSpace
    let fit: BackgroundFit
    let barColor: RGBAColor

    private let output: Frame
    private let canvas: Frame
    /// The picture's cropped region (a reference, no copy) and the canvas region it is scaled into.
    private let cropped = Frame()
    private let region = Frame()
    private let pictureScaler = Scaler()
    private let canvasScaler = Scaler()

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

    /// Fits `picture` to the frame; the result is valid until the next call.
    /// - Parameter source: the file the picture came from, for messages.
    func fit(_ picture: Frame, source: String) throws(ReplayError) -> YUVImage {
        guard picture.width > 0, picture.height > 0, let descriptor = av_pix_fmt_desc_get(picture.pixelFormat)?.pointee else {
            throw .badInput("\(source): picture has no size or an unknown pixel format")
        }
        let placement = BackgroundPlacement(fit: fit, pictureWidth: picture.width, pictureHeight: picture.height,
                                            frameWidth: width, frameHeight: height)
        try crop(picture, to: placement.source, source: source)
        let isRGB = descriptor.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 || descriptor.flags & UInt64(AV_PIX_FMT_FLAG_PAL) != 0
        let pictureSpace = picture.colorSpace
        let fillsFrame = placement.destination == PixelRect(x: 0, y: 0, width: width, height: height)
        if fillsFrame && (isRGB || pictureSpace == colorSpace) {
            try pictureScaler.convert(cropped, into: output, colorSpace: colorSpace)
        } else {
            if !fillsFrame { fillCanvas() }
            viewCanvas(placement.destination)
            try pictureScaler.convert(cropped, into: region, colorSpace: isRGB ? nil : pictureSpace)
            try canvasScaler.convert(canvas, into: output, colorSpace: colorSpace)
        }
        av_frame_unref(cropped.pointer)
        guard var image = output.yuvImage else { throw .processing("\(source): background buffer has no picture") }
        image.colorSpace = colorSpace
        return image
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
        let whole = canvas.pointer.pointee
        for (base, stride, value) in [(whole.data.0, whole.linesize.0, barColor.green),
                                      (whole.data.1, whole.linesize.1, barColor.blue),
                                      (whole.data.2, whole.linesize.2, barColor.red)] {
            guard let base else { continue }
            Plane(base: base, stride: Int(stride), width: width, height: height).fill(value)
        }
    }

    /// Makes `region` a view of the canvas's `rect` (borrowed memory: no buffers of its own).
    private func viewCanvas(_ rect: PixelRect) {
        av_frame_unref(region.pointer)
        let view = region.pointer, whole = canvas.pointer.pointee
        view.pointee.width = Int32(rect.width)
        view.pointee.height = Int32(rect.height)
        view.pointee.format = AV_PIX_FMT_GBRP.rawValue
        view.pointee.linesize = whole.linesize
        view.pointee.data = whole.data
        view.pointee.data.0 = whole.data.0.map { $0 + rect.y * Int(whole.linesize.0) + rect.x }
        view.pointee.data.1 = whole.data.1.map { $0 + rect.y * Int(whole.linesize.1) + rect.x }
        view.pointee.data.2 = whole.data.2.map { $0 + rect.y * Int(whole.linesize.2) + rect.x }
    }
}
