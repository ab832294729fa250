import Foundation
import FxTestSupport
import Testing

/// A call on disk for the CLI: small files made with the ffmpeg CLI, a manifest, and a ZIP of them
/// made with Python's zipfile (an independent ZIP writer, which can also make hostile ones).
enum CallCommandFixtures {
    /// `av.webm` (VP8 64x48 10 fps 1 s + Opus), `v.mkv` (FFV1 48x32, 10 fps, 1.5 s, timestamps from
    /// 0.5 s), `a.webm` (Opus, 0.8 s).
    static let media: String = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("call-cli-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try! runFFmpegCLI(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1", "-f", "lavfi", "-i", "sine=frequency=440:duration=1",
                           "-c:v", "libvpx", "-b:v", "100k", "-c:a", "libopus", folder + "/av.webm"])
        try! runFFmpegCLI(["-f", "lavfi", "-i", "testsrc=size=48x32:rate=10:duration=1.5", "-c:v", "ffv1",
                           "-output_ts_offset", "0.5", folder + "/v.mkv"])
        try! runFFmpegCLI(["-f", "lavfi", "-i", "sine=frequency=880:duration=0.8", "-c:a", "libopus", folder + "/a.webm"])
        return folder
    }()

    static let manifest = """
        {"createdAt": 1700000000000,
         "files": [
           {"streamId": "s-av", "filename": "av.webm", "startTimeOffset": 1500, "stopTimeOffset": 4000,
            "connectionData": "{\\"name\\":\\"Car owner\\"}", "videoType": "camera"},
           {"streamId": "s-v", "filename": "v.mkv", "startTimeOffset": 250, "connectionData": "Screen", "videoType": "screen"},
           {"streamId": "s-a", "filename": "a.webm", "startTimeOffset": 700}
         ]}
        """

    /// A scratch folder with `tmp/` (the TMPDIR runs get) and the call's files.
    static func scratch(manifest text: String = manifest) throws -> (dir: String, tmp: String) {
        let dir = try makeScratchDirectory().path
        try FileManager.default.createDirectory(atPath: dir + "/tmp", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/call", withIntermediateDirectories: true)
        for file in ["av.webm", "v.mkv", "a.webm"] {
            try FileManager.default.copyItem(atPath: media + "/" + file, toPath: dir + "/call/" + file)
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/call/manifest.json"))
        return (dir, dir + "/tmp")
    }

    /// Runs Python with `script`, its `sys.argv[1...]` being `arguments`.
    static func python(_ script: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script] + arguments
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 failed")
    }

    /// Zips `members` (name in the archive → file on disk, or `zeros:N` for N zero bytes) into `zip`,
    /// deflated; `lies` patches a member's declared sizes: `name=uncompressed` or `name=uncompressed:compressed`.
    static func makeZip(_ zip: String, members: [(String, String)], lies: [String] = []) throws {
        let script = """
            import sys, zipfile, struct
            out = sys.argv[1]
            args = sys.argv[2:]
            split = args.index('--')
            pairs, lies = args[:split], args[split + 1:]
            with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
                for i in range(0, len(pairs), 2):
                    name, source = pairs[i], pairs[i + 1]
                    data = bytes(int(source[6:])) if source.startswith('zeros:') else open(source, 'rb').read()
                    z.writestr(name, data)
            data = bytearray(open(out, 'rb').read())
            # (signature, offset of the name's length, of the name, of the uncompressed and compressed sizes):
            # local file headers, then central directory headers.
            headers = [(b'PK\\x03\\x04', 26, 30, 22, 18), (b'PK\\x01\\x02', 28, 46, 24, 20)]
            for lie in lies:
                name, sizes = lie.split('=')
                parts = [int(x) for x in sizes.split(':')]
                name = name.encode()
                for signature, length_at, name_at, size_at, stored_at in headers:
                    i = data.find(signature)
                    while i != -1:
                        n = struct.unpack_from('<H', data, i + length_at)[0]
                        if data[i + name_at:i + name_at + n] == name:
                            struct.pack_into('<I', data, i + size_at, parts[0])
                            if len(parts) > 1: struct.pack_into('<I', data, i + stored_at, parts[1])
                        i = data.find(signature, i + 4)
            open(out, 'wb').write(data)
            """
        try python(script, [zip] + members.flatMap { [$0.0, $0.1] } + ["--"] + lies)
    }

    /// `fxreplay ARGUMENTS` with TMPDIR set to `tmp`.
    static func run(_ arguments: [String], tmp: String) throws -> RunResult {
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = tmp
        return try runFxreplay(arguments, environment: environment)
    }

    static func contents(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// Runs fxreplay with `arguments` and TMPDIR `tmp`, sends SIGINT once something appears in
    /// `outDir` (the run is writing its outputs, a ZIP long extracted) and `settle` seconds more,
    /// and returns the exit status. `whileRunning` looks at the run just before the signal.
    static func interruptOnceWriting(_ arguments: [String], tmp: String, outDir: String, settle: TimeInterval = 0,
                                     whileRunning: () -> Void = {}) throws -> Int32 {
        let process = Process()
        process.executableURL = fxreplayExecutable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = tmp
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, contents(outDir).isEmpty { Thread.sleep(forTimeInterval: 0.05) }
        Thread.sleep(forTimeInterval: settle)
        whileRunning()
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        return process.terminationStatus
    }
}

@Suite struct CallProbeCommandTests {
    @Test func probeJSONGivesEveryStreamOnTheCallsClock() throws {
        let (dir, tmp) = try CallCommandFixtures.scratch()
        let run = try CallCommandFixtures.run(["probe", dir + "/call", "--json"], tmp: tmp)
        try #require(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(json["epoch"] as? Double == 1_700_000_000)
        #expect(json["duration"] as? Double == 4.0)
        let streams = try #require(json["streams"] as? [[String: Any]])
        #expect(streams.map { $0["id"] as? String } == ["s-av", "s-v", "s-a"])
        #expect(streams.map { $0["name"] as? String } == ["Car owner", "Screen", "s-a"])
        #expect(streams.map { $0["videoType"] as? String } == ["camera", "screen", nil])
        let screen = try #require((streams[1]["tracks"] as? [[String: Any]])?.first)
        // v.mkv: 15 frames from 0.5 s, 0.1 s each: media 0.5–2.0 s, so call time 0.25–1.75 s.
        #expect(screen["mediaStart"] as? Double == 0.5)
        #expect(abs((screen["mediaEnd"] as? Double ?? 0) - 2.0) < 1e-9)
        #expect(abs((screen["stop"] as? Double ?? 0) - 1.75) < 1e-9)
        let media = try #require(screen["media"] as? [String: Any])
        #expect(media["path"] as? String == "v.mkv")
        #expect(media["resolutions"] as? [String] == ["48x32"])
        #expect((media["streams"] as? [[String: Any]])?.first?["codec"] as? String == "ffv1")
        #expect(streams.map { $0["hasVideo"] as? Bool } == [true, true, false])
        #expect(CallCommandFixtures.contents(tmp).isEmpty)
    }

    @Test func probeTextShowsTheTimelineAtAGlance() throws {
        let (dir, tmp) = try CallCommandFixtures.scratch()
        let run = try CallCommandFixtures.run(["probe", dir + "/call/manifest.json"], tmp: tmp)
        try #require(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix(dir + "/call/manifest.json: call, 3 streams, 4.000 s, epoch 1700000000.0 (2023-11-14T22:13:20") == true,
                "\(lines.first ?? "")")
        #expect(run.stdout.contains("video vp8 64x48, audio opus 48000 Hz 1 ch"))
        // 40 columns over 4 s: column c covers [c/10, (c+1)/10) s. s-av is active 1.5–4.0 s: columns 15…39;
        // s-v 0.25–1.75 s: columns 2…17.
        let bar = { (from: Int, to: Int) in String(repeating: " ", count: from) + String(repeating: "■", count: to - from + 1)
            + String(repeating: " ", count: 39 - to) }
        #expect(lines.contains { $0.contains("Car owner (s-av) |\(bar(15, 39))| 1.5–4.0 s") }, "\(run.stdout)")
        #expect(lines.contains { $0.contains("Screen (s-v)     |\(bar(2, 17))| 0.3–1.8 s") || $0.contains("Screen (s-v)     |\(bar(2, 17))| 0.2–1.7 s") },
                "\(run.stdout)")
        #expect(lines.contains { $0.contains("s-a") && $0.contains("|       ▒") && $0.hasSuffix("audio only") }, "\(run.stdout)")
    }
}

