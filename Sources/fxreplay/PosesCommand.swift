import ArgumentParser
import Foundation
import ReplayKitless

extension MissingPosePolicy: ExpressibleByArgument {}

/// `--pose-time`: how sidecar (and scene) times relate to the video's timestamps: `call` and
/// `epoch` are a call's clock and Unix time, for `render CALL --stream ID` (formats.md §9).
enum PoseTimeChoice: String, ExpressibleByArgument, CaseIterable {
    case relative, absolute, call, epoch
}

/// Where the camera poses come from and how they meet the frames: shared by every command that uses poses.
struct PoseOptions: ParsableArguments {
    @Option(help: "Pose sidecar file: .jsonl, .csv or .pose32.", completion: .file(extensions: ["jsonl", "csv", "pose32"]))
    var poses: String?

    @Flag(help: "Read the poses from the video's own SEI (H.264/HEVC).")
    var posesFromSei = false

    @Option(name: .customLong("sei-uuid"),
            help: "UUID of the pose SEI to read (and, where poses are written into the video, to write; default 1618ea80-35fe-4bd9-b1cc-01954a32fb00).")
    var seiUUID: String?

    @Option(help: "Sidecar and scene times: relative to the first frame, absolute stream times, or (a call's stream) call times or Unix epoch seconds.")
    var poseTime: PoseTimeChoice = .relative

    @Option(parsing: .unconditional, help: "Seconds added to every pose sample time before matching.")
    var poseOffset: Double = 0

    @Option(help: "What frames without a pose sample get.")
    var missingPose: MissingPosePolicy = .interpolate

    @Option(parsing: .unconditional, help: "Vertical field of view in degrees, replacing the poses' own.")
    var fov: Double?

    @Option(parsing: .unconditional, help: "Near clipping distance in metres, replacing the poses' own.")
    var znear: Double?

    @Option(help: "Camera intrinsics fx,fy,cx,cy in pixels, replacing the field of view.")
    var intrinsics: String?

    @Option(name: .customLong("max-unmatched-poses"), parsing: .unconditional,
            help: ArgumentHelp("Fail (exit 3) when more than this percentage of the sidecar's samples match no frame (a wrong --pose-time or --pose-offset); above 10% a warning.",
                               valueName: "PERCENT"))
    var maxUnmatchedPoses: Double = 50

    func validate() throws {
        try requireFileNames(["--poses": [poses]])
        if poses != nil && posesFromSei { throw ValidationError("give only one of --poses FILE and --poses-from-sei") }
        if !poseOffset.isFinite { throw ValidationError("--pose-offset must be a number of seconds") }
        if !(0...100).contains(maxUnmatchedPoses) { throw ValidationError("--max-unmatched-poses must be a percentage, 0 to 100") }
        try validateSEIUUID(seiUUID)
    }

    /// Whether a pose source was given.
    var isGiven: Bool { poses != nil || posesFromSei }

    /// Commands that cannot work without poses call this from their `validate()`.
    func requireSource() throws {
        if !isGiven { throw ValidationError("give --poses FILE or --poses-from-sei") }
    }

    /// The library form of these options. `clockOffset` places `--pose-time call|epoch` on the
    /// stream's own clock (``PoseSettings/clockOffset``); those choices are bad usage without one.
    /// `placement` is where a call's stream sits on the call's clock, for scenes in call or Unix time.
    func settings(clockOffset: Double? = nil, placement: StreamPlacement? = nil) throws -> PoseSettings {
        var settings = PoseSettings(source: try poses.map { spelling throws(ReplayError) in .sidecar(path: try PathArgument.input(spelling)) } ?? .sei)
        settings.streamPlacement = placement
        settings.seiUUID = seiUUID
        settings.absoluteTime = poseTime != .relative
        if poseTime == .call || poseTime == .epoch {
            guard let clockOffset else {
                throw ReplayError.usage("--pose-time \(poseTime.rawValue) goes with a call: render CALL --stream ID (formats.md §9)")
            }
            settings.clockOffset = clockOffset
        }
        settings.offset = poseOffset
        settings.missingPose = missingPose
        settings.maxMissedFraction = maxUnmatchedPoses / 100
        settings.fovY = fov
        settings.zNear = znear
        settings.intrinsics = try intrinsics.map(PoseOverrides.parseIntrinsics)
        return settings
    }
}

/// Refuses a `--sei-uuid` that is not a UUID, whether or not this run reads or writes SEI.
func validateSEIUUID(_ text: String?) throws {
    guard let text else { return }
    do { _ = try PoseSEI(uuid: text) } catch { throw ValidationError("--sei-uuid: \(error.message)") }
}

