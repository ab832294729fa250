import ArgumentParser
import Foundation
import ReplayKitless

extension MissingPosePolicy: ExpressibleByArgument {}

/// `--pose-time`: how sidecar (and scene) times relate to the video's timestamps.
enum PoseTimeChoice: String, ExpressibleByArgument, CaseIterable {
    case relative, absolute
}

/// Where the camera poses come from and how they meet the frames: shared by every command that uses poses.
struct PoseOptions: ParsableArguments {
    @Option(help: "Pose sidecar file: .jsonl, .csv or .pose32.")
    var poses: String?

    @Flag(help: "Read the poses from the video's own SEI (H.264/HEVC).")
    var posesFromSei = false

    @Option(name: .customLong("sei-uuid"), help: "UUID of the pose SEI (default 1618ea80-35fe-4bd9-b1cc-01954a32fb00).")
    var seiUUID: String?

    @Option(help: "Sidecar and scene times: relative to the first frame, or absolute stream times.")
    var poseTime: PoseTimeChoice = .relative

    @Option(help: "Seconds added to every pose sample time before matching.")
    var poseOffset: Double = 0

    @Option(help: "What frames without a pose sample get.")
    var missingPose: MissingPosePolicy = .interpolate

    @Option(help: "Vertical field of view in degrees, replacing the poses' own.")
    var fov: Double?

    @Option(help: "Near clipping distance in metres, replacing the poses' own.")
    var znear: Double?

    @Option(help: "Camera intrinsics fx,fy,cx,cy in pixels, replacing the field of view.")
    var intrinsics: String?

    func validate() throws {
        if (poses == nil) == !posesFromSei { throw ValidationError("give exactly one of --poses FILE and --poses-from-sei") }
        if !poseOffset.isFinite { throw ValidationError("--pose-offset must be a number of seconds") }
    }

    /// The SEI reader, when poses come from the stream.
    func sei() throws -> PoseSEI? {
        guard posesFromSei else { return nil }
        return try seiUUID.map(PoseSEI.init(uuid:)) ?? PoseSEI()
    }

    /// Matches the poses to the scanned frames. SEI samples are keyed by their own frame's time,
    /// so they are always relative, whatever `--pose-time` says about sidecars and scenes.
    func timeline(for scan: VideoPacketScan, input: String) throws -> PoseTimeline {
        let overrides = try PoseOverrides(fovY: fov, zNear: znear, intrinsics: intrinsics.map(PoseOverrides.parseIntrinsics))
        var options = PoseMatchOptions(offset: poseOffset, policy: missingPose, overrides: overrides)
        let samples: [PoseSample]
        let source: String
        if let poses {
            samples = try PoseSidecar.read(path: poses)
            source = poses
            if poseTime == .absolute { options.timeBase = .absolute(firstFrameTime: scan.firstFrameTime) }
        } else {
            samples = scan.seiSamples
            source = input
            guard !samples.isEmpty else { throw ReplayError.badInput("\(input): no pose SEI found in the video") }
        }
        return try PoseTimeline(samples: samples, frames: scan.frames, options: options, source: source)
    }

    /// Scene times follow `--pose-time`: with absolute times, frame times shift by the first frame's.
    func sceneTimeOrigin(for scan: VideoPacketScan) -> Double {
        poseTime == .absolute ? scan.firstFrameTime : 0
    }

    /// A one-line account of what matching did, for stderr.
    static func summary(_ report: PoseMatchReport) -> String {
        "poses: \(report.matched) frames matched, \(report.interpolated) interpolated, \(report.held) held, "
            + "\(report.hidden) hidden, \(report.unusedSamples) samples unused"
    }
}

/// `fxreplay poses …`: moving poses between sidecars and the video stream.
struct Poses: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Extract or convert per-frame camera poses.",
        subcommands: [PosesExtract.self])
}

/// `fxreplay poses extract INPUT -o poses.jsonl`: the pose SEI of every frame, as a sidecar.
struct PosesExtract: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Write the poses carried in a video's SEI to a sidecar (.jsonl, .csv or .pose32).")

    @Argument(help: "The recording (H.264 or HEVC) whose SEI holds the poses.")
    var input: String

    @Option(name: .shortAndLong, help: "Sidecar to write; its extension picks the format.")
    var output: String

    @Option(name: .customLong("sei-uuid"), help: "UUID of the pose SEI (default 1618ea80-35fe-4bd9-b1cc-01954a32fb00).")
    var seiUUID: String?

    func run() throws {
        FFmpegLogging.configure(verbose: false)
        let format = try PoseSidecarFormat(path: output)
        let sei = try seiUUID.map(PoseSEI.init(uuid:)) ?? PoseSEI()
        let scan = try VideoPacketScan(path: input, sei: sei)
        let samples = scan.seiSamples
        guard !samples.isEmpty else { throw ReplayError.badInput("\(input): no pose SEI found in the video") }
        // pose32 has one record per frame and no timestamps: a gap would shift every later pose.
        if format == .pose32, let gap = scan.seiPoses.firstIndex(where: { $0 == nil }) {
            throw ReplayError.badInput("\(input): frame \(gap) has no pose SEI, and .pose32 needs one record per frame; "
                                       + "write .jsonl or .csv instead")
        }
        let bytes = try PoseSidecar.encode(samples, format: format)
        try AtomicOutput.write(Data(bytes), to: output, inputs: [input])
        printError("fxreplay: wrote \(output): \(samples.count) poses from \(scan.frames.count) frames")
    }
}
