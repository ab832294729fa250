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

extension Demuxer {
    /// Where stream `index`'s own duration says it ends, in its time base.
    func declaredEnd(ofStream index: Int) -> Int64? {
        let stream = stream(index).pointee
        guard stream.duration != noPTS, stream.duration > 0 else { return nil }
        return (stream.start_time == noPTS ? 0 : stream.start_time) + stream.duration
    }
}
