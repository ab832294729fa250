import Foundation
import FxTestSupport
@testable import ReplayKitless
import Testing

@Suite struct PoseEmbedTests {
    /// Awkward float32 poses, one per frame, written as a .pose32 sidecar; every third one with yaw
    /// beyond 90° and roll beyond 180° (a rotation other angles give too: these must come back).
    func writePoses(count: Int, to path: String) throws -> [Pose32] {
        let poses = (0..<count).map { (i: Int) -> Pose32 in
            let step = Float(i)
            let euler: SIMD3<Float> = i % 3 == 2 ? [0.1, 1.7566, 4 - 0.01 * step] : [-0.2, step * 0.05, 0.0001 * step]
            return Pose32(position: [step * 0.1 + 0.1, 1.5, -step / 3], euler: euler, zNear: 0.001, fovY: 60 + step / 7)
        }
        try Data(poses.flatMap(\.bytes)).write(to: URL(fileURLWithPath: path))
        return poses
    }

    /// A scratch folder with a recording of frames at `pts` (90 kHz) and a .pose32 sidecar, one pose per frame.
    func recordingWithPoses(pts: [Int64], audioStart: Double? = nil) throws -> (dir: URL, input: String, sidecar: String, poses: [Pose32]) {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mp4").path
        try writeRecording(to: input, pts: pts, audioStart: audioStart)
        let sidecar = dir.appendingPathComponent("poses.pose32").path
        return (dir, input, sidecar, try writePoses(count: pts.count, to: sidecar))
    }

    func extracted(_ path: String, dir: URL, options: [String] = []) throws -> [Pose32] {
        let out = dir.appendingPathComponent("extracted-\(UUID().uuidString).pose32").path
        let run = try runFxreplay(["poses", "extract", path, "-o", out] + options)
        #expect(run.status == 0, "\(run.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        return stride(from: 0, to: bytes.count, by: 32).compactMap { Pose32(bytes: bytes[$0..<$0 + 32]) }
    }

