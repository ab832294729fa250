import Foundation
import FxTestSupport
@testable import ReplayKitless
import Testing

/// Issue #24, class 3, through the real binary: caps fire long before memory or time run away,
/// as exit 3 naming the input.
@Suite struct HostileInputCostTests {
    /// Runs fxreplay under `ulimit -v` (KiB of address space) and `timeout` (seconds), as a server
    /// running it unattended would; returns the result and the seconds it took.
    func runLimited(_ arguments: [String], memoryKiB: Int, seconds: Int) throws -> (RunResult, Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "ulimit -v \(memoryKiB); exec timeout \(seconds) \"$0\" \"$@\"", fxreplayExecutable.path] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let start = Date()
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let result = RunResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                               stderr: String(decoding: errData, as: UTF8.self))
        return (result, Date().timeIntervalSince(start))
    }

    /// A 270 KB scene of 3000 labels, each covering most of a 320×240 recording: 160 million pixels
    /// a frame to draw (it used to be drawn, for as long as that took). Under 2 GiB of address space and a
    /// 120-second timeout it is refused on its first frame, exit 3, naming the scene, frame and cap.
    /// (AddressSanitizer reserves terabytes of address space, so `ulimit -v` cannot apply there.)
    @Test(.disabled(if: runsUnderSanitizer, "ulimit -v breaks AddressSanitizer"))
    func aHostileSceneUnderMemoryAndTimeLimitsExits3Quickly() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.appendingPathComponent("in.mp4").path
        let writer = try MediaWriter(path: video, video: .init(size: PictureSize(width: 320, height: 240), timeBase: Rational(1, 30)))
        for index in 0..<3 { try writer.addVideoFrame(pts: Int64(index), duration: 1) { $0.fill(YUVColor(y: 16, cb: 128, cr: 128)) } }
        try writer.finish()
        let poses = dir.appendingPathComponent("poses.jsonl").path
        try (0..<3).map { #"{"frame": \#($0), "position": [0, 0, 0], "euler": [0, 0, 0], "zNear": 0.01, "fovY": 60}"# }
            .joined(separator: "\n").write(toFile: poses, atomically: true, encoding: .utf8)
        let scene = dir.appendingPathComponent("hostile.json").path
        let items = (0..<3000).map { #"{"id":"l\#($0)","anchor":{"world":[-0.5,-0.4,-1]},"size":0.001,"label":"WWWW","labelSize":512}"# }
        try (#"{"version":1,"annotations":["# + items.joined(separator: ",") + "]}").write(toFile: scene, atomically: true, encoding: .utf8)

        let output = dir.appendingPathComponent("out.mkv").path
        let (run, seconds) = try runLimited(["render", video, "--poses", poses, "--annotations", scene, "-o", output,
                                             "--codec", "ffv1", "--progress", "none"], memoryKiB: 2 << 20, seconds: 120)
        #expect(run.status == 3, "exit \(run.status) after \(seconds) s: \(run.stderr)")
        #expect(run.stderr.contains("\(scene), frame 0") && run.stderr.contains("64 times over"), "\(run.stderr)")
        #expect(seconds < 30, "took \(seconds) s")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A picture wider than 16384 pixels is refused when it is decoded, before fxreplay allocates by
    /// its size, with FFmpeg's own limit named; it used to be rendered.
    @Test func aPictureBeyondTheSizeCapIsExit3NamingTheLimit() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wide = dir.appendingPathComponent("wide.png").path
        try runFFmpegCLI(["-f", "lavfi", "-i", "color=c=gray:s=16392x8", "-frames:v", "1", wide])
        let output = dir.appendingPathComponent("out.mkv").path
        let run = try runFxreplay(["render", wide, "-o", output, "--codec", "ffv1", "--progress", "none"])
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains("\(wide): the picture is 16392×8") && run.stderr.contains("av_image_check_size"), "\(run.stderr)")
    }
}
