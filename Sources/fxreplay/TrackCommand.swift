import ArgumentParser
import Foundation
import ReplayKitless

extension PlacementTrack.Format: ExpressibleByArgument {}

/// `fxreplay track`: where every annotation lands on every frame (formats.md §7), from packet
/// timestamps alone: nothing is decoded.
struct Track: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write each annotation's pixel position on every frame (CSV or JSON Lines), without decoding.")

    @Argument(help: "The recording.", completion: .file(extensions: ["mp4", "mov", "mkv", "webm", "m4v", "avi", "h264", "hevc"]))
    var input: String

    @OptionGroup var poseOptions: PoseOptions

    @Option(help: "Annotation scene (annotations.json).", completion: .file(extensions: ["json"]))
    var annotations: String

    @Option(name: .shortAndLong, help: "Track file to write.", completion: .file(extensions: ["csv", "jsonl"]))
    var output: String

    @Option(help: "csv or jsonl (default: jsonl for a .jsonl output, else csv).")
    var format: PlacementTrack.Format?

    @OptionGroup var inputAccess: InputAccessOptions

    func validate() throws {
        try requireFileNames(["INPUT": [input], "--annotations": [annotations], "-o": [output]])
        try poseOptions.requireSource()
    }

    func run() throws {
        FFmpegLogging.configure(verbose: false)
        let scene = try AnnotationScene.load(path: annotations)
        let settings = try poseOptions.settings()
        let scan = try settings.scan(input)
        let timeline = try settings.timeline(for: scan, input: input)
        let frames = zip(scan.frames, timeline.poses).map { timing, pose in
            TrackFrame(time: timing.time, width: scan.width, height: scan.height, pose: pose)
        }
        let rows = try PlacementTrack.rows(frames: frames, scene: scene, sceneFile: annotations,
                                           sceneTimeOrigin: settings.sceneTimeOrigin(for: scan))
        let chosen = format ?? (URL(fileURLWithPath: output).pathExtension.lowercased() == "jsonl" ? .jsonl : .csv)
        let text = PlacementTrack.text(rows, format: chosen)
        try AtomicOutput.write(Data(text.utf8), to: output,
                               inputs: [input, annotations] + scene.meshFiles + (poseOptions.poses.map { [$0] } ?? []))
        printError("fxreplay: wrote \(output): \(frames.count) frames × \(scene.annotations.count) annotations; "
                   + timeline.report.summary)
        printWarnings(timeline.warning.map { [$0] } ?? [])
    }
}
