import CFFmpeg
import Foundation

/// What `fxreplay probe` tells about a recording.
public struct ProbeResult: Sendable, Codable, Equatable {
    /// One stream of the recording.
    public struct Stream: Sendable, Codable, Equatable {
        /// The stream's index in the file.
        public var index: Int
        /// Whether it is video, audio, subtitles, data or an attachment.
        public var kind: MediaKind
        /// FFmpeg's codec name (`h264`, `aac`, …).
        public var codec: String
        /// The time base of its timestamps, `num/den`.
        public var timeBase: String
        /// Its first timestamp, in seconds on the file's clock.
        public var startSeconds: Double?
        /// Packets read.
        public var packets: Int
        /// Picture size (video).
        public var width: Int?
        /// Picture height in pixels, as coded (before the display rotation); `nil` for other kinds.
        public var height: Int?
        /// Sample rate in Hz and channel count (audio).
        public var sampleRate: Int?
        /// Channel count (audio); `nil` for other kinds.
        public var channels: Int?
        /// How the stream is coded, with ffprobe's names and values (`-show_streams`), each `nil`
        /// where the file does not say: the pixel format (`yuv420p`) or sample format (`fltp`)…
        public var pixelFormat: String?
        /// The sample format of an audio stream (`fltp`, `s16`, …).
        public var sampleFormat: String?
        /// …the colour tags: range (`tv`, `pc`), matrix (`bt709`), primaries and transfer…
        public var colorRange: String?
        /// The colour matrix (`bt709`, `bt470bg`, …).
        public var colorSpace: String?
        /// The colour primaries (`bt709`, …).
        public var colorPrimaries: String?
        /// The transfer characteristic (`bt709`, `smpte2084`, …).
        public var colorTransfer: String?
        /// …the profile (`High`) and level (as the codec counts it: H.264 `31` for 3.1, HEVC 30 × the level)…
        public var profile: String?
        /// The level, as the codec counts it (H.264 `31` for 3.1; HEVC 30 × the level).
        public var level: Int?
        /// …the bit rate the container declares, bits per second…
        public var bitRate: Int?
        /// …the nominal frame rate (ffprobe's `r_frame_rate`) and the average one, `num/den`…
        public var frameRate: String?
        /// The average frame rate (ffprobe's `avg_frame_rate`), `num/den`.
        public var averageFrameRate: String?
        /// …and the stream's own duration, seconds.
        public var durationSeconds: Double?
    }

    /// Statistics of the intervals between consecutive video frames, in milliseconds (unlike the
    /// other fields, which are in seconds: frame intervals read better so).
    public struct FrameIntervals: Sendable, Codable, Equatable {
        /// Shortest, longest and mean interval, milliseconds.
        public var min: Double
        /// Longest interval between consecutive frames, milliseconds.
        public var max: Double
        /// Mean interval between consecutive frames, milliseconds.
        public var mean: Double
        /// Population standard deviation of the intervals, milliseconds.
        public var standardDeviation: Double
        /// Intervals vary by more than 1 ms: a variable-frame-rate recording.
        public var variableFrameRate: Bool
    }

    /// The recording probed, as given: a local path or a URL that ``InputPolicy`` allows.
    public var path: String
    /// FFmpeg's name for the container format (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, …).
    public var container: String
    /// The duration the file declares, and its start time, in seconds.
    public var durationSeconds: Double?
    /// The container's start time, seconds; `nil` when it does not say.
    public var startSeconds: Double?
    /// Every stream of the file, in the file's order.
    public var streams: [Stream]
    /// Index of the video stream described below (FFmpeg's best), `nil` without video.
    public var videoStream: Int?
    /// Video frames shown: packets read, less those before the start of the container's edit list.
    public var frames: Int
    /// Timing of the video frames; `nil` with fewer than two.
    public var frameIntervals: FrameIntervals?
    /// Display rotation in degrees clockwise.
    public var rotation: Int
    /// The display matrix mirrors the picture.
    public var mirrored: Bool
    /// Picture sizes in order of appearance, as `WxH` strings (more than one: the resolution changes).
    public var resolutions: [String]
    /// Frames carrying the pose SEI of formats.md §4.
    public var poseSEIFrames: Int
}

