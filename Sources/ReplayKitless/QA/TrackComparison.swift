import Foundation

/// How rows of two placement tracks are paired, and what counts as a failure.
public struct TrackComparisonOptions: Sendable, Equatable {
    /// How a row of track A finds its partner in track B (always the same annotation id).
    public enum Matching: Sendable, Equatable {
        /// Same frame number. Rows of either track without a partner are unmatched.
        case frame
        /// The B row nearest in time (the earlier one on ties), if within `tolerance` seconds.
        /// A B row may pair with several A rows or none (the tracks may run at different rates), but
        /// rows of either track with no row of the other within `tolerance` are unmatched: a frame
        /// missing from one track shows whichever track it is missing from.
        case time(tolerance: Double)
    }

    /// How rows pair: same frame number (the default) or nearest time within a tolerance.
    public var matching: Matching
    /// Largest allowed p95 pixel error of an annotation.
    public var tolerance: Double
    /// Largest allowed number of paired rows where one track says visible and the other not.
    public var maxVisibilityMismatches: Int
    /// Largest allowed number of unmatched rows per annotation.
    public var maxUnmatched: Int

    /// The options of `fxreplay qa compare`; the defaults are its defaults (frame matching, 1 pixel,
    /// no visibility mismatch, no unmatched row).
    public init(matching: Matching = .frame, tolerance: Double = 1.0, maxVisibilityMismatches: Int = 0, maxUnmatched: Int = 0) {
        self.matching = matching
        self.tolerance = tolerance
        self.maxVisibilityMismatches = maxVisibilityMismatches
        self.maxUnmatched = maxUnmatched
    }
}

/// The comparison of one annotation's placements in two tracks.
public struct AnnotationTrackComparison: Sendable, Equatable, Codable {
    /// The annotation's id.
    public var id: String
    /// Rows of the annotation in track A.
    public var rowsA: Int
    /// Rows of the annotation in track B.
    public var rowsB: Int
    /// Pairs of rows found.
    public var matched: Int
    /// Rows without a partner (see ``TrackComparisonOptions/Matching``).
    public var unmatched: Int
    /// Pairs where both rows are visible: the frames the pixel error is measured on.
    public var compared: Int
    /// Pairs where exactly one row is visible.
    public var visibilityMismatches: Int
    /// The first such pair, as frame and time of track A.
    public var firstVisibilityMismatch: FrameReference?
    /// Pixel error statistics over the compared frames; `nil` when there are none.
    public var error: ErrorStatistics?
    /// Why the annotation fails; empty when it passes.
    public var failures: [String]
    /// Whether the annotation is within every threshold (`failures` is empty).
    public var passed: Bool
    /// Error per compared frame in track A's order, for plots (not written to JSON).
    public var samples: [ErrorSample] = []
    /// Every pair where exactly one row is visible, as frame and time of track A, for plots (not written to JSON).
    public var visibilityMismatchFrames: [FrameReference] = []

    enum CodingKeys: String, CodingKey {
        case id, rowsA, rowsB, matched, unmatched, compared, visibilityMismatches, firstVisibilityMismatch, error, failures, passed
    }

    init(id: String, rowsA: Int, rowsB: Int, matched: Int, unmatched: Int, visibilityMismatchFrames: [FrameReference],
         samples: [ErrorSample], failures: [String]) {
        self.id = id
        self.rowsA = rowsA
        self.rowsB = rowsB
        self.matched = matched
        self.unmatched = unmatched
        self.compared = samples.count
        self.visibilityMismatches = visibilityMismatchFrames.count
        self.firstVisibilityMismatch = visibilityMismatchFrames.first
        self.visibilityMismatchFrames = visibilityMismatchFrames
        self.error = ErrorStatistics(samples)
        self.failures = failures
        self.passed = failures.isEmpty
        self.samples = samples
    }
}

/// `fxreplay qa compare`: two placement tracks of the same video compared annotation by annotation.
public struct TrackComparisonReport: Sendable, Equatable, Codable {
    /// Track A's file, as given.
    @PathCoded public var fileA: FilePath
    /// Track B's file, as given.
    @PathCoded public var fileB: FilePath
    /// `"frame"` or `"time"`.
    public var matching: String
    /// Seconds, for time matching.
    public var timeTolerance: Double?
    /// The largest allowed p95 pixel error of an annotation (`TrackComparisonOptions/tolerance`).
    public var tolerance: Double
    /// The largest allowed number of visibility mismatches per annotation.
    public var maxVisibilityMismatches: Int
    /// The largest allowed number of unmatched rows per annotation.
    public var maxUnmatched: Int
    /// In order of first appearance in A, then ids found only in B.
    public var annotations: [AnnotationTrackComparison]
    /// Whether every annotation passed; `fxreplay qa compare` exits 1 otherwise.
    public var passed: Bool
    /// Ids of the failing annotations, in report order.
    public var failingIDs: [String]

