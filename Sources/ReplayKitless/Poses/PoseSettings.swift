import Foundation

extension MissingPosePolicy: Codable {}

/// Where a render's camera poses come from and how they meet the frames: the library form of
/// `--poses`/`--poses-from-sei`, `--pose-time`, `--pose-offset`, `--missing-pose` and the lens overrides.
public struct PoseSettings: Sendable, Equatable, Codable {
    /// The pose source.
    public enum Source: Sendable, Equatable, Codable {
        /// A sidecar file: `.jsonl`, `.csv` or `.pose32`.
        case sidecar(path: FilePath)
        /// The video's own pose SEI.
        case sei

        // The JSON of a synthesized coding over a `String` path: `{"sidecar":{"path":"p.jsonl"}}`, `{"sei":{}}`.
        private enum CodingKeys: String, CodingKey { case sidecar, sei }
        private enum SidecarKeys: String, CodingKey { case path }
        private struct NoKeys: CodingKey {
            var stringValue: String { "" }
            var intValue: Int? { nil }
            init?(stringValue: String) { nil }
            init?(intValue: Int) { nil }
        }

        /// Reads either case as the synthesized coding wrote it.
        public init(from decoder: any Swift.Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard container.allKeys.count == 1, let key = container.allKeys.first else {
                throw DecodingError.dataCorrupted(.init(codingPath: container.codingPath, debugDescription: "expected one of sidecar, sei"))
            }
            switch key {
            case .sidecar:
                let sidecar = try container.nestedContainer(keyedBy: SidecarKeys.self, forKey: .sidecar)
                self = .sidecar(path: try sidecar.decode(PathCoded<FilePath>.self, forKey: .path).wrappedValue)
            case .sei:
                _ = try container.nestedContainer(keyedBy: NoKeys.self, forKey: .sei)
                self = .sei
            }
        }

        /// Writes the path as a plain string.
        public func encode(to encoder: any Swift.Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .sidecar(let path):
                var sidecar = container.nestedContainer(keyedBy: SidecarKeys.self, forKey: .sidecar)
                try sidecar.encode(PathCoded(wrappedValue: path), forKey: .path)
            case .sei:
                _ = container.nestedContainer(keyedBy: NoKeys.self, forKey: .sei)
            }
        }
    }

    /// Where the poses are read from.
    public var source: Source
    /// The pose SEI's UUID, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, both where poses are read from
    /// the stream and where they are written into it; `nil`: the default (formats.md §4).
    public var seiUUID: String?
    /// Sidecar and scene times are absolute stream times instead of seconds since the first frame.
    public var absoluteTime = false
    /// Seconds added to every sample time before matching.
    public var offset = 0.0
    /// With ``absoluteTime``: sidecar and scene times are read on another clock, whose time `t` is
    /// stream time `t + clockOffset` — a call's clock or Unix time, for one stream of a call
    /// (formats.md §9: `mediaStart − start`, less the call's epoch for Unix times). 0: stream times.
    public var clockOffset = 0.0
    /// Where the stream sits on its call's clock, for a scene whose times are call or Unix times
    /// (``SceneClock``); `nil` for a recording that is not a call's.
    public var streamPlacement: StreamPlacement?
    /// What a frame without a matching sample gets (`--missing-pose`); interpolation by default.
    public var missingPose = MissingPosePolicy.interpolate
    /// The largest share (0…1) of sidecar samples that may match no frame (``PoseMatchOptions/maxMissedFraction``);
    /// `nil`: half.
    public var maxMissedFraction: Double?
    /// Lens values forced on every pose (AR metadata's field of view is often wrong).
    public var fovY: Double?
    /// Near clipping distance in metres forced on every pose (`--znear`).
    public var zNear: Double?
    /// Pinhole intrinsics in pixels forced on every pose (`--intrinsics`); they win over `fovY`.
    public var intrinsics: Intrinsics?

    /// Poses from `source`, times relative to the first frame, no offset, gaps interpolated.
    public init(source: Source) { self.source = source }

    /// The pose SEI format (its UUID), for reading and for writing.
    /// - Throws: `ReplayError.usage` when `seiUUID` is not a UUID.
    public func seiFormat() throws(ReplayError) -> PoseSEI {
        try seiUUID.map(PoseSEI.init(uuid:)) ?? PoseSEI()
    }

    /// Scans `input`'s video packets (no decoding) for frame times and, with SEI poses, the poses.
    package func scan(_ input: String) throws(ReplayError) -> VideoPacketScan {
        try VideoPacketScan(path: input, sei: source == .sei ? try seiFormat() : nil)
    }

    /// Matches the poses to the scanned frames. SEI samples are keyed by their own frame's time,
    /// so they are always relative, whatever `absoluteTime` says about sidecars and scenes.
    package func timeline(for scan: VideoPacketScan, input: String) throws(ReplayError) -> PoseTimeline {
        let overrides = try PoseOverrides(fovY: fovY, zNear: zNear, intrinsics: intrinsics)
        var options = PoseMatchOptions(offset: offset, policy: missingPose, overrides: overrides,
                                       maxMissedFraction: maxMissedFraction ?? 0.5)
        let samples: [PoseSample]
        let origin: String
        switch source {
        case .sidecar(let path):
            samples = try PoseSidecar.read(path: path)
            origin = path.string
            if absoluteTime {
                options.timeBase = .absolute(firstFrameTime: scan.firstFrameTime)
                options.offset += clockOffset
            }
        case .sei:
            samples = scan.seiSamples
            origin = input
            guard !samples.isEmpty else { throw ReplayError.badInput("\(input): no pose SEI found in the video") }
        }
        return try PoseTimeline(samples: samples, frames: scan.frames, options: options, source: origin)
    }

    /// Scene times on the poses' clock follow the sidecar convention: with absolute times, frame times
    /// shift by the first frame's, on the sidecar's clock (less ``clockOffset``).
    func sceneTimeOrigin(for scan: VideoPacketScan) -> Double {
        absoluteTime ? scan.firstFrameTime - clockOffset : 0
    }

    /// The files this setting reads (never to be written over).
    public var inputFiles: [FilePath] {
        if case .sidecar(let path) = source { return [path] }
        return []
    }
}

extension PoseMatchReport {
    /// A one-line account of what matching did, for stderr.
    public var summary: String {
        "poses: \(matched) frames matched, \(interpolated) interpolated, \(held) held, \(hidden) hidden, \(unusedSamples) samples unused"
    }
}
