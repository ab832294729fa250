import Foundation
import FxTestSupport
@testable import FxreplayBatch
@testable import ReplayKitless
import Testing

/// Issue #24, classes 1 and 2: commands run unattended over files other people upload must never
/// write over a file they read, whatever its spelling, and a batch writes only inside `--out`,
/// replacing only what a batch made.
@Suite struct HostileOutputTests {
    /// A scratch folder with a small recording `in.mp4` (4 frames).
    static func folderWithRecording() throws -> (dir: URL, input: String, bytes: Data) {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mp4").path
        try writeRecording(to: input, pts: (0..<4).map { Int64($0) * 3000 })
        return (dir, input, try Data(contentsOf: URL(fileURLWithPath: input)))
    }

    /// `file:` URLs (as libavformat opens them, and as URL readers would: percent-encoded, with a
    /// host) name the file they lead to: render -o and --report refuse them (exit 2, or 3 where the
    /// input does not open that way) and the recording stays as it was. (--preview must end in .png,
    /// so it cannot name this recording: HostileInputTests.)
    @Test func renderRefusesEverySpellingOfItsInputAsAnOutput() throws {
        let (dir, input, bytes) = try Self.folderWithRecording()
        let encoded = dir.path + "/in%2Emp4"
        let spellings = ["file://" + input, "file:" + input, "file:in.mp4", "file://" + encoded, "file://localhost" + input]
        for spelling in spellings {
            for written in [["-o", "in.mp4"], ["-o", "out.mp4", "--report", "in.mp4"], ["-o", "out.mp4", "--report", "./in.mp4"]] {
                let run = try runFxreplay(["render", spelling] + written + ["--overwrite", "--progress", "none"], currentDirectory: dir)
                // --report is checked before the input is opened; libavformat opens `file://` + path.
                if spelling == "file://" + input || written.count > 2 {
                    #expect(run.status == 2, "\(spelling) \(written): \(run.stderr)")
                    #expect(run.stderr.contains("refusing to write over"), "\(spelling) \(written): \(run.stderr)")
                } else {
                    #expect(run.status == 2 || run.status == 3, "\(spelling) \(written): \(run.stderr)")
                }
                #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == bytes, "\(spelling) \(written) replaced the input")
            }
        }
        // FFmpeg's wrappers of the file protocol: refused (here, or when opening the input), never written over.
        for spelling in ["async:file:" + input, "cache:" + input, "subfile,,start,0,end,0,,:" + input, "concat:" + input + "|" + input,
                         "crypto+file:" + input] {
            let run = try runFxreplay(["render", spelling, "-o", "in.mp4", "--overwrite", "--progress", "none"], currentDirectory: dir)
            #expect(run.status == 2 || run.status == 3, "\(spelling): \(run.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == bytes, "\(spelling) replaced the input")
        }
    }

    /// A name ending in `/` names a folder, as the system calls read it (the library's `FilePath`
    /// drops the slash): `-o new.mp4/` and `--report r.json/` write nothing (exit 2), an input
    /// file spelled so is refused (exit 3), and a doubled slash still names the same file.
    @Test func aTrailingSlashNamesAFolder() throws {
        let (dir, input, bytes) = try Self.folderWithRecording()
        try Data(#"{"version": 1, "annotations": []}"#.utf8).write(to: dir.appendingPathComponent("scene.json"))
        for written in [["-o", "new.mp4/"], ["-o", "new.mp4", "--report", "r.json/"]] {
            let run = try runFxreplay(["render", input] + written + ["--progress", "none"], currentDirectory: dir)
            #expect(run.status == 2 && run.stderr.contains("ends in /, so names a folder"), "\(written): \(run.stderr)")
        }
        let folder = try runFxreplay(["render", input, "-o", "./", "--progress", "none"], currentDirectory: dir)
        #expect(folder.status == 2 && folder.stderr.contains("./: is a directory"), "\(folder.stderr)")
        let scene = try runFxreplay(["render", input, "-o", "new.mp4", "--poses-from-sei", "--annotations", "scene.json/", "--progress", "none"],
                                    currentDirectory: dir)
        #expect(scene.status == 3 && scene.stderr.contains("scene.json/: not a folder"), "\(scene.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["in.mp4", "scene.json"])
        let doubled = try runFxreplay(["render", input, "-o", ".//new.mp4", "--progress", "none"], currentDirectory: dir)
        #expect(doubled.status == 0, "\(doubled.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("new.mp4").path))
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == bytes)
    }

