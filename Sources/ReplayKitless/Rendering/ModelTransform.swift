import Foundation

/// Where a model goes in the world: `world = linear · model + translation`. Normals turn by
/// `rotation` (the linear part without its scale), so lit meshes must be scaled uniformly.
struct ModelTransform: Equatable {
    var linear: Matrix3
    var translation: SIMD3<Double>
    var rotation: Matrix3

    func apply(_ model: SIMD3<Double>) -> SIMD3<Double> { linear * model + translation }

    /// The same transform followed by the camera's world-to-camera map `Xc = Rᵀ·(Xw − t)`.
    func viewed(by camera: Camera) -> ModelTransform {
        let toCamera = camera.pose.rotation.transposed
        return ModelTransform(linear: toCamera * linear,
                              translation: toCamera * (translation - camera.pose.position),
                              rotation: toCamera * rotation)
    }
}

/// How an annotation's unit mesh and stem are placed in the world on one frame.
enum AnnotationPlacement {
    /// The shape: scaled by `size`, turned by `orientation` and then by `spin` about world +Y
    /// (angle 2π·spin·time), moved to the anchor. Billboards (and rings, always) take the
    /// camera's rotation instead, so their +Z faces the viewer; orientation and spin do not apply to them.
    static func shape(_ annotation: Annotation, anchor: SIMD3<Double>, camera: Camera, time: Double) -> ModelTransform {
        let rotation = annotation.billboard || annotation.shape == .ring ? camera.pose.rotation
            : Matrix3.rotationY(2 * Double.pi * annotation.spin * time) * Pose.rotation(euler: annotation.orientation)
        return ModelTransform(linear: rotation.scaled(by: SIMD3(repeating: annotation.size)),
                              translation: anchor, rotation: rotation)
    }

    /// Stem radius as a fraction of the annotation's size.
    static let stemRadius = 0.04

    /// The unit square of ``Mesh/stem()`` stood up as a vertical strip from the anchor to the y = 0
    /// plane, 2·`stemRadius`·`size` wide, turned about the vertical to face the camera; `nil` when
    /// the anchor is on that plane. A stem is thin and of one flat colour, so all that shows of a
    /// round pole is its outline. The strip's width runs level and square to the camera's level
    /// offset from the axis, which is the same at every height, so its long sides are that
    /// outline's. One quad costs a row what a prism cost per side it showed, and its width does not
    /// wobble as a prism's does with the side it turns to the camera. Seen along its axis (the camera
    /// straight above or below) the strip shows edge-on, where a pole would show its end's disc.
    static func stem(anchor: SIMD3<Double>, size: Double, camera: Camera) -> ModelTransform? {
        let height = abs(anchor.y)
        guard height > 1e-9, height.isFinite else { return nil }
        let facing = levelDirection(camera.pose.position - anchor)
            ?? levelDirection(camera.pose.rotation.columns.2) ?? SIMD3(0, 0, 1)
        // Right-handed: model X = Y × Z across the view, Y up, Z towards the camera.
        let rotation = Matrix3(columns: (SIMD3(facing.z, 0, -facing.x), SIMD3(0, 1, 0), facing))
        return ModelTransform(linear: rotation.scaled(by: SIMD3(2 * stemRadius * size, height, 1)),
                              translation: SIMD3(anchor.x, anchor.y / 2, anchor.z), rotation: rotation)
    }

    /// `vector` made level (y = 0) and of unit length; `nil` when it is (nearly) vertical.
    private static func levelDirection(_ vector: SIMD3<Double>) -> SIMD3<Double>? {
        let level = SIMD3(vector.x, 0, vector.z)
        let length = (level * level).sum().squareRoot()
        return length > 1e-9 * (vector * vector).sum().squareRoot() && length.isFinite ? level / length : nil
    }
}

extension Matrix3 {
    /// This matrix times `diag(factors)`: scales the model before it is turned.
    func scaled(by factors: SIMD3<Double>) -> Matrix3 {
        Matrix3(columns: (columns.0 * factors.x, columns.1 * factors.y, columns.2 * factors.z))
    }
}
