import Foundation
import Testing

/// Paths in a job file are relative to the job file (#26 item 5), as a manifest's are to the
/// manifest: the job `fxreplay sample` writes works from any directory, for render and compose.
@Suite struct JobPathTests {
    /// A sample made under a relative name (`s`), then used from a sibling directory (`elsewhere`):
    /// with paths relative to the working directory, `s/annotations.json` would not be found there.
    static func relativeSample() throws -> (root: URL, elsewhere: URL) {
        let root = try makeScratchDirectory()
        let made = try runFxreplay(["sample", "-o", "s", "--seconds", "1", "--size", "128x72"], currentDirectory: root)
        try #require(made.status == 0, "\(made.stderr)")
        let elsewhere = root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        return (root, elsewhere)
    }

    @Test func renderJobWorksFromAnotherDirectory() throws {
        let (root, elsewhere) = try Self.relativeSample()
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try runFxreplay(["render", "--job", "../s/job.yaml", "../s/call.mp4", "-o", "out.mkv", "--codec", "ffv1",
                                   "--progress", "none"], currentDirectory: elsewhere)
        #expect(run.status == 0, "\(run.stderr)")
        // The job's mask and annotations were found and used: its background replaced the wall.
        #expect(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("out.mkv").path))
        // The output, relative to the working directory as on any command line, is not next to the job.
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("s/out.mkv").path))
    }

    @Test func composeJobStreamsWorkFromAnotherDirectory() throws {
        let (root, elsewhere) = try Self.relativeSample()
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try runFxreplay(["compose", "--job", "../s/call-archive.job.yaml", "../s/call-archive.zip", "-o", "call.mkv",
                                   "--codec", "ffv1", "--size", "128x72", "--fps", "5", "--progress", "none"], currentDirectory: elsewhere)
        #expect(run.status == 0, "\(run.stderr)")
    }

    /// A relative path that names no file is reported as the job file's directory sees it.
    @Test func missingFileIsNamedRelativeToTheJob() throws {
        let (root, elsewhere) = try Self.relativeSample()
        defer { try? FileManager.default.removeItem(at: root) }
        let job = root.appendingPathComponent("s/bad.yaml")
        try Data("poses: nowhere.jsonl\n".utf8).write(to: job)
        let run = try runFxreplay(["render", "--job", "../s/bad.yaml", "../s/call.mp4", "-o", "out.mkv", "--progress", "none"],
                                  currentDirectory: elsewhere)
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains(root.appendingPathComponent("s/nowhere.jsonl").path) || run.stderr.contains("s/nowhere.jsonl"), "\(run.stderr)")
    }
}
