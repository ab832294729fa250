/// When a frame is shown, in the forms the processing stages need: what a ``FrameEffect`` is told
/// with each frame.
public struct FrameTime: Sendable, Equatable {
    /// 0-based presentation index of the frame in the output.
    public var index: Int
    /// Presentation timestamp in the input video stream's time base.
    public var pts: Int64
    /// Seconds since the first frame's presentation time (t = 0 is the first frame, formats.md §3).
    public var seconds: Double
    /// Seconds on the input stream's own clock (absolute stream time).
    public var streamSeconds: Double
    /// How long the frame is shown, in seconds.
    public var duration: Double

    /// A frame time from its parts (tests and effects driven outside a render).
    public init(index: Int, pts: Int64, seconds: Double, streamSeconds: Double, duration: Double) {
        self.index = index
        self.pts = pts
        self.seconds = seconds
        self.streamSeconds = streamSeconds
        self.duration = duration
    }
}

/// One processing step applied to every frame between decoding and encoding, in display
/// orientation and at the output size (background replacement, annotations, or a caller's own,
/// passed to ``Renderer/init(options:extraEffects:)``).
///
/// Effects run on the pipeline's processing thread, one frame at a time, in presentation order,
/// after the ones the ``RenderOptions`` ask for. They may keep state between frames (a class, so
/// that state lives across calls) and should allocate their scratch memory once. The picture is
/// 8-bit Y'CbCr in the ``YUVImage/colorSpace`` it states; a thrown ``ReplayError`` stops the render
/// and leaves no output. The article <doc:CustomEffects> shows one.
public protocol FrameEffect: AnyObject {
    /// A short name for reports: the key of the effect's counts in ``RenderReport/effects``.
    var name: String { get }
    /// Modifies `image` in place; its planes stay valid only during the call.
    func apply(to image: YUVImage, at time: FrameTime) throws(ReplayError)
    /// Counts for the render report (frames touched, policies applied), collected once at the end.
    func reportLines() -> [String: Int]
}

extension FrameEffect {
    /// No counts: the default for effects with nothing to report.
    public func reportLines() -> [String: Int] { [:] }
}
