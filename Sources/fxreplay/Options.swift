import ArgumentParser
import Foundation
import ReplayKitless

extension ProgressStyle: ExpressibleByArgument {}
extension VideoCodec: ExpressibleByArgument {}

/// How long work reports progress: shared by every command that processes video.
struct ProgressOptions: ParsableArguments {
    @Option(help: "Progress on stderr: auto (a bar on a terminal, lines otherwise), plain, json or none.")
    var progress: ProgressStyle = .auto

    @Flag(help: "Let FFmpeg's libraries print their own messages too.")
    var verbose = false
}

/// Encoder settings: shared by every command that writes video.
struct EncoderOptions: ParsableArguments {
    @Option(help: "Video codec (default: vp9 for .webm, else h264).")
    var codec: VideoCodec?

    @Option(parsing: .unconditional, help: "Constant rate factor, 0 to 63; lower is better quality (default: the encoder's, 23 for x264).")
    var crf: Int?

    @Option(help: "Encoder speed preset (x264/x265 names: ultrafast … veryslow; ProRes: proxy, lt, standard, hq, 4444, 4444xq).")
    var preset: String?

    @Option(parsing: .unconditional, help: "Target bitrate, e.g. 2500k or 4M (instead of --crf).")
    var bitrate: String?

    @Option(parsing: .unconditional, help: "Encoder threads, and the most the video is decoded on (0: each codec decides).")
    var threads: Int = 0

    @Flag(help: "Byte-identical output across runs: fixed thread count, bit-exact container and encoder flags.")
    var deterministic = false

    @OptionGroup var controls: EncoderControlOptions

    func validate() throws {
        if let crf, !(0...63).contains(crf) { throw ValidationError("--crf must be between 0 and 63") }
        if let bitrate, Self.parseBitrate(bitrate) == nil { throw ValidationError("--bitrate: '\(bitrate)' is not a bitrate like 2500k or 4M (at most 2000M)") }
        if !(0...Self.maximumThreads).contains(threads) { throw ValidationError("--threads must be 0 to \(Self.maximumThreads)") }
        if let codec, let most = codec.maximumThreads, threads > most {
            throw ValidationError("--threads: the \(codec.rawValue) encoder takes at most \(most) threads")
        }
        if crf != nil && bitrate != nil { throw ValidationError("--crf and --bitrate exclude each other") }
    }

    var settings: EncoderSettings {
        var settings = EncoderSettings()
        settings.codec = codec
        settings.crf = crf
        settings.preset = preset
        settings.bitrate = bitrate.flatMap(Self.parseBitrate)
        settings.threads = threads
        settings.deterministic = deterministic
        controls.apply(to: &settings)
        return settings
    }

    static let maximumThreads = EncoderOptionPolicy.maximumThreads
    /// 2 Gbit/s: above any codec's real use (4K ProRes 4444 XQ is about 1.7 Gbit/s).
    static let maximumBitrate = 2_000_000_000.0

    /// Bits per second from `2500k`, `4M` or `800000`; `nil` for anything else or out of 1 bit/s … 2 Gbit/s.
    static func parseBitrate(_ text: String) -> Int? {
        let lower = text.lowercased()
        let multiplier: Double = lower.hasSuffix("k") ? 1e3 : lower.hasSuffix("m") ? 1e6 : 1
        let digits = multiplier == 1 ? lower : String(lower.dropLast())
        guard digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(digits) else { return nil }
        let bitsPerSecond = value * multiplier
        guard bitsPerSecond >= 1, bitsPerSecond <= maximumBitrate else { return nil }
        return Int(bitsPerSecond)
    }
}

/// How many threads apply the effects: render's, kept apart from the encoder's `--threads`.
struct ProcessingOptions: ParsableArguments {
    @Option(name: .customLong("process-threads"), parsing: .unconditional, help: ArgumentHelp(
        "Threads that apply the effects (mask, background, annotations), several frames at once (0: one per core; never more than the cores).",
        discussion: "Default: --threads when that is given, else one per core. Annotations alone start on one thread, masks, backgrounds and blur on two, and threads are added only while they hold the render back and raise its speed (the report's processLanes). The output is the same bytes whatever the number.",
        valueName: "n"))
    var processThreads: Int?

    func validate() throws {
        if let processThreads, !(0...EncoderOptions.maximumThreads).contains(processThreads) {
            throw ValidationError("--process-threads must be 0 to \(EncoderOptions.maximumThreads)")
        }
    }
}

