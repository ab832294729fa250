/// The sound of a whole call (formats.md §9): every stream's audio at unity gain, each placed at
/// its call time, resampled to 48 kHz, summed and clipped to full scale, in stereo (a mono source
/// plays on both sides). Output sample `n` is call time `from + n / 48000`.
///
/// Streaming: a track's decoder is opened when the mix reaches the track's start and closed at
/// its stop or the end of its media; each holds about one read's worth of samples, so memory
/// does not grow with the call. Read it front to back:
///
///     let mix = try CallAudioMix(call: call, from: 10, to: 70)
///     while try mix.read(frames: 1024, left: l, right: r) > 0 { … }
package final class CallAudioMix {
    package static let sampleRate = 48000

    package let call: Call
    package let from: Double
    package let to: Double
    /// Samples (per channel) the whole mix has: `(to − from) × 48000`, rounded.
    package let frameCount: Int64
    /// Samples read so far.
    package private(set) var position: Int64 = 0

    /// The call sample of output sample 0.
    private let origin: Int64
    /// Audio tracks not yet started, latest start first (popped from the end).
    private var waiting: [(track: CallTrack, stream: String)]
    private var playing: [TrackSound] = []
    private var damage: [String: Int] = [:]

    /// - Parameters:
    ///   - from: call time of the first sample, seconds.
    ///   - to: call time where the mix ends; `nil`: the call's latest stop.
    package init(call: Call, from: Double = 0, to: Double? = nil) throws(ReplayError) {
        let end = to ?? call.duration
        guard from >= 0, end >= from else { throw .usage("\(call.source): the sound from \(from) s to \(end) s is empty") }
        self.call = call
        self.from = from
        self.to = end
        let rate = Double(Self.sampleRate)
        origin = Int64((from * rate).rounded())
        frameCount = Int64((end * rate).rounded()) - origin
        waiting = call.streams.flatMap { stream in stream.tracks.filter(\.hasAudio).map { (track: $0, stream: stream.id) } }
            .filter { $0.track.stop > from && $0.track.start < end }
            .sorted { $0.track.start > $1.track.start }
    }

    /// Packets of damaged media skipped (heard as silence), by stream id; empty when all was clean.
    package var damagedPackets: [String: Int] {
        playing.reduce(into: damage) { $0[$1.streamID, default: 0] += $1.damagedPackets }.filter { $0.value > 0 }
    }

    /// Writes the next `frames` samples (fewer at the end) into `left` and `right`; returns how
    /// many, 0 once the mix is over.
    package func read(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) throws(ReplayError) -> Int {
        let count = Int(min(Int64(max(0, frames)), frameCount - position))
        guard count > 0 else { return 0 }
        left.update(repeating: 0, count: count)
        right.update(repeating: 0, count: count)
        let start = origin + position, end = start + Int64(count)
        while let next = waiting.last, Int64((next.track.start * Double(Self.sampleRate)).rounded(.down)) < end {
            waiting.removeLast()
            playing.append(try TrackSound(track: next.track, streamID: next.stream, rate: Self.sampleRate, position: start))
        }
        for sound in playing { try sound.mix(into: left, right, at: start, count: count) }
        for sound in playing where sound.isFinished(at: end) { damage[sound.streamID, default: 0] += sound.damagedPackets }
        playing.removeAll { $0.isFinished(at: end) }
        for i in 0..<count {
            left[i] = min(1, max(-1, left[i]))
            right[i] = min(1, max(-1, right[i]))
        }
        position += Int64(count)
        return count
    }

    /// The next `frames` samples as arrays (tests, small reads).
    package func read(frames: Int) throws(ReplayError) -> (left: [Float], right: [Float]) {
        guard frames > 0 else { return ([], []) }
        var left = [Float](repeating: 0, count: frames), right = left
        let n = try left.withUnsafeMutableBufferPointer { (l) throws(ReplayError) in
            try right.withUnsafeMutableBufferPointer { (r) throws(ReplayError) in
                try read(frames: frames, left: l.baseAddress!, right: r.baseAddress!)
            }
        }
        return (Array(left[0..<n]), Array(right[0..<n]))
    }
}
