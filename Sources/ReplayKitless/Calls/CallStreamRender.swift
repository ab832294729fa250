import Foundation

/// The clocks `--pose-time` offers for one stream of a call (formats.md §9).
public enum CallPoseClock: String, Sendable, CaseIterable {
    /// Sidecar and scene times are call times.
    case call
    /// They are Unix times in seconds (the app's wall clock).
    case epoch
}

extension Call {
    /// The stream `key` (id or name) and the file `render CALL --stream KEY` renders: the one
    /// carrying its picture. (A call manifest's participant may keep its sound in another file:
    /// `render` renders one file, as `render FILE` does; `compose` mixes the rest.)
    /// - Throws: `ReplayError.usage` for an unknown or ambiguous key, a stream without a picture, or
    ///   one whose picture is split over several files.
    public func renderedTrack(ofStream key: String) throws(ReplayError) -> (stream: CallStream, track: CallTrack) {
        let stream = try self.stream(key)
        let pictures = stream.tracks.filter(\.hasVideo)
        guard let track = pictures.first else {
            throw .usage("\(source): stream \(stream.id) (\(stream.name)) has no video; render needs a picture (compose mixes its sound)")
        }
        guard pictures.count == 1 else {
            throw .usage("\(source): stream \(stream.id) (\(stream.name)) has its picture in \(pictures.count) files (\(pictures.map(\.name).joined(separator: ", "))); render one of them as a file")
        }
        return (stream, track)
    }

    /// Refuses `render CALL --stream` of `track` when the part rendered (its media, from `from` to
    /// `to`, seconds after its first frame as render's trim counts them) lasts more than
    /// ``InputLimits/callSeconds`` and `allowLongCall` is not given: bad input naming the call, the
    /// file and the length.
    public func checkRenderedLength(of track: CallTrack, from: Double?, to: Double?, allowLongCall: Bool) throws(ReplayError) {
        let media = track.mediaEnd - track.mediaStart
        let length = min(media, to ?? media) - (from ?? 0)
        guard length <= InputLimits.callSeconds || allowLongCall else {
            throw .badInput(file: source.string, "\(track.name) lasts \(ComposeOptions.seconds(media)); rendering \(ComposeOptions.seconds(length)) of it "
                            + "is more than the \(ComposeOptions.seconds(InputLimits.callSeconds)) fxreplay renders of a call without "
                            + "`allowLongCall` (see docs/limits.md); give `RenderOptions.from`/`RenderOptions.to`, or `allowLongCall`",
                            options: ["allowLongCall", "RenderOptions.from", "RenderOptions.to"])
        }
    }

    /// What to add to a pose or scene time on `clock` to get `track`'s own presentation time:
    /// `p = mediaStart + (t − start)` with `t` the call time, and `t = unix − epoch` (formats.md §9).
    /// - Throws: `ReplayError.usage` for `epoch` when the call has no epoch.
    public func poseClockOffset(_ clock: CallPoseClock, track: CallTrack) throws(ReplayError) -> Double {
        let callToMedia = track.mediaStart - track.start
        switch clock {
        case .call:
            return callToMedia
        case .epoch:
            guard let epoch else {
                throw .usage("\(manifest): the call has no epoch (an archive's createdAt, a call manifest's epoch), so `CallPoseClock.epoch` cannot place Unix times; "
                             + "use `CallPoseClock.call`", options: ["CallPoseClock.epoch", "CallPoseClock.call"])
            }
            return callToMedia - epoch
        }
    }
}
