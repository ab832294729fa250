import Foundation
import FxTestSupport
@testable import ReplayKitless
import Testing

/// Stretches overwritten mid-file: damage the demuxer skips (WebM) or the decoder meets (MP4) is
/// counted, fails `--strict`, and the report names the stream and a time inside the stretch.
@Suite struct DemuxerDamageTests {
    /// One video packet of the undamaged file, as ffprobe reads it.
    struct ProbedPacket { let seconds: Double; let position: Int; let size: Int }

    static func packets(_ path: String) throws -> [ProbedPacket] {
        let lines = try ffprobe(["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,pos,size", "-of", "csv=p=0", path])
        var packets: [ProbedPacket] = []
        for line in lines.split(separator: "\n") {
            // ffprobe's order: pts_time, size, pos.
            let fields = line.split(separator: ",").map(String.init)
            guard fields.count == 3, let time = Double(fields[0]), let size = Int(fields[1]), let position = Int(fields[2]) else { continue }
            packets.append(ProbedPacket(seconds: time, position: position, size: size))
        }
        return packets
    }

    /// Overwrites two stretches (at 30 % and 60 % of the file) with seeded garbage; returns the
    /// times of the packets whose bytes each stretch hits, from the undamaged file's packet table.
    static func damage(_ clean: String, into damaged: String) throws -> [[Double]] {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: clean))
        let packets = try packets(clean)
        var generator = UInt64(0x9E37_79B9_7F4A_7C15)
        var hit: [[Double]] = []
        for fraction in [0.3, 0.6] {
            let start = Int(Double(bytes.count) * fraction), end = start + 8000
            for offset in start..<end {
                generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes[offset] = UInt8(truncatingIfNeeded: generator >> 56)
            }
            hit.append(packets.filter { $0.position < end && $0.position + $0.size > start }.map(\.seconds))
        }
        try bytes.write(to: URL(fileURLWithPath: damaged))
        return hit
    }

    func renderDamaged(codec: [String], container: String, renderFlags: [String] = [], losesFrames: Bool) throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clean = dir.appendingPathComponent("clean.\(container)").path, damaged = dir.appendingPathComponent("damaged.\(container)").path
        let made = try QAFixtures.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=8"] + codec + ["-g", "25", clean])
        try #require(made.status == 0, "\(made.log)")
        let cleanFrames = try Self.packets(clean).count
        let stretches = try Self.damage(clean, into: damaged)
        try #require(stretches.allSatisfy { $0.count > 2 }, "\(stretches)")

        let output = dir.appendingPathComponent("out.mkv").path
        let strict = try runFxreplay(["render", damaged, "-o", output, "--codec", "ffv1", "--strict", "--progress", "none"] + renderFlags)
        #expect(strict.status == 3, "\(strict.stderr)")
        #expect(strict.stderr.contains("damaged.\(container)"))
        #expect(!FileManager.default.fileExists(atPath: output))

        let reportPath = dir.appendingPathComponent("report.json").path
        let run = try runFxreplay(["render", damaged, "-o", output, "--codec", "ffv1", "--report", reportPath, "--progress", "none"] + renderFlags)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONDecoder().decode(RenderReport.self, from: Data(contentsOf: URL(fileURLWithPath: reportPath)))
        #expect(report.decodeErrors >= report.damage.count && !report.damage.isEmpty)
        // A stretch the demuxer skips takes its pictures with it; a decoder conceals and keeps them.
        #expect(losesFrames ? report.framesDecoded < cleanFrames : report.framesDecoded <= cleanFrames, "\(report.framesDecoded) of \(cleanFrames)")
        // Each stretch is named: a damage of the video stream whose time span meets the
        // overwritten packets' times (give or take a frame, 0.04 s). (Each stretch spans several
        // packets, so it hits the container's block headers or several pictures, not one payload
        // whose garbage a decoder may take without complaint.)
        for times in stretches {
            let first = times.min()! - 0.041, last = times.max()! + 0.041
            #expect(report.damage.contains { $0.stream == 0 && ($0.seconds ?? .infinity) <= last && ($0.endSeconds ?? $0.seconds ?? -1) >= first },
                    "\(times) not in \(report.damage)")
        }
        #expect(report.warnings.contains { $0.contains("stream 0") && $0.contains(" s") }, "\(report.warnings)")
    }

    /// libavformat logs "Element … exceeds containing master element" and resyncs: frames are lost.
    @Test func overwrittenWebMStretchesAreCountedWithTheirTimes() throws {
        try renderDamaged(codec: ["-c:v", "libvpx", "-b:v", "300k"], container: "webm", losesFrames: true)
    }

    /// The sample tables stay whole: the decoder meets the garbage (slice threads, so each error is
    /// reported on the picture it hit).
    @Test func overwrittenMP4StretchesAreCountedWithTheirTimes() throws {
        try renderDamaged(codec: ["-c:v", "libx264", "-bf", "0", "-preset", "veryfast"], container: "mp4", renderFlags: ["--deterministic"], losesFrames: false)
    }

    /// compose takes `--strict` and `--max-decode-errors` per track: a participant's WebM with a
    /// stretch overwritten fails the strict composition naming the stream and its file, and a
    /// generous limit lets it through with the damage counted.
    @Test func composeFailsOnADamagedTrackOnlyPastItsLimit() throws {
        let folder = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Pat's track is whole, Quinn's damaged.
        let people = [(id: "pat", name: "Pat", tag: 1), (id: "quinn", name: "Quinn", tag: 3)]
        let manifest = try CallFixtures.writeArchive(people.map { participant in
            let track = FixtureTrack(file: "\(participant.id.prefix(1)).webm", video: .constant(fps: 10, duration: 3, tag: participant.tag), start: 0)
            return FixtureStream(id: participant.id, name: participant.name, tracks: [track])
        }, in: folder)
        let path = folder.appendingPathComponent("q.webm").path
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let start = bytes.count * 2 / 5
        for offset in start..<min(bytes.count, start + 1500) { bytes[offset] = UInt8(truncatingIfNeeded: offset &* 2_654_435_761 >> 13) }
        try bytes.write(to: URL(fileURLWithPath: path))
        let output = folder.appendingPathComponent("out.mkv").path, report = folder.appendingPathComponent("r.json").path
        let base = ["compose", manifest, "-o", output, "--size", "320x120", "--fps", "10", "--codec", "ffv1", "--progress", "none"]
        for flags in [["--strict"], ["--max-decode-errors", "0"]] {
            let run = try runFxreplay(base + flags)
            #expect(run.status == 3, "\(flags): \(run.stderr)")
            #expect(run.stderr.contains("stream quinn") && run.stderr.contains("q.webm"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        let run = try runFxreplay(base + ["--max-decode-errors", "1000", "--report", report])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as! [String: Any]
        let participants = json["participants"] as! [[String: Any]]
        #expect((participants[0]["decodeErrors"] as? Int ?? -1) == 0)
        #expect((participants[1]["decodeErrors"] as? Int ?? 0) > 0)
        #expect(run.stderr.contains("stream quinn (Quinn, q.webm)"), "\(run.stderr)")
    }
}
