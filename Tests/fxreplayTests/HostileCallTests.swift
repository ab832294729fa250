import Foundation
import FxTestSupport
@testable import ReplayKitless
import Testing

/// Issue #33: reading a call is bounded whatever its archive, manifest or folder holds, and
/// leaves nothing behind.
@Suite struct HostileCallTests {
    /// `fxreplay ARGUMENTS` with TMPDIR on a file system of `megabytes` MiB of its own (a tmpfs in
    /// a private mount namespace) when the machine allows one; else TMPDIR is a plain folder
    /// whose size is measured every few milliseconds while the run lasts. Returns the run, the
    /// most bytes seen in TMPDIR (`nil` on a tmpfs: its size is the bound) and what is left there.
    static func runWithSmallTmp(_ arguments: [String], megabytes: Int, dir: String) throws -> (RunResult, peak: Int?, left: [String]) {
        let tmp = dir + "/small-tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let script = #"mount -t tmpfs -o size="$1"m tmpfs "$2" || exit 99; shift 2; TMPDIR="$0" "$@"; s=$?; echo; echo "left: $(ls -A "$0" | tr '\n' ' ')"; exit $s"#
        let tmpfs = try runProcess("/usr/bin/unshare", ["--user", "--map-root-user", "--mount", "/bin/sh", "-c", script, tmp, "\(megabytes)", tmp,
                                                        fxreplayExecutable.path] + arguments)
        // No marker: unshare or mount is not allowed here (no user namespaces), fxreplay never ran.
        if let range = tmpfs.stdout.range(of: "\nleft: ", options: .backwards) {
            let left = tmpfs.stdout[range.upperBound...].split(whereSeparator: \.isWhitespace).map(String.init)
            return (RunResult(status: tmpfs.status, stdout: String(tmpfs.stdout[..<range.lowerBound]), stderr: tmpfs.stderr), nil, left)
        }
        let peak = Locked(0)
        let done = Locked(false)
        let watcher = Thread {
            while !done.withLock({ $0 }) {
                let bytes = (FileManager.default.enumerator(atPath: tmp)?.allObjects as? [String] ?? []).reduce(0) { sum, name in
                    let attributes = try? FileManager.default.attributesOfItem(atPath: tmp + "/" + name)
                    return sum + (attributes?[.type] as? FileAttributeType == .typeRegular ? attributes?[.size] as? Int ?? 0 : 0)
                }
                peak.withLock { $0 = max($0, bytes) }
                usleep(2_000)
            }
        }
        watcher.start()
        let run = try CallCommandFixtures.run(arguments, tmp: tmp)
        done.withLock { $0 = true }
        return (run, peak.withLock { $0 }, CallCommandFixtures.contents(tmp))
    }

