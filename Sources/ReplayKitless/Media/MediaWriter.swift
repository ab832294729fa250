import CFFmpeg
import Foundation

/// Writes a new recording from pictures and sound the caller makes, with exact timestamps:
/// test fixtures and the synthetic sample call. Audio is AAC (Opus in WebM).
public final class MediaWriter {
    /// The video track to write.
    public struct VideoSpec: Sendable {
        public var size: PictureSize
        /// Time base of the timestamps passed to ``MediaWriter/addVideoFrame(pts:duration:size:sei:draw:)``.
        public var timeBase: Rational
        /// Nominal rate, a hint for rate control only: timestamps decide timing.
        public var frameRate: Rational
        public var encoder: EncoderSettings
        /// Display rotation written to the container, degrees clockwise.
        public var rotation: Int
        /// Whether the container says to show the picture mirrored (before the rotation, as FFmpeg reads it).
        public var mirrored: Bool
        public var colorSpace: ColorSpace

        public init(size: PictureSize, timeBase: Rational, frameRate: Rational = Rational(30, 1),
                    encoder: EncoderSettings = EncoderSettings(), rotation: Int = 0, mirrored: Bool = false,
                    colorSpace: ColorSpace = .bt709Limited) {
            self.size = size
            self.timeBase = timeBase
            self.frameRate = frameRate
            self.encoder = encoder
            self.rotation = rotation
            self.mirrored = mirrored
            self.colorSpace = colorSpace
        }
    }

    /// The audio track to write.
    public struct AudioSpec: Sendable {
        public var sampleRate: Int
        public var channels: Int
        /// Timestamp of the first sample, in samples (an audio/video offset).
        public var startSample: Int64
        /// Opus instead of AAC; `nil`: Opus in WebM only (Matroska takes either: call archives use Opus).
        public var opus: Bool?
        public init(sampleRate: Int = 48000, channels: Int = 1, startSample: Int64 = 0, opus: Bool? = nil) {
            self.sampleRate = sampleRate
            self.channels = channels
            self.startSample = startSample
            self.opus = opus
        }

        /// Whether a file at `path` gets Opus.
        func usesOpus(_ path: String) -> Bool { opus ?? path.lowercased().hasSuffix(".webm") }
    }

    private let spec: VideoSpec
    private let codec: VideoCodec
    private let muxer: Muxer
    private var encoder: Encoder
    private let videoStream: Int
    private let audio: AudioTrack?
    private let picture: Frame
    private let converted = Frame()
    private let scaler = Scaler()
    private let packet = Packet()
    private let commitsOnFinish: Bool

    /// - Parameter group: write the file as one of the group's outputs, moved into place when the
    ///   group is committed rather than by ``finish()``.
    public init(path: String, video: VideoSpec, audio audioSpec: AudioSpec? = nil, overwrite: Bool = true,
                group: OutputGroup? = nil) throws(ReplayError) {
        spec = video
        codec = video.encoder.codec ?? VideoCodec.defaultCodec(forOutput: path)
        let output = if let group { try group.reserve(path, overwrite: overwrite) } else { try AtomicOutput(path: path, overwrite: overwrite) }
        commitsOnFinish = group == nil
        muxer = try Muxer(output: output, bitexact: true)
        encoder = try MediaWriter.openEncoder(video, codec: codec, size: video.size, globalHeader: muxer.needsGlobalHeader)
        videoStream = try muxer.addStream(encoder: encoder, rotation: video.rotation, mirrored: video.mirrored)
        if let audioSpec {
            audio = try AudioTrack(spec: audioSpec, muxer: muxer, opus: audioSpec.usesOpus(path))
        } else {
            audio = nil
        }
        try muxer.writeHeader()
        do {
            picture = try Frame(width: video.size.width, height: video.size.height, format: AV_PIX_FMT_YUV420P)
        } catch { throw .processing("\(error)") }
    }

