import CFFmpeg
import Foundation

/// `fxreplay framehash`: the `framemd5` listing of a recording's first video stream, line for line what
///
///     ffmpeg -i INPUT -map 0:v:0 -fps_mode passthrough -enc_time_base -1 -fflags +bitexact -f framemd5 -
///
/// prints (formats.md §8). What that command does, and this class repeats:
/// - timestamps are in the stream's time base, shifted as `ffmpeg` shifts every input: by the file's
///   start time (the earliest of all its streams; for MPEG-TS and other formats with discontinuities,
///   of this stream), so the file starts at 0;
/// - each frame's pts is its best-effort timestamp, raised to the previous line's when it is earlier
///   (ffmpeg's "Non-monotonous DTS" correction); dts equals pts (rawvideo has no reordering);
/// - duration is one frame at the rate `av_guess_frame_rate` gives, rounded to the time base (the
///   muxer fills it in; `ffmpeg` does not pass per-frame durations through), 0 when the rate is unknown;
/// - the codec's default decoder is used (VP9 alpha is not decoded);
/// - the picture is turned upright as `ffmpeg`'s autorotate does, then packed as rawvideo in its
///   decoded pixel format (`av_image_copy_to_buffer`, no padding) and hashed with MD5;
/// - after a mid-stream change of size or pixel format, pictures are turned upright and then scaled
///   back to the first upright picture's size and format (libswscale, bicubic, as the scale filter
///   `ffmpeg` inserts after its autorotate filter to keep its output's size).
///
/// Decoding runs on a thread of its own (``PictureStream``), so hashing overlaps with it.
public final class VideoFrameHasher {
    private let pictures: PictureStream
    private let md5: MD5
    /// The stream's time base, in which every timestamp is written.
    package let timeBase: Rational
    private let offset: Int64
    private let duration: Int64
    private let quarterTurns: Int
    private let upright: UprightPictures
    private var packed: [UInt8] = []
    /// The last line's time in microseconds, and one frame at the stream's rate in microseconds,
    /// for pictures without timestamps.
    private var untimedClock: Int64?
    /// The last line's timestamp: none goes before it.
    private var lastWritten: Int64?
    private let frameMicroseconds: Int64
    /// The first picture, decoded before the header (which needs its aspect ratio).
    private var pending: PictureStream.Item?
    /// The first picture's size and pixel format, and the later pictures scaled back to them.
    private var firstGeometry: (width: Int32, height: Int32, format: Int32)?
    private let rescaler = Scaler(flags: SWS_BICUBIC)
    private let rescaled: Frame
    /// A picture turned upright: of another size, before it is scaled; or of another pixel format.
    private let turnedUpright: Frame
    /// Frames listed so far.
    package private(set) var frames = 0

    /// The `#` lines `ffmpeg -fflags +bitexact -f framemd5` starts with, for the upright picture size.
    public let headerLines: [String]

    /// Opens the first video stream of `url` and starts decoding it.
    public init(url: String) throws(ReplayError) {
        // ffmpeg decodes with the codec's default decoder: VP9's drops the alpha channel.
        pictures = try PictureStream(url: url, alpha: false)
        rescaled = try Frame()
        turnedUpright = try Frame()
        md5 = try MD5()
        let info = pictures.stream
        let stream = pictures.demuxer.stream(info.index)
        let context = pictures.demuxer.context
        timeBase = info.timeBase
        var startTime = context.pointee.start_time
        // For formats with timestamp discontinuities (MPEG-TS…) ffmpeg recomputes the start from the
        // streams it reads, here only this one ("Correcting start time based on the enabled streams").
        if startTime != noPTS, context.pointee.iformat.pointee.flags & AVFMT_TS_DISCONT != 0, stream.pointee.start_time != noPTS {
            startTime = max(startTime, av_rescale_q(stream.pointee.start_time, stream.pointee.time_base, fx_time_base_q()))
        }
        offset = startTime == noPTS ? 0 : av_rescale_q(-startTime, fx_time_base_q(), stream.pointee.time_base)
        let rate = av_guess_frame_rate(context, stream, nil)
        let base = stream.pointee.time_base
        duration = rate.num > 0 && rate.den > 0 && base.num > 0
            ? av_rescale(1, Int64(rate.den) * Int64(base.den), Int64(rate.num) * Int64(base.num)) : 0
        frameMicroseconds = rate.num > 0 && rate.den > 0 ? av_rescale_q(1, AVRational(num: rate.den, den: rate.num), fx_time_base_q()) : 0
        quarterTurns = info.rotation / 90
        upright = try UprightPictures(stream: info, convertOtherFormats: false)
        // ffmpeg gives frames the container's aspect ratio, else the decoder's (the first frame's:
        // FFV1, for one, keeps it in frame headers); an unknown one stays 0/1, and a quarter turn
        // (its transpose filter) inverts a known one.
        pictures.start()
        pending = try pictures.next()
        let containerSAR = stream.pointee.sample_aspect_ratio
        let sar = containerSAR.num > 0 ? containerSAR
            : pending?.frame.pointer.pointee.sample_aspect_ratio ?? stream.pointee.codecpar.pointee.sample_aspect_ratio
        let turned = quarterTurns % 2 == 1
        let aspect = sar.num > 0 && sar.den > 0 ? (turned ? (sar.den, sar.num) : (sar.num, sar.den)) : (Int32(0), Int32(1))
        headerLines = FrameMD5.headerLines(timeBase: (timeBase.numerator, timeBase.denominator),
                                           width: turned ? info.height : info.width, height: turned ? info.width : info.height,
                                           sampleAspectRatio: (num: aspect.0, den: aspect.1))
    }

