extension Composer {
    /// Composes without blocking the caller's thread; returns the report once the output is in place.
    ///
    /// Cancelling the task stops the composition at the next frame, throws ``ReplayError/cancelled``
    /// and leaves no output.
    /// - Parameter onProgress: called as frames are written, from the composing thread; throwing
    ///   from it stops the composition the same way, with that error.
    public func run(
        onProgress: @escaping @Sendable (JobProgress) throws(ReplayError) -> Void = { _ in }
    ) async throws(ReplayError) -> ComposeReport {
        // The composer is used by the one thread the job runs on.
        nonisolated(unsafe) let composer = self
        return try await CancellableJob.run(reporting: onProgress) { observe throws(ReplayError) in
            try composer.run(progress: .none, observe: observe)
        }
    }

    /// The same composition, its progress as an `AsyncSequence` (``JobRun/progress``).
    public func start() -> JobRun<ComposeReport> {
        nonisolated(unsafe) let composer = self
        return JobRun { onProgress throws(ReplayError) in try await composer.run(onProgress: onProgress) }
    }
}
