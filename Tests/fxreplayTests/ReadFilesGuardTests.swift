import Foundation
import FxTestSupport
import ReplayKitless
import Testing

/// Issue #33, class 2 (and #36's one guard): every file a command reads is never written, for
/// compose and `render CALL --stream` as for render. Each case checks the exit status, that the
/// message names the file, and that the file's bytes are as they were.
@Suite(.serialized) struct ReadFilesGuardTests {
    /// A call folder with two participants' short recordings, as an archive manifest and as a
    /// call manifest, and a scratch copy of a font.
    static func callFolder() throws -> (dir: URL, archiveManifest: String, callManifest: String) {
        let dir = try makeScratchDirectory()
        let streams = [
            FixtureStream(id: "a1", name: "Alice", tracks: [FixtureTrack(file: "alice.webm", video: .constant(duration: 0.5, tag: 1))]),
            FixtureStream(id: "b2", name: "Bob", tracks: [FixtureTrack(file: "bob.webm", video: .constant(duration: 0.5, tag: 2))]),
        ]
        let archive = try CallFixtures.writeArchive(streams, in: dir)
        // (In a folder of its own: a call folder holds one manifest.)
        let callFolder = dir.appendingPathComponent("call")
        try FileManager.default.createDirectory(at: callFolder, withIntermediateDirectories: false)
        let call = try CallFixtures.writeCallManifest(streams, in: callFolder)
        return (dir, archive, call)
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    static func expectRefused(_ run: RunResult, naming file: String, kept path: String, _ before: Data,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(run.status == 2, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr.contains("refusing to write over"), "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr.contains(URL(fileURLWithPath: file).lastPathComponent), "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(try bytes(path) == before, "\(path) was written over", sourceLocation: sourceLocation)
    }

    /// `compose --report` (and `--preview`) over the call manifest, the archive's manifest, the
    /// ZIP, the `--job` file or the layout: each was written over before (exit 0).
    @Test func composeNeverWritesOverWhatItReads() throws {
        let (dir, archiveManifest, callManifest) = try Self.callFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let job = dir.appendingPathComponent("job.yaml").path
        try Data("preset: ultrafast\n".utf8).write(to: URL(fileURLWithPath: job))
        let layout = dir.appendingPathComponent("layout.json").path
        try Data(#"{"version": 1, "tiles": [{"stream": "a1", "rect": [0, 0, 32, 36]}]}"#.utf8).write(to: URL(fileURLWithPath: layout))
        let zip = dir.appendingPathComponent("call.zip").path
        let zipper = Process()
        zipper.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        zipper.arguments = ["-c", "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w'); [z.write(f, f.split('/')[-1]) for f in sys.argv[2:]]; z.close()",
                            zip, archiveManifest, dir.appendingPathComponent("alice.webm").path, dir.appendingPathComponent("bob.webm").path]
        try zipper.run()
        zipper.waitUntilExit()
        let base = ["-o", dir.appendingPathComponent("out.mkv").path, "--size", "64x36", "--fps", "5", "--progress", "none", "--overwrite"]
        let cases: [(call: String, extra: [String], victim: String)] = [
            (callManifest, ["--report", callManifest], callManifest),
            (archiveManifest, ["--report", archiveManifest], archiveManifest),
            (zip, ["--report", zip], zip),
            (callManifest, ["--job", job, "--report", job], job),
            (callManifest, ["--layout", layout, "--report", layout], layout),
            (dir.path, ["--report", archiveManifest], archiveManifest),
            (callManifest, ["--report", dir.appendingPathComponent("call/bob.webm").path], dir.appendingPathComponent("call/bob.webm").path),
        ]
        for (call, extra, victim) in cases {
            let before = try Self.bytes(victim)
            let run = try runFxreplay(["compose", call] + base + extra)
            try Self.expectRefused(run, naming: victim, kept: victim, before)
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.mkv").path), "\(extra): the video appeared")
        }
    }

    /// A file read only once the work has begun (the font for `--names`, opened when the first
    /// name is drawn) is caught when the outputs are moved into place: none of them appears.
    @Test func aFileReadAfterTheOutputsWereReservedIsNotReplaced() throws {
        let (dir, _, callManifest) = try Self.callFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let font = dir.appendingPathComponent("font.ttf").path
        try FileManager.default.copyItem(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", toPath: font)
        let before = try Self.bytes(font)
        let output = dir.appendingPathComponent("out.mkv").path
        let run = try runFxreplay(["compose", callManifest, "-o", output, "--size", "64x36", "--fps", "5", "--names", "--font", font,
                                   "--report", font, "--overwrite", "--progress", "none"])
        try Self.expectRefused(run, naming: font, kept: font, before)
        #expect(!FileManager.default.fileExists(atPath: output), "the video appeared although its report could not")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".part") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// `render CALL --stream A -o` over participant B's recording: B is a file of the call.
    @Test func renderOfOneStreamNeverWritesOverAnotherParticipantsFile() throws {
        let (dir, _, callManifest) = try Self.callFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bob = dir.appendingPathComponent("call/bob.webm").path
        let before = try Self.bytes(bob)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link.webm").path, withDestinationPath: bob)
        for output in [bob, "./call/bob.webm", "call/../call/bob.webm", "link.webm"] {
            let run = try runFxreplay(["render", callManifest, "--stream", "Alice", "-o", output, "--overwrite", "--progress", "none"],
                                      currentDirectory: dir)
            try Self.expectRefused(run, naming: bob, kept: bob, before)
        }
    }

    /// Names from a manifest reach the terminal escaped: a participant named with a line feed and
    /// an escape sequence neither forges a line nor sends ESC, in `probe`'s listing (stdout) or in
    /// an error that names the streams (stderr); `--json` keeps the name exact.
    @Test func namesFromAManifestArePrintedEscaped() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = "Eve\nfxreplay: error: forged\u{1B}[2J"
        let manifest = try CallFixtures.writeCallManifest(
            [FixtureStream(id: "e5", name: name, tracks: [FixtureTrack(file: "eve.webm", video: .constant(duration: 0.3, tag: 1))])], in: dir)
        let probe = try runFxreplay(["probe", manifest])
        #expect(probe.status == 0, "\(probe.stderr)")
        #expect(!probe.stdout.unicodeScalars.contains("\u{1B}"))
        #expect(!probe.stdout.split(separator: "\n").contains { $0.hasPrefix("fxreplay: error: forged") }, "\(probe.stdout)")
        #expect(probe.stdout.contains(#"Eve\nfxreplay: error: forged\u{1B}[2J"#), "\(probe.stdout)")
        let json = try runFxreplay(["probe", manifest, "--json"])
        #expect(json.stdout.contains(#""Eve\nfxreplay: error: forged\u001b[2J""#), "\(json.stdout)")
        let render = try runFxreplay(["render", manifest, "--stream", "nobody", "-o", dir.appendingPathComponent("o.mp4").path])
        #expect(render.status != 0)
        #expect(!render.stderr.unicodeScalars.contains("\u{1B}"), "\(render.stderr.debugDescription)")
        #expect(!render.stderr.split(separator: "\n").contains { $0.hasPrefix("fxreplay: error: forged") }, "\(render.stderr)")
    }
}
