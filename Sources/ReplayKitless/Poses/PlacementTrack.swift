import Foundation

/// A video frame as annotation placement sees it: when it is shown, its display-oriented size
/// (after the container's rotation), and its matched pose (`nil` when hidden).
public struct TrackFrame: Sendable, Equatable {
    /// Presentation time in seconds relative to the first frame.
    public var time: Double
    /// Display width in pixels (after the container's rotation).
    public var width: Int
    /// Display height in pixels (after the container's rotation).
    public var height: Int
    /// The pose matched to the frame; `nil` hides every annotation on it.
    public var pose: Pose?

    /// A frame shown at `time` seconds with a display size and its pose.
    public init(time: Double, width: Int, height: Int, pose: Pose?) {
        self.time = time
        self.width = width
        self.height = height
        self.pose = pose
    }
}

/// An annotation whose anchor is settled to a world point, with the interval it is shown in.
public struct PlacedAnnotation: Sendable, Equatable {
    /// The scene's annotation.
    public var annotation: Annotation
    /// The anchor in world space, metres.
    public var world: SIMD3<Double>
    /// Shown from this scene time (inclusive): `from`, else the tap time for tap anchors, else −∞.
    public var from: Double
    /// Shown until this scene time (inclusive): `until`, else +∞.
    public var until: Double

    /// A placement of `annotation` at `world`, shown in the interval its `from`/`until` give.
    public init(annotation: Annotation, world: SIMD3<Double>) {
        self.annotation = annotation
        self.world = world
        var start = -Double.infinity
        if case .tap(let tap) = annotation.anchor { start = tap.t }
        from = annotation.from ?? start
        until = annotation.until ?? .infinity
    }

    /// Whether it is shown at `sceneTime`: `from ≤ t ≤ until`, both ends inclusive (a nanosecond of slack
    /// absorbs timestamps that went through floating point).
    public func isActive(at sceneTime: Double) -> Bool {
        sceneTime >= from - PoseTimeline.timeTolerance && sceneTime <= until + PoseTimeline.timeTolerance
    }

    /// Where the anchor lands on `frame` (formats.md §2, §7): the projection, or `nil` without a pose,
    /// and whether it is visible (on screen and active at the frame's scene time).
    public func placement(on frame: TrackFrame, sceneTimeOrigin: Double = 0) -> (projection: Projection?, visible: Bool) {
        guard let pose = frame.pose else { return (nil, false) }
        let camera = Camera(pose: pose, width: frame.width, height: frame.height)
        let projection = camera.project(world)
        return (projection, camera.isOnScreen(projection) && isActive(at: frame.time + sceneTimeOrigin))
    }
}

extension AnnotationScene {
    /// Settles every anchor to a world point (formats.md §6).
    ///
    /// World anchors are used as they are. A tap anchor uses the frame whose scene time
    /// (`time + sceneTimeOrigin`) is nearest the tap time (the earlier on a tie), its size and its pose:
    /// - `camera-depth`: the point on the tapped pixel's ray at view depth `depth`;
    /// - `opentok-sample`: with `P = R·(0, 0, −depth)` (the camera's forward direction times `depth`,
    ///   measured from the world origin), the point on the ray at P's view depth `−(Rᵀ(P − t)).z`.
    ///
    /// Errors (bad input, naming `file` and the annotation): no frames, no pose on the tap frame,
    /// or a reference point that is not in front of the camera.
    public func placed(frames: [TrackFrame], sceneTimeOrigin: Double = 0, file path: FilePath) throws(ReplayError) -> [PlacedAnnotation] {
        let file = path.string
        let times = frames.map { $0.time + sceneTimeOrigin }
        let order = PoseTimeline.timeOrder(times)
        return try annotations.map { (annotation) throws(ReplayError) -> PlacedAnnotation in
            switch annotation.anchor {
            case .world(let point):
                return PlacedAnnotation(annotation: annotation, world: point)
            case .tap(let tap):
                func fail(_ message: String) -> ReplayError {
                    ReplayError.badInput(file: file, field: "annotation \"\(annotation.id)\", anchor.tap", message)
                }
                guard let index = PoseTimeline.nearestFrame(to: tap.t, times: times, order: order) else {
                    throw fail("the video has no frames to resolve the tap at t=\(tap.t) against")
                }
                let frame = frames[index]
                guard let pose = frame.pose else {
                    throw fail("frame \(index), nearest the tap time \(tap.t) s, has no pose")
                }
                let camera = Camera(pose: pose, width: frame.width, height: frame.height)
                guard let world = tap.worldPoint(seenBy: camera) else {
                    guard tap.mode == .opentokSample else { throw fail("depth must be greater than 0, got \(tap.depth)") }
                    throw fail("opentok-sample reference point (world forward × \(tap.depth) m from the origin) is "
                               + "behind the camera of frame \(index) (view depth \(tap.viewDepth(seenBy: camera))); use camera-depth mode")
                }
                return PlacedAnnotation(annotation: annotation, world: world)
            }
        }
    }
}

