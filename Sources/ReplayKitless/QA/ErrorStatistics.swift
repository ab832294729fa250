/// One pixel-error measurement: how far apart two placements of an anchor are on one frame.
public struct ErrorSample: Sendable, Equatable, Codable {
    /// The frame (of the first track, or of the video) and its time in seconds.
    public var frame: Int
    /// The frame's time, seconds.
    public var t: Double
    /// Euclidean distance in pixels.
    public var error: Double

    /// A measurement of `error` pixels on frame `frame` at `t` seconds.
    public init(frame: Int, t: Double, error: Double) {
        self.frame = frame; self.t = t; self.error = error
    }
}

/// A frame of a track or video, by number and time in seconds.
public struct FrameReference: Sendable, Equatable, Codable {
    /// 0-based frame number.
    public var frame: Int
    /// The frame's time, seconds.
    public var t: Double

    /// Frame `frame` at `t` seconds.
    public init(frame: Int, t: Double) {
        self.frame = frame; self.t = t
    }
}

/// Summary statistics of pixel errors.
///
/// - `median`: the middle value of the sorted errors, or the mean of the two middle values when
///   there is an even number of them.
/// - `p95`: nearest rank: the smallest error that at least 95 % of the errors do not exceed, i.e.
///   the ⌈0.95·n⌉-th smallest (1-based). It is always one of the measured errors.
public struct ErrorStatistics: Sendable, Equatable, Codable {
    /// Number of samples.
    public var count: Int
    /// Mean error, pixels.
    public var mean: Double
    /// Median error, pixels (see above).
    public var median: Double
    /// 95th percentile by nearest rank, pixels: the figure tolerances are checked against.
    public var p95: Double
    /// Largest error, pixels.
    public var max: Double
    /// The sample with the largest error (the first one on ties).
    public var worst: ErrorSample

    /// `nil` for no samples.
    public init?(_ samples: [ErrorSample]) {
        guard let first = samples.first else { return nil }
        var worst = first
        var sum = 0.0
        for sample in samples {
            sum += sample.error
            if sample.error > worst.error { worst = sample }
        }
        let sorted = samples.map(\.error).sorted()
        let n = sorted.count
        count = n
        mean = sum / Double(n)
        median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
        p95 = sorted[Self.nearestRank(percent: 95, count: n) - 1]
        max = worst.error
        self.worst = worst
    }

    /// ⌈percent/100 · count⌉ in integers (no floating-point rounding at exact ranks), at least 1.
    static func nearestRank(percent: Int, count: Int) -> Int {
        Swift.max(1, (percent * count + 99) / 100)
    }
}
