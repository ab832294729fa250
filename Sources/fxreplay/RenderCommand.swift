import ArgumentParser
import Foundation
import ReplayKitless

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Re-render a recording: every frame at its own time, audio copied untouched.")

    @Argument(help: "The recording to render (any file or URL FFmpeg reads).")
    var input: String

    @Option(name: .shortAndLong, help: "Output file; the container comes from its extension (.mp4, .mov, .mkv, .webm).")
    var output: String

    @OptionGroup var encoder: EncoderOptions

    @Option(help: "Output size WxH in display orientation (default: the first frame's).")
    var size: PictureSize?

    @Flag(help: "Keep the container's rotation metadata instead of writing upright pixels.")
    var keepRotation = false

    @Flag(help: "Flip the picture horizontally (front cameras record mirrored).")
    var mirror = false

    @Flag(help: "Replace OUTPUT if it exists.")
    var overwrite = false

    @Option(help: "Write a JSON report (frame counts, decode errors, timing, output properties) to this file.")
    var report: String?

    @OptionGroup var progress: ProgressOptions

    /// Expanded by the entry point before parsing (see `RenderJob`); kept for `--help`.
    @Option(help: "Job spec (YAML or JSON) whose keys are render's option names; options on the command line override it.")
    var job: String?

    func run() throws {
        InterruptCleanup.shared.install()
        FFmpegLogging.configure(verbose: progress.verbose)
        var options = RenderOptions(input: input, output: output)
        options.encoder = encoder.settings
        options.size = size
        options.keepRotation = keepRotation
        options.mirror = mirror
        options.overwrite = overwrite
        let result = try Renderer(options: options).run(progress: progress.progress)
        if let report {
            try AtomicOutput.write(try prettyJSON(result), to: report, inputs: [input])
        }
        printError("fxreplay: wrote \(output): \(result.framesEncoded) frames, \(result.output.width)x\(result.output.height) \(result.output.codec), "
                   + String(format: "%.1f fps", result.speedFPS)
                   + (result.decodeErrors > 0 ? ", \(result.decodeErrors) decode errors skipped" : ""))
    }
}
