import Foundation

/// What an input may reach besides itself. A recording is one file: by default an input is read
/// through the `file` protocol only, and formats whose files name other resources (playlists,
/// concatenation lists, manifests, SDP descriptions, scripts) are refused, since a file someone
/// uploaded could otherwise make a server read its other files or reach into its network.
///
/// A job given a ``JobEnvironment`` opens its inputs under that environment's policy; any other
/// under the process's (``current``), which the command line sets once, before any input is opened.
public struct InputPolicy: Sendable, Equatable {
    /// Protocols (`http`, `https`, `tcp`, `tls`, …) and reference-following formats (`hls`,
    /// `dash`, `concat`, …) allowed besides local files, in FFmpeg's names.
    public var allowed: Set<String>
    /// How long opening or reading a network input may wait, in seconds.
    public var ioTimeout: Double

    /// A policy allowing `allowed` besides local files, with network reads timing out after `ioTimeout` seconds.
    public init(allowed: Set<String> = [], ioTimeout: Double = InputPolicy.defaultIOTimeout) {
        self.allowed = allowed
        self.ioTimeout = ioTimeout
    }

    /// The default network timeout, seconds.
    public static let defaultIOTimeout = 30.0

    /// The policy every input of this process is opened under.
    public static var current: InputPolicy {
        get { shared.withLock { $0 } }
        set { shared.withLock { $0 = newValue } }
    }
    private static let shared = Locked(InputPolicy())

    /// FFmpeg demuxers (5.1) that open files or streams their input names, and what they read,
    /// for messages. `image2` is here for a recording whose name holds a pattern (`%d`, a glob):
    /// it is opened with patterns off instead; a mask or background image sequence asks for it.
    static let referencingFormats: [String: String] = [
        "hls": "an HLS playlist", "dash": "a DASH manifest", "concat": "a concat (ffconcat) list",
        "imf": "an IMF composition", "sdp": "an SDP session description", "rtsp": "an RTSP session",
        "webm_dash_manifest": "a WebM DASH manifest", "avisynth": "an AviSynth script",
        "vapoursynth": "a VapourSynth script", "lavfi": "a filter graph",
    ]

    /// The FFmpeg `protocol_whitelist` for an input: `file` and whatever the user allowed.
    var protocolWhitelist: String { (["file"] + allowed.subtracting(["file"]).sorted()).joined(separator: ",") }

    /// Refuses `url`'s protocol unless allowed (`name://…`; a local path is the file protocol).
    func checkProtocol(of url: String) throws(ReplayError) {
        guard let scheme = url.range(of: "://").map({ url[..<$0.lowerBound].lowercased() }), scheme != "file",
              !allowed.contains(scheme) else { return }
        throw .badInput("\(url): the \(scheme) protocol is not allowed for inputs (allow it with `InputPolicy.allowed` \(Self.layers(of: scheme)))",
                        options: ["InputPolicy.allowed"])
    }

    /// Refuses a demuxer that opens other resources unless allowed by name.
    func checkFormat(_ name: String, of url: String) throws(ReplayError) {
        // FFmpeg names some demuxers by several comma-separated names (`mov,mp4,m4a,…`).
        for part in name.split(separator: ",").map(String.init) {
            guard let what = Self.referencingFormats[part], !allowed.contains(part) else { continue }
            throw .badInput("\(url): is \(what) (FFmpeg demuxer \(part)), which opens the files it names; refused (allow it with `InputPolicy.allowed` \(part))",
                            options: ["InputPolicy.allowed"])
        }
    }

    /// The protocols FFmpeg stacks under `scheme`, all of which the whitelist must hold.
    static func layers(of scheme: String) -> String {
        switch scheme {
        case "http": "http,tcp"
        case "https": "https,tls,tcp"
        case "rtmp": "rtmp,tcp"
        case "rtsp": "rtsp,rtp,udp,tcp"
        default: scheme
        }
    }
}