    /// An archive manifest of `count` streams all naming `filename`.
    static func manifest(streams count: Int, filename: (Int) -> String) -> String {
        let files = (0..<count).map { #"{"streamId": "s\#($0)", "filename": "\#(filename($0))", "startTimeOffset": 0}"# }
        return #"{"createdAt": 1700000000000, "files": [\#(files.joined(separator: ",\n"))]}"#
    }

    /// One member of 1 MiB of zeros (about 1 KiB deflated, within a member's own 1 MiB floor)
    /// named by 200 streams: before, it was extracted 200 times (200 MiB); now once. The zeros
    /// are no media, so the run ends with exit 3 naming the first stream.
    @Test func aMemberNamedManyTimesIsExtractedOnce() throws {
        let dir = try makeScratchDirectory().path
        try Data(Self.manifest(streams: 200) { _ in "z.webm" }.utf8).write(to: URL(fileURLWithPath: dir + "/manifest.json"))
        let zip = dir + "/call.zip"
        try CallCommandFixtures.makeZip(zip, members: [("manifest.json", dir + "/manifest.json"), ("z.webm", "zeros:1048576")])
        let (run, peak, left) = try Self.runWithSmallTmp(["probe", zip], megabytes: 16, dir: dir)
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains(#"call.zip/manifest.json:1 (files[0] "s0", filename): "z.webm": "#), "\(run.stderr)")
        if let peak { #expect(peak <= 1 << 20, "extracted \(peak) bytes") }
        #expect(left.isEmpty, "\(left)")
    }

    /// 40 members of 1 MiB of zeros each: every one within its own limit, together 40 MiB from an
    /// archive of about 50 KB, far past 100 times its size. Refused before anything is written.
    @Test func theSumOfTheMembersIsBoundedByTheArchivesSize() throws {
        let dir = try makeScratchDirectory().path
        try Data(Self.manifest(streams: 40) { "z\($0).webm" }.utf8).write(to: URL(fileURLWithPath: dir + "/manifest.json"))
        let zip = dir + "/call.zip"
        try CallCommandFixtures.makeZip(zip, members: [("manifest.json", dir + "/manifest.json")] + (0..<40).map { ("z\($0).webm", "zeros:1048576") })
        let archiveSize = try #require(try FileManager.default.attributesOfItem(atPath: zip)[.size] as? Int)
        let (run, peak, left) = try Self.runWithSmallTmp(["probe", zip], megabytes: 16, dir: dir)
        #expect(run.status == 3, "\(run.stderr)")
        // The member that would cross the bound: the bound is 100 × the archive's size, so
        // members (1 MiB each) fit while k × 1 MiB ≤ 100 × size; the next one is refused.
        let first = 100 * archiveSize / (1 << 20)
        #expect(run.stderr.contains("\(zip): member z\(first).webm would bring the extracted files to \((first + 1) << 20) bytes, "
                                    + "more than the \(100 * archiveSize) bytes fxreplay extracts from it (100 times the archive's \(archiveSize) bytes"),
                "\(run.stderr)")
        if let peak { #expect(peak == 0, "extracted \(peak) bytes") }
        #expect(left.isEmpty, "\(left)")
    }

    /// The call's folder with a FIFO named `notes.json` beside the manifest: it is passed over,
    /// not opened (opening a FIFO waits for a writer forever). A FIFO named as a track is refused.
    @Test func aFIFOInACallFolderIsNotOpened() throws {
        let (dir, tmp) = try CallCommandFixtures.scratch()
        try #require(mkfifo(dir + "/call/notes.json", 0o600) == 0)
        let run = try runProcess("/usr/bin/env", ["TMPDIR=" + tmp, "/usr/bin/timeout", "30", fxreplayExecutable.path, "probe", dir + "/call", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("\(dir)/call/notes.json: not a regular file (a FIFO); passed over"), "\(run.stderr)")

        try FileManager.default.removeItem(atPath: dir + "/call/a.webm")
        try #require(mkfifo(dir + "/call/a.webm", 0o600) == 0)
        let track = try runProcess("/usr/bin/env", ["TMPDIR=" + tmp, "/usr/bin/timeout", "30", fxreplayExecutable.path, "probe", dir + "/call"])
        #expect(track.status == 3, "\(track.stderr)")
        #expect(track.stderr.contains(#"manifest.json:6 (files[2] "s-a", filename): "a.webm" is not a regular file (a FIFO)"#), "\(track.stderr)")

        // A FIFO named as the call itself is not opened either.
        for name in ["call.json", "call.zip"] {
            try #require(mkfifo(dir + "/" + name, 0o600) == 0)
            for command in [["probe", dir + "/" + name], ["compose", dir + "/" + name, "-o", dir + "/x.mkv"]] {
                let run = try runProcess("/usr/bin/env", ["TMPDIR=" + tmp, "/usr/bin/timeout", "30", fxreplayExecutable.path] + command)
                #expect(run.status == 3, "\(command): \(run.stderr)")
                #expect(run.stderr.contains("\(name): is a FIFO"), "\(command): \(run.stderr)")
            }
        }
    }

    /// compose's `--report` written into the call's folder is not taken for a second manifest.
    @Test func aReportInTheCallFolderDoesNotBreakTheNextCompose() throws {
        let (dir, tmp) = try CallCommandFixtures.scratch()
        let options = ["--size", "64x48", "--fps", "5", "--codec", "ffv1", "--progress", "none"]
        let first = try CallCommandFixtures.run(["compose", dir + "/call", "-o", dir + "/a.mkv", "--report", dir + "/call/report.json"] + options, tmp: tmp)
        try #require(first.status == 0, "\(first.stderr)")
        let second = try CallCommandFixtures.run(["compose", dir + "/call", "-o", dir + "/b.mkv"] + options, tmp: tmp)
        #expect(second.status == 0, "\(second.stderr)")
    }

    @Test(arguments: [#"{"createdAt": 1700000000000, "files": []}"#, #"{"version": 1, "participants": []}"#])
    func anEmptyCallIsBadInput(manifest: String) throws {
        let (dir, tmp) = try CallCommandFixtures.scratch(manifest: manifest)
        let run = try CallCommandFixtures.run(["compose", dir + "/call", "-o", dir + "/a.mkv", "--progress", "none"], tmp: tmp)
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains("\(dir)/call/manifest.json:1 ("), "\(run.stderr)")
        #expect(run.stderr.contains("the call has no"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/a.mkv"))
    }

    /// A private folder of a process that is gone (killed with SIGKILL: nothing removed it) is
    /// removed by the next run that opens an archive; a live process's is kept, and so is one
    /// another machine made (its process cannot be looked at from here).
    @Test func aKilledRunsPrivateFolderIsRemovedByTheNextRun() throws {
        let (dir, tmp) = try CallCommandFixtures.scratch()
        let zip = dir + "/call.zip"
        try CallCommandFixtures.makeZip(zip, members: [("manifest.json", dir + "/call/manifest.json"), ("av.webm", dir + "/call/av.webm"),
                                                       ("v.mkv", dir + "/call/v.mkv"), ("a.webm", dir + "/call/a.webm")])
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let host = TemporaryName.host
        let dead = "fxreplay-call-\(ended.processIdentifier)@\(host)-Ab12Cd"
        let live = "fxreplay-call-\(getpid())@\(host)-Ef34Gh"
        let elsewhere = "fxreplay-call-\(ended.processIdentifier)@0badc0de-Ij56Kl"
        for name in [dead, live, elsewhere] {
            try FileManager.default.createDirectory(atPath: tmp + "/" + name + "/sub", withIntermediateDirectories: true)
            try Data(count: 1000).write(to: URL(fileURLWithPath: tmp + "/" + name + "/sub/1-av.webm"))
        }
        let run = try CallCommandFixtures.run(["probe", zip], tmp: tmp)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(CallCommandFixtures.contents(tmp) == [elsewhere, live].sorted())
    }

    /// The same with a run really killed: a render of a ZIP's stream gets SIGKILL while it
    /// renders (its private folder holds the extracted member); the next probe of a ZIP removes it.
    @Test func aFolderLeftBySIGKILLIsRemoved() throws {
        let (dir, tmp) = try CallCommandFixtures.scratch()
        let small = dir + "/call.zip"
        try CallCommandFixtures.makeZip(small, members: [("manifest.json", dir + "/call/manifest.json"), ("av.webm", dir + "/call/av.webm"),
                                                         ("v.mkv", dir + "/call/v.mkv"), ("a.webm", dir + "/call/a.webm")])
        try Data(#"{"createdAt": 1700000000000, "files": [{"streamId": "long", "filename": "long.mkv", "startTimeOffset": 0}]}"#.utf8)
            .write(to: URL(fileURLWithPath: dir + "/long.json"))
        try runFFmpegCLI(["-f", "lavfi", "-i", "testsrc=size=640x360:rate=30:duration=10", "-c:v", "ffv1", "-level", "1", dir + "/long.mkv"])
        let long = dir + "/long.zip"
        try CallCommandFixtures.makeZip(long, members: [("manifest.json", dir + "/long.json"), ("long.mkv", dir + "/long.mkv")])
        let process = Process()
        process.executableURL = fxreplayExecutable
        process.arguments = ["render", long, "--stream", "long", "-o", dir + "/long.mp4", "--preset", "veryslow", "--progress", "none"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": tmp]) { $1 }
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Killed once its output's temporary file appears: the member is extracted by then.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !CallCommandFixtures.contents(dir).contains(where: { $0.hasSuffix(".part") }) { usleep(20_000) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let left = CallCommandFixtures.contents(tmp)
        try #require(left.count == 1 && left[0].hasPrefix("fxreplay-call-\(process.processIdentifier)@"), "\(left)")
        let run = try CallCommandFixtures.run(["probe", small], tmp: tmp)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(CallCommandFixtures.contents(tmp).isEmpty, "\(CallCommandFixtures.contents(tmp))")
    }

    /// Every participant leaves where it joined: nothing to show or hear (was exit 2, "nothing to compose").
    @Test func aCallWithoutMediaTimeIsBadInput() throws {
        let (dir, tmp) = try CallCommandFixtures.scratch(manifest: """
            {"version": 1, "participants": [{"id": "a", "tracks": [{"file": "av.webm", "start": 1, "end": 1}]}]}
            """)
        let run = try CallCommandFixtures.run(["compose", dir + "/call", "-o", dir + "/a.mkv", "--progress", "none"], tmp: tmp)
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains("\(dir)/call/manifest.json: the call has no media: every stream stops where it starts"), "\(run.stderr)")
    }
}
