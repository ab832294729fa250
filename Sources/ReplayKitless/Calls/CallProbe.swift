import Foundation

/// What `fxreplay probe CALL` tells about a call: its streams on the call's clock and each file
/// as `probe FILE` describes it.
public struct CallProbeResult: Sendable, Codable, Equatable {
    /// One file of a stream (formats.md §9): where it plays on the call's clock and what it holds.
    public struct Track: Sendable, Codable, Equatable {
        /// The file as the manifest names it.
        public var file: String
        /// Call times, seconds: where its earliest presentation time plays, and where it stops.
        public var start: Double
        /// Call time, seconds, at which it stops playing.
        public var stop: Double
        /// `stop − start`, seconds.
        public var duration: Double
        /// The file's own clock, seconds: its earliest presentation time (`start_time`) and its end.
        public var mediaStart: Double
        /// The end of its last frame or sample, seconds on the file's own clock.
        public var mediaEnd: Double
        /// Whether the file has a video stream.
        public var hasVideo: Bool
        /// Whether the file has an audio stream.
        public var hasAudio: Bool
        /// The file as `probe FILE` describes it (its `path` is the manifest's name for it).
        public var media: ProbeResult
    }

    /// One participant's stream of the call (a camera, a screen share), made of one or more files.
    public struct Stream: Sendable, Codable, Equatable {
        /// The manifest's id of the stream.
        public var id: String
        /// The participant's display name, as the manifest gives it.
        public var name: String
        /// The manifest's video type (`camera`, `screen`, …); `nil` when it gives none.
        public var videoType: String?
        /// Call times, seconds, at which it becomes active and stops.
        public var start: Double
        /// Call time, seconds, at which it stops.
        public var stop: Double
        /// Whether any of its files has video.
        public var hasVideo: Bool
        /// Whether any of its files has audio.
        public var hasAudio: Bool
        /// Its files, in the order they play.
        public var tracks: [Track]
    }

    /// What the user named.
    @PathCoded public var source: FilePath
    /// The manifest read: the call's `call.json`, or the member of a zip after its path (``Call/manifest``).
    public var manifest: String
    /// Unix time of call time 0, seconds, when the manifest gives it.
    public var epoch: Double?
    /// The latest stop, seconds.
    public var duration: Double
    /// Every stream of the call, in the manifest's order.
    public var streams: [Stream]

    /// Probes every file of `call`.
    public init(call: Call) throws(ReplayError) {
        source = call.source
        manifest = call.manifest
        epoch = call.epoch
        duration = call.duration
        streams = []
        for stream in call.streams {
            var tracks: [Track] = []
            for track in stream.tracks {
                var media = try MediaProbe.probe(track.path.string)
                media.path = track.name
                tracks.append(Track(file: track.name, start: track.start, stop: track.stop, duration: track.stop - track.start,
                                    mediaStart: track.mediaStart, mediaEnd: track.mediaEnd, hasVideo: track.hasVideo,
                                    hasAudio: track.hasAudio, media: media))
            }
            streams.append(Stream(id: stream.id, name: stream.name, videoType: stream.videoType, start: stream.start, stop: stream.stop,
                                  hasVideo: stream.hasVideo, hasAudio: stream.hasAudio, tracks: tracks))
        }
    }
}
