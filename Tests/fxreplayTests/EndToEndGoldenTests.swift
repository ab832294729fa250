import Foundation
import ReplayKitless
import Testing

/// The demo render of the bundled sample (Samples/, made by `fxreplay sample -o Samples`), pinned by
/// a golden frame hash: rendered with `--deterministic --codec ffv1` it must decode to exactly the
/// frames listed in Tests/Golden/sample-render.framemd5. To regenerate after an intended change:
///
///     FXREPLAY_UPDATE_GOLDEN=1 swift test --filter EndToEndGoldenTests
///
/// and review the golden's diff. A golden made by the code under test only proves that nothing
/// changed, so the same test checks it independently: its frames against the input's timestamps
/// (ffprobe) and the sample's truth, and the rendered pictures against the input by FFmpeg's psnr.
@Suite struct EndToEndGoldenTests {
    static let samples = repositoryRoot.appendingPathComponent("Samples")
    static let golden = repositoryRoot.appendingPathComponent("Tests/Golden/sample-render.framemd5").path
    static func sample(_ name: String) -> String { samples.appendingPathComponent(name).path }

    /// The demo render's options (as in Samples/job.yaml), with absolute paths.
    static let demoOptions = ["--poses-from-sei", "--annotations", sample("annotations.json")]

    @Test func demoRenderMatchesGolden() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rendered = dir.appendingPathComponent("demo.mkv").path
        let render = try runFxreplay(["render", Self.sample("call.mp4"), "-o", rendered, "--deterministic", "--codec", "ffv1",
                                      "--progress", "none"] + Self.demoOptions)
        try #require(render.status == 0, "\(render.stderr)")
        var check = ["framehash", rendered, "--check", Self.golden]
        if ProcessInfo.processInfo.environment["FXREPLAY_UPDATE_GOLDEN"] == "1" { check.append("--update") }
        let run = try runFxreplay(check)
        #expect(run.status == 0, "the demo render differs from the golden file (see the suite's comment to update it):\n\(run.stderr)")

        // Independent check 1: the golden lists every input frame at the input's own time.
        let truth = try JSONDecoder().decode(SampleTruth.self, from: Data(contentsOf: Self.samples.appendingPathComponent("scene.json")))
        let text = try String(contentsOfFile: Self.golden, encoding: .utf8)
        let timeBase = try #require(text.split(separator: "\n").first { $0.hasPrefix("#tb 0: ") }.map { line in
            line.dropFirst(7).split(separator: "/").compactMap { Double($0) }
        })
        try #require(timeBase.count == 2)
        let goldenTimes = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            Double(line.split(separator: ",")[2].trimmingCharacters(in: .whitespaces)).map { $0 * timeBase[0] / timeBase[1] }
        }
        let probe = try QAFixtures.run("ffprobe", ["-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0",
                                                   Self.sample("call.mp4")])
        let inputTimes = String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n")
            .compactMap { Double($0.trimmingCharacters(in: .whitespaces.union(.init(charactersIn: ",")))) }
        #expect(inputTimes.count == truth.frames && goldenTimes.count == truth.frames,
                "golden \(goldenTimes.count) frames, input \(inputTimes.count), truth \(truth.frames)")
        #expect(inputTimes.first == truth.firstFrameTime)
        // (framemd5 times start where ffmpeg starts the file: at its earliest stream, the audio.)
        for (golden, input) in zip(goldenTimes, inputTimes) {
            #expect(abs((golden - goldenTimes[0]) - (input - inputTimes[0])) < 1e-9, "frame at \(input) s listed at \(golden) s")
        }

        // Independent check 2: FFmpeg's psnr filter sees the input with a little drawn on it:
        // not identical, but close everywhere but the marks and labels.
        let psnr = try QAFixtures.run("ffmpeg", ["-i", rendered, "-i", Self.sample("call.mp4"), "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"])
        let average = try #require(psnr.log.components(separatedBy: "average:").last?.split(separator: " ").first.flatMap { Double($0) },
                                   "\(psnr.log)")
        #expect(average > 25 && average < 60, "PSNR of the demo render against its input: \(average) dB")
    }
}
