import Foundation
import FxTestSupport
import Logging
import Testing
@testable import ReplayKitless

/// Two jobs at once in one process, each under its own environment: each opens its input under
/// its own policy and logs to its own logger, on every thread its pipeline starts.
@Suite struct JobEnvironmentTests {
    @Test func twoRendersAtOnceKeepTheirOwnPolicyAndLogger() async throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A concat list names another file: refused unless the job's policy allows `concat`.
        let clip = folder + "/clip.mp4"
        try runFFmpegCLI(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-frames:v", "10", "-c:v", "libx264", "-pix_fmt", "yuv420p", clip])
        let list = folder + "/list.ffconcat"
        try "ffconcat version 1.0\nfile clip.mp4\n".write(toFile: list, atomically: true, encoding: .utf8)
        // A WebM with bytes overwritten mid-file: its render warns of the damage, naming the file.
        let clean = folder + "/clean.webm", damaged = folder + "/damaged.webm"
        try runFFmpegCLI(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libvpx", "-b:v", "300k", "-g", "25", clean])
        var bytes = try Data(contentsOf: URL(fileURLWithPath: clean))
        var generator = UInt64(0x9E37_79B9_7F4A_7C15)
        for offset in bytes.count / 2..<bytes.count / 2 + 8000 {
            generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[offset] = UInt8(truncatingIfNeeded: generator >> 56)
        }
        try bytes.write(to: URL(fileURLWithPath: damaged))

        let allowingLog = CapturedLog(), strictLog = CapturedLog()
        let allowing = JobEnvironment(logger: Logger(label: "allowing") { _ in CapturingHandler(log: allowingLog) },
                                      inputPolicy: InputPolicy(allowed: ["concat"]))
        let strict = JobEnvironment(logger: Logger(label: "strict") { _ in CapturingHandler(log: strictLog) })
        let processPolicy = InputPolicy.current

        async let fromList = Renderer(options: RenderOptions(input: list, output: FilePath(folder + "/list.mkv")), environment: allowing).run()
        async let damagedRender = Renderer(options: RenderOptions(input: damaged, output: FilePath(folder + "/damaged.mkv")), environment: strict).run()
        async let refused: RenderReport? = try? Renderer(options: RenderOptions(input: list, output: FilePath(folder + "/refused.mkv")), environment: strict).run()
        let (listReport, damagedReport, refusedReport) = try await (fromList, damagedRender, refused)

        #expect(listReport.framesEncoded == 10)
        #expect(refusedReport == nil && !FileManager.default.fileExists(atPath: folder + "/refused.mkv"))
        #expect(damagedReport.decodeErrors > 0)
        // The damage is said to the damaged render's logger only; the other job's logger hears nothing of it.
        #expect(strictLog.entries.contains { $0.level == .warning && $0.message.hasPrefix(damaged) }, "\(strictLog.entries.map(\.message))")
        #expect(!allowingLog.entries.contains { $0.message.contains(damaged) }, "\(allowingLog.entries.map(\.message))")
        // The process's own policy is untouched by either job.
        #expect(InputPolicy.current == processPolicy)
    }

    @Test func theRefusalNamesThePolicysProperty() async throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let list = folder + "/list.ffconcat"
        try "ffconcat version 1.0\nfile clip.mp4\n".write(toFile: list, atomically: true, encoding: .utf8)
        let environment = JobEnvironment(logger: Logger(label: "strict") { _ in CapturingHandler(log: CapturedLog()) })
        await #expect {
            _ = try await Renderer(options: RenderOptions(input: list, output: FilePath(folder + "/out.mkv")), environment: environment).run()
        } throws: { error in
            guard let error = error as? ReplayError else { return false }
            return error.kind == .badInput && error.message.contains("FFmpeg demuxer concat") && error.options == ["InputPolicy.allowed"]
        }
    }
}