    private static func openEncoder(_ spec: VideoSpec, codec: VideoCodec, size: PictureSize, globalHeader: Bool) throws(ReplayError) -> Encoder {
        var settings = spec.encoder
        settings.deterministic = true
        // Full-range pictures (exact masks) are tagged so; limited range stays untagged, as before.
        guard spec.colorSpace.fullRange else {
            return try Encoder(settings: settings, codec: codec, width: size.width, height: size.height,
                               timeBase: spec.timeBase.av, frameRate: spec.frameRate.av, colorOf: nil,
                               alpha: false, globalHeader: globalHeader)
        }
        guard let parameters = avcodec_parameters_alloc() else { throw .processing("avcodec_parameters_alloc: out of memory") }
        defer {
            var owned: UnsafeMutablePointer<AVCodecParameters>? = parameters
            avcodec_parameters_free(&owned)
        }
        parameters.pointee.color_range = AVCOL_RANGE_JPEG
        return try Encoder(settings: settings, codec: codec, width: size.width, height: size.height,
                           timeBase: spec.timeBase.av, frameRate: spec.frameRate.av, colorOf: UnsafePointer(parameters),
                           alpha: false, globalHeader: globalHeader)
    }

    /// Encodes one picture shown at `pts` for `duration` (both in the video time base).
    /// - Parameters:
    ///   - size: a new picture size from this frame on (a mid-stream resolution change; VP8/VP9 only).
    ///   - sei: `user_data_unregistered` SEI payload (UUID + data) for H.264/HEVC.
    ///   - draw: fills the 8-bit 4:2:0 picture.
    public func addVideoFrame(pts: Int64, duration: Int64, size: PictureSize? = nil, sei: [UInt8]? = nil,
                              draw: (YUVImage) -> Void) throws(ReplayError) {
        do {
            if let size, size != PictureSize(width: encoder.context.pointee.width.int, height: encoder.context.pointee.height.int) {
                try drain(flush: true)
                encoder = try MediaWriter.openEncoder(spec, codec: codec, size: size, globalHeader: false)
            }
            let width = encoder.context.pointee.width.int, height = encoder.context.pointee.height.int
            try picture.allocate(width: width, height: height, format: AV_PIX_FMT_YUV420P)
            guard var image = picture.yuvImage else { throw ReplayError.processing("no picture buffer") }
            image.colorSpace = spec.colorSpace
            draw(image)
            var frame = picture
            if encoder.pixelFormat != AV_PIX_FMT_YUV420P {
                try converted.allocate(width: width, height: height, format: encoder.pixelFormat)
                try scaler.convert(picture, into: converted)
                frame = converted
            }
            frame.pts = pts
            frame.duration = duration
            av_frame_remove_side_data(frame.pointer, AV_FRAME_DATA_SEI_UNREGISTERED)
            if let sei, let side = av_frame_new_side_data(frame.pointer, AV_FRAME_DATA_SEI_UNREGISTERED, sei.count) {
                sei.withUnsafeBytes { side.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: sei.count) }
            }
            try encoder.send(frame)
            try drain(flush: false)
        } catch let error as ReplayError { throw error } catch { throw .processing("\(error)") }
    }

    /// Encodes interleaved float samples in −1…1 (channel count of the audio spec).
    public func addAudio(_ samples: [Float]) throws(ReplayError) {
        guard let audio else { throw .usage("this writer has no audio track") }
        try audio.add(samples)
    }

    /// Where the file is until it is moved into place (a group's output that is never committed is
    /// read from here, and removed with the group).
    public var temporaryPath: String { muxer.output.temporaryPath }

    /// Drains both encoders, writes the trailer and (unless it belongs to a group) moves the file into place.
    public func finish() throws(ReplayError) {
        try drain(flush: true)
        try audio?.finish()
        try muxer.finish(commit: commitsOnFinish)
    }

    private func drain(flush: Bool) throws(ReplayError) {
        if flush { try encoder.send(nil) }
        while try encoder.receive(into: packet) == .produced {
            try muxer.write(packet, stream: videoStream)
        }
    }
}

