import CFFmpeg

/// The video codecs `fxreplay render` can write, with the FFmpeg encoder behind each.
public enum VideoCodec: String, Sendable, CaseIterable, Codable {
    case h264, hevc, vp9, vp8, prores, ffv1

    var encoderName: String {
        switch self {
        case .h264: "libx264"
        case .hevc: "libx265"
        case .vp9: "libvpx-vp9"
        case .vp8: "libvpx"
        case .prores: "prores_ks"
        case .ffv1: "ffv1"
        }
    }

    /// Pixel formats to ask for, best first: 8-bit 4:2:0 where the codec takes it, so no
    /// conversion stands between the processing stages and the encoder.
    func preferredPixelFormats(alpha: Bool) -> [AVPixelFormat] {
        switch (self, alpha) {
        case (.prores, false): [AV_PIX_FMT_YUV422P10LE]
        case (.prores, true): [AV_PIX_FMT_YUVA444P10LE]
        case (_, true): [AV_PIX_FMT_YUVA420P]
        case (_, false): [AV_PIX_FMT_YUV420P]
        }
    }

    /// The most threads the encoder takes, when it has a limit: libx265 runs one frame per thread
    /// and refuses more than 16 (X265_MAX_FRAME_THREADS); FFmpeg's frame-threaded encoders
    /// (prores_ks) more than 64 (MAX_THREADS). x264, libvpx and FFV1 take any count (checked to 1024).
    public var maximumThreads: Int? {
        switch self {
        case .hevc: 16
        case .prores: 64
        case .h264, .vp9, .vp8, .ffv1: nil
        }
    }

    /// Whether the codec can carry an alpha plane.
    public var supportsAlpha: Bool { self == .prores || self == .vp9 || self == .ffv1 }

    /// The codec a container gets when the user names none: VP9 for WebM, H.264 elsewhere.
    public static func defaultCodec(forOutput path: FilePath) -> VideoCodec {
        path.string.lowercased().hasSuffix(".webm") ? .vp9 : .h264
    }

    /// Whether the codec carries pose SEI (formats.md §4).
    public var carriesSEI: Bool { self == .h264 || self == .hevc }

    /// Whether the codec can say its samples are full range (ProRes is video range only).
    var storesFullRange: Bool { self != .prores }
}

/// Encoder settings a user chooses.
public struct EncoderSettings: Sendable, Codable, Equatable {
    /// The codec; `nil` picks ``VideoCodec/defaultCodec(forOutput:)``.
    public var codec: VideoCodec?
    /// Constant rate factor (x264/x265/VPx); `nil` uses the codec's default.
    public var crf: Int?
    /// Speed preset (x264/x265 names; VPx maps them to cpu-used).
    public var preset: String?
    /// Target bitrate in bits per second; overrides `crf` when set.
    public var bitrate: Int?
    /// Encoder threads; 0 lets the encoder decide.
    public var threads: Int = 0
    /// Fixed thread count and bit-exact flags so two runs produce the same bytes.
    public var deterministic: Bool = false
    /// Frames between keyframes at most (ffmpeg's `-g`); `nil`: the encoder's default.
    public var keyint: Int?
    /// The encoder's tuning (`-tune`: film, animation, grain, stillimage, zerolatency…).
    public var tune: String?
    /// The codec profile (`-profile:v`: baseline, main, high, high444…; a number for VPx).
    public var profile: String?
    /// The codec level (`-level`: 3.1, 4.0…).
    public var level: String?
    /// The encoded pixel format by FFmpeg's name (`-pix_fmt`), 8-bit for now; `nil`: 4:2:0.
    public var pixelFormat: String?
    /// Encoder options passed through as they are (ffmpeg's `-KEY VALUE`), each checked against
    /// the encoder's own options before anything is written.
    public var encoderOptions: [String: String] = [:]
    /// MP4/MOV outputs carry their index (`moov`) before the media, so playback over the web can
    /// start before the download ends (`-movflags +faststart`).
    public var faststart = true

    /// Settings that leave every choice to the codec's defaults (CRF, preset, threads), with faststart on.
    public init() {}

