import Foundation
import Testing

/// The golden render check CI runs: the bundled sample rendered with `--deterministic --codec ffv1`
/// must decode to exactly the frames listed in Tests/Golden/call-ffv1.framemd5.
///
/// FFV1 is lossless, so the listing pins down every decoded pixel and timestamp of the render, whatever
/// the encoder's thread count. To regenerate it after an intended change (and review the diff):
///
///     swift build
///     .build/debug/fxreplay render Samples/call.mp4 -o /tmp/call.mkv --deterministic --codec ffv1 --overwrite
///     .build/debug/fxreplay framehash /tmp/call.mkv --check Tests/Golden/call-ffv1.framemd5 --update
///
/// or run this test with FXREPLAY_UPDATE_GOLDEN=1 in the environment, which does the same.
///
/// A golden file produced by the code under test only proves the output did not change. So this test
/// also checks it independently, with the ffmpeg tools: its frame count and timestamps against what
/// ffprobe reads from the input, and the rendered content against the input by FFmpeg's own PSNR.
@Suite struct QAGoldenTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let sample = root.appendingPathComponent("Samples/call.mp4").path
    static let golden = root.appendingPathComponent("Tests/Golden/call-ffv1.framemd5").path

    @Test func sampleRenderMatchesGolden() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rendered = dir.appendingPathComponent("call.mkv").path
        let render = try runFxreplay(["render", Self.sample, "-o", rendered, "--deterministic", "--codec", "ffv1", "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")

        var check = ["framehash", rendered, "--check", Self.golden]
        if ProcessInfo.processInfo.environment["FXREPLAY_UPDATE_GOLDEN"] == "1" { check.append("--update") }
        let run = try runFxreplay(check)
        #expect(run.status == 0, "the render differs from the golden file (see the test's comment to update it on purpose):\n\(run.stderr)")

        // Independent check 1: the golden lists every input frame at the input's time (ffprobe, relative to the first frame).
        let text = try String(contentsOfFile: Self.golden, encoding: .utf8)
        let timeBase = try #require(text.split(separator: "\n").first { $0.hasPrefix("#tb 0: ") }.map { line in
            line.dropFirst(7).split(separator: "/").compactMap { Double($0) }
        })
        try #require(timeBase.count == 2)
        let goldenTimes = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            Double(line.split(separator: ",")[2].trimmingCharacters(in: .whitespaces)).map { $0 * timeBase[0] / timeBase[1] }
        }
        let probe = try QAFixtures.run("ffprobe", ["-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", Self.sample])
        let inputTimes = String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces.union(.init(charactersIn: ",")))) }
        #expect(!inputTimes.isEmpty && goldenTimes.count == inputTimes.count, "golden \(goldenTimes.count) frames, input \(inputTimes.count)")
        for (golden, input) in zip(goldenTimes, inputTimes) {
            #expect(abs((golden - goldenTimes[0]) - (input - inputTimes[0])) < 0.001, "frame at \(input) s")
        }

        // Independent check 2: FFmpeg's psnr filter finds the render identical to the input (inf), or at least
        // far above coding noise if a later sample needs converting.
        let psnr = try QAFixtures.run("ffmpeg", ["-i", rendered, "-i", Self.sample, "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"])
        let average = try #require(psnr.log.components(separatedBy: "average:").last?.split(separator: " ").first.map(String.init))
        #expect(average == "inf" || (Double(average) ?? 0) >= 50, "PSNR render vs input: \(average)")
    }
}
