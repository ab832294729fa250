import ArgumentParser
import ReplayKitless

/// Encoder controls as ffmpeg users write them (`-g`, `-tune`, `-profile:v`, `-level`,
/// `-pix_fmt`, `-KEY VALUE`, `-movflags +faststart`): part of ``EncoderOptions``, so every
/// command that writes video (render, compose, their job files) takes them.
struct EncoderControlOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Keyframe interval: at most N frames between keyframes (ffmpeg's -g).", valueName: "N"))
    var keyint: Int?

    @Option(help: "Encoder tuning (x264/x265: film, animation, grain, stillimage, fastdecode, zerolatency).")
    var tune: String?

    @Option(help: "Codec profile (h264: baseline, main, high, high444; hevc: main, main444-8; vp9: 0 to 3; prores: as --preset).")
    var profile: String?

    @Option(help: "Codec level, e.g. 3.1 or 4.0 (h264, hevc).")
    var level: String?

    @Option(name: .customLong("pix-fmt"), help: ArgumentHelp("Encoded pixel format, 8-bit for now: yuv420p, yuv422p, yuv444p (as the codec allows).",
                                                            valueName: "FORMAT"))
    var pixelFormat: String?

    @Option(name: .customLong("encoder-opt"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
        "An encoder tuning option passed through (ffmpeg's -KEY VALUE), e.g. x264-params=bframes=0 or aq-mode=2; repeatable. Only allow-listed keys pass: one naming a file, a second pass or a log level, or one the encoder does not have, is refused. Command line only (not in a job or manifest).",
        valueName: "KEY=VALUE"))
    var encoderOpt: [String] = []

    @Flag(name: .customLong("no-faststart"), help: "Write an MP4/MOV's index (moov) at the end, after the media (default: first, so web playback starts before the download ends).")
    var noFaststart = false

    func validate() throws {
        if let keyint, keyint < 1 { throw ValidationError("--keyint must be 1 or more frames") }
        for option in encoderOpt where Self.pair(option) == nil {
            throw ValidationError("--encoder-opt: '\(option)' is not KEY=VALUE")
        }
    }

    /// `KEY=VALUE` split at the first `=`; `nil` without a key or an `=`.
    static func pair(_ text: String) -> (key: String, value: String)? {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { return nil }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }

    /// Adds the controls to `settings`.
    func apply(to settings: inout EncoderSettings) {
        settings.keyint = keyint
        settings.tune = tune
        settings.profile = profile
        settings.level = level
        settings.pixelFormat = pixelFormat
        for option in encoderOpt { if let (key, value) = Self.pair(option) { settings.encoderOptions[key] = value } }
        settings.faststart = !noFaststart
    }
}
