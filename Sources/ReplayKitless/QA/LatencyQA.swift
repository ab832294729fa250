import Foundation

/// A tap annotation to check for latency: its id, when it was tapped, and how a pose turns it into a
/// world anchor (the poses layer's tap resolution, formats.md §6).
public struct LatencyTap: Sendable {
    /// The tap annotation's id.
    public var id: String
    /// Tap time, seconds (sidecar time base).
    public var t: Double
    /// Frames after this time (seconds) are left out; `nil` for the whole video.
    public var until: Double?
    /// The anchor the tap gives when resolved with `pose`; `nil` when it cannot be resolved with that pose.
    public var resolve: @Sendable (Pose) -> SIMD3<Double>?

    /// A tap at `t` seconds whose anchor `resolve` computes from a pose (`nil`: not resolvable with it).
    public init(id: String, t: Double, until: Double? = nil, resolve: @escaping @Sendable (Pose) -> SIMD3<Double>?) {
        self.id = id
        self.t = t
        self.until = until
        self.resolve = resolve
    }

    /// The tap annotations of `scene`, resolved exactly as the scene resolves its anchors
    /// (``TapAnchor/worldPoint(seenBy:)``) on frames of `width × height` pixels.
    public static func taps(in scene: AnnotationScene, width: Int, height: Int) -> [LatencyTap] {
        scene.annotations.compactMap { annotation in
            guard case .tap(let tap) = annotation.anchor else { return nil }
            return LatencyTap(id: annotation.id, t: tap.t, until: annotation.until) { pose in
                tap.worldPoint(seenBy: Camera(pose: pose, width: width, height: height))
            }
        }
    }
}

/// How far a tap anchor lands from where it belongs when it is resolved `delay` seconds late.
public struct LatencyResult: Sendable, Equatable, Codable {
    /// The tap annotation's id.
    public var id: String
    /// Seconds.
    public var delay: Double
    /// The frame nearest the tap time: its pose gives the true anchor.
    public var tapFrame: FrameReference
    /// The frame nearest tap time + delay: its pose gives the late anchor.
    public var lateFrame: FrameReference
    /// Frames from the tap frame on (up to `until`) where both anchors are on screen.
    public var compared: Int
    /// Why nothing could be compared, when the tap or late frame has no pose or the tap cannot be resolved with it.
    public var note: String?
    /// Pixel distance between the two anchors' projections; `nil` when never both on screen.
    public var error: ErrorStatistics?
    /// `false` when the p95 error exceeds the report's tolerance.
    public var passed: Bool
    /// Error per compared frame, for plots (not written to JSON).
    public var samples: [ErrorSample] = []

    enum CodingKeys: String, CodingKey {
        case id, delay, tapFrame, lateFrame, compared, note, error, passed
    }
}

/// Latency QA (`fxreplay qa latency`): what a tap-to-anchor delay does to placement, measured on a
/// recording's own camera poses.
///
/// For a tap at time t and a delay D: the *true* anchor is the tap resolved with the pose of the frame
/// nearest t, the *late* anchor the tap resolved with the pose of the frame nearest t + D (the earlier
/// frame on ties). Both are projected (formats.md §2) into every frame from the tap frame on; on frames
/// where both are on screen their pixel distance is the error. Frames without a pose are skipped.
public struct LatencyQA: Sendable {
    /// Scene times of the frames, seconds.
    public let times: [Double]
    /// The camera pose of each frame; `nil` where the frame has none.
    public let poses: [Pose?]
    /// Display width of the frames in pixels (after rotation).
    public let width: Int
    /// Display height of the frames in pixels (after rotation).
    public let height: Int

    /// `times` (seconds, ascending) and `poses` are per frame; `width × height` is the display size.
    public init(times: [Double], poses: [Pose?], width: Int, height: Int) throws(ReplayError) {
        guard !times.isEmpty else { throw .badInput("latency QA needs at least one frame") }
        guard times.count == poses.count else {
            throw .badInput("latency QA got \(times.count) frame times but \(poses.count) poses")
        }
        guard width > 0, height > 0 else { throw .badInput("latency QA needs a frame size, got \(width)×\(height)") }
        for index in times.indices {
            guard times[index].isFinite else { throw .badInput("frame \(index): time is not a number") }
            if index > 0, times[index] < times[index - 1] {
                throw .badInput("frame \(index): time \(times[index]) s comes before the previous frame's \(times[index - 1]) s")
            }
        }
        self.times = times
        self.poses = poses
        self.width = width
        self.height = height
    }

