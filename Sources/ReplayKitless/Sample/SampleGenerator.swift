import CFFmpeg
import Foundation

/// What ``SampleGenerator/generate(_:into:overwrite:)`` made.
public struct SampleSummary: Sendable {
    /// The files written, in the order of ``SampleGenerator/fileNames``.
    public var files: [FilePath]
    /// Video frames written to `call.mp4`.
    public var frames: Int
    /// Frames left out of the nominal 30 fps, to make the frame rate variable.
    public var droppedFrames: Int
    /// Frames with the white flash square (and a beep starting with them), for A/V sync checks.
    public var flashes: Int
}

/// Makes a synthetic recorded call and everything that goes with it (`fxreplay sample`), the
/// same bytes for the same settings:
///
/// - `call.mp4`: H.264 (x264, bit-exact, 2 threads) + AAC, variable frame rate (±4 ms jitter,
///   dropped frames), first frame at 1.0 s, each frame's pose32 in SEI (formats.md §4); the room
///   of `SampleScene` drawn with the annotation rasterizer, the person of
///   `SamplePersonPainter` over it, and on a few frames a white flash square while a 1 kHz beep
///   starts at that frame's presentation time;
/// - `call.poses.jsonl`, `.csv`, `.pose32`: the same poses as sidecars (times relative to the first frame);
/// - `call.mask.mkv`: the person's exact coverage (and the flash square) as lossless FFV1, full
///   range, with the video's timestamps;
/// - `background.png`: a replacement background; `annotations.json`: marks on box corners and a
///   tap on a box; `job.yaml`: the demo render's options; `scene.json`: the truth, for tests;
/// - `call-archive.zip` with its epoch pose log and compose job: the same recording as the
///   publisher of a whole call with two more participants (`SampleCall`).
public enum SampleGenerator {
    /// The files of a sample, as named in the directory.
    public static let fileNames = ["call.mp4", "call.poses.jsonl", "call.poses.csv", "call.poses.pose32", "call.mask.mkv",
                                   "background.png", "annotations.json", "job.yaml", "scene.json"] + SampleCall.fileNames

    /// `name` inside `directory`, spelled as `directory` was given (relative stays relative).
    public static func path(_ name: String, in directory: FilePath) -> FilePath {
        directory.appending(name)
    }

    /// Writes the sample into `directory` (created when missing). Each file is complete or absent.
    /// - Throws: `usage` for bad settings or, without `overwrite`, when one of the files exists;
    ///   `processing` when something cannot be written.
    public static func generate(_ settings: SampleSettings, into folder: FilePath, overwrite: Bool) throws(ReplayError) -> SampleSummary {
        try settings.validate()
        let paths = fileNames.map { path($0, in: folder) }
        if !overwrite, let existing = paths.first(where: { FileManager.default.fileExists(atPath: $0.string) }) {
            throw .usage("\(existing): already exists (`overwrite` replaces the sample)", options: ["overwrite"])
        }
        do {
            try FileManager.default.createDirectory(atPath: folder.string, withIntermediateDirectories: true)
        } catch {
            throw .processing("\(folder): cannot create the directory: \(error.localizedDescription)")
        }
        let scene = SampleScene(settings: settings)
        let file = { (name: String) in path(name, in: folder) }
        // All files appear together: a failure part-way (a full disk) leaves none of them.
        let outputs = OutputGroup()
        // The call archive's media are written hidden next to the outputs and zipped; never
        // committed, they go when this group does (or on SIGINT, as every temporary output).
        let members = OutputGroup()
        let call = SampleCall(scene: scene)
        let publisher = try call.publisherWriter(directory: folder, members: members)
        try writeVideos(scene, call: file("call.mp4"), mask: file("call.mask.mkv"), publisher: publisher, into: outputs)
        try call.write(publisherFile: publisher.temporaryPath, directory: folder, members: members, into: outputs)
        let samples = scene.frames.map { PoseSample(key: .time(scene.seconds(of: $0)), pose32: $0.pose32) }
        for name in ["call.poses.jsonl", "call.poses.csv", "call.poses.pose32"] {
            try outputs.write(Data(PoseSidecar.encode(samples, format: PoseSidecarFormat(path: FilePath(name)))), to: file(name))
        }
        try outputs.write(try ImageWriter.png(SampleBackground.picture(SampleBackground.size(for: settings.size))), to: file("background.png"))
        try outputs.write(Data(SampleFiles.annotations(scene).utf8), to: file("annotations.json"))
        try outputs.write(Data(SampleFiles.job(directory: folder).utf8), to: file("job.yaml"))
        let command = "fxreplay sample -o \(folder) --seconds \(TextNumber.exact(settings.seconds)) --size \(settings.size) --seed \(settings.seed)"
        try outputs.write(try SampleFiles.truth(scene, command: command), to: file("scene.json"))
        try outputs.commit()
        return SampleSummary(files: paths, frames: scene.frames.count, droppedFrames: scene.droppedSlots.count,
                             flashes: scene.frames.filter(\.flash).count)
    }

