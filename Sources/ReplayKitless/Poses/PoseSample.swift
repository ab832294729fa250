/// One pose as a sidecar file or the video stream states it (formats.md §1, §3), before matching to frames.
///
/// Values are kept as the source gave them: Euler angles rather than a matrix, and a note of whether
/// they were float32 (pose32, SEI), so writing them out again loses nothing.
public struct PoseSample: Sendable, Equatable {
    /// What the sample is attached to.
    public enum Key: Sendable, Hashable, CustomStringConvertible {
        /// Seconds: relative to the first frame, or absolute stream time when the user asks for it.
        case time(Double)
        /// 0-based presentation index of the frame.
        case frame(Int)

        public var description: String {
            switch self {
            case .time(let t): "t=\(t)"
            case .frame(let index): "frame \(index)"
            }
        }
    }

    /// The time or frame the sample belongs to.
    public var key: Key
    /// Camera position in metres, world space.
    public var position: SIMD3<Double>
    /// `(pitch, yaw, roll)` in radians, `R = Rz(roll)·Ry(yaw)·Rx(pitch)`.
    public var euler: SIMD3<Double>
    /// Near clipping distance, metres.
    public var zNear: Double
    /// Vertical field of view in degrees; may be absent when `intrinsics` are given.
    public var fovY: Double?
    /// Real intrinsics in pixels; when present they replace `fovY` in the projection.
    public var intrinsics: Intrinsics?
    /// The values are exactly float32 values (they came from pose32 or SEI): writers print them
    /// with float32's shortest digits, and pose32 → JSONL → pose32 is bit-exact. Not part of equality.
    public var isFloat32: Bool
    /// 1-based line of the text sidecar this sample came from, for error messages; not part of equality.
    public var line: Int?
    /// Presentation index of the frame whose SEI carried this sample, for error messages; not part of equality.
    public var seiFrame: Int?

    /// A sample as a source states it; `isFloat32` when the values came from float32 records.
    public init(key: Key, position: SIMD3<Double>, euler: SIMD3<Double>, zNear: Double, fovY: Double?,
                intrinsics: Intrinsics? = nil, isFloat32: Bool = false, line: Int? = nil) {
        self.key = key
        self.position = position
        self.euler = euler
        self.zNear = zNear
        self.fovY = fovY
        self.intrinsics = intrinsics
        self.isFloat32 = isFloat32
        self.line = line
    }

    /// A sample from a pose32 record (values widened exactly to `Double`).
    public init(key: Key, pose32: Pose32) {
        let p = pose32
        self.init(key: key, position: SIMD3(Double(p.position.x), Double(p.position.y), Double(p.position.z)),
                  euler: SIMD3(Double(p.euler.x), Double(p.euler.y), Double(p.euler.z)),
                  zNear: Double(p.zNear), fovY: Double(p.fovY), isFloat32: true)
    }

    /// How error messages name the sample after its file (a text sidecar's line is named apart):
    /// the frame that carried it and its time, else its key.
    var errorName: String {
        guard let seiFrame, case .time(let t) = key else { return key.description }
        return "frame \(seiFrame) at t=\(TextNumber.fixed(t, decimals: 6)) s"
    }

    /// The pose32 record for this sample (values rounded to float32), or `nil` when it has no `fovY`
    /// (pose32 cannot carry intrinsics).
    public var pose32: Pose32? {
        guard let fovY else { return nil }
        return Pose32(position: SIMD3(Float(position.x), Float(position.y), Float(position.z)),
                      euler: SIMD3(Float(euler.x), Float(euler.y), Float(euler.z)),
                      zNear: Float(zNear), fovY: Float(fovY))
    }

    /// The camera pose this sample describes. Without `fovY`, the pose's `fovY` is 0 and its
    /// intrinsics carry the lens.
    public var pose: Pose {
        Pose(position: position, euler: euler, zNear: zNear, fovY: fovY ?? 0, intrinsics: intrinsics)
    }

    public static func == (a: PoseSample, b: PoseSample) -> Bool {
        a.key == b.key && a.position == b.position && a.euler == b.euler && a.zNear == b.zNear
            && a.fovY == b.fovY && a.intrinsics == b.intrinsics
    }
}