    deinit { pictures.cancel() }

    /// The next data line, or `nil` after the last frame.
    public func nextLine() throws(ReplayError) -> String? {
        let item: PictureStream.Item
        if let first = pending {
            item = first
            pending = nil
        } else {
            guard let next = try pictures.next() else { return nil }
            item = next
        }
        defer { pictures.recycle(item) }
        let frame = item.frame
        let size = try hashAtFirstGeometry(frame)
        // Pictures without timestamps (a raw H.264 stream) follow one another at the stream's rate,
        // counted as ffmpeg counts them: in microseconds, then rescaled (so 1/30 s steps give 79999).
        var pts: Int64
        if frame.pts != noPTS {
            pts = frame.pts + offset
            untimedClock = av_rescale_q(pts, timeBase.av, fx_time_base_q())
        } else {
            untimedClock = untimedClock.map { $0 + frameMicroseconds } ?? 0
            pts = av_rescale_q(untimedClock!, fx_time_base_q(), timeBase.av)
        }
        // A time before the last line's is raised to it, as ffmpeg's muxing does ("Non-monotonous DTS").
        if let lastWritten { pts = max(pts, lastWritten) }
        lastWritten = pts
        frames += 1
        return FrameMD5.dataLine(stream: 0, dts: pts, pts: pts, duration: duration, size: size, hash: md5.finalize())
    }

    /// Hashes `frame`; after a change of size or pixel format, first turned upright and then
    /// scaled to the first picture's upright size and format, in ffmpeg's filter order.
    private func hashAtFirstGeometry(_ frame: Frame) throws(ReplayError) -> Int {
        let f = frame.pointer.pointee
        guard let first = firstGeometry else {
            firstGeometry = (f.width, f.height, f.format)
            return try hash(frame)
        }
        guard f.width != first.width || f.height != first.height || f.format != first.format else { return try hash(frame) }
        let quarterTurned = quarterTurns % 2 == 1
        let width = Int(quarterTurned ? first.height : first.width), height = Int(quarterTurned ? first.width : first.height)
        try allocate(rescaled, width: width, height: height, format: first.format)
        guard upright.isTurning else {
            try rescaler.convert(frame, into: rescaled)
            return try hash(rescaled)
        }
        let picture = try upright.picture(frame, index: frames)
        try allocate(turnedUpright, width: picture.width, height: picture.height, format: f.format)
        turnedUpright.yuvImage?.copy(from: picture)
        try rescaler.convert(turnedUpright, into: rescaled)
        return try hashPacked(rescaled)
    }

    /// Gives `frame` buffers of this geometry (kept when it already has them).
    private func allocate(_ frame: Frame, width: Int, height: Int, format: Int32) throws(ReplayError) {
        do {
            try frame.allocate(width: width, height: height, format: AVPixelFormat(rawValue: format))
        } catch {
            throw .processing("frame \(frames): cannot allocate a \(width)x\(height) picture: \(error)")
        }
    }

