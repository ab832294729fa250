/// `round(x / 255)` for `x` in 0…65025 (any product of two 8-bit samples), without a division:
/// with t = x + 128, `(t + t >> 8) >> 8` is exact over that whole range (checked exhaustively in
/// the tests), and every step fits in 16 bits so the loops that use it vectorise.
@inline(__always)
func divideBy255Rounded(_ x: UInt16) -> UInt16 {
    let t = x &+ 128
    return (t &+ (t >> 8)) &>> 8
}

/// `value` rounded to the nearest integer (halves to even), as a byte, for −0.5 < value < 255.5.
///
/// Adding 1.5 · 2²³ leaves a float whose unit is 1, so its low mantissa bits are the rounded value:
/// a conversion without Swift's range checks, which lets the loops that use it vectorise.
@inline(__always)
func roundedByte(_ value: Float) -> UInt8 {
    UInt8(truncatingIfNeeded: (value + 12_582_912).bitPattern)
}

/// `round(x / divisor)` (halves round up) for 0 ≤ x ≤ 255 · divisor, by one multiply and shift.
///
/// Used where a divisor is fixed for a whole loop (partial chroma blocks, the smoothing window). With
/// k = 31 + ⌊log₂ divisor⌋ and m = ⌈2ᵏ / divisor⌉, `⌊(x + ⌊divisor/2⌋) · m / 2ᵏ⌋` is exact
/// because the dividend stays below 256 · divisor and 256 · divisor² < 2ᵏ for divisors below 2²².
/// The multiplier fits in 32 bits, so the product is a 32×32→64 multiply.
struct RoundingDivider {
    private let bias: UInt32
    private let multiplier: UInt64
    private let shift: UInt64

    /// Largest divisor for which the result is exact.
    static let maximumDivisor = (1 << 22) - 1

    init(_ divisor: Int) {
        precondition(divisor >= 1 && divisor <= Self.maximumDivisor, "divisor out of range")
        let k = 31 + (Int.bitWidth - 1 - divisor.leadingZeroBitCount)
        bias = UInt32(divisor / 2)
        multiplier = UInt64(((1 << k) + divisor - 1) / divisor)
        shift = UInt64(k)
    }

    @inline(__always)
    func callAsFunction(_ x: UInt32) -> UInt32 {
        UInt32(truncatingIfNeeded: (UInt64(x &+ bias) &* multiplier) &>> shift)
    }
}

/// Grow-only scratch memory for the per-frame kernels: zero-filled when (re)allocated, reused for
/// every later frame that fits, so steady-state processing allocates nothing.
struct ScratchBuffer<Element: BitwiseCopyable>: ~Copyable {
    private var storage: UnsafeMutablePointer<Element>
    private var capacity: Int

    init() {
        capacity = 0
        storage = Self.allocate(1)
    }

    deinit { storage.deallocate() }

    /// Memory for at least `count` elements. Contents are unspecified once it has been used.
    mutating func reserve(_ count: Int) -> UnsafeMutablePointer<Element> {
        if count > capacity {
            storage.deallocate()
            storage = Self.allocate(count)
            capacity = count
        }
        return storage
    }

    /// A plane view over at least `width × height` bytes of scratch.
    mutating func plane(width: Int, height: Int) -> Plane where Element == UInt8 {
        Plane(base: reserve(width * height), stride: width, width: width, height: height)
    }

    private static func allocate(_ count: Int) -> UnsafeMutablePointer<Element> {
        let bytes = max(1, count) * MemoryLayout<Element>.stride
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: max(16, MemoryLayout<Element>.alignment))
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        return raw.bindMemory(to: Element.self, capacity: max(1, count))
    }
}

extension Plane {
    /// Whether `other` has the same width and height.
    func hasSameSize(as other: Plane) -> Bool { width == other.width && height == other.height }
}
