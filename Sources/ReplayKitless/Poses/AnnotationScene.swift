/// The built-in annotation shapes (formats.md §6), plus meshes loaded from Wavefront OBJ files.
public enum AnnotationShape: Sendable, Equatable, Hashable {
    case sphere, box, cone, cylinder, arrow, pin, ring, star
    /// A Wavefront OBJ mesh; the path is resolved relative to the scene file.
    case mesh(path: FilePath)
}

/// Where an annotation is anchored (formats.md §6).
public enum AnnotationAnchor: Sendable, Equatable {
    /// A fixed point in world space, metres.
    case world(SIMD3<Double>)
    /// A tap on pixel (`x`, `y`) of the frame at time `t`, placed at `depth` metres.
    case tap(TapAnchor)
}

/// A tap anchor: the pixel tapped, when, and how deep along its ray the anchor goes.
public struct TapAnchor: Sendable, Equatable {
    /// How `depth` places the anchor on the tap's ray (formats.md §6).
    public enum Mode: String, Sendable, Equatable {
        /// The point on the tap's ray at view depth `depth` (default).
        case cameraDepth = "camera-depth"
        /// The original mobile sample: the point on the tap's ray with the view depth of
        /// `worldFront · depth` measured from the world origin.
        case opentokSample = "opentok-sample"
    }
    /// The time of the tapped frame, seconds (sidecar time base).
    public var t: Double
    /// The tapped pixel's column, continuous pixel coordinates (formats.md §2).
    public var x: Double
    /// The tapped pixel's row, continuous pixel coordinates, down from the top.
    public var y: Double
    /// How deep along the tap's ray the anchor goes, metres (see `mode`).
    public var depth: Double
    /// How `depth` is measured.
    public var mode: Mode

    /// A tap at pixel (`x`, `y`) of the frame at time `t`, `depth` metres along its ray.
    public init(t: Double, x: Double, y: Double, depth: Double, mode: Mode = .cameraDepth) {
        self.t = t; self.x = x; self.y = y; self.depth = depth; self.mode = mode
    }
}

/// One annotation of a scene file: what to draw, where, and when.
public struct Annotation: Sendable, Equatable {
    /// The annotation's id, unique in its scene; tracks and QA reports name it.
    public var id: String
    /// Where it is placed in the world.
    public var anchor: AnnotationAnchor
    /// What is drawn (a built-in shape or an OBJ mesh).
    public var shape: AnnotationShape
    /// Size in metres (the shape's overall extent).
    public var size: Double
    /// Fill colour, alpha included.
    public var color: RGBAColor
    /// Text drawn beside it; `nil` for none.
    public var label: String?
    /// Label text height in pixels (screen space, readable at any distance).
    public var labelSize: Double
    /// Shown from this time (seconds, sidecar time base); `nil` means from the start, or from the tap time.
    public var from: Double?
    /// Shown until this time; `nil` means to the end.
    public var until: Double?
    /// Euler angles (pitch, yaw, roll) in radians, same convention as poses.
    public var orientation: SIMD3<Double>
    /// Always faces the camera.
    public var billboard: Bool
    /// Turns per second about the vertical axis.
    public var spin: Double
    /// A thin grey stem from the anchor down to the y = 0 plane.
    public var stem: Bool

    /// An annotation with the defaults of formats.md §6 for whatever is not given.
    public init(id: String, anchor: AnnotationAnchor, shape: AnnotationShape = .sphere, size: Double = 0.05,
                color: RGBAColor = RGBAColor(red: 255, green: 59, blue: 48), label: String? = nil,
                labelSize: Double = 18, from: Double? = nil, until: Double? = nil,
                orientation: SIMD3<Double> = .zero, billboard: Bool = false, spin: Double = 0, stem: Bool = false) {
        self.id = id
        self.anchor = anchor
        self.shape = shape
        self.size = size
        self.color = color
        self.label = label
        self.labelSize = labelSize
        self.from = from
        self.until = until
        self.orientation = orientation
        self.billboard = billboard
        self.spin = spin
        self.stem = stem
    }
}

/// A parsed `annotations.json` (formats.md §6).
public struct AnnotationScene: Sendable, Equatable {
    /// The annotations, in the file's order (later ones are drawn over earlier ones at equal depth).
    public var annotations: [Annotation]
    /// The clock the scene's times are read on (formats.md §6, `time`).
    public var clock: SceneClock
    /// A scene of `annotations` whose times are on `clock`; read one from a file with ``load(path:)``.
    public init(annotations: [Annotation], clock: SceneClock = .poses) {
        self.annotations = annotations
        self.clock = clock
    }

    /// The OBJ files the scene's meshes come from: inputs, never to be written over.
    public var meshFiles: [FilePath] {
        annotations.compactMap { if case .mesh(let path) = $0.shape { path } else { nil } }
    }
}
