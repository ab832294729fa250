import CFFmpeg

/// The state of a send/receive codec after asking it for output.
enum CodecOutput: Sendable, Equatable {
    /// A frame or packet was produced.
    case produced
    /// The codec needs more input before it can produce anything.
    case needsInput
    /// The codec is fully drained.
    case endOfStream
}

/// A decoder for one stream of a ``Demuxer``; owns its `AVCodecContext`.
///
/// Use it as a send/receive state machine: ``send(_:)`` a packet, then ``receive(into:)`` until
/// it answers `.needsInput`; at the end ``send(_:)`` `nil` and receive until `.endOfStream`.
final class Decoder: @unchecked Sendable {
    let context: UnsafeMutablePointer<AVCodecContext>
    /// Time base of the packets sent and the frames received (the stream's).
    let timeBase: Rational
    private let source: String
    /// Errors the codec reported through its log while decoding (concealed damage included).
    private let errorCounter: UnsafeMutablePointer<Int>

    /// Opens a decoder for `stream` of `demuxer`. `threads` 0 lets FFmpeg choose. With `alpha` false
    /// the codec's default decoder is used, as `ffmpeg` picks it, even where it drops an alpha channel.
    /// `reproducibleErrors` keeps to slice threads: with frame threads, which errors a damaged
    /// stream reports depends on how the threads happened to run.
    init(demuxer: Demuxer, stream index: Int, threads: Int = 0, keyframesOnly: Bool = false,
         alpha: Bool = true, reproducibleErrors: Bool = false) throws(ReplayError) {
        let stream = demuxer.stream(index)
        source = demuxer.url
        let par = stream.pointee.codecpar
        guard let codec = (alpha ? Decoder.alphaDecoder(for: stream) : nil) ?? avcodec_find_decoder(par!.pointee.codec_id) else {
            throw .badInput("\(demuxer.url): stream \(index): no decoder for codec \(String(cString: avcodec_get_name(par!.pointee.codec_id)))")
        }
        guard let context = avcodec_alloc_context3(codec), let counter = fx_error_counter_new() else {
            throw .processing("avcodec_alloc_context3: out of memory")
        }
        self.context = context
        errorCounter = counter
        context.pointee.opaque = UnsafeMutableRawPointer(counter)
        timeBase = Rational(stream.pointee.time_base)
        do {
            try ffmpeg("avcodec_parameters_to_context", avcodec_parameters_to_context(context, par))
            context.pointee.pkt_timebase = stream.pointee.time_base
            context.pointee.thread_count = Int32(threads)
            if reproducibleErrors { context.pointee.thread_type = FF_THREAD_SLICE }
            if keyframesOnly { context.pointee.skip_frame = AVDISCARD_NONKEY }
            try ffmpeg("avcodec_open2", avcodec_open2(context, codec, nil))
        } catch {
            throw error.inputError("\(demuxer.url): stream \(index): cannot open decoder")
        }
    }

    /// VP9 keeps alpha in a side channel (Matroska BlockAdditional) that FFmpeg's native VP9
    /// decoder ignores; streams tagged `alpha_mode` need libvpx's decoder to get it back.
    static func alphaDecoder(for stream: UnsafeMutablePointer<AVStream>) -> UnsafePointer<AVCodec>? {
        guard stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_VP9,
              let tag = av_dict_get(stream.pointee.metadata, "alpha_mode", nil, 0),
              (Int(String(cString: tag.pointee.value)) ?? 0) != 0 else { return nil }
        return avcodec_find_decoder_by_name("libvpx-vp9")
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
        av_free(errorCounter)
    }

    /// The threads the codec decodes on, as it set itself up (for `threads` 0: one per core and one
    /// more on more than one core, FFmpeg's choice).
    var threads: Int { Int(context.pointee.thread_count) }

    /// How many errors the codec has reported so far (needs ``FFmpegLogging/installErrorCounting()``).
    var reportedErrors: Int { fx_error_counter_read(errorCounter) }

    /// Sends one packet, or `nil` to start draining. Corrupt data is reported as a thrown
    /// ``ReplayError`` of kind `badInput`; the decoder stays usable for the next packet.
    func send(_ packet: Packet?) throws(ReplayError) {
        let status = avcodec_send_packet(context, packet?.pointer)
        if status >= 0 || status == fx_averror_eof() { return }
        if status == fx_averror_eagain() {
            // The caller must receive first; the contract of receive-until-needsInput prevents this.
            throw .processing("\(source): decoder refused input before its output was read")
        }
        throw decodeError(status)
    }

    /// Refuses a decoded picture larger than fxreplay reads (``checkPictureSize(width:height:source:)``).
    /// The readers call it on every picture they receive (videos, masks, backgrounds), before anything is
    /// allocated by its size; unlike a decode error it is never skipped.
    func checkSize(of frame: Frame) throws(ReplayError) {
        try checkPictureSize(width: frame.width, height: frame.height, source: source)
    }

    /// A failed decode: damaged input (exit 3), unless FFmpeg ran out of memory (exit 4).
    private func decodeError(_ status: Int32) -> ReplayError {
        FFmpegFailure(call: "decoding", code: status).inputError(source)
    }

    /// Receives the next decoded frame into `frame`.
    func receive(into frame: Frame) throws(ReplayError) -> CodecOutput {
        let status = avcodec_receive_frame(context, frame.pointer)
        if status >= 0 {
            frame.pts = frame.pointer.pointee.best_effort_timestamp
            return .produced
        }
        if status == fx_averror_eagain() { return .needsInput }
        if status == fx_averror_eof() { return .endOfStream }
        throw decodeError(status)
    }

    /// Forgets buffered state (after a seek).
    func flush() { avcodec_flush_buffers(context) }
}