/// Reads a recording's packets (decoding keyframes only, to find resolution changes) and summarises it.
public enum MediaProbe {
    /// Probes the recording at `url`: a local path or a URL that ``InputPolicy`` allows (a `String`, as `FilePath` would fold a URL's `//`).
    /// - Throws: `ReplayError.badInput` naming the file when it cannot be opened or read.
    public static func probe(_ url: String) throws(ReplayError) -> ProbeResult {
        let demuxer = try Demuxer(url: url)
        let video = demuxer.bestVideoStream
        let keyframeDecoder = try video.map { (v: StreamInfo) throws(ReplayError) in
            try Decoder(demuxer: demuxer, stream: v.index, threads: 1, keyframesOnly: true)
        }
        // Pose SEI is counted packet by packet, so streams without timestamps (raw .h264) count too.
        let seiCarrier = video.flatMap { try? demuxer.seiCarrier(ofStream: $0.index) }
        let poseSEI = PoseSEI()
        var seiFrames = 0
        var packetCounts = [Int](repeating: 0, count: demuxer.streams.count)
        var videoPTS: [Int64] = []
        var resolutions: [String] = []
        let packet = try Packet()
        let frame = try Frame()
        func noteFrames() throws(ReplayError) {
            guard let keyframeDecoder else { return }
            while (try? keyframeDecoder.receive(into: frame)) == .produced {
                let size = "\(frame.width)x\(frame.height)"
                if resolutions.last != size { resolutions.append(size) }
            }
        }
        var videoFrames = 0
        while try demuxer.read(into: packet) {
            packetCounts[packet.streamIndex] += 1
            if packet.streamIndex == video?.index {
                // Frames before the edit list's start are never shown: not counted, but their size counts.
                let shown = !packet.isDiscarded
                if shown { videoFrames += 1 }
                if shown, packet.pts != noPTS { videoPTS.append(packet.pts) }
                if shown, let seiCarrier,
                   (try? poseSEI.pose(inAccessUnit: [UInt8](packet.data), codec: seiCarrier.codec, framing: seiCarrier.framing)) != nil {
                    seiFrames += 1
                }
                if packet.isKeyframe {
                    packet.isDiscarded = false
                    try? keyframeDecoder?.send(packet)
                    try noteFrames()
                }
            }
            packet.unref()
        }
        try? keyframeDecoder?.send(nil)
        try noteFrames()

        videoPTS.sort()
        var intervals: ProbeResult.FrameIntervals?
        if let video, videoPTS.count > 1 {
            let ms = zip(videoPTS.dropFirst(), videoPTS).map { video.timeBase.seconds($0 - $1) * 1000 }
            let mean = ms.reduce(0, +) / Double(ms.count)
            let variance = ms.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(ms.count)
            let lo = ms.min()!, hi = ms.max()!
            intervals = .init(min: lo, max: hi, mean: mean, standardDeviation: variance.squareRoot(), variableFrameRate: hi - lo > 1)
        }
        return ProbeResult(
            path: url, container: demuxer.formatName, durationSeconds: demuxer.durationSeconds, startSeconds: demuxer.startSeconds,
            streams: demuxer.streams.map { s in
                var stream = ProbeResult.Stream(index: s.index, kind: s.kind, codec: s.codecName, timeBase: s.timeBase.description,
                                                startSeconds: s.startTime.map { s.timeBase.seconds($0) }, packets: packetCounts[s.index],
                                                width: s.kind == .video ? s.width : nil, height: s.kind == .video ? s.height : nil,
                                                sampleRate: s.kind == .audio ? s.sampleRate : nil, channels: s.kind == .audio ? s.channels : nil)
                stream.describeCoding(demuxer.stream(s.index), kind: s.kind)
                stream.durationSeconds = s.duration.map { s.timeBase.seconds($0) }
                return stream
            },
            videoStream: video?.index, frames: videoFrames, frameIntervals: intervals,
            rotation: video?.rotation ?? 0, mirrored: video?.mirrored ?? false,
            resolutions: resolutions, poseSEIFrames: seiFrames)
    }
}

