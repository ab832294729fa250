import CFFmpeg
import Foundation

/// Where a media file's presentation times begin and end, and what it carries: what the timeline
/// of formats.md §9 needs from each file of a call.
struct CallMedia: Sendable, Equatable {
    /// libavformat's `start_time` of the file: the earliest presentation time over all its
    /// streams, seconds (an Opus or AAC stream's priming counts).
    var start: Double
    /// The end of the last packet (its presentation time plus its duration), seconds on the file's clock.
    var end: Double
    var hasVideo: Bool
    var hasAudio: Bool
    /// The video's display matrix (degrees clockwise, mirroring) and its picture size as shown.
    var rotation = 0
    var mirrored = false
    var shownSize: PictureSize?

    /// Opens `path` and reads its packets (no decoding) to find where its media ends: live
    /// recordings (WebM from a browser or a media server) often declare no duration, and one cut
    /// short declares more than it holds. A read error ends the scan: what was read is the media.
    /// - Throws: `ReplayError.badInput` when the file cannot be opened as media or holds neither
    ///   audio nor video.
    init(path: String) throws(ReplayError) {
        let demuxer = try Demuxer(url: path)
        hasVideo = demuxer.streams.contains { $0.kind == .video }
        hasAudio = demuxer.streams.contains { $0.kind == .audio }
        guard hasVideo || hasAudio else { throw .badInput("\(path): holds neither audio nor video") }
        if let video = demuxer.bestVideoStream, video.width > 0, video.height > 0 {
            (rotation, mirrored) = (video.rotation, video.mirrored)
            // The container's pixel shape, else the bitstream's (as render reads it).
            let stream = demuxer.stream(video.index).pointee
            let sar = stream.sample_aspect_ratio.num > 0 ? stream.sample_aspect_ratio : stream.codecpar.pointee.sample_aspect_ratio
            let width = sar.num > 0 && sar.den > 0 ? max(1, Int((Double(video.width) * Double(sar.num) / Double(sar.den)).rounded())) : video.width
            shownSize = PictureOrientation(rotation: rotation, mirrored: mirrored).turned(PictureSize(width: width, height: video.height))
        }
        let wanted = Set(demuxer.streams.filter { $0.kind == .video || $0.kind == .audio }.map(\.index))
        demuxer.keepOnly(streams: wanted)
        let streamStarts = demuxer.streams.filter { wanted.contains($0.index) }.compactMap { s in s.startTime.map { s.timeBase.seconds($0) } }
        var latest = -Double.infinity
        var earliest = Double.infinity
        let packet = try Packet()
        while (try? demuxer.read(into: packet)) == true {
            defer { packet.unref() }
            guard wanted.contains(packet.streamIndex) else { continue }
            let time = packet.pts != noPTS ? packet.pts : packet.dts
            guard time != noPTS else { continue }
            let timeBase = demuxer.streams[packet.streamIndex].timeBase
            earliest = min(earliest, timeBase.seconds(time))
            latest = max(latest, timeBase.seconds(time + max(packet.duration, 0)))
        }
        start = demuxer.startSeconds ?? streamStarts.min() ?? (earliest.isFinite ? earliest : 0)
        if latest.isFinite {
            end = max(latest, start)
        } else {
            end = start + (demuxer.durationSeconds ?? 0)
        }
    }

    init(start: Double, end: Double, hasVideo: Bool, hasAudio: Bool) {
        self.start = start
        self.end = end
        self.hasVideo = hasVideo
        self.hasAudio = hasAudio
    }
}
