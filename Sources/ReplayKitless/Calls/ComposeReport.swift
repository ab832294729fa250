/// What a composition did: written as `compose --report FILE.json` and summarised on stderr.
public struct ComposeReport: Sendable, Codable, Equatable {
    /// One participant's pictures.
    public struct Participant: Sendable, Codable, Equatable {
        public var name: String
        /// Its streams' ids (more than one: it reconnected).
        public var streams: [String]
        public var framesDecoded = 0
        /// Damaged pictures concealed and packets that could not be read, skipped.
        public var decodeErrors = 0
        public var resolutionChanges = 0
        /// Pictures dropped because their timestamp did not increase.
        public var framesWithBadTimestamps = 0
        /// Its own effects' counters (a job's `streams:`).
        public var effects: [String: [String: Int]] = [:]
    }

    /// The call composed (what the user named).
    public var input: String
    public var output: RenderReport.OutputProperties
    public var layout: String
    public var fps: Int
    /// Call seconds shown.
    public var from: Double
    public var to: Double
    public var framesEncoded = 0
    /// How often the set of shown participants changed (someone joined or left).
    public var layoutChanges = 0
    public var participants: [Participant] = []
    /// Streams heard but not shown (audio only).
    public var audioOnly: [String] = []
    public var wallSeconds = 0.0
    public var speedFPS = 0.0
    public var warnings: [String] = []
}
