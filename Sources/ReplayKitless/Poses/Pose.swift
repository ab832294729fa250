import Foundation

/// A 3×3 matrix of column vectors, enough for rotations.
public struct Matrix3: Sendable, Equatable {
    /// The three columns: the images of the X, Y and Z unit vectors.
    public var columns: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)

    /// A matrix from its three columns.
    public init(columns: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)) { self.columns = columns }

    /// The matrix that turns nothing.
    public static let identity = Matrix3(columns: ([1, 0, 0], [0, 1, 0], [0, 0, 1]))

    public static func == (a: Matrix3, b: Matrix3) -> Bool {
        a.columns.0 == b.columns.0 && a.columns.1 == b.columns.1 && a.columns.2 == b.columns.2
    }

    /// Rotation about +X by `angle` radians (right-handed).
    public static func rotationX(_ angle: Double) -> Matrix3 {
        let c = cos(angle), s = sin(angle)
        return Matrix3(columns: ([1, 0, 0], [0, c, s], [0, -s, c]))
    }
    /// Rotation about +Y by `angle` radians (right-handed).
    public static func rotationY(_ angle: Double) -> Matrix3 {
        let c = cos(angle), s = sin(angle)
        return Matrix3(columns: ([c, 0, -s], [0, 1, 0], [s, 0, c]))
    }
    /// Rotation about +Z by `angle` radians (right-handed).
    public static func rotationZ(_ angle: Double) -> Matrix3 {
        let c = cos(angle), s = sin(angle)
        return Matrix3(columns: ([c, s, 0], [-s, c, 0], [0, 0, 1]))
    }

    /// The matrix applied to a column vector, `m·v`.
    public static func * (m: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        m.columns.0 * v.x + m.columns.1 * v.y + m.columns.2 * v.z
    }
    /// The product `a·b` (apply `b` first, then `a`).
    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(columns: (a * b.columns.0, a * b.columns.1, a * b.columns.2))
    }

    /// The transpose, which is the inverse of a rotation.
    public var transposed: Matrix3 {
        let (c0, c1, c2) = columns
        // SIMD3(_:_:_:), not array literals: those allocate, and this runs per point per frame.
        return Matrix3(columns: (SIMD3(c0.x, c1.x, c2.x), SIMD3(c0.y, c1.y, c2.y), SIMD3(c0.z, c1.z, c2.z)))
    }

    /// Element at `row`, `column`.
    public subscript(row: Int, column: Int) -> Double {
        switch column {
        case 0: columns.0[row]
        case 1: columns.1[row]
        default: columns.2[row]
        }
    }
}

/// Pinhole intrinsics in pixels, continuous coordinates (formats.md §2): `u = cx + fx·x/d`, `v = cy − fy·y/d`.
public struct Intrinsics: Sendable, Equatable, Hashable, Codable {
    /// Horizontal focal length, pixels.
    public var fx: Double
    /// Vertical focal length, pixels.
    public var fy: Double
    /// Principal point's column, pixels from the left edge.
    public var cx: Double
    /// Principal point's row, pixels from the top edge.
    public var cy: Double
    /// Intrinsics from focal lengths and principal point, all in pixels.
    public init(fx: Double, fy: Double, cx: Double, cy: Double) {
        self.fx = fx; self.fy = fy; self.cx = cx; self.cy = cy
    }
}

/// A camera pose for one frame (formats.md §1): where the camera is, how it is turned, and its lens.
///
/// Rotation is camera-to-world, `R = Rz(roll)·Ry(yaw)·Rx(pitch)`, `Xworld = R·Xcam + t`;
/// the camera looks down its own −Z axis with +Y up and +X right.
public struct Pose: Sendable, Equatable {
    /// Camera position `t` in metres, world space.
    public var position: SIMD3<Double>
    /// Camera-to-world rotation `R`.
    public var rotation: Matrix3 {
        didSet { givenEuler = nil }
    }
    /// The Euler angles this rotation was made from, if it was: ``euler`` gives them back as they
    /// were (several triples make one rotation; a recorded pose's own is the one to write back).
    private var givenEuler: SIMD3<Double>?
    /// Near clipping distance in metres: points at depth ≤ zNear are not visible.
    public var zNear: Double
    /// Vertical field of view in degrees (ignored when `intrinsics` is set).
    public var fovY: Double
    /// Real intrinsics, replacing `fovY` when present.
    public var intrinsics: Intrinsics?

    /// A pose from a camera-to-world rotation matrix; `euler` then gives the triple with yaw in [−π/2, π/2].
    public init(position: SIMD3<Double>, rotation: Matrix3, zNear: Double, fovY: Double, intrinsics: Intrinsics? = nil) {
        self.position = position
        self.rotation = rotation
        self.zNear = zNear
        self.fovY = fovY
        self.intrinsics = intrinsics
    }

