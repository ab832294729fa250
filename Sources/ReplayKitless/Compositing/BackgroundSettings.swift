import Foundation

/// Everything background replacement takes (`fxreplay render --mask … --background …`, formats.md §5).
///
/// The mask of each frame is read (``MaskSource``, paired by time), then shaped in this order:
/// temporal smoothing, invert, threshold, shrink or expand, feather. The background then shows
/// where the shaped mask is low. Without a background the masks are only read and shaped, for
/// later effects (annotations drawn behind the person).
public struct BackgroundSettings: Sendable, Codable, Equatable {
    /// Where the masks come from.
    public var mask: MaskSource
    /// What replaces the background; `nil` leaves the pixels alone (the masks serve later effects).
    public var background: BackgroundSpec?
    /// What a frame without a mask gets.
    public var missingMask: MissingMaskPolicy = .hold
    /// How an image or video background is fitted to the frame.
    public var fit: BackgroundFit = .cover
    /// The bars' colour with ``BackgroundFit/contain``.
    public var letterboxColor = RGBAColor(red: 0, green: 0, blue: 0)
    /// Swap foreground and background (`255 − a`).
    public var invert = false
    /// Mask values at or above this become 255, the others 0.
    public var threshold: UInt8?
    /// Soften the mask's edge over about this many pixels (0: off).
    public var feather = 0.0
    /// Average each mask with the ones before it, this many in all (1: off; at most ``maximumSmoothFrames``).
    public var smoothFrames = 1
    /// The largest ``smoothFrames``: every mask in the window is kept in memory (32 masks of 1920×1080 are 66 MB).
    public static let maximumSmoothFrames = 32
    /// Grow the foreground by this many pixels (0: off).
    public var expand = 0
    /// Shrink the foreground by this many pixels (0: off).
    public var shrink = 0
    /// With a transparent background, scale colour by alpha (premultiplied) instead of leaving it straight.
    public var premultiply = false
    /// How a `blur:` background treats the person; `nil` is ``BlurMode/plain`` (and keeps the
    /// settings' JSON, hence batch fingerprints, as they were before the option existed).
    public var blurMode: BlurMode?

    /// Largest `feather`, `expand` and `shrink` accepted, in pixels.
    public static let maximumShapingPixels = 1000

    /// Masks from `mask` and `background` behind the person; every shaping option off, a missing mask holds the last one.
    public init(mask: MaskSource, background: BackgroundSpec?) {
        self.mask = mask
        self.background = background
    }

    /// The output carries the mask as its alpha channel.
    public var outputsAlpha: Bool { background == .transparent }

    /// Frames need an alpha plane on their way through the pipeline: the output has alpha, or the
    /// mask is the input's own alpha.
    public var needsAlphaPlane: Bool { outputsAlpha || mask == .inputAlpha }

    /// The mask and background files the render reads (each image of a mask sequence), as spelled:
    /// they may be URLs (``LocalFiles/paths(_:)`` finds the local files a spelling opens).
    public var inputFiles: [String] { mask.files + (background?.file.map { [$0] } ?? []) }

    /// The per-frame shaping after temporal smoothing, in order.
    var maskOperations: [MaskOperation] {
        var operations: [MaskOperation] = []
        if invert { operations.append(.invert) }
        if let threshold { operations.append(.threshold(threshold)) }
        if shrink > 0 { operations.append(.shrink(pixels: shrink)) }
        if expand > 0 { operations.append(.expand(pixels: expand)) }
        if feather > 0 { operations.append(.feather(pixels: feather)) }
        return operations
    }

