import CFFmpeg
import Foundation

/// A decoded picture of a call's stream and the call time it plays at, with what its tile needs
/// to show it and to draw the stream's drawing effects on it (``TrackEffects``).
struct CallFrame: @unchecked Sendable {
    let frame: Frame
    /// How the picture is shown: turned and mirrored by its stream's display matrix (and a job's
    /// `mirror`), or upright already when the stream's ordered effects prepared it.
    let orientation: PictureOrientation
    /// When the picture is shown on its stream's clock: what its drawing effects are told.
    let time: FrameTime
    /// The shaped mask the stream's background replacement used for the picture (upright, the
    /// picture's size), when its drawing effects draw behind the person.
    let mask: Frame?
    let callTime: Double
    /// Counts up from 1 per track: tells a tile whether its picture changed.
    let serial: Int

    /// Hands the picture and its mask back to their pools.
    func recycle() {
        frame.recycle()
        mask?.recycle()
    }
}

/// One video track of a call decoded on its own thread into a short queue, so a call of many
/// streams is never held in memory whole: the thread runs at most `capacity` pictures ahead of
/// the composition, which takes them as their call times come (``advance(to:)``).
///
/// The file is opened only when decoding starts (``start()``, as the call reaches the track) and
/// closed when its pictures run out or the track stops: a call of thousands of back-to-back
/// tracks holds open only the decoders of the tracks playing at once.
///
/// Its pictures come from a ``FrameSource``, as `render`'s do: damage counted (the first named in
/// a warning), timestamps repaired, a cut-short end noted. A stream's effects that depend on the
/// frames before (a job's `streams:`: background replacement) run here, on this thread, at the
/// stream's size, before the picture is queued; those that only draw run on its tile (``TrackEffects``).
final class TrackFrames: @unchecked Sendable {
    let stream: CallStream
    let track: CallTrack
    /// How long before its start a track is opened and starts decoding, call seconds: its first
    /// pictures are ready when the call reaches it.
    static let openAhead = 0.5
    private let effectOptions: RenderOptions?
    private let threads: Int
    /// The track's effects, made on the decoding thread once the file is open; read after ``stop()``.
    private var effects: TrackEffects?
    private let queue: BoundedQueue<CallFrame>
    private let done = DispatchGroup()
    /// What went wrong on the thread that the composition must not survive (none for damage).
    private let failure = Locked<ReplayError?>(nil)
    /// The track's decoding (its ``FrameSource``'s): pictures, damage against the limit, a cut-short end.
    let counters: SourceCounters

    /// The picture shown now, and the one after it (already taken from the queue).
    private(set) var current: CallFrame?
    private var upcoming: CallFrame?
    private var exhausted = false
    private var started = false
    /// The media time (seconds, the file's clock) of the composition's first output frame, when
    /// decoding starts at the keyframe before it instead of the file's start (`compose --from`).
    private let seekTarget: Double?

    /// A track to decode with `threads` decoder threads (0 lets FFmpeg choose); nothing is opened
    /// until ``start()``.
    /// - Parameter from: the call time of the first picture wanted: decoding starts at the
    ///   keyframe at or before it. Not with effects, whose frame numbers count from the file's start.
    init(stream: CallStream, track: CallTrack, effects: RenderOptions?, threads: Int, from: Double = 0, capacity: Int = 3,
         maxDecodeErrors: Int? = nil) {
        self.stream = stream
        self.track = track
        // Past ``ComposeOptions/maxDecodeErrors`` the track fails, and the composition with it.
        counters = SourceCounters(limit: maxDecodeErrors, subject: "stream \(stream.id) (\(stream.name)): ")
        let target = track.mediaTime(ofCallTime: from)
        seekTarget = effects == nil && target > track.mediaStart ? target : nil
        effectOptions = effects
        self.threads = threads
        queue = BoundedQueue(capacity: capacity)
    }

    /// The counters of the track's own effects, per effect (read once decoding has stopped).
    var effectCounts: EffectCounts { effects?.counts ?? EffectCounts() }

