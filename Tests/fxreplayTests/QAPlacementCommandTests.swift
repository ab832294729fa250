import Foundation
import FxTestSupport
@testable import ReplayKitless
import Testing

/// `fxreplay qa compare`, `qa latency` and `qa overlay` on real files.
@Suite struct QAPlacementCommandTests {
    /// 8-bit limited-range BT.601 (what an untagged SD picture uses) of an sRGB colour, by the textbook formula.
    static func bt601(_ red: Double, _ green: Double, _ blue: Double) -> (y: Int, cb: Int, cr: Int) {
        let luma = 0.299 * red + 0.587 * green + 0.114 * blue
        return (Int((16 + 219 * luma / 255).rounded()), Int((128 + 224 * (blue - luma) / (1.772 * 255)).rounded()),
                Int((128 + 224 * (red - luma) / (1.402 * 255)).rounded()))
    }

    /// A §7 track: `rows` of (frame, id, x, y), all visible, t = frame / 30, depth 2.
    static func track(_ rows: [(frame: Int, id: String, x: Double, y: Double)]) -> String {
        rows.reduce(into: "frame,t,id,visible,x,y,depth\n") { text, row in
            text += "\(row.frame),\(Double(row.frame) / 30),\(row.id),1,\(row.x),\(row.y),2\n"
        }
    }

    static func write(_ text: String, _ dir: URL, _ name: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// B's valve sits (30, 40) px from A's: an error of exactly 50 px on every frame; the pin agrees.
    @Test func compareTracksExitCodesAndReports() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.appendingPathComponent("call.mp4").path
        try writeRecording(to: video, pts: QAFixtures.frameTimes(10))
        let frames = Array(0..<10)
        let a = try Self.write(Self.track(frames.flatMap { [($0, "valve", 40.0 + Double($0), 30.0), ($0, "pin", 120.0, 70.0)] }), dir, "a.csv")
        let b = try Self.write(Self.track(frames.flatMap { [($0, "valve", 70.0 + Double($0), 70.0), ($0, "pin", 120.0, 70.0)] }), dir, "b.csv")

        let passing = try runFxreplay(["qa", "compare", a, b, "--tolerance", "50"])
        #expect(passing.status == 0 && passing.stdout.contains("PASS"), "\(passing.stderr)")

        let reports = dir.appendingPathComponent("reports")
        try FileManager.default.createDirectory(at: reports, withIntermediateDirectories: true)
        let html = reports.appendingPathComponent("review.html").path, svg = reports.appendingPathComponent("error.svg").path
        let failing = try runFxreplay(["qa", "compare", a, b, "--tolerance", "49.9", "--json", "--report", html, "--plot", svg, "--video", video])
        #expect(failing.status == 1 && failing.stderr.contains("valve") && !failing.stderr.contains("pin"), "\(failing.stderr)")
        let object = try QAFixtures.object(failing.stdout)
        #expect(object["failingIDs"] as? [String] == ["valve"])
        let annotations = try #require(object["annotations"] as? [[String: Any]])
        let valveError = try #require(annotations.first?["error"] as? [String: Any])
        #expect(valveError["p95"] as? Double == 50 && valveError["max"] as? Double == 50 && valveError["mean"] as? Double == 50)
        #expect((annotations.last?["error"] as? [String: Any])?["max"] as? Double == 0)

        #expect(QAFixtures.isWellFormedXML(try String(contentsOfFile: svg, encoding: .utf8)))
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("A: \(a)") && page.contains("B: \(b)"))
        // The valve's worst frame is its first (all errors equal); the pin's errors are all 0: no picture of it.
        // (The crop's pixels are checked in QAReportPagesTests.)
        let pictures = try QAFixtures.imageFiles(inPage: html)
        #expect(pictures == [reports.appendingPathComponent("review-frame0-valve.png").path])
        for picture in pictures {
            let rgb = try QAFixtures.rgb24(picture)
            let colours = stride(from: 0, to: rgb.count, by: 3).map { Array(rgb[$0..<$0 + 3]) }
            #expect(colours.contains([0xFF, 0x3B, 0x30]) && colours.contains([0x00, 0xC7, 0xFF]))
        }

