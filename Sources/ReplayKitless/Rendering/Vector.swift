/// The few vector operations the rasterizer and mesh code need, on `SIMD3<Double>`.
/// (Per-frame code builds vectors with `init(_:_:_:)`: an array literal may allocate.)
extension SIMD3 where Scalar == Double {
    @inline(__always) func dotProduct(_ other: Self) -> Double { (self * other).sum() }

    @inline(__always) func crossProduct(_ b: Self) -> Self {
        Self(y * b.z - z * b.y, z * b.x - x * b.z, x * b.y - y * b.x)
    }

    @inline(__always) var norm: Double { dotProduct(self).squareRoot() }

    /// Scaled to unit length, or zero when it has no length.
    @inline(__always) var unitOrZero: Self {
        let l = norm
        return l > 0 && l.isFinite ? self / l : .zero
    }
}