/// `fxreplay poses …`: moving poses between sidecars and the video stream.
struct Poses: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Move per-frame camera poses between sidecar files and a video's SEI.",
        subcommands: [PosesExtract.self, PosesEmbed.self])
}

/// `fxreplay poses extract INPUT -o poses.jsonl`: the pose SEI of every frame, as a sidecar.
struct PosesExtract: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Write the poses carried in a video's SEI to a sidecar (.jsonl, .csv or .pose32).")

    @Argument(help: "The recording (H.264 or HEVC) whose SEI holds the poses.", completion: .file(extensions: ["mp4", "mov", "mkv", "webm", "m4v", "avi", "h264", "hevc"]))
    var input: String

    @Option(name: .shortAndLong, help: "Sidecar to write; its extension picks the format.", completion: .file())
    var output: String

    @Option(name: .customLong("sei-uuid"), help: "UUID of the pose SEI (default 1618ea80-35fe-4bd9-b1cc-01954a32fb00).")
    var seiUUID: String?

    @OptionGroup var inputAccess: InputAccessOptions

    func validate() throws {
        try requireFileNames(["INPUT": [input], "-o": [output]])
        try validateSEIUUID(seiUUID)
    }

    func run() throws {
        FFmpegLogging.configure(verbose: false)
        let sei = try seiUUID.map(PoseSEI.init(uuid:)) ?? PoseSEI()
        let written = try PoseSidecar.extract(from: input, to: PathArgument.output(output), sei: sei)
        printError("fxreplay: wrote \(output): \(written.poses) poses from \(written.frames) frames")
    }
}

/// `fxreplay poses embed INPUT --poses FILE -o OUTPUT`: the poses as SEI on every frame, by
/// re-encoding (any input) or, with `--copy`, by inserting SEI into the existing H.264/HEVC packets.
struct PosesEmbed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embed",
        abstract: "Write per-frame poses into an H.264/HEVC video as SEI (re-encoding, or --copy without it).",
        discussion: "The output is H.264 (default) or HEVC in .mp4, .mov or .mkv: other codecs and WebM cannot carry SEI.")

    @Argument(help: "The recording.", completion: .file(extensions: ["mp4", "mov", "mkv", "webm", "m4v", "avi", "h264", "hevc"]))
    var input: String

    @OptionGroup var poseOptions: PoseOptions

    @Option(name: .shortAndLong, help: "Output file.", completion: .file())
    var output: String

    @Flag(help: "Insert SEI into the existing packets instead of re-encoding (H.264/HEVC input only).")
    var copy = false

    @OptionGroup var encoder: EncoderOptions

    @Flag(help: "Replace OUTPUT if it exists.")
    var overwrite = false

    @OptionGroup var progress: ProgressOptions

    @OptionGroup var inputAccess: InputAccessOptions

    func validate() throws {
        try requireFileNames(["INPUT": [input], "-o": [output]])
        try poseOptions.requireSource()
        if let codec = encoder.codec, !codec.carriesSEI { throw ValidationError("--codec must be h264 or hevc to carry SEI") }
        if !["mp4", "mov", "mkv"].contains(URL(fileURLWithPath: output).pathExtension.lowercased()) {
            throw ValidationError("\(output): pose SEI needs an .mp4, .mov or .mkv output (H.264 or HEVC)")
        }
    }

    func run() throws {
        FFmpegLogging.configure(verbose: progress.verbose)
        let settings = try poseOptions.settings()
        if copy {
            let result = try PoseEmbedder.embedByCopy(input: input, output: PathArgument.output(output), poses: settings, overwrite: overwrite)
            printError("fxreplay: wrote \(output): pose SEI in \(result.embedded) of \(result.frames) frames (no re-encode); "
                       + result.match.summary)
            printWarnings(result.warnings)
            return
        }
        var options = RenderOptions(input: input, output: try PathArgument.output(output))
        options.encoder = encoder.settings
        if options.encoder.codec == nil { options.encoder.codec = .h264 }
        options.keepRotation = true
        options.overwrite = overwrite
        options.poses = settings
        options.embedPoses = true
        let report = try Renderer(options: options).run(progress: progress.progress, label: "embed")
        let poses = report.effects.poses
        printError("fxreplay: wrote \(output): pose SEI in \(poses?.framesWithPoseSEI ?? 0) of \(report.framesEncoded) frames; "
                   + (poses?.report ?? PoseMatchReport()).summary)
        printWarnings(report.warnings)
    }
}
