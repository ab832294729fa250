import CFFmpeg

/// The encoder controls ffmpeg users write (`-g`, `-tune`, `-profile:v`, `-level`, `-pix_fmt`
/// and any encoder option by name), applied to an encoder context before it is opened and each
/// checked there: a name the encoder does not have, or a value it refuses, is bad usage naming
/// the option, before anything is written.
extension EncoderSettings {
    /// The pixel format to encode: `pixelFormat` when given (8-bit, one the encoder takes, with an
    /// alpha plane when the output needs one), else the codec's preferred format.
    func chosenPixelFormat(codec: VideoCodec, alpha: Bool, supported: [AVPixelFormat]) throws(ReplayError) -> AVPixelFormat {
        func takes(_ format: AVPixelFormat) -> Bool { supported.isEmpty || supported.contains(format) }
        guard let name = pixelFormat else {
            guard let format = codec.preferredPixelFormats(alpha: alpha).first(where: takes) else {
                throw .processing("\(codec.encoderName) cannot encode the requested pixel format")
            }
            return format
        }
        let eightBit = supported.filter { Self.isEightBit($0) && Self.hasAlpha($0) == alpha }
        let choices = eightBit.isEmpty ? "none" : eightBit.map { String(cString: av_get_pix_fmt_name($0)) }.joined(separator: ", ")
        let format = av_get_pix_fmt(name)
        guard format != AV_PIX_FMT_NONE else { throw .usage("`EncoderSettings.pixelFormat` \(name): no such pixel format (\(codec.encoderName) takes \(choices))", options: ["EncoderSettings.pixelFormat"]) }
        guard Self.isEightBit(format) else { throw .usage("`EncoderSettings.pixelFormat` \(name): only 8-bit formats for now (\(codec.encoderName) takes \(choices))", options: ["EncoderSettings.pixelFormat"]) }
        guard takes(format), Self.hasAlpha(format) == alpha else {
            throw .usage("`EncoderSettings.pixelFormat` \(name): \(codec.encoderName) takes \(choices)" + (alpha ? " with the alpha plane this output needs" : ""),
                         options: ["EncoderSettings.pixelFormat"])
        }
        return format
    }

    /// The controls given, each as its property and value (for messages), and the properties.
    var userControls: (text: [String], options: [String]) {
        var given: [(option: String, value: String)] = []
        if let keyint { given.append(("keyint", "\(keyint)")) }
        if let tune { given.append(("tune", tune)) }
        if let profile { given.append(("profile", profile)) }
        if let level { given.append(("level", level)) }
        if let pixelFormat { given.append(("pixelFormat", pixelFormat)) }
        given += encoderOptions.sorted { $0.key < $1.key }.map { ("encoderOptions", "\($0.key)=\($0.value)") }
        return (given.map { "`EncoderSettings.\($0.option)` \($0.value)" }, given.map { "EncoderSettings.\($0.option)" })
    }

    /// A user's `x265-params` merged with the project's (its log level, the `--level`): x265 prints
    /// to stderr itself and must stay as quiet as fxreplay sets it.
    private static func x265Params(_ user: String, keeping defaults: OpaquePointer?) -> String {
        let own = av_dict_get(defaults, "x265-params", nil, 0).map { String(cString: $0.pointee.value) } ?? ""
        return EncoderOptionPolicy.mergedX265Params(user: user, own: own)
    }

    /// Planar YUV with 8 bits a sample (the pipeline's pictures are 8-bit YUV).
    private static func isEightBit(_ format: AVPixelFormat) -> Bool {
        guard let descriptor = av_pix_fmt_desc_get(format)?.pointee else { return false }
        let flags = descriptor.flags
        return descriptor.comp.0.depth == 8 && flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0
            && flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 && descriptor.nb_components >= 3
    }

    private static func hasAlpha(_ format: AVPixelFormat) -> Bool {
        (av_pix_fmt_desc_get(format)?.pointee.flags ?? 0) & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
    }

    /// Sets the keyframe interval, tune, profile, level and pass-through options on `context`
    /// (whose codec's private options exist once it is allocated), overriding the project's
    /// defaults in `defaults` (the dictionary `avcodec_open2` applies afterwards).
    func applyUserControls(to context: UnsafeMutablePointer<AVCodecContext>, codec: VideoCodec,
                           defaults: inout OpaquePointer?) throws(ReplayError) {
        let name = codec.encoderName
        // Before any option is set: a refused one must never reach the encoder (issue #33).
        try EncoderOptionPolicy.check(encoderOptions, codec: codec)
        if let keyint {
            guard keyint >= 1 else { throw .usage("`EncoderSettings.keyint` \(keyint): give 1 or more frames", options: ["EncoderSettings.keyint"]) }
            context.pointee.gop_size = Int32(clamping: keyint)
        }
        var controls: [(option: String, key: String, value: String)] = []
        if let tune { controls.append(("tune", "tune", tune)) }
        if let profile { controls.append(("profile", "profile", profile)) }
        if let level {
            if codec == .hevc {
                guard level.wholeMatch(of: /[0-9]+(\.[0-9]+)?/) != nil else {
                    throw .usage("`EncoderSettings.level` \(level): give a level such as 4 or 5.1", options: ["EncoderSettings.level"])
                }
                // libx265 takes its level among its own parameters only; escaped, so `4:csv=FILE` stays one value.
                let current = av_dict_get(defaults, "x265-params", nil, 0).map { String(cString: $0.pointee.value) } ?? ""
                let entries = (EncoderOptionPolicy.dictionaryEntries(current) ?? []) + [("level-idc", level)]
                av_dict_set(&defaults, "x265-params", EncoderOptionPolicy.dictionaryText(entries), 0)
            } else {
                controls.append(("level", "level", level))
            }
        }
        for (key, value) in encoderOptions.sorted(by: { $0.key < $1.key }) {
            controls.append(("encoderOptions", key, key == "x265-params" ? Self.x265Params(value, keeping: defaults) : value))
        }
        for control in controls {
            let property = "EncoderSettings.\(control.option)"
            let passedThrough = control.option == "encoderOptions"
            let described = passedThrough ? "`\(property)` \(control.key)=\(control.value)" : "`\(property)` \(control.value)"
            guard av_opt_find(UnsafeMutableRawPointer(context), control.key, nil, 0, AV_OPT_SEARCH_CHILDREN) != nil else {
                throw .usage(passedThrough ? "`\(property)`: \(name) has no option '\(control.key)'" : "`\(property)`: \(name) has no \(control.key) setting",
                             options: [property])
            }
            // The user's value wins over the project's default for the same key (x265-params: merged above).
            av_dict_set(&defaults, control.key, nil, 0)
            let status = av_opt_set(UnsafeMutableRawPointer(context), control.key, control.value, AV_OPT_SEARCH_CHILDREN)
            guard status >= 0 else { throw .usage("\(described): \(name) refuses the value (\(ffmpegErrorText(status)))", options: [property]) }
        }
    }
}
