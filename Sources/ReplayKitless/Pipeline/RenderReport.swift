/// What a render did: written as `--report FILE.json` and summarised on stderr.
public struct RenderReport: Sendable, Codable, Equatable {
    public struct OutputProperties: Sendable, Codable, Equatable {
        public var path: String
        public var container: String
        public var codec: String
        public var width: Int
        public var height: Int
        public var pixelFormat: String
        public var bytes: Int64
        public var copiedStreams: Int
    }

    public var input: String
    public var output: OutputProperties
    /// Frames the decoder produced.
    public var framesDecoded = 0
    /// Frames written to the output (equal to `framesDecoded` unless some were unusable).
    public var framesEncoded = 0
    /// Packets or frames the decoder rejected as corrupt.
    public var decodeErrors = 0
    /// Frames dropped because their timestamp did not increase (damaged timing).
    public var framesWithBadTimestamps = 0
    /// Resolution changes seen in the input.
    public var resolutionChanges = 0
    /// Streams left out because the output container cannot hold them.
    public var droppedStreams: [String] = []
    /// Per-effect counters (poses matched, interpolated, masks held, …).
    public var effects: [String: [String: Int]] = [:]
    /// Seconds of video (first frame to end of last frame).
    public var videoSeconds = 0.0
    public var wallSeconds = 0.0
    /// Frames per second of wall time.
    public var speedFPS = 0.0
    public var warnings: [String] = []
}
