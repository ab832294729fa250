import Foundation
import FxTestSupport
@testable import ReplayKitless
import Testing

/// Issue #33: time options, the call's length, gaps in timestamps and layout files cannot make
/// `render` and `compose` crash or work without bound (docs/limits.md).
@Suite struct BoundedWorkTests {
    /// The CLI fixture call zipped (so a run extracts it into a private folder under TMPDIR), and
    /// an empty folder for outputs.
    static func zippedCall(manifest: String = CallCommandFixtures.manifest) throws -> (zip: String, tmp: String, out: String) {
        let (dir, tmp) = try CallCommandFixtures.scratch(manifest: manifest)
        let zip = dir + "/call.zip"
        try CallCommandFixtures.makeZip(zip, members: ["manifest.json", "av.webm", "v.mkv", "a.webm"].map { ($0, dir + "/call/" + $0) })
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        return (zip, tmp, dir + "/out")
    }

    /// `compose --to 1e17` used to die of SIGILL (a Double beyond Int), leaving its `.part` file and
    /// the extracted call behind: now a usage error naming the option and the bound, before anything is written.
    @Test func composeToBeyondTheBoundIsExit2LeavingNothing() throws {
        let (zip, tmp, out) = try Self.zippedCall()
        let run = try CallCommandFixtures.run(["compose", zip, "-o", out + "/call.mp4", "--to", "1e17", "--progress", "none"], tmp: tmp)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("--to") && run.stderr.contains("1000000000 seconds"), "\(run.stderr)")
        #expect(CallCommandFixtures.contents(out).isEmpty, "\(CallCommandFixtures.contents(out))")
        #expect(CallCommandFixtures.contents(tmp).isEmpty, "\(CallCommandFixtures.contents(tmp))")
    }

    /// `--to` past the end of the call (which lasts 4 s: a's stop) ends at the end: 4 s at 10 fps is 40 frames.
    @Test func composeToPastTheEndEndsAtTheEnd() throws {
        let (zip, tmp, out) = try Self.zippedCall()
        let output = out + "/call.mkv"
        let run = try CallCommandFixtures.run(["compose", zip, "-o", output, "--to", "1e8", "--fps", "10", "--size", "64x48",
                                               "--codec", "ffv1", "--progress", "none"], tmp: tmp)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try GrayVideo.read(output).count == 40)
    }

    /// `compose --from` at the call's end (4 s) is a usage error naming the option and the length.
    @Test func composeFromAtTheEndIsExit2NamingTheLength() throws {
        let (zip, tmp, out) = try Self.zippedCall()
        let run = try CallCommandFixtures.run(["compose", zip, "-o", out + "/call.mp4", "--from", "4", "--progress", "none"], tmp: tmp)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("--from 4.0 s is at or past the end of the call, which lasts 4.000 s"), "\(run.stderr)")
        #expect(CallCommandFixtures.contents(out).isEmpty && CallCommandFixtures.contents(tmp).isEmpty)
    }

    /// `render --from` past the end of a recording used to say "no video frame could be decoded"
    /// (exit 3): now exit 2 naming the option and the video's length (av.webm: 10 frames at 10 fps, 1 s).
    @Test func renderFromPastTheEndIsExit2NamingTheLength() throws {
        let dir = try makeScratchDirectory().path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/av.webm"
        try FileManager.default.copyItem(atPath: CallCommandFixtures.media + "/av.webm", toPath: input)
        let run = try runFxreplay(["render", input, "-o", dir + "/out.mp4", "--from", "5", "--progress", "none"])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("--from 5.0: at or past the end of \(input), whose video lasts 1.000 s"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.mp4"))
    }

    /// An archive whose one stream stops a year (31 536 000 s) after it starts: refused at once,
    /// exit 3, naming the call and the length, with nothing left behind.
    static let yearLongCall = """
        {"createdAt": 1700000000000, "files": [{"streamId": "s-av", "filename": "av.webm", "startTimeOffset": 0, "stopTimeOffset": 31536000000}]}
        """

    @Test func aCallLongerThanTwelveHoursIsRefused() throws {
        let (zip, tmp, out) = try Self.zippedCall(manifest: Self.yearLongCall)
        let started = Date()
        let run = try CallCommandFixtures.run(["compose", zip, "-o", out + "/call.mp4", "--progress", "none"], tmp: tmp)
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains(zip) && run.stderr.contains("31536000.000 s") && run.stderr.contains("--allow-long-call"), "\(run.stderr)")
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(CallCommandFixtures.contents(out).isEmpty && CallCommandFixtures.contents(tmp).isEmpty)
    }

    /// With `--allow-long-call` the same call is composed: it starts writing (and is interrupted).
    @Test func allowLongCallComposesIt() throws {
        let (zip, tmp, out) = try Self.zippedCall(manifest: Self.yearLongCall)
        let status = try CallCommandFixtures.interruptOnceWriting(
            ["compose", zip, "-o", out + "/call.mp4", "--allow-long-call", "--progress", "none"], tmp: tmp, outDir: out, settle: 0.3)
        #expect(status == 130)
        #expect(CallCommandFixtures.contents(out).isEmpty && CallCommandFixtures.contents(tmp).isEmpty)
    }

    /// A WebM of two pictures 300 000 s apart, made with the ffmpeg CLI.
    static func gapFile(in dir: String) throws -> String {
        let path = dir + "/gap.webm"
        try runFFmpegCLI(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=1:duration=2", "-vf", "setpts=N*300000/TB",
                          "-fps_mode", "passthrough", "-c:v", "libvpx", "-b:v", "100k", path])
        return path
    }

    /// `render` keeps each picture's time: the gap costs no frames (2 written) and no time; as a
    /// call's stream it is longer than 12 hours, refused without `--allow-long-call` and rendered with it.
    @Test func aGapBetweenTwoPicturesIsBounded() throws {
        let dir = try makeScratchDirectory().path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let gap = try Self.gapFile(in: dir)
        let started = Date()
        let run = try runFxreplay(["render", gap, "-o", dir + "/out.mkv", "--codec", "ffv1", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try GrayVideo.read(dir + "/out.mkv").count == 2)
        try #"{"version": 1, "participants": [{"id": "g", "tracks": [{"file": "gap.webm", "start": 0}]}]}"#
            .write(toFile: dir + "/call.json", atomically: true, encoding: .utf8)
        let stream = try runFxreplay(["render", dir + "/call.json", "--stream", "g", "-o", dir + "/stream.mkv", "--progress", "none"])
        #expect(stream.status == 3 && stream.stderr.contains("300001.000 s") && stream.stderr.contains("--allow-long-call"), "\(stream.stderr)")
        let allowed = try runFxreplay(["render", dir + "/call.json", "--stream", "g", "-o", dir + "/stream.mkv", "--allow-long-call",
                                       "--codec", "ffv1", "--progress", "none"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try GrayVideo.read(dir + "/stream.mkv").count == 2)
        let composed = try runFxreplay(["compose", dir + "/call.json", "-o", dir + "/call.mkv", "--progress", "none"])
        #expect(composed.status == 3 && composed.stderr.contains("300001.000 s"), "\(composed.stderr)")
        #expect(Date().timeIntervalSince(started) < 60)
    }

    /// Composing 3 s around the second picture (call time 300 000 s) of the gap file: 30 frames at
    /// 10 fps, the first picture held for the first 20 (call times 299 998.0 … 299 999.9), the second after.
    @Test func composingAcrossAGapHoldsThePicture() throws {
        let dir = try makeScratchDirectory().path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let gap = try Self.gapFile(in: dir)
        try #"{"version": 1, "participants": [{"id": "g", "tracks": [{"file": "gap.webm", "start": 0}]}]}"#
            .write(toFile: dir + "/call.json", atomically: true, encoding: .utf8)
        let started = Date()
        let run = try runFxreplay(["compose", dir + "/call.json", "-o", dir + "/call.mkv", "--from", "299998", "--to", "300001",
                                   "--fps", "10", "--size", "64x48", "--codec", "ffv1", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Date().timeIntervalSince(started) < 30)
        let frames = try GrayVideo.read(dir + "/call.mkv")
        try #require(frames.count == 30)
        // The two pictures differ (testsrc's seconds counter): the held first one repeats exactly.
        let reference = try GrayVideo.read(gap)
        func distance(_ a: GrayFrame, _ b: GrayFrame) -> Int { zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } }
        for (k, frame) in frames.enumerated() {
            let near = k < 20 ? reference[0] : reference[1], far = k < 20 ? reference[1] : reference[0]
            #expect(distance(frame, near) < distance(frame, far), "frame \(k)")
        }
    }

    /// A layout file of 257 tiles is refused naming the file and the 257th tile (once took 12 s a
    /// frame with 300 000); one whose tiles cover the picture 17 times over names the 17th tile's rect.
    @Test func layoutTilesAndPaintedAreaAreCapped() throws {
        let (zip, tmp, out) = try Self.zippedCall()
        let dir = URL(fileURLWithPath: zip).deletingLastPathComponent().path
        func layout(_ name: String, tiles: Int, rect: [Int]) throws -> String {
            let tile = #"{"stream": "s-av", "rect": \#(rect)}"#
            let path = dir + "/" + name
            try (#"{"version": 1, "tiles": ["# + Array(repeating: tile, count: tiles).joined(separator: ",\n") + "]}")
                .write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let many = try layout("many.json", tiles: 257, rect: [0, 0, 2, 2])
        let run = try CallCommandFixtures.run(["compose", zip, "-o", out + "/call.mp4", "--layout", many, "--progress", "none"], tmp: tmp)
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains(many) && run.stderr.contains("tiles[256]") && run.stderr.contains("at most 256"), "\(run.stderr)")
        // 256 small tiles are fine (not composed here: the layout is read before the call's work).
        _ = try CustomLayout.load(path: try FilePath(layout("most.json", tiles: 256, rect: [0, 0, 2, 2])), width: 1280, height: 720)

        let covering = try layout("covering.json", tiles: 17, rect: [0, 0, 1280, 720])
        let painted = try CallCommandFixtures.run(["compose", zip, "-o", out + "/call.mp4", "--layout", covering, "--progress", "none"], tmp: tmp)
        #expect(painted.status == 3, "\(painted.stderr)")
        #expect(painted.stderr.contains(covering) && painted.stderr.contains("tiles[16].rect") && painted.stderr.contains("16 times"),
                "\(painted.stderr)")
        // Line 17 holds the 17th tile (the first shares line 1 with the header).
        #expect(painted.stderr.contains("\(covering):17"), "\(painted.stderr)")
        _ = try CustomLayout.load(path: try FilePath(layout("sixteen.json", tiles: 16, rect: [0, 0, 1280, 720])), width: 1280, height: 720)
        #expect(CallCommandFixtures.contents(out).isEmpty && CallCommandFixtures.contents(tmp).isEmpty)
    }
}
