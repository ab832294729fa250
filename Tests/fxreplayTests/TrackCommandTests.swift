import Foundation
import FxTestSupport
@testable import ReplayKitless
import Testing

/// `fxreplay track` and `fxreplay poses extract` on real encoded recordings.
///
/// The fixture: 6 frames of 160×96 H.264 at 30 fps, each with a pose SEI except frame 3. Frame i's camera
/// sits at (0.25·i, 0, 0), unrotated, fovY 90°, zNear 0.001. With sy = 1 and sx = 96/160 = 0.6, the world
/// point (1, 0.5, −2) is at camera space (1 − 0.25·i, 0.5, −2): u = (0.3·(1 − 0.25·i) + 1)·80 = 104 − 6·i,
/// v = (1 − 0.25)·48 = 36, depth 2.
@Suite struct TrackCommandTests {
    static func pose(_ index: Int) -> Pose32 {
        Pose32(position: [Float(index) * 0.25, 0, 0], euler: .zero, zNear: 0.001, fovY: 90)
    }

    /// The fixture; the `medium` preset writes B-frames (presentation order differs from decode order).
    static func writeFixture(_ path: String, codec: VideoCodec = .h264, preset: String = "ultrafast", skipping: Set<Int> = [3],
                             replacing replaced: [Int: Pose32] = [:]) throws {
        var settings = EncoderSettings()
        settings.codec = codec
        settings.preset = preset
        let writer = try MediaWriter(path: path, video: .init(size: PictureSize(width: 160, height: 96),
                                                              timeBase: Rational(1, 90000), encoder: settings))
        for index in 0..<6 {
            let sei = skipping.contains(index) ? nil : PoseSEI().userDataPayload(for: replaced[index] ?? pose(index))
            try writer.addVideoFrame(pts: Int64(index) * 3000, duration: 3000, sei: sei) { drawPattern($0, index: index) }
        }
        try writer.finish()
    }

    static let scene = #"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [1, 0.5, -2]}, "from": 0.1}]}"#

    /// The expected track: frame 3 interpolated halfway between frames 2 and 4; "a" shown from 0.1 s.
    static let expectedTrack = """
        frame,t,id,visible,x,y,depth
        0,0.000000,a,0,104.0000,36.0000,2.000000
        1,0.033333,a,0,98.0000,36.0000,2.000000
        2,0.066667,a,0,92.0000,36.0000,2.000000
        3,0.100000,a,1,86.0000,36.0000,2.000000
        4,0.133333,a,1,80.0000,36.0000,2.000000
        5,0.166667,a,1,74.0000,36.0000,2.000000

        """

    func scratch() throws -> (URL, String, String) {
        let dir = try makeScratchDirectory()
        let video = dir.appendingPathComponent("poses.mp4").path
        try Self.writeFixture(video)
        let scene = dir.appendingPathComponent("annotations.json").path
        try Data(Self.scene.utf8).write(to: URL(fileURLWithPath: scene))
        return (dir, video, scene)
    }

