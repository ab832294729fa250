/// What `render --annotations` draws, and how.
public struct AnnotationSettings: Sendable, Codable, Equatable {
    /// The scene file (`annotations.json`, formats.md §6).
    @PathCoded public var scene: FilePath
    /// Font for labels (default: DejaVu Sans from Debian's fonts-dejavu-core).
    @PathCoded public var font: FilePath?
    /// Draw the person (mask foreground) over the annotations, so they look behind the person.
    public var occludeWithMask = false

    /// Annotations from the scene file `scene`, labels in the default font, drawn over the person.
    public init(scene: FilePath) { self.scene = scene }

    /// The files these settings read: the scene, its meshes (a scene that cannot be read has none
    /// here; loading it reports why) and the font.
    public var inputFiles: [FilePath] {
        [scene] + ((try? AnnotationScene.load(path: scene))?.meshFiles ?? []) + (font.map { [$0] } ?? [])
    }
}

/// Per-frame access to the mask another effect (background replacement) used for this frame.
package protocol FrameMaskProvider: AnyObject {
    /// The frame-sized mask (255 = person) of the frame being processed, if it has one.
    var currentMask: Plane? { get }
}

/// The annotation stage: draws the scene into each frame from that frame's pose, after
/// background replacement. Anchors (tap anchors included) are resolved once, up front, with the
/// same code `fxreplay track` uses, so drawn and tracked placements agree.
///
/// Nothing here depends on the frames before (``SplitFrameEffect``): each lane draws with a
/// renderer of its own (its caches), from the frame's pose, behind the frame's own mask. It only
/// draws (``DrawingEffect``): on a call's tile it draws on the picture at its size on the canvas,
/// the camera moved to the part of the picture the tile shows (``EffectFrame/window``).
final class AnnotationEffect: DrawingEffect, CountedEffect {
    let name = "annotations"
    private let poses: FramePoses
    private let placed: [PlacedAnnotation]
    /// Added to a frame's time since the first frame: its time on the scene's clock.
    private let sceneTimeOrigin: Double
    private let displaySize: PictureSize
    /// The scene file, named in errors.
    private let scene: String
    private let masks: FrameMaskProvider?
    /// The frames are mirrored (`--mirror`): annotations stay on what the poses saw, mirrored with it.
    private let mirror: Bool
    private var lanes: LaneStates<Lane>

    /// One thread's renderer, scratch and counts.
    private final class Lane {
        let renderer: AnnotationRenderer
        var active: [PlacedAnnotation] = []
        var framesDrawn = 0
        var framesWithoutPose = 0

        init(renderer: AnnotationRenderer, capacity: Int) {
            self.renderer = renderer
            active.reserveCapacity(capacity)
        }
    }

    init(settings: AnnotationSettings, context: EffectContext, masks: FrameMaskProvider?) throws(ReplayError) {
        guard let poses = context.poses else {
            throw .usage("`RenderOptions.annotations` needs camera poses: `RenderOptions.poses`", options: ["RenderOptions.annotations", "RenderOptions.poses"])
        }
        if settings.occludeWithMask && masks == nil {
            throw .usage("`AnnotationSettings.occludeWithMask` needs a mask (`BackgroundSettings.mask`)",
                         options: ["AnnotationSettings.occludeWithMask", "BackgroundSettings.mask"])
        }
        self.poses = poses
        scene = settings.scene.string
        self.masks = settings.occludeWithMask ? masks : nil
        mirror = context.options.mirror
        let scan = poses.scan
        displaySize = PictureSize(width: scan.width, height: scan.height)
        let frames = zip(scan.frames, poses.timeline.poses).map { timing, pose in
            TrackFrame(time: timing.time, width: scan.width, height: scan.height, pose: pose)
        }
        var options = AnnotationRenderer.Options()
        if let font = settings.font { options.fontPath = font.string }
        let scene = try AnnotationScene.load(path: settings.scene)
        sceneTimeOrigin = try poses.settings.sceneTimeOrigin(for: scan, scene: scene, file: settings.scene.string)
        let placed = try scene.placed(frames: frames, sceneTimeOrigin: sceneTimeOrigin, file: settings.scene)
        self.placed = placed
        // The first lane's renderer makes the meshes; the lanes added later share them.
        var first: AnnotationRenderer?
        lanes = try LaneStates(throwing: { () throws(ReplayError) -> Lane in
            let renderer = AnnotationRenderer(options: options, sharingMeshesWith: first)
            try renderer.prepare(scene.annotations, scene: settings.scene.string)
            if first == nil { first = renderer }
            return Lane(renderer: renderer, capacity: placed.count)
        })
    }

