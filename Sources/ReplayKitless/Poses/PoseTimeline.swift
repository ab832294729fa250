import Foundation

/// When a video frame is shown: presentation time in seconds relative to the first frame, and for how long.
package struct FrameTiming: Sendable, Equatable {
    package var time: Double
    package var duration: Double

    package init(time: Double, duration: Double) {
        self.time = time
        self.duration = duration
    }

    /// Timings for presentation `times` (in presentation order) whose durations are unknown: each frame
    /// lasts until the next one; the last lasts as long as the one before it, or `lastDuration` when alone.
    package static func timings(presentationTimes times: [Double], lastDuration: Double = 1.0 / 30) -> [FrameTiming] {
        times.indices.map { index in
            let duration: Double = if index + 1 < times.count {
                times[index + 1] - times[index]
            } else if index > 0 {
                times[index] - times[index - 1]
            } else {
                lastDuration
            }
            return FrameTiming(time: times[index], duration: duration)
        }
    }
}

/// What to do with a frame that no pose sample matched.
public enum MissingPosePolicy: String, Sendable, CaseIterable {
    /// Between the neighbouring matched samples: linear position, zNear and fovY, spherical rotation;
    /// before the first / after the last matched sample, hold it.
    case interpolate
    /// The last matched sample's pose (the first one's before any sample).
    case hold
    /// No pose: annotations are not drawn on that frame.
    case hide
    /// Stop with a bad-input error naming the frame.
    case fail
}

/// How pose sample times relate to the video's timestamps (`--pose-time`).
public enum PoseTimeBase: Sendable, Equatable {
    /// Sample times are seconds relative to the first frame (the default, formats.md §3).
    case relative
    /// Sample times are absolute stream times; the first frame is shown at `firstFrameTime` seconds.
    case absolute(firstFrameTime: Double)
}

/// How to match pose samples to frames.
public struct PoseMatchOptions: Sendable, Equatable {
    /// How sample times relate to the video's timestamps.
    public var timeBase: PoseTimeBase
    /// Seconds added to every sample time before matching (`--pose-offset`): a sample at `t` applies
    /// to the frame at `t + offset`.
    public var offset: Double
    /// What a frame without a matching sample gets.
    public var policy: MissingPosePolicy
    /// Lens values forced on every pose.
    public var overrides: PoseOverrides
    /// The largest share of samples (0…1) that may miss every frame (``PoseMatchReport/missedSamples``)
    /// before matching fails: most samples missing is a wrong `--pose-time` or offset far more often
    /// than a pose log meant to cover more than the video (`--max-unmatched-poses`).
    public var maxMissedFraction: Double

    /// Above this share of missed samples, matching goes on with a warning.
    public static let warnedMissedFraction = 0.1

    /// Matching options; the defaults are `fxreplay render`'s (relative times, no offset, interpolation,
    /// at most half the samples missing).
    public init(timeBase: PoseTimeBase = .relative, offset: Double = 0, policy: MissingPosePolicy = .interpolate,
                overrides: PoseOverrides = .none, maxMissedFraction: Double = 0.5) {
        self.timeBase = timeBase
        self.offset = offset
        self.policy = policy
        self.overrides = overrides
        self.maxMissedFraction = maxMissedFraction
    }
}

/// How many frames each rule touched while matching, for the run's report.
public struct PoseMatchReport: Sendable, Equatable {
    /// Frames that got a sample of their own.
    public var matched = 0
    /// Frames whose pose was interpolated between two samples.
    public var interpolated = 0
    /// Frames that took a neighbour's pose: the `hold` policy, or `interpolate` before the first / after the last sample.
    public var held = 0
    /// Frames left without a pose (`hide`).
    public var hidden = 0
    /// Samples that matched no frame (outside every frame's window, a frame index past the end,
    /// or a second sample for a frame that already had a nearer one).
    public var unusedSamples = 0
    /// Of the unused samples, those that met no frame at all (outside every frame's window, or a
    /// frame index past the end), as opposed to a second sample for a frame.
    public var missedSamples = 0

    /// A report with these counts.
    public init(matched: Int = 0, interpolated: Int = 0, held: Int = 0, hidden: Int = 0, unusedSamples: Int = 0, missedSamples: Int = 0) {
        self.matched = matched
        self.interpolated = interpolated
        self.held = held
        self.hidden = hidden
        self.unusedSamples = unusedSamples
        self.missedSamples = missedSamples
    }
}

