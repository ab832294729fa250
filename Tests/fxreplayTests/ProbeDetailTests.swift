import Foundation
import Testing

/// `probe` tells how each stream is coded, with the figures ffprobe gives (#26 item 7).
@Suite struct ProbeDetailTests {
    @Test func codingFactsMatchFFprobe() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.appendingPathComponent("tagged.mp4").path
        let made = try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=128x72:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                                                 "-t", "1", "-c:v", "libx264", "-profile:v", "high", "-level", "3.1", "-pix_fmt", "yuv420p",
                                                 "-color_range", "tv", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                                                 "-b:v", "300k", "-c:a", "aac", "-b:a", "64k", video])
        try #require(made.status == 0, "\(made.log)")
        let probed = try QAFixtures.run("ffprobe", ["-show_streams", "-of", "json", video])
        let reference = try #require((try JSONSerialization.jsonObject(with: probed.stdout) as? [String: Any])?["streams"] as? [[String: Any]])
        let run = try runFxreplay(["probe", video, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let ours = try #require((try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["streams"] as? [[String: Any]])
        try #require(ours.count == 2 && reference.count == 2)
        for (stream, expected) in zip(ours, reference) {
            let kind = stream["kind"] as? String
            var pairs = [("profile", "profile"), ("bitRate", "bit_rate"), ("durationSeconds", "duration")]
            if kind == "video" {
                pairs += [("pixelFormat", "pix_fmt"), ("colorRange", "color_range"), ("colorSpace", "color_space"),
                          ("colorPrimaries", "color_primaries"), ("colorTransfer", "color_transfer"), ("level", "level"),
                          ("frameRate", "r_frame_rate"), ("averageFrameRate", "avg_frame_rate")]
            } else {
                pairs += [("sampleFormat", "sample_fmt")]
            }
            for (key, ffprobeKey) in pairs {
                let theirs: Any = try #require(expected[ffprobeKey], "ffprobe has no \(ffprobeKey)")
                let mine: Any = try #require(stream[key], "probe has no \(key) for the \(kind ?? "?") stream:\n\(run.stdout)")
                // ffprobe writes numbers as strings ("300000", "1.000000"); compare as numbers where they are.
                if let number = Double("\(theirs)") {
                    #expect(abs((Double("\(mine)") ?? .nan) - number) < 1e-6, "\(key): \(mine) vs ffprobe's \(theirs)")
                } else {
                    #expect("\(mine)" == "\(theirs)", "\(key): \(mine) vs ffprobe's \(theirs)")
                }
            }
        }
        // The values checked above, as the text shows them.
        let text = try runFxreplay(["probe", video])
        let bitRate = Int((Double("\(reference[0]["bit_rate"]!)")! / 1000).rounded())
        #expect(text.stdout.contains("yuv420p tv bt709, High 3.1, \(bitRate) kb/s, 25 fps nominal, "), "\(text.stdout)")
        #expect(text.stdout.contains("fltp, LC, "), "\(text.stdout)")
    }
}
