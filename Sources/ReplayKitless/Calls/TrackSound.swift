import CFFmpeg

/// One track's sound on the call's 48 kHz sample clock (formats.md §9): decoded only as far as
/// the mix has asked, resampled, each run of samples placed by its timestamp through
/// ``CallTrack/callTime(ofMediaTime:)``, and silent from the track's stop on.
///
/// Decoded frames follow each other sample by sample; only a jump in the timestamps of more than
/// ``gapTolerance`` (a recorder that dropped packets, or discontinuous transmission) re-places
/// the next frame by its own timestamp, so a stream's small timestamp jitter does not chop its
/// sound while a real gap stays silent.
final class TrackSound {
    let track: CallTrack
    /// The stream the track belongs to, for messages.
    let streamID: String
    /// Packets the decoder refused (damaged media, a file cut short), concealed as silence.
    var damagedPackets: Int { frames.counters.counts.decodeErrors }

    static let gapTolerance = 0.020

    private let rate: Int
    private let frames: FrameSource
    private var decoder: Decoder { frames.decoder }
    /// The frame being placed (from ``FrameSource/next()``), recycled when the next is decoded.
    private var frame: Frame
    private var resampler: Resampler?
    private let samples = PositionedSamples()
    /// First call sample not heard: the track's stop.
    private let stopSample: Int64
    /// Call time (seconds) where the next decoded frame would start if it follows on.
    private var expectedNext: Double?
    /// `frame` holds a decoded frame that starts after a gap, beyond the last window asked for.
    private var holding = false
    private var exhausted = false

    /// Where the second frame starts and the length of a frame (media seconds), until the first
    /// frame after a seek is placed.
    private var snapGrid: (origin: Double, step: Double)?

    /// Opens the track's first audio stream; with `position` (a call sample) well into the
    /// media, seeks close before it instead of decoding everything before.
    init(track: CallTrack, streamID: String, rate: Int, position: Int64) throws(ReplayError) {
        frame = try Frame()
        self.track = track
        self.streamID = streamID
        self.rate = rate
        stopSample = Int64((track.stop * Double(rate)).rounded())
        let demuxer = try Demuxer(url: track.opened)
        guard let audio = demuxer.streams.first(where: { $0.kind == .audio }) else {
            throw .badInput("\(track.opened): stream \(streamID): no audio stream")
        }
        frames = try FrameSource(demuxer: demuxer, stream: audio, decoder: try Decoder(demuxer: demuxer, stream: audio.index, threads: 1),
                             repairs: false, readErrorEndsStream: true)
        let mediaTime = track.mediaTime(ofCallTime: Double(position) / Double(rate))
        if mediaTime - track.mediaStart > Self.seekDistance { seek(to: mediaTime) }
        samples.restart(at: position)
    }

    /// How far into a track the mix must start before it seeks rather than decoding from the start.
    static let seekDistance = 10.0

    /// Moves close before `mediaTime` (half a second of pre-roll settles the decoder; Opus needs
    /// 80 ms). Matroska keeps timestamps in whole milliseconds, so the frame the mix restarts at
    /// may be up to a millisecond off where decoding from the start would put it: its time is
    /// snapped to the grid of whole frames that the first two frames give (``snapGrid``), which
    /// is where continuous decoding puts it, so the sound does not depend on where a mix starts.
    private func seek(to mediaTime: Double) {
        if (try? decodeFrame()) == true, frame.pts != noPTS {
            let first = decoder.timeBase.seconds(frame.pts) + duration(of: frame)
            if (try? decodeFrame()) == true { snapGrid = (first, duration(of: frame)) }
        }
        frames.seek(toSeconds: mediaTime - 0.5)
    }

    private func duration(of frame: Frame) -> Double {
        Double(frame.pointer.pointee.nb_samples) / Double(max(1, frame.pointer.pointee.sample_rate))
    }

    /// Whether nothing more will be heard from call sample `position` on.
    func isFinished(at position: Int64) -> Bool { position >= stopSample || (exhausted && samples.end <= position) }

    /// Adds the track's sound for call samples `position..<position + count` into the two planes.
    func mix(into left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, at position: Int64, count: Int) throws(ReplayError) {
        let windowEnd = position + Int64(count)
        let needed = min(windowEnd, stopSample)
        while samples.end < needed && !exhausted {
            if !holding {
                guard try decodeFrame() else {
                    try flushResampler()
                    exhausted = true
                    break
                }
            }
            // After a gap, a frame that starts beyond this window waits for a later one, so the
            // silence between is never held as samples.
            if let start = startOfGap(), start >= windowEnd {
                holding = true
                break
            }
            holding = false
            try place()
            samples.drop(before: position)
        }
        samples.add(into: left, right, at: position, count: count, limit: stopSample)
        samples.drop(before: windowEnd)
    }

    /// The call sample at which `frame` is to be placed when it does not follow on (a timestamp
    /// gap, a first frame, a format change); `nil` when it follows on.
    private func startOfGap() -> Int64? {
        let time = frameCallTime()
        guard let resampler, resampler.accepts(frame), let expectedNext else { return anchor(time) }
        guard let time, time - expectedNext > Self.gapTolerance else { return nil }
        return anchor(time)
    }

    private func anchor(_ time: Double?) -> Int64 {
        time.map { Int64(($0 * Double(rate)).rounded()) } ?? samples.end
    }

    private func frameCallTime() -> Double? {
        guard frame.pts != noPTS else { return nil }
        var time = decoder.timeBase.seconds(frame.pts)
        if let (origin, step) = snapGrid, step > 0 {
            let snapped = origin + ((time - origin) / step).rounded() * step
            if abs(snapped - time) <= 0.001 { time = snapped }
        }
        return track.callTime(ofMediaTime: time)
    }

    /// Resamples `frame` onto the end of the held samples (re-placing it after a gap).
    private func place() throws(ReplayError) {
        if let start = startOfGap() {
            try flushResampler()
            if samples.count == 0 {
                samples.restart(at: start)
            } else {
                samples.padSilence(upTo: start)
            }
            resampler = try Resampler(like: frame, outputRate: rate, outputChannels: min(2, Int(fx_frame_channels(frame.pointer))),
                                      source: track.opened)
            expectedNext = Double(start) / Double(rate)
            snapGrid = nil
        }
        guard let resampler, let next = expectedNext else { return }
        let inputSamples = Int(frame.pointer.pointee.nb_samples)
        expectedNext = next + Double(inputSamples) / Double(frame.pointer.pointee.sample_rate)
        let room = resampler.outputBound(forInput: inputSamples)
        let written = try resampler.convert(frame, into: samples.reserve(room), capacity: room)
        samples.commit(written, mono: resampler.outputChannels == 1)
    }

    /// Writes what the resampler still holds, then forgets it (the next frame starts a new run).
    private func flushResampler() throws(ReplayError) {
        guard let resampler else { return }
        let room = resampler.outputBound(forInput: 0) + 64
        let written = try resampler.flush(into: samples.reserve(room), capacity: room)
        samples.commit(written, mono: resampler.outputChannels == 1)
        self.resampler = nil
        expectedNext = nil
    }

    /// Decodes the next frame into `frame`; `false` at the end.
    private func decodeFrame() throws(ReplayError) -> Bool {
        guard let next = try frames.next() else { return false }
        frame.recycle()
        frame = next
        return true
    }
}