        // One frame where B hides the valve: a visibility disagreement, allowed only with the option.
        let hidden = try String(contentsOfFile: b, encoding: .utf8).replacingOccurrences(of: "3,0.1,valve,1", with: "3,0.1,valve,0")
        let c = try Self.write(hidden, dir, "c.csv")
        let strict = try runFxreplay(["qa", "compare", a, c, "--tolerance", "50"])
        #expect(strict.status == 1 && strict.stdout.contains("visibility differs on 1 frames"), "\(strict.stdout)")
        #expect(try runFxreplay(["qa", "compare", a, c, "--tolerance", "50", "--max-visibility-mismatch", "1"]).status == 0)
        #expect(try runFxreplay(["qa", "compare", a, b, "--video", video]).status == 2)
    }

    /// Camera sliding along +X at 1 m/s, looking down −Z (fovY 60°), 30 frames at 30 fps. A tap on the
    /// centre at 0.2 s (frame 6), 2 m deep, resolved 200 ms late (frame 12) lands 0.2 m further right at
    /// the same depth: on every later frame the two anchors are fx·0.2/2 px apart, fx = 48 / tan 30°.
    /// Tracks that reach past the video's end are bad input, and the report's pictures are all or none.
    @Test func aReportOnTooShortAVideoLeavesNoPictures() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.appendingPathComponent("call.mp4").path
        try writeRecording(to: video, pts: QAFixtures.frameTimes(5))
        // The valve is worst at frame 0 (its picture is written first), the pin at frame 15 (past the end).
        let a = try Self.write(Self.track([(0, "valve", 10, 10), (15, "valve", 10, 10), (0, "pin", 30, 30), (15, "pin", 30, 30)]), dir, "a.csv")
        let b = try Self.write(Self.track([(0, "valve", 40, 50), (15, "valve", 20, 10), (0, "pin", 31, 30), (15, "pin", 60, 70)]), dir, "b.csv")
        let report = dir.appendingPathComponent("report.html").path
        let run = try runFxreplay(["qa", "compare", a, b, "--video", video, "--report", report])
        #expect(run.status == 3 && run.stderr.contains("the tracks refer to frame 15"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["a.csv", "b.csv", "call.mp4"])
    }

    /// Two tracks whose valve is 50 px apart on 10 frames, in a fresh directory.
    static func valveTracks() throws -> (dir: URL, a: String, b: String) {
        let dir = try makeScratchDirectory()
        let frames = Array(0..<10)
        let a = try write(track(frames.map { ($0, "valve", 40.0 + Double($0), 30.0) }), dir, "a.csv")
        let b = try write(track(frames.map { ($0, "valve", 70.0 + Double($0), 70.0) }), dir, "b.csv")
        return (dir, a, b)
    }

    /// One file named for both the plot and the report is refused before any work.
    @Test func oneFileForTwoReportsIsRefused() throws {
        let (dir, a, b) = try Self.valveTracks()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plot = dir.appendingPathComponent("error.svg").path
        let same = try runFxreplay(["qa", "compare", a, b, "--plot", plot, "--report", dir.path + "/./error.svg"])
        #expect(same.status == 2 && same.stderr.contains("the same file as the output \(plot)"), "\(same.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["a.csv", "b.csv"])
    }

    /// The plot and the report appear together or not at all: a full disk at the report, after the
    /// plot was written, leaves neither.
    @Test(.disabled(if: runsUnderSanitizer,
                    "TSan's runtime itself faults (SIGBUS) under a file-size limit"))
    func reportFilesAppearTogetherOrNotAtAll() throws {
        let (dir, a, b) = try Self.valveTracks()
        defer { try? FileManager.default.removeItem(at: dir) }
        let listing = { try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() }
        let plot = dir.appendingPathComponent("error.svg").path, report = dir.appendingPathComponent("review.html").path
        // The plot is about 3.5 KiB, the report (the plot inline, plus the table) about 5.
        let full = try runFxreplay(["qa", "compare", a, b, "--plot", plot, "--report", report], fileSizeLimitKiB: 4)
        #expect(full.status == 4 && full.stderr.contains("review.html"), "\(full.stderr)")
        #expect(try listing() == ["a.csv", "b.csv"])
        let written = try runFxreplay(["qa", "compare", a, b, "--plot", plot, "--report", report])
        #expect(written.status == 1, "\(written.stderr)")
        #expect(try listing() == ["a.csv", "b.csv", "error.svg", "review.html"])
    }

    /// `track` writes JSON Lines to a `.jsonl` output; the QA tools read it back like the CSV.
    @Test func jsonLinesTracksAreReadLikeCSV() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sample = repositoryRoot.appendingPathComponent("Samples")
        var tracks: [String] = []
        for name in ["t.csv", "t.jsonl"] {
            let path = dir.appendingPathComponent(name).path
            let run = try runFxreplay(["track", sample.appendingPathComponent("call.mp4").path, "--poses-from-sei",
                                       "--annotations", sample.appendingPathComponent("annotations.json").path, "-o", path])
            #expect(run.status == 0, "\(run.stderr)")
            tracks.append(path)
        }
        #expect(try String(contentsOfFile: tracks[1], encoding: .utf8).hasPrefix("{"))
        let csv = try PlacementTrack.load(path: FilePath(tracks[0])), jsonl = try PlacementTrack.load(path: FilePath(tracks[1]))
        #expect(csv.rows.count == 464 && jsonl.rows.count == csv.rows.count)
        #expect(zip(csv.rows, jsonl.rows).allSatisfy { $0.frame == $1.frame && $0.id == $1.id && $0.visible == $1.visible && $0.x == $1.x
            && $0.y == $1.y && $0.depth == $1.depth && $0.t == $1.t })
        let compared = try runFxreplay(["qa", "compare", tracks[1], tracks[0], "--tolerance", "0"])
        #expect(compared.status == 0 && compared.stdout.contains("PASS"), "\(compared.stdout) \(compared.stderr)")
        // Its errors name the line and the key, as the CSV's name the line and the field.
        let bad = try Self.write(#"{"frame": 0, "t": 0, "id": "a", "visible": true, "x": 1, "y": 2, "depth": 3, "colour": 1}"# + "\n", dir, "bad.jsonl")
        let refused = try runFxreplay(["qa", "compare", bad, tracks[0]])
        #expect(refused.status == 3 && refused.stderr.contains("bad.jsonl:1 (colour): unknown key"), "\(refused.stderr)")
    }

    /// A 30-frame recording `pan.mp4` in `dir` and its pose sidecar: the camera slides along +X at 1 m/s.
    static func panningRecording(in dir: URL) throws -> (video: String, sidecar: String) {
        let video = dir.appendingPathComponent("pan.mp4").path
        try writeRecording(to: video, pts: QAFixtures.frameTimes(30))
        let poses = (0..<30).map { #"{"t": \#(Double($0) / 30), "position": [\#(Double($0) / 30), 0, 0], "euler": [0, 0, 0], "zNear": 0.01, "fovY": 60}"# }
        return (video, try write(poses.joined(separator: "\n") + "\n", dir, "poses.jsonl"))
    }

    @Test func latencyOfATapOnAMovingCamera() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (video, sidecar) = try Self.panningRecording(in: dir)
        let scene = try Self.write(#"""
            {"version": 1, "annotations": [
              {"id": "valve", "anchor": {"world": [0, 0, -2]}},
              {"id": "tap-1", "anchor": {"tap": {"t": 0.2, "x": 80, "y": 48, "depth": 2}}}]}
            """#, dir, "scene.json")
        let expected = 48 / tan(Double.pi / 6) * 0.2 / 2

        let run = try runFxreplay(["qa", "latency", video, "--poses", sidecar, "--annotations", scene, "--delay", "0,200ms", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let results = try #require(try QAFixtures.object(run.stdout)["results"] as? [[String: Any]])
        #expect(results.count == 2 && results.allSatisfy { $0["id"] as? String == "tap-1" })
        let onTime = try #require(results[0]["error"] as? [String: Any]), late = try #require(results[1]["error"] as? [String: Any])
        // Frames 6…29 all keep both anchors on screen.
        #expect(results[0]["compared"] as? Int == 24 && results[1]["compared"] as? Int == 24)
        #expect(onTime["max"] as? Double == 0 && onTime["mean"] as? Double == 0)
        #expect((results[1]["lateFrame"] as? [String: Any])?["frame"] as? Int == 12)
        for key in ["mean", "median", "p95", "max"] {
            let value = try #require(late[key] as? Double)
            #expect(abs(value - expected) < 1e-6, "\(key): \(value) ≠ \(expected)")
        }

        let html = dir.appendingPathComponent("latency.html").path, svg = dir.appendingPathComponent("latency.svg").path
        let table = try runFxreplay(["qa", "latency", video, "--poses", sidecar, "--annotations", scene, "--delay", "200ms",
                                     "--delay-list", "0,100ms", "--tolerance", "5", "--report", html, "--plot", svg])
        #expect(table.status == 1 && table.stderr.contains("tap-1 at 100 ms") == false)
        #expect(table.stderr.contains("tap latency check failed: tap-1 at 200 ms: p95 \(String(format: "%.2f", expected)) px > 5.00 px"),
                "\(table.stderr)")
        let rows = table.stdout.split(separator: "\n").filter { $0.hasSuffix("pass") || $0.hasSuffix("FAIL") }
        #expect(rows.count == 3 && rows[0].hasPrefix("     200") && rows[1].hasPrefix("       0") && rows[2].hasPrefix("     100"), "\(table.stdout)")
        #expect(QAFixtures.isWellFormedXML(try String(contentsOfFile: svg, encoding: .utf8)))
        #expect(try String(contentsOfFile: html, encoding: .utf8).components(separatedBy: "<svg").count == 4)
        #expect(try runFxreplay(["qa", "latency", video, "--poses", sidecar, "--annotations", scene, "--delay", "200ms",
                                 "--tolerance", "8.4"]).status == 0)

        let noTaps = try Self.write(#"{"version": 1, "annotations": [{"id": "v", "anchor": {"world": [0, 0, -2]}}]}"#, dir, "world.json")
        #expect(try runFxreplay(["qa", "latency", video, "--poses", sidecar, "--annotations", noTaps, "--delay", "1s"]).status == 3)
        #expect(try runFxreplay(["qa", "latency", video, "--poses", sidecar, "--annotations", scene]).status == 2)
        #expect(try runFxreplay(["qa", "latency", video, "--poses", sidecar, "--annotations", scene, "--delay", "soon"]).status == 2)
        let negative = try runFxreplay(["qa", "latency", video, "--poses", sidecar, "--annotations", scene, "--delay", "-100ms"])
        #expect(negative.status == 2 && negative.stderr.contains("invalid delay \"-100ms\""), "\(negative.stderr)")
    }

    /// Track A (red) marks (80, 48) on frames 0–4, track B (cyan) marks (40, 30) on every frame.
    @Test func overlayDrawsBothTracksOnEveryFrame() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.appendingPathComponent("call.mp4").path, review = dir.appendingPathComponent("review.mkv").path
        try writeRecording(to: video, pts: QAFixtures.frameTimes(8), audioStart: 0, audioSeconds: 0.25)
        let a = try Self.write(Self.track((0..<5).map { ($0, "a", 80, 48) }), dir, "a.csv")
        let b = try Self.write(Self.track((0..<8).map { ($0, "b", 40, 30) }), dir, "b.csv")
        let run = try runFxreplay(["qa", "overlay", video, "--track", a, "--track", b, "-o", review, "--codec", "ffv1", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("\(a) red, \(b) cyan"))

        let input = try VideoFrameReader(url: video), output = try VideoFrameReader(url: review)
        let red = Self.bt601(255, 59, 48), cyan = Self.bt601(0, 199, 255)
        var count = 0
        while let frame = try output.next() {
            let picture = try output.image(of: frame)
            let original = try input.image(of: try #require(try input.next()))
            let index = count
            count += 1
            // Both crosses: luma at the centre pixel, chroma of the sample covering it.
            if index < 5 {
                #expect(abs(Int(picture.luma[80, 48]) - red.y) <= 1 && abs(Int(picture.cr[40, 24]) - red.cr) <= 1, "frame \(index)")
            } else {
                #expect(picture.luma[80, 48] == original.luma[80, 48], "frame \(index) keeps its own pixels where A has no row")
            }
            #expect(abs(Int(picture.luma[40, 30]) - cyan.y) <= 1 && abs(Int(picture.cb[20, 15]) - cyan.cb) <= 1, "frame \(index)")
            // Far from both markers the picture is the input's, untouched (FFV1 is lossless).
            #expect(picture.luma[140, 85] == original.luma[140, 85] && picture.luma[5, 90] == original.luma[5, 90])
        }
        #expect(count == 8)
        #expect(!(try readPackets(review, kind: .audio)).isEmpty)
        // Each frame at its own time (Matroska may shift the whole file to keep AAC priming non-negative).
        let times = try decodeFrames(review, measure: false).map(\.seconds)
        #expect(zip(times, (0..<8).map { Double($0) / 30 }).allSatisfy { abs($0 - times[0] - $1) < 0.001 }, "\(times)")
        #expect(try runFxreplay(["qa", "overlay", video, "-o", review]).status == 2)
        // A container that cannot hold the audio's codec gets it encoded anew, with render's warning.
        let webm = dir.appendingPathComponent("review.webm").path
        let dropped = try runFxreplay(["qa", "overlay", video, "--track", a, "-o", webm, "--progress", "none"])
        #expect(dropped.status == 0 && dropped.stderr.contains("warning: the input's aac sound is encoded as opus: a .webm file cannot hold aac"),
                "\(dropped.stderr)")
        // Rows past the video's last frame (a track of a longer recording) are said, not silently skipped.
        let longer = try Self.write(Self.track((6..<12).map { ($0, "c", 40, 30) }), dir, "longer.csv")
        let past = try runFxreplay(["qa", "overlay", video, "--track", longer, "-o", review, "--overwrite", "--progress", "none"])
        #expect(past.status == 0 && past.stderr.contains("warning: \(longer): 4 rows name frames past the video's 8"), "\(past.stderr)")
    }
}
