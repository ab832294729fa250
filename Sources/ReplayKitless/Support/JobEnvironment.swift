import Foundation
import Logging

/// What one job runs under: where its warnings go and what its inputs may reach.
///
/// A ``Renderer`` or ``Composer`` given an environment keeps to it on every thread it starts, so
/// jobs running at once in one program each log to their own logger and open their inputs under
/// their own policy. A job given none runs under the environment of the task (or thread) that
/// runs it, if that was given one, else under the process's: ``ReplayLog/logger`` and
/// ``InputPolicy/current``. FFmpeg's own lines from its worker threads (frame-threaded decoding)
/// go to the process's logger: FFmpeg does not say which job they belong to.
public struct JobEnvironment: Sendable {
    /// Where the job's warnings and FFmpeg's lines about its files go.
    public var logger: Logger
    /// What the job's inputs may reach besides local files.
    public var inputPolicy: InputPolicy

    /// An environment logging to `logger` and opening inputs under `inputPolicy`.
    public init(logger: Logger, inputPolicy: InputPolicy = InputPolicy()) {
        self.logger = logger
        self.inputPolicy = inputPolicy
    }

    /// The environment bound on this task or thread, if any.
    @TaskLocal package static var bound: JobEnvironment?

    /// The logger of the job running here.
    package static var logger: Logger { bound?.logger ?? ReplayLog.logger }
    /// The input policy of the job running here.
    package static var inputPolicy: InputPolicy { bound?.inputPolicy ?? InputPolicy.current }

    /// Runs `body` under `environment` (`nil`: under the one bound now, if any).
    package static func run<T, Failure: Error>(in environment: JobEnvironment?, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        var result: Result<T, Failure>?
        $bound.withValue(environment ?? bound) { result = Result { () throws(Failure) -> T in try body() } }
        return try result!.get()
    }
}

/// Threads of a job: each starts under the environment of the thread that starts it.
package enum JobThread {
    /// Starts `body` on a new thread (with `stackSize` bytes of stack, when given) under the
    /// calling thread's ``JobEnvironment``.
    package static func start(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let environment = JobEnvironment.bound
        let thread = Thread { JobEnvironment.run(in: environment, body) }
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }
}
