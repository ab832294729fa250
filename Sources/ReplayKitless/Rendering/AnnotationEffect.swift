/// What `render --annotations` draws, and how.
public struct AnnotationSettings: Sendable, Codable, Equatable {
    /// The scene file (`annotations.json`, formats.md §6).
    public var scene: String
    /// Font for labels (default: DejaVu Sans from Debian's fonts-dejavu-core).
    public var font: String?
    /// Draw the person (mask foreground) over the annotations, so they look behind the person.
    public var occludeWithMask = false

    public init(scene: String) { self.scene = scene }

    /// The files these settings read: the scene, its meshes (a scene that cannot be read has none
    /// here; loading it reports why) and the font.
    public var inputFiles: [String] {
        [scene] + ((try? AnnotationScene.load(path: scene))?.meshFiles ?? []) + (font.map { [$0] } ?? [])
    }
}

/// Per-frame access to the mask another effect (background replacement) used for this frame.
public protocol FrameMaskProvider: AnyObject {
    /// The frame-sized mask (255 = person) of the frame being processed, if it has one.
    var currentMask: Plane? { get }
}

/// The annotation stage: draws the scene into each frame from that frame's pose, after
/// background replacement. Anchors (tap anchors included) are resolved once, up front, with the
/// same code `fxreplay track` uses, so drawn and tracked placements agree.
final class AnnotationEffect: FrameEffect {
    let name = "annotations"
    private let poses: FramePoses
    private let placed: [PlacedAnnotation]
    private let renderer: AnnotationRenderer
    private let displaySize: PictureSize
    /// The scene file, named in errors.
    private let scene: String
    private let masks: FrameMaskProvider?
    /// The frames are mirrored (`--mirror`): annotations stay on what the poses saw, mirrored with it.
    private let mirror: Bool
    private var active: [PlacedAnnotation] = []
    private var framesDrawn = 0
    private var framesWithoutPose = 0

    init(settings: AnnotationSettings, context: EffectContext, masks: FrameMaskProvider?) throws(ReplayError) {
        guard let poses = context.poses else {
            throw .usage("--annotations needs camera poses: --poses FILE or --poses-from-sei")
        }
        if settings.occludeWithMask && masks == nil {
            throw .usage("--occlude-with-mask needs a mask (--mask)")
        }
        self.poses = poses
        scene = settings.scene
        self.masks = settings.occludeWithMask ? masks : nil
        mirror = context.options.mirror
        let scan = poses.scan
        displaySize = PictureSize(width: scan.width, height: scan.height)
        let frames = zip(scan.frames, poses.timeline.poses).map { timing, pose in
            TrackFrame(time: timing.time, width: scan.width, height: scan.height, pose: pose)
        }
        var options = AnnotationRenderer.Options()
        if let font = settings.font { options.fontPath = font }
        renderer = AnnotationRenderer(options: options)
        let loaded = try AnnotationScene.load(path: settings.scene)
        placed = try loaded.placed(frames: frames, sceneTimeOrigin: poses.sceneTimeOrigin, file: settings.scene)
        try renderer.prepare(loaded.annotations, scene: settings.scene)
        active.reserveCapacity(placed.count)
    }

    func apply(to image: YUVImage, at time: FrameTime) throws(ReplayError) {
        guard let index = poses.frameIndex(pts: time.pts), let pose = poses.timeline.poses[index] else {
            framesWithoutPose += 1
            return
        }
        let sceneTime = poses.scan.frames[index].time + poses.sceneTimeOrigin
        active.removeAll(keepingCapacity: true)
        for annotation in placed where annotation.isActive(at: sceneTime) { active.append(annotation) }
        guard !active.isEmpty else { return }
        var seen = pose.scaled(from: displaySize, to: PictureSize(width: image.width, height: image.height))
        if mirror { seen = seen.mirrored(width: image.width, height: image.height) }
        let camera = Camera(pose: seen, width: image.width, height: image.height)
        do throws(ReplayError) {
            try renderer.render(active, camera: camera, time: sceneTime, into: image, occlusion: masks?.currentMask)
        } catch where error.kind == .badInput {
            throw .badInput("\(scene), frame \(time.index): \(error.message)")
        }
        framesDrawn += 1
    }

    func reportLines() -> [String: Int] {
        ["annotations": placed.count, "framesDrawn": framesDrawn, "framesWithoutPose": framesWithoutPose]
    }
}

extension Pose {
    /// The same camera seen through a picture scaled from `source` to `target` pixels: intrinsics
    /// (which are in pixels) scale with it; a field of view needs no change.
    func scaled(from source: PictureSize, to target: PictureSize) -> Pose {
        guard let intrinsics, source != target else { return self }
        let sx = Double(target.width) / Double(source.width), sy = Double(target.height) / Double(source.height)
        var copy = self
        copy.intrinsics = Intrinsics(fx: intrinsics.fx * sx, fy: intrinsics.fy * sy, cx: intrinsics.cx * sx, cy: intrinsics.cy * sy)
        return copy
    }

    /// The same camera with its `width × height` picture flipped left to right: pixel x becomes
    /// width − x (a negative horizontal focal length; shapes keep their camera-space shading).
    func mirrored(width: Int, height: Int) -> Pose {
        let focal = Camera(pose: self, width: width, height: height).focal
        var copy = self
        copy.intrinsics = Intrinsics(fx: -focal.fx, fy: focal.fy, cx: Double(width) - focal.cx, cy: focal.cy)
        return copy
    }
}