    func reserve(slots: Int, lanes count: Int, bands: Int) throws(ReplayError) { try lanes.reserve(count) }

    var needsMask: Bool { masks != nil }

    func sequence(_ frame: EffectFrame) throws(ReplayError) {}

    func apply(to image: YUVImage, at time: FrameTime) throws(ReplayError) {
        let frame = EffectFrame(slot: 0, time: time, size: PictureSize(width: image.width, height: image.height))
        frame.mask = masks?.currentMask
        try process(image, frame, lane: 0)
    }

    func process(_ image: YUVImage, _ frame: EffectFrame, lane index: Int) throws(ReplayError) {
        let lane = lanes[index], time = frame.time
        guard let poseIndex = poses.frameIndex(pts: time.pts), let pose = poses.timeline.poses[poseIndex] else {
            lane.framesWithoutPose += 1
            return
        }
        let sceneTime = poses.scan.frames[poseIndex].time + sceneTimeOrigin
        lane.active.removeAll(keepingCapacity: true)
        for annotation in placed where annotation.isActive(at: sceneTime) { lane.active.append(annotation) }
        guard !lane.active.isEmpty else { return }
        // The pose at the whole picture's size, mirrored with it, then moved to the part shown at the image's size.
        let size = PictureSize(width: image.width, height: image.height)
        let window = frame.window ?? PictureWindow(whole: size, shown: PixelRect(x: 0, y: 0, width: size.width, height: size.height))
        var seen = pose.scaled(from: displaySize, to: window.whole)
        if mirror { seen = seen.mirrored(width: window.whole.width, height: window.whole.height) }
        seen = seen.scaled(from: window.whole, crop: window.shown, to: size)
        let camera = Camera(pose: seen, width: image.width, height: image.height)
        do throws(ReplayError) {
            try lane.renderer.render(lane.active, camera: camera, time: sceneTime, into: image, occlusion: masks == nil ? nil : frame.mask)
        } catch where error.kind == .badInput {
            throw .badInput("\(scene), frame \(time.index): \(error.message)")
        }
        lane.framesDrawn += 1
    }

    func count(into counts: inout EffectCounts) {
        counts.annotations = AnnotationCounts(annotations: placed.count, framesDrawn: lanes.states.reduce(0) { $0 + $1.framesDrawn },
                                              framesWithoutPose: lanes.states.reduce(0) { $0 + $1.framesWithoutPose })
    }
}

extension Pose {
    /// The same camera seen through the part `crop` (the whole when `nil`) of its `source`-sized
    /// picture, scaled to `target` pixels: the intrinsics (in pixels) move with the crop's corner
    /// and scale with it, `cx' = (cx − crop.x)·target.width / crop.width` (likewise `cy'`). A field
    /// of view of the whole picture needs no change; one of a crop becomes intrinsics.
    func scaled(from source: PictureSize, crop: PixelRect? = nil, to target: PictureSize) -> Pose {
        let whole = PixelRect(x: 0, y: 0, width: source.width, height: source.height)
        let crop = crop ?? whole
        if crop == whole && (intrinsics == nil || source == target) { return self }
        let focal = Camera(pose: self, width: source.width, height: source.height).focal
        let sx = Double(target.width) / Double(crop.width), sy = Double(target.height) / Double(crop.height)
        var copy = self
        copy.intrinsics = Intrinsics(fx: focal.fx * sx, fy: focal.fy * sy, cx: (focal.cx - Double(crop.x)) * sx,
                                     cy: (focal.cy - Double(crop.y)) * sy)
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
