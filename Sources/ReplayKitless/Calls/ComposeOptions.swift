/// Everything `fxreplay compose` takes (formats.md §9, Composition).
public struct ComposeOptions: Sendable {
    /// The call to compose, with its tracks placed on its clock.
    public var call: Call
    /// The file written; the container comes from its extension.
    public var output: FilePath
    /// Where each participant goes (`--layout`); the grid by default.
    public var layout: CallLayout = .grid
    /// The composed picture (`--size`, default 1280x720).
    public var size = PictureSize(width: 1280, height: 720)
    /// Output frames per second (`--fps`).
    public var fps = 30
    /// Call seconds shown (`--from`, `--to`; `to` `nil`: the latest stop).
    public var from = 0.0
    /// Call second the output ends at; `nil`: the latest stop of any stream.
    public var to: Double?
    /// How pictures fill their tiles unless a layout file says (`--tile-fit`).
    public var tileFit: BackgroundFit = .contain
    /// Uncovered area (`--background-color`; a layout file's `background` wins).
    public var background = RGBAColor(red: 0, green: 0, blue: 0)
    /// Each tile labelled with its participant's name (`--names`).
    public var names = false
    /// The font for names (default: DejaVu Sans).
    public var font: FilePath?
    /// The output's codec, quality and speed, as for a render (a call of one video stream is
    /// decoded on at most `threads` threads when that is set; several streams on one each).
    public var encoder = EncoderSettings()
    /// Replace an existing output file (`--overwrite`); otherwise one is refused before any work.
    public var overwrite = false
    /// Per-stream effects (a job's `streams:`): a stream's id or name → its effects.
    public var streamEffects: [String: StreamEffects] = [:]
    /// Outline the tile of the participant who is the loudest in each 100 ms window (`--highlight-speaker`).
    public var highlightSpeaker = false
    /// A screen share (`videoType` `screen`) is large in the `focus` layout while active (§9);
    /// the command line turns this off when `--focus` names who is large.
    public var screenShareTakesFocus = true
    /// Who speaks when, when measured beforehand (`--speakers` measures it for its cue file);
    /// `nil`: the composer measures it if the `speaker` layout or ``highlightSpeaker`` needs it.
    public var speakerActivity: SpeakerActivity?
    /// Compose more than ``InputLimits/callSeconds`` of call time (`--allow-long-call`); otherwise
    /// such a composition is refused before any work, as a manifest may claim any length.
    public var allowLongCall = false
    /// Damage tolerated per track (`--max-decode-errors`; 0 with `--strict`): past it the
    /// composition fails naming the stream and its file. `nil`: every damage is concealed or
    /// skipped, counted and named in a warning.
    public var maxDecodeErrors: Int?

    /// One stream's own effects: render options whose effect settings (poses, annotations,
    /// background, mirror, size) apply to its pictures, with the clock its pose times are on.
    public struct StreamEffects: Sendable {
        /// The stream's render settings; only the effect settings are used (input, output and encoder are the composition's).
        public var options: RenderOptions
        /// `--pose-time call|epoch`: pose and scene times on the call's clock or Unix time, placed
        /// on each of the stream's files through the timeline; `nil`: the file's own times.
        public var poseClock: CallPoseClock?

        /// Effects of `options`, with pose times on `poseClock` (`nil`: the file's own times).
        public init(options: RenderOptions, poseClock: CallPoseClock? = nil) {
            self.options = options
            self.poseClock = poseClock
        }
    }

    /// A composition of `call` into `output` with the defaults of `fxreplay compose`:
    /// the grid at 1280×720, 30 fps, the whole call, pictures contained in their tiles on black.
    public init(call: Call, output: FilePath) {
        self.call = call
        self.output = output
    }

    /// The end of the composition in call seconds: `to`, clamped to the call's end (nothing is
    /// shown after the latest stop), or the latest stop.
    public var end: Double { min(to ?? call.duration, call.duration) }

    /// Output frames: those `k` whose time `from + k / fps` is before the end.
    public var frameCount: Int { Int(clamping: (end - from) * Double(fps) - 1e-9, rounding: .up, to: 0...Int.max) }

    /// Refuses times that cannot be composed, before anything is converted to a frame or sample
    /// count: `from` and `to` must be finite, from 0 to ``InputLimits/optionSeconds``, `from`
    /// before the call's end and `to` after `from` (usage, naming the option, the value and the
    /// call's length); and the span more than ``InputLimits/callSeconds`` without ``allowLongCall``
    /// (bad input naming the call and its length).
    public func checkTimes() throws(ReplayError) {
        try checkTimeOption("ComposeOptions.from", from)
        if let to { try checkTimeOption("ComposeOptions.to", to) }
        let length = call.duration
        guard length > 0 else { throw .badInput(file: call.source.string, "the call is empty: none of its streams has any media") }
        guard from < length else {
            throw .usage("\(call.source): `ComposeOptions.from` \(from) s is at or past the end of the call, which lasts \(Self.seconds(length))",
                         options: ["ComposeOptions.from"])
        }
        if let to, to <= from {
            throw .usage("`ComposeOptions.to` \(to): must be later than `ComposeOptions.from` \(from)", options: ["ComposeOptions.to", "ComposeOptions.from"])
        }
        guard end - from <= InputLimits.callSeconds || allowLongCall else {
            throw .badInput(file: call.source.string, "composing \(Self.seconds(end - from)) of call time (the call lasts \(Self.seconds(length))) "
                            + "is more than the \(Self.seconds(InputLimits.callSeconds)) fxreplay composes without `ComposeOptions.allowLongCall` "
                            + "(see docs/limits.md); give `ComposeOptions.from`/`ComposeOptions.to`, or `ComposeOptions.allowLongCall`",
                            options: ["ComposeOptions.allowLongCall", "ComposeOptions.from", "ComposeOptions.to"])
        }
    }

    /// `seconds` as "12.500 s", with hours when there are many ("43200.000 s (12.0 h)").
    static func seconds(_ seconds: Double) -> String {
        String(format: "%.3f s", seconds) + (seconds >= 3600 ? String(format: " (%.1f h)", seconds / 3600) : "")
    }

    /// Call time shown by output frame `k`.
    public func callTime(ofFrame k: Int) -> Double { from + Double(k) / Double(fps) }

    /// Every file the composition reads: none may be written over. Spellings, as a stream's
    /// effects may read masks by URL.
    public var inputFiles: [String] {
        let callFiles = [call.source.string, call.manifest] + call.streams.flatMap { $0.tracks.map(\.path.string) }
        return callFiles + streamEffects.values.flatMap(\.options.inputFiles) + [layoutFile, font].compactMap { $0?.string }
    }

    private var layoutFile: FilePath? { if case .custom(let layout) = layout { layout.file } else { nil } }
}
