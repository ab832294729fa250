/// The people a composition shows: streams grouped into one tile per participant.
///
/// A participant who reconnected published a new stream under the same name (an archive), or
/// has several video tracks (a call manifest): such streams, whose active intervals do not
/// overlap, are one participant and keep one tile.
package struct CallParticipant: Sendable {
    /// The streams, by start.
    package var streams: [CallStream]
    package var name: String { streams[0].name }
    /// What `--focus` and layout files may call it: its streams' ids and its name.
    package var keys: [String] { streams.map(\.id) + [name] }
    package var start: Double { streams[0].start }
    package var order: Int { streams.map(\.order).min() ?? 0 }
    /// Its video tracks by start, each with the stream it belongs to.
    package var videoTracks: [(stream: CallStream, track: CallTrack)] {
        streams.flatMap { stream in stream.tracks.filter(\.hasVideo).map { (stream, $0) } }.sorted { $0.track.start < $1.track.start }
    }
    /// Its picture's size as shown at call time `t` (of the latest video track started by then,
    /// else its first), as its file's header gives it; `nil` when unknown.
    package func shownSize(at t: Double) -> PictureSize? {
        let tracks = videoTracks.map(\.track)
        return (tracks.last { $0.start <= t } ?? tracks.first)?.shownSize
    }
    /// Shown at call time `t`: one of its streams is active and has video.
    package func isShown(at t: Double) -> Bool { streams.contains { $0.hasVideo && $0.isActive(at: t) } }

    /// The call's participants with video, in grid order (start, then manifest order).
    package static func withVideo(in call: Call) -> [CallParticipant] {
        var groups: [[CallStream]] = []
        for stream in call.streams.filter(\.hasVideo).sorted(by: { ($0.start, $0.order) < ($1.start, $1.order) }) {
            if let index = groups.firstIndex(where: { group in
                group[0].name == stream.name && group.allSatisfy { $0.stop <= stream.start || stream.stop <= $0.start }
            }) {
                groups[index].append(stream)
            } else {
                groups.append([stream])
            }
        }
        return groups.map { CallParticipant(streams: $0) }
    }
}

extension Call {
    /// The stream the focus and pip layouts show large when not told which: the first stream of the
    /// first participant with video, in grid order; `nil` when no stream has video.
    public var defaultFocus: String? { CallParticipant.withVideo(in: self).first?.streams[0].id }
}