    /// Compares track `a` with track `b`.
    public init(comparing a: PlacementTrack, with b: PlacementTrack, options: TrackComparisonOptions = TrackComparisonOptions()) {
        fileA = a.file
        fileB = b.file
        switch options.matching {
        case .frame:
            matching = "frame"
            timeTolerance = nil
        case .time(let tolerance):
            matching = "time"
            timeTolerance = tolerance
        }
        tolerance = options.tolerance
        maxVisibilityMismatches = options.maxVisibilityMismatches
        maxUnmatched = options.maxUnmatched

        let rowsA = Self.grouped(a.rows), rowsB = Self.grouped(b.rows)
        var ids = rowsA.order
        ids += rowsB.order.filter { rowsA.rows[$0] == nil }
        annotations = ids.map { id in
            Self.compare(id: id, rowsA[id], rowsB[id], a: a.file.string, b: b.file.string, options: options)
        }
        failingIDs = annotations.filter { !$0.passed }.map(\.id)
        passed = failingIDs.isEmpty
    }

    private struct Grouped {
        var order: [String] = []
        var rows: [String: [PlacementRow]] = [:]
        subscript(id: String) -> [PlacementRow] { rows[id] ?? [] }
    }

    private static func grouped(_ rows: [PlacementRow]) -> Grouped {
        var grouped = Grouped()
        for row in rows {
            if grouped.rows[row.id] == nil { grouped.order.append(row.id) }
            grouped.rows[row.id, default: []].append(row)
        }
        return grouped
    }

    private static func compare(id: String, _ rowsA: [PlacementRow], _ rowsB: [PlacementRow], a: String, b: String,
                                options: TrackComparisonOptions) -> AnnotationTrackComparison {
        let partners = partners(rowsA, rowsB, matching: options.matching)
        var samples: [ErrorSample] = []
        var mismatches: [FrameReference] = []
        var matched = 0
        for (row, partner) in zip(rowsA, partners) {
            guard let partner else { continue }
            matched += 1
            if row.visible != partner.visible {
                mismatches.append(FrameReference(frame: row.frame, t: row.t))
            } else if row.visible, let xa = row.x, let ya = row.y, let xb = partner.x, let yb = partner.y {
                samples.append(ErrorSample(frame: row.frame, t: row.t, error: ((xa - xb) * (xa - xb) + (ya - yb) * (ya - yb)).squareRoot()))
            }
        }
        var unmatched = rowsA.count - matched
        switch options.matching {
        case .frame: unmatched += rowsB.count - matched
        case .time: unmatched += Self.partners(rowsB, rowsA, matching: options.matching).filter { $0 == nil }.count
        }

        var failures: [String] = []
        if rowsA.isEmpty { failures.append("missing from \(a)") }
        if rowsB.isEmpty { failures.append("missing from \(b)") }
        if let statistics = ErrorStatistics(samples), statistics.p95 > options.tolerance {
            failures.append("p95 error \(fixed(statistics.p95)) px exceeds the tolerance \(fixed(options.tolerance)) px")
        }
        if mismatches.count > options.maxVisibilityMismatches {
            failures.append("visibility differs on \(mismatches.count) frames (at most \(options.maxVisibilityMismatches) allowed)")
        }
        if !rowsA.isEmpty, !rowsB.isEmpty, unmatched > options.maxUnmatched {
            failures.append("\(unmatched) rows without a partner (at most \(options.maxUnmatched) allowed)")
        }
        return AnnotationTrackComparison(id: id, rowsA: rowsA.count, rowsB: rowsB.count, matched: matched, unmatched: unmatched,
                                         visibilityMismatchFrames: mismatches, samples: samples, failures: failures)
    }

    /// For each row of A, its partner in B or `nil`.
    private static func partners(_ rowsA: [PlacementRow], _ rowsB: [PlacementRow], matching: TrackComparisonOptions.Matching) -> [PlacementRow?] {
        switch matching {
        case .frame:
            var byFrame: [Int: PlacementRow] = [:]
            for row in rowsB { byFrame[row.frame] = row }
            return rowsA.map { byFrame[$0.frame] }
        case .time(let tolerance):
            let sorted = rowsB.sorted { $0.t < $1.t }
            let times = sorted.map(\.t)
            return rowsA.map { row in
                guard let index = nearestIndex(in: times, to: row.t), abs(times[index] - row.t) <= tolerance else { return nil }
                return sorted[index]
            }
        }
    }
}

/// The index of the value in ascending `times` nearest to `target` (the earlier on ties); `nil` when empty.
func nearestIndex(in times: [Double], to target: Double) -> Int? {
    guard !times.isEmpty else { return nil }
    var low = 0, high = times.count
    while low < high {
        let middle = (low + high) / 2
        if times[middle] < target { low = middle + 1 } else { high = middle }
    }
    // `low` is the first time ≥ target.
    if low == times.count { return times.count - 1 }
    if low > 0, target - times[low - 1] <= times[low] - target { return low - 1 }
    return low
}

/// Two decimals, for messages and tables.
func fixed(_ value: Double) -> String {
    String(format: "%.2f", value)
}
