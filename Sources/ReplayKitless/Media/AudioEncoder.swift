import CFFmpeg

/// The audio codecs fxreplay writes: AAC (MP4, MOV, Matroska) and Opus (WebM, Matroska).
public enum AudioCodec: String, Sendable, CaseIterable, Codable {
    case aac, opus

    var encoderName: String { self == .opus ? "libopus" : "aac" }

    /// The codec a container gets when the caller names none: Opus for WebM (the only one it
    /// takes), AAC elsewhere.
    public static func defaultCodec(forOutput path: FilePath) -> AudioCodec {
        path.string.lowercased().hasSuffix(".webm") ? .opus : .aac
    }
}

/// An audio encoder feeding one stream of a ``Muxer``: float samples in, packets out. Samples are
/// gathered straight into the codec's frame (its `frame_size`), so nothing is copied twice and
/// no buffer is allocated per frame. Used by ``MediaWriter`` (fixtures, the sample) and by the
/// compose sound track (``CallSoundTrack``).
final class AudioEncoder {
    /// The muxer stream the packets go to.
    let stream: Int
    let channels: Int
    let sampleRate: Int
    private let context: UnsafeMutablePointer<AVCodecContext>
    private let muxer: Muxer
    private let frame: Frame
    private let packet: Packet
    private let planar: Bool
    private let frameSize: Int
    /// Samples (per channel) already in `frame`.
    private var filled = 0
    /// `frame`'s sample planes (one, interleaved, for Opus).
    private var planes: [UnsafeMutablePointer<Float>] = []
    /// Timestamp, in samples, of the next sample encoded.
    private var nextPTS: Int64
    /// Leading samples still to be left out (see `init`).
    private var leadingSamplesToDrop = 0

    /// Adds the stream to `muxer` (before its header is written).
    /// - Parameter startSample: timestamp of the first sample, in samples (an audio/video offset).
    init(codec: AudioCodec, sampleRate: Int, channels: Int, startSample: Int64 = 0, bitRate: Int = 96_000,
         bitexact: Bool = true, muxer: Muxer) throws(ReplayError) {
        frame = try Frame()
        packet = try Packet()
        guard let avCodec = avcodec_find_encoder_by_name(codec.encoderName),
              let context = avcodec_alloc_context3(avCodec) else {
            throw .processing("audio encoder \(codec.encoderName) is not available in this FFmpeg build")
        }
        self.context = context
        self.muxer = muxer
        self.channels = channels
        self.sampleRate = sampleRate
        nextPTS = startSample
        // libopus takes interleaved floats, FFmpeg's AAC encoder planar ones.
        planar = codec == .aac
        context.pointee.sample_rate = Int32(sampleRate)
        context.pointee.sample_fmt = planar ? AV_SAMPLE_FMT_FLTP : AV_SAMPLE_FMT_FLT
        fx_set_default_channel_layout(context, Int32(channels))
        context.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        context.pointee.bit_rate = Int64(bitRate)
        if bitexact { context.pointee.flags |= fx_codec_flag_bitexact() }
        if muxer.needsGlobalHeader { context.pointee.flags |= fx_codec_flag_global_header() }
        do {
            try ffmpeg("avcodec_open2", avcodec_open2(context, avCodec, nil))
        } catch { throw .processing("\(muxer.output.finalPath): \(codec.encoderName) at \(sampleRate) Hz, \(channels) channels: \(error)") }
        frameSize = context.pointee.frame_size > 0 ? Int(context.pointee.frame_size) : 1024
        // The codec puts priming before the first sample (AAC 1024, Opus 312), so its first packet
        // would start before the first sample's time. MP4/MOV hide the priming with an edit list.
        // Matroska and WebM cannot store that negative start: their muxer would shift every
        // stream, the pictures too, to make room (7 ms with Opus). There the packets start at the
        // first sample's time instead. With Opus the container records the priming (CodecDelay)
        // and players drop it, so every sample keeps its time; AAC's priming is not recorded and
        // is played, so it takes the place of the first samples, which are left out.
        if !muxer.isMP4Family {
            let priming = Int(context.pointee.initial_padding)
            nextPTS += Int64(priming)
            if codec != .opus { leadingSamplesToDrop = priming }
        }
        guard let avStream = avformat_new_stream(muxer.context, nil) else { throw .processing("avformat_new_stream: out of memory") }
        avcodec_parameters_from_context(avStream.pointee.codecpar, context)
        avStream.pointee.time_base = context.pointee.time_base
        stream = Int(avStream.pointee.index)
        muxer.registerTimeBase(context.pointee.time_base)
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
    }

