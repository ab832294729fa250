import CFFmpeg

/// The pictures of a video as a timeline: which picture is shown at a given time, for pairing a
/// side video (masks, a background video) with the frames being rendered by presentation time.
///
/// Times are seconds from the video's first picture. A picture is shown from its presentation time
/// until the next picture's, but no longer than its own duration when the container records one
/// (else the stream's nominal frame interval, from its declared frame rate), so a hole in the
/// stream shows as a time with no picture. (MP4 records every picture's duration as the time to the
/// next one: a hole there is a picture shown longer.)
final class TimedFrames {
    /// The path, for messages.
    let url: String
    /// The picture shown at the time last asked for (valid after the first ``advance(to:)``).
    let current: Frame
    /// When ``current`` stops being shown.
    private(set) var currentEnd = 0.0
    /// Whether the video holds a single picture (a still image): it is shown at every time.
    private(set) var isStill = false
    /// Display rotation (degrees clockwise) and mirroring of ``current``: the container's, else its own.
    var orientation: (rotation: Int, mirrored: Bool) { current.displayOrientation(in: reader.stream) }
    /// The stream's nominal frame interval in seconds, when it declares a frame rate.
    let nominalInterval: Double?
    /// Damaged packets skipped since the last rewind.
    var decodeErrors: Int { reader.decodeErrors }
    /// Set once the last picture has been read, when it ends well before the end the file declares
    /// (a file cut short between packets reads to a clean end: only its header tells).
    private(set) var cutShort: String?

    private var reader: VideoFrameReader
    private var firstPTS: Int64?
    /// Start of the reader's decoded but not yet shown picture; `nil` at the end of the stream.
    private var upcomingStart: Double?
    private var lastInterval: Double?
    private var picturesRead = 0
    /// Where the last picture read ends, seconds on the stream's own clock.
    private var streamEnd = 0.0

    /// Opens `url` and decodes its first picture.
    /// - Throws: `ReplayError.badInput` naming the file when it is missing, unreadable or has no picture.
    init(url: String) throws(ReplayError) {
        self.url = url
        current = try Frame()
        reader = try VideoFrameReader(url: url)
        nominalInterval = Self.nominalInterval(reader.demuxer.stream(reader.stream.index))
        try readNext()
        guard upcomingStart != nil else { throw .badInput("\(url): no picture could be decoded") }
    }

    /// The time whose picture a rendered frame takes: its own time plus half of the shorter of its
    /// duration and this video's frame interval, so timing jitter under half a frame does not matter.
    /// A frame with no usable duration (under a millisecond: the stream's last, untimed) uses the interval.
    func pairingTime(for frame: FrameTime) -> Double {
        let duration = frame.duration >= 0.001 ? frame.duration : nominalInterval ?? 0
        return frame.seconds + min(duration, nominalInterval ?? duration) / 2
    }

    /// Whether every picture has been shown (the time asked for is past the last one's start).
    var isExhausted: Bool { upcomingStart == nil }

    /// Makes ``current`` the last picture that starts at or before `time`; returns whether it changed.
    /// Times must not decrease between calls (until ``rewind()``).
    @discardableResult
    func advance(to time: Double) throws(ReplayError) -> Bool {
        var changed = false
        while let start = upcomingStart, start <= time {
            guard let frame = readerFrame else { break }
            av_frame_unref(current.pointer)
            do { try ffmpeg("av_frame_ref", av_frame_ref(current.pointer, frame.pointer)) }
            catch { throw .processing("\(url): \(error)") }
            let recorded = frame.duration > 0 ? reader.stream.timeBase.seconds(frame.duration) : nil
            try readNext()
            let untilNext = upcomingStart.map { $0 - start }
            if let untilNext { lastInterval = untilNext }
            let limits = [recorded ?? nominalInterval, untilNext].compactMap { $0 }
            currentEnd = start + (limits.min() ?? lastInterval ?? 0)
            isStill = picturesRead == 1 && upcomingStart == nil
            changed = true
        }
        return changed
    }

    /// Starts again from the first picture (for looping).
    func rewind() throws(ReplayError) {
        reader = try VideoFrameReader(url: url)
        firstPTS = nil
        picturesRead = 0
        try readNext()
        guard upcomingStart != nil else { throw .badInput("\(url): no picture could be decoded") }
    }

    private var readerFrame: Frame?

    /// Decodes the next picture whose time is later than the previous one's (damaged timestamps
    /// are skipped; a picture without one follows the previous at the nominal interval).
    private func readNext() throws(ReplayError) {
        let previous = upcomingStart
        while true {
            readerFrame = try reader.next()
            guard let frame = readerFrame else {
                if upcomingStart != nil, cutShort == nil {
                    cutShort = reader.demuxer.cutShortWarning(ofVideoStream: reader.stream.index, endingAt: streamEnd)
                }
                upcomingStart = nil
                return
            }
            let start: Double
            if frame.pts == noPTS {
                start = previous.map { $0 + (nominalInterval ?? lastInterval ?? 0.04) } ?? 0
            } else {
                let first = firstPTS ?? frame.pts
                firstPTS = first
                start = reader.stream.timeBase.seconds(frame.pts - first)
            }
            if let previous, start <= previous { continue }
            if frame.pts != noPTS {
                let shown = frame.duration > 0 ? reader.stream.timeBase.seconds(frame.duration) : nominalInterval ?? 0
                streamEnd = reader.stream.timeBase.seconds(frame.pts) + shown
            }
            picturesRead += 1
            upcomingStart = start
            return
        }
    }

    /// One frame's time at the declared average rate, else at FFmpeg's guess of the base rate when
    /// that is plausible (at most 1000 fps; a jittered stream's guess can be its time base).
    private static func nominalInterval(_ stream: UnsafeMutablePointer<AVStream>) -> Double? {
        for rate in [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate] where rate.num > 0 && rate.den > 0 {
            let interval = Double(rate.den) / Double(rate.num)
            if interval >= 0.001 { return interval }
        }
        return nil
    }
}