/// What inputs may reach besides local files: shared by every command that opens media. The
/// process takes it once, in `Fxreplay.main`, before anything is opened (``InputPolicy/current``).
struct InputAccessOptions: ParsableArguments {
    @Option(name: .customLong("allow-protocols"), help: ArgumentHelp(
        "Protocols (http,tcp / https,tls,tcp, …) and formats that open what they name (hls, dash, concat, …) that inputs may use, comma-separated.",
        discussion: "By default an input is one local file: URLs, playlists and concat lists are refused (exit 3).",
        valueName: "list"))
    var allowProtocols: String = ""

    @Option(name: .customLong("io-timeout"), parsing: .unconditional, help: "Seconds a network input may take to open or to answer a read.")
    var ioTimeout: Double = InputPolicy.defaultIOTimeout

    static let maximumTimeout = 86_400.0

    var names: [String] { allowProtocols.split(separator: ",", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }

    func validate() throws {
        if let bad = names.first(where: { $0.isEmpty || !$0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") } }) {
            throw ValidationError("--allow-protocols: '\(bad)' is not a protocol or format name (e.g. https,tls,tcp or concat)")
        }
        if !(ioTimeout > 0 && ioTimeout <= Self.maximumTimeout) { throw ValidationError("--io-timeout must be more than 0 and at most \(Int(Self.maximumTimeout)) seconds") }
    }

    var policy: InputPolicy { InputPolicy(allowed: Set(names), ioTimeout: ioTimeout) }

    /// The same options for a child render, after its own (a manifest row or job spec cannot
    /// give `--allow-protocols`, see `RenderJob`; the batch's `--io-timeout` overrides theirs).
    var arguments: [String] {
        (names.isEmpty ? [] : ["--allow-protocols=\(names.joined(separator: ","))"]) + ["--io-timeout=\(ioTimeout)"]
    }
}

/// A command that opens media, under its ``InputAccessOptions``.
protocol ReadsInputs { var inputAccess: InputAccessOptions { get } }
extension Render: ReadsInputs {}
extension Probe: ReadsInputs {}
extension Track: ReadsInputs {}
extension PosesExtract: ReadsInputs {}
extension PosesEmbed: ReadsInputs {}
extension Compare: ReadsInputs {}
extension Framehash: ReadsInputs {}
extension QACompare: ReadsInputs {}
extension QALatency: ReadsInputs {}
extension QAOverlay: ReadsInputs {}
extension Batch: ReadsInputs {}
extension Compose: ReadsInputs {}

extension PictureSize: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }

    /// A size from the command line, or a message that says what is wrong with it.
    static func checkedArgument(_ text: String) throws -> PictureSize {
        do { return try PictureSize(checking: text) } catch { throw ValidationError(error.message) }
    }
}

/// Refuses options and arguments that name files (or directories) when one is given as "": it names
/// no file, so it is bad usage naming the option (exit 2), not a file that cannot be opened
/// (exit 3) or written (exit 4). Commands call it from `validate()` with every path they take.
func requireFileNames(_ values: KeyValuePairs<String, [String?]>) throws {
    for (name, paths) in values where paths.contains("") {
        throw ValidationError("\(name): empty file name")
    }
}

/// Refuses a `--preview` name that does not end in `.png` (standard output and devices aside): a
/// contact sheet is a PNG picture, and the name cannot then be a recording's.
func requirePNGName(_ preview: String?) throws {
    if let preview, !preview.lowercased().hasSuffix(".png"), preview != "-", !preview.hasPrefix("/dev/") {
        throw ValidationError("--preview: '\(preview)' does not end in .png (the contact sheet is a PNG picture)")
    }
}

/// Writes `text` to stderr as one line, its control characters escaped (a JSON event with
/// `--progress json`, see `MessageStyle`). Text of several lines (ArgumentParser's usage) goes
/// through ``printErrorLines(_:)``.
func printError(_ text: String) {
    let line = MessageStyle.json ? MessageStyle.event(text) : TerminalText.escaped(text)
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Writes each line of `text` (split at its line feeds) with ``printError(_:)``.
func printErrorLines(_ text: String) {
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) { printError(String(line)) }
}

/// Prints `text` on stdout as one line, its control characters escaped (``TerminalText``): names
/// from manifests and files reach the terminal as text only.
func printLine(_ text: String) {
    print(TerminalText.escaped(text))
}

/// Prints each warning on stderr as a `fxreplay: warning:` line, in flags (``OptionFlags/warning(_:)``).
func printWarnings(_ warnings: [String]) {
    for warning in warnings { printError("fxreplay: warning: \(OptionFlags.warning(warning))") }
}

/// Encodes a value as pretty, key-sorted JSON.
func prettyJSON<T: Encodable>(_ value: T) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(value) + Data("\n".utf8)
}
