import Testing
@testable import ReplayKitless

/// The render's plan from a video stream's header described in memory: no file is opened.
@Suite struct RenderPlanTests {
    private let millisecond = Rational(1, 1000)

    private func options(size: PictureSize? = nil, keepRotation: Bool = false, mirror: Bool = false,
                         from: Double? = nil, to: Double? = nil) -> RenderOptions {
        var options = RenderOptions(input: "/nonexistent/in.mp4", output: "/nonexistent/out.mp4")
        options.size = size
        options.keepRotation = keepRotation
        options.mirror = mirror
        options.from = from
        options.to = to
        return options
    }

    @Test func aPhonesSidewaysPictureIsWorkedOnUprightAndWrittenUpright() throws {
        // Stored 1920×1080 with a quarter turn: shown 1080×1920, which effects see and the output has.
        let video = RenderPlan.Video(stored: PictureSize(width: 1920, height: 1080), rotation: 90, timeBase: millisecond)
        let plan = try RenderPlan(video: video, options: options())
        #expect(plan.workingSize == PictureSize(width: 1080, height: 1920))
        #expect(plan.outputSize == PictureSize(width: 1080, height: 1920))
        #expect(plan.turnBack == nil)
        #expect(!plan.upright.isUpright)
        #expect(plan.trim == nil)
        #expect(plan.warnings.isEmpty)
    }

    @Test func aKeptRotationWritesTheStoredShapeAndTurnsBack() throws {
        let video = RenderPlan.Video(stored: PictureSize(width: 1920, height: 1080), rotation: 90, timeBase: millisecond)
        let plan = try RenderPlan(video: video, options: options(size: PictureSize(width: 361, height: 641), keepRotation: true))
        // The size asked for is the shown shape, rounded down to even sides; the output is its stored shape.
        #expect(plan.workingSize == PictureSize(width: 360, height: 640))
        #expect(plan.outputSize == PictureSize(width: 640, height: 360))
        #expect(plan.turnBack == plan.shown.inverse)
        #expect(plan.warnings == ["361x641 is rounded to 360x640: 4:2:0 needs an even width and height"])
    }

    @Test func mirroringTurnsAnUprightPictureToo() throws {
        let video = RenderPlan.Video(stored: PictureSize(width: 640, height: 360), timeBase: millisecond)
        #expect(try RenderPlan(video: video, options: options()).upright.isUpright)
        #expect(try !RenderPlan(video: video, options: options(mirror: true)).upright.isUpright)
    }

    @Test func aTrimCountsFromTheStreamsFirstFrame() throws {
        // A stream whose clock starts at 10 s (10 000 ticks of 1/1000): `from` 1.5 is 11 500 ticks.
        let video = RenderPlan.Video(stored: PictureSize(width: 640, height: 360), timeBase: millisecond, startTicks: 10_000,
                                     declaredFrames: 300)
        let both = try RenderPlan(video: video, options: options(from: 1.5, to: 4.25))
        #expect(both.trim == RenderPlan.Trim(start: 11_500, end: 14_250, startSeconds: 11.5, endSeconds: 14.25))
        let onlyTo = try RenderPlan(video: video, options: options(to: 2))
        #expect(onlyTo.trim == RenderPlan.Trim(start: 10_000, end: 12_000, startSeconds: nil, endSeconds: 12))
        // A trimmed render's frame count is not known ahead; an untrimmed one's is the declared count.
        #expect(both.expectedFrames(scannedFrames: nil) == nil)
        #expect(try RenderPlan(video: video, options: options()).expectedFrames(scannedFrames: nil) == 300)
    }

    @Test func theExpectedFramesComeFromTheScanThenTheHeaderThenTheDuration() throws {
        var video = RenderPlan.Video(stored: PictureSize(width: 640, height: 360), timeBase: millisecond, declaredFrames: 300,
                                     frameRate: Rational(30000, 1001), containerSeconds: 12.5)
        let plan = try RenderPlan(video: video, options: options())
        #expect(plan.expectedFrames(scannedFrames: 290) == 290)
        #expect(plan.expectedFrames(scannedFrames: nil) == 300)
        video.declaredFrames = 0
        // 12.5 s × 29.97 fps = 374.6: 374 whole frames.
        #expect(try RenderPlan(video: video, options: options()).expectedFrames(scannedFrames: nil) == 374)
        video.frameRate = Rational(0, 1)
        #expect(try RenderPlan(video: video, options: options()).expectedFrames(scannedFrames: nil) == nil)
    }

    @Test(arguments: [-1.0, .nan, .infinity, 2e9])
    func aTimeOutOfRangeIsRefusedNamingTheOption(seconds: Double) throws {
        let video = RenderPlan.Video(stored: PictureSize(width: 640, height: 360), timeBase: millisecond)
        let from = #expect(throws: ReplayError.self) { try RenderPlan(video: video, options: options(from: seconds)) }
        #expect(from?.kind == .usage)
        #expect(from?.options == ["RenderOptions.from"])
        let to = #expect(throws: ReplayError.self) { try RenderPlan(video: video, options: options(to: seconds)) }
        #expect(to?.options == ["RenderOptions.to"])
    }

    @Test func aStartAtOrPastTheEndIsRefusedNamingTheLength() throws {
        // 100 frames of 40 ticks (1/1000): the last starts at 3.96 s and the video lasts 4.000 s.
        let video = RenderPlan.Video(stored: PictureSize(width: 640, height: 360), timeBase: millisecond)
        let late = options(from: 4)
        let plan = try RenderPlan(video: video, options: late)
        let error = #expect(throws: ReplayError.self) {
            try plan.checkFrom(late, firstPTS: 0, lastPTS: 3960, frameTicks: 40, timeBase: millisecond)
        }
        #expect(error?.message.contains("whose video lasts 4.000 s") == true)
        let inside = options(from: 3.99)
        try RenderPlan(video: video, options: inside).checkFrom(inside, firstPTS: 0, lastPTS: 3960, frameTicks: 40, timeBase: millisecond)
    }
}
