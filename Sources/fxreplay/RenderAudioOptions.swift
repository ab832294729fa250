import ArgumentParser
import ReplayKitless

extension AudioMode: ExpressibleByArgument {}
extension AudioCodec: ExpressibleByArgument {}

/// What render does with the input's sound (ffmpeg's `-c:a copy`, `-c:a aac -b:a 128k`, `-an`).
struct AudioOptions: ParsableArguments {
    @Option(help: ArgumentHelp("copy: the packets untouched, encoded anew only when the output cannot hold the codec (AAC into .webm) or the render is trimmed; encode; none: no sound.",
                               valueName: "copy|encode|none"))
    var audio: AudioMode = .copy

    @Option(help: "Codec when the sound is encoded (default: opus for .webm, else aac).")
    var audioCodec: AudioCodec?

    @Option(parsing: .unconditional, help: "Bitrate of encoded sound, e.g. 96k or 192k.")
    var audioBitrate: String = "128k"

    func validate() throws {
        guard let bits = EncoderOptions.parseBitrate(audioBitrate), (6_000...512_000).contains(bits) else {
            throw ValidationError("--audio-bitrate: '\(audioBitrate)' is not a bitrate from 6k to 512k")
        }
        if audio == .none && audioCodec != nil { throw ValidationError("--audio-codec goes with --audio copy or encode, not none") }
    }

    var settings: AudioSettings {
        var settings = AudioSettings()
        settings.mode = audio
        settings.codec = audioCodec
        settings.bitRate = EncoderOptions.parseBitrate(audioBitrate) ?? settings.bitRate
        return settings
    }
}

/// `--from`/`--to`: the part of the input rendered, as ffmpeg's `-ss`/`-to` are written.
struct TrimOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Start the output here: seconds after the input's first frame (the t of poses and annotations), or HH:MM:SS.mmm.",
                                                        valueName: "time"), transform: TrimOptions.seconds)
    var from: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("End the output here (not included): seconds after the first frame, or HH:MM:SS.mmm.",
                                                        valueName: "time"), transform: TrimOptions.seconds)
    var to: Double?

    func validate() throws {
        if let from, let to, to <= from { throw ValidationError("--to must be later than --from") }
    }

    /// Seconds from `12.5`, `1:02.5` or `01:02:03.250`.
    static func seconds(_ text: String) throws -> Double {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let numbers = parts.map { part in
            part.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") } ? Double(part) : nil
        }
        guard (1...3).contains(parts.count), numbers.allSatisfy({ $0 != nil }),
              parts.dropLast().allSatisfy({ !$0.contains(".") }) else {
            throw ValidationError("'\(text)' is not a time: give seconds (12.5) or HH:MM:SS.mmm (00:01:02.500)")
        }
        let values = numbers.map { $0! }
        if parts.count > 1, values.dropFirst().contains(where: { $0 >= 60 }) {
            throw ValidationError("'\(text)': minutes and seconds must be below 60")
        }
        let seconds = values.reduce(0) { $0 * 60 + $1 }
        guard seconds.isFinite, seconds < 1e9 else { throw ValidationError("'\(text)' is not a time this side of 30 years") }
        return seconds
    }
}
