import Foundation
import Logging
import Synchronization
import Testing
import FxreplayBatch
import ReplayKitless

/// The library as another Swift program depends on it (issue #26 items 8–11): one error type,
/// no output of its own, async jobs that cancel cleanly, one-call conveniences.
/// Serialized: the logger and FFmpeg's log level are process-wide.
@Suite(.serialized) struct LibraryAPITests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples")
    static let call = samples.appendingPathComponent("call.mp4").path

    // MARK: Item 8: one error type

    @Test func replayErrorShowsItsMessageAsALocalizedError() {
        let error: any Error = ReplayError.badInput(file: "poses.csv", line: 3, field: "x", "not a number")
        #expect(error.localizedDescription == "poses.csv:3 (x): not a number")
        #expect((error as? any LocalizedError)?.errorDescription == "poses.csv:3 (x): not a number")
    }

    /// Compiles only while each call throws `ReplayError` itself: `error` is used without a cast.
    @Test func publicCallsThrowReplayError() {
        let missing = "/nonexistent/fxreplay-\(UInt64.random(in: 0...UInt64.max))"
        do {
            _ = try PoseSidecar.read(path: FilePath(missing + ".csv"))
            _ = try AnnotationScene.load(path: FilePath(missing + ".json"))
            Issue.record("read a file that does not exist")
        } catch {
            #expect(error.exitCode == 3 && error.message.contains(missing))
        }
        do {
            _ = try PoseSEI.poses(in: missing + ".mp4")
            Issue.record("scanned a file that does not exist")
        } catch {
            #expect(error.kind == .badInput)
        }
    }

    /// Errors name the option property, not the command line's flag, and list it so that a front
    /// end can show its own name instead (issue #36 item 6; the CLI shows `--overwrite`).
    @Test func errorsNameTheOptionPropertyForAFrontEndToRename() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("exists.mp4").path
        #expect(FileManager.default.createFile(atPath: output, contents: Data("kept".utf8)))
        do {
            _ = try Renderer(options: RenderOptions(input: Self.call, output: FilePath(output))).run(progress: .none)
            Issue.record("replaced an existing output without overwrite")
        } catch {
            #expect(error.kind == .usage && error.options == ["RenderOptions.overwrite"])
            #expect(error.message == "\(output): already exists (`RenderOptions.overwrite` replaces it)")
            #expect(error.message(naming: { $0 == "RenderOptions.overwrite" ? "--overwrite" : nil })
                    == "\(output): already exists (--overwrite replaces it)")
            #expect(error.message(naming: { _ in nil }) == error.message)
        }
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "kept")
        var embedding = RenderOptions(input: Self.call, output: FilePath(directory.appendingPathComponent("embedded.mp4").path))
        embedding.embedPoses = true
        do {
            _ = try Renderer(options: embedding).run(progress: .none)
            Issue.record("embedded poses without a pose source")
        } catch {
            #expect(error.message == "`RenderOptions.embedPoses` needs `RenderOptions.poses`")
            #expect(error.options == ["RenderOptions.embedPoses", "RenderOptions.poses"])
        }
    }

    // MARK: Item 9: no output of its own

    @Test func warningsAndFFmpegsLogGoToTheCallersLoggerAndNothingToStderr() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = CapturedLog()
        let label = "render-\(UInt64.random(in: 0...UInt64.max))"
        let stderrText = try capturingStandardError(in: directory) {
            ReplayLog.logger = Logger(label: "test") { _ in CapturingHandler(log: log) }
            FFmpegLogging.configure(verbose: true)
            defer {
                FFmpegLogging.configure(verbose: false)
                ReplayLog.logger = Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() }
            }
            _ = try BatchPlanner(outputDirectory: directory.path, job: nil)
                .recordings(matching: [Self.call, directory.appendingPathComponent("none-*.mp4").path])
            var options = RenderOptions(input: Self.call, output: FilePath(directory.appendingPathComponent("out.mp4").path))
            options.encoder.crf = 45
            options.size = PictureSize(width: 160, height: 90)
            _ = try Renderer(options: options).run(progress: .plain, label: label)
        }
        // Other suites run meanwhile and swift-testing reports them on this same stderr, so look for
        // this test's own messages: the warning names the scratch folder, FFmpeg's lines name
        // libx264, the progress lines carry the label.
        for own in [directory.path, "libx264 @", label] {
            #expect(!stderrText.contains(own), "\(own) on stderr: \(stderrText)")
        }
        let entries = log.entries
        #expect(entries.contains { $0.level == .warning && $0.message.hasSuffix("none-*.mp4 matches no files") })
        // libx264 says which CPU features it uses at FFmpeg's info level: a line of FFmpeg's own.
        #expect(entries.contains { $0.source == "ffmpeg" && $0.message.contains("libx264 @") })
    }

    // MARK: Item 10: async and cancellable

    @Test func cancellingARenderAfterItsFirstProgressLeavesNoOutput() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("cancelled.mp4")
        let renderer = Renderer(options: RenderOptions(input: Self.call, output: FilePath(output.path)))
        let (firstEvent, signal) = AsyncStream<Void>.makeStream()
        let cancelled = Atomic<Bool>(false)
        let task = Task { () async throws(ReplayError) -> RenderReport in
            try await renderer.run { _ in
                signal.yield()
                // Hold the render's progress until the task is cancelled, so it cannot finish first.
                let deadline = Date().addingTimeInterval(10)
                while !cancelled.load(ordering: .acquiring), Date() < deadline { usleep(1000) }
            }
        }
        for await _ in firstEvent { break }
        let start = ContinuousClock.now
        task.cancel()
        cancelled.store(true, ordering: .releasing)
        let result = await task.result
        #expect(ContinuousClock.now - start < .seconds(3))
        switch result {
        case .success: Issue.record("the render finished despite the cancellation")
        case .failure(let error): #expect((error as? ReplayError)?.kind == .cancelled)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func startedRenderStreamsProgressAndReportsEveryFrame() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = RenderOptions(input: Self.call, output: FilePath(directory.appendingPathComponent("out.mp4").path))
        options.encoder.crf = 45
        options.size = PictureSize(width: 160, height: 90)
        let run = Renderer(options: options).start()
        var last: JobProgress?
        for await event in run.progress {
            if let last { #expect(event.framesDone >= last.framesDone) }
            last = event
        }
        let report = try await run.report()
        // The sample has 116 frames (Samples/README.md), and the last event counts them all.
        #expect(report.framesEncoded == 116 && last == JobProgress(framesDone: 116, framesExpected: last?.framesExpected))
    }

    // MARK: Item 11: conveniences

    /// The sample carries its poses twice: as SEI and as `call.poses.jsonl`, "same float32 values" (Samples/README.md).
    @Test func posesFromSEIMatchTheSidecar() throws {
        let poses = try PoseSEI.poses(in: Self.call)
        let sidecar = try PoseSidecar.read(path: FilePath(Self.samples.appendingPathComponent("call.poses.jsonl").path))
        #expect(poses.count == 116 && sidecar.count == 116)
        for (sei, file) in zip(poses, sidecar) {
            guard case .time(let time) = file.key else { Issue.record("sidecar keyed by frame"); return }
            #expect(abs(sei.time - time) < 0.0005)
            #expect(abs(Double(sei.pose.position.x) - file.position.x) < 1e-6 && abs(Double(sei.pose.euler.z) - file.euler.z) < 1e-6)
        }
    }
}

/// fd 2 redirected to a file while `body` runs; returns what was written there.
private func capturingStandardError(in directory: URL, _ body: () throws -> Void) throws -> String {
    let path = directory.appendingPathComponent("stderr.txt").path
    fflush(nil)
    let saved = dup(2)
    let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    dup2(file, 2)
    close(file)
    defer {
        fflush(nil)
        dup2(saved, 2)
        close(saved)
    }
    try body()
    fflush(nil)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    try FileManager.default.removeItem(atPath: path)
    return text
}

final class CapturedLog: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var source: String?
    }
    private let stored = Mutex<[Entry]>([])
    var entries: [Entry] { stored.withLock { $0 } }
    func append(_ entry: Entry) { stored.withLock { $0.append(entry) } }
}

struct CapturingHandler: LogHandler {
    let log: CapturedLog
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        log.append(.init(level: event.level, message: event.message.description,
                         source: event.metadata?[ReplayLog.sourceKey].map { "\($0)" }))
    }
}
