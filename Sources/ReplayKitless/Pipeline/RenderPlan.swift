import Foundation

/// What a render makes of its input's video, worked out from the video stream's header and the
/// options alone, before a file is written or a frame decoded: how pictures are turned, the sizes
/// they pass through, the stretch kept, how many frames to expect. ``Renderer`` carries it out;
/// `RenderPlanTests` checks it without FFmpeg.
package struct RenderPlan: Sendable, Equatable {
    /// What the plan needs of the input's video stream, as its header (``StreamInfo``) says.
    package struct Video: Sendable, Equatable {
        /// The pictures as stored (before the display matrix turns them).
        package var stored: PictureSize
        /// The display matrix: degrees clockwise (quarter turns), then mirrored.
        package var rotation = 0
        package var mirrored = false
        package var timeBase: Rational
        /// The stream's first timestamp, in `timeBase` (`nil`: unknown, taken as 0).
        package var startTicks: Int64?
        /// Frames the container declares (0: unknown).
        package var declaredFrames = 0
        /// The stream's nominal rate (0/x when unknown).
        package var frameRate = Rational(0, 1)
        /// The container's duration in seconds, when it gives one.
        package var containerSeconds: Double?
    }

    /// With `from`/`to`: the frames kept, on the input's clock.
    package struct Trim: Sendable, Equatable {
        /// The first timestamp kept (video time base): a frame still shown then is kept from it.
        package var start: Int64
        /// The first timestamp no longer kept; `nil`: to the end.
        package var end: Int64?
        /// `from` and `to` in seconds on the stream's clock (they count from its first frame).
        package var startSeconds: Double?
        package var endSeconds: Double?
    }

    /// The video the plan is for.
    package let video: Video
    /// How the stored pictures are shown (the display matrix).
    package let shown: PictureOrientation
    /// How a decoded picture is turned for the effects: upright, then mirrored when asked.
    package let upright: PictureOrientation
    /// With `keepRotation`: how the upright picture is turned back to the stored orientation the
    /// kept display matrix expects.
    package let turnBack: PictureOrientation?
    /// The size asked for (`size`), else the picture as shown.
    package let requestedSize: PictureSize
    /// The size effects see: display orientation, even sides (4:2:0).
    package let workingSize: PictureSize
    /// The encoded picture's size (stored orientation with `keepRotation`).
    package let outputSize: PictureSize
    package let trim: Trim?
    /// What the user should know before the first frame (a size rounded).
    package let warnings: [String]

    /// The plan of `options` for `video`.
    /// - Throws: usage for a `from` or `to` that is not a time from 0 to ``InputLimits/optionSeconds``.
    package init(video: Video, options: RenderOptions) throws(ReplayError) {
        // Masks, backgrounds and the contract's pixel coordinates are in display orientation, so
        // effects always work on the upright picture; a kept rotation turns it back afterwards.
        self.video = video
        shown = PictureOrientation(rotation: video.rotation, mirrored: video.mirrored)
        upright = shown.mirrored(options.mirror)
        turnBack = options.keepRotation ? shown.inverse : nil
        requestedSize = options.size ?? shown.turned(video.stored)
        workingSize = PictureSize(width: max(2, requestedSize.width & ~1), height: max(2, requestedSize.height & ~1))
        outputSize = options.keepRotation ? shown.turned(workingSize) : workingSize
        warnings = workingSize == requestedSize ? [] : ["\(requestedSize) is rounded to \(workingSize): 4:2:0 needs an even width and height"]

        if let from = options.from { try checkTimeOption("RenderOptions.from", from) }
        if let to = options.to { try checkTimeOption("RenderOptions.to", to) }
        guard options.from != nil || options.to != nil else {
            trim = nil
            return
        }
        // Trim times are seconds after the first frame (poses' t); the stream's clock may start elsewhere.
        let videoStart = video.timeBase.seconds(video.startTicks ?? 0)
        let tick = video.timeBase.seconds(1)
        /// (A stream whose clock starts near Int64's end cannot overflow.)
        func ticks(_ seconds: Double) -> Int64 { Int64(Int(clamping: seconds / tick, rounding: .toNearestOrAwayFromZero)) }
        let startSeconds = options.from.map { videoStart + $0 }, endSeconds = options.to.map { videoStart + $0 }
        trim = Trim(start: ticks(startSeconds ?? videoStart), end: endSeconds.map(ticks), startSeconds: startSeconds, endSeconds: endSeconds)
    }

    /// The frames the render should write, for progress: the pose scan's count (`scannedFrames`,
    /// the frames shown, when poses were read), else the container's count, else its duration
    /// times the rate; `nil` when trimmed or unknown.
    package func expectedFrames(scannedFrames: Int?) -> Int? {
        guard trim == nil else { return nil }
        // (A declared count includes frames an edit list cuts: a scan counts those shown.)
        if let scannedFrames { return scannedFrames }
        if video.declaredFrames > 0 { return video.declaredFrames }
        guard let seconds = video.containerSeconds, video.frameRate.numerator > 0, video.frameRate.denominator > 0 else { return nil }
        // (A damaged container may declare any duration and rate.)
        return Int(clamping: seconds * Double(video.frameRate.numerator) / Double(video.frameRate.denominator), to: 0...Int.max)
    }

    /// Refuses a `from` at or past the end of `input`, whose frames' timestamps run from
    /// `firstPTS` to `lastPTS` one `frameTicks` each: it would decode nothing, so the user is told
    /// how long the video is.
    package func checkFrom(_ options: RenderOptions, firstPTS: Int64, lastPTS: Int64, frameTicks: Int64,
                           timeBase: Rational) throws(ReplayError) {
        guard let from = options.from else { return }
        let length = timeBase.seconds(lastPTS &- firstPTS &+ max(frameTicks, 1))
        guard from < length else {
            throw .usage("`RenderOptions.from` \(from): at or past the end of \(options.input), whose video lasts "
                         + String(format: "%.3f s", length), options: ["RenderOptions.from"])
        }
    }
}
