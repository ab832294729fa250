/// A recorded call: every published stream's media files placed on the call's clock (formats.md §9).
///
/// Built by ``OpenedCall`` from an individual-stream archive (its ZIP, folder or manifest) or a
/// call manifest; the media files have been probed, so each track knows where its media starts
/// and ends, and every later stage (probe, render of one stream, compose) reads times from here
/// instead of working them out again.
public struct Call: Sendable {
    /// What the user named: the ZIP, folder or manifest.
    public var source: FilePath
    /// The manifest the streams were read from, for messages: its path, or for a ZIP the member
    /// after the archive's path (`call.zip/manifest.json`, no file on disk), hence a `String`.
    public var manifest: String
    /// Unix time in seconds of call time 0 (`createdAt / 1000`, or the call manifest's `epoch`);
    /// `nil` when the manifest gives none.
    public var epoch: Double?
    /// The streams in manifest order.
    public var streams: [CallStream]

    /// A call of `streams`; ``OpenedCall`` builds one from an archive or manifest with every track probed.
    public init(source: FilePath, manifest: String, epoch: Double?, streams: [CallStream]) {
        self.source = source
        self.manifest = manifest
        self.epoch = epoch
        self.streams = streams
    }

    /// The latest stop of any stream: the default end of a composition.
    public var duration: Double { streams.map(\.stop).max() ?? 0 }

    /// The stream whose id is `key`, else the one whose name is (names need not be unique: a
    /// name shared by several streams is refused as ambiguous).
    public func stream(_ key: String) throws(ReplayError) -> CallStream {
        if let byID = streams.first(where: { $0.id == key }) { return byID }
        let named = streams.filter { $0.name == key }
        if named.count == 1 { return named[0] }
        let known = streams.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
        if named.isEmpty { throw .usage("\(source): no stream '\(key)'; the call has \(known)") }
        throw .usage("\(source): \(named.count) streams are named '\(key)'; name one by id: \(named.map(\.id).joined(separator: ", "))")
    }
}

/// One published stream (an archive's file entry) or one participant (a call manifest's), with
/// the media files that carry its picture and sound.
public struct CallStream: Sendable {
    /// `streamId`, or the participant's `id`.
    public var id: String
    /// The name people know it by (formats.md §9: from `connectionData`, or the participant's `name`).
    public var name: String
    /// The archive's `videoType` (`camera`, `screen`), when given.
    public var videoType: String?
    /// Position in the manifest: breaks ties between streams that start together.
    public var order: Int
    /// Its media files, in manifest order.
    public var tracks: [CallTrack]

    /// A stream of `tracks`; `order` is its position in the manifest.
    public init(id: String, name: String, videoType: String?, order: Int, tracks: [CallTrack]) {
        self.id = id
        self.name = name
        self.videoType = videoType
        self.order = order
        self.tracks = tracks
    }

    /// Call time at which the stream becomes active: its earliest track's start.
    public var start: Double { tracks.map(\.start).min() ?? 0 }
    /// Call time at which it stops being active: its latest track's stop.
    public var stop: Double { tracks.map(\.stop).max() ?? 0 }
    /// Whether any of its files has a video stream.
    public var hasVideo: Bool { tracks.contains { $0.hasVideo } }
    /// Whether any of its files has an audio stream.
    public var hasAudio: Bool { tracks.contains { $0.hasAudio } }
    /// Whether the stream is active at call time `t` (from its start, up to but not at its stop).
    public func isActive(at t: Double) -> Bool { tracks.contains { $0.start <= t && t < $0.stop } }
}

/// One media file on the call's clock.
public struct CallTrack: Sendable {
    /// Where the file is on disk (inside the private folder for a ZIP).
    public var path: FilePath
    /// The file as the manifest names it, for messages.
    public var name: String
    /// Call time, seconds, at which the file's earliest presentation time plays.
    public var start: Double
    /// Call time, seconds, at which the stream stops being active: the manifest's stop
    /// (`stopTimeOffset`, `end`), else the end of its media.
    public var stop: Double
    /// The file's earliest presentation time over all its streams, seconds on the file's own
    /// clock (libavformat's `start_time`, which counts an Opus or AAC stream's priming).
    public var mediaStart: Double
    /// Where the file's media ends, seconds on its own clock.
    public var mediaEnd: Double
    /// Whether the file has a video stream.
    public var hasVideo: Bool
    /// Whether the file has an audio stream.
    public var hasAudio: Bool
    /// How the container says to show the video (its display matrix, as `probe` reports it):
    /// turned `rotation` degrees clockwise, then mirrored when `mirrored`. A phone's portrait
    /// recording is stored sideways with a quarter turn.
    public var rotation: Int
    /// Whether the display matrix mirrors the picture.
    public var mirrored: Bool
    /// The video's picture size as shown (turned, its pixels made square), from its first
    /// stream header; `nil` without video.
    public var shownSize: PictureSize?
    /// What the demuxer opens: `path`, or the URL a render's input was given as (its sound goes
    /// through a call of one track), which `FilePath` cannot hold.
    package var opened: String

    /// A track placed on the call's clock; times in seconds as the properties say.
    public init(path: FilePath, name: String, start: Double, stop: Double, mediaStart: Double, mediaEnd: Double,
                hasVideo: Bool, hasAudio: Bool, rotation: Int = 0, mirrored: Bool = false, shownSize: PictureSize? = nil) {
        self.path = path
        self.name = name
        self.start = start
        self.stop = stop
        self.mediaStart = mediaStart
        self.mediaEnd = mediaEnd
        self.hasVideo = hasVideo
        self.hasAudio = hasAudio
        self.rotation = rotation
        self.mirrored = mirrored
        self.shownSize = shownSize
        opened = path.string
    }

    /// How the video's stored pictures are turned to be shown.
    package var orientation: PictureOrientation { PictureOrientation(rotation: rotation, mirrored: mirrored) }

    /// The call time at which a sample with presentation time `p` (seconds, the file's clock) plays:
    /// `start + (p − p0)`, so the file's own audio/video offset is kept.
    public func callTime(ofMediaTime p: Double) -> Double { start + (p - mediaStart) }

    /// The presentation time in the file (seconds, its clock) that plays at call time `t`.
    public func mediaTime(ofCallTime t: Double) -> Double { mediaStart + (t - start) }
}
