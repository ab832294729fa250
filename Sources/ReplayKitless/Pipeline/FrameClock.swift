/// The input's frames in presentation order, by timestamp, from a packet scan: where a frame
/// stands in the whole recording, whatever part of it a render decodes.
package struct InputFrameNumbers: Sendable {
    /// The first frame's timestamp, in the video stream's time base.
    package let firstPTS: Int64
    /// The last frame's timestamp: with the first, how long the video lasts (what `--from` may reach).
    package let lastPTS: Int64
    private let indexByTimestamp: [Int64: Int]

    package init(scan: VideoPacketScan) {
        firstPTS = scan.presentationTimestamps.first ?? 0
        lastPTS = scan.presentationTimestamps.max() ?? firstPTS
        var index: [Int64: Int] = [:]
        for (frame, pts) in scan.presentationTimestamps.enumerated() { index[pts] = frame }
        indexByTimestamp = index
    }

    /// The presentation index of the frame with timestamp `pts`; `nil` for one the scan never saw.
    package func index(of pts: Int64) -> Int? { indexByTimestamp[pts] }
}

/// Numbers the frames the process stage takes and times them: from the first frame taken, or with
/// a trim (`inputFrames`) from the input's first frame, so a frame keeps the number and time the
/// whole render gives it (masks pair with frames by either, formats.md §5).
struct FrameClock {
    let inputFrames: InputFrameNumbers?
    private var index = 0
    private var firstPTS: Int64?

    init(inputFrames: InputFrameNumbers?) {
        self.inputFrames = inputFrames
    }

    /// The frame's number and time, and the output's length once it is shown (from the output's first frame).
    mutating func time(of frame: Frame, timeBase: Rational) -> (time: FrameTime, outputSeconds: Double) {
        let first = firstPTS ?? frame.pts
        firstPTS = first
        // (A frame the scan did not see follows the one before it.)
        index = inputFrames?.index(of: frame.pts) ?? index
        let time = FrameTime(index: index, pts: frame.pts, seconds: timeBase.seconds(frame.pts - (inputFrames?.firstPTS ?? first)),
                             streamSeconds: timeBase.seconds(frame.pts), duration: timeBase.seconds(frame.duration))
        index += 1
        return (time, timeBase.seconds(frame.pts - first) + time.duration)
    }
}
