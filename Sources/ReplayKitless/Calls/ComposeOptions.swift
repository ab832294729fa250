/// Everything `fxreplay compose` takes (formats.md §9, Composition).
public struct ComposeOptions: Sendable {
    /// The call to compose, with its tracks placed on its clock.
    public var call: Call
    /// Output path; the container comes from its extension.
    public var output: String
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
    public var font: String?
    /// The output's codec, quality and speed, as for a render.
    public var encoder = EncoderSettings()
    /// Replace an existing output file (`--overwrite`); otherwise one is refused before any work.
    public var overwrite = false
    /// Per-stream effects (a job's `streams:`): a stream's id or name → its effects.
    public var streamEffects: [String: StreamEffects] = [:]

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
    public init(call: Call, output: String) {
        self.call = call
        self.output = output
    }

    /// The end of the composition in call seconds.
    public var end: Double { to ?? call.duration }

    /// Output frames: those `k` whose time `from + k / fps` is before the end.
    public var frameCount: Int { max(0, Int(((end - from) * Double(fps) - 1e-9).rounded(.up))) }

    /// Call time shown by output frame `k`.
    public func callTime(ofFrame k: Int) -> Double { from + Double(k) / Double(fps) }

    /// Every file the composition reads: none may be written over.
    public var inputFiles: [String] {
        call.streams.flatMap { $0.tracks.map(\.path) } + streamEffects.values.flatMap(\.options.inputFiles)
            + (layoutFile.map { [$0] } ?? [])
    }

    private var layoutFile: String? { if case .custom(let layout) = layout { layout.file } else { nil } }
}
