import Foundation
import FxTestSupport
@testable import ReplayKitless
import Testing

/// `fxreplay batch` with calls among its inputs (formats.md §9): each archive is composed, each
/// recording rendered, in one batch.
@Suite struct BatchCallTests {
    /// Two archives (a glob of `*.zip`) and a recording: the archives' outputs are the whole call
    /// (its latest stop, 4 s, at compose's 30 fps), the recording's its own
    /// 10 frames; the job's size reaches both commands.
    @Test func archivesAreComposedAndRecordingsRenderedInOneBatch() throws {
        let (dir, _) = try CallCommandFixtures.scratch()
        let members = [("manifest.json", "manifest.json"), ("av.webm", "av.webm"), ("v.mkv", "v.mkv"), ("a.webm", "a.webm")]
        for name in ["call1", "call2"] {
            try CallCommandFixtures.makeZip(dir + "/\(name).zip", members: members.map { ($0.0, dir + "/call/" + $0.1) })
        }
        try writeRecording(to: dir + "/rec.mp4", pts: (0..<10).map { Int64($0) * 3000 })
        try Data("size: 96x64\npreset: ultrafast\n".utf8).write(to: URL(fileURLWithPath: dir + "/job.yaml"))
        let out = URL(fileURLWithPath: dir + "/out")
        let (run, report) = try runBatch([dir + "/*.zip", dir + "/rec.mp4", "--job", dir + "/job.yaml", "-j", "2"], out: out)
        #expect(run.status == 0, "\(run.stderr)")
        let entries = try #require(report).recordings
        #expect(entries.map(\.name) == ["call1", "call2", "rec"])
        #expect(entries.allSatisfy { $0.status == .done }, "\(entries.map { "\($0.name): \($0.status) \($0.error ?? "")" })")
        // The call lasts to its latest stopTimeOffset (4000 ms): 4 s of frames at 30 fps.
        for (name, frames) in [("call1", 120), ("call2", 120), ("rec", 10)] {
            let probe = try QAFixtures.run("ffprobe", ["-count_frames", "-show_entries", "stream=codec_type,width,height,nb_read_frames",
                                                       "-of", "csv=p=0", out.path + "/\(name).mp4"])
            let streams = String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
            let video = try #require(streams.first { $0.first == "video" }, "\(name): \(streams)")
            #expect(video == ["video", "96", "64", String(frames)], "\(name)")
            let log = try String(contentsOfFile: out.path + "/logs/\(name).log", encoding: .utf8)
            #expect(log.contains("participants shown") == name.hasPrefix("call"), "\(name): \(log)")
        }
    }
}
