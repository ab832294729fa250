import ArgumentParser
import Foundation
import ReplayKitless

extension PlacementTrack.Format: ExpressibleByArgument {}

/// `fxreplay track`: where every annotation lands on every frame (formats.md §7), from packet
/// timestamps alone: nothing is decoded.
struct Track: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write each annotation's pixel position on every frame (CSV or JSON Lines), without decoding.")

    @Argument(help: "The recording, or a call with --stream.", completion: .file(extensions: ["mp4", "mov", "mkv", "webm", "m4v", "avi", "h264", "hevc", "zip", "json"]))
    var input: String

    @OptionGroup var callStream: CallStreamOption

    @Flag(help: "With --stream: the t column in call time instead of seconds since the stream's first frame.")
    var callTimes = false

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
        if callTimes && callStream.stream == nil { throw ValidationError("--call-times goes with a call's --stream") }
    }

    func run() throws {
        FFmpegLogging.configure(verbose: false)
        // A call's stream is read from its file, placed on the call's clock (the opened call owns a ZIP's files).
        let call = try callStream.choice(input: input, poseTime: poseOptions.poseTime)
        let poses = try poseOptions.settings(clockOffset: call?.poseClockOffset, placement: call?.placement)
        let track = try PlacementTrack.track(of: call?.track.path.string ?? input, poses: poses, scene: try PathArgument.input(annotations))
        var rows = track.rows
        if callTimes, let call {
            // Call time of a frame: its presentation time less (mediaStart − start), formats.md §9.
            let shift = track.firstFrameTime - call.placement.callToMedia
            for index in rows.indices { rows[index].t += shift }
        }
        let chosen = format ?? (URL(fileURLWithPath: output).pathExtension.lowercased() == "jsonl" ? .jsonl : .csv)
        let text = PlacementTrack.text(rows, format: chosen)
        try AtomicOutput.write(Data(text.utf8), to: PathArgument.output(output),
                               inputs: [input, annotations] + track.scene.meshFiles.map(\.string) + (poseOptions.poses.map { [$0] } ?? []))
        withExtendedLifetime(call) {}
        printError("fxreplay: wrote \(output): \(track.frameCount) frames × \(track.scene.annotations.count) annotations; "
                   + track.poseMatching.summary)
        printWarnings(track.poseWarning.map { [$0] } ?? [])
    }
}
