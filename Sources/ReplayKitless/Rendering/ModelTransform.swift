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

    /// The unit cylinder (diameter 1, height 1, centred) stretched into a thin vertical stem from
    /// the anchor to the y = 0 plane; `nil` when the anchor is on that plane.
    static func stem(anchor: SIMD3<Double>, size: Double) -> ModelTransform? {
        let height = abs(anchor.y)
        guard height > 1e-9, height.isFinite else { return nil }
        let diameter = 2 * stemRadius * size
        return ModelTransform(linear: Matrix3.identity.scaled(by: SIMD3(diameter, height, diameter)),
                              translation: SIMD3(anchor.x, anchor.y / 2, anchor.z), rotation: .identity)
    }
}

extension Matrix3 {
    /// This matrix times `diag(factors)`: scales the model before it is turned.
    func scaled(by factors: SIMD3<Double>) -> Matrix3 {
        Matrix3(columns: (columns.0 * factors.x, columns.1 * factors.y, columns.2 * factors.z))
    }
}