    @Test func trackFromSEIMatchesHandComputedPositions() throws {
        let (dir, video, scene) = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let track = dir.appendingPathComponent("track.csv").path
        let run = try runFxreplay(["track", video, "--poses-from-sei", "--annotations", scene, "-o", track])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: track, encoding: .utf8) == Self.expectedTrack)
        #expect(run.stderr.contains("5 frames matched, 1 interpolated"), "\(run.stderr)")
    }

    /// A recording cut with `ffmpeg -ss 0.05 -c copy`: MP4 keeps frames 0 and 1 (for decoding) but its
    /// edit list starts at frame 2, and players, ffprobe and the decoder show 4 frames from t = 0. The
    /// track lists those: original frame 2 (u = 92) is frame 0 at t = 0, so "a" shows from row 3.
    @Test func framesBeforeTheEditListAreNotListed() throws {
        let (dir, video, scene) = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cut = dir.appendingPathComponent("cut.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-ss", "0.05", "-i", video, "-c", "copy", cut]).status == 0)
        let shown = String(decoding: try QAFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames",
                                                                    "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", cut]).stdout,
                           as: UTF8.self)
        #expect(shown.trimmingCharacters(in: .whitespacesAndNewlines) == "4")
        let track = dir.appendingPathComponent("track.csv").path
        let run = try runFxreplay(["track", cut, "--poses-from-sei", "--annotations", scene, "-o", track])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: track, encoding: .utf8) == """
            frame,t,id,visible,x,y,depth
            0,0.000000,a,0,92.0000,36.0000,2.000000
            1,0.033333,a,0,86.0000,36.0000,2.000000
            2,0.066667,a,0,80.0000,36.0000,2.000000
            3,0.100000,a,1,74.0000,36.0000,2.000000

            """)
        let probe = try QAFixtures.object(try runFxreplay(["probe", cut, "--json"]).stdout)
        #expect(probe["frames"] as? Int == 4 && probe["poseSEIFrames"] as? Int == 3)
        #expect(probe["resolutions"] as? [String] == ["160x96"])
    }

    @Test func extractedSidecarGivesTheSameTrack() throws {
        let (dir, video, scene) = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sidecar = dir.appendingPathComponent("poses.jsonl").path
        let extract = try runFxreplay(["poses", "extract", video, "-o", sidecar])
        #expect(extract.status == 0, "\(extract.stderr)")
        let lines = try String(contentsOfFile: sidecar, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines.first == #"{"t": 0.0, "position": [0.0, 0.0, 0.0], "euler": [0.0, 0.0, 0.0], "zNear": 0.001, "fovY": 90.0}"#)
        // Frame 3 has no SEI: the fourth line is frame 4, at 4·3000/90000 s.
        #expect(lines[3].hasPrefix(#"{"t": 0.13333333333333333, "position": [1.0, 0.0, 0.0]"#), "\(lines[3])")

        let track = dir.appendingPathComponent("track.jsonl").path
        let run = try runFxreplay(["track", video, "--poses", sidecar, "--annotations", scene, "-o", track, "--format", "csv"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: track, encoding: .utf8) == Self.expectedTrack)
    }

    /// `-o -` is standard output, as for most Unix tools, not a file named "-"; video, whose
    /// container comes from the output's name, is refused there with a hint.
    @Test func dashWritesToStandardOutput() throws {
        let (dir, video, scene) = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try runFxreplay(["track", video, "--poses-from-sei", "--annotations", scene, "-o", "-", "--format", "csv"],
                                  currentDirectory: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == Self.expectedTrack)
        let render = try runFxreplay(["render", video, "-o", "-"], currentDirectory: dir)
        #expect(render.status == 2, "\(render.stderr)")
        #expect(render.stderr.contains("named pipe"), "\(render.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("-").path))
    }

    @Test func extractToPose32IsBitExact() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.appendingPathComponent("all.mkv").path
        try Self.writeFixture(video, codec: .hevc, skipping: [])
        let output = dir.appendingPathComponent("p.pose32").path
        let run = try runFxreplay(["poses", "extract", video, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(bytes == (0..<6).flatMap { Self.pose($0).bytes })
    }

    @Test func gapsAndBadInputsAreReported() throws {
        let (dir, video, scene) = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.csv").path

        let gap = try runFxreplay(["poses", "extract", video, "-o", dir.appendingPathComponent("p.pose32").path])
        #expect(gap.status == 3 && gap.stderr.contains("frame 3"), "\(gap.stderr)")

        let fail = try runFxreplay(["track", video, "--poses-from-sei", "--missing-pose", "fail", "--annotations", scene, "-o", out])
        #expect(fail.status == 3 && fail.stderr.contains("frame 3"), "\(fail.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))

        let neither = try runFxreplay(["track", video, "--annotations", scene, "-o", out])
        #expect(neither.status == 2, "\(neither.stderr)")

        let sidecar = dir.appendingPathComponent("bad.jsonl").path
        try Data("{\"t\": 0, \"position\": [0,0,0], \"euler\": [0,0,0], \"zNear\": 0.1, \"fovY\": 60}\n{\"t\": 1, \"position\": 5}\n".utf8)
            .write(to: URL(fileURLWithPath: sidecar))
        let malformed = try runFxreplay(["track", video, "--poses", sidecar, "--annotations", scene, "-o", out])
        #expect(malformed.status == 3 && malformed.stderr.contains("bad.jsonl:2 (position)"), "\(malformed.stderr)")

        // Stream (epoch) times against a video timed from 0: not one frame matched.
        let epoch = dir.appendingPathComponent("epoch.csv").path
        try Data("t,px,py,pz,pitch,yaw,roll,znear,fovy\n1732190000,0,0,0,0,0,0,0.01,60\n".utf8).write(to: URL(fileURLWithPath: epoch))
        for command in [["track", video, "--annotations", scene], ["poses", "embed", video, "--copy"]] {
            let output = dir.appendingPathComponent(command[0] == "track" ? "epoch.csv.out.csv" : "epoch.mp4").path
            let missed = try runFxreplay(command + ["--poses", epoch, "-o", output])
            #expect(missed.status == 3 && missed.stderr.contains("epoch.csv: none of the 1 pose samples matches a frame")
                    && missed.stderr.contains("--pose-time absolute"), "\(missed.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }

        let badScene = dir.appendingPathComponent("bad.json").path
        try Data(##"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "colour": "#FFFFFF"}]}"##.utf8)
            .write(to: URL(fileURLWithPath: badScene))
        let unknown = try runFxreplay(["track", video, "--poses-from-sei", "--annotations", badScene, "-o", out])
        #expect(unknown.status == 3 && unknown.stderr.contains("annotation \"a\", key \"colour\""), "\(unknown.stderr)")

        let badFov = try runFxreplay(["track", video, "--poses-from-sei", "--fov", "0", "--annotations", scene, "-o", out])
        #expect(badFov.status == 2 && badFov.stderr.contains("--fov"), "\(badFov.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func aFrameLastsUntilTheNextWhateverItsPacketSays() throws {
        // Frames at 0, 0.1 and 0.3 s in Matroska, whose packets all say 0.1 s (the track's default
        // duration): frame 1 is shown for 0.2 s, so a sample at 0.17 s (nearer it than frame 2) matches it.
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.appendingPathComponent("vfr.mkv").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=160x96:rate=10", "-frames:v", "3",
                                              "-vf", "setpts='if(eq(N,2),3,N)*0.1/TB'", "-fps_mode", "passthrough",
                                              "-c:v", "libx264", "-preset", "ultrafast", video]).status == 0)
        let probe = try QAFixtures.run("ffprobe", ["-v", "error", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", video])
        #expect(String(decoding: probe.stdout, as: UTF8.self) == "0.000000,0.100000\n0.100000,0.100000\n0.300000,0.100000\n")
        let sidecar = dir.appendingPathComponent("one.jsonl").path
        try Data(#"{"t": 0.17, "position": [0, 0, 0], "euler": [0, 0, 0], "zNear": 0.001, "fovY": 90}"#.utf8)
            .write(to: URL(fileURLWithPath: sidecar))
        let scene = dir.appendingPathComponent("scene.json").path
        try Data(#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0, 0, -2]}}]}"#.utf8).write(to: URL(fileURLWithPath: scene))
        let out = dir.appendingPathComponent("track.csv").path
        let run = try runFxreplay(["track", video, "--poses", sidecar, "--missing-pose", "hide", "--annotations", scene, "-o", out])
        #expect(run.status == 0 && run.stderr.contains("1 frames matched"), "\(run.stderr)")
        let rows = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(rows.count == 4 && rows[2] == "1,0.100000,a,1,80.0000,48.0000,2.000000", "\(rows)")
    }

    @Test func overridesAndAbsoluteTimes() throws {
        let (dir, video, scene) = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Intrinsics fx = fy = 100, principal point (80, 48): frame 0 puts (1, 0.5, −2) at (80 + 50, 48 − 25).
        let out = dir.appendingPathComponent("k.csv").path
        let run = try runFxreplay(["track", video, "--poses-from-sei", "--intrinsics", "100,100,80,48", "--annotations", scene, "-o", out])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(rows[1] == "0,0.000000,a,0,130.0000,23.0000,2.000000")

        // Absolute sidecar times: the video starts at 0, so t = 100.0 matches nothing and t = 0.0333 frame 1.
        let sidecar = dir.appendingPathComponent("abs.csv").path
        try Data("t,px,py,pz,pitch,yaw,roll,znear,fovy\n100,0,0,0,0,0,0,0.001,90\n0.0333,0,0,0,0,0,0,0.001,90\n".utf8)
            .write(to: URL(fileURLWithPath: sidecar))
        let absolute = try runFxreplay(["track", video, "--poses", sidecar, "--pose-time", "absolute", "--missing-pose", "hide",
                                        "--annotations", scene, "-o", out])
        #expect(absolute.status == 0, "\(absolute.stderr)")
        #expect(absolute.stderr.contains("1 frames matched") && absolute.stderr.contains("5 hidden")
                && absolute.stderr.contains("1 samples unused"), "\(absolute.stderr)")
    }

    /// A value in the SEI that is not a number is refused as it is in a pose32 sidecar: bad input
    /// naming the file, the frame (index and time: frame 2 is at 2·3000/90000 s) and the field.
    /// zNear and fovY are checked after the overrides, so --fov makes a NaN fovY harmless.
    @Test(arguments: [(0, "px", Float.nan), (4, "yaw", -Float.infinity), (7, "fovY", Float.nan)])
    func nonFiniteSEIValuesAreBadInput(field: Int, name: String, value: Float) throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.appendingPathComponent("poses.mp4").path
        var values = Self.pose(2).values
        values[field] = value
        try Self.writeFixture(video, skipping: [], replacing: [2: Pose32(bytes: values.flatMap { value in
            (0..<4).map { UInt8(truncatingIfNeeded: value.bitPattern >> (8 * $0)) }
        })!])
        let scene = dir.appendingPathComponent("annotations.json").path
        try Data(Self.scene.utf8).write(to: URL(fileURLWithPath: scene))
        let place = "\(video) (frame 2 at t=0.066667 s, \(name))"
        for format in ["csv", "jsonl"] {
            let track = dir.appendingPathComponent("track.\(format)").path
            let run = try runFxreplay(["track", video, "--poses-from-sei", "--annotations", scene, "-o", track])
            #expect(run.status == 3 && run.stderr.contains(place), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: track))
        }
        let extracted = dir.appendingPathComponent("poses.pose32").path
        let extract = try runFxreplay(["poses", "extract", video, "-o", extracted])
        if name == "fovY" {
            // pose32 holds a NaN lens value (docs/poses.md), and an override replaces it.
            #expect(extract.status == 0, "\(extract.stderr)")
            let track = dir.appendingPathComponent("track.csv").path
            let overridden = try runFxreplay(["track", video, "--poses-from-sei", "--fov", "90", "--annotations", scene, "-o", track])
            #expect(overridden.status == 0, "\(overridden.stderr)")
            #expect(try String(contentsOfFile: track, encoding: .utf8) == Self.expectedTrack)
        } else {
            #expect(extract.status == 3 && extract.stderr.contains(place), "\(extract.stderr)")
        }
    }

    /// A raw Annex B stream (`ffmpeg -f h264`/`-f hevc`) has no timestamps at all: its frames are
    /// decoded to find their order and SEI. Built with B-frames, so decode order is not frame order.
    @Test(arguments: [(VideoCodec.h264, "h264"), (.hevc, "hevc")])
    func rawStreamsWithoutTimestampsAreRead(codec: VideoCodec, format: String) throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.appendingPathComponent("poses.mkv").path
        try Self.writeFixture(video, codec: codec, preset: "medium", skipping: [])
        func timestamps(_ path: String) throws -> [(pts: Int64, dts: Int64)] {
            let demuxer = try Demuxer(url: path)
            let packet = try Packet()
            var result: [(pts: Int64, dts: Int64)] = []
            while try demuxer.read(into: packet) {
                result.append((packet.pts, packet.dts))
                packet.unref()
            }
            return result
        }
        #expect(try timestamps(video).contains { $0.pts != $0.dts }, "the fixture should have B-frames")
        let raw = dir.appendingPathComponent("poses.\(format)").path
        try runFFmpegCLI(["-i", video, "-c:v", "copy", "-f", format, raw])
        #expect(try timestamps(raw).allSatisfy { $0.pts == noPTS && $0.dts == noPTS })

        let probe = try runFxreplay(["probe", raw, "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any]
        #expect(json?["poseSEIFrames"] as? Int == 6)
        let extracted = dir.appendingPathComponent("poses.pose32").path
        let extract = try runFxreplay(["poses", "extract", raw, "-o", extracted])
        #expect(extract.status == 0, "\(extract.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: extracted)) == Data((0..<6).flatMap { Self.pose($0).bytes }))
        // The hand-computed positions (the times are the stream's nominal rate's, not 1/30 s).
        let scene = dir.appendingPathComponent("annotations.json").path
        try Data(#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [1, 0.5, -2]}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: scene))
        let track = dir.appendingPathComponent("track.csv").path
        let run = try runFxreplay(["track", raw, "--poses-from-sei", "--annotations", scene, "-o", track])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try String(contentsOfFile: track, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
        #expect(rows.map { String($0[4]) + "," + String($0[5]) } == (0..<6).map { "\(104 - 6 * $0).0000,36.0000" })
        // A copy cannot time the packets; re-encoding can.
        let copied = try runFxreplay(["poses", "embed", raw, "--poses", extracted, "--copy", "-o", dir.appendingPathComponent("c.mkv").path])
        #expect(copied.status == 2 && copied.stderr.contains("leave out --copy"), "\(copied.stderr)")
    }
}