    /// x264/x265 preset names; VPx maps them to its speed.
    static let speedPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
    /// ProRes profiles, given as the preset.
    static let proResProfiles = ["proxy", "lt", "standard", "hq", "4444", "4444xq"]

    /// Checks the settings against what `codec` takes, before anything is written.
    /// - Returns: warnings for settings the codec does not use (FFV1 is lossless; ProRes has profiles).
    /// - Throws: `ReplayError.usage` naming the option for a value the codec refuses.
    public func check(for codec: VideoCodec) throws(ReplayError) -> [String] {
        let crfRange = codec == .vp9 || codec == .vp8 ? 0...63 : 0...51
        switch codec {
        case .h264, .hevc, .vp9, .vp8:
            if let preset, !Self.speedPresets.contains(preset) {
                throw .usage("`EncoderSettings.preset` \(preset): \(codec.rawValue) takes \(Self.speedPresets.joined(separator: ", "))", options: ["EncoderSettings.preset"])
            }
            if let crf, !crfRange.contains(crf) {
                throw .usage("`EncoderSettings.crf` \(crf): \(codec.rawValue) takes \(crfRange.lowerBound) to \(crfRange.upperBound)", options: ["EncoderSettings.crf"])
            }
            return []
        case .prores:
            if let preset, !Self.proResProfiles.contains(preset) {
                throw .usage("`EncoderSettings.preset` \(preset): prores takes the profiles \(Self.proResProfiles.joined(separator: ", "))", options: ["EncoderSettings.preset"])
            }
            return crf != nil || bitrate != nil ? ["prores ignores `EncoderSettings.crf` and `EncoderSettings.bitrate`: its profile (`EncoderSettings.preset`) sets the quality"] : []
        case .ffv1:
            return crf != nil || bitrate != nil || preset != nil ? ["ffv1 is lossless: `EncoderSettings.crf`, `EncoderSettings.bitrate` and `EncoderSettings.preset` do not apply"] : []
        }
    }
}

/// A video encoder; owns its `AVCodecContext`. A send/receive state machine like ``Decoder``.
final class Encoder: @unchecked Sendable {
    let context: UnsafeMutablePointer<AVCodecContext>
    let pixelFormat: AVPixelFormat
    let timeBase: AVRational
    /// The stream carries `user_data_unregistered` SEI from frame side data (H.264/HEVC).
    let carriesSEI: Bool

    /// Threads used for `--deterministic` runs: the same on every machine, whatever its cores.
    static let deterministicThreads: Int32 = 2

    /// - Parameter sampleAspectRatio: the pixels' shape, written into the stream (square by default).
    init(settings: EncoderSettings, codec: VideoCodec, width: Int, height: Int, timeBase: AVRational, frameRate: AVRational,
         sampleAspectRatio: AVRational = AVRational(num: 1, den: 1),
         colorOf source: UnsafePointer<AVCodecParameters>?, alpha: Bool, globalHeader: Bool) throws(ReplayError) {
        _ = FFmpegLogging.defaults
        guard let avCodec = avcodec_find_encoder_by_name(codec.encoderName) else {
            throw .processing("encoder \(codec.encoderName) is not available in this FFmpeg build")
        }
        guard let context = avcodec_alloc_context3(avCodec) else { throw .processing("avcodec_alloc_context3: out of memory") }
        self.context = context
        self.timeBase = timeBase
        let supported = Encoder.supportedPixelFormats(avCodec)
        pixelFormat = try settings.chosenPixelFormat(codec: codec, alpha: alpha, supported: supported)
        let format = pixelFormat
        carriesSEI = codec.carriesSEI
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = format
        context.pointee.time_base = timeBase
        context.pointee.framerate = frameRate
        context.pointee.sample_aspect_ratio = sampleAspectRatio
        if let source {
            let p = source.pointee
            context.pointee.color_range = p.color_range == AVCOL_RANGE_UNSPECIFIED || !codec.storesFullRange ? AVCOL_RANGE_MPEG : p.color_range
            context.pointee.colorspace = p.color_space
            context.pointee.color_primaries = p.color_primaries
            context.pointee.color_trc = p.color_trc
        }
        if globalHeader { context.pointee.flags |= fx_codec_flag_global_header() }
        context.pointee.thread_count = settings.deterministic ? Encoder.deterministicThreads : Int32(clamping: settings.threads)
        if settings.deterministic { context.pointee.flags |= fx_codec_flag_bitexact() }
        if let bitrate = settings.bitrate { context.pointee.bit_rate = Int64(bitrate) }

        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        Encoder.applyCodecOptions(settings, codec: codec, alpha: alpha, into: &options)
        try settings.applyUserControls(to: context, codec: codec, defaults: &options)
        let status = avcodec_open2(context, avCodec, &options)
        guard status >= 0 else {
            let message = "cannot open encoder \(codec.encoderName) at \(width)x\(height): \(ffmpegErrorText(status))"
            // A profile, level or option the encoder refuses together (High with 4:4:4, say) is the user's to change.
            let controls = settings.userControls
            throw controls.text.isEmpty ? .processing(message) : .usage("\(message) with \(controls.text.joined(separator: " "))", options: controls.options)
        }
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
    }

