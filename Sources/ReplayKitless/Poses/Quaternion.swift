import Foundation

/// A unit quaternion `w + xi + yj + zk`, used only to interpolate rotations.
struct Quaternion: Sendable, Equatable {
    var w: Double, x: Double, y: Double, z: Double

    /// The quaternion of a rotation matrix (Shepperd's method: divide by the largest diagonal term).
    init(_ m: Matrix3) {
        let trace = m[0, 0] + m[1, 1] + m[2, 2]
        if trace > 0 {
            let s = 2 * sqrt(1 + trace)
            (w, x, y, z) = (s / 4, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s)
        } else if m[0, 0] > m[1, 1], m[0, 0] > m[2, 2] {
            let s = 2 * sqrt(1 + m[0, 0] - m[1, 1] - m[2, 2])
            (w, x, y, z) = ((m[2, 1] - m[1, 2]) / s, s / 4, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s)
        } else if m[1, 1] > m[2, 2] {
            let s = 2 * sqrt(1 + m[1, 1] - m[0, 0] - m[2, 2])
            (w, x, y, z) = ((m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, s / 4, (m[1, 2] + m[2, 1]) / s)
        } else {
            let s = 2 * sqrt(1 + m[2, 2] - m[0, 0] - m[1, 1])
            (w, x, y, z) = ((m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, s / 4)
        }
    }

    init(w: Double, x: Double, y: Double, z: Double) { (self.w, self.x, self.y, self.z) = (w, x, y, z) }

    var matrix: Matrix3 {
        let n = (w * w + x * x + y * y + z * z).squareRoot()
        let (w, x, y, z) = (w / n, x / n, y / n, z / n)
        return Matrix3(columns: (
            [1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)],
            [2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)],
            [2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)]
        ))
    }

    /// Spherical interpolation from `a` (s = 0) to `b` (s = 1) along the shorter arc.
    static func slerp(_ a: Quaternion, _ b: Quaternion, _ s: Double) -> Quaternion {
        var b = b
        var cosine = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z
        if cosine < 0 {
            b = Quaternion(w: -b.w, x: -b.x, y: -b.y, z: -b.z)
            cosine = -cosine
        }
        let (ka, kb): (Double, Double)
        if cosine > 1 - 1e-12 {
            // Nearly the same rotation: linear interpolation is exact enough and avoids 0/0.
            (ka, kb) = (1 - s, s)
        } else {
            let angle = acos(cosine), sine = sin(angle)
            (ka, kb) = (sin((1 - s) * angle) / sine, sin(s * angle) / sine)
        }
        return Quaternion(w: ka * a.w + kb * b.w, x: ka * a.x + kb * b.x, y: ka * a.y + kb * b.y, z: ka * a.z + kb * b.z)
    }
}
