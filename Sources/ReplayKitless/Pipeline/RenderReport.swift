/// What a render did: written as `--report FILE.json` and summarised on stderr.
public struct RenderReport: Sendable, Codable, Equatable {
    /// The file written.
    public struct OutputProperties: Sendable, Codable, Equatable {
        /// The output's path.
        @PathCoded public var path: FilePath
        /// FFmpeg's muxer name (`mp4`, `mov`, `matroska`, `webm`).
        public var container: String
        /// The encoder (`libx264`, `prores_ks`, …).
        public var codec: String
        /// Picture size in the output's stored orientation.
        public var width: Int
        /// Picture height in the output's stored orientation.
        public var height: Int
        /// The encoder's pixel format (`yuv420p`, `yuva420p`, …).
        public var pixelFormat: String
        /// File size.
        public var bytes: Int64
        /// Streams other than the video, copied packet for packet.
        public var copiedStreams: Int
    }

    /// The recording rendered: a local path or a URL that ``InputPolicy`` allows, as given.
    public var input: String
    /// What was written.
    public var output: OutputProperties
    /// Frames the decoder produced.
    public var framesDecoded = 0
    /// Frames written to the output (equal to `framesDecoded` unless some were unusable).
    public var framesEncoded = 0
    /// Packets or frames the decoder rejected as corrupt, pictures it concealed damage in, and
    /// stretches the demuxer skipped as damaged: everything `--max-decode-errors` counts.
    public var decodeErrors = 0
    /// Each damage counted in ``decodeErrors``, with its stream and time.
    public var damage: [Damage] = []
    /// Frames dropped because their timestamp did not increase (damaged timing).
    public var framesWithBadTimestamps = 0
    /// Copied packets (audio, subtitles…) dropped because their timestamp went back (a clock that
    /// steps back, as in concatenated transport streams: no container stores that).
    public var packetsWithBadTimestamps = 0
    /// Resolution changes seen in the input.
    public var resolutionChanges = 0
    /// Streams left out because the output container cannot hold them.
    public var droppedStreams: [String] = []
    /// What each effect counted (poses matched, interpolated, masks held, …).
    public var effects = EffectCounts()
    /// Seconds of video (first frame to end of last frame).
    public var videoSeconds = 0.0
    /// The process lanes working at the end: frames the effects worked on at once, at most. Lanes
    /// start few (one for drawing alone, two for masks, backgrounds and blur) and are added, up to
    /// `RenderOptions.processThreads`, only while they hold the render back (not the decoder or
    /// the encoder); lanes added that did not raise the frame rate are parked, and not counted
    /// here. 1 when the effects took one frame at a time.
    public var processLanes = 1
    /// The threads the video was decoded on: `RenderOptions.encoder.threads` when that is set, else
    /// FFmpeg's choice (one per core and one more, on more than one core).
    public var decoderThreads = 1
    /// How long the render took.
    public var wallSeconds = 0.0
    /// Frames per second of wall time.
    public var speedFPS = 0.0
    /// What the user should know (dropped streams, damaged input, settings ignored, …), one sentence each.
    public var warnings: [String] = []
}

extension RenderReport {
    /// One place where the input is damaged.
    public struct Damage: Sendable, Codable, Equatable {
        /// Who noticed the damage.
        public enum Kind: String, Sendable, Codable {
            /// The decoder rejected a packet or concealed damage in a picture.
            case decoder
            /// The demuxer logged an error and skipped data (a resync past damaged bytes): the
            /// pictures in between are lost.
            case demuxer
            /// Reading stopped at an error (a damaged tail).
            case read
        }
        /// How many damages are listed one by one in the warnings.
        static let warningsListed = 10
        /// The input stream's index.
        public var stream: Int
        /// Who noticed it.
        public var kind: Kind
        /// Where the damage lies (its start), seconds on the input's clock, when known.
        public var seconds: Double?
        /// Where a skipped stretch ends (the first packet read after it), when known.
        public var endSeconds: Double?
        /// What happened, naming the input, the stream and the time.
        public var message: String
    }
}