private extension Int32 {
    var int: Int { Int(self) }
}

/// An audio encoder feeding a muxer stream, buffering samples into the codec's frame size.
final class AudioTrack {
    let context: UnsafeMutablePointer<AVCodecContext>
    let muxer: Muxer
    let stream: Int
    let frame = Frame()
    let packet = Packet()
    let channels: Int
    var pending: [Float] = []
    var nextPTS: Int64

    init(spec: MediaWriter.AudioSpec, muxer: Muxer, opus: Bool) throws(ReplayError) {
        guard let codec = avcodec_find_encoder_by_name(opus ? "libopus" : "aac"),
              let context = avcodec_alloc_context3(codec) else { throw .processing("no audio encoder") }
        self.context = context
        self.muxer = muxer
        channels = spec.channels
        nextPTS = spec.startSample
        context.pointee.sample_rate = Int32(spec.sampleRate)
        context.pointee.sample_fmt = opus ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_FLTP
        fx_set_default_channel_layout(context, Int32(spec.channels))
        context.pointee.time_base = AVRational(num: 1, den: Int32(spec.sampleRate))
        context.pointee.bit_rate = 96_000
        context.pointee.flags |= fx_codec_flag_bitexact()
        if muxer.needsGlobalHeader { context.pointee.flags |= fx_codec_flag_global_header() }
        do {
            try ffmpeg("avcodec_open2", avcodec_open2(context, codec, nil))
        } catch { throw .processing("audio encoder: \(error)") }
        guard let avStream = avformat_new_stream(muxer.context, nil) else { throw .processing("out of memory") }
        avcodec_parameters_from_context(avStream.pointee.codecpar, context)
        avStream.pointee.time_base = context.pointee.time_base
        stream = Int(avStream.pointee.index)
        muxer.registerTimeBase(context.pointee.time_base)
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
    }

    func add(_ samples: [Float]) throws(ReplayError) {
        pending += samples
        let frameSize = Int(context.pointee.frame_size) * channels
        while pending.count >= frameSize {
            try encode(Array(pending[0..<frameSize]))
            pending.removeFirst(frameSize)
        }
    }

    func finish() throws(ReplayError) {
        if !pending.isEmpty { try encode(pending) }
        pending = []
        avcodec_send_frame(context, nil)
        try drain()
    }

    private func encode(_ samples: [Float]) throws(ReplayError) {
        let count = samples.count / channels
        frame.unref()
        frame.pointer.pointee.nb_samples = Int32(count)
        frame.pointer.pointee.format = context.pointee.sample_fmt.rawValue
        frame.pointer.pointee.sample_rate = context.pointee.sample_rate
        do {
            try ffmpeg("channel layout", fx_frame_copy_channel_layout(frame.pointer, context))
            try ffmpeg("av_frame_get_buffer", av_frame_get_buffer(frame.pointer, 0))
        } catch { throw .processing("\(error)") }
        let planar = context.pointee.sample_fmt == AV_SAMPLE_FMT_FLTP
        withUnsafeBytes(of: frame.pointer.pointee.data) { data in
            for channel in 0..<(planar ? channels : 1) {
                let base = data.load(fromByteOffset: channel * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride,
                                     as: UnsafeMutablePointer<UInt8>?.self)!
                base.withMemoryRebound(to: Float.self, capacity: samples.count) { out in
                    if planar {
                        for i in 0..<count { out[i] = samples[i * channels + channel] }
                    } else {
                        for i in 0..<samples.count { out[i] = samples[i] }
                    }
                }
            }
        }
        frame.pts = nextPTS
        nextPTS += Int64(count)
        let status = avcodec_send_frame(context, frame.pointer)
        guard status >= 0 else { throw .processing("audio encode: \(ffmpegErrorText(status))") }
        try drain()
    }

    private func drain() throws(ReplayError) {
        while avcodec_receive_packet(context, packet.pointer) >= 0 {
            try muxer.write(packet, stream: stream)
        }
    }
}