extension TapAnchor {
    /// The view depth the anchor is placed at when the tap is resolved with `camera` (the tap frame's
    /// pose and size): `depth` in `camera-depth` mode; in `opentok-sample` mode the view depth of
    /// `P = R·(0, 0, −depth)`, which is ≤ 0 when P is behind the camera.
    public func viewDepth(seenBy camera: Camera) -> Double {
        switch mode {
        case .cameraDepth:
            return depth
        case .opentokSample:
            let reference = camera.pose.rotation * SIMD3(0, 0, -depth)
            return -camera.cameraSpace(reference).z
        }
    }

    /// The world point the tap gives when resolved with `camera` (formats.md §6): the point on the
    /// tapped pixel's ray at ``viewDepth(seenBy:)``; `nil` when that depth is not positive.
    /// The one tap resolution used by scenes, tracks and latency QA.
    public func worldPoint(seenBy camera: Camera) -> SIMD3<Double>? {
        let depth = viewDepth(seenBy: camera)
        guard depth > 0 else { return nil }
        return camera.unproject(x: x, y: y, depth: depth)
    }
}

/// One row of the placement track (formats.md §7).
public struct PlacementRow: Sendable, Equatable {
    /// 0-based presentation index.
    public var frame: Int
    /// Presentation time in seconds relative to the first frame.
    public var t: Double
    /// The annotation's id.
    public var id: String
    /// On screen, in front of the near plane and active at the frame's time (formats.md §7).
    public var visible: Bool
    /// Continuous pixel coordinates; `nil` when the anchor is not in front of the camera (d ≤ 0) or the frame has no pose.
    public var x: Double?
    /// Pixel row, down from the top; `nil` as for `x`.
    public var y: Double?
    /// View depth `d`; `nil` when the frame has no pose.
    public var depth: Double?
    /// Line in the file the row was read from (1-based), for messages.
    public var line: Int?

    /// A row with the fields of formats.md §7.
    public init(frame: Int, t: Double, id: String, visible: Bool, x: Double?, y: Double?, depth: Double?, line: Int? = nil) {
        self.frame = frame
        self.t = t
        self.id = id
        self.visible = visible
        self.x = x
        self.y = y
        self.depth = depth
        self.line = line
    }
}

/// Where each annotation lands on each frame: the output of `fxreplay track` and the input of
/// `fxreplay qa compare` (formats.md §7).
public struct PlacementTrack: Sendable {
    /// The file, named in messages.
    public var file: FilePath
    /// Rows in file order.
    public var rows: [PlacementRow]

    /// A track of `rows`, named `file` in messages.
    public init(file: FilePath, rows: [PlacementRow]) {
        self.file = file
        self.rows = rows
    }

    /// Track file formats.
    public enum Format: String, Sendable, CaseIterable {
        /// `frame,t,id,visible,x,y,depth` with a header row.
        case csv
        /// One JSON object per row with the same fields; `visible` is a boolean, missing values `null`.
        case jsonl
    }

