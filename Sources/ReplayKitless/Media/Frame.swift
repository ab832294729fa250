import CFFmpeg
import Foundation

/// A decoded picture or audio frame; owns its `AVFrame` and frees it exactly once.
final class Frame: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVFrame>
    /// The pool this frame goes back to when the pipeline is done with it.
    weak var pool: FramePool?

    /// An empty frame (no picture buffers).
    /// - Throws: `processing` when it cannot be allocated (out of memory): exit 4, no output.
    convenience init() throws(ReplayError) {
        guard let frame = av_frame_alloc() else { throw .processing("out of memory (av_frame_alloc)") }
        self.init(owning: frame)
    }

    /// A frame with its own picture buffers of the given size and format.
    convenience init(width: Int, height: Int, format: AVPixelFormat) throws(FFmpegFailure) {
        self.init(owning: try ffmpegAlloc("av_frame_alloc", av_frame_alloc()))
        try allocate(width: width, height: height, format: format)
    }

    fileprivate init(owning frame: UnsafeMutablePointer<AVFrame>) { pointer = frame }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    var width: Int { Int(pointer.pointee.width) }
    var height: Int { Int(pointer.pointee.height) }
    var pixelFormat: AVPixelFormat { AVPixelFormat(rawValue: pointer.pointee.format) }

    /// Presentation time in the time base of whoever produced the frame.
    var pts: Int64 {
        get { pointer.pointee.pts }
        set { pointer.pointee.pts = newValue }
    }
    /// Duration in the same time base; 0 when unknown.
    var duration: Int64 {
        get { fx_frame_duration(pointer) }
        set { fx_frame_set_duration(pointer, newValue) }
    }

    func unref() { av_frame_unref(pointer) }

    /// Whether its picture's buffers are this frame's alone (nobody else reads them), so it may be drawn on.
    var isWritable: Bool { pointer.pointee.buf.0 != nil && av_frame_is_writable(pointer) != 0 }

    /// The decoder found errors in this picture and concealed them.
    var isDamaged: Bool {
        pointer.pointee.decode_error_flags != 0 || pointer.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0
    }

    /// Hands the frame back to its pool, if it came from one.
    func recycle() { pool?.give(self) }

    /// (Re)allocates picture buffers; a no-op when size and format already match and the buffers are not shared.
    func allocate(width: Int, height: Int, format: AVPixelFormat) throws(FFmpegFailure) {
        if self.width == width, self.height == height, pixelFormat == format, pointer.pointee.buf.0 != nil {
            try ffmpeg("av_frame_make_writable", av_frame_make_writable(pointer))
            return
        }
        av_frame_unref(pointer)
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        pointer.pointee.format = format.rawValue
        try ffmpeg("av_frame_get_buffer", av_frame_get_buffer(pointer, 0))
    }

    /// Makes this frame a reference to `rect` of `picture`'s pixels, without copying (libswscale
    /// then reads only that region).
    func reference(_ picture: Frame, croppedTo rect: PixelRect) throws(FFmpegFailure) {
        av_frame_unref(pointer)
        try ffmpeg("av_frame_ref", av_frame_ref(pointer, picture.pointer))
        pointer.pointee.crop_left = rect.x
        pointer.pointee.crop_top = rect.y
        pointer.pointee.crop_right = picture.width - rect.x - rect.width
        pointer.pointee.crop_bottom = picture.height - rect.y - rect.height
        try ffmpeg("av_frame_apply_cropping", av_frame_apply_cropping(pointer, Int32(AV_FRAME_CROP_UNALIGNED)))
    }

    /// Copies timing and colour properties (not pixels) from another frame.
    func copyProperties(from other: Frame) {
        av_frame_copy_props(pointer, other.pointer)
    }

    /// An 8-bit planar Y'CbCr view of this frame's pixels, or `nil` for other pixel formats.
    var yuvImage: YUVImage? {
        guard let layout = PixelLayout(pixelFormat) else { return nil }
        let chroma = layout.subsampling.chromaSize(width: width, height: height)
        guard let y = plane(0, width: width, height: height), let u = plane(1, width: chroma.width, height: chroma.height),
              let v = plane(2, width: chroma.width, height: chroma.height) else { return nil }
        return YUVImage(luma: y, cb: u, cr: v, alpha: layout.hasAlpha ? plane(3, width: width, height: height) : nil,
                        subsampling: layout.subsampling, colorSpace: colorSpace)
    }

    /// Data plane `index` as `width` × `height` pixels (the caller knows the pixel format's layout);
    /// `nil` when the frame has no such plane.
    func plane(_ index: Int, width: Int, height: Int) -> Plane? {
        let frame = pointer.pointee
        let data = withUnsafeBytes(of: frame.data) { $0.load(fromByteOffset: index * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride, as: UnsafeMutablePointer<UInt8>?.self) }
        let stride = withUnsafeBytes(of: frame.linesize) { $0.load(fromByteOffset: index * MemoryLayout<Int32>.stride, as: Int32.self) }
        guard let data else { return nil }
        return Plane(base: data, stride: Int(stride), width: width, height: height)
    }

    /// The frame's colour matrix and range (BT.709 limited when untagged and HD, BT.601 when SD).
    var colorSpace: ColorSpace {
        let frame = pointer.pointee
        let full = frame.color_range == AVCOL_RANGE_JPEG || PixelLayout.isFullRangeFormat(pixelFormat)
        return ColorSpace(tag: frame.colorspace, fullRange: full, height: height)
    }
}

