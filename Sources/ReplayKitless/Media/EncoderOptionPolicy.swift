/// Which encoder options (`--encoder-opt KEY=VALUE`) reach an encoder: an allow-list of tuning
/// options per encoder, because the encoders also have options that write or read files (x264's
/// `dump-yuv` and `stats`, x265's `csv` and `analysis-load`: an output over the input, a FIFO that
/// blocks forever), start a multi-pass or analysis run, raise the thread count past fxreplay's cap
/// or flood stderr with their logs. Anything not known to be safe is refused, before the encoder
/// opens, naming the key.
///
/// The key-value lists (`x264-params`, `x264opts`, `x265-params`, libvpx's `ts-parameters`) are
/// split the way FFmpeg 5.1's wrappers split them, and each sub-key is normalized the way x264 and
/// x265 read it (`_` is `-`, a `no`/`no-` prefix negates), so that what is checked is what the
/// encoder sees. Pure: needs no encoder (the fuzz target `FuzzEncoderOptions` runs it).
public enum EncoderOptionPolicy {
    /// The most threads an encoder option may ask for: `--threads`' cap.
    public static let maximumThreads = 1024
    /// libx265 runs one frame per thread and takes at most 16 (`X265_MAX_FRAME_THREADS`).
    static let x265FrameThreads = 16

    /// Checks every option for `codec`, in key order.
    /// - Throws: `ReplayError.usage` naming the option and the key (or sub-key) refused.
    public static func check(_ options: [String: String], codec: VideoCodec) throws(ReplayError) {
        for (key, value) in options.sorted(by: { $0.key < $1.key }) { try check(key: key, value: value, codec: codec) }
    }

    /// Checks one `KEY=VALUE` for `codec`.
    public static func check(key: String, value: String, codec: VideoCodec) throws(ReplayError) {
        let shown = "`EncoderSettings.encoderOptions` \(printable(key))=\(printable(value))"
        func refuse(_ why: String) -> ReplayError { .usage("\(shown): \(why)", options: ["EncoderSettings.encoderOptions", "EncoderSettings.threads"]) }
        // FFmpeg reads C strings: a NUL would hide what follows it from the check but not from a later reader.
        guard !key.utf8.contains(0), !value.utf8.contains(0) else { throw refuse("contains a NUL byte") }
        if let reason = refusedKeys[key] { throw refuse("'\(printable(key))' \(reason)") }
        guard genericKeys.contains(key) || privateKeys(codec).contains(key) else {
            throw refuse("'\(printable(key))' is not among the options fxreplay passes to \(codec.encoderName) "
                         + "(tuning options only; encoder options may not name files, run several passes or change the log level)")
        }
        switch key {
        case "threads":
            try checkThreads(value, cap: codec.maximumThreads ?? maximumThreads, option: "threads", refuse)
        case "flags", "flags2":
            try checkFlags(value, allowed: key == "flags" ? codecFlags : codecFlags2, refuse)
        case "x264-params", "x265-params", "ts-parameters":
            guard let entries = dictionaryEntries(value) else {
                throw refuse("not a KEY=VALUE:KEY=VALUE list (each key needs a value; quote a value holding ':' with '…')")
            }
            try checkSubParameters(entries, of: key, refuse)
        case "x264opts":
            try checkSubParameters(x264optsEntries(value), of: key, refuse)
        default:
            break
        }
    }

    // MARK: Splitting

    /// `text` split as `av_dict_parse_string(text, "=", ":")` splits it (FFmpeg 5.1's `x264-params`,
    /// `x265-params`, `ts-parameters`): each key is read up to `=`, each value up to `:`, by
    /// `av_get_token` (surrounding blanks dropped, `\` escapes the next character, '…' quotes);
    /// `nil` where FFmpeg refuses the list (a key without `=` or an empty key or value).
    public static func dictionaryEntries(_ text: String) -> [(key: String, value: String)]? {
        var entries: [(key: String, value: String)] = []
        var rest = Substring(text).utf8[...]
        while !rest.isEmpty {
            let key = token(&rest, endingAt: UInt8(ascii: "="))
            guard !key.isEmpty, rest.first == UInt8(ascii: "=") else { return nil }
            rest = rest.dropFirst()
            let value = token(&rest, endingAt: UInt8(ascii: ":"))
            guard !value.isEmpty else { return nil }
            entries.append((key, value))
            if !rest.isEmpty { rest = rest.dropFirst() }
        }
        return entries
    }

    /// `av_get_token(&rest, term)` for a one-character `term`.
    private static func token(_ rest: inout Substring.UTF8View.SubSequence, endingAt term: UInt8) -> String {
        let blanks: Set<UInt8> = [0x20, 0x0A, 0x09, 0x0D]
        rest = rest.drop { blanks.contains($0) }
        var out: [UInt8] = []
        var kept = 0  // bytes of `out` that trailing blanks may not be trimmed from (escaped or quoted)
        while let byte = rest.first, byte != term {
            rest = rest.dropFirst()
            if byte == UInt8(ascii: "\\"), let next = rest.first {
                out.append(next)
                rest = rest.dropFirst()
                kept = out.count
            } else if byte == UInt8(ascii: "'") {
                let quoted = rest.prefix { $0 != UInt8(ascii: "'") }
                out += quoted
                rest = rest.dropFirst(quoted.count)
                if !rest.isEmpty {
                    rest = rest.dropFirst()
                    kept = out.count
                }
            } else {
                out.append(byte)
            }
        }
        while out.count > kept, let last = out.last, blanks.contains(last) { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }

    /// `x264opts` as FFmpeg 5.1's libx264.c reads it: pieces between `:`, each `KEY=VALUE` or a
    /// bare `KEY` (meaning `KEY=1`), with `sscanf("%4095[^:=]=%4095[^:]")`.
    static func x264optsEntries(_ text: String) -> [(key: String, value: String)] {
        text.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).map { piece in
            let key = piece.prefix { $0 != UInt8(ascii: "=") }
            let value = piece.dropFirst(key.count + 1)
            return (String(decoding: key.prefix(4095), as: UTF8.self), value.isEmpty ? "1" : String(decoding: value.prefix(4095), as: UTF8.self))
        }
    }

