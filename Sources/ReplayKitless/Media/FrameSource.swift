import CFFmpeg

/// The decoded frames of one stream in order: the library's one demux → send/receive → drain
/// loop, behind `render`, every track of `compose`, the readers of pictures (``VideoFrameReader``:
/// framehash, compare, track, poses, masks, backgrounds) and a call's sound.
///
/// Besides decoding, in this one place:
/// - damage: packets and pictures the decoder rejects are skipped and counted (``counters``); a
///   repairing source (render, compose) also counts pictures the decoder concealed damage in and
///   data the demuxer skipped (a resync past overwritten bytes), each with its stream and time,
///   says the first at once and fails past the counters' limit (`--max-decode-errors`, `--strict`);
/// - size: a picture larger than fxreplay reads fails (``Decoder/checkSize(of:)``), never skipped;
/// - timestamps, when repairing: a picture without one follows the one before (``UntimedFrames``),
///   one whose time does not increase is dropped, and each is given the gap to the next as its
///   duration (the last, ``LastFrameDuration``), so one picture is held back until the next comes;
/// - the end, when repairing: a stream whose pictures end well before its file says is noted cut
///   short (``SourceCounters/Counts/cutShort``).
///
/// Readers that report the decoder's own times (framehash matches `ffmpeg`'s) do not repair.
final class FrameSource {
    /// The open file, read only through this source once it runs.
    let demuxer: Demuxer
    /// The stream decoded.
    let stream: StreamInfo
    /// The stream's decoder, opened by the caller (its threads, alpha, reproducible errors).
    let decoder: Decoder
    /// What has been read and the damage met; shared with whoever reports it.
    let counters: SourceCounters
    private let repairs: Bool
    private let readErrorEndsStream: Bool
    private let otherPacket: ((Packet) throws(ReplayError) -> Void)?
    private let packet: Packet
    private let shells = FramePool(keepsBuffers: false)
    /// One frame at the stream's nominal rate: the step between pictures without timestamps.
    private let frameTicks: Int64
    private var draining = false
    private var finished = false
    /// The picture held back until the next tells its duration (when repairing).
    private var pending: Frame?
    /// The last whole frame length seen, for the last frame.
    private var previousGap: Int64?
    private var decoderErrorsSeen = 0
    private var demuxerErrorsSeen: Int
    /// Where the last packet of the stream read lies, seconds on its clock: damage the demuxer
    /// skips lies between it and the next packet.
    private var lastPacketSeconds: Double?

    /// - Parameters:
    ///   - repairs: repair timestamps, watch for concealed and skipped damage, and note a cut-short end.
    ///   - readErrorEndsStream: a read error ends the stream, counted as damage, instead of being
    ///     thrown: for a file that may be cut short (an archive's) and is worth reading up to the cut.
    ///   - otherPacket: takes the packets of the demuxer's other streams (render copies them); without
    ///     it the demuxer reads only this stream.
    init(demuxer: Demuxer, stream: StreamInfo, decoder: Decoder, repairs: Bool, counters: SourceCounters = SourceCounters(),
         readErrorEndsStream: Bool = false, otherPacket: ((Packet) throws(ReplayError) -> Void)? = nil) throws(ReplayError) {
        packet = try Packet()
        self.demuxer = demuxer
        self.stream = stream
        self.decoder = decoder
        self.repairs = repairs
        self.counters = counters
        self.readErrorEndsStream = readErrorEndsStream
        self.otherPacket = otherPacket
        frameTicks = demuxer.nominalFrameTicks(ofStream: stream.index)
        demuxerErrorsSeen = demuxer.reportedErrors
        if otherPacket == nil { demuxer.keepOnly(streams: [stream.index]) }
    }

    deinit { pending?.recycle() }

    /// The next frame, the caller's until it recycles it; `nil` at the end of the stream.
    func next() throws(ReplayError) -> Frame? {
        while let frame = try decoded() {
            guard repairs else { return frame }
            if let ready = hold(frame) { return ready }
        }
        guard let last = pending else { return nil }
        pending = nil
        last.duration = LastFrameDuration.ticks(pts: last.pts, own: last.duration, previousGap: previousGap,
                                                declaredEnd: demuxer.declaredEnd(ofStream: stream.index))
        if let warning = demuxer.cutShortWarning(ofVideoStream: stream.index, endingAt: stream.timeBase.seconds(last.pts + last.duration)) {
            counters.noteCutShort(warning)
        }
        return last
    }

    /// Moves to the last keyframe at or before `seconds` (the file's clock) and decodes afresh from there.
    func seek(toSeconds seconds: Double) {
        decoder.flush()
        pending?.recycle()
        pending = nil
        draining = false
        finished = false
        demuxer.seek(toSeconds: seconds)
    }

    // MARK: Decoding

    /// The decoder's next picture, checked and counted; `nil` once the stream is drained.
    private func decoded() throws(ReplayError) -> Frame? {
        while !finished {
            let frame = try shells.takeShell()
            let result: CodecOutput
            do { result = try decoder.receive(into: frame) } catch {
                frame.recycle()
                try noteDamage(error)
                continue
            }
            switch result {
            case .produced:
                do { try check(frame) } catch {
                    frame.recycle()
                    throw error
                }
                return frame
            case .endOfStream:
                frame.recycle()
                finished = true
            case .needsInput:
                frame.recycle()
                if draining { finished = true } else { try feed() }
            }
        }
        return nil
    }

