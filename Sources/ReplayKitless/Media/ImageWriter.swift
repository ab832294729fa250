import CFFmpeg
import Foundation

/// An 8-bit R'G'B' picture with packed rows (3 bytes per pixel, no padding): what QA reports put in PNG files.
package struct RGBPicture: Sendable, Equatable {
    package let width: Int
    package let height: Int
    /// `height` rows of `width` (red, green, blue) triples.
    package var pixels: [UInt8]

    /// A black picture.
    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: max(0, width * height * 3))
    }

    /// The pixel at column `x`, row `y`.
    package subscript(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        get {
            let offset = (y * width + x) * 3
            return (pixels[offset], pixels[offset + 1], pixels[offset + 2])
        }
        set {
            let offset = (y * width + x) * 3
            pixels[offset] = newValue.red
            pixels[offset + 1] = newValue.green
            pixels[offset + 2] = newValue.blue
        }
    }

    /// Copies `other` in with its top-left corner at column `x`, row `y` (clipped to this picture).
    package mutating func paste(_ other: RGBPicture, x: Int, y: Int) {
        let left = max(0, x), right = min(width, x + other.width)
        guard left < right else { return }
        let bytes = (right - left) * 3
        for row in max(0, y)..<min(height, y + other.height) {
            let target = (row * width + left) * 3, source = ((row - y) * other.width + (left - x)) * 3
            pixels.withUnsafeMutableBufferPointer { out in
                other.pixels.withUnsafeBufferPointer { input in
                    (out.baseAddress! + target).update(from: input.baseAddress! + source, count: bytes)
                }
            }
        }
    }
}

/// Still pictures for QA reports: Y'CbCr pictures converted to R'G'B' with their own colour matrix and
/// range (libswscale), and PNG files written with FFmpeg's `png` encoder.
package enum ImageWriter {
    /// `image` as R'G'B', converted with its colour space's matrix and range; scaled (bicubic) to
    /// `width` pixels wide with the height keeping the aspect ratio when `width` is given.
    package static func rgb(_ image: YUVImage, width: Int? = nil) throws(ReplayError) -> RGBPicture {
        let outWidth = max(1, width ?? image.width)
        let outHeight = max(1, width.map { Int(clamping: Double(image.height) * Double($0) / Double(image.width), rounding: .toNearestOrAwayFromZero, to: 1...InputLimits.pictureSide) } ?? image.height)
        let format: AVPixelFormat
        switch image.subsampling {
        case .yuv420: format = AV_PIX_FMT_YUV420P
        case .yuv422: format = AV_PIX_FMT_YUV422P
        case .yuv444: format = AV_PIX_FMT_YUV444P
        default: throw .processing("cannot convert a picture with \(image.subsampling) chroma to RGB")
        }
        do {
            let source = try Frame(width: image.width, height: image.height, format: format)
            guard let planes = source.yuvImage else { throw ReplayError.processing("no picture buffer") }
            planes.luma.copy(from: image.luma)
            planes.cb.copy(from: image.cb)
            planes.cr.copy(from: image.cr)
            let target = try Frame(width: outWidth, height: outHeight, format: AV_PIX_FMT_RGB24)
            try Scaler().convert(source, into: target, colorSpace: image.colorSpace)
            var picture = RGBPicture(width: outWidth, height: outHeight)
            let (base, stride) = target.firstPlane
            picture.pixels.withUnsafeMutableBufferPointer { out in
                for row in 0..<outHeight {
                    (out.baseAddress! + row * outWidth * 3).update(from: base + row * stride, count: outWidth * 3)
                }
            }
            return picture
        } catch let error as ReplayError {
            throw error
        } catch {
            throw .processing("converting a picture to RGB: \(error)")
        }
    }

    /// The picture encoded as a PNG file (FFmpeg's `png` encoder, rgb24).
    package static func png(_ picture: RGBPicture) throws(ReplayError) -> Data {
        guard picture.width > 0, picture.height > 0 else { throw .processing("cannot write an empty picture as PNG") }
        guard let codec = avcodec_find_encoder_by_name("png") else {
            throw .processing("FFmpeg's png encoder is not available in this build")
        }
        guard let allocated = avcodec_alloc_context3(codec) else { throw .processing("avcodec_alloc_context3: out of memory") }
        var context: UnsafeMutablePointer<AVCodecContext>? = allocated
        defer { avcodec_free_context(&context) }
        allocated.pointee.width = Int32(picture.width)
        allocated.pointee.height = Int32(picture.height)
        allocated.pointee.pix_fmt = AV_PIX_FMT_RGB24
        allocated.pointee.time_base = AVRational(num: 1, den: 1)
        // Same bytes on every machine and FFmpeg version that writes the same compression.
        allocated.pointee.flags |= fx_codec_flag_bitexact()
        do {
            try ffmpeg("avcodec_open2", avcodec_open2(allocated, codec, nil))
            let frame = try Frame(width: picture.width, height: picture.height, format: AV_PIX_FMT_RGB24)
            let (base, stride) = frame.firstPlane
            picture.pixels.withUnsafeBufferPointer { input in
                for row in 0..<picture.height {
                    (base + row * stride).update(from: input.baseAddress! + row * picture.width * 3, count: picture.width * 3)
                }
            }
            frame.pts = 0
            try ffmpeg("avcodec_send_frame", avcodec_send_frame(allocated, frame.pointer))
            try ffmpeg("avcodec_send_frame", avcodec_send_frame(allocated, nil))
            let packet = try Packet()
            try ffmpeg("avcodec_receive_packet", avcodec_receive_packet(allocated, packet.pointer))
            return Data(packet.data)
        } catch {
            throw .processing("encoding a \(picture.width)x\(picture.height) PNG: \(error)")
        }
    }
}

extension Frame {
    /// The first plane's samples and stride: the whole picture for packed formats (RGB).
    var firstPlane: (base: UnsafeMutablePointer<UInt8>, stride: Int) {
        (pointer.pointee.data.0!, Int(pointer.pointee.linesize.0))
    }
}