    private static func supportedPixelFormats(_ codec: UnsafePointer<AVCodec>) -> [AVPixelFormat] {
        guard var cursor = fx_codec_pix_fmts(codec) else { return [] }
        var formats: [AVPixelFormat] = []
        while cursor.pointee != AV_PIX_FMT_NONE {
            formats.append(cursor.pointee)
            cursor += 1
        }
        return formats
    }

    private static func applyCodecOptions(_ settings: EncoderSettings, codec: VideoCodec, alpha: Bool,
                                          into options: inout OpaquePointer?) {
        func set(_ key: String, _ value: String) { av_dict_set(&options, key, value, 0) }
        switch codec {
        case .h264, .hevc:
            set("preset", settings.preset ?? "medium")
            if settings.bitrate == nil { set("crf", String(settings.crf ?? (codec == .h264 ? 23 : 28))) }
            if codec == .hevc { set("x265-params", "log-level=error") }
            // Without this libx264/libx265 drop AV_FRAME_DATA_SEI_UNREGISTERED side data (pose SEI, formats.md §4).
            set("udu_sei", "1")
        case .vp9, .vp8:
            if settings.bitrate == nil {
                set("crf", String(settings.crf ?? 32))
                set("b", "0")
            }
            set("deadline", "good")
            set("cpu-used", String(vpxCPUUsed(preset: settings.preset)))
            if codec == .vp9 { set("row-mt", "1") }
        case .prores:
            // Only the 4444 profiles carry alpha.
            set("profile", settings.preset ?? (alpha ? "4444" : "standard"))
        case .ffv1:
            set("level", "3")
            set("slicecrc", "1")
        }
    }

    /// Maps x264-style preset names onto libvpx's speed control.
    private static func vpxCPUUsed(preset: String?) -> Int {
        switch preset {
        case "ultrafast", "superfast": 8
        case "veryfast", "faster": 6
        case "fast": 5
        case "slow": 2
        case "slower", "veryslow", "placebo": 1
        default: 4
        }
    }

    /// Frame durations by timestamp until their packet comes out: encoders such as libx264 do
    /// not carry durations over, and MP4 drops a last frame whose packet has none.
    private var pendingDurations: [Int64: Int64] = [:]

    /// Sends a frame, or `nil` to start draining.
    func send(_ frame: Frame?) throws(ReplayError) {
        if let frame, frame.duration > 0 { pendingDurations[frame.pts] = frame.duration }
        let status = avcodec_send_frame(context, frame?.pointer)
        if status >= 0 || status == fx_averror_eof() { return }
        throw .processing("encode error: \(ffmpegErrorText(status))")
    }

    func receive(into packet: Packet) throws(ReplayError) -> CodecOutput {
        let status = avcodec_receive_packet(context, packet.pointer)
        if status >= 0 {
            if let duration = pendingDurations.removeValue(forKey: packet.pts), packet.duration <= 0 {
                packet.pointer.pointee.duration = duration
            }
            return .produced
        }
        if status == fx_averror_eagain() { return .needsInput }
        if status == fx_averror_eof() { return .endOfStream }
        throw .processing("encode error: \(ffmpegErrorText(status))")
    }
}