    /// Frame times, display size and poses of the recording `input` from a packet scan (nothing is
    /// decoded), matched to the frames exactly as `fxreplay track` and the renderer match them.
    /// - Parameters:
    ///   - input: a local path or a URL that ``InputPolicy`` allows.
    ///   - scene: the scene whose tap times are checked; its clock decides how they meet the frames.
    ///   - sceneFile: the scene's file, named in messages.
    public init(input: String, poses settings: PoseSettings, scene: AnnotationScene = AnnotationScene(annotations: []),
                sceneFile: FilePath? = nil) throws(ReplayError) {
        let scan = try settings.scan(input)
        let timeline = try settings.timeline(for: scan, input: input)
        let origin = try settings.sceneTimeOrigin(for: scan, scene: scene, file: sceneFile?.string ?? "the scene")
        try self.init(times: scan.frames.map { $0.time + origin }, poses: timeline.poses, width: scan.width, height: scan.height)
    }

    /// The error of `tap` resolved `delay` seconds late; fails when the p95 error exceeds `tolerance`,
    /// or when a tolerance is asked and no frame could be compared.
    public func evaluate(_ tap: LatencyTap, delay: Double, tolerance: Double? = nil) -> LatencyResult {
        // `times` is non-empty (checked in init), so both lookups find a frame.
        let tapIndex = nearestIndex(in: times, to: tap.t) ?? 0
        let lateIndex = nearestIndex(in: times, to: tap.t + delay) ?? 0
        func result(_ samples: [ErrorSample], note: String? = nil) -> LatencyResult {
            let error = ErrorStatistics(samples)
            let passed = tolerance.map { limit in error.map { $0.p95 <= limit } ?? false } ?? true   // nothing compared proves nothing
            return LatencyResult(id: tap.id, delay: delay, tapFrame: FrameReference(frame: tapIndex, t: times[tapIndex]),
                                 lateFrame: FrameReference(frame: lateIndex, t: times[lateIndex]), compared: samples.count,
                                 note: note, error: error, passed: passed, samples: samples)
        }
        guard let tapPose = poses[tapIndex], let latePose = poses[lateIndex] else {
            return result([], note: "frame \(poses[tapIndex] == nil ? tapIndex : lateIndex) has no pose")
        }
        guard let trueAnchor = tap.resolve(tapPose), let lateAnchor = tap.resolve(latePose) else {
            return result([], note: "the tap cannot be resolved with the pose of frame \(tap.resolve(tapPose) == nil ? tapIndex : lateIndex)")
        }
        var samples: [ErrorSample] = []
        for index in tapIndex..<times.count {
            if let until = tap.until, times[index] > until { break }
            guard let pose = poses[index] else { continue }
            let camera = Camera(pose: pose, width: width, height: height)
            let truth = camera.project(trueAnchor), late = camera.project(lateAnchor)
            guard camera.isOnScreen(truth), camera.isOnScreen(late) else { continue }
            let dx = truth.x - late.x, dy = truth.y - late.y
            samples.append(ErrorSample(frame: index, t: times[index], error: (dx * dx + dy * dy).squareRoot()))
        }
        return result(samples)
    }

    /// Every tap at every delay, delays in the order given.
    public func report(taps: [LatencyTap], delays: [Double], tolerance: Double? = nil) -> LatencyReport {
        LatencyReport(width: width, height: height, tolerance: tolerance, delays: delays,
                      results: delays.flatMap { delay in taps.map { evaluate($0, delay: delay, tolerance: tolerance) } })
    }

    /// Parses a delay as written on the command line: `200ms`, `0.2s` or `0.2` (seconds).
    public static func parseDelay(_ text: String) throws(ReplayError) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let milliseconds = trimmed.hasSuffix("ms")
        let number = milliseconds ? trimmed.dropLast(2) : trimmed.hasSuffix("s") ? trimmed.dropLast() : Substring(trimmed)
        guard let value = Double(decimalText: number), value.isFinite, value >= 0 else {
            throw .usage("invalid delay \"\(text)\": expected e.g. 200ms, 0.2s or 0.2")
        }
        return milliseconds ? value / 1000 : value
    }
}

/// Latency QA results for a list of delays.
public struct LatencyReport: Sendable, Equatable, Codable, QAReportFiles {
    /// Display width of the frames, pixels.
    public var width: Int
    /// Display height of the frames, pixels.
    public var height: Int
    /// The largest allowed p95 pixel error; `nil`: measured, never failed.
    public var tolerance: Double?
    /// Seconds.
    public var delays: [Double]
    /// Grouped by delay, taps in the order given.
    public var results: [LatencyResult]
    /// Whether every result passed; `fxreplay qa latency` exits 1 otherwise.
    public var passed: Bool

    /// A report of `results`; `passed` is computed from them.
    public init(width: Int, height: Int, tolerance: Double?, delays: [Double], results: [LatencyResult]) {
        self.width = width
        self.height = height
        self.tolerance = tolerance
        self.delays = delays
        self.results = results
        passed = results.allSatisfy(\.passed)
    }

