import Foundation

/// The clock an annotation scene's times (`from`, `until`, a tap's `t`) are read on: the scene's
/// top-level `time` (formats.md §6). A tap logged by a call app in Unix time can then be used with
/// poses read on any clock, and one scene serves a single render and a call's stream alike.
public enum SceneClock: String, Sendable, Equatable, CaseIterable, Codable {
    /// The poses' time base, as `--pose-time` reads sidecar times (the default).
    case poses
    /// The stream's own presentation time, in seconds.
    case stream
    /// The call's clock: a stream of a call only (formats.md §9).
    case call
    /// Unix time in seconds: a stream of a call whose manifest gives its epoch.
    case epoch
}

/// Where one stream's file sits on its call's clock (formats.md §9), for scene and pose times
/// given as call or Unix times.
public struct StreamPlacement: Sendable, Equatable, Codable {
    /// What to add to a call time to get the file's presentation time: `mediaStart − start`.
    public var callToMedia: Double
    /// Unix time of call time 0, when the call says.
    public var epoch: Double?

    /// A file whose presentation time `p` plays at call time `p − callToMedia`.
    public init(callToMedia: Double, epoch: Double?) {
        self.callToMedia = callToMedia
        self.epoch = epoch
    }
}

extension Call {
    /// Where `track`'s file sits on the call's clock: ``PoseSettings/streamPlacement`` for a scene in
    /// call or Unix time when `track`'s file is rendered or tracked on its own.
    public func placement(of track: CallTrack) -> StreamPlacement {
        StreamPlacement(callToMedia: track.mediaStart - track.start, epoch: epoch)
    }
}

extension PoseSettings {
    /// What to add to a frame's time since the first frame to get its time on `clock`.
    /// - Throws: `ReplayError.usage` for `call` or `epoch` when the stream is not a call's
    ///   (``streamPlacement`` is `nil`), or for `epoch` when the call has no epoch.
    package func sceneTimeOrigin(for scan: VideoPacketScan, clock: SceneClock, scene: String) throws(ReplayError) -> Double {
        switch clock {
        case .poses: return sceneTimeOrigin(for: scan)
        case .stream: return scan.firstFrameTime
        case .call, .epoch:
            guard let placement = streamPlacement else {
                throw .usage("\(scene): the scene's times are \(clock == .call ? "call" : "Unix") times (\"time\": \"\(clock.rawValue)\"), "
                             + "which only a stream of a call has: give its `PoseSettings.streamPlacement`", options: ["PoseSettings.streamPlacement"])
            }
            guard clock == .call else {
                guard let epoch = placement.epoch else {
                    throw .usage("\(scene): the scene's times are Unix times (\"time\": \"epoch\") but the call has no epoch "
                                 + "(an archive's createdAt, a call manifest's epoch)")
                }
                return scan.firstFrameTime - placement.callToMedia + epoch
            }
            return scan.firstFrameTime - placement.callToMedia
        }
    }
}

extension PoseSettings {
    /// The origin of `scene`'s times on `scan`'s frames (``sceneTimeOrigin(for:clock:scene:)``),
    /// with a warning when they all fall outside the recording (``AnnotationScene/clockWarning(span:origin:origins:file:)``).
    package func sceneTimeOrigin(for scan: VideoPacketScan, scene: AnnotationScene, file: String) throws(ReplayError) -> Double {
        let origin = try sceneTimeOrigin(for: scan, clock: scene.clock, scene: file)
        if let first = scan.frames.first?.time, let last = scan.frames.last?.time {
            var origins: [SceneClock: Double] = [:]
            for clock in SceneClock.allCases { origins[clock] = try? sceneTimeOrigin(for: scan, clock: clock, scene: file) }
            if let warning = scene.clockWarning(span: (first + origin)...(last + origin), origin: origin, origins: origins, file: file) {
                ReplayLog.warning(warning)
            }
        }
        return origin
    }
}

extension AnnotationScene {
    /// Every time the scene names: `from`, `until` and tap times.
    var namedTimes: [Double] {
        annotations.flatMap { annotation -> [Double] in
            var times = [annotation.from, annotation.until].compactMap { $0 }
            if case .tap(let tap) = annotation.anchor { times.append(tap.t) }
            return times
        }
    }

    /// A warning when every time the scene names falls outside `span` (the frames' times on the
    /// scene's clock), so nothing would show where the user expects: it names the clock the times
    /// would fit on, where one does (`origins`: each clock's origin, where the stream has it).
    package func clockWarning(span: ClosedRange<Double>, origin: Double, origins: [SceneClock: Double], file: String) -> String? {
        let times = namedTimes
        guard !times.isEmpty, !times.contains(where: span.contains) else { return nil }
        let relative = (span.lowerBound - origin)...(span.upperBound - origin)
        let fitting = SceneClock.allCases.first { candidate in
            guard candidate != clock, let other = origins[candidate] else { return false }
            return times.contains { relative.contains($0 - other) }
        }
        let text = { (t: Double) in String(format: "%.3f", t) }
        var warning = "\(file): every time the scene names (\(times.min().map(text) ?? "")–\(times.max().map(text) ?? "") s) falls outside the "
            + "recording's \(text(span.lowerBound))–\(text(span.upperBound)) s on its clock (\"time\": \"\(clock.rawValue)\")"
        if let fitting { warning += "; they fit \(fitting.rawValue) time: give the scene \"time\": \"\(fitting.rawValue)\"" }
        return warning
    }
}