@Suite struct CallArchiveCommandTests {
    /// A ZIP of the call with `manifest` and members, probed: the status, stderr and what is left in TMPDIR.
    func probeZip(manifest: String, extra: [(String, String)] = [], lies: [String] = []) throws -> (RunResult, [String]) {
        let (dir, tmp) = try CallCommandFixtures.scratch(manifest: manifest)
        let zip = dir + "/call.zip"
        let members = [("manifest.json", dir + "/call/manifest.json"), ("av.webm", dir + "/call/av.webm"),
                       ("v.mkv", dir + "/call/v.mkv"), ("a.webm", dir + "/call/a.webm")] + extra
        try CallCommandFixtures.makeZip(zip, members: members, lies: lies)
        let run = try CallCommandFixtures.run(["probe", zip], tmp: tmp)
        return (run, CallCommandFixtures.contents(tmp))
    }

    @Test func aZipProbesLikeItsFolderAndLeavesNothing() throws {
        let (run, left) = try probeZip(manifest: CallCommandFixtures.manifest)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("call.zip/manifest.json"))
        #expect(run.stdout.contains("Car owner (s-av) |"))
        #expect(left.isEmpty, "the private folder is removed: \(left)")
    }

    static func oneFile(_ filename: String, start: String = "0", id: String = "x") -> String {
        """
        {"createdAt": 1700000000000,
         "files": [
           {"streamId": "\(id)", "filename": "\(filename)", "startTimeOffset": \(start)}
         ]}
        """
    }

    @Test(arguments: [
        (oneFile("../x.webm"), #"call.zip/manifest.json:3 (files[0] "x", filename): "../x.webm" contains '..'"#),
        (oneFile("/etc/passwd"), #"(files[0] "x", filename): "/etc/passwd" is an absolute name"#),
        (oneFile("gone.webm"), #"(files[0] "x", filename): "gone.webm" is missing"#),
        (oneFile("notes.webm"), #"(files[0] "x", filename): "notes.webm": cannot open as media"#),
        (oneFile("av.webm", start: "\"1500\""), #"call.zip/manifest.json:3 (files[0] "x", startTimeOffset): expected a number, got a string"#),
        ("""
         {"files": [{"streamId": "x", "filename": "av.webm", "startTimeOffset": 0},
                    {"streamId": "x", "filename": "a.webm", "startTimeOffset": 0}]}
         """, #"call.zip/manifest.json:2 (files[1], streamId): duplicate id "x""#),
        (#"{"sessionId": "s"}"#, "call.zip/manifest.json:1: not a call manifest"),
    ])
    func hostileOrBrokenArchivesAreBadInput(manifest: String, expected: String) throws {
        let notes = try makeScratchDirectory().appendingPathComponent("notes.txt").path
        try Data("meeting notes, not media".utf8).write(to: URL(fileURLWithPath: notes))
        let (run, left) = try probeZip(manifest: manifest, extra: [("notes.webm", notes)])
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains(expected), "\(run.stderr)")
        #expect(left.isEmpty, "the private folder is removed after an error: \(left)")
    }

    /// 8 MiB of zeros deflate to about 8 KiB: 1000× its stored size.
    @Test func aZipBombIsRefusedBeforeItIsExtracted() throws {
        let (run, left) = try probeZip(manifest: Self.oneFile("bomb.webm"), extra: [("bomb.webm", "zeros:8388608")])
        #expect(run.status == 3)
        #expect(run.stderr.contains(#"(files[0] "x", filename): "bomb.webm" would expand from"#) && run.stderr.contains("ZIP bomb"), "\(run.stderr)")
        #expect(left.isEmpty)
    }

    /// The same bomb declaring 1000 bytes: extraction counts the bytes and stops at the declared size.
    @Test func aMemberExpandingPastItsDeclaredSizeStops() throws {
        let (run, left) = try probeZip(manifest: Self.oneFile("bomb.webm"), extra: [("bomb.webm", "zeros:8388608")], lies: ["bomb.webm=1000"])
        #expect(run.status == 3)
        #expect(run.stderr.contains("member bomb.webm expands beyond its declared 1000 bytes"), "\(run.stderr)")
        #expect(left.isEmpty)
    }

    @Test(arguments: ["av.webm=4294967000", "av.webm=60000:4294967000"])
    func hugeDeclaredSizesAreRefused(lie: String) throws {
        let (run, left) = try probeZip(manifest: Self.oneFile("av.webm"), lies: [lie])
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains(#"(files[0] "x", filename): "av.webm""#) || run.stderr.contains("call.zip: "), "\(run.stderr)")
        #expect(left.isEmpty)
    }
}

@Suite struct CallRenderCommandTests {
    /// The call of a call manifest: `v.mkv` (frames at 0.5, 0.6, … 1.9 s of its own clock) joined at
    /// call time 2.0 s; the call's epoch 1700000000.
    static let callManifest = """
        {"version": 1, "epoch": 1700000000,
         "participants": [
           {"id": "tech", "name": "Technician", "tracks": [{"file": "v.mkv", "start": 2.0}, {"file": "a.webm", "start": 2.0}]},
           {"id": "cust", "name": "Customer", "tracks": [{"file": "av.webm", "start": 0}]}
         ]}
        """

    func pose(_ t: Double, x: Double) -> String {
        #"{"t": \#(t), "position": [\#(x), 0, 0], "euler": [0, 0, 0], "zNear": 0.01, "fovY": 60}"#
    }

    /// Samples stamped with Unix times for frames 0…4 and 14 of v.mkv: frame k plays at call time
    /// 2.0 + 0.1 k (its media time 0.5 + 0.1 k, less mediaStart 0.5, plus start 2.0), Unix time
    /// 1700000002 + 0.1 k. Off by the file's own start (0.5 s = 5 frames), only one sample would
    /// land on a frame; off by the call start, none would.
    @Test func epochPoseTimesMeetTheirFrames() throws {
        let (dir, tmp) = try CallCommandFixtures.scratch(manifest: Self.callManifest)
        let frames = [0, 1, 2, 3, 4, 14]
        let sidecar = dir + "/poses.jsonl"
        let lines = frames.map { pose(1_700_000_002 + 0.1 * Double($0), x: Double($0)) }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: sidecar))
        let out = dir + "/tech.mkv"
        let run = try CallCommandFixtures.run(["render", dir + "/call/manifest.json", "--stream", "Technician", "-o", out,
                                               "--poses", sidecar, "--pose-time", "epoch", "--missing-pose", "hide",
                                               "--codec", "ffv1", "--report", out + ".json", "--progress", "none"], tmp: tmp)
        try #require(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("a.webm is not in this render"), "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + ".json"))) as? [String: Any])
        #expect(report["input"] as? String == dir + "/call/manifest.json --stream tech: v.mkv")
        let poses = try #require((report["effects"] as? [String: [String: Int]])?["poses"])
        #expect(poses["matched"] == 6 && poses["hidden"] == 9 && poses["unusedSamples"] == 0, "\(poses)")

        // The same samples on the call's clock (Unix time less the epoch) match the same frames.
        let callTimes = frames.map { pose(2.0 + 0.1 * Double($0), x: Double($0)) }
        try Data((callTimes.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: sidecar))
        let again = try CallCommandFixtures.run(["render", dir + "/call/manifest.json", "--stream", "tech", "-o", out, "--overwrite",
                                                 "--poses", sidecar, "--pose-time", "call", "--missing-pose", "hide",
                                                 "--codec", "ffv1", "--report", out + ".json", "--progress", "none"], tmp: tmp)
        try #require(again.status == 0, "\(again.stderr)")
        let report2 = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + ".json"))) as? [String: Any])
        #expect((report2["effects"] as? [String: [String: Int]])?["poses"]?["matched"] == 6)
    }

    @Test func theRenderedStreamIsItsFileRenderedAsAFile() throws {
        let (dir, tmp) = try CallCommandFixtures.scratch()
        let fromCall = dir + "/from-call.mkv", fromFile = dir + "/from-file.mkv"
        let a = try CallCommandFixtures.run(["render", dir + "/call", "--stream", "Screen", "-o", fromCall, "--codec", "ffv1", "--progress", "none"], tmp: tmp)
        let b = try CallCommandFixtures.run(["render", dir + "/call/v.mkv", "-o", fromFile, "--codec", "ffv1", "--progress", "none"], tmp: tmp)
        try #require(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
        let hashes = { (file: String) throws -> String in
            try runFxreplay(["framehash", file]).stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
        }
        #expect(try hashes(fromCall) == hashes(fromFile))
    }

    @Test(arguments: [
        (["--stream", "tech"], false, "--stream goes with a call"),
        ([], true, "is a call: name the stream to render with --stream"),
        (["--stream", "nobody"], true, "no stream 'nobody'"),
        (["--stream", "s-a"], true, "has no video"),
        (["--poses", "p.jsonl", "--pose-time", "epoch"], false, "--pose-time epoch goes with a call"),
    ])
    func usageMistakesExitTwo(arguments: [String], isCall: Bool, expected: String) throws {
        let (dir, tmp) = try CallCommandFixtures.scratch()
        try Data("".utf8).write(to: URL(fileURLWithPath: dir + "/p.jsonl"))
        let input = isCall ? dir + "/call" : dir + "/call/v.mkv"
        let run = try CallCommandFixtures.run(["render", input, "-o", dir + "/out.mkv"] + arguments.map { $0 == "p.jsonl" ? dir + "/p.jsonl" : $0 },
                                              tmp: tmp)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains(expected), "\(run.stderr)")
    }

    @Test func epochPoseTimeNeedsAnEpoch() throws {
        let (dir, tmp) = try CallCommandFixtures.scratch(manifest: """
            {"participants": [{"id": "tech", "tracks": [{"file": "v.mkv", "start": 2.0}]}]}
            """)
        try Data("".utf8).write(to: URL(fileURLWithPath: dir + "/p.jsonl"))
        let run = try CallCommandFixtures.run(["render", dir + "/call", "--stream", "tech", "-o", dir + "/o.mkv",
                                               "--poses", dir + "/p.jsonl", "--pose-time", "epoch"], tmp: tmp)
        #expect(run.status == 2)
        #expect(run.stderr.contains("the call has no epoch"), "\(run.stderr)")
    }

    /// SIGINT while rendering a stream of a ZIP: no output, and the extracted files are gone.
    @Test func anInterruptedRenderOfAZipLeavesNothing() throws {
        let (dir, tmp) = try CallCommandFixtures.scratch(manifest: """
            {"createdAt": 1700000000000, "files": [{"streamId": "long", "filename": "long.mkv", "startTimeOffset": 0}]}
            """)
        try runFFmpegCLI(["-f", "lavfi", "-i", "testsrc=size=640x360:rate=30:duration=10", "-c:v", "ffv1", "-level", "1", dir + "/call/long.mkv"])
        let zip = dir + "/call.zip"
        try CallCommandFixtures.makeZip(zip, members: [("manifest.json", dir + "/call/manifest.json"), ("long.mkv", dir + "/call/long.mkv")])
        let outDir = dir + "/out"
        try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        // Interrupted once the render writes its temporary output: the ZIP is extracted by then.
        let status = try CallCommandFixtures.interruptOnceWriting(
            ["render", zip, "--stream", "long", "-o", outDir + "/long.mp4", "--preset", "veryslow", "--progress", "none"],
            tmp: tmp, outDir: outDir) {
            #expect(CallCommandFixtures.contents(tmp).count == 1, "the private folder exists while rendering")
        }
        #expect(status == 130)
        #expect(CallCommandFixtures.contents(outDir).isEmpty)
        #expect(CallCommandFixtures.contents(tmp).isEmpty, "\(CallCommandFixtures.contents(tmp))")
    }
}
