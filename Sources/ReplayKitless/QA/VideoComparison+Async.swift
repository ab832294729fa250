extension VideoComparison {
    /// Compares video `a` with video `b` frame by frame (PSNR, SSIM, timestamps; see the type)
    /// without blocking the caller's thread.
    ///
    /// Cancelling the task stops the comparison at the next frame pair and throws
    /// ``ReplayError/cancelled``. A failed threshold is not thrown: read ``VideoComparisonResult``.
    /// - Parameters:
    ///   - a: the video measured (FFmpeg's main input): a local path or a URL that ``InputPolicy``
    ///     allows (a `String`: `FilePath` would fold the `//` of `https://host/a.mp4`).
    ///   - b: the reference it is measured against.
    ///   - options: the alignment and the thresholds; the defaults check timestamps and audio only.
    ///   - onProgress: called after each measured pair with the pairs so far
    ///     (`framesExpected` is nil: the pairing is only known at the end).
    public static func compare(_ a: String, with b: String, options: VideoComparisonOptions = VideoComparisonOptions(),
                               onProgress: @escaping @Sendable (JobProgress) throws(ReplayError) -> Void = { _ in })
        async throws(ReplayError) -> VideoComparison {
        let compared = try await CancellableJob.run(reporting: onProgress) { observe throws(ReplayError) in
            UncheckedBox(try VideoComparison(comparing: a, with: b, options: options) { pairs throws(ReplayError) in
                try observe(pairs, nil)
            })
        }
        return compared.value
    }
}