    /// Checks the values a command line or job file could get wrong.
    /// - Throws: `ReplayError.usage` naming the option.
    public func validate() throws(ReplayError) {
        let limit = Self.maximumShapingPixels
        guard feather.isFinite, (0...Double(limit)).contains(feather) else {
            throw .usage("`BackgroundSettings.feather`: \(feather) is not a number of pixels from 0 to \(limit)", options: ["BackgroundSettings.feather"])
        }
        guard (0...limit).contains(expand) else {
            throw .usage("`BackgroundSettings.expand`: \(expand) is not a number of pixels from 0 to \(limit)", options: ["BackgroundSettings.expand"])
        }
        guard (0...limit).contains(shrink) else {
            throw .usage("`BackgroundSettings.shrink`: \(shrink) is not a number of pixels from 0 to \(limit)", options: ["BackgroundSettings.shrink"])
        }
        guard expand == 0 || shrink == 0 else {
            throw .usage("`BackgroundSettings.expand` and `BackgroundSettings.shrink` exclude each other",
                         options: ["BackgroundSettings.expand", "BackgroundSettings.shrink"])
        }
        guard (1...Self.maximumSmoothFrames).contains(smoothFrames) else {
            throw .usage("`BackgroundSettings.smoothFrames`: \(smoothFrames) is not a frame count from 1 to \(Self.maximumSmoothFrames)",
                         options: ["BackgroundSettings.smoothFrames"])
        }
        guard !premultiply || outputsAlpha else {
            throw .usage("`BackgroundSettings.premultiply` needs `BackgroundSettings.background` transparent",
                         options: ["BackgroundSettings.premultiply", "BackgroundSettings.background"])
        }
        if let blurMode, blurMode != .plain {
            guard case .blur? = background else {
                throw .usage("`BackgroundSettings.blurMode` \(blurMode.rawValue) needs `BackgroundSettings.background` blur:SIGMA",
                             options: ["BackgroundSettings.blurMode", "BackgroundSettings.background"])
            }
        }
    }

    /// The codec an output with alpha is written with: the one asked for when it can carry alpha in
    /// that container, else the container's alpha codec (ProRes 4444 in .mov, VP9 in .webm, FFV1 in
    /// .mkv). `nil` when the output has no alpha (the usual choice applies).
    /// - Throws: `ReplayError.usage` saying which codec, container or ProRes profile to use instead.
    public func alphaCodec(encoder: EncoderSettings, output: FilePath) throws(ReplayError) -> VideoCodec? {
        guard outputsAlpha else { return nil }
        let container = URL(fileURLWithPath: output.string).pathExtension.lowercased()
        let advice = "use `EncoderSettings.codec` prores (.mov, ProRes 4444), vp9 (.webm) or ffv1 (.mkv)"
        let options = ["BackgroundSettings.background", "EncoderSettings.codec"]
        let codec: VideoCodec
        if let requested = encoder.codec {
            guard requested.supportsAlpha else {
                throw .usage("`BackgroundSettings.background` transparent: \(requested.rawValue) has no alpha channel; \(advice)", options: options)
            }
            codec = requested
        } else {
            switch container {
            case "mov": codec = .prores
            case "webm": codec = .vp9
            case "mkv": codec = .ffv1
            default: throw .usage("`BackgroundSettings.background` transparent: a .\(container) file cannot carry alpha; \(advice)", options: options)
            }
        }
        if codec == .vp9 && container != "webm" && container != "mkv" {
            throw .usage("`BackgroundSettings.background` transparent: VP9 keeps its alpha only in .webm or .mkv, not .\(container)", options: options)
        }
        if codec == .prores, let profile = encoder.preset, !profile.hasPrefix("4444") {
            throw .usage("`BackgroundSettings.background` transparent: ProRes carries alpha only in the 4444 profiles (`EncoderSettings.preset` 4444 or 4444xq), not \(profile)",
                         options: ["BackgroundSettings.background", "EncoderSettings.preset"])
        }
        return codec
    }
}

extension BackgroundFit: Codable {}

extension BackgroundSpec: Codable, CustomStringConvertible {
    /// The command-line form, which ``init(parsing:)`` reads back.
    public var description: String {
        switch self {
        case .image(let path): "image:\(path)"
        case .blur(let sigma): "blur:\(sigma)"
        case .color(let color): "color:\(color)"
        case .video(let path): "video:\(path)"
        case .transparent: "transparent"
        }
    }

    public init(from decoder: any Swift.Decoder) throws {
        try self.init(parsing: decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension RGBAColor: Codable {
    /// Decodes `#RRGGBB` or `#RRGGBBAA`.
    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let color = RGBAColor(hex: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a #RRGGBB colour")
        }
        self = color
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
