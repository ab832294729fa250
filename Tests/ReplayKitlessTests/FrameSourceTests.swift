import Foundation
import FxTestSupport
import Testing
@testable import ReplayKitless

/// The one source stage (``FrameSource``) on clips made by the ffmpeg CLI: every picture in
/// presentation order at its time, with its duration, and damage counted with its time.
@Suite struct FrameSourceTests {
    /// A repairing source and every frame it gives: (pts, duration), in its time base.
    static func read(_ path: String, repairs: Bool, limit: Int? = nil) throws -> (times: [(Int64, Int64)], source: FrameSource) {
        let demuxer = try Demuxer(url: path)
        let video = try #require(demuxer.bestVideoStream)
        let source = try FrameSource(demuxer: demuxer, stream: video, decoder: try Decoder(demuxer: demuxer, stream: video.index),
                                 repairs: repairs, counters: SourceCounters(limit: limit), readErrorEndsStream: true)
        var times: [(Int64, Int64)] = []
        while let frame = try source.next() {
            times.append((frame.pts, frame.duration))
            frame.recycle()
        }
        return (times, source)
    }

    /// `frames` pictures of 25 fps H.264 made by the ffmpeg CLI into `folder/name`.
    static func h264Clip(_ name: String, in folder: String, frames: Int, bFrames: Int, format: [String] = []) throws -> String {
        let path = folder + "/" + name
        try runFFmpegCLI(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-frames:v", "\(frames)", "-c:v", "libx264",
                          "-bf", "\(bFrames)", "-g", "12", "-preset", "veryfast", "-pix_fmt", "yuv420p"] + format + [path])
        return path
    }

    /// H.264 with B-frames (decoded out of order) at 25 fps in MP4, whose time base is 1/12800:
    /// frame i at i × 512 ticks, each shown 512 ticks, the last until the stream's declared end.
    @Test func givesEveryFrameInOrderWithItsTimeAndDuration() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.h264Clip("b-frames.mp4", in: folder, frames: 30, bFrames: 2)
        let (times, source) = try Self.read(path, repairs: true)
        #expect(source.stream.timeBase.seconds(1) == 1.0 / 12800)
        #expect(times.map(\.0) == (0..<30).map { Int64($0) * 512 }, "\(times)")
        #expect(times.allSatisfy { $0.1 == 512 }, "\(times)")
        let counts = source.counters.counts
        #expect(counts.decoded == 30 && counts.damage.isEmpty && counts.badTimestamps == 0 && counts.cutShort == nil)
        // Without repair the same pictures come, at the decoder's own times.
        #expect(try Self.read(path, repairs: false).times.map(\.0) == times.map(\.0))
    }

    /// A raw H.264 stream has no timestamps: repaired, frame i comes at i frames of its 25 fps
    /// (48000 ticks of its 1/1200000 time base), in order, none dropped.
    @Test func timesUntimedPicturesByTheStreamsRate() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.h264Clip("raw.h264", in: folder, frames: 20, bFrames: 0, format: ["-f", "h264"])
        let (times, source) = try Self.read(path, repairs: true)
        #expect(source.stream.timeBase.seconds(1) == 1.0 / 1_200_000)
        #expect(times.map(\.0) == (0..<20).map { Int64($0) * 48000 }, "\(times)")
        #expect(source.counters.counts.decoded == 20 && source.counters.counts.badTimestamps == 0)
    }

    /// A WebM with a stretch of several packets overwritten mid-file (so it hits block headers, which
    /// the demuxer resyncs past, not only a payload a decoder may take without complaint): the lost pictures are missing, the damage is
    /// counted on stream 0 at a time around the stretch, and a limit of 0 stops the reading there.
    @Test func countsADamagedStretchWithItsTimeAndStopsPastTheLimit() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clean = folder + "/clean.webm", damaged = folder + "/damaged.webm"
        try runFFmpegCLI(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libvpx", "-b:v", "300k", "-g", "25", clean])
        // The packets' times and byte ranges, as ffprobe reads the clean file.
        let packets = try CallMediaFiles.ffprobe("packet=pts_time,size,pos", clean, streams: "v:0").filter { $0.count == 3 }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: clean))
        let start = bytes.count / 2, end = start + 8000
        var generator = UInt64(0x9E37_79B9_7F4A_7C15)
        for offset in start..<end {
            generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[offset] = UInt8(truncatingIfNeeded: generator >> 56)
        }
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let hit = packets.filter { Int($0[2]) < end && Int($0[2]) + Int($0[1]) > start }.map { $0[0] }
        try #require(hit.count > 1, "\(packets.count) packets, none in \(start)..<\(end)")

        let (times, source) = try Self.read(damaged, repairs: true)
        #expect(times.count < packets.count, "\(times.count) of \(packets.count)")
        #expect(zip(times, times.dropFirst()).allSatisfy { $0.0 < $1.0 })
        let damage = source.counters.counts.damage
        let first = hit.min()! - 0.041, last = hit.max()! + 0.041
        #expect(damage.contains { $0.stream == 0 && ($0.seconds ?? .infinity) <= last && ($0.endSeconds ?? $0.seconds ?? -1) >= first },
                "\(hit) not in \(damage)")
        #expect(damage.allSatisfy { $0.message.hasPrefix(damaged) })

        let stopped = replayError { _ = try Self.read(damaged, repairs: true, limit: 0) }
        #expect(stopped?.kind == .badInput && stopped?.message.contains("stopping (`maxDecodeErrors` 0)") == true,
                "\(String(describing: stopped))")
    }
}
