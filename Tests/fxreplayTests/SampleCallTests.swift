import Foundation
import FxTestSupport
@testable import ReplayKitless
import Testing

/// The sample's call archive (`call-archive.zip`, formats.md §9) read back by the call reader and
/// checked against the ffmpeg CLI's view of each member and against the sample's own recording.
@Suite struct SampleCallTests {
    /// ffprobe's view of one file: its start time (`start_time`, priming included), where its last
    /// packet ends, its codecs and picture size.
    struct Probed {
        var start: Double
        var end: Double
        var codecs: [String]
        var size: String?

        init(_ path: String) throws {
            func probe(_ arguments: [String]) throws -> String {
                let run = try QAFixtures.run("ffprobe", arguments + [path])
                try #require(run.status == 0, "ffprobe \(path): \(run.log)")
                return String(decoding: run.stdout, as: UTF8.self)
            }
            start = try #require(Double(probe(["-show_entries", "format=start_time", "-of", "csv=p=0"])
                .trimmingCharacters(in: .whitespacesAndNewlines)))
            end = try probe(["-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0"])
                .split(separator: "\n").compactMap { line -> Double? in
                    let fields = line.split(separator: ",").compactMap { Double($0) }
                    return fields.count >= 2 ? fields[0] + fields[1] : nil
                }.max() ?? start
            let streams = try probe(["-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0"])
                .split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
            codecs = streams.map { $0[0] }
            size = streams.first { $0.count == 3 }.map { "\($0[1])x\($0[2])" }
        }
    }

    /// Participants, offsets and media as the generator promises for a 2 s 320x180 sample (the
    /// expert joins at a quarter of a short call, the dispatcher half-way to that); every member's
    /// manifest duration agrees with ffprobe's (first packet to end of the last) within a frame.
    @Test func archiveReadsBackWithItsParticipantsOffsetsAndMedia() throws {
        let sample = try GeneratedSample.get()
        let opened = try OpenedCall.open(FilePath(sample.path("call-archive.zip")))
        let call = opened.call
        #expect(call.epoch == 1_767_225_600)
        let seconds = 2.0  // GeneratedSample: --seconds 2
        let join = min(1, seconds / 4)
        let expected: [(name: String, start: Double, codecs: [String], size: String?)] = [
            ("Car owner", 0, ["h264", "opus"], "320x180"),
            ("Expert", join, ["vp8", "opus"], "240x320"),
            ("Dispatcher", join / 2, ["opus"], nil),
        ]
        try #require(call.streams.count == expected.count)
        // The manifest, read out of the ZIP with Python's zipfile, not through the reader.
        let manifestPath = try makeScratchDirectory().appendingPathComponent("manifest.json").path
        try CallCommandFixtures.python("""
            import sys, zipfile
            names = [n for n in zipfile.ZipFile(sys.argv[1]).namelist() if n.endswith('.json')]
            assert len(names) == 1, names
            open(sys.argv[2], 'wb').write(zipfile.ZipFile(sys.argv[1]).read(names[0]))
            """, [sample.path("call-archive.zip"), manifestPath])
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath))) as? [String: Any])
        let files = try #require(manifest["files"] as? [[String: Any]])
        #expect(manifest["createdAt"] as? Int == 1_767_225_600_000)
        for ((stream, want), file) in zip(zip(call.streams, expected), files) {
            #expect(stream.name == want.name)
            #expect(stream.id == file["streamId"] as? String && file["filename"] as? String == "\(stream.id).\(want.codecs[0] == "h264" ? "mkv" : "webm")")
            #expect(stream.id.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12], "UUID-like: \(stream.id)")
            #expect((file["videoType"] as? String) == (want.size == nil ? nil : "camera"))
            let track = try #require(stream.tracks.first)
            #expect(abs(track.start - want.start) < 1e-9, "\(want.name) starts at \(track.start)")
            #expect(track.hasVideo == (want.size != nil) && track.hasAudio)
            let probed = try Probed(track.path.string)
            #expect(probed.codecs == want.codecs, "\(want.name)")
            #expect(probed.size == want.size, "\(want.name)")
            let start = try #require(file["startTimeOffset"] as? Int), stop = try #require(file["stopTimeOffset"] as? Int)
            #expect(abs(Double(stop - start) / 1000 - (probed.end - probed.start)) <= 1.0 / 30,
                    "\(want.name): manifest \(stop - start) ms, ffprobe \(probed.end - probed.start) s")
        }
        // The expert and the dispatcher stay to the end of the publisher's media (within a frame).
        let owner = try Probed(call.streams[0].tracks[0].path.string)
        #expect(abs(call.streams[1].stop - (owner.end - owner.start)) < 0.05)
        withExtendedLifetime(opened) {}
    }

    /// The publisher is the sample recording itself: the same decoded pictures at the same times
    /// (ffmpeg's framemd5 of both), pose SEI and all; and the epoch pose log stamps each of its
    /// frames `createdAt / 1000 + start + (pts − start_time)` with that frame's pose.
    @Test func publisherIsTheSampleRecordingAndItsPoseLogIsOnTheCallsEpoch() throws {
        let sample = try GeneratedSample.get()
        let opened = try OpenedCall.open(FilePath(sample.path("call-archive.zip")))
        let track = try #require(opened.call.streams.first?.tracks.first)
        func frames(_ path: String) throws -> [(time: Double, hash: String)] {
            let hashes = try QAFixtures.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-f", "framemd5", "-"])
            let times = try QAFixtures.run("ffprobe", ["-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
            try #require(hashes.status == 0 && times.status == 0, "\(hashes.log) \(times.log)")
            // framemd5 lines: stream, dts, pts, duration, size, hash.
            let md5 = String(decoding: hashes.stdout, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
                .map { String($0.split(separator: ",").last!.trimmingCharacters(in: .whitespaces)) }
            let seconds = String(decoding: times.stdout, as: UTF8.self).split(separator: "\n").compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }
            try #require(md5.count == seconds.count)
            return Array(zip(seconds, md5))
        }
        let original = try frames(sample.path("call.mp4")), copy = try frames(track.path.string)
        #expect(copy.map(\.hash) == original.map(\.hash))
        #expect(zip(copy, original).allSatisfy { abs($0.time - $1.time) < 1e-6 })
        #expect(try MediaProbe.probe(track.path.string).poseSEIFrames == original.count)

        let start = try Probed(track.path.string).start
        let lines = try String(contentsOfFile: sample.path("call-archive.poses.jsonl"), encoding: .utf8).split(separator: "\n")
        let relative = try String(contentsOfFile: sample.path("call.poses.jsonl"), encoding: .utf8).split(separator: "\n")
        try #require(lines.count == copy.count && relative.count == copy.count)
        for ((line, plain), frame) in zip(zip(lines, relative), copy) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let t = try #require(object["t"] as? Double)
            #expect(abs(t - (1_767_225_600 + track.start + frame.time - start)) < 1e-6, "\(line)")
            // The same pose as the sample's own sidecar line for that frame.
            #expect(line.drop { $0 != "," } == plain.drop { $0 != "," })
        }
        withExtendedLifetime(opened) {}
    }
}
