import ArgumentParser
import Foundation
import ReplayKitless

/// `fxreplay qa overlay INPUT --track A.csv --track B.csv -o review.mp4`: placements drawn on the video.
struct QAOverlay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overlay",
        abstract: "Draw the placements of one or more tracks on the video as coloured markers (re-encoded, audio copied).",
        discussion: """
            Each track's visible rows become a ring and cross at (x, y) on the frame with that number, in the \
            track's colour: 1st red, 2nd cyan, 3rd yellow, 4th green, 5th purple. Every frame keeps its own time.
            """)

    @Argument(help: "The recording the tracks belong to, or a call with --stream.", completion: .file(extensions: ["mp4", "mov", "mkv", "webm", "m4v", "avi", "h264", "hevc", "zip", "json"]))
    var input: String

    @OptionGroup var callStream: CallStreamOption

    @Option(help: "A placement track (CSV, or JSON Lines in a .jsonl file); repeat for several, each in its own colour.", completion: .file(extensions: ["csv", "jsonl"]))
    var track: [String]

    @Option(name: .shortAndLong, help: "The review video to write.", completion: .file(extensions: ["mp4", "mov", "mkv", "webm"]))
    var output: String

    @OptionGroup var encoder: EncoderOptions

    @Flag(help: "Replace OUTPUT if it exists.")
    var overwrite = false

    @OptionGroup var progress: ProgressOptions

    @OptionGroup var inputAccess: InputAccessOptions

    func validate() throws {
        try requireFileNames(["INPUT": [input], "--track": track, "-o": [output]])
    }

    func run() throws {
        FFmpegLogging.configure(verbose: progress.verbose)
        let tracks = try track.map { path throws(ReplayError) in try PlacementTrack.load(path: PathArgument.input(path)) }
        let call = try callStream.choice(input: input)
        var options = RenderOptions(input: call?.track.path.string ?? input, output: try PathArgument.output(output))
        options.encoder = encoder.settings
        options.overwrite = overwrite
        options.otherInputs = try track.map { spelling throws(ReplayError) in try PathArgument.input(spelling) }
        let result = try Renderer(options: options, extraEffects: [PlacementOverlay(tracks: tracks)]).run(progress: progress.progress, label: "overlay")
        let legend = track.enumerated().map { "\($0.element) \(PlacementOverlay.colorName(ofTrack: $0.offset))" }
        printError("fxreplay: wrote \(output): \(result.framesEncoded) frames; markers: " + legend.joined(separator: ", "))
        // Rows past the video's last frame are drawn nowhere: most likely a track of another recording.
        let beyond = zip(track, tracks).compactMap { path, placements in
            let count = placements.rows.filter { $0.frame >= result.framesEncoded }.count
            return count > 0 ? "\(path): \(count) rows name frames past the video's \(result.framesEncoded) (not drawn): is it this recording's track?" : nil
        }
        printWarnings(result.warnings + beyond)
        withExtendedLifetime(call) {}
    }
}

/// Refuses a bare number in a comma list of durations (`200` rather than `200ms` or `0.2s`): a
/// tap delay is a fraction of a second, so `200` is far more likely milliseconds than the 200
/// seconds it would mean. Zero needs no unit.
func requireTimeUnits(_ list: String, option: String) throws {
    for item in list.split(separator: ",") {
        let text = item.trimmingCharacters(in: .whitespaces)
        guard let value = Double(text), value.isFinite, value != 0 else { continue }
        throw ValidationError("\(option) \(text): give a unit: did you mean \(text)ms? (or \(text)s for seconds)")
    }
}

/// A check's text report as printed: its closing "FAIL: reasons" line shortened to "FAIL (…)", since
/// the reasons end the run once, as its error on stderr (formats.md §8, exit 1).
func printReport(_ text: String) {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    if let last = lines.lastIndex(where: { !$0.isEmpty }), lines[last].hasPrefix("FAIL: ") { lines[last] = "FAIL (the reason is on stderr)" }
    if lines.last?.isEmpty == true { lines.removeLast() }
    for line in lines { printLine(String(line)) }
}
