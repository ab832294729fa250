/// The 32-byte per-frame pose record (formats.md §1): eight IEEE-754 float32, little-endian,
/// `px py pz pitch yaw roll zNear fovY`. Decoding and encoding are bit-exact (NaN payloads included).
public struct Pose32: Sendable, Equatable {
    /// Size of one record in bytes.
    public static let byteCount = 32

    /// Camera position in metres, world space.
    public var position: SIMD3<Float>
    /// `(pitch, yaw, roll)` in radians.
    public var euler: SIMD3<Float>
    /// Near clipping distance, metres.
    public var zNear: Float
    /// Vertical field of view, degrees.
    public var fovY: Float

    /// A record of these values.
    public init(position: SIMD3<Float>, euler: SIMD3<Float>, zNear: Float, fovY: Float) {
        self.position = position
        self.euler = euler
        self.zNear = zNear
        self.fovY = fovY
    }

    /// Decodes a record from exactly 32 bytes; `nil` for any other length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        var values = [Float]()
        values.reserveCapacity(8)
        var word: UInt32 = 0
        for (offset, byte) in bytes.enumerated() {
            word |= UInt32(byte) << (8 * UInt32(offset % 4))
            if offset % 4 == 3 {
                values.append(Float(bitPattern: word))
                word = 0
            }
        }
        self.init(position: [values[0], values[1], values[2]], euler: [values[3], values[4], values[5]],
                  zNear: values[6], fovY: values[7])
    }

    /// The eight values in record order.
    public var values: [Float] { [position.x, position.y, position.z, euler.x, euler.y, euler.z, zNear, fovY] }

    /// The 32 little-endian bytes of this record.
    public var bytes: [UInt8] {
        values.flatMap { value in
            let bits = value.bitPattern
            return (0..<4).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) }
        }
    }

    /// Field names in record order, as used in error messages and CSV headers.
    static let fieldNames = ["px", "py", "pz", "pitch", "yaw", "roll", "zNear", "fovY"]
}
