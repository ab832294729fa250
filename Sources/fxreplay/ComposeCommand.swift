import ArgumentParser
import Foundation
import FxreplayBatch
import ReplayKitless

/// `fxreplay compose CALL -o OUT`: the whole call in one video, every stream at its call time
/// (formats.md §9, Composition), in a grid, focus, pip or custom layout.
struct Compose: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compose a whole call (archive ZIP, its folder or manifest, or a call manifest) into one video.")

    @Argument(help: "The call: an individual-stream archive (.zip, its folder, its manifest .json) or a call manifest (.json).", completion: .file(extensions: ["zip", "json"]))
    var call: String

    @Option(name: .shortAndLong, help: "Output file; the container comes from its extension (.mp4, .mov, .mkv, .webm).", completion: .file(extensions: ["mp4", "mov", "mkv", "webm"]))
    var output: String

    @Option(help: ArgumentHelp("grid, focus, pip, speaker (focus on who speaks), or a layout file (formats.md §9).",
                               valueName: "grid|focus|pip|speaker|FILE.json"), completion: .list(["grid", "focus", "pip", "speaker"]))
    var layout: String = "grid"

    @Option(help: "The participant (stream id or name) focus and pip show large (default: the first to join with video, a screen share while one is active).")
    var focus: String?

    @Option(help: ArgumentHelp("Write a WebVTT file with a cue, the participant's name, per span in which a participant is the loudest (100 ms windows, above -45 dBFS).",
                               valueName: "FILE.vtt"), completion: .file(extensions: ["vtt"]))
    var speakers: String?

    @Flag(help: "Outline the tile of the participant who is the loudest (in each 100 ms window).")
    var highlightSpeaker = false

    @Option(parsing: .unconditional, help: "Output size WxH.", transform: PictureSize.checkedArgument)
    var size: PictureSize = PictureSize(width: 1280, height: 720)

    @Option(parsing: .unconditional, help: "Output frames per second.")
    var fps: Int = 30

    @Option(parsing: .unconditional, help: "Call time in seconds the output starts at.")
    var from: Double = 0

    @Option(parsing: .unconditional, help: "Call time in seconds the output ends at (default: the latest stop).")
    var to: Double?

    @Flag(help: ArgumentHelp("Compose more than 12 hours of call time (refused otherwise: a manifest may claim any length).",
                             visibility: .default))
    var allowLongCall = false

    @Option(help: "How pictures fill their tiles: contain (whole picture, background around it) or cover (filled, centre-cropped).")
    var tileFit: BackgroundFit = .contain

    @Option(help: "Colour of the area no picture covers, #RRGGBB.")
    var backgroundColor: String = "#000000"

    @Flag(help: "Label each tile with its participant's name.")
    var names = false

    @Option(help: "Font file for --names (default: DejaVu Sans).", completion: .file(extensions: ["ttf", "otf", "ttc"]))
    var font: String?

    @OptionGroup(title: "Encoding") var encoder: EncoderOptions

    @Option(parsing: .unconditional, help: "Fail when more than N packets or pictures of one track are damaged (default: conceal or skip them all, counting them).")
    var maxDecodeErrors: Int?

    @Flag(help: "Fail on the first damaged packet or picture of any track.")
    var strict = false

    @Flag(help: "Replace OUTPUT (and the report and preview) if they exist.")
    var overwrite = false

    @Option(help: "Write a JSON report (participants, frame counts, decode errors, timing) to this file.", completion: .file(extensions: ["json"]))
    var report: String?

    @Option(help: ArgumentHelp("Also write a PNG contact sheet of six composed frames.", valueName: "FILE.png"), completion: .file(extensions: ["png"]))
    var preview: String?

    @OptionGroup(title: "Progress and messages") var progress: ProgressOptions

    @OptionGroup(title: "Input access") var inputAccess: InputAccessOptions

    /// Expanded by the entry point before parsing (see `RenderJob`); its `streams:` section is read here.
    @Option(help: "Job spec (YAML or JSON) whose keys are compose's option names, and whose streams: section maps a stream id or name to render options for that stream.", completion: .file(extensions: ["yaml", "yml", "json"]))
    var job: String?

    func validate() throws {
        try requireFileNames(["CALL": [call], "-o": [output], "--report": [report], "--preview": [preview], "--font": [font], "--job": [job], "--speakers": [speakers]])
        guard (1...240).contains(fps) else { throw ValidationError("--fps must be 1 to 240") }
        guard size.width >= 2, size.height >= 2 else { throw ValidationError("--size must be at least 2x2") }
        try requirePNGName(preview)
        try checkTimeOption("--from", from)
        if let to {
            try checkTimeOption("--to", to)
            guard to > from else { throw ValidationError("--to must be later than --from") }
        }
        guard backgroundColor.hasPrefix("#"), backgroundColor.count == 7, RGBAColor(hex: backgroundColor) != nil else {
            throw ValidationError("--background-color: '\(backgroundColor)' is not a colour like #RRGGBB")
        }
        guard tileFit != .stretch else { throw ValidationError("--tile-fit takes contain or cover: a picture keeps its aspect ratio") }
        if focus != nil && !["focus", "pip"].contains(layout) { throw ValidationError("--focus goes with --layout focus or pip") }
        if let maxDecodeErrors, maxDecodeErrors < 0 { throw ValidationError("--max-decode-errors must be 0 or more") }
    }

    func run() throws {
        FFmpegLogging.configure(verbose: progress.verbose)
        let opened = try OpenedCall.open(PathArgument.input(call))
        let call = opened.call
        var options = ComposeOptions(call: call, output: try PathArgument.output(output))
        options.size = size
        options.fps = fps
        options.from = from
        options.to = to
        options.tileFit = tileFit
        options.background = RGBAColor(hex: backgroundColor) ?? options.background
        options.names = names
        options.font = try font.map { spelling throws(ReplayError) in try PathArgument.input(spelling) }
        options.encoder = encoder.settings
        options.overwrite = overwrite
        options.allowLongCall = allowLongCall
        options.maxDecodeErrors = strict ? 0 : maxDecodeErrors
        options.layout = try chosenLayout(for: call)
        options.highlightSpeaker = highlightSpeaker
        options.screenShareTakesFocus = focus == nil
        if let job { options.streamEffects = try streamEffects(job: job, call: call) }

        let outputs = OutputGroup()
        let inputs = options.inputFiles + [output]
        let sheet = try preview.map { path throws(ReplayError) in
            try ContactSheet(output: outputs.reserve(PathArgument.output(path), overwrite: overwrite, inputs: inputs))
        }
        let reportOutput = try report.map { path throws(ReplayError) in try outputs.reserve(PathArgument.output(path), overwrite: overwrite, inputs: inputs) }
        let speakersOutput = try speakers.map { path throws(ReplayError) in try outputs.reserve(PathArgument.output(path), overwrite: overwrite, inputs: inputs) }
        if speakersOutput != nil {
            try options.checkTimes()
            options.speakerActivity = try SpeakerActivity.measure(call, from: options.from, to: options.end)
        }
        let result = try Composer(options: options, extraEffects: sheet.map { [$0] } ?? [])
            .run(progress: progress.progress, beforeCommit: { report throws(ReplayError) in
                // (Before the video moves into place: it appears only with its report and sheet.)
                try outputs.checkUnread()
                try sheet?.write()
                if let speakersOutput, let activity = options.speakerActivity {
                    try speakersOutput.write(Data(activity.webVTT(for: call, from: options.from, to: options.end).utf8))
                }
                guard let reportOutput else { return }
                var report = report
                report.warnings = report.warnings.map(OptionFlags.warning)
                let json: Data
                do { json = try prettyJSON(report) } catch { throw .processing("\(reportOutput.finalPath): \(error)") }
                try reportOutput.write(json)
            })
        try outputs.commit()
        withExtendedLifetime(opened) {}
        printError("fxreplay: wrote \(output): \(result.framesEncoded) frames, \(result.output.width)x\(result.output.height) \(result.output.codec), "
                   + "\(result.participants.count) participants shown, " + String(format: "%.1f fps", result.speedFPS))
        printWarnings(result.warnings)
    }

    /// `--layout` as the library takes it; focus and pip default to the first participant with video.
    private func chosenLayout(for call: Call) throws(ReplayError) -> CallLayout {
        switch layout {
        case "grid": return .grid
        case "speaker": return .speaker
        case "focus", "pip":
            guard let key = focus ?? call.defaultFocus else {
                throw .badInput("\(call.source): no stream has video to focus on")
            }
            return layout == "focus" ? .focus(key) : .pip(key)
        default:
            guard layout.lowercased().hasSuffix(".json") else {
                throw .usage("--layout: '\(layout)' is not grid, focus, pip, speaker or a layout file (.json)")
            }
            return .custom(try CustomLayout.load(path: PathArgument.input(layout), width: size.width & ~1, height: size.height & ~1))
        }
    }

    /// The job's `streams:` section: each key must name a stream of the call (bad input naming the
    /// key and listing the ids otherwise), each value is render's options, checked as render checks them.
    private func streamEffects(job path: String, call: Call) throws -> [String: ComposeOptions.StreamEffects] {
        let spec = try JobSpec(contentsOf: path)
        var effects: [String: ComposeOptions.StreamEffects] = [:]
        for entry in spec.streams {
            let ids = call.streams.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
            guard call.streams.contains(where: { $0.id == entry.key || $0.name == entry.key }) else {
                throw ReplayError.badInput(file: path, line: entry.line, field: "streams.\(entry.key)", "no such stream; the call's streams are \(ids)")
            }
            try RenderJob.check(entry.options, origin: path, line: entry.line)
            let render = try Render.parse(["stream-input.mp4", "-o", "stream-output.mp4"] + entry.options.flatMap(\.arguments))
            try render.checkCombinations()
            // Call and Unix pose times are placed on each of the stream's files by the composer.
            let clock = CallPoseClock(rawValue: render.poseOptions.poseTime.rawValue)
            let options = try render.renderOptions(input: "stream-input.mp4", clockOffset: clock == nil ? nil : 0)
            effects[entry.key] = ComposeOptions.StreamEffects(options: options, poseClock: clock)
        }
        return effects
    }
}
