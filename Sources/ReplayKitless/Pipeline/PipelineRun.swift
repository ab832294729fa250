import Foundation

/// One running job of a pipeline (a render's, a composition's): what ``PipelineRun`` drives.
protocol PipelineSession: AnyObject {
    associatedtype Report: PipelineReport
    /// Frames the job expects to write, when known.
    var expectedFrames: Int? { get }
    /// Seconds of video the job covers, when known (for the progress line).
    var expectedSeconds: Double? { get }
    /// The output being written: moved into place when the job succeeds, removed when it fails.
    var outputFile: AtomicOutput { get }
    /// Runs the stages to their end, calling `progress` with the frames written so far.
    func run(progress: (Int) throws(ReplayError) -> Void) throws(ReplayError)
    /// Closes the output (still under its temporary name) and reports.
    func finish() throws(ReplayError) -> Report
}

/// What every pipeline's report says about the run itself.
protocol PipelineReport {
    var framesEncoded: Int { get }
    var wallSeconds: Double { get set }
    var speedFPS: Double { get set }
}

extension RenderReport: PipelineReport {}
extension ComposeReport: PipelineReport {}

/// How `render` and `compose` run their sessions, the one way: under the job's environment, with
/// progress shown and observed, the caller's other outputs written once the video is complete and
/// before it is moved into place, and on any failure nothing left under the output's name.
enum PipelineRun {
    /// Makes the session with `makeSession` and runs it on the calling thread (its stages on theirs).
    /// - Parameters:
    ///   - style: how progress shows on the command line's ``Console`` (`.none` for nothing).
    ///   - label: what the progress lines call the job.
    ///   - observe: called about ten times a second with the frames written so far and the number
    ///     expected; throwing from it stops the job with that error (how cancellation reaches it).
    ///   - beforeCommit: writes the caller's other outputs (its report, a preview), so that a
    ///     failure there leaves no video either: the outputs of a run appear together or not at all.
    static func run<Session: PipelineSession>(in environment: JobEnvironment?, progress style: ProgressStyle, label: String,
                                              observe: (_ framesDone: Int, _ framesExpected: Int?) throws(ReplayError) -> Void,
                                              beforeCommit: (Session.Report) throws(ReplayError) -> Void,
                                              session makeSession: () throws(ReplayError) -> Session) throws(ReplayError) -> Session.Report {
        try JobEnvironment.run(in: environment) { () throws(ReplayError) in
            let started = Date()
            let session = try makeSession()
            let reporter = ProgressReporter(style: style, label: label, total: session.expectedFrames, seconds: session.expectedSeconds)
            do throws(ReplayError) {
                try session.run { done throws(ReplayError) in
                    reporter.update(done: done)
                    try observe(done, session.expectedFrames)
                }
                var report = try session.finish()
                reporter.finish(done: report.framesEncoded)
                try observe(report.framesEncoded, session.expectedFrames)
                report.wallSeconds = Date().timeIntervalSince(started)
                report.speedFPS = report.wallSeconds > 0 ? Double(report.framesEncoded) / report.wallSeconds : 0
                try beforeCommit(report)
                try session.outputFile.commit()
                return report
            } catch {
                // Not waiting for the stage threads to release the session: the partial output goes now.
                session.outputFile.abort()
                throw error
            }
        }
    }
}
