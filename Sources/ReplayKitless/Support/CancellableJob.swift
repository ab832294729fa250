import Foundation
import Synchronization

/// How far a running job is, as the `async` forms report it.
public struct JobProgress: Sendable, Equatable {
    /// Frames written so far.
    public var framesDone: Int
    /// Frames the job expects to write, when the input says.
    public var framesExpected: Int?

    /// Done over expected, 0...1, when the total is known.
    public var fractionDone: Double? {
        guard let framesExpected, framesExpected > 0 else { return nil }
        return min(1, Double(framesDone) / Double(framesExpected))
    }

    /// Progress of `framesDone` out of `framesExpected`.
    public init(framesDone: Int, framesExpected: Int?) {
        self.framesDone = framesDone
        self.framesExpected = framesExpected
    }
}

/// Runs a blocking job (the render and compose pipelines run on threads of their own) from an
/// `async` caller: the job goes to a thread of its own so no cooperative thread waits on it, and the
/// task's cancellation sets a flag the job's progress callback checks about ten times a second;
/// the job then fails with ``ReplayError/cancelled`` and its ``AtomicOutput`` leaves nothing behind.
package enum CancellableJob {
    package static func run<T: Sendable>(
        _ work: @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws(ReplayError) -> T
    ) async throws(ReplayError) -> T {
        if Task.isCancelled { throw .cancelled }
        let flag = CancelFlag()
        let result: Result<T, ReplayError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Under the task's job environment, if it was given one.
                JobThread.start {
                    // One job: what it reads is guarded against its outputs (ReadFiles).
                    continuation.resume(returning: Result { () throws(ReplayError) -> T in try ReadFiles.scope { () throws(ReplayError) in try work { flag.isSet } } })
                }
            }
        } onCancel: {
            flag.set()
        }
        return try result.get()
    }

    /// Runs a pipeline whose progress callback (frames done, frames expected) is where it can be
    /// stopped: each call first checks for cancellation, then hands the count to `onProgress`.
    package static func run<T: Sendable>(
        reporting onProgress: @escaping @Sendable (JobProgress) throws(ReplayError) -> Void,
        _ pipeline: @escaping @Sendable (_ observe: (Int, Int?) throws(ReplayError) -> Void) throws(ReplayError) -> T
    ) async throws(ReplayError) -> T {
        try await run { isCancelled throws(ReplayError) in
            try pipeline { done, expected throws(ReplayError) in
                if isCancelled() { throw .cancelled }
                try onProgress(JobProgress(framesDone: done, framesExpected: expected))
            }
        }
    }
}

/// A job started without waiting for it (``Renderer/start()``, ``Composer/start()``): its progress
/// as an `AsyncSequence`, its result later.
public struct JobRun<Report: Sendable>: Sendable {
    /// Progress events until the job ends (the last one, on success, has every frame).
    public let progress: AsyncStream<JobProgress>
    private let task: Task<Result<Report, ReplayError>, Never>

    /// Starts `job`, which reports through the callback it is given.
    package init(_ job: @escaping @Sendable (_ onProgress: @escaping @Sendable (JobProgress) throws(ReplayError) -> Void)
                    async throws(ReplayError) -> Report) {
        let (stream, continuation) = AsyncStream<JobProgress>.makeStream(bufferingPolicy: .bufferingNewest(1))
        progress = stream
        task = Task {
            defer { continuation.finish() }
            do throws(ReplayError) {
                return .success(try await job { continuation.yield($0) })
            } catch {
                return .failure(error)
            }
        }
    }

    /// Waits for the job and returns its report; cancelling the waiting task cancels the job.
    public func report() async throws(ReplayError) -> Report {
        try await withTaskCancellationHandler {
            await task.value
        } onCancel: { [task] in
            task.cancel()
        }.get()
    }

    /// Stops the job; ``report()`` then throws ``ReplayError/cancelled`` and no output is left.
    public func cancel() { task.cancel() }
}

private final class CancelFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// Carries a value made on one thread to the task that waits for it, nothing else touching it meanwhile.
package struct UncheckedBox<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