    /// A pose from SceneKit-style Euler angles `(pitch, yaw, roll)` in radians.
    public init(position: SIMD3<Double>, euler: SIMD3<Double>, zNear: Double, fovY: Double, intrinsics: Intrinsics? = nil) {
        self.init(position: position, rotation: Pose.rotation(euler: euler), zNear: zNear, fovY: fovY, intrinsics: intrinsics)
        givenEuler = euler
    }

    /// Poses are equal when they place and turn the camera alike, whichever angles made the rotation.
    public static func == (a: Pose, b: Pose) -> Bool {
        a.position == b.position && a.rotation == b.rotation && a.zNear == b.zNear && a.fovY == b.fovY
            && a.intrinsics == b.intrinsics
    }

    /// `R = Rz(roll)·Ry(yaw)·Rx(pitch)`.
    public static func rotation(euler: SIMD3<Double>) -> Matrix3 {
        .rotationZ(euler.z) * .rotationY(euler.y) * .rotationX(euler.x)
    }

    /// Euler angles `(pitch, yaw, roll)` that rebuild `rotation`: those it was made from, else the
    /// triple with yaw in [−π/2, π/2].
    public var euler: SIMD3<Double> {
        if let givenEuler { return givenEuler }
        // R = Rz·Ry·Rx: R[2,0] = −sin(yaw), R[2,1] = cos(yaw)·sin(pitch), R[2,2] = cos(yaw)·cos(pitch),
        // R[1,0] = sin(roll)·cos(yaw), R[0,0] = cos(roll)·cos(yaw).
        let r = rotation
        let sinYaw = max(-1, min(1, -r[2, 0]))
        let yaw = asin(sinYaw)
        if abs(sinYaw) < 1 - 1e-12 {
            return [atan2(r[2, 1], r[2, 2]), yaw, atan2(r[1, 0], r[0, 0])]
        }
        // Gimbal lock: only pitch ∓ roll is defined; put it all in pitch.
        return [atan2(-r[1, 2], r[1, 1]), yaw, 0]
    }
}

/// What projecting a world point gives: continuous pixel coordinates and view depth (formats.md §2).
public struct Projection: Sendable, Equatable {
    /// Pixel coordinates; meaningless when `depth` ≤ 0.
    public var x: Double
    /// Pixel row, down from the top; meaningless when `depth` ≤ 0.
    public var y: Double
    /// Depth along the view axis, `d = −Xc.z`.
    public var depth: Double
}

/// A pose seen through a frame of a given display-oriented size: the contract's projection maths.
public struct Camera: Sendable, Equatable {
    /// The camera's pose for the frame.
    public var pose: Pose
    /// The frame's width in pixels, display-oriented (after rotation).
    public var width: Double
    /// The frame's height in pixels, display-oriented (after rotation).
    public var height: Double

    /// `pose` seen through a frame of `width`×`height` pixels, display-oriented.
    public init(pose: Pose, width: Int, height: Int) {
        self.pose = pose
        self.width = Double(width)
        self.height = Double(height)
    }

    /// Focal lengths in pixels and principal point, from intrinsics or from `fovY`.
    public var focal: Intrinsics {
        if let intrinsics = pose.intrinsics { return intrinsics }
        let sy = 1 / tan(pose.fovY * .pi / 360)
        let sx = sy * height / width
        return Intrinsics(fx: sx * width / 2, fy: sy * height / 2, cx: width / 2, cy: height / 2)
    }

    /// World point to camera space: `Xc = Rᵀ·(Xw − t)`.
    public func cameraSpace(_ world: SIMD3<Double>) -> SIMD3<Double> {
        pose.rotation.transposed * (world - pose.position)
    }

    /// Camera-space point to world: `Xw = R·Xc + t`.
    public func worldSpace(_ camera: SIMD3<Double>) -> SIMD3<Double> {
        pose.rotation * camera + pose.position
    }

    /// Camera-space point to pixel coordinates and depth.
    public func project(cameraSpace c: SIMD3<Double>) -> Projection {
        let d = -c.z
        let f = focal
        return Projection(x: f.cx + f.fx * c.x / d, y: f.cy - f.fy * c.y / d, depth: d)
    }

    /// World point to pixel coordinates and depth.
    public func project(_ world: SIMD3<Double>) -> Projection {
        project(cameraSpace: cameraSpace(world))
    }

    /// The world point at depth `depth` on the ray through pixel (`x`, `y`).
    public func unproject(x: Double, y: Double, depth: Double) -> SIMD3<Double> {
        let f = focal
        let c = SIMD3(depth * (x - f.cx) / f.fx, depth * (f.cy - y) / f.fy, -depth)
        return worldSpace(c)
    }

    /// On screen: in front of the near plane and inside the frame (formats.md §2).
    public func isOnScreen(_ p: Projection) -> Bool {
        p.depth > pose.zNear && p.x >= 0 && p.x < width && p.y >= 0 && p.y < height
    }
}