    /// The call and its mask, frame by frame: both files (and the call archive's copy of the
    /// call, `publisher`) get every frame at the same time.
    private static func writeVideos(_ scene: SampleScene, call: FilePath, mask: FilePath, publisher: MediaWriter,
                                    into outputs: OutputGroup) throws(ReplayError) {
        let size = scene.settings.size
        let colorSpace = publisherColorSpace(size)
        let video = try MediaWriter(
            path: call.string, video: publisherVideo(size),
            audio: .init(sampleRate: SampleSound.sampleRate, channels: 1, startSample: SampleSound.startSample), group: outputs)
        var maskEncoder = EncoderSettings()
        maskEncoder.codec = .ffv1
        let masks = try MediaWriter(path: mask.string, video: .init(size: size, timeBase: Rational(1, 1000), encoder: maskEncoder,
                                                             colorSpace: ColorSpace(matrix: colorSpace.matrix, fullRange: true)),
                                    group: outputs)
        let world = SampleWorldPainter(width: size.width, height: size.height, colorSpace: colorSpace)
        let person = SamplePersonPainter(width: size.width, height: size.height, colorSpace: colorSpace)
        // Each picture is painted once and copied into both recordings of it.
        let pictureBuffer = PlanarBuffer(width: size.width, height: size.height, colorSpace: colorSpace)
        let picture = pictureBuffer.image
        let coverageBuffer = PlanarBuffer(width: size.width, height: size.height)
        let coverage = coverageBuffer.image.luma
        let white = colorSpace.yuv(red: 255, green: 255, blue: 255)
        let sei = PoseSEI()
        for frame in scene.frames {
            world.paint(scene.camera(of: frame), into: picture)
            person.paint(at: scene.seconds(of: frame), into: picture, mask: coverage)
            if frame.flash { paintSquare(scene.flashSquare, white, into: picture, coverage: coverage) }
            let payload = sei.userDataPayload(for: frame.pose32)
            for writer in [video, publisher] {
                try writer.addVideoFrame(pts: frame.milliseconds * 90, duration: frame.durationMilliseconds * 90, sei: payload) {
                    $0.copy(from: picture)
                }
            }
            try masks.addVideoFrame(pts: frame.milliseconds, duration: frame.durationMilliseconds) { image in
                image.luma.copy(from: coverage)
                image.cb.fill(128)
                image.cr.fill(128)
            }
        }
        let last = scene.frames[scene.frames.count - 1]
        let end = last.milliseconds + last.durationMilliseconds
        try video.addAudio(SampleSound.samples(for: scene, endMilliseconds: end))
        try publisher.addAudio(SampleSound.samples(for: scene, from: publisherAudioStart, endMilliseconds: end))
        try video.finish()
        try masks.finish()
        try publisher.finish()
        withExtendedLifetime((pictureBuffer, coverageBuffer)) {}
    }

    /// Untagged, as phones write it: readers take BT.709 above 576 lines, BT.601 up to there.
    static func publisherColorSpace(_ size: PictureSize) -> ColorSpace {
        ColorSpace(tag: AVCOL_SPC_UNSPECIFIED, fullRange: false, height: size.height)
    }

    /// The phone's H.264 track: x264 medium, CRF 23, times in 1/90000 s (whole milliseconds).
    static func publisherVideo(_ size: PictureSize) -> MediaWriter.VideoSpec {
        var encoder = EncoderSettings()
        encoder.codec = .h264
        encoder.preset = "medium"
        encoder.crf = 23
        return .init(size: size, timeBase: Rational(1, 90000), frameRate: Rational(Int32(SampleScene.nominalRate), 1),
                     encoder: encoder, colorSpace: publisherColorSpace(size))
    }

    /// Where the archive's Opus copy of the sound starts (samples of stream time): with the first
    /// frame (Opus has no millisecond edit list to line up with, unlike AAC in MP4).
    static let publisherAudioStart = SampleScene.startMilliseconds * Int64(SampleSound.sampleRate / 1000)

    /// Paints `square` in `color` into `image` (whole 4:2:0 chroma samples: its corner and side are
    /// even) and marks it as foreground in `coverage`.
    static func paintSquare(_ square: (x: Int, y: Int, size: Int), _ color: YUVColor, into image: YUVImage, coverage: Plane?) {
        for y in square.y..<square.y + square.size {
            image.luma.row(y)[square.x..<square.x + square.size].update(repeating: color.y)
            coverage?.row(y)[square.x..<square.x + square.size].update(repeating: 255)
        }
        for y in (square.y >> 1)..<((square.y + square.size) >> 1) {
            for x in (square.x >> 1)..<((square.x + square.size) >> 1) {
                image.cb[x, y] = color.cb
                image.cr[x, y] = color.cr
            }
        }
    }
}
