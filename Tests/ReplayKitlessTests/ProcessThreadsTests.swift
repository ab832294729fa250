import Foundation
import FxTestSupport
import Testing
@testable import ReplayKitless

/// The process stage on several threads (frames in flight, `processThreads`): the same bytes as
/// one thread, frames in their order, and an effect's failure on frame N reported as frame N's
/// with no output left.
@Suite struct ProcessThreadsTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples")

    /// The video frames' MD5s of `path`, by the ffmpeg CLI (lossless FFV1 output, so the frames are the processed pixels).
    static func frameHashes(_ path: String) throws -> [String] {
        let list = path + ".framemd5"
        try runFFmpegCLI(["-i", path, "-map", "0:v", "-f", "framemd5", list])
        return try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    /// The sample call with blur and picture backgrounds (smoothed masks, annotations drawn behind
    /// the person), small so the test is quick; FFV1 keeps the processed pixels exactly.
    static func options(_ background: BackgroundSpec, output: String, threads: Int) -> RenderOptions {
        var options = RenderOptions(input: samples.appendingPathComponent("call.mp4").path, output: FilePath(output))
        options.encoder.codec = .ffv1
        options.encoder.deterministic = true
        options.size = PictureSize(width: 160, height: 96)
        var background = BackgroundSettings(mask: .video(path: samples.appendingPathComponent("call.mask.mkv").path), background: background)
        background.smoothFrames = 3
        options.background = background
        options.poses = PoseSettings(source: .sidecar(path: FilePath(samples.appendingPathComponent("call.poses.jsonl").path)))
        var annotations = AnnotationSettings(scene: FilePath(samples.appendingPathComponent("annotations.json").path))
        annotations.occludeWithMask = true
        options.annotations = annotations
        options.processThreads = threads
        return options
    }

    @Test(arguments: [BackgroundSpec.blur(sigma: 4), .image(path: samples.appendingPathComponent("background.png").path)])
    func severalThreadsGiveTheBytesOfOne(background: BackgroundSpec) throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var hashes: [Int: [String]] = [:]
        for threads in [1, 3] {
            let output = directory.appendingPathComponent("out\(threads).mkv").path
            let report = try Renderer(options: Self.options(background, output: output, threads: threads)).run(progress: .none)
            #expect(report.effects.annotations?.framesDrawn ?? 0 > 0)
            #expect(report.effects.background?.framesReplaced ?? 0 > 0)
            // Backgrounds start with two lanes, paying or not (``StartingLanes``).
            if threads > 1 { #expect(report.processLanes >= min(2, RowBands.availableCores)) }
            hashes[threads] = try Self.frameHashes(output)
        }
        #expect(hashes[1]?.count == 116)
        #expect(hashes[1] == hashes[3])
    }

    /// Stamps each frame's index into its luma after a pause that makes later frames finish first.
    final class StampEffect: SplitFrameEffect {
        let name = "stamp"
        let failing: Set<Int>
        init(failing: Set<Int> = []) { self.failing = failing }
        func reserve(slots: Int, lanes: Int, bands: Int) throws(ReplayError) {}
        func sequence(_ frame: EffectFrame) throws(ReplayError) {}
        func apply(to image: YUVImage, at time: FrameTime) throws(ReplayError) {
            try process(image, EffectFrame(slot: 0, time: time, size: PictureSize(width: image.width, height: image.height)), lane: 0)
        }
        func process(_ image: YUVImage, _ frame: EffectFrame, lane: Int) throws(ReplayError) {
            let index = frame.time.index
            // Frames 0, 3, 6 … wait longest, so a lane holding frame 1 or 2 finishes first.
            usleep(useconds_t([4000, 0, 1000][index % 3]))
            if failing.contains(index) { throw .processing("frame \(index): stamp failed") }
            image.luma.fill(UInt8(16 + index % 200))
        }
    }

    @Test func framesKeepTheirOrder() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = RenderOptions(input: Self.samples.appendingPathComponent("call.mp4").path,
                                    output: FilePath(directory.appendingPathComponent("stamped.mkv").path))
        options.encoder.codec = .ffv1
        options.size = PictureSize(width: 64, height: 32)
        options.processThreads = 3
        let report = try Renderer(options: options, extraEffects: [StampEffect()]).run(progress: .none)
        // The stamps' pauses hold the render back: lanes are added up to the cores (3 at most).
        #expect(report.processLanes == min(3, RowBands.availableCores))
        // The frames as stored (4:2:0, no range conversion): each frame's first luma sample.
        let raw = directory.appendingPathComponent("stamped.yuv").path
        try runFFmpegCLI(["-i", options.output.string, "-map", "0:v", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", raw])
        let pixels = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let firstPixels = stride(from: 0, to: pixels.count, by: 64 * 32 * 3 / 2).map { Int(pixels[$0]) }
        #expect(firstPixels == (0..<116).map { 16 + $0 % 200 })
    }

    @Test func anEffectErrorNamesTheEarliestFailingFrameAndLeavesNoOutput() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("failed.mkv").path
        var options = RenderOptions(input: Self.samples.appendingPathComponent("call.mp4").path, output: FilePath(output))
        options.encoder.codec = .ffv1
        options.size = PictureSize(width: 64, height: 32)
        options.processThreads = 3
        // Frame 31 fails at once, frame 30 after a pause: 30 is still the one reported.
        do {
            _ = try Renderer(options: options, extraEffects: [StampEffect(failing: [30, 31])]).run(progress: .none)
            Issue.record("the render succeeded")
        } catch {
            #expect(error.message.contains("frame 30: stamp failed"), "\(error.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// Draws nothing, slowly: a drawing effect that holds the render back, so lanes are added.
    /// `oneAtATime`: one frame at a time whatever the lanes (one lock for all), busy lanes that a
    /// second lane does not speed up (then long pauses: a second lane does speed up the rest of a
    /// frame's way, which must stay a small share of it).
    final class SlowDrawing: DrawingEffect {
        let name = "slow drawing"
        let needsMask = false
        let microseconds: UInt32
        let oneAtATime: NSLock?
        init(microseconds: UInt32, oneAtATime: Bool = false) {
            self.microseconds = microseconds
            self.oneAtATime = oneAtATime ? NSLock() : nil
        }
        func reserve(slots: Int, lanes: Int, bands: Int) throws(ReplayError) {}
        func sequence(_ frame: EffectFrame) throws(ReplayError) {}
        func apply(to image: YUVImage, at time: FrameTime) throws(ReplayError) {}
        func process(_ image: YUVImage, _ frame: EffectFrame, lane: Int) throws(ReplayError) {
            oneAtATime?.lock()
            usleep(microseconds)
            oneAtATime?.unlock()
        }
    }

    /// Renders the sample call with `drawing` on 1 and on `threads` process threads (FFV1, so the
    /// frames are the processed pixels), `configure` setting the rest; checks that both give the
    /// same frames and hands each report to `check`. Returns the frames' count.
    static func renderOnOneAndOn(_ threads: Int, drawing: SlowDrawing, configure: (inout RenderOptions) -> Void,
                                 check: (RenderReport, _ threads: Int) -> Void) throws -> Int {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var hashes: [Int: [String]] = [:]
        for count in [1, threads] {
            let output = directory.appendingPathComponent("drawn\(count).mkv").path
            var options = RenderOptions(input: samples.appendingPathComponent("call.mp4").path, output: FilePath(output))
            options.encoder.codec = .ffv1
            configure(&options)
            options.processThreads = count
            check(try Renderer(options: options, extraEffects: [drawing]).run(progress: .none), count)
            hashes[count] = try frameHashes(output)
        }
        #expect(hashes[1] == hashes[threads])
        return hashes[1]?.count ?? 0
    }

    /// Annotations alone start on one lane; lanes added mid-render, each with caches of its own,
    /// draw the bytes of one thread. (Long pauses, so that each added lane raises the frame rate
    /// even where the rest of a frame's way takes the cores: with pauses of 4 ms, a loaded run
    /// left the second lane parked.)
    @Test func lanesAddedWhileDrawingGiveTheBytesOfOne() throws {
        let frames = try Self.renderOnOneAndOn(3, drawing: SlowDrawing(microseconds: 20_000)) { options in
            options.size = PictureSize(width: 160, height: 96)
            options.poses = PoseSettings(source: .sidecar(path: FilePath(Self.samples.appendingPathComponent("call.poses.jsonl").path)))
            options.annotations = AnnotationSettings(scene: FilePath(Self.samples.appendingPathComponent("annotations.json").path))
        } check: { report, threads in
            #expect(report.effects.annotations?.framesDrawn ?? 0 > 0)
            if threads > 1 && !runsUnderSanitizer { #expect(report.processLanes == min(threads, RowBands.availableCores)) }
        }
        #expect(frames == 116)
    }

    /// A lane added to busy drawing that did not raise the frame rate is parked: the render ends
    /// on one lane, with the bytes of one thread. (Not under the sanitizers, which slow the rest
    /// of a frame's way until a second lane pays.)
    @Test(.disabled(if: runsUnderSanitizer, "timing"))
    func aLaneThatDoesNotPayIsParked() throws {
        let frames = try Self.renderOnOneAndOn(2, drawing: SlowDrawing(microseconds: 20_000, oneAtATime: true)) { options in
            options.size = PictureSize(width: 64, height: 32)
            options.to = 2.2  // (a lane is added after 16 frames and judged over 16 from the 25th)
        } check: { report, _ in
            #expect(report.processLanes == 1)
        }
        #expect(frames > 48)
    }

    /// Drawing alone starts on one lane, anything heavier on two, however many the render may use.
    @Test func lanesStartFewOnAnyNumberOfCores() {
        #expect(StartingLanes.for([SlowDrawing(microseconds: 0)], of: 16) == 1)
        #expect(StartingLanes.for([SlowDrawing(microseconds: 0), StampEffect()], of: 16) == 2)
        #expect(StartingLanes.for([StampEffect()], of: 1) == 1)
    }

    /// The row-band kernels (blend, premultiplied alpha, chroma mask, mask scaling) write the bytes
    /// of one thread with several, at an odd size whose last chroma row covers one luma row.
    @Test func rowBandKernelsGiveTheBytesOfOneThread() {
        func random(_ plane: Plane, seed: UInt64) {
            var state = seed
            for y in 0..<plane.height {
                for x in 0..<plane.width {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    plane[x, y] = UInt8(truncatingIfNeeded: state >> 56)
                }
            }
        }
        func bytes(_ image: YUVImage) -> [UInt8] {
            [image.luma, image.cb, image.cr].flatMap { plane in (0..<plane.height).flatMap { Array(plane.row($0)) } }
        }
        let (width, height) = (75, 141)
        let mask = PlanarBuffer(width: width, height: height, subsampling: .yuv444)
        random(mask.image.luma, seed: 9)
        let background = PlanarBuffer(width: width, height: height)
        for (index, plane) in [background.image.luma, background.image.cb, background.image.cr].enumerated() { random(plane, seed: UInt64(20 + index)) }
        var results: [Int: [[UInt8]]] = [:]
        for workers in [1, 3] {
            let frame = PlanarBuffer(width: width, height: height, alpha: true)
            for (index, plane) in [frame.image.luma, frame.image.cb, frame.image.cr].enumerated() { random(plane, seed: UInt64(index + 1)) }
            let blender = MaskBlender(workers: workers)
            blender.blend(frame.image, with: background.image, mask: mask.image.luma)
            let blended = bytes(frame.image)
            blender.applyAlpha(mask.image.luma, to: frame.image, premultiplied: true)
            let scaled = PlanarBuffer(width: 2 * width + 1, height: 2 * height + 1, subsampling: .yuv444)
            BilinearPlaneScaler(workers: workers).scale(mask.image.luma, into: scaled.image.luma)
            results[workers] = [blended, bytes(frame.image), bytes(scaled.image)]
        }
        #expect(results[1] == results[3])
        // (Several bands really run: the 71 chroma rows make three bands for three workers.)
        #expect(RowBands.count(rows: 71, workers: 3, minimumRows: 8) == 3)
    }
}