    /// Encodes interleaved samples in −1…1 (`channels` per sample time).
    func add(interleaved samples: UnsafeBufferPointer<Float>) throws(ReplayError) {
        let count = samples.count / channels
        try add(count: count) { out, start, done, n in
            guard planar else {
                out[0].advanced(by: start * channels).update(from: samples.baseAddress! + done * channels, count: n * channels)
                return
            }
            for channel in 0..<channels {
                for i in 0..<n { out[channel][start + i] = samples[(done + i) * channels + channel] }
            }
        }
    }

    /// Encodes `count` samples of each channel from one plane per channel.
    func add(planes: [UnsafePointer<Float>], count: Int) throws(ReplayError) {
        precondition(planes.count == channels, "one plane per channel")
        try add(count: count) { out, start, done, n in
            for channel in 0..<channels {
                if planar {
                    out[channel].advanced(by: start).update(from: planes[channel] + done, count: n)
                } else {
                    let plane = planes[channel] + done, base = out[0].advanced(by: start * channels + channel)
                    for i in 0..<n { base[i * channels] = plane[i] }
                }
            }
        }
    }

    /// Moves `count` samples into codec frames: `copy(frame planes, offset in frame, samples done, n)`.
    private func add(count: Int, copy: ([UnsafeMutablePointer<Float>], Int, Int, Int) -> Void) throws(ReplayError) {
        var done = min(count, leadingSamplesToDrop)
        leadingSamplesToDrop -= done
        while done < count {
            if filled == 0 { try prepareFrame() }
            let n = min(frameSize - filled, count - done)
            copy(planes, filled, done, n)
            filled += n
            done += n
            if filled == frameSize { try encodeFrame() }
        }
    }

    /// Encodes what is pending (a short last frame), drains the encoder.
    func finish() throws(ReplayError) {
        if filled > 0 { try encodeFrame() }
        avcodec_send_frame(context, nil)
        try drain()
    }

    private func prepareFrame() throws(ReplayError) {
        // The encoder may still hold the previous buffer: a fresh one then, else the same reused.
        frame.unref()
        frame.pointer.pointee.nb_samples = Int32(frameSize)
        frame.pointer.pointee.format = context.pointee.sample_fmt.rawValue
        frame.pointer.pointee.sample_rate = context.pointee.sample_rate
        do {
            try ffmpeg("channel layout", fx_frame_copy_channel_layout(frame.pointer, context))
            try ffmpeg("av_frame_get_buffer", av_frame_get_buffer(frame.pointer, 0))
        } catch { throw .processing("\(muxer.output.finalPath): audio frame: \(error)") }
        planes = withUnsafeBytes(of: frame.pointer.pointee.data) { data in
            (0..<(planar ? channels : 1)).map { channel in
                UnsafeMutableRawPointer(data.load(fromByteOffset: channel * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride,
                                                  as: UnsafeMutablePointer<UInt8>?.self)!)
                    .assumingMemoryBound(to: Float.self)
            }
        }
    }

    private func encodeFrame() throws(ReplayError) {
        frame.pointer.pointee.nb_samples = Int32(filled)
        frame.pts = nextPTS
        nextPTS += Int64(filled)
        filled = 0
        let status = avcodec_send_frame(context, frame.pointer)
        guard status >= 0 else { throw .processing("\(muxer.output.finalPath): audio encode: \(ffmpegErrorText(status))") }
        try drain()
    }

    private func drain() throws(ReplayError) {
        while avcodec_receive_packet(context, packet.pointer) >= 0 {
            try muxer.write(packet, stream: stream)
        }
    }
}