    /// One row per delay and tap.
    package var table: TextTable {
        TextTable(
            headers: ["delay ms", "id", "tap frame", "late frame", "compared", "mean", "median", "p95", "max", "worst frame", "worst t", "result"],
            rows: results.map { result in
                let worst = result.error?.worst
                return [String(format: "%.0f", result.delay * 1000), result.id, String(result.tapFrame.frame),
                        String(result.lateFrame.frame), String(result.compared)]
                    + (result.error?.cells ?? ErrorStatistics.emptyCells)
                    + [worst.map { String($0.frame) } ?? "-", worst.map { String(format: "%.3f", $0.t) } ?? "-",
                       result.passed ? "pass" : "FAIL"]
            })
    }

    /// The report for a terminal.
    public var text: String {
        var text = "Latency QA, \(width)×\(height)"
        if let tolerance { text += ", p95 tolerance \(fixed(tolerance)) px" }
        text += "\n\n" + table.render()
        for result in results {
            if let note = result.note { text += "\(result.id) at \(String(format: "%.0f", result.delay * 1000)) ms: \(note)\n" }
        }
        if tolerance != nil {
            text += "\n" + (passed ? "PASS" : "FAIL: " + failing(explained: false).joined(separator: ", ")) + "\n"
        }
        return text
    }

    /// The report as JSON (formats.md's latency report; samples left out).
    public func json() throws(ReplayError) -> Data {
        try QAOutput.json(self)
    }

    /// Error over time for one delay, one line per tap.
    package func plot(delay: Double) -> ErrorPlot {
        ErrorPlot(title: "Placement error with \(String(format: "%.0f", delay * 1000)) ms tap latency",
                  series: results.filter { $0.delay == delay }.map { ErrorPlot.Series(label: $0.id, samples: $0.samples) },
                  tolerance: tolerance)
    }

    /// Error over time for every delay, one line per tap and delay.
    package var plot: ErrorPlot {
        ErrorPlot(title: "Placement error with tap latency",
                  series: results.map { ErrorPlot.Series(label: "\($0.id) @ \(String(format: "%.0f", $0.delay * 1000)) ms", samples: $0.samples) },
                  tolerance: tolerance)
    }

    /// ``plot`` as an SVG document.
    public func svg() -> String { plot.svg() }

    /// The error `fxreplay qa latency` ends with when a tolerance is exceeded (exit status 1); `nil` otherwise.
    public var failure: ReplayError? {
        passed ? nil : .checkFailed("tap latency check failed: " + failing(explained: true).joined(separator: ", "))
    }

    /// For each failing result, "id at D ms" (the table beside it has the figures); `explained`, with
    /// why: its p95 error against the tolerance, or that no frame was compared.
    private func failing(explained: Bool) -> [String] {
        results.filter { !$0.passed }.map { result in
            let name = "\(result.id) at \(String(format: "%.0f", result.delay * 1000)) ms"
            guard explained else { return name }
            return name + ": " + (result.error.map { "p95 \(fixed($0.p95)) px > \(fixed(tolerance ?? 0)) px" }
                ?? "no frame compared" + (result.note.map { " (\($0))" } ?? ""))
        }
    }

    /// An HTML page: the verdict, the thresholds, the table, one plot per delay, then what made it (`run`).
    public func html(thumbnails: [QAThumbnail] = [], legend: [QALegendEntry] = [], directory: FilePath, run: QARunInfo? = nil) -> String {
        var page = HTMLReport(title: "fxreplay qa latency")
        page.paragraph("Latency QA of \(results.count) tap and delay pairs on a \(width)×\(height) recording")
        if tolerance != nil {
            page.verdict(passed ? ["PASS: every tap within the tolerance at every delay"]
                                : ["FAIL: " + failing(explained: false).joined(separator: ", ")] + failing(explained: true),
                         passed: passed)
        } else {
            page.verdict(["No verdict: no tolerance given (measurements only)"], passed: nil)
        }
        page.facts("Thresholds", [(name: "p95 pixel error", value: tolerance.map { "at most \(fixed($0)) px" } ?? "none"),
                                  (name: "delays", value: delays.map { String(format: "%.0f ms", $0 * 1000) }.joined(separator: ", "))])
        page.table(table, failingRows: Set(results.indices.filter { !results[$0].passed }))
        for delay in delays { page.svg(plot(delay: delay).svg()) }
        if !thumbnails.isEmpty {
            page.heading("Frames")
            page.legend(legend)
            page.images(thumbnails, relativeTo: directory)
        }
        page.run(run)
        return page.render()
    }
}
