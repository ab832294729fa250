import CFFmpeg
import Foundation

/// PNG files through FFmpeg's `png` encoder (bit-exact flags, so the same pixels give the same bytes)
/// for the sample's background and render's contact sheet. Stands in until the QA branch's
/// `ImageWriter` is on main.
enum SamplePNG {
    /// Encodes a 4:2:0 picture as an R'G'B' PNG, converted with its own colour space (libswscale).
    static func encode(_ image: YUVImage) throws(ReplayError) -> Data {
        let size = PictureSize(width: image.width, height: image.height)
        do {
            let source = try Frame(width: size.width, height: size.height, format: AV_PIX_FMT_YUV420P)
            guard let planes = source.yuvImage, image.subsampling == .yuv420 else {
                throw ReplayError.processing("only 4:2:0 pictures are written as PNG")
            }
            planes.luma.copy(from: image.luma)
            planes.cb.copy(from: image.cb)
            planes.cr.copy(from: image.cr)
            let rgb = try Frame(width: size.width, height: size.height, format: AV_PIX_FMT_RGB24)
            try Scaler().convert(source, into: rgb, colorSpace: image.colorSpace)
            let base = rgb.pointer.pointee.data.0!, stride = Int(rgb.pointer.pointee.linesize.0)
            var pixels = [UInt8](repeating: 0, count: size.width * size.height * 3)
            pixels.withUnsafeMutableBufferPointer { out in
                for row in 0..<size.height {
                    (out.baseAddress! + row * size.width * 3).update(from: base + row * stride, count: size.width * 3)
                }
            }
            return try encode(pixels, size: size)
        } catch let error as ReplayError {
            throw error
        } catch {
            throw .processing("converting a picture for PNG: \(error)")
        }
    }

    /// Encodes packed R'G'B' rows (3 bytes per pixel) as a PNG file.
    static func encode(_ pixels: [UInt8], size: PictureSize) throws(ReplayError) -> Data {
        guard let codec = avcodec_find_encoder_by_name("png") else {
            throw .processing("FFmpeg's png encoder is not available in this build")
        }
        guard let allocated = avcodec_alloc_context3(codec) else { throw .processing("avcodec_alloc_context3: out of memory") }
        var context: UnsafeMutablePointer<AVCodecContext>? = allocated
        defer { avcodec_free_context(&context) }
        allocated.pointee.width = Int32(size.width)
        allocated.pointee.height = Int32(size.height)
        allocated.pointee.pix_fmt = AV_PIX_FMT_RGB24
        allocated.pointee.time_base = AVRational(num: 1, den: 1)
        allocated.pointee.flags |= fx_codec_flag_bitexact()
        do {
            try ffmpeg("avcodec_open2", avcodec_open2(allocated, codec, nil))
            let frame = try Frame(width: size.width, height: size.height, format: AV_PIX_FMT_RGB24)
            let base = frame.pointer.pointee.data.0!, stride = Int(frame.pointer.pointee.linesize.0)
            let rowBytes = size.width * 3
            pixels.withUnsafeBufferPointer { input in
                for row in 0..<size.height {
                    (base + row * stride).update(from: input.baseAddress! + row * rowBytes, count: rowBytes)
                }
            }
            frame.pts = 0
            try ffmpeg("avcodec_send_frame", avcodec_send_frame(allocated, frame.pointer))
            try ffmpeg("avcodec_send_frame", avcodec_send_frame(allocated, nil))
            let packet = Packet()
            try ffmpeg("avcodec_receive_packet", avcodec_receive_packet(allocated, packet.pointer))
            return Data(packet.data)
        } catch {
            throw .processing("encoding a \(size) PNG: \(error)")
        }
    }
}
