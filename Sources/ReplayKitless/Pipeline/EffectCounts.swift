/// What the effects of a render (or of one participant's streams in a composition) counted: a
/// report's `effects` object, one member per effect under its name. The library's own effects
/// have a type each; a caller's own effects (``FrameEffect``) keep the counts they report by name.
public struct EffectCounts: Sendable, Equatable, Codable {
    /// Background replacement (`background`).
    public var background: BackgroundCounts?
    /// Annotations (`annotations`).
    public var annotations: AnnotationCounts?
    /// How poses were matched to frames (`poses`).
    public var poses: PoseCounts?
    /// Effects of the caller's own, by ``FrameEffect/name``: what their ``FrameEffect/reportLines()`` counted.
    public var custom: [String: [String: Int]] = [:]

    /// No effect counted.
    public init() {}

    /// The counts of `effects` (a caller's own by name, the library's by type).
    init(of effects: [any FrameEffect]) {
        for effect in effects {
            if let counted = effect as? any CountedEffect { counted.count(into: &self) } else { custom[effect.name] = effect.reportLines() }
        }
    }

    /// Adds `other`'s counts to these (a participant's tracks, summed).
    mutating func add(_ other: EffectCounts) {
        background = BackgroundCounts.sum(background, other.background)
        annotations = AnnotationCounts.sum(annotations, other.annotations)
        poses = PoseCounts.sum(poses, other.poses)
        custom.merge(other.custom) { $0.merging($1, uniquingKeysWith: +) }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Reads the flat object: each member by its effect's name.
    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys {
            switch key.stringValue {
            case "background": background = try container.decode(BackgroundCounts.self, forKey: key)
            case "annotations": annotations = try container.decode(AnnotationCounts.self, forKey: key)
            case "poses": poses = try container.decode(PoseCounts.self, forKey: key)
            default: custom[key.stringValue] = try container.decode([String: Int].self, forKey: key)
            }
        }
    }

    /// Writes the flat object: each member by its effect's name.
    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, lines) in custom { try container.encode(lines, forKey: Key(stringValue: name)) }
        try container.encodeIfPresent(background, forKey: Key(stringValue: "background"))
        try container.encodeIfPresent(annotations, forKey: Key(stringValue: "annotations"))
        try container.encodeIfPresent(poses, forKey: Key(stringValue: "poses"))
    }
}

/// What background replacement counted.
public struct BackgroundCounts: Sendable, Equatable, Codable {
    /// Frames given a mask.
    public var framesMasked = 0
    /// Frames whose background was replaced.
    public var framesReplaced = 0
    /// Frames without a mask of their own that held the last one (`hold`).
    public var masksHeld = 0
    /// Frames without a mask left as they were (`keep-original`).
    public var framesKeptOriginal = 0
    /// Damaged packets of the mask video skipped.
    public var maskDecodeErrors = 0
    /// Times a background video started again from its beginning; `nil` without one.
    public var backgroundLoops: Int?

    static func sum(_ a: Self?, _ b: Self?) -> Self? {
        guard let a, let b else { return a ?? b }
        return Self(framesMasked: a.framesMasked + b.framesMasked, framesReplaced: a.framesReplaced + b.framesReplaced,
                    masksHeld: a.masksHeld + b.masksHeld, framesKeptOriginal: a.framesKeptOriginal + b.framesKeptOriginal,
                    maskDecodeErrors: a.maskDecodeErrors + b.maskDecodeErrors,
                    backgroundLoops: a.backgroundLoops == nil && b.backgroundLoops == nil ? nil : (a.backgroundLoops ?? 0) + (b.backgroundLoops ?? 0))
    }
}

/// What the annotation effect counted.
public struct AnnotationCounts: Sendable, Equatable, Codable {
    /// Annotations in the scene.
    public var annotations = 0
    /// Frames (in a composition, tiles' pictures) with at least one annotation drawn.
    public var framesDrawn = 0
    /// Frames without a pose, left without annotations.
    public var framesWithoutPose = 0

    static func sum(_ a: Self?, _ b: Self?) -> Self? {
        guard let a, let b else { return a ?? b }
        return Self(annotations: max(a.annotations, b.annotations), framesDrawn: a.framesDrawn + b.framesDrawn,
                    framesWithoutPose: a.framesWithoutPose + b.framesWithoutPose)
    }
}

/// How poses were matched to frames, and how many frames carry a pose SEI.
public struct PoseCounts: Sendable, Equatable, Codable {
    /// Frames that got a sample of their own.
    public var matched = 0
    /// Frames whose pose was interpolated between two samples.
    public var interpolated = 0
    /// Frames that took a neighbour's pose.
    public var held = 0
    /// Frames left without a pose.
    public var hidden = 0
    /// Samples that matched no frame.
    public var unusedSamples = 0
    /// Frames given a pose SEI (`RenderOptions.embedPoses`); `nil` when none were written.
    public var framesWithPoseSEI: Int?

    /// The match these counts come from (its summary line).
    public var report: PoseMatchReport {
        PoseMatchReport(matched: matched, interpolated: interpolated, held: held, hidden: hidden, unusedSamples: unusedSamples)
    }

}

extension PoseCounts {
    /// The counts of a pose match. (In an extension: the memberwise initialiser stays.)
    public init(_ report: PoseMatchReport) {
        self.init(matched: report.matched, interpolated: report.interpolated, held: report.held, hidden: report.hidden,
                  unusedSamples: report.unusedSamples)
    }

    static func sum(_ a: Self?, _ b: Self?) -> Self? {
        guard let a, let b else { return a ?? b }
        return Self(matched: a.matched + b.matched, interpolated: a.interpolated + b.interpolated, held: a.held + b.held,
                    hidden: a.hidden + b.hidden, unusedSamples: a.unusedSamples + b.unusedSamples,
                    framesWithPoseSEI: a.framesWithPoseSEI == nil && b.framesWithPoseSEI == nil ? nil : (a.framesWithPoseSEI ?? 0) + (b.framesWithPoseSEI ?? 0))
    }
}

/// An effect of the library's own, whose counts have a type in ``EffectCounts``.
protocol CountedEffect: FrameEffect {
    /// Sets this effect's member of `counts` (once, at the end).
    func count(into counts: inout EffectCounts)
}
