@testable import ReplayKitless

/// An owned 8-bit plane for compositing tests. Rows are padded past `width` with a sentinel so
/// tests can check that kernels respect the stride and never write outside the picture.
final class TestPlane {
    static let padding = 3
    static let sentinel: UInt8 = 0xA5

    let plane: Plane
    private let storage: UnsafeMutablePointer<UInt8>
    private let byteCount: Int

    init(width: Int, height: Int, values: [UInt8]? = nil) {
        let stride = width + Self.padding
        byteCount = stride * height
        storage = .allocate(capacity: max(1, byteCount))
        storage.initialize(repeating: Self.sentinel, count: byteCount)
        plane = Plane(base: storage, stride: stride, width: width, height: height)
        if let values { self.values = values }
    }

    convenience init(width: Int, height: Int, fill: UInt8) {
        self.init(width: width, height: height, values: Array(repeating: fill, count: width * height))
    }

    /// Builds the plane from rows of samples.
    convenience init(rows: [[UInt8]]) {
        self.init(width: rows[0].count, height: rows.count, values: rows.flatMap { $0 })
    }

    deinit { storage.deallocate() }

    var width: Int { plane.width }
    var height: Int { plane.height }

    /// The samples, row-major, without padding.
    var values: [UInt8] {
        get { (0..<plane.height).flatMap { y in (0..<plane.width).map { x in plane[x, y] } } }
        set {
            precondition(newValue.count == plane.width * plane.height)
            for y in 0..<plane.height { for x in 0..<plane.width { plane[x, y] = newValue[y * plane.width + x] } }
        }
    }

    var rows: [[UInt8]] { (0..<plane.height).map { y in (0..<plane.width).map { x in plane[x, y] } } }

    /// Whether the padding after every row still holds the sentinel.
    var paddingIntact: Bool {
        (0..<plane.height).allSatisfy { y in
            (plane.width..<plane.stride).allSatisfy { storage[y * plane.stride + $0] == Self.sentinel }
        }
    }
}

/// An owned Y'CbCr image built from `TestPlane`s (so strides are padded), optionally with alpha.
final class TestImage {
    let luma: TestPlane, cb: TestPlane, cr: TestPlane, alpha: TestPlane?
    let image: YUVImage

    init(width: Int, height: Int, subsampling: ChromaSubsampling, colorSpace: ColorSpace = .bt709Limited,
         withAlpha: Bool = false, seed: UInt64? = nil, fill: YUVColor = YUVColor(y: 16, cb: 128, cr: 128)) {
        let chroma = subsampling.chromaSize(width: width, height: height)
        luma = TestPlane(width: width, height: height, fill: fill.y)
        cb = TestPlane(width: chroma.width, height: chroma.height, fill: fill.cb)
        cr = TestPlane(width: chroma.width, height: chroma.height, fill: fill.cr)
        alpha = withAlpha ? TestPlane(width: width, height: height, fill: 0) : nil
        if let seed {
            var random = SplitMix(seed: seed)
            for plane in [luma, cb, cr] { plane.values = random.bytes(plane.width * plane.height) }
        }
        image = YUVImage(luma: luma.plane, cb: cb.plane, cr: cr.plane, alpha: alpha?.plane,
                         subsampling: subsampling, colorSpace: colorSpace)
    }

    var planes: [TestPlane] { [luma, cb, cr] }
}

/// A small deterministic generator so test patterns are reproducible.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
}
