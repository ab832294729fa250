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
    /// The recording: a local path or a URL that ``InputPolicy`` allows (a `String`, as `FilePath`
    /// would fold the `//` of `https://host/a.mp4`).
    public var input: String
    /// The file written; the container comes from its extension.
    @PathCoded public var output: FilePath
    /// The output's codec, quality, speed and bitstream controls. Its `threads`, when set, is also
    /// the most threads the video is decoded on: a render asked to keep to N encoder threads (one
    /// each in a batch of as many renders as cores, say) does not start a decoding thread per core
    /// beside them.
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
    /// What happens to the input's sound (copied, encoded anew, left out).
    public var audio = AudioSettings()
    /// Trimming: seconds after the first frame (the `t` of poses and annotations) where the
    /// output starts and ends; `nil`: the input's start, end. Poses and annotations stay on the
    /// input's timeline.
    public var from: Double?
    /// Where the output ends, seconds after the first frame; `nil`: the input's end.
    public var to: Double?
    /// Other files the command reads (a job spec, placement tracks): never written over either.
    @PathCoded public var otherInputs: [FilePath] = []
    /// Threads that apply the effects, several frames at once (`--process-threads`): 0 for one per
    /// core; `nil` for `encoder.threads` when that is set, else one per core; never more than the
    /// cores (``resolvedProcessThreads``). Effects that only draw (annotations) start on one thread,
    /// others (masks, backgrounds, blur) on two, and threads are added, up to this, only while they
    /// hold the render back and raise its frame rate (``RenderReport/processLanes``). The output is
    /// the same bytes whatever the number.
    public var processThreads: Int?

    /// A render of `input` into `output` with the defaults of `fxreplay render`: the first frame's
    /// size turned upright, the codec the container suggests, sound copied, no effects.
    public init(input: String, output: FilePath) {
        self.input = input
        self.output = output
    }

    /// The number of process threads `processThreads` asks for on this machine: at least 1, at most
    /// one per core this process may use. A lane past the cores does not pay: it holds two more
    /// frames and makes the threads take turns (`fxbench process`, 1080p, on 2 cores: 16 lanes ran
    /// 1.69–1.75× one lane's speed with 10 % more CPU, against 1.91–1.95× for 2).
    public var resolvedProcessThreads: Int {
        let asked = processThreads ?? encoder.threads
        return asked > 0 ? min(asked, RowBands.availableCores) : RowBands.availableCores
    }

    /// Every file the render reads: none of them may be written over. Spellings, as the input and
    /// the masks may be URLs (``LocalFiles/paths(_:)`` finds the local files they open).
    public var inputFiles: [String] {
        [input] + ((poses?.inputFiles ?? []) + (annotations?.inputFiles ?? [])).map(\.string)
            + (background?.inputFiles ?? []) + otherInputs.map(\.string)
    }
}

/// Refuses a time option (`from`, `to` of ``RenderOptions`` and ``ComposeOptions``, `name` its property)
/// that is not finite or not from 0 to ``InputLimits/optionSeconds``, naming the option and the value: checked before the time is
/// turned into a timestamp or a frame count, which could overflow.
public func checkTimeOption(_ name: String, _ seconds: Double) throws(ReplayError) {
    guard seconds.isFinite, (0...InputLimits.optionSeconds).contains(seconds) else {
        throw .usage("`\(name)` \(seconds): must be a time from 0 to \(Int(InputLimits.optionSeconds)) seconds", options: [name])
    }
}

/// A picture size in pixels, parsed from `WxH`.
public struct PictureSize: Sendable, Codable, Equatable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// A size of `width`×`height` pixels, unchecked (`init(checking:)` checks).
    public init(width: Int, height: Int) { self.width = width; self.height = height }

    /// Parses `WxH` (e.g. `1280x720`); `nil` when malformed or not a size FFmpeg can hold.
    public init?(parsing text: String) {
        guard let size = try? PictureSize(checking: text) else { return nil }
        self = size
    }

    /// The largest width or height the encoders take (x264, libvpx: 16384).
    public static let maximumSide = 16384

    /// Parses `WxH`, saying what is wrong with a size that is malformed, not positive, or larger
    /// than FFmpeg's pictures may be (`av_image_check_size`: (W+128)·(H+128) below 2³¹/8, so
    /// 16384 on one side limits the other to 16255).
    public init(checking text: String) throws(ReplayError) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
            throw .usage("'\(text)' is not a size WIDTHxHEIGHT such as 1280x720")
        }
        guard width > 0, height > 0 else { throw .usage("'\(text)': width and height must be positive") }
        guard width <= Self.maximumSide, height <= Self.maximumSide,
              (width + 128) * (height + 128) < Int(Int32.max) / 8 else {
            throw .usage("'\(text)' is larger than FFmpeg's pictures may be (at most \(Self.maximumSide) a side, and (W+128)×(H+128) below \(Int(Int32.max) / 8))")
        }
        self.init(width: width, height: height)
    }

    public var description: String { "\(width)x\(height)" }
}
