import Foundation
import FxTestSupport
import ReplayKitless
import Testing

/// Issue #34 items 1 and 2: a scene's times on the clock its `time` names (formats.md §6), and
/// `track CALL --stream`. The generated sample's Car owner stream is the same recording as
/// `call.mp4` (same frames, times and pose SEI), its poses logged in Unix time
/// (`call-archive.poses.jsonl`) and its scene in Unix time (`call-archive.annotations.json`), so
/// each check compares the call's stream with the single file, frame by frame.
@Suite(.serialized) struct SceneClockTests {
    static let green: [Int] = [0x34, 0xC7, 0x59]

    /// Every frame of `video` as rgb24, by the ffmpeg CLI.
    static func rgbFrames(_ video: String, width: Int, height: Int) throws -> [[UInt8]] {
        let raw = video + ".rgb"
        try runFFmpegCLI(["-i", video, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", raw])
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let size = width * height * 3
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<$0 + size]) }
    }

    /// Whether the pixel at (x, y) of an rgb24 picture `width` wide is the tap sphere's green.
    static func isGreen(_ picture: [UInt8], width: Int, x: Int, y: Int) -> Bool {
        let at = (y * width + x) * 3
        return zip(picture[at..<at + 3].map(Int.init), green).allSatisfy { abs($0 - $1) <= 40 }
    }

    /// Mean absolute difference of two rgb24 pictures over the rectangle `x0..<x0+w, 0..<h` of `a`
    /// (`aWidth` wide) against the whole of `b` (`w` wide).
    static func meanDifference(_ a: [UInt8], aWidth: Int, x0: Int, _ b: [UInt8], w: Int, h: Int) -> Double {
        var sum = 0
        for y in 0..<h {
            for x in 0..<w * 3 { sum += abs(Int(a[(y * aWidth + x0) * 3 + x]) - Int(b[y * w * 3 + x])) }
        }
        return Double(sum) / Double(w * h * 3)
    }

    static func run(_ arguments: [String]) throws -> RunResult {
        let run = try runFxreplay(arguments + (["render", "compose"].contains(arguments[0]) ? ["--progress", "none"] : []))
        try #require(run.status == 0, "\(arguments): \(run.stderr)")
        return run
    }

    /// The tap of the call's scene in Unix time sits where the single render puts the sample's
    /// stream-relative scene: the stream's frames equal the single render's, the tap sphere on the
    /// tapped pixel from the tap's frame on and nowhere before; the composed call shows the same
    /// pictures in the Car owner's tile. Before the fix, the scene's epoch tap was refused ("within
    /// ±1e9") and the stream-relative one took frame 0's pose.
    @Test func anEpochSceneTapLandsWhereTheSingleRenderPutsIt() throws {
        let sample = try GeneratedSample.get()
        let truth = try sample.truth()
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (w, h) = (truth.width, truth.height)
        let single = dir.appendingPathComponent("single.mkv").path, stream = dir.appendingPathComponent("stream.mkv").path
        _ = try Self.run(["render", sample.path("call.mp4"), "--poses", sample.path("call.poses.jsonl"),
                          "--annotations", sample.path("annotations.json"), "--codec", "ffv1", "-o", single])
        _ = try Self.run(["render", sample.path("call-archive.zip"), "--stream", "Car owner", "--poses", sample.path("call-archive.poses.jsonl"),
                          "--pose-time", "epoch", "--annotations", sample.path("call-archive.annotations.json"), "--codec", "ffv1", "-o", stream])
        let singleFrames = try Self.rgbFrames(single, width: w, height: h), streamFrames = try Self.rgbFrames(stream, width: w, height: h)
        try #require(singleFrames.count == truth.frames && streamFrames.count == truth.frames, "\(singleFrames.count), \(streamFrames.count), \(truth.frames)")
        let (x, y) = (Int(truth.tap.x), Int(truth.tap.y))
        for index in 0..<truth.frames {
            #expect(Self.meanDifference(streamFrames[index], aWidth: w, x0: 0, singleFrames[index], w: w, h: h) < 0.5, "frame \(index)")
            // The sphere (8 cm, about 2 m away) covers its centre's pixel on the tapped frame; none before.
            if index == truth.tap.frame {
                #expect(Self.isGreen(singleFrames[index], width: w, x: x, y: y), "single render, tap frame")
                #expect(Self.isGreen(streamFrames[index], width: w, x: x, y: y), "stream render, tap frame")
            }
            if index < truth.tap.frame { #expect(!Self.isGreen(streamFrames[index], width: w, x: x, y: y), "frame \(index), before the tap") }
        }

        // The composed call (grid: the Car owner's picture 1:1 in its half while the expert shows):
        // each output frame's tile is one of the single render's frames, the tap among them.
        // (The sample's compose job without its name tags, which would cover part of the tile.)
        let job = dir.appendingPathComponent("job.yaml").path
        try """
            layout: grid
            streams:
              "Car owner":
                poses: "\(sample.path("call-archive.poses.jsonl"))"
                pose-time: epoch
                annotations: "\(sample.path("call-archive.annotations.json"))"

            """.write(toFile: job, atomically: true, encoding: .utf8)
        let composed = dir.appendingPathComponent("composed.mkv").path
        _ = try Self.run(["compose", "--job", job, sample.path("call-archive.zip"), "-o", composed,
                          "--size", "\(2 * w)x\(h)", "--codec", "ffv1"])
        var shownTap = false
        for picture in try Self.rgbFrames(composed, width: 2 * w, height: h) {
            let differences = singleFrames.map { Self.meanDifference(picture, aWidth: 2 * w, x0: 0, $0, w: w, h: h) }
            let best = differences.indices.min { differences[$0] < differences[$1] }!
            guard differences[best] < 2 else { continue }  // (the single-stream grid centres the picture)
            let green = Self.isGreen(picture, width: 2 * w, x: x, y: y)
            #expect(green == Self.isGreen(singleFrames[best], width: w, x: x, y: y), "composed frame showing frame \(best)")
            if best >= truth.tap.frame && green { shownTap = true }
            if best < truth.tap.frame { #expect(!green, "composed frame showing frame \(best), before the tap") }
        }
        #expect(shownTap, "no composed frame showed the tapped sphere")
    }

    /// `track CALL --stream` rows equal `track FILE` rows for the same stream, its poses shifted onto
    /// the call's Unix clock; with `--call-times` each `t` moves by the first frame's call time, read
    /// here with ffprobe from the archive's member (its first frame's time less its start_time).
    @Test func trackOfACallsStreamEqualsTrackOfItsFile() throws {
        let sample = try GeneratedSample.get()
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fileTrack = dir.appendingPathComponent("file.csv").path, streamTrack = dir.appendingPathComponent("stream.csv").path
        let callTrack = dir.appendingPathComponent("call.csv").path
        _ = try Self.run(["track", sample.path("call.mp4"), "--poses", sample.path("call.poses.jsonl"),
                          "--annotations", sample.path("annotations.json"), "-o", fileTrack])
        let streamArguments = ["track", sample.path("call-archive.zip"), "--stream", "Car owner", "--poses", sample.path("call-archive.poses.jsonl"),
                               "--pose-time", "epoch", "--annotations", sample.path("call-archive.annotations.json")]
        _ = try Self.run(streamArguments + ["-o", streamTrack])
        _ = try Self.run(streamArguments + ["-o", callTrack, "--call-times"])
        let fileRows = try PlacementTrack.load(path: FilePath(fileTrack)).rows, streamRows = try PlacementTrack.load(path: FilePath(streamTrack)).rows
        let callRows = try PlacementTrack.load(path: FilePath(callTrack)).rows
        try #require(fileRows.count == streamRows.count && fileRows.count == callRows.count && !fileRows.isEmpty)
        for (a, b) in zip(fileRows, streamRows) {
            #expect(a.frame == b.frame && a.id == b.id && a.visible == b.visible && abs(a.t - b.t) < 1e-6, "\(a) vs \(b)")
            #expect(abs((a.x ?? .nan) - (b.x ?? .nan)) < 1e-3 || (a.x == nil && b.x == nil), "\(a) vs \(b)")
            #expect(abs((a.y ?? .nan) - (b.y ?? .nan)) < 1e-3 || (a.y == nil && b.y == nil), "\(a) vs \(b)")
        }
        // The Car owner starts at call time 0: a frame's call time is its time less the file's start_time.
        let member = dir.appendingPathComponent("owner.mkv").path
        try CallCommandFixtures.python("""
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            name = [n for n in z.namelist() if n.endswith('.mkv')][0]
            open(sys.argv[2], 'wb').write(z.read(name))
            """, [sample.path("call-archive.zip"), member])
        let start = try #require(Double(ComposeCommandTests.ffprobe(["-show_entries", "format=start_time", "-of", "csv=p=0", member])
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        let firstFrame = try #require(Double(ComposeCommandTests.ffprobe(["-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time",
                                                                           "-read_intervals", "%+#1", "-of", "csv=p=0", member])
            .split(separator: "\n").first.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ", ")) } ?? ""))
        for (a, b) in zip(streamRows, callRows) {
            #expect(abs(b.t - (a.t + firstFrame - start)) < 1e-6, "\(a.t) → \(b.t), first frame \(firstFrame), start \(start)")
        }
    }

    /// `qa latency CALL --stream` judges the stream's tap exactly as `qa latency FILE` judges the file's
    /// (the same frames compared, the same errors at 0 and 200 ms), its times on the scene's Unix
    /// clock; `qa overlay CALL --stream` draws a track of the stream on the stream's own frames.
    @Test func latencyAndOverlayReadACallsStream() throws {
        let sample = try GeneratedSample.get()
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func latency(_ arguments: [String]) throws -> [[String: Any]] {
            let run = try Self.run(["qa", "latency"] + arguments + ["--delay-list", "0ms,200ms", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            return try #require(object["results"] as? [[String: Any]])
        }
        let file = try latency([sample.path("call.mp4"), "--poses", sample.path("call.poses.jsonl"), "--annotations", sample.path("annotations.json")])
        let stream = try latency([sample.path("call-archive.zip"), "--stream", "Car owner", "--poses", sample.path("call-archive.poses.jsonl"),
                                  "--pose-time", "epoch", "--annotations", sample.path("call-archive.annotations.json")])
        try #require(file.count == 2 && stream.count == 2)
        for (a, b) in zip(file, stream) {
            #expect(a["compared"] as? Int == b["compared"] as? Int && (a["compared"] as? Int ?? 0) > 0)
            let (ea, eb) = (a["error"] as? [String: Any], b["error"] as? [String: Any])
            for key in ["mean", "max", "p95"] { #expect(abs((ea?[key] as? Double ?? .nan) - (eb?[key] as? Double ?? -1)) < 1e-6, "\(key)") }
            #expect((a["tapFrame"] as? [String: Any])?["frame"] as? Int == (b["tapFrame"] as? [String: Any])?["frame"] as? Int)
            #expect(((b["tapFrame"] as? [String: Any])?["t"] as? Double ?? 0) > 1.7e9, "the stream's tap time is on the scene's Unix clock")
        }
        let track = dir.appendingPathComponent("owner.csv").path, review = dir.appendingPathComponent("review.mkv").path
        _ = try Self.run(["track", sample.path("call-archive.zip"), "--stream", "Car owner", "--poses", sample.path("call-archive.poses.jsonl"),
                          "--pose-time", "epoch", "--annotations", sample.path("call-archive.annotations.json"), "-o", track])
        let overlay = try Self.run(["qa", "overlay", sample.path("call-archive.zip"), "--stream", "Car owner", "--track", track, "-o", review,
                                    "--progress", "none"])
        #expect(overlay.stderr.contains("\(try sample.truth().frames) frames"), "\(overlay.stderr)")
        #expect(!overlay.stderr.contains("past the video"), "\(overlay.stderr)")
    }

    /// The same scene given in call time places every annotation as the Unix-time one does; a scene
    /// in call time on a plain recording is refused (exit 2) naming the scene; a stream-relative scene
    /// read on Unix poses warns that its times miss the recording and that they fit stream time.
    @Test func callTimeScenesAndTheWarningForAMisreadClock() throws {
        let sample = try GeneratedSample.get()
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The same scene with its times in call time: Unix time less the archive's createdAt (2026-01-01T00:00:00Z).
        let epoch = 1_767_225_600.0
        var scene = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sample.path("call-archive.annotations.json")))) as? [String: Any])
        #expect(scene["time"] as? String == "epoch")
        scene["time"] = "call"
        var annotations = try #require(scene["annotations"] as? [[String: Any]])
        var tapped = 0
        for index in annotations.indices {
            guard var anchor = annotations[index]["anchor"] as? [String: Any], var tap = anchor["tap"] as? [String: Any] else { continue }
            let t = try #require(tap["t"] as? Double)
            #expect(t > 1.7e9, "the call's scene gives Unix times")
            tap["t"] = t - epoch
            anchor["tap"] = tap
            annotations[index]["anchor"] = anchor
            tapped += 1
        }
        #expect(tapped == 1)
        scene["annotations"] = annotations
        let callScene = dir.appendingPathComponent("call-scene.json").path
        try JSONSerialization.data(withJSONObject: scene).write(to: URL(fileURLWithPath: callScene))
        let common = ["track", sample.path("call-archive.zip"), "--stream", "Car owner", "--poses", sample.path("call-archive.poses.jsonl"), "--pose-time", "epoch"]
        let a = dir.appendingPathComponent("epoch.csv").path, b = dir.appendingPathComponent("call.csv").path
        _ = try Self.run(common + ["--annotations", sample.path("call-archive.annotations.json"), "-o", a])
        _ = try Self.run(common + ["--annotations", callScene, "-o", b])
        let epochRows = try PlacementTrack.load(path: FilePath(a)).rows, callRows = try PlacementTrack.load(path: FilePath(b)).rows
        #expect(epochRows.count == callRows.count)
        for (r, s) in zip(epochRows, callRows) {
            #expect(r.visible == s.visible && abs((r.x ?? 0) - (s.x ?? 0)) < 1e-3 && abs((r.y ?? 0) - (s.y ?? 0)) < 1e-3, "\(r) vs \(s)")
        }

        let plain = try runFxreplay(["track", sample.path("call.mp4"), "--poses", sample.path("call.poses.jsonl"), "--annotations", callScene,
                                     "-o", dir.appendingPathComponent("x.csv").path])
        #expect(plain.status == 2, "\(plain.stderr)")
        #expect(plain.stderr.contains("call-scene.json") && plain.stderr.contains("--stream"), "\(plain.stderr)")

        let misread = try Self.run(common + ["--annotations", sample.path("annotations.json"), "-o", dir.appendingPathComponent("m.csv").path])
        #expect(misread.stderr.contains("falls outside the recording"), "\(misread.stderr)")
        #expect(misread.stderr.contains("they fit"), "\(misread.stderr)")
    }
}
