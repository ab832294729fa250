import Foundation

/// What `fxreplay probe` tells about a recording.
public struct ProbeResult: Sendable, Codable, Equatable {
    /// One stream of the recording.
    public struct Stream: Sendable, Codable, Equatable {
        /// The stream's index in the file.
        public var index: Int
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
        public var height: Int?
        /// Sample rate in Hz and channel count (audio).
        public var sampleRate: Int?
        public var channels: Int?
    }

    /// Statistics of the intervals between consecutive video frames, in milliseconds (unlike the
    /// other fields, which are in seconds: frame intervals read better so).
    public struct FrameIntervals: Sendable, Codable, Equatable {
        /// Shortest, longest and mean interval, milliseconds.
        public var min: Double
        public var max: Double
        public var mean: Double
        /// Population standard deviation of the intervals, milliseconds.
        public var standardDeviation: Double
        /// Intervals vary by more than 1 ms: a variable-frame-rate recording.
        public var variableFrameRate: Bool
    }

    /// The file probed.
    public var path: String
    /// FFmpeg's name for the container format (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, …).
    public var container: String
    /// The duration the file declares, and its start time, in seconds.
    public var durationSeconds: Double?
    public var startSeconds: Double?
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
    /// Probes the recording at `url` (a path or a URL FFmpeg can open).
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
        let packet = Packet()
        let frame = Frame()
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
                ProbeResult.Stream(index: s.index, kind: s.kind, codec: s.codecName, timeBase: s.timeBase.description,
                                   startSeconds: s.startTime.map { s.timeBase.seconds($0) }, packets: packetCounts[s.index],
                                   width: s.kind == .video ? s.width : nil, height: s.kind == .video ? s.height : nil,
                                   sampleRate: s.kind == .audio ? s.sampleRate : nil, channels: s.kind == .audio ? s.channels : nil)
            },
            videoStream: video?.index, frames: videoFrames, frameIntervals: intervals,
            rotation: video?.rotation ?? 0, mirrored: video?.mirrored ?? false,
            resolutions: resolutions, poseSEIFrames: seiFrames)
    }
}