    /// The job spec is a file render reads: --report, --preview or -o over it (even through a
    /// symbolic link) is refused.
    @Test func renderRefusesToWriteOverItsJobFile() throws {
        let (dir, input, _) = try Self.folderWithRecording()
        let job = dir.appendingPathComponent("job.yaml")
        let jobText = Data("preset: ultrafast\n".utf8)
        try jobText.write(to: job)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("job-link.json").path, withDestinationPath: job.path)
        for written in [["-o", "out.mp4", "--report", job.path], ["-o", "out.mp4", "--report", "job-link.json"],
                        ["-o", "out.mp4", "--preview", "job.yaml"]] {
            let run = try runFxreplay(["render", "--job", "job.yaml", input] + written + ["--overwrite", "--progress", "none"], currentDirectory: dir)
            #expect(run.status == 2, "\(written): \(run.stderr)")
            #expect(run.stderr.contains("job.yaml"), "\(written): \(run.stderr)")
            #expect(try Data(contentsOf: job) == jobText, "\(written) replaced the job")
        }
    }

    /// qa overlay's tracks and compare's inputs are inputs too, by any name.
    @Test func qaAndCompareOutputsNeverReplaceTheirInputs() throws {
        let (dir, input, bytes) = try Self.folderWithRecording()
        let track = dir.appendingPathComponent("track.csv")
        let trackText = Data("frame,t,id,visible,x,y,depth\n0,0,a,1,10,10,1\n".utf8)
        try trackText.write(to: track)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("review.mkv").path, withDestinationPath: track.path)
        let overlay = try runFxreplay(["qa", "overlay", input, "--track", track.path, "-o", "review.mkv", "--overwrite", "--progress", "none"],
                                      currentDirectory: dir)
        #expect(overlay.status == 2, "\(overlay.stderr)")
        #expect(try Data(contentsOf: track) == trackText)
        let overInput = try runFxreplay(["qa", "overlay", "file://" + input, "--track", track.path, "-o", "in.mp4", "--overwrite",
                                         "--progress", "none"], currentDirectory: dir)
        #expect(overInput.status == 2, "\(overInput.stderr)")
        let diff = try runFxreplay(["compare", "file://" + input, input, "--diff", "in.mp4"], currentDirectory: dir)
        #expect(diff.status == 2, "\(diff.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == bytes)
    }

    /// A manifest for `batch`: the recording `in.mp4` next to it, and `victim.mp4` outside --out.
    static func batchFolder(_ manifest: String) throws -> (dir: URL, out: URL, manifest: String, victim: URL) {
        let (dir, _, _) = try folderWithRecording()
        let victim = dir.appendingPathComponent("victim.mp4")
        try Data("someone else's file".utf8).write(to: victim)
        let path = dir.appendingPathComponent(manifest.hasPrefix("{") ? "m.jsonl" : "m.csv").path
        try Data(manifest.replacingOccurrences(of: "DIR", with: dir.path).utf8).write(to: URL(fileURLWithPath: path))
        return (dir, dir.appendingPathComponent("out"), path, victim)
    }

    /// Manifest output and preview cells name files inside --out only: `..`, absolute paths and
    /// symbolic links leading out are bad input (exit 3) naming the line and field.
    @Test func batchOutputsStayInsideOut() throws {
        let cases: [(manifest: String, field: String)] = [
            ("input,output\nin.mp4,../victim.mp4\n", "output"),
            ("input,output\nin.mp4,DIR/victim.mp4\n", "output"),
            ("input,output\nin.mp4,escape/victim.mp4\n", "output"),
            ("input,preview\nin.mp4,../victim.png\n", "preview"),
            ("{\"input\": \"in.mp4\", \"preview\": \"DIR/victim.png\"}\n", "preview"),
        ]
        for (manifest, field) in cases {
            let (dir, out, path, victim) = try Self.batchFolder(manifest)
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("escape").path, withDestinationPath: dir.path)
            let png = dir.appendingPathComponent("victim.png")
            try Data("picture".utf8).write(to: png)
            let (run, _) = try runBatch(["--manifest", path], out: out)
            #expect(run.status == 3, "\(manifest): \(run.stderr)")
            #expect(run.stderr.contains(":2 (\(field))") || run.stderr.contains(":1 (\(field))"), "\(manifest): \(run.stderr)")
            #expect(try String(contentsOf: victim, encoding: .utf8) == "someone else's file")
            #expect(try String(contentsOf: png, encoding: .utf8) == "picture")
        }
    }

    /// A key is an option name: one that carries `=`, a space or dashes would put another option on
    /// render's command line (`output=…` replaced the file it names).
    @Test func batchKeysAreOptionNamesOnly() throws {
        for (manifest, key) in [("input,output=DIR/victim.mp4\nin.mp4,true\n", "output=DIR/victim.mp4"),
                                ("{\"input\": \"in.mp4\", \"preview=DIR/victim.png\": true}\n", "preview=DIR/victim.png"),
                                ("input,--crf\nin.mp4,20\n", "--crf"), ("input,a b\nin.mp4,1\n", "a b")] {
            let (dir, out, path, victim) = try Self.batchFolder(manifest)
            let (run, _) = try runBatch(["--manifest", path], out: out)
            #expect(run.status == 3, "\(manifest): \(run.stderr)")
            let shownKey = key.replacingOccurrences(of: "DIR", with: dir.path)
            #expect(run.stderr.contains(URL(fileURLWithPath: path).lastPathComponent + ":"), "\(run.stderr)")
            #expect(run.stderr.contains("(\(shownKey))"), "\(manifest): \(run.stderr)")
            #expect(try String(contentsOf: victim, encoding: .utf8) == "someone else's file")
        }
        // The same in a job, and in its batch section (a naming pattern for a file render writes).
        for job in ["output=/tmp/x.mp4: true\n", "batch:\n  output: \"{name}.mp4\"\n", "batch:\n  preview: \"{name}.png\"\n", "preview: p.png\n"] {
            let (dir, out, _, _) = try Self.batchFolder("input\nin.mp4\n")
            let jobPath = dir.appendingPathComponent("job.yaml")
            try Data(job.utf8).write(to: jobPath)
            let (run, _) = try runBatch([dir.path + "/in.mp4", "--job", jobPath.path], out: out)
            #expect(run.status == 3, "\(job): \(run.stderr)")
            #expect(run.stderr.contains("job.yaml:"), "\(job): \(run.stderr)")
        }
    }

    /// A file in --out that no batch made is not replaced without --force (exit 2 naming it); with
    /// --force it is. A batch's own output is replaced when its job changes, without --force.
    @Test func batchReplacesOnlyWhatABatchMade() throws {
        let (dir, out, _, _) = try Self.batchFolder("input\nin.mp4\n")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let precious = out.appendingPathComponent("in.mp4")
        try Data("not made by fxreplay".utf8).write(to: precious)
        let (refused, _) = try runBatch([dir.path + "/in.mp4"], out: out)
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains(precious.path) && refused.stderr.contains("--force"), "\(refused.stderr)")
        #expect(try String(contentsOf: precious, encoding: .utf8) == "not made by fxreplay")
        let (forced, _) = try runBatch([dir.path + "/in.mp4", "--force"], out: out)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try decodeFrames(precious.path, measure: false).count == 4)
        // Now a batch made it: other options re-render it without --force.
        let job = dir.appendingPathComponent("job.yaml")
        try Data("crf: 40\n".utf8).write(to: job)
        let (again, report) = try runBatch([dir.path + "/in.mp4", "--job", job.path], out: out)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(report?.done == 1)
    }

    /// The manifest is a file batch reads: its report is never written over it.
    @Test func batchNeverWritesOverItsManifest() throws {
        let (dir, out, _, _) = try Self.batchFolder("input\nin.mp4\n")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let manifest = out.appendingPathComponent("batch-report.json")
        let text = Data("{\"input\": \"\(dir.path)/in.mp4\"}\n".utf8)
        try text.write(to: manifest)
        let run = try runFxreplay(["batch", "--manifest", manifest.path, "--out", out.path, "--progress", "none"], environment: batchEnvironment())
        #expect(run.status == 2, "\(run.stderr)")
        #expect(try Data(contentsOf: manifest) == text)
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("in.mp4").path))
    }
}
