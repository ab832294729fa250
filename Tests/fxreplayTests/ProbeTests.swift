import Foundation
@testable import ReplayKitless
import Testing

@Suite struct ProbeTests {
    @Test func reportsTimingRotationAndResolutionChanges() throws {
        let dir = try makeScratchDirectory()
        let vfr = dir.appendingPathComponent("vfr.mp4").path
        let pts = jitteredTimestamps(count: 30, start: 2.0, dropping: [5, 6])
        try writeRecording(to: vfr, pts: pts, rotation: 270, audioStart: 2.0)
        let run = try runFxreplay(["probe", vfr, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(json?["frames"] as? Int == 28)
        #expect(json?["rotation"] as? Int == 270)
        let intervals = json?["frameIntervals"] as? [String: Any]
        // Expected from the fixture's own timestamps: largest gap spans the two dropped frames.
        let gaps = zip(pts.dropFirst(), pts).map { Double($0 - $1) / 90 }
        #expect(abs((intervals?["max"] as? Double ?? 0) - gaps.max()!) < 0.05)
        #expect(abs((intervals?["min"] as? Double ?? 0) - gaps.min()!) < 0.05)
        #expect(intervals?["variableFrameRate"] as? Bool == true)
        #expect(abs((json?["startSeconds"] as? Double ?? 0) - 2.0) < 0.05)

        let changing = dir.appendingPathComponent("change.webm").path
        try writeRecording(to: changing, pts: (0..<12).map { Int64($0) * 3000 }, sizes: [6: PictureSize(width: 96, height: 64)], codec: .vp8)
        let text = try runFxreplay(["probe", changing])
        #expect(text.status == 0)
        #expect(text.stdout.contains("160x96 → 96x64"))
    }

    @Test func probeOfAudioOnlySaysThereIsNoVideo() throws {
        let dir = try makeScratchDirectory()
        let audio = dir.appendingPathComponent("audio.m4a").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "sine=duration=0.3", audio]).status == 0)
        let run = try runFxreplay(["probe", audio])
        #expect(run.status == 0 && run.stdout.contains("audio aac") && run.stdout.contains("no video"), "\(run.stdout)")
        #expect(!run.stdout.contains("rotation") && !run.stdout.contains("resolutions"))
    }

    @Test func probeOfMissingFileIsBadInput() throws {
        let run = try runFxreplay(["probe", "/no/such/file.mp4"])
        #expect(run.status == 3 && run.stderr.contains("/no/such/file.mp4"))
    }
}
