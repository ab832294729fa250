import CFFmpeg

/// Converts pictures between sizes and pixel formats with libswscale; owns its `SwsContext`,
/// which is rebuilt only when the input or output geometry changes.
final class Scaler: @unchecked Sendable {
    private var context: OpaquePointer?
    private var key: Geometry?

    private struct Geometry: Equatable {
        var sourceWidth, sourceHeight, sourceFormat: Int32
        var destinationWidth, destinationHeight, destinationFormat: Int32
        var colorSpace: ColorSpace?
        var outputColorSpace: ColorSpace?
    }

    /// libswscale's flags: how the picture is filtered.
    private let flags: Int32

    /// The default, `SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT`, is the most accurate; the
    /// `ffmpeg` CLI scales with `SWS_BICUBIC` alone.
    init(flags: Int32 = SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT) {
        self.flags = flags
    }

    deinit { sws_freeContext(context) }

    /// Scales/converts `source` into `destination`, whose size and format are already set and allocated.
    /// `colorSpace` decides the Y'CbCr matrix and range when converting from or to RGB;
    /// `outputColorSpace`, when given, is the destination's where it differs (a range change).
    func convert(_ source: Frame, into destination: Frame, colorSpace: ColorSpace? = nil,
                 outputColorSpace: ColorSpace? = nil) throws(ReplayError) {
        let s = source.pointer.pointee, d = destination.pointer.pointee
        let newKey = Geometry(sourceWidth: s.width, sourceHeight: s.height, sourceFormat: s.format,
                              destinationWidth: d.width, destinationHeight: d.height, destinationFormat: d.format,
                              colorSpace: colorSpace, outputColorSpace: outputColorSpace)
        if key != newKey {
            sws_freeContext(context)
            context = sws_getContext(s.width, s.height, AVPixelFormat(rawValue: s.format),
                                     d.width, d.height, AVPixelFormat(rawValue: d.format),
                                     flags, nil, nil, nil)
            guard let context else {
                key = nil
                throw .processing("cannot convert \(s.width)x\(s.height) \(Scaler.name(s.format)) to \(d.width)x\(d.height) \(Scaler.name(d.format))")
            }
            if let input = colorSpace ?? outputColorSpace {
                let output = outputColorSpace ?? input
                sws_setColorspaceDetails(context, sws_getCoefficients(input.swsMatrix), input.fullRange ? 1 : 0,
                                         sws_getCoefficients(output.swsMatrix), output.fullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
            }
            key = newKey
        }
        let lines = withUnsafePointer(to: source.pointer.pointee.data) {
            $0.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { sourceData in
                withUnsafePointer(to: source.pointer.pointee.linesize) {
                    $0.withMemoryRebound(to: Int32.self, capacity: 8) { sourceStride in
                        withUnsafeMutablePointer(to: &destination.pointer.pointee.data) {
                            $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { destinationData in
                                withUnsafePointer(to: destination.pointer.pointee.linesize) {
                                    $0.withMemoryRebound(to: Int32.self, capacity: 8) { destinationStride in
                                        sws_scale(context, sourceData, sourceStride, 0, s.height, destinationData, destinationStride)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard lines > 0 else { throw .processing("sws_scale failed: \(ffmpegErrorText(lines))") }
    }

    /// `source` at its own size converted to `format` in `destination`, which keeps its buffers
    /// between calls of one geometry.
    func convert(_ source: Frame, into destination: Frame, format: AVPixelFormat) throws(ReplayError) {
        do {
            try destination.allocate(width: source.width, height: source.height, format: format)
        } catch {
            throw .processing("cannot allocate a \(source.width)x\(source.height) picture: \(error)")
        }
        try convert(source, into: destination)
    }

    static func name(_ format: Int32) -> String {
        av_get_pix_fmt_name(AVPixelFormat(rawValue: format)).map { String(cString: $0) } ?? "unknown"
    }
}

extension ColorSpace {
    var swsMatrix: Int32 {
        switch matrix {
        case .bt601: SWS_CS_ITU601
        case .bt709: SWS_CS_ITU709
        case .bt2020: SWS_CS_BT2020
        }
    }
}
