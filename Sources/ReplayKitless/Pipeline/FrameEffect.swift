/// When a frame is shown, in the forms the processing stages need.
package struct FrameTime: Sendable, Equatable {
    /// 0-based presentation index of the frame in the output.
    package var index: Int
    /// Presentation timestamp in the input video stream's time base.
    package var pts: Int64
    /// Seconds since the first frame's presentation time (t = 0 is the first frame, formats.md §3).
    package var seconds: Double
    /// Seconds on the input stream's own clock (absolute stream time).
    package var streamSeconds: Double
    /// How long the frame is shown, in seconds.
    package var duration: Double

    package init(index: Int, pts: Int64, seconds: Double, streamSeconds: Double, duration: Double) {
        self.index = index
        self.pts = pts
        self.seconds = seconds
        self.streamSeconds = streamSeconds
        self.duration = duration
    }
}

/// One processing step applied to every frame between decoding and encoding, in display
/// orientation and at the output size (background replacement, annotations).
///
/// Effects run on the pipeline's processing thread, one frame at a time, in presentation order.
/// They may keep state between frames and should allocate their scratch memory once.
package protocol FrameEffect: AnyObject {
    /// A short name for reports.
    var name: String { get }
    /// Modifies `image` in place.
    func apply(to image: YUVImage, at time: FrameTime) throws(ReplayError)
    /// Lines for the render report (counts, policies touched), collected at the end.
    func reportLines() -> [String: Int]
}

extension FrameEffect {
    package func reportLines() -> [String: Int] { [:] }
}