    /// Feeds the frame's rawvideo bytes to the MD5 context; returns how many there were. 8-bit planar
    /// pictures are hashed row by row in place (the same bytes rawvideo packs), others packed first.
    private func hash(_ frame: Frame) throws(ReplayError) -> Int {
        guard frame.yuvImage != nil else { return try hashPacked(upright.isTurning ? turnUpright(frame) : frame) }
        let image = try upright.picture(frame, index: frames)
        var size = 0
        func add(_ plane: Plane) {
            md5.update(plane: plane)
            size += plane.width * plane.height
        }
        add(image.luma)
        add(image.cb)
        add(image.cr)
        if let alpha = image.alpha { add(alpha) }
        return size
    }

    /// `frame` (a pixel format other than 8-bit planar Y'CbCr) turned upright into `turnedUpright`,
    /// as ffmpeg's transpose and flip filters turn it: each plane pixel by pixel (a pixel of a packed
    /// format whole). Like the transpose filter, a quarter turn takes only chroma subsampled alike
    /// both ways (ffmpeg converts 4:2:2 first, which is not repeated here), and no palettes.
    private func turnUpright(_ frame: Frame) throws(ReplayError) -> Frame {
        let format = frame.pixelFormat
        let quarterTurned = quarterTurns % 2 != 0
        guard let descriptor = av_pix_fmt_desc_get(format),
              descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_HWACCEL) == 0,
              !quarterTurned || descriptor.pointee.log2_chroma_w == descriptor.pointee.log2_chroma_h else {
            throw .processing("frame \(frames): cannot turn a \(Scaler.name(format.rawValue)) picture upright")
        }
        try allocate(turnedUpright, width: quarterTurned ? frame.height : frame.width,
                     height: quarterTurned ? frame.width : frame.height, format: format.rawValue)
        var pixelSteps: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &pixelSteps) { av_image_fill_max_pixsteps($0.baseAddress!.assumingMemoryBound(to: Int32.self), nil, descriptor) }
        let steps = [pixelSteps.0, pixelSteps.1, pixelSteps.2, pixelSteps.3]
        let subsampling = ChromaSubsampling(shiftX: Int(descriptor.pointee.log2_chroma_w), shiftY: Int(descriptor.pointee.log2_chroma_h))
        for index in 0..<Int(av_pix_fmt_count_planes(format)) {
            // Planes 1 and 2 are subsampled (chroma, or nothing for RGB).
            let (width, height) = index == 1 || index == 2 ? subsampling.chromaSize(width: frame.width, height: frame.height)
                : (frame.width, frame.height)
            guard let source = frame.plane(index, width: width, height: height),
                  let destination = turnedUpright.plane(index, width: quarterTurned ? height : width, height: quarterTurned ? width : height)
            else { throw .processing("frame \(frames): a \(Scaler.name(format.rawValue)) picture without plane \(index)") }
            reorient(source, into: destination, quarterTurns: quarterTurns, mirror: upright.mirror, bytesPerPixel: Int(steps[index]))
        }
        return turnedUpright
    }

    /// Any pixel format, as the rawvideo encoder packs it.
    private func hashPacked(_ frame: Frame) throws(ReplayError) -> Int {
        let f = frame.pointer.pointee
        let format = AVPixelFormat(rawValue: f.format)
        let size = Int(av_image_get_buffer_size(format, f.width, f.height, 1))
        guard size > 0 else { throw .processing("frame \(frames): cannot pack a \(Scaler.name(f.format)) picture") }
        if packed.count < size { packed = [UInt8](repeating: 0, count: size) }
        let written = packed.withUnsafeMutableBufferPointer { buffer in
            withUnsafePointer(to: frame.pointer.pointee.data) {
                $0.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { data in
                    withUnsafePointer(to: frame.pointer.pointee.linesize) {
                        $0.withMemoryRebound(to: Int32.self, capacity: 8) { linesize in
                            av_image_copy_to_buffer(buffer.baseAddress, Int32(size), data, linesize, format, f.width, f.height, 1)
                        }
                    }
                }
            }
        }
        guard written == size else { throw .processing("frame \(frames): packing the picture failed: \(ffmpegErrorText(written))") }
        packed.withUnsafeBytes { md5.update(UnsafeRawBufferPointer(rebasing: $0[0..<size])) }
        return size
    }
}