/// A pose for every video frame, from pose samples (formats.md §3).
///
/// A time-keyed sample applies to the frame whose presentation time is nearest (the earlier one on a tie),
/// if it lies within half that frame's duration (inclusive); a frame-keyed sample applies to that frame.
/// When several samples land on one frame the nearest wins (the first in the file on a tie).
/// Frames left over follow the ``MissingPosePolicy``. Overrides are applied to every pose, and every
/// sample's lens must then be usable.
package struct PoseTimeline: Sendable {
    /// One pose per frame, in presentation order; `nil` where the policy hid the frame.
    package let poses: [Pose?]
    package let report: PoseMatchReport
    /// What the caller should show when more than ``PoseMatchOptions/warnedMissedFraction`` of the
    /// samples met no frame: the counts, the time ranges and the likely fix.
    package let warning: String?

    /// Matches `samples` read from `source` (named in errors) to `frames` (presentation order).
    package init(samples: [PoseSample], frames: [FrameTiming], options: PoseMatchOptions = PoseMatchOptions(),
                source: String) throws(ReplayError) {
        for sample in samples {
            if let problem = options.overrides.apply(to: sample.pose).lensProblem {
                let field = sample.line == nil ? "\(sample.errorName), \(problem.field)" : problem.field
                throw ReplayError.badInput(file: source, line: sample.line, field: field, problem.message,
                                           options: ["PoseOverrides.zNear", "PoseOverrides.intrinsics", "PoseOverrides.fovY"])
            }
        }
        let shift = switch options.timeBase {
        case .relative: options.offset
        case .absolute(let firstFrameTime): options.offset - firstFrameTime
        }

        // For each frame, the nearest sample so far: (sample index, distance in seconds, sample time).
        var best = [(sample: Int, distance: Double, time: Double)?](repeating: nil, count: frames.count)
        var report = PoseMatchReport()
        let times = frames.map(\.time)
        let order = Self.timeOrder(times)
        for (index, sample) in samples.enumerated() {
            let frame: Int, time: Double
            switch sample.key {
            case .frame(let f):
                guard f < frames.count else { report.unusedSamples += 1; report.missedSamples += 1; continue }
                (frame, time) = (f, frames[f].time)
            case .time(let t):
                time = t + shift
                guard let nearest = Self.nearestFrame(to: time, times: times, order: order),
                      abs(frames[nearest].time - time) <= frames[nearest].duration / 2 + Self.timeTolerance else {
                    report.unusedSamples += 1
                    report.missedSamples += 1
                    continue
                }
                frame = nearest
            }
            let distance = abs(frames[frame].time - time)
            if let current = best[frame] {
                report.unusedSamples += 1
                if distance >= current.distance { continue }
            }
            best[frame] = (index, distance, time)
        }

        let matched = best.indices.filter { best[$0] != nil }
        report.matched = matched.count
        // Samples that all miss the video are a time base mistake far more often than intended:
        // only an explicit `hide` goes on without a single pose.
        if matched.isEmpty, !samples.isEmpty, !frames.isEmpty, options.policy != .hide {
            throw ReplayError.badInput(file: source, Self.noSampleMatches(samples, frames: frames, shift: shift),
                                       options: ["PoseSettings.absoluteTime", "PoseSettings.offset", "PoseSettings.missingPose"])
        }
        let missedShare = samples.isEmpty ? 0 : Double(report.missedSamples) / Double(samples.count)
        let missed = "\(report.missedSamples) of the \(samples.count) pose samples match no frame of the video ("
            + Self.timeRanges(samples, frames: frames, shift: shift) + "). " + Self.likelyFix
        // As with no match at all, only an explicit `hide` goes on (with the warning).
        if missedShare > options.maxMissedFraction, options.policy != .hide {
            throw ReplayError.badInput(file: source, missed + "; `PoseSettings.maxMissedFraction` (\(TextNumber.exact(options.maxMissedFraction * 100)) %) "
                                       + "allows at most that share", options: ["PoseSettings.absoluteTime", "PoseSettings.offset", "PoseSettings.maxMissedFraction"])
        }
        warning = missedShare > PoseMatchOptions.warnedMissedFraction ? "\(source): " + missed : nil
        var poses: [Pose?] = best.map { match in match.map { samples[$0.sample].pose } }
        var previous: Int?, nextPosition = 0
        for frame in frames.indices {
            if best[frame] != nil {
                previous = frame
                nextPosition += 1
                continue
            }
            let next = nextPosition < matched.count ? matched[nextPosition] : nil
            switch options.policy {
            case .fail:
                throw ReplayError.badInput(
                    file: source, field: "frame \(frame)",
                    "no pose sample for frame \(frame) at t=\(TextNumber.fixed(frames[frame].time, decimals: 6)) s; "
                        + "fix the poses or choose another `PoseSettings.missingPose` policy for frames without a pose (interpolate, hold, hide)",
                    options: ["PoseSettings.missingPose"])
            case .hide:
                report.hidden += 1
            case .hold:
                guard let source = previous ?? next else { report.hidden += 1; continue }
                poses[frame] = poses[source]
                report.held += 1
            case .interpolate:
                if let p = previous, let n = next, let a = best[p], let b = best[n], let from = poses[p], let to = poses[n] {
                    let span = b.time - a.time
                    let s = span > 0 ? min(1, max(0, (frames[frame].time - a.time) / span)) : 0
                    poses[frame] = Self.interpolate(from, to, s)
                    report.interpolated += 1
                } else if let source = previous ?? next {
                    poses[frame] = poses[source]
                    report.held += 1
                } else {
                    report.hidden += 1
                }
            }
        }
        self.poses = poses.map { $0.map(options.overrides.apply) }
        self.report = report
    }

    /// Why no sample met a frame, with the sample and frame time ranges and what to try.
    private static func noSampleMatches(_ samples: [PoseSample], frames: [FrameTiming], shift: Double) -> String {
        "none of the \(samples.count) pose samples matches a frame of the video (" + timeRanges(samples, frames: frames, shift: shift)
            + "). " + likelyFix + "; `PoseSettings.missingPose` hide goes on without poses"
    }

    /// What to try when samples miss the frames (in an error, and in the warning of a run that goes on).
    static let likelyFix = "If the sidecar holds stream times, not seconds since the first frame (or the reverse), set "
        + "`PoseSettings.absoluteTime` accordingly, or shift it with `PoseSettings.offset`"

    /// The frames' and the samples' time ranges, for messages about samples that miss.
    private static func timeRanges(_ samples: [PoseSample], frames: [FrameTiming], shift: Double) -> String {
        func seconds(_ value: Double) -> String { TextNumber.fixed(value, decimals: 3) }
        let times = samples.compactMap { sample -> Double? in if case .time(let t) = sample.key { t + shift } else { nil } }
        let frameTimes = frames.map(\.time)
        var text = frameTimes.isEmpty ? "no frames" : "frames from \(seconds(frameTimes.min()!)) to \(seconds(frameTimes.max()!)) s"
        if let first = times.min(), let last = times.max() {
            text += "; samples, on the video's clock, from \(seconds(first)) to \(seconds(last)) s"
        }
        return text
    }

    /// Slack for comparing timestamps that went through floating point (far below any real frame spacing).
    static let timeTolerance = 1e-9

    /// The index in `times` nearest `time` (the earlier one on a tie); `order` sorts the indices by time.
    static func nearestFrame(to time: Double, times: [Double], order: [Int]) -> Int? {
        guard !order.isEmpty else { return nil }
        var low = 0, high = order.count
        while low < high {
            let middle = (low + high) / 2
            if times[order[middle]] < time { low = middle + 1 } else { high = middle }
        }
        // order[low] is the first frame at or after `time`; compare it with the one before.
        let after = low < order.count ? order[low] : nil
        let before = low > 0 ? order[low - 1] : nil
        guard let after else { return before }
        guard let before else { return after }
        return time - times[before] <= times[after] - time ? before : after
    }

    /// Frame indices sorted by time (stable), for ``nearestFrame(to:times:order:)``.
    static func timeOrder(_ times: [Double]) -> [Int] {
        times.indices.sorted { (times[$0], $0) < (times[$1], $1) }
    }

    /// The pose a fraction `s` of the way from `a` to `b`: linear position, zNear and lens, slerped
    /// rotation. Lenses of different kinds (intrinsics and a field of view) do not mix: the nearer
    /// sample's lens is taken whole.
    static func interpolate(_ a: Pose, _ b: Pose, _ s: Double) -> Pose {
        func mix(_ x: Double, _ y: Double) -> Double { x + (y - x) * s }
        let rotation = Quaternion.slerp(Quaternion(a.rotation), Quaternion(b.rotation), s).matrix
        let nearer = s < 0.5 ? a : b
        var lens = (fovY: nearer.fovY, intrinsics: nearer.intrinsics)
        switch (a.intrinsics, b.intrinsics) {
        case let (ka?, kb?):
            lens.intrinsics = Intrinsics(fx: mix(ka.fx, kb.fx), fy: mix(ka.fy, kb.fy), cx: mix(ka.cx, kb.cx), cy: mix(ka.cy, kb.cy))
        case (nil, nil):
            lens.fovY = mix(a.fovY, b.fovY)
        default:
            break
        }
        return Pose(position: a.position + (b.position - a.position) * s, rotation: rotation,
                    zNear: mix(a.zNear, b.zNear), fovY: lens.fovY, intrinsics: lens.intrinsics)
    }
}