/// The 8-bit planar Y'CbCr pixel formats the processing stages work on directly.
struct PixelLayout {
    let subsampling: ChromaSubsampling
    let hasAlpha: Bool

    init?(_ format: AVPixelFormat) {
        switch format {
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P: (subsampling, hasAlpha) = (.yuv420, false)
        case AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P: (subsampling, hasAlpha) = (.yuv422, false)
        case AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P: (subsampling, hasAlpha) = (.yuv444, false)
        case AV_PIX_FMT_YUVA420P: (subsampling, hasAlpha) = (.yuv420, true)
        case AV_PIX_FMT_YUVA422P: (subsampling, hasAlpha) = (.yuv422, true)
        case AV_PIX_FMT_YUVA444P: (subsampling, hasAlpha) = (.yuv444, true)
        default: return nil
        }
    }

    static func isFullRangeFormat(_ format: AVPixelFormat) -> Bool {
        format == AV_PIX_FMT_YUVJ420P || format == AV_PIX_FMT_YUVJ422P || format == AV_PIX_FMT_YUVJ444P
    }
}

/// Reusable frames, so the pipeline does not allocate per frame. Thread-safe: stages on
/// different threads take and give back. A pool that keeps buffers hands out frames whose
/// picture memory is reused; one that does not hands out empty shells (for decoders to fill).
final class FramePool: @unchecked Sendable {
    private let lock = NSLock()
    private var free: [Frame] = []
    private let keepsBuffers: Bool

    init(keepsBuffers: Bool) { self.keepsBuffers = keepsBuffers }

    /// A frame with writable buffers of the given size and format.
    func take(width: Int, height: Int, format: AVPixelFormat) throws(FFmpegFailure) -> Frame {
        let frame = try recycledOrNew()
        frame.pool = self
        try frame.allocate(width: width, height: height, format: format)
        return frame
    }

    /// An empty frame shell (no buffers), e.g. for a decoder to fill.
    /// - Throws: `processing` when a new shell cannot be allocated (out of memory).
    func takeShell() throws(ReplayError) -> Frame {
        let frame: Frame
        do { frame = try recycledOrNew() } catch { throw .processing("\(error)") }
        frame.pool = self
        return frame
    }

    /// A frame handed back earlier, or a new one.
    private func recycledOrNew() throws(FFmpegFailure) -> Frame {
        if let frame = lock.withLock({ free.popLast() }) { return frame }
        return Frame(owning: try ffmpegAlloc("av_frame_alloc", av_frame_alloc()))
    }

    func give(_ frame: Frame) {
        if !keepsBuffers { frame.unref() }
        lock.withLock { free.append(frame) }
    }
}
