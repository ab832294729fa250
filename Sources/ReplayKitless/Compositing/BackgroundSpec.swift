/// What replaces the background (`--background`), as written on the command line:
/// `image:PATH`, `blur:SIGMA`, `color:#RRGGBB`, `video:PATH` or `transparent`.
public enum BackgroundSpec: Sendable, Equatable {
    /// A still picture, fitted to the frame (see ``BackgroundFit``); `path` is a local path or a URL that ``InputPolicy`` allows.
    case image(path: String)
    /// The frame itself, Gaussian-blurred with σ = `sigma` pixels at the frame's resolution.
    case blur(sigma: Double)
    /// A solid colour (opaque).
    case color(RGBAColor)
    /// A video, looped and paired with the frames by time, fitted like an image; `path` is a local path or a URL that ``InputPolicy`` allows.
    case video(path: String)
    /// No background: the output's alpha is the mask (needs a codec with alpha).
    case transparent

    /// The picture or video it reads, if any, as spelled (a URL, perhaps).
    public var file: String? {
        switch self {
        case .image(let path), .video(let path): path
        case .blur, .color, .transparent: nil
        }
    }

    /// Largest σ accepted for `blur:` (far beyond any useful blur).
    public static let maximumBlurSigma = 1000.0

    /// Parses the command-line form. The path is everything after the first colon, so it may
    /// itself contain colons.
    /// - Throws: `ReplayError.usage` naming `--background` and the value when it is malformed.
    public init(parsing text: String) throws(ReplayError) {
        if text == "transparent" {
            self = .transparent
            return
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw Self.usage(text, "expected image:PATH, blur:SIGMA, color:#RRGGBB, video:PATH or transparent")
        }
        let kind = text[..<colon], value = String(text[text.index(after: colon)...])
        switch kind {
        case "image", "video":
            guard !value.isEmpty else { throw Self.usage(text, "the \(kind) path is empty") }
            self = kind == "image" ? .image(path: value) : .video(path: value)
        case "blur":
            guard let sigma = Double(value), sigma.isFinite, sigma > 0, sigma <= Self.maximumBlurSigma else {
                throw Self.usage(text, "SIGMA must be a number of pixels above 0 and at most \(Int(Self.maximumBlurSigma))")
            }
            self = .blur(sigma: sigma)
        case "color":
            guard value.hasPrefix("#"), value.count == 7, let color = RGBAColor(hex: value) else {
                throw Self.usage(text, "the colour must be #RRGGBB")
            }
            self = .color(color)
        default:
            throw Self.usage(text, "unknown kind '\(kind)'; expected image, blur, color, video or transparent")
        }
    }

    private static func usage(_ text: String, _ reason: String) -> ReplayError {
        ReplayError.usage("`BackgroundSettings.background`: '\(text)': \(reason)", options: ["BackgroundSettings.background"])
    }
}