    /// The stream's drawing effects, for its tile on the composing thread: read once a picture has
    /// come (they are made on the decoding thread before its first picture is queued).
    var drawingEffects: [any DrawingEffect] { effects?.drawing ?? [] }

    /// Opens the file and starts decoding on a thread of its own (a failure to open is thrown from
    /// ``advance(to:)``); nothing once stopped.
    func start() {
        guard !started, !exhausted else { return }
        started = true
        done.enter()
        JobThread.start(stackSize: 1 << 20) { [self] in
            do throws(ReplayError) { try decodeAll() } catch { failure.withLock { if $0 == nil { $0 = error } } }
            queue.close()
            done.leave()
        }
    }

    /// Stops decoding (the track has left the composition, or the composition ended) and waits
    /// for the thread; the pictures it held are released.
    func stop() {
        queue.cancel()
        if started { done.wait() }
        current?.recycle()
        upcoming?.recycle()
        current = nil
        upcoming = nil
        exhausted = true
    }

    /// Moves to the latest picture whose call time is at most `t` (within a microsecond, so a
    /// picture due exactly at `t` is not lost to rounding) and returns it; `nil` before the first.
    /// After the last picture the last is held.
    func advance(to t: Double) throws(ReplayError) -> CallFrame? {
        start()
        while !exhausted {
            if upcoming == nil {
                upcoming = queue.take()
                if upcoming == nil {
                    exhausted = true
                    if let error = failure.withLock({ $0 }) { throw error }
                    break
                }
            }
            guard let next = upcoming, next.callTime <= t + 1e-6 else { break }
            current?.recycle()
            current = next
            upcoming = nil
        }
        return current
    }

    // MARK: The decoding thread

    private func decodeAll() throws(ReplayError) {
        // Opened here, on the thread, and closed when it returns.
        var demuxer = try Demuxer(url: track.path.string)
        guard let video = demuxer.bestVideoStream else { throw .badInput("\(track.name) (stream \(stream.id)): no video stream") }
        let videoIndex = video.index, timeBase = video.timeBase
        demuxer.keepOnly(streams: [videoIndex])
        let decoder = try Decoder(demuxer: demuxer, stream: videoIndex, threads: threads)
        let opened = demuxer
        effects = try effectOptions.map { (options) throws(ReplayError) in try TrackEffects(options: options, demuxer: opened, video: video) }
        if let seekTarget, demuxer.seek(toSeconds: seekTarget) {
            // Only a keyframe at or before the target is a good start; past it, the pictures
            // before the target would be missing, so decode from the file's start after all.
            let packet = try Packet()
            var first: Int64?
            while first == nil, (try? demuxer.read(into: packet)) == true {
                if packet.streamIndex == videoIndex { first = packet.pts != noPTS ? packet.pts : packet.dts }
                packet.unref()
            }
            if first.map({ timeBase.seconds($0) <= seekTarget + 1e-6 }) == true {
                demuxer.seek(toSeconds: seekTarget)
            } else {
                demuxer = try Demuxer(url: track.path.string)
            }
        }
        let source = try FrameSource(demuxer: demuxer, stream: video, decoder: decoder, repairs: true, counters: counters, readErrorEndsStream: true)
        var firstPTS: Int64?
        var serial = 0
        let orientation = effects?.orientation ?? track.orientation
        while let frame = try source.next() {
            let first = firstPTS ?? frame.pts
            firstPTS = first
            let time = FrameTime(index: serial, pts: frame.pts, seconds: timeBase.seconds(frame.pts - first),
                                 streamSeconds: timeBase.seconds(frame.pts), duration: timeBase.seconds(frame.duration))
            let (shown, mask) = try effects?.apply(to: frame, at: time, source: "\(track.name) (stream \(stream.id))") ?? (frame, nil)
            serial += 1
            let callTime = track.callTime(ofMediaTime: timeBase.seconds(shown.pts))
            let picture = CallFrame(frame: shown, orientation: orientation, time: time, mask: mask, callTime: callTime, serial: serial)
            guard queue.put(picture) else {
                picture.recycle()
                return
            }
        }
        // Counted as damage by the composition's report; here only against the limit.
        try counters.countCutShort(of: track.path.string)
    }
}
