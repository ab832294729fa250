import CFFmpeg

/// How long the last frame of a video is shown, which no following frame tells.
enum LastFrameDuration {
    /// Until the end its stream declares, when that is a plausible frame length (a decoder's or a
    /// packet's duration follows decode order, wrong under B-frames), else its own duration, else as
    /// long as the frame before it (1 tick when nothing is known). All in the stream's time base.
    static func ticks(pts: Int64, own: Int64, previousGap: Int64?, declaredEnd: Int64?) -> Int64 {
        let typical = previousGap ?? (own > 0 ? own : 1)
        if let declaredEnd {
            let untilEnd = declaredEnd - pts
            if untilEnd > 0 && untilEnd <= 4 * typical { return untilEnd }
        }
        return own > 0 ? own : typical
    }
}

/// Timestamps for decoded frames that have none (a raw H.264/HEVC stream), as the ffmpeg CLI gives
/// them: the renderer and the packet scan both use this, so they agree on every such frame's time.
enum UntimedFrames {
    /// 0 for the first frame; else the frame before's pts plus its duration, or one frame at the
    /// stream's nominal rate (`frameTicks`) when it has none.
    static func pts(after previous: (pts: Int64, duration: Int64)?, frameTicks: Int64) -> Int64 {
        previous.map { $0.pts + ($0.duration > 0 ? $0.duration : frameTicks) } ?? 0
    }
}

extension Demuxer {
    /// Where stream `index`'s own duration says it ends, in its time base.
    func declaredEnd(ofStream index: Int) -> Int64? {
        let stream = stream(index).pointee
        guard stream.duration != noPTS, stream.duration > 0 else { return nil }
        return (stream.start_time == noPTS ? 0 : stream.start_time) + stream.duration
    }

    /// Where video stream `index` says it ends, seconds on its clock: the stream's own duration,
    /// else the file's when the video is its only stream. (A file cut short often reads to a clean
    /// end of file, Matroska between clusters; only its header tells. A file's duration counts every
    /// stream, so it is not used when there are others; some containers count it from 0, others
    /// from the first timestamp, so it is taken as the end, the earlier of the two.)
    func declaredVideoEnd(ofStream index: Int) -> Double? {
        if let end = declaredEnd(ofStream: index) { return streams[index].timeBase.seconds(end) }
        // Matroska written by FFmpeg tags each track with its duration, HH:MM:SS.fraction.
        if let tag = av_dict_get(stream(index).pointee.metadata, "DURATION", nil, 0) {
            let fields = String(cString: tag.pointee.value).split(separator: ":").compactMap { Double($0) }
            if fields.count == 3 { return fields[0] * 3600 + fields[1] * 60 + fields[2] }
        }
        guard streams.count == 1 else { return nil }
        return durationSeconds
    }

    /// Why video stream `index`, whose last picture ends at `end` seconds on its clock, looks cut
    /// short: it ends well before (over 0.5 s and 10 %) the end its file declares. `nil` otherwise.
    func cutShortWarning(ofVideoStream index: Int, endingAt end: Double) -> String? {
        guard let declared = declaredVideoEnd(ofStream: index), declared - end > max(0.5, 0.1 * declared) else { return nil }
        return String(format: "the video ends at %.2f s but the input declares %.2f s: is the file cut short?", end, declared)
    }

    /// Stream `index`'s frame rate: its average, else its real base rate, else 30 fps.
    func nominalFrameRate(ofStream index: Int) -> AVRational {
        let stream = stream(index).pointee
        for rate in [stream.avg_frame_rate, stream.r_frame_rate] where rate.num > 0 && rate.den > 0 { return rate }
        return AVRational(num: 30, den: 1)
    }

    /// One frame at the nominal rate, in stream `index`'s time base (at least 1 tick).
    func nominalFrameTicks(ofStream index: Int) -> Int64 {
        let rate = nominalFrameRate(ofStream: index)
        return max(1, av_rescale_q(1, AVRational(num: rate.den, den: rate.num), stream(index).pointee.time_base))
    }
}
