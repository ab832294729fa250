/// Lens values the user forces on every pose (`--fov DEG`, `--znear M`, `--intrinsics fx,fy,cx,cy`),
/// because AR frameworks often report an unreliable field of view (background.md §1).
///
/// `intrinsics` win over everything; `fovY` replaces the pose's field of view and drops intrinsics
/// the pose itself carried; `zNear` replaces the near distance.
public struct PoseOverrides: Sendable, Equatable {
    /// Vertical field of view in degrees forced on every pose (`--fov`); `nil`: the pose's own.
    public var fovY: Double?
    /// Near clipping distance in metres forced on every pose (`--znear`); `nil`: the pose's own.
    public var zNear: Double?
    /// Pinhole intrinsics forced on every pose (`--intrinsics`); `nil`: the pose's own.
    public var intrinsics: Intrinsics?

    /// No overrides.
    public static let none = PoseOverrides(unchecked: nil, nil, nil)

    /// Checks the values as command-line options: throws ``ReplayError`` (usage) naming the option.
    public init(fovY: Double? = nil, zNear: Double? = nil, intrinsics: Intrinsics? = nil) throws(ReplayError) {
        if let fovY, !InputLimits.fieldOfView.contains(fovY) {
            throw ReplayError.usage("`PoseOverrides.fovY` must be between 0 and 180 degrees (got \(fovY))", options: ["PoseOverrides.fovY"])
        }
        if let zNear, !(0...InputLimits.worldExtent).contains(zNear) {
            throw ReplayError.usage("`PoseOverrides.zNear` must be a distance ≥ 0 in metres, at most 1e9 (got \(zNear))", options: ["PoseOverrides.zNear"])
        }
        if let intrinsics, let problem = intrinsics.problem {
            throw ReplayError.usage("`PoseOverrides.intrinsics`: \(problem)", options: ["PoseOverrides.intrinsics"])
        }
        self.init(unchecked: fovY, zNear, intrinsics)
    }

    private init(unchecked fovY: Double?, _ zNear: Double?, _ intrinsics: Intrinsics?) {
        self.fovY = fovY
        self.zNear = zNear
        self.intrinsics = intrinsics
    }

    /// Whether nothing is overridden.
    public var isEmpty: Bool { fovY == nil && zNear == nil && intrinsics == nil }

    /// `pose` with the overridden values replaced.
    public func apply(to pose: Pose) -> Pose {
        var result = pose
        if let fovY {
            result.fovY = fovY
            result.intrinsics = nil
        }
        if let zNear { result.zNear = zNear }
        if let intrinsics { result.intrinsics = intrinsics }
        return result
    }

    /// Parses the `--intrinsics` option value `fx,fy,cx,cy` (pixels).
    public static func parseIntrinsics(_ text: String) throws(ReplayError) -> Intrinsics {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let fx = parts[0], let fy = parts[1], let cx = parts[2], let cy = parts[3] else {
            throw ReplayError.usage("`PoseOverrides.intrinsics` expects four numbers fx,fy,cx,cy in pixels (got \"\(text)\")", options: ["PoseOverrides.intrinsics"])
        }
        let intrinsics = Intrinsics(fx: fx, fy: fy, cx: cx, cy: cy)
        if let problem = intrinsics.problem { throw ReplayError.usage("`PoseOverrides.intrinsics`: \(problem)", options: ["PoseOverrides.intrinsics"]) }
        return intrinsics
    }
}

extension Intrinsics {
    /// Why these intrinsics cannot project anything, or `nil` when they can.
    var problem: String? {
        guard [fx, fy, cx, cy].allSatisfy(\.isFinite) else { return "fx, fy, cx, cy must be finite numbers" }
        guard fx > 0, fy > 0 else { return "focal lengths fx and fy must be greater than 0" }
        guard InputLimits.focalLengths.contains(fx), InputLimits.focalLengths.contains(fy),
              abs(cx) <= InputLimits.principalPoint, abs(cy) <= InputLimits.principalPoint else {
            return "fx and fy must be 0.001 to 1e9 pixels, cx and cy within ±1e9 (got \(fx), \(fy), \(cx), \(cy))"
        }
        return nil
    }
}

extension Pose {
    /// Why this pose cannot project anything (a lens that cannot, or a position so far out that
    /// projecting overflows), with the field at fault, or `nil` when it can.
    var lensProblem: (field: String, message: String)? {
        if ![position.x, position.y, position.z].allSatisfy({ abs($0) <= InputLimits.worldExtent }) {
            return ("position", "the camera position must be within ±1e9 m of the origin (got \(position.x), \(position.y), \(position.z))")
        }
        if !(0...InputLimits.worldExtent).contains(zNear) {
            return ("zNear", "zNear must be a distance ≥ 0 in metres, at most 1e9 (got \(zNear)); override it with `PoseOverrides.zNear`")
        }
        if let intrinsics {
            return intrinsics.problem.map { ("intrinsics", $0 + "; override them with `PoseOverrides.intrinsics`") }
        }
        if !InputLimits.fieldOfView.contains(fovY) {
            return ("fovY", "fovY must be between 0 and 180 degrees (got \(fovY)); override it with `PoseOverrides.fovY` or `PoseOverrides.intrinsics`")
        }
        return nil
    }
}