    /// Entries written back as a list ``dictionaryEntries(_:)`` reads as the same entries: every
    /// character `av_get_token` treats specially is escaped.
    public static func dictionaryText(_ entries: [(key: String, value: String)]) -> String {
        func escaped(_ text: String) -> String {
            var out = ""
            for character in text.unicodeScalars {
                if "\\':= \n\t\r".unicodeScalars.contains(character) { out.unicodeScalars.append("\\") }
                out.unicodeScalars.append(character)
            }
            return out
        }
        return entries.map { "\(escaped($0.key))=\(escaped($0.value))" }.joined(separator: ":")
    }

    /// A user's checked `x265-params` followed by the project's own (its log level, the level): x265
    /// keeps the last value of a key, and each list is written back escaped, so a user's list ending
    /// in `\` cannot swallow the project's.
    public static func mergedX265Params(user: String, own: String) -> String {
        dictionaryText((dictionaryEntries(user) ?? []) + (dictionaryEntries(own) ?? []))
    }

    // MARK: Checks

    /// A thread count: a whole number from 0 (the encoder decides) to `cap`, or `auto`.
    private static func checkThreads(_ value: String, cap: Int, option: String, _ refuse: (String) -> ReplayError) throws(ReplayError) {
        guard value == "auto" || (value.utf8.count <= 9 && Int(value).map { (0...cap).contains($0) } == true) else {
            throw refuse("'\(option)' takes 0 to \(cap) threads (fxreplay's cap for this encoder, as `EncoderSettings.threads`)")
        }
    }

    /// `flags`/`flags2`: names joined by `+`/`-`, each one of `allowed`; written `+NAME`/`-NAME` so
    /// the flags fxreplay sets itself (global header, bit-exact) stay. FFmpeg also takes numbers and
    /// expressions there, which could spell `pass1`: refused.
    private static func checkFlags(_ value: String, allowed: Set<String>, _ refuse: (String) -> ReplayError) throws(ReplayError) {
        guard !value.isEmpty else { throw refuse("give the flags to set or clear, as +NAME or -NAME") }
        // Byte by byte, as FFmpeg's option parser reads them.
        let plus = UInt8(ascii: "+"), minus = UInt8(ascii: "-")
        var rest = value.utf8[...]
        while let sign = rest.first {
            let signed = sign == plus || sign == minus
            if signed { rest = rest.dropFirst() }
            let bytes = rest.prefix { $0 != plus && $0 != minus }
            rest = rest.dropFirst(bytes.count)
            let name = String(decoding: bytes, as: UTF8.self)
            if name == "pass1" || name == "pass2" { throw refuse("'\(name)' starts a multi-pass encode; fxreplay encodes in one pass") }
            guard allowed.contains(name) else {
                throw refuse("'\(printable(name))' is not a flag fxreplay passes on (\(allowed.sorted().joined(separator: ", ")))")
            }
            guard signed else { throw refuse("write each flag as +NAME or -NAME, so fxreplay's own flags stay set") }
        }
    }

    /// Each entry of a key-value list against the allow-list of the encoder that reads it.
    private static func checkSubParameters(_ entries: [(key: String, value: String)], of option: String,
                                           _ refuse: (String) -> ReplayError) throws(ReplayError) {
        for (key, value) in entries {
            let shown = "'\(printable(key))' in \(option)"
            if option == "ts-parameters" {
                guard vpxTemporalKeys.contains(key) else {
                    throw refuse("\(shown) is not a temporal-scaling parameter (\(vpxTemporalKeys.sorted().joined(separator: ", ")))")
                }
                continue
            }
            let x265 = option == "x265-params"
            let name = normalizedParameter(key)
            if let reason = refusedParameters[name] { throw refuse("\(shown) \(reason)") }
            guard (x265 ? x265Parameters : x264Parameters).contains(name) else {
                throw refuse("\(shown) is not among the \(x265 ? "x265" : "x264") parameters fxreplay passes on "
                             + "(tuning parameters only; none that names a file, runs several passes or logs)")
            }
            switch name {
            case "threads", "lookahead-threads": try checkThreads(value, cap: maximumThreads, option: key, refuse)
            case "frame-threads": try checkThreads(value, cap: x265FrameThreads, option: key, refuse)
            default: break
            }
        }
    }

    /// The name x264 and x265 look a parameter up by: `_` read as `-`, and a `no` or `no-` prefix
    /// (which negates a boolean) dropped.
    static func normalizedParameter(_ key: String) -> String {
        var name = Substring(key.replacingOccurrences(of: "_", with: "-"))
        if name.hasPrefix("no") {
            name = name.dropFirst(2)
            if name.hasPrefix("-") { name = name.dropFirst() }
        }
        return String(name)
    }

    /// A key or value with control characters written out, for messages.
    private static func printable(_ text: String) -> String {
        text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
    }
}
