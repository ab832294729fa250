/// How progress is shown while a long job runs.
public enum ProgressStyle: String, Sendable, Codable, CaseIterable {
    /// A live bar on a terminal, plain lines otherwise.
    case auto
    /// Plain periodic lines.
    case plain
    /// One JSON object per line, for machines.
    case json
    /// Nothing.
    case none
}

/// Everything `fxreplay render` takes. Later stages (poses, masks, annotations) add their settings here.
public struct RenderOptions: Sendable, Codable, Equatable {
    /// Input path or URL.
    public var input: String
    /// Output path; the container comes from its extension.
    public var output: String
    public var encoder = EncoderSettings()
    /// Output size in display orientation; `nil` keeps the first frame's size.
    public var size: PictureSize?
    /// Keep the container's rotation metadata instead of turning the pixels upright.
    public var keepRotation = false
    /// Flip the picture horizontally (front cameras are mirrored).
    public var mirror = false
    /// Replace an existing output file.
    public var overwrite = false
    /// Where camera poses come from; needed by annotations and by `embedPoses`.
    public var poses: PoseSettings?
    /// 3D annotations to draw from each frame's pose; needs `poses`.
    public var annotations: AnnotationSettings?
    /// Write each frame's pose as SEI into the H.264/HEVC output (formats.md §4).
    public var embedPoses = false
    /// Fail once more than this many packets or frames fail to decode (`nil`: never; 0: the first error).
    public var maxDecodeErrors: Int?
    /// Background replacement with supplied masks (formats.md §5); `nil`: none.
    public var background: BackgroundSettings?
    /// Other files the command reads (a job spec, placement tracks): never written over either.
    public var otherInputs: [String] = []

    public init(input: String, output: String) {
        self.input = input
        self.output = output
    }

    /// Every file the render reads: none of them may be written over.
    public var inputFiles: [String] {
        [input] + (poses?.inputFiles ?? []) + (annotations?.inputFiles ?? []) + (background?.inputFiles ?? []) + otherInputs
    }
}

/// A picture size in pixels, parsed from `WxH`.
public struct PictureSize: Sendable, Codable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) { self.width = width; self.height = height }

    /// Parses `WxH` (e.g. `1280x720`); `nil` when malformed or not positive.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              width > 0, height > 0, width <= 16384, height <= 16384 else { return nil }
        self.init(width: width, height: height)
    }

    public var description: String { "\(width)x\(height)" }
}