    @Test(arguments: [["--copy"], ["--codec", "h264", "--preset", "ultrafast"], ["--codec", "hevc", "--preset", "ultrafast"]])
    func embedThenExtractIsBitExact(_ mode: [String]) throws {
        let (dir, input, sidecar, poses) = try recordingWithPoses(pts: jitteredTimestamps(count: 12, start: 0.4), audioStart: 0.4)
        let output = dir.appendingPathComponent("with-poses.mp4").path
        let run = try runFxreplay(["poses", "embed", input, "--poses", sidecar, "-o", output, "--progress", "none"] + mode)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try extracted(output, dir: dir) == poses)
        #expect(try decodeFrames(output).allSatisfy { $0.psnr > 30 })
        // Audio is untouched either way.
        #expect(try readPackets(output, kind: .audio).map(\.bytes) == (try readPackets(input, kind: .audio)).map(\.bytes))
        // probe sees the SEI on every frame.
        let probe = try runFxreplay(["probe", output, "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any]
        #expect(json?["poseSEIFrames"] as? Int == 12)
    }

    /// Frames the ffmpeg CLI decodes from `path` (its framemd5 data lines), an independent count.
    func ffmpegFrameCount(_ path: String, dir: URL) throws -> Int {
        let hashes = dir.appendingPathComponent("frames-\(UUID().uuidString).framemd5").path
        try runFFmpegCLI(["-i", path, "-map", "0:v:0", "-f", "framemd5", hashes])
        return try String(contentsOfFile: hashes, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.count
    }

    /// x264 with B-frames in MP4, timed at 1/90000 as recorders do: FFmpeg gives its packets no
    /// duration (MP4 `ctts`, and the stream's 90000 fps timing). The copy must still end the track
    /// after the last frame, or players drop that frame.
    @Test(arguments: ["mp4", "mov", "mkv"])
    func copyKeepsTheLastFrameOfABFrameStream(_ container: String) throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("bframes.mp4").path
        // 19 frames 1/30 s apart: the last starts 600 ms after the first, a whole number of the
        // movie's milliseconds, so an edit list that ends at its start leaves nothing of it.
        let frames = 19
        try writeRecording(to: input, pts: (0..<frames).map { 90000 + Int64($0) * 3000 }, preset: "medium")
        let sidecar = dir.appendingPathComponent("poses.pose32").path
        let poses = try writePoses(count: frames, to: sidecar)
        // The case at hand: B-frames reordered, no packet durations.
        let demuxer = try Demuxer(url: input)
        let packet = try Packet()
        var packets: [(pts: Int64, dts: Int64, duration: Int64)] = []
        while try demuxer.read(into: packet) {
            packets.append((packet.pts, packet.dts, packet.duration))
            packet.unref()
        }
        #expect(packets.contains { $0.pts != $0.dts } && packets.allSatisfy { $0.duration == 0 })
        #expect(try ffmpegFrameCount(input, dir: dir) == frames)

        let output = dir.appendingPathComponent("copied.\(container)").path
        let run = try runFxreplay(["poses", "embed", input, "--poses", sidecar, "--copy", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ffmpegFrameCount(output, dir: dir) == frames)
        #expect(try decodeFrames(output, measure: false).count == frames)
        #expect(try extracted(output, dir: dir) == poses)
    }

    @Test(arguments: [["poses", "embed", "--copy"], ["poses", "embed", "--codec", "hevc", "--preset", "ultrafast"],
                      ["render", "--embed-poses", "--preset", "ultrafast"]])
    func theWritersUseTheGivenUUID(_ command: [String]) throws {
        let (dir, input, sidecar, poses) = try recordingWithPoses(pts: (0..<6).map { Int64($0) * 3000 })
        let output = dir.appendingPathComponent("out.mp4").path
        let uuid = "01234567-89ab-cdef-0123-456789abcdef"
        let run = try runFxreplay(Array(command.prefix(2)) + [input, "--poses", sidecar, "--sei-uuid", uuid, "-o", output,
                                  "--progress", "none"] + command.dropFirst(2))
        #expect(run.status == 0, "\(run.stderr)")
        // The file holds the given UUID's bytes (no two zero bytes in a row: no emulation prevention) and not the default's.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        func holds(_ pattern: [UInt8]) -> Bool {
            bytes.indices.dropLast(pattern.count).contains { bytes[$0..<$0 + pattern.count].elementsEqual(pattern) }
        }
        #expect(holds([0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]))
        #expect(!holds(PoseSEI.defaultUUID))
        #expect(try extracted(output, dir: dir, options: ["--sei-uuid", uuid]) == poses)
        let withDefault = try runFxreplay(["poses", "extract", output, "-o", dir.appendingPathComponent("default.jsonl").path])
        #expect(withDefault.status == 3 && withDefault.stderr.contains("no pose SEI"), "\(withDefault.stderr)")
    }

    @Test func renderCarriesPoseSEIThroughAndCanReplaceIt() throws {
        let (dir, input, sidecar, poses) = try recordingWithPoses(pts: (0..<8).map { Int64($0) * 3000 })
        let withPoses = dir.appendingPathComponent("with-poses.mp4").path
        #expect(try runFxreplay(["render", input, "--poses", sidecar, "--embed-poses", "-o", withPoses, "--progress", "none"]).status == 0)
        #expect(try extracted(withPoses, dir: dir) == poses)

        // A plain re-render keeps the input's pose SEI.
        let rerendered = dir.appendingPathComponent("rerendered.mp4").path
        #expect(try runFxreplay(["render", withPoses, "-o", rerendered, "--progress", "none"]).status == 0)
        #expect(try extracted(rerendered, dir: dir) == poses)

        // Reversed poses replace the carried ones.
        let reversedPath = dir.appendingPathComponent("reversed.pose32").path
        try Data(poses.reversed().flatMap(\.bytes)).write(to: URL(fileURLWithPath: reversedPath))
        let replaced = dir.appendingPathComponent("replaced.mp4").path
        #expect(try runFxreplay(["render", withPoses, "--poses", reversedPath, "--embed-poses", "-o", replaced, "--progress", "none"]).status == 0)
        #expect(try extracted(replaced, dir: dir) == poses.reversed())
    }

    /// Re-embedding with gaps (`--missing-pose hide`) leaves the hidden frames without pose SEI, not
    /// with the old pose, in all three writers, and the summary counts what was written.
    @Test(arguments: [["poses", "embed", "--copy"], ["poses", "embed", "--preset", "ultrafast"],
                      ["render", "--embed-poses", "--preset", "ultrafast"]])
    func reembeddingWithHiddenFramesDropsTheirOldPoses(_ command: [String]) throws {
        let count = 10
        let (dir, input, sidecar, poses) = try recordingWithPoses(pts: (0..<count).map { Int64($0) * 3000 })
        func embed(_ source: String, poses: String, to output: String, _ extra: [String] = []) throws -> RunResult {
            let run = try runFxreplay(Array(command.prefix(2)) + [source, "--poses", poses, "-o", output, "--progress", "none"]
                                      + command.dropFirst(2) + extra)
            #expect(run.status == 0, "\(run.stderr)")
            return run
        }
        let withPoses = dir.appendingPathComponent("with-poses.mp4").path
        _ = try embed(input, poses: sidecar, to: withPoses)
        #expect(try extracted(withPoses, dir: dir) == poses)

        // Frames 0, 3, 6 and 9 get new poses (the old ones in reverse order); the six others none.
        let renewed = Array(stride(from: 0, to: count, by: 3))
        let sparse = dir.appendingPathComponent("sparse.jsonl").path
        let samples = renewed.map { PoseSample(key: .frame($0), pose32: poses[count - 1 - $0]) }
        try Data(try PoseSidecar.encode(samples, format: .jsonl)).write(to: URL(fileURLWithPath: sparse))
        let replaced = dir.appendingPathComponent("replaced.mp4").path
        let run = try embed(withPoses, poses: sparse, to: replaced, ["--missing-pose", "hide"])
        if command[0] == "poses" { #expect(run.stderr.contains("pose SEI in 4 of 10 frames"), "\(run.stderr)") }

        let probe = try runFxreplay(["probe", replaced, "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any]
        #expect(json?["poseSEIFrames"] as? Int == renewed.count)
        let scan = try VideoPacketScan(path: replaced, sei: PoseSEI())
        #expect(scan.seiPoses.count == count)
        for frame in 0..<count {
            #expect(scan.seiPoses[frame] == (renewed.contains(frame) ? poses[count - 1 - frame] : nil), "frame \(frame)")
        }
    }

    /// pose32 has no intrinsics: poses given by them are embedded with the vertical field of view
    /// their fy spans over the display height, fy = (H/2)/tan(fovY/2) (formats.md §2), here the 160 px
    /// of a 160×96 picture turned 90°: 2·atan(160 / 400) = 43.6028°. The file then reads back.
    @Test(arguments: [["--copy"], ["--preset", "ultrafast"]])
    func intrinsicsAreEmbeddedAsTheirFieldOfView(_ mode: [String]) throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.mp4").path
        try writeRecording(to: input, pts: (0..<4).map { Int64($0) * 3000 }, rotation: 90)
        let sidecar = dir.appendingPathComponent("lens.jsonl").path
        let lens = "\"intrinsics\": {\"fx\": 200, \"fy\": 200, \"cx\": 48, \"cy\": 80}"
        try (0..<4).map { "{\"frame\": \($0), \"position\": [0, 1.5, 0], \"euler\": [0, 0, 0], \"zNear\": 0.01, \(lens)}" }
            .joined(separator: "\n").write(toFile: sidecar, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("out.mp4").path
        let run = try runFxreplay(["poses", "embed", input, "--poses", sidecar, "-o", output, "--progress", "none"] + mode)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: pose32 cannot carry intrinsics"), "\(run.stderr)")
        let fields = try extracted(output, dir: dir).map(\.fovY)
        #expect(fields.count == 4 && fields.allSatisfy { abs($0 - 43.6028) < 1e-3 }, "\(fields)")
        let again = try runFxreplay(["poses", "embed", output, "--poses-from-sei", "--copy", "-o", dir.appendingPathComponent("again.mp4").path])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test func embedErrors() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.webm").path
        try writeRecording(to: input, pts: (0..<4).map { Int64($0) * 3000 }, codec: .vp8)
        let sidecar = dir.appendingPathComponent("poses.pose32").path
        _ = try writePoses(count: 4, to: sidecar)
        let out = dir.appendingPathComponent("out.mp4").path
        // VP8 packets cannot take SEI.
        #expect(try runFxreplay(["poses", "embed", input, "--poses", sidecar, "-o", out, "--copy"]).status == 2)
        // --embed-poses without a source, or into VP9: bad usage.
        #expect(try runFxreplay(["render", input, "--embed-poses", "-o", out]).status == 2)
        #expect(try runFxreplay(["render", input, "--poses", sidecar, "--embed-poses", "--codec", "vp9",
                                 "-o", dir.appendingPathComponent("o.webm").path]).status == 2)
        // A missing sidecar is bad input naming it, with no output.
        let missing = try runFxreplay(["render", input, "--poses", "/nope.jsonl", "--embed-poses", "-o", out])
        #expect(missing.status == 3 && missing.stderr.contains("/nope.jsonl"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
