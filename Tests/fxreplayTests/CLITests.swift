import Foundation
@testable import ReplayKitless
import Testing

@Suite struct CLITests {
    @Test func unknownOptionIsBadUsage() throws {
        let result = try runFxreplay(["--no-such-option"])
        #expect(result.status == 2)
    }

    /// Progress as JSON lines (and plain lines): each parses, and the last says how many frames were
    /// done, also when the expected total was only an estimate (a variable-rate Matroska file
    /// declares no frame count).
    @Test func progressEndsWithTheFramesDone() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("vfr.mkv").path
        try writeRecording(to: input, pts: jitteredTimestamps(count: 20, start: 0, dropping: [4, 5, 6, 11, 12]))
        let json = try runFxreplay(["render", input, "-o", dir.appendingPathComponent("a.mp4").path, "--progress", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let events = json.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(!events.isEmpty && events.count == json.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }.count)
        // (Messages and warnings follow as events of their own: the last progress event is the one.)
        let done = try #require(events.last { ["progress", "done"].contains($0["event"] as? String) })
        #expect(done["event"] as? String == "done" && done["frames"] as? Int == 15 && done["total"] as? Int == 15, "\(done)")
        let plain = try runFxreplay(["render", input, "-o", dir.appendingPathComponent("b.mp4").path, "--progress", "plain"])
        #expect(plain.stderr.contains("render: 15/15 frames"), "\(plain.stderr)")
    }
}