    /// Sends the decoder the stream's next packet, handing the others on; at the end starts draining.
    private func feed() throws(ReplayError) {
        while true {
            let read: Bool
            do { read = try demuxer.read(into: packet) } catch {
                guard readErrorEndsStream else { throw error }
                // A damaged tail (an archive cut short): keep what was read.
                try noteDamage(error, at: lastPacketSeconds, kind: .read)
                read = false
            }
            guard read else {
                try noteSkippedData(before: nil)
                draining = true
                // Draining can report damage too (frame threads finishing): counted like any other.
                do { try decoder.send(nil) } catch { try noteDamage(error) }
                return
            }
            let isOurs = packet.streamIndex == stream.index
            if isOurs || demuxer.reportedErrors > demuxerErrorsSeen {
                let time = packet.pts != noPTS ? packet.pts : packet.dts
                let seconds = time == noPTS ? nil : demuxer.streams[packet.streamIndex].timeBase.seconds(time)
                try noteSkippedData(before: seconds)
                if isOurs, let seconds { lastPacketSeconds = seconds }
            }
            guard isOurs else {
                if let otherPacket { try otherPacket(packet) } else { packet.unref() }
                continue
            }
            defer { packet.unref() }
            do { try decoder.send(packet) } catch {
                let place = lastPacketSeconds.map { String(format: "%.3f s", $0) } ?? "an unknown time"
                try noteDamage(error, as: "\(error.message) (stream \(stream.index), packet at \(place))", at: lastPacketSeconds)
            }
            return
        }
    }

    /// Refuses an oversized picture, counts it, and (repairing) counts the damage the decoder concealed in it.
    private func check(_ frame: Frame) throws(ReplayError) {
        try decoder.checkSize(of: frame)
        counters.noteDecoded(width: frame.width, height: frame.height)
        guard repairs else { return }
        let reported = decoder.reportedErrors
        guard frame.isDamaged || reported > decoderErrorsSeen else { return }
        decoderErrorsSeen = reported
        let seconds = stream.timeBase.seconds(frame.pts)
        try note(.decoder, "damaged picture at \(String(format: "%.3f", seconds)) s (concealed by the decoder)", at: seconds)
    }

    /// Gives a picture without a timestamp one and holds it back; returns the picture held before,
    /// now that its duration is known. A picture whose time does not increase is dropped.
    private func hold(_ frame: Frame) -> Frame? {
        if frame.pts == noPTS { frame.pts = UntimedFrames.pts(after: pending.map { ($0.pts, $0.duration) }, frameTicks: frameTicks) }
        guard let previous = pending else {
            pending = frame
            return nil
        }
        guard frame.pts > previous.pts else {
            counters.noteBadTimestamp()
            frame.recycle()
            return nil
        }
        previous.duration = frame.pts - previous.pts
        previousGap = previous.duration
        pending = frame
        return previous
    }

    // MARK: Damage

    /// Counts data the demuxer logged errors on and skipped since the last packet (a resync past
    /// overwritten bytes, a block of an unknown track) as damage to this stream, lying between its
    /// packet before and the packet read after it (`end`, `nil` at the end of the file). Repairing only.
    private func noteSkippedData(before end: Double?) throws(ReplayError) {
        guard repairs, demuxer.reportedErrors > demuxerErrorsSeen else { return }
        demuxerErrorsSeen = demuxer.reportedErrors
        let span = switch (lastPacketSeconds, end) {
        case let (start?, end?): String(format: "between %.3f s and %.3f s", start, end)
        case let (start?, nil): String(format: "after %.3f s", start)
        case let (nil, end?): String(format: "before %.3f s", end)
        case (nil, nil): "at an unknown time"
        }
        try note(.demuxer, "the demuxer skipped damaged data \(span)", at: lastPacketSeconds ?? end, until: end)
    }

    /// Counts a decode or read error as damage (`message` names it), or throws it when it is no
    /// damage of the input's (out of memory).
    private func noteDamage(_ error: ReplayError, as message: String? = nil, at seconds: Double? = nil,
                            kind: RenderReport.Damage.Kind = .decoder) throws(ReplayError) {
        guard error.kind == .badInput else { throw error }
        try counters.note(RenderReport.Damage(stream: stream.index, kind: kind, seconds: seconds, endSeconds: nil,
                                              message: message ?? error.message), warns: repairs)
    }

    /// Counts damage this source found itself, named with its input and stream.
    private func note(_ kind: RenderReport.Damage.Kind, _ what: String, at seconds: Double?, until end: Double? = nil) throws(ReplayError) {
        try counters.note(RenderReport.Damage(stream: stream.index, kind: kind, seconds: seconds, endSeconds: end,
                                              message: "\(demuxer.url): stream \(stream.index): \(what)"), warns: repairs)
    }
}
