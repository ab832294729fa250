import ArgumentParser
import ReplayKitless

extension MissingMaskPolicy: ExpressibleByArgument {}
extension BackgroundFit: ExpressibleByArgument {}
extension BlurMode: ExpressibleByArgument {}

/// Background replacement with supplied masks (formats.md §5): `fxreplay render --mask … --background …`.
struct BackgroundOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Masks: a video (its alpha, else its luma), numbered images such as 'masks/mask_%05d.png' (image N is frame N), or 'alpha' for the input's own alpha. Without --background they only hide annotations behind the person (--occlude-with-mask).",
                               valueName: "FILE|PATTERN|alpha"), completion: .file())
    var mask: String?

    @Option(help: ArgumentHelp("What replaces the background: image:PATH, blur:SIGMA (pixels), color:#RRGGBB, video:PATH (looped) or transparent (the mask becomes the output's alpha).",
                               valueName: "KIND:VALUE"),
            transform: { text in try OptionFlags.flagged { () throws(ReplayError) in try BackgroundSpec(parsing: text) } })
    var background: BackgroundSpec?

    @Option(help: "How an image or video background fits the frame: cover (scale and centre-crop), contain (bars) or stretch.")
    var backgroundFit: BackgroundFit = .cover

    @Option(help: ArgumentHelp("Colour of the bars with --background-fit contain.", valueName: "#RRGGBB"))
    var letterboxColor: String = "#000000"

    @Option(help: "With --background blur:SIGMA: plain (the whole frame blurred) or masked (the person left out of the blur, so no halo of their colours around them).")
    var blurMode: BlurMode = .plain

    @Option(help: "A frame without a mask (the masks end early or have a gap): hold (reuse the last mask), keep-original (leave the frame) or fail.")
    var missingMask: MissingMaskPolicy = .hold

    @Option(parsing: .unconditional, help: ArgumentHelp("Soften the mask's edge over about PX pixels.", valueName: "PX"))
    var feather: Double = 0

    @Option(parsing: .unconditional, help: ArgumentHelp("Hard mask: values at or above V (0-255) become foreground, the rest background.", valueName: "V"))
    var threshold: Int?

    @Flag(help: "Swap foreground and background in the mask.")
    var invert = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Average each mask with the previous ones, N in all, against flicker.", valueName: "N"))
    var maskSmooth: Int = 1

    @Option(parsing: .unconditional, help: ArgumentHelp("Grow the foreground by PX pixels.", valueName: "PX"))
    var maskExpand: Int = 0

    @Option(parsing: .unconditional, help: ArgumentHelp("Shrink the foreground by PX pixels.", valueName: "PX"))
    var maskShrink: Int = 0

    @Flag(help: "With --background transparent: premultiplied colour instead of straight.")
    var premultiply = false

    /// Checks each option on its own (job specs check their options one at a time); combinations
    /// are checked by ``settings()``.
    func validate() throws {
        // `--background image:`/`video:` without a path is refused by `BackgroundSpec` itself.
        try requireFileNames(["--mask": [mask]])
        if let threshold, !(0...255).contains(threshold) { throw ValidationError("--threshold must be between 0 and 255") }
        if RGBAColor(hex: letterboxColor) == nil || !letterboxColor.hasPrefix("#") || letterboxColor.count != 7 {
            throw ValidationError("--letterbox-color: '\(letterboxColor)' is not a colour like #RRGGBB")
        }
        let limit = BackgroundSettings.maximumShapingPixels
        if !feather.isFinite || !(0...Double(limit)).contains(feather) { throw ValidationError("--feather must be between 0 and \(limit) pixels") }
        if !(0...limit).contains(maskExpand) { throw ValidationError("--mask-expand must be between 0 and \(limit) pixels") }
        if !(0...limit).contains(maskShrink) { throw ValidationError("--mask-shrink must be between 0 and \(limit) pixels") }
        if !(1...BackgroundSettings.maximumSmoothFrames).contains(maskSmooth) {
            throw ValidationError("--mask-smooth must be a frame count from 1 to \(BackgroundSettings.maximumSmoothFrames)")
        }
    }

    /// The settings for ``RenderOptions/background``; `nil` when no mask is given.
    /// - Throws: `ReplayError.usage` for options that need `--mask` or exclude each other.
    func settings() throws(ReplayError) -> BackgroundSettings? {
        guard let mask else {
            if background != nil { throw .usage("--background needs --mask (a mask video, an image pattern or alpha)") }
            let shaping = feather != 0 || threshold != nil || invert || maskSmooth != 1 || maskExpand != 0 || maskShrink != 0 || premultiply
                || blurMode != .plain
            if shaping { throw .usage("mask shaping options need --mask") }
            return nil
        }
        var settings = BackgroundSettings(mask: MaskSource(argument: mask), background: background)
        settings.missingMask = missingMask
        settings.fit = backgroundFit
        settings.letterboxColor = RGBAColor(hex: letterboxColor) ?? settings.letterboxColor
        settings.invert = invert
        settings.threshold = threshold.map { UInt8(clamping: $0) }
        settings.feather = feather
        settings.smoothFrames = maskSmooth
        settings.expand = maskExpand
        settings.shrink = maskShrink
        settings.premultiply = premultiply
        settings.blurMode = blurMode == .plain ? nil : blurMode
        try settings.validate()
        return settings
    }
}
