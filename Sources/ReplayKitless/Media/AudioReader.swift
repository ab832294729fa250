import CFFmpeg

/// Decodes the first audio stream of a file to mono float samples with their presentation times:
/// for checking sound against pictures (A/V sync probes). Encoder priming is dropped by the
/// decoder (the container's skip-samples), so times are those a player uses. Packets the decoder
/// rejects are skipped (``FrameSource``), as every reader skips them.
package final class AudioReader {
    /// One decoded frame: when its first sample plays and its samples, channels averaged.
    package struct Chunk: Sendable {
        /// Stream time of the first sample, seconds.
        package var seconds: Double
        package var samples: [Float]
    }

    package let stream: StreamInfo
    private let source: FrameSource

    /// Opens the first audio stream of `url`; `badInput` when there is none.
    package init(url: String) throws(ReplayError) {
        let demuxer = try Demuxer(url: url)
        guard let audio = demuxer.streams.first(where: { $0.kind == .audio }) else { throw .badInput("\(url): no audio stream") }
        stream = audio
        source = try FrameSource(demuxer: demuxer, stream: audio, decoder: try Decoder(demuxer: demuxer, stream: audio.index), repairs: false)
    }

    /// The next decoded frame, or `nil` at the end of the stream.
    package func next() throws(ReplayError) -> Chunk? {
        guard let frame = try source.next() else { return nil }
        defer { frame.recycle() }
        return try chunk(of: frame)
    }

    private func chunk(of frame: Frame) throws(ReplayError) -> Chunk {
        let f = frame.pointer.pointee
        let count = Int(f.nb_samples), channels = Int(fx_frame_channels(frame.pointer))
        let format = AVSampleFormat(rawValue: f.format)
        let planar = av_sample_fmt_is_planar(format) != 0
        let packed = av_get_packed_sample_fmt(format)
        let bytes = Int(av_get_bytes_per_sample(format))
        guard channels > 0, let planes = f.extended_data,
              [AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_DBL].contains(packed) else {
            throw .processing("\(source.demuxer.url): audio sample format \(String(cString: av_get_sample_fmt_name(format))) is not supported")
        }
        /// Sample `index` of `channel`, scaled to −1…1.
        func value(_ channel: Int, _ index: Int) -> Float {
            guard let plane = planes[planar ? channel : 0] else { return 0 }
            let position = (planar ? index : index * channels + channel) * bytes
            switch packed {
            case AV_SAMPLE_FMT_S16: return Float(UnsafeRawPointer(plane).loadUnaligned(fromByteOffset: position, as: Int16.self)) / 32768
            case AV_SAMPLE_FMT_S32: return Float(UnsafeRawPointer(plane).loadUnaligned(fromByteOffset: position, as: Int32.self)) / 2_147_483_648
            case AV_SAMPLE_FMT_DBL: return Float(UnsafeRawPointer(plane).loadUnaligned(fromByteOffset: position, as: Double.self))
            default: return UnsafeRawPointer(plane).loadUnaligned(fromByteOffset: position, as: Float.self)
            }
        }
        let samples = (0..<count).map { index in
            (0..<channels).reduce(Float(0)) { $0 + value($1, index) } / Float(channels)
        }
        return Chunk(seconds: stream.timeBase.seconds(frame.pts), samples: samples)
    }
}
