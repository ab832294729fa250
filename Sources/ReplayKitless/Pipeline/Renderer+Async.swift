extension Renderer {
    /// Renders without blocking the caller's thread; returns the report once the output is in place.
    ///
    /// Cancelling the task stops the render within about a tenth of a second (at the next progress
    /// check), throws ``ReplayError/cancelled`` and leaves no output: neither the requested file nor
    /// its temporary.
    /// - Parameter onProgress: called about ten times a second from the render's thread, and once
    ///   with the final count; throwing from it stops the render the same way, with that error.
    public func run(
        onProgress: @escaping @Sendable (JobProgress) throws(ReplayError) -> Void = { _ in }
    ) async throws(ReplayError) -> RenderReport {
        // The renderer is used by the one thread the job runs on.
        nonisolated(unsafe) let renderer = self
        return try await CancellableJob.run(reporting: onProgress) { observe throws(ReplayError) in
            try renderer.run(progress: .none, observe: observe)
        }
    }

    /// The same render, its progress as an `AsyncSequence`: iterate ``JobRun/progress`` while the
    /// render runs, then await ``JobRun/report()``.
    public func start() -> JobRun<RenderReport> {
        nonisolated(unsafe) let renderer = self
        return JobRun { onProgress throws(ReplayError) in try await renderer.run(onProgress: onProgress) }
    }
}
