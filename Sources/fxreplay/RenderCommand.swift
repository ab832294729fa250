import ArgumentParser
import Foundation
import ReplayKitless

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Re-render a recording: every frame at its own time, audio copied untouched.")

    @Argument(help: "The recording to render (any file or URL FFmpeg reads), or a call with --stream.", completion: .file())
    var input: String

    @Option(help: ArgumentHelp("With a call as INPUT (archive .zip, its folder or manifest, a call manifest): the stream to render, by id or name.",
                               valueName: "ID|NAME"))
    var stream: String?

    @Option(name: .shortAndLong, help: "Output file; the container comes from its extension (.mp4, .mov, .mkv, .webm).", completion: .file(extensions: ["mp4", "mov", "mkv", "webm"]))
    var output: String

    @OptionGroup(title: "Encoding") var encoder: EncoderOptions

    @OptionGroup var sound: AudioOptions

    @OptionGroup var trimming: TrimOptions

    @OptionGroup var processing: ProcessingOptions

    @Option(parsing: .unconditional, help: "Output size WxH in display orientation (default: the first frame's).",
            transform: PictureSize.checkedArgument)
    var size: PictureSize?

    @Flag(help: "Keep the container's rotation metadata instead of writing upright pixels.")
    var keepRotation = false

    @Flag(help: "Flip the picture horizontally (front cameras record mirrored).")
    var mirror = false

    @Flag(help: "With --stream: render more than 12 hours of a call's file (refused otherwise: a stray timestamp may claim any length).")
    var allowLongCall = false

    @Flag(help: "Replace OUTPUT if it exists.")
    var overwrite = false

    @Option(parsing: .unconditional, help: "Fail when more than N packets or frames cannot be decoded (default: skip them all, counting them).")
    var maxDecodeErrors: Int?

    @Flag(help: "Fail on the first decode error.")
    var strict = false

    @Option(help: "Write a JSON report (frame counts, decode errors, timing, output properties) to this file.", completion: .file(extensions: ["json"]))
    var report: String?

    @OptionGroup(title: "Camera poses") var poseOptions: PoseOptions

    @Flag(help: "Write each frame's pose as SEI into the H.264/HEVC output (formats.md §4).")
    var embedPoses = false

    @Option(help: "Annotation scene (annotations.json) to draw from each frame's pose; needs --poses or --poses-from-sei.", completion: .file(extensions: ["json"]))
    var annotations: String?

    @Option(help: "Font file for annotation labels (default: DejaVu Sans).", completion: .file(extensions: ["ttf", "otf", "ttc"]))
    var font: String?

    @Flag(help: "Draw the person (mask foreground) over the annotations.")
    var occludeWithMask = false

    @Option(help: ArgumentHelp("Also write a PNG contact sheet: six frames spread over the render, 3×2, 320 pixels wide, with their times.",
                               valueName: "FILE.png"), completion: .file(extensions: ["png"]))
    var preview: String?

    @OptionGroup(title: "Progress and messages") var progress: ProgressOptions

    /// Expanded by the entry point before parsing (see `RenderJob`); kept for `--help`.
    @Option(help: "Job spec (YAML or JSON) whose keys are render's option names; options on the command line override it.", completion: .file(extensions: ["yaml", "yml", "json"]))
    var job: String?

    @OptionGroup(title: "Background replacement") var backgroundReplacement: BackgroundOptions

    @OptionGroup(title: "Input access") var inputAccess: InputAccessOptions

    func validate() throws {
        if stream == "" { throw ValidationError("--stream: empty stream id") }
        try requireFileNames(["INPUT": [input], "-o": [output], "--report": [report], "--annotations": [annotations],
                              "--font": [font], "--preview": [preview], "--job": [job]])
        if let maxDecodeErrors, maxDecodeErrors < 0 { throw ValidationError("--max-decode-errors must be 0 or more") }
        try requirePNGName(preview)
    }

    /// Options that only make sense together. Checked when the command runs, not in `validate()`,
    /// so a job spec may hold one half and the command line or a batch's discovered inputs the other.
    func checkCombinations() throws(ReplayError) {
        if annotations != nil && !poseOptions.isGiven {
            throw .usage("--annotations needs camera poses: --poses FILE or --poses-from-sei")
        }
        if (font != nil || occludeWithMask) && annotations == nil { throw .usage("--font and --occlude-with-mask go with --annotations") }
        if embedPoses && !poseOptions.isGiven { throw .usage("--embed-poses needs --poses FILE or --poses-from-sei") }
    }

    /// The options as the library takes them (also a compose job's per-stream options): `input` is
    /// the file rendered, `clockOffset` where `--pose-time call|epoch` puts pose times on its clock,
    /// `placement` where a call's stream sits on the call's clock.
    func renderOptions(input: String, clockOffset: Double?, placement: StreamPlacement? = nil) throws -> RenderOptions {
        var options = RenderOptions(input: input, output: try PathArgument.output(output))
        options.encoder = encoder.settings
        options.audio = sound.settings
        options.from = trimming.from
        options.to = trimming.to
        options.processThreads = processing.processThreads
        options.size = size
        options.keepRotation = keepRotation
        options.mirror = mirror
        options.overwrite = overwrite
        options.maxDecodeErrors = strict ? 0 : maxDecodeErrors
        options.poses = poseOptions.isGiven ? try poseOptions.settings(clockOffset: clockOffset, placement: placement) : nil
        options.embedPoses = embedPoses
        if let annotations {
            var settings = AnnotationSettings(scene: try PathArgument.input(annotations))
            settings.font = try font.map { spelling throws(ReplayError) in try PathArgument.input(spelling) }
            settings.occludeWithMask = occludeWithMask
            options.annotations = settings
        }
        options.background = try backgroundReplacement.settings()
        // The job spec was expanded into the arguments before parsing, but it is a file this run reads.
        options.otherInputs = try job.map { spelling throws(ReplayError) in [try PathArgument.input(spelling)] } ?? []
        return options
    }

    func run() throws {
        try checkCombinations()
        FFmpegLogging.configure(verbose: progress.verbose)
        // A call's stream is rendered from its file; the opened call owns a ZIP's extracted files until the end.
        let call = try CallStreamChoice(input: input, stream: stream, poseTime: poseOptions.poseTime)
        if let call {
            try call.opened.call.checkRenderedLength(of: call.track, from: trimming.from, to: trimming.to, allowLongCall: allowLongCall)
        }
        let options = try renderOptions(input: call?.track.path.string ?? input, clockOffset: call?.poseClockOffset, placement: call?.placement)
        // Every output is checked before the render: none may be an input or another output, or exist unasked.
        // The preview and the report are written before the video is moved into place, and moved
        // after it: a full disk leaves none of them.
        let outputs = OutputGroup()
        let inputs = options.inputFiles + [output, input]
        let sheet = try preview.map { path throws(ReplayError) in
            try ContactSheet(output: outputs.reserve(PathArgument.output(path), overwrite: overwrite, inputs: inputs))
        }
        let reportOutput = try report.map { path throws(ReplayError) in try outputs.reserve(PathArgument.output(path), overwrite: overwrite, inputs: inputs) }
        call?.printChoice()
        let renderer = Renderer(options: options, extraEffects: sheet.map { [$0] } ?? [])
        let result = try renderer.run(progress: progress.progress, beforeCommit: { report throws(ReplayError) in
            // (Before the video moves into place: it appears only with its report and sheet.)
            try outputs.checkUnread()
            try sheet?.write()
            guard let reportOutput else { return }
            var report = report
            if let call { report.input = call.reportedInput }  // (not the private folder a ZIP was extracted to)
            report.warnings = report.warnings.map(OptionFlags.warning)
            let json: Data
            do { json = try prettyJSON(report) } catch { throw .processing("\(reportOutput.finalPath): \(error)") }
            try reportOutput.write(json)
        })
        try outputs.commit()
        withExtendedLifetime(call) {}
        printError("fxreplay: wrote \(output): \(result.framesEncoded) frames, \(result.output.width)x\(result.output.height) \(result.output.codec), "
                   + String(format: "%.1f fps", result.speedFPS))
        printWarnings(result.warnings)
        if let masks = result.effects.background, masks.masksHeld + masks.framesKeptOriginal > 0 {
            printWarnings(["frames without a mask: \(masks.masksHeld) held the last mask, "
                           + "\(masks.framesKeptOriginal) kept their original background"])
        }
    }
}