    /// Rows for every frame (in the order given, presentation order) and every annotation (scene order).
    /// A pure function of its inputs: frame times and sizes, per-frame poses and the scene.
    public static func rows(frames: [TrackFrame], annotations: [PlacedAnnotation], sceneTimeOrigin: Double = 0) -> [PlacementRow] {
        frames.enumerated().flatMap { index, frame in
            annotations.map { placed in
                let (projection, visible) = placed.placement(on: frame, sceneTimeOrigin: sceneTimeOrigin)
                // x and y stay empty behind the camera, and where an anchor almost in the camera's plane
                // projects to infinity: a track never holds "inf" or "nan".
                let inFront = (projection?.depth ?? 0) > 0 && projection?.x.isFinite == true && projection?.y.isFinite == true
                return PlacementRow(frame: index, t: frame.time, id: placed.annotation.id, visible: visible,
                                    x: inFront ? projection?.x : nil, y: inFront ? projection?.y : nil,
                                    depth: projection?.depth.isFinite == true ? projection?.depth : nil)
            }
        }
    }

    /// Resolves the scene's anchors against `frames`, then computes the rows. A track of more than
    /// 10 million rows (frames × annotations), more than `qa compare` reads back, is
    /// refused before any is made: a small scene over a long video must not exhaust memory.
    public static func rows(frames: [TrackFrame], scene: AnnotationScene, sceneFile: FilePath,
                            sceneTimeOrigin: Double = 0) throws(ReplayError) -> [PlacementRow] {
        let (count, overflow) = frames.count.multipliedReportingOverflow(by: scene.annotations.count)
        guard !overflow, count <= InputLimits.trackRows else {
            throw ReplayError.badInput(file: sceneFile.string, "\(scene.annotations.count) annotations on \(frames.count) frames make a track "
                                       + "of more than \(InputLimits.trackRows) rows, the most fxreplay writes (see docs/limits.md)")
        }
        let placed = try scene.placed(frames: frames, sceneTimeOrigin: sceneTimeOrigin, file: sceneFile)
        return rows(frames: frames, annotations: placed, sceneTimeOrigin: sceneTimeOrigin)
    }

    /// The track as text: t with 6 decimals (microseconds), x and y with 4 (1/10000 pixel), depth with 6.
    public static func text(_ rows: [PlacementRow], format: Format) -> String {
        func fixed(_ value: Double?, _ decimals: Int, missing: String) -> String {
            value.map { TextNumber.fixed($0, decimals: decimals) } ?? missing
        }
        switch format {
        case .csv:
            return rows.reduce(into: "frame,t,id,visible,x,y,depth\n") { text, row in
                let cells = [String(row.frame), TextNumber.fixed(row.t, decimals: 6), TextNumber.csvField(row.id),
                             row.visible ? "1" : "0", fixed(row.x, 4, missing: ""), fixed(row.y, 4, missing: ""),
                             fixed(row.depth, 6, missing: "")]
                text += cells.joined(separator: ",") + "\n"
            }
        case .jsonl:
            return rows.reduce(into: "") { text, row in
                text += "{\"frame\": \(row.frame), \"t\": \(TextNumber.fixed(row.t, decimals: 6)), "
                    + "\"id\": \(TextNumber.jsonString(row.id)), \"visible\": \(row.visible), "
                    + "\"x\": \(fixed(row.x, 4, missing: "null")), \"y\": \(fixed(row.y, 4, missing: "null")), "
                    + "\"depth\": \(fixed(row.depth, 6, missing: "null"))}\n"
            }
        }
    }

    /// Writes the track to `path` (complete or not at all).
    public static func write(_ rows: [PlacementRow], to path: FilePath, format: Format) throws(ReplayError) {
        try writeFileAtomically(Data(text(rows, format: format).utf8), to: path.string)
    }
}
