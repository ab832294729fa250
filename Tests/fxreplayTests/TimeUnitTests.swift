import Foundation
import Testing

/// Time values carry their units, and pose samples that miss their frames are flagged (#26 item 4).
@Suite struct TimeUnitTests {
    /// `--delay 200` would be 200 seconds: refused as bad usage with the likely meaning.
    @Test func bareDelayIsRefusedWithAHint() throws {
        let sample = try GeneratedSample.get()
        for (option, value) in [("--delay", "200"), ("--delay", "0,100ms,200"), ("--delay-list", "0.5")] {
            let run = try runFxreplay(["qa", "latency", sample.path("call.mp4"), "--poses-from-sei", "--annotations",
                                       sample.path("annotations.json")] + (option == "--delay" ? [] : ["--delay", "0"]) + [option, value])
            #expect(run.status == 2, "\(option) \(value): \(run.stderr)")
            let bare = value.split(separator: ",").last!
            #expect(run.stderr.contains("did you mean \(bare)ms?"), "\(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
        // Zero and numbers with units pass.
        let run = try runFxreplay(["qa", "latency", sample.path("call.mp4"), "--poses-from-sei", "--annotations",
                                   sample.path("annotations.json"), "--delay", "0,200ms,0.1s", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
    }

    /// The sample's 2 s of poses shifted by 1.5 s: 3/4 of the samples land past the last frame.
    /// `track` used to hold the last pose over the rest and say nothing.
    @Test func mostlyMissingPosesFailNamingTheFile() throws {
        let sample = try GeneratedSample.get()
        let out = try makeScratchDirectory().appendingPathComponent("track.csv").path
        let sidecar = sample.path("call.poses.jsonl")
        let run = try runFxreplay(["track", sample.path("call.mp4"), "--poses", sidecar, "--pose-offset", "1.5",
                                   "--annotations", sample.path("annotations.json"), "-o", out])
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("fxreplay: error: \(sidecar)") || run.stderr.contains(sidecar), "\(run.stderr)")
        // Samples at t + 1.5 s beyond the last frame's window: count them from the sidecar itself.
        let times = try String(contentsOfFile: sidecar, encoding: .utf8).split(separator: "\n").compactMap { line -> Double? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["t"] as? Double
        }
        // The last frame's time from its first, as ffprobe reads them. A sample shifted past it by more than
        // a whole frame interval certainly meets no frame, one not past it certainly does (frames are ~33 ms
        // apart, and each takes samples within half its duration): the count lies between.
        let probe = try QAFixtures.run("ffprobe", ["-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0",
                                                   sample.path("call.mp4")])
        let frameTimes = String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n").compactMap { Double($0.split(separator: ",").first ?? "") }
        let lastFrame = try #require(frameTimes.max()) - frameTimes.min()!
        let surely = times.filter { $0 + 1.5 > lastFrame + 0.04 }.count, atMost = times.filter { $0 + 1.5 > lastFrame }.count
        let prefix = "\(sidecar): "
        let counted = try #require(run.stderr.components(separatedBy: prefix).dropFirst().first?.split(separator: " ").first.flatMap { Int($0) },
                                   "\(run.stderr)")
        #expect((surely...atMost).contains(counted) && Double(counted) > 0.7 * Double(times.count), "\(counted) not in \(surely)...\(atMost)")
        let missed = counted
        #expect(run.stderr.contains("\(missed) of the \(times.count) pose samples match no frame"), "\(run.stderr)")
        #expect(run.stderr.contains("--pose-time") && run.stderr.contains("--max-unmatched-poses"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))

        // Allowed by a higher threshold, it goes on with the same counts as a warning.
        let allowed = try runFxreplay(["track", sample.path("call.mp4"), "--poses", sidecar, "--pose-offset", "1.5",
                                       "--max-unmatched-poses", "90", "--annotations", sample.path("annotations.json"), "-o", out])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stderr.contains("fxreplay: warning: \(sidecar): \(missed) of the \(times.count) pose samples"), "\(allowed.stderr)")
        // A sidecar that fits the video draws no warning.
        let fits = try runFxreplay(["track", sample.path("call.mp4"), "--poses", sidecar, "--annotations", sample.path("annotations.json"),
                                    "-o", out])
        #expect(fits.status == 0 && !fits.stderr.contains("warning"), "\(fits.stderr)")
        #expect(try runFxreplay(["track", sample.path("call.mp4"), "--poses", sidecar, "--max-unmatched-poses", "101",
                                 "--annotations", sample.path("annotations.json"), "-o", out]).status == 2)
    }
}
