import Foundation
@testable import ReplayKitless
import Testing

/// The demo render of the bundled sample (Samples/, made by `fxreplay sample -o Samples`), pinned by
/// a golden frame hash: rendered with `--deterministic --codec ffv1` it must decode to exactly the
/// frames listed in Tests/Golden/sample-render.framemd5. To regenerate after an intended change:
///
///     FXREPLAY_UPDATE_GOLDEN=1 swift test --filter EndToEndGoldenTests
///
/// and review the golden's diff. A golden made by the code under test only proves that nothing
/// changed, so the same test checks it independently: its frames against the input's timestamps
/// (ffprobe) and the sample's truth, and its pictures against the same background replacement done
/// by FFmpeg's own filters (scale and crop to cover, maskedmerge with the mask, psnr): the render
/// without annotations must match that, and the demo render may differ from it only where the
/// annotations are drawn.
@Suite struct EndToEndGoldenTests {
    static let samples = repositoryRoot.appendingPathComponent("Samples")
    static let golden = repositoryRoot.appendingPathComponent("Tests/Golden/sample-render.framemd5").path
    static func sample(_ name: String) -> String { samples.appendingPathComponent(name).path }

    /// The demo render's options, as Samples/job.yaml gives them (relative to the job file).
    static let demoJob = [("poses-from-sei", nil), ("annotations", "annotations.json"), ("mask", "call.mask.mkv"),
                          ("background", "image:background.png")]
    /// The same options with absolute paths.
    static let demoOptions = demoJob.flatMap { key, value in
        ["--" + key] + (value.map { [$0.hasPrefix("image:") ? "image:" + sample(String($0.dropFirst(6))) : sample($0)] } ?? [])
    }

    @Test func demoJobIsTheOneTested() throws {
        let lines = try String(contentsOfFile: Self.sample("job.yaml"), encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }.map(String.init)
        #expect(lines == Self.demoJob.map { key, value in "\(key): " + (value.map { "\"\($0)\"" } ?? "true") })
    }

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

        // Independent check 2: FFmpeg replaces the background itself; the render without annotations
        // matches that, and the demo render differs from it only where annotations are drawn.
        let plain = dir.appendingPathComponent("plain.mkv").path
        let withoutAnnotations = Array(Self.demoOptions.drop { $0 != "--mask" })
        let plainRender = try runFxreplay(["render", Self.sample("call.mp4"), "-o", plain, "--codec", "ffv1", "--progress", "none"]
                                          + withoutAnnotations)
        try #require(plainRender.status == 0, "\(plainRender.stderr)")
        #expect(try ffmpegReplacementPSNR(plain) > 50, "render without annotations vs FFmpeg's background replacement")
        let demoPSNR = try ffmpegReplacementPSNR(rendered)
        #expect(demoPSNR > 20 && demoPSNR < 40, "demo render vs FFmpeg's background replacement: \(demoPSNR) dB")
        let demo = try VideoFrameReader(url: rendered), reference = try VideoFrameReader(url: plain)
        var index = 0
        while let a = try demo.next() {
            let b = try #require(try reference.next())
            defer { index += 1 }
            guard index.isMultiple(of: 4) else { continue }   // a quarter of the frames is plenty here
            let (x, y) = (try demo.image(of: a), try reference.image(of: b))
            var changed = 0
            for row in 0..<x.height { for column in 0..<x.width where x.luma[column, row] != y.luma[column, row] { changed += 1 } }
            let share = Double(changed) / Double(x.width * x.height)
            #expect(share > 0.001 && share < 0.05, "frame \(index): annotations changed \(share * 100)% of the picture")
        }
        #expect(index == truth.frames)
    }

    /// Average PSNR (FFmpeg's psnr filter) of `video` against the sample's background replacement done
    /// by FFmpeg: the background scaled to cover and centre-cropped, held for every frame, and merged
    /// with the call by the mask (its chroma the mean over the 2×2 luma samples, formats.md §5).
    func ffmpegReplacementPSNR(_ video: String) throws -> Double {
        let graph = "movie=\(Self.sample("background.png")),scale=640:400,crop=640:360,format=yuv420p[picture];"
            + "[1:v]split[call][clock];[clock][picture]overlay=eof_action=repeat:format=yuv420[background];"
            + "[2:v]extractplanes=y,split=3[luma][m1][m2];[m1]scale=iw/2:ih/2:flags=area[cb];[m2]scale=iw/2:ih/2:flags=area[cr];"
            + "[luma][cb][cr]mergeplanes=0x001020:yuv420p[mask];[background][call][mask]maskedmerge[expected];[0:v][expected]psnr"
        let run = try QAFixtures.run("ffmpeg", ["-i", video, "-i", Self.sample("call.mp4"), "-i", Self.sample("call.mask.mkv"),
                                                "-filter_complex", graph, "-f", "null", "-"])
        return try #require(run.log.components(separatedBy: "average:").last?.split(separator: " ").first.flatMap { Double($0) },
                            "\(run.log)")
    }
}
