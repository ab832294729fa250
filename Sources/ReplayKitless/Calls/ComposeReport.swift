/// What a composition did: written as `compose --report FILE.json` and summarised on stderr.
public struct ComposeReport: Sendable, Codable, Equatable {
    /// One participant's pictures.
    public struct Participant: Sendable, Codable, Equatable {
        /// The participant's display name.
        public var name: String
        /// Its streams' ids (more than one: it reconnected).
        public var streams: [String]
        /// Pictures decoded from its tracks.
        public var framesDecoded = 0
        /// Damaged pictures concealed and packets that could not be read, skipped.
        public var decodeErrors = 0
        /// How often its picture size changed mid-stream (each is scaled to its tile).
        public var resolutionChanges = 0
        /// Pictures dropped because their timestamp did not increase.
        public var framesWithBadTimestamps = 0
        /// What its own effects counted (a job's `streams:`), over all its tracks.
        public var effects = EffectCounts()
    }

    /// The call composed (what the user named).
    @PathCoded public var input: FilePath
    /// The output file's path, size, codec and frame facts.
    public var output: RenderReport.OutputProperties
    /// The layout used (`grid`, `speaker`, … or a custom layout's file).
    public var layout: String
    /// Output frames per second (constant).
    public var fps: Int
    /// Call seconds shown.
    public var from: Double
    /// Call second the output ends at.
    public var to: Double
    /// Frames written to the output.
    public var framesEncoded = 0
    /// How often the set of shown participants changed (someone joined or left).
    public var layoutChanges = 0
    /// Everyone shown, in the order they first appear.
    public var participants: [Participant] = []
    /// Streams heard but not shown (audio only).
    public var audioOnly: [String] = []
    /// Wall-clock time the composition took, seconds.
    public var wallSeconds = 0.0
    /// Frames encoded per wall-clock second.
    public var speedFPS = 0.0
    /// What went wrong without stopping the composition (also sent to `ReplayLog`).
    public var warnings: [String] = []
}