extension ProbeResult.Stream {
    /// Fills the coding fields from the stream's codec parameters, named as ffprobe names them.
    mutating func describeCoding(_ stream: UnsafeMutablePointer<AVStream>, kind: MediaKind) {
        let par = stream.pointee.codecpar.pointee
        func name(_ text: UnsafePointer<CChar>?) -> String? { text.map { String(cString: $0) } }
        func rate(_ value: AVRational) -> String? { value.den == 0 || value.num == 0 ? nil : "\(value.num)/\(value.den)" }
        switch kind {
        case .video:
            pixelFormat = name(av_get_pix_fmt_name(AVPixelFormat(rawValue: par.format)))
            // "unknown" (unspecified) is left out, as ffprobe leaves out what a file does not tag.
            colorRange = name(av_color_range_name(par.color_range)).flatMap { $0 == "unknown" ? nil : $0 }
            colorSpace = par.color_space == AVCOL_SPC_UNSPECIFIED ? nil : name(av_color_space_name(par.color_space))
            colorPrimaries = par.color_primaries == AVCOL_PRI_UNSPECIFIED ? nil : name(av_color_primaries_name(par.color_primaries))
            colorTransfer = par.color_trc == AVCOL_TRC_UNSPECIFIED ? nil : name(av_color_transfer_name(par.color_trc))
            frameRate = rate(stream.pointee.r_frame_rate)
            averageFrameRate = rate(stream.pointee.avg_frame_rate)
            level = par.level > 0 ? Int(par.level) : nil
        case .audio:
            sampleFormat = name(av_get_sample_fmt_name(AVSampleFormat(rawValue: par.format)))
        default:
            break
        }
        profile = name(avcodec_profile_name(par.codec_id, par.profile))
        bitRate = par.bit_rate > 0 ? Int(par.bit_rate) : nil
    }

    /// The coding facts as one line of `fxreplay probe`'s text: `yuv420p tv bt709, High 3.1, 312 kb/s, 25 fps, 2.000 s`.
    public var codingSummary: String {
        var parts: [String] = []
        let colour = [colorSpace, colorPrimaries, colorTransfer]
        let tags = Set(colour.compactMap { $0 }).count == 1 ? [colorSpace] : colour
        let picture = ([pixelFormat ?? sampleFormat, colorRange] + tags).compactMap { $0 }.joined(separator: " ")
        if !picture.isEmpty { parts.append(picture) }
        if let profile { parts.append(profile + (levelText.map { " " + $0 } ?? "")) }
        if let bitRate { parts.append("\(Int((Double(bitRate) / 1000).rounded())) kb/s") }
        if let frameRate, let value = Self.value(of: frameRate) {
            parts.append(TextNumber.fixed(value, decimals: value == value.rounded() ? 0 : 3) + " fps nominal")
        }
        if let durationSeconds { parts.append(TextNumber.fixed(durationSeconds, decimals: 3) + " s") }
        return parts.joined(separator: ", ")
    }

    /// The level as people write it (H.264 3.1, HEVC 4.1), else the number.
    private var levelText: String? {
        guard let level else { return nil }
        switch codec {
        case "h264": return "\(level / 10).\(level % 10)"
        case "hevc": return TextNumber.fixed(Double(level) / 30, decimals: 1)
        default: return "level \(level)"
        }
    }

    private static func value(of rate: String) -> Double? {
        let parts = rate.split(separator: "/").compactMap { Double($0) }
        return parts.count == 2 && parts[1] != 0 ? parts[0] / parts[1] : nil
    }
}
