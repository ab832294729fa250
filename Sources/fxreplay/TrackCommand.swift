import ArgumentParser
import Foundation
import ReplayKitless
import SystemPackage

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
        let track = try PlacementTrack.track(of: FilePath(input), poses: poseOptions.settings(), scene: FilePath(annotations))
        let chosen = format ?? (URL(fileURLWithPath: output).pathExtension.lowercased() == "jsonl" ? .jsonl : .csv)
        let text = PlacementTrack.text(track.rows, format: chosen)
        try AtomicOutput.write(Data(text.utf8), to: output,
                               inputs: [input, annotations] + track.scene.meshFiles + (poseOptions.poses.map { [$0] } ?? []))
        printError("fxreplay: wrote \(output): \(track.frameCount) frames × \(track.scene.annotations.count) annotations; "
                   + track.poseMatching.summary)
        printWarnings(track.poseWarning.map { [$0] } ?? [])
    }
}
