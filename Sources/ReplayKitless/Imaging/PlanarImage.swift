/// A borrowed view of one 8-bit image plane: `height` rows of `width` samples, rows `stride` bytes apart.
///
/// A `Plane` does not own its memory. Whoever hands one out (a ``PlanarBuffer`` or a decoded frame)
/// keeps the memory alive while the view is used; that is why it may cross threads unchecked.
public struct Plane: @unchecked Sendable {
    /// The first sample of the first row.
    public let base: UnsafeMutablePointer<UInt8>
    /// Bytes from one row's start to the next (at least `width`; padding may follow each row).
    public let stride: Int
    /// Samples per row.
    public let width: Int
    /// Rows.
    public let height: Int

    package init(base: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int) {
        self.base = base
        self.stride = stride
        self.width = width
        self.height = height
    }

    /// Row `y` as a mutable buffer of `width` samples.
    @inlinable public func row(_ y: Int) -> UnsafeMutableBufferPointer<UInt8> {
        UnsafeMutableBufferPointer(start: base + y * stride, count: width)
    }

    /// The sample at column `x`, row `y` (unchecked: both must be inside the plane).
    @inlinable public subscript(x: Int, y: Int) -> UInt8 {
        get { base[y * stride + x] }
        nonmutating set { base[y * stride + x] = newValue }
    }

    /// Sets every sample to `value`.
    public func fill(_ value: UInt8) {
        for y in 0..<height { row(y).update(repeating: value) }
    }

    /// Copies this plane into `destination` with its top-left sample at (`x`, `y`) (it must fit).
    func paste(into destination: Plane, x: Int, y: Int) {
        for row in 0..<height {
            (destination.base + (y + row) * destination.stride + x).update(from: base + row * stride, count: width)
        }
    }

    /// Sets the samples of columns `x ..< x + width`, rows `y ..< y + height` (clipped to the plane) to `value`.
    public func fill(_ value: UInt8, x: Int, y: Int, width: Int, height: Int) {
        let left = max(0, x), right = min(self.width, x + width)
        guard left < right else { return }
        for row in max(0, y)..<max(max(0, y), min(self.height, y + height)) {
            (base + row * stride + left).update(repeating: value, count: right - left)
        }
    }

    /// Whether some sample is below `value` (it stops at the first).
    func hasSample(below value: UInt8) -> Bool {
        for y in 0..<height where row(y).contains(where: { $0 < value }) { return true }
        return false
    }

    /// Copies `other` (same size) into this plane row by row.
    package func copy(from other: Plane) {
        precondition(other.width == width && other.height == height, "plane sizes differ")
        for y in 0..<height { (base + y * stride).update(from: other.base + y * other.stride, count: width) }
    }
}

/// How far chroma planes are subsampled: 4:2:0 is (1, 1), 4:2:2 is (1, 0), 4:4:4 is (0, 0).
public struct ChromaSubsampling: Sendable, Equatable, Hashable {
    /// log2 of the horizontal subsampling: chroma column `x >> shiftX` covers luma column `x`.
    public var shiftX: Int
    /// log2 of the vertical subsampling: chroma row `y >> shiftY` covers luma row `y`.
    public var shiftY: Int
    /// Subsampling from its two shifts.
    public init(shiftX: Int, shiftY: Int) { self.shiftX = shiftX; self.shiftY = shiftY }
    /// Half the chroma columns and half the rows (the usual video layout).
    public static let yuv420 = ChromaSubsampling(shiftX: 1, shiftY: 1)
    /// Half the chroma columns, every row.
    public static let yuv422 = ChromaSubsampling(shiftX: 1, shiftY: 0)
    /// Chroma at full resolution.
    public static let yuv444 = ChromaSubsampling(shiftX: 0, shiftY: 0)

    /// Chroma plane size for a luma size (rounded up, as FFmpeg does).
    public func chromaSize(width: Int, height: Int) -> (width: Int, height: Int) {
        ((width + (1 << shiftX) - 1) >> shiftX, (height + (1 << shiftY) - 1) >> shiftY)
    }
}

/// An 8-bit planar Y'CbCr picture, optionally with an alpha plane: the form every
/// compositing and rendering stage works on, without any RGB round trip (what a ``FrameEffect``
/// is handed: views of the frame's memory, valid during the call).
public struct YUVImage: Sendable {
    /// The luma (Y') plane, full size.
    public package(set) var luma: Plane
    /// The blue-difference chroma plane, subsampled as ``subsampling`` says.
    public package(set) var cb: Plane
    /// The red-difference chroma plane, subsampled as ``subsampling`` says.
    public package(set) var cr: Plane
    /// The alpha plane (0 transparent … 255 opaque), full size; `nil` for video frames.
    public package(set) var alpha: Plane?
    /// How the chroma planes are subsampled (video frames: 4:2:0 unless the input says otherwise).
    public package(set) var subsampling: ChromaSubsampling
    /// The colour matrix and range of the samples: convert colours with ``ColorSpace/yuv(red:green:blue:)``.
    public package(set) var colorSpace: ColorSpace

    package init(luma: Plane, cb: Plane, cr: Plane, alpha: Plane? = nil,
                subsampling: ChromaSubsampling, colorSpace: ColorSpace) {
        self.luma = luma
        self.cb = cb
        self.cr = cr
        self.alpha = alpha
        self.subsampling = subsampling
        self.colorSpace = colorSpace
    }

    /// Width in luma samples.
    public var width: Int { luma.width }
    /// Height in luma rows.
    public var height: Int { luma.height }

    /// Fills the picture with one colour (alpha, when present, opaque).
    public func fill(_ color: YUVColor) {
        luma.fill(color.y)
        cb.fill(color.cb)
        cr.fill(color.cr)
        alpha?.fill(255)
    }

    /// Copies `other` (same size and layout) into this picture.
    package func copy(from other: YUVImage) {
        luma.copy(from: other.luma)
        cb.copy(from: other.cb)
        cr.copy(from: other.cr)
        if let alpha, let source = other.alpha { alpha.copy(from: source) }
    }
}

/// Owned memory for a ``YUVImage``: backgrounds, scratch layers, test fixtures.
/// Allocated once and reused; the memory lives as long as this object.
package final class PlanarBuffer: @unchecked Sendable {
    package let image: YUVImage
    private let storage: UnsafeMutablePointer<UInt8>

    package init(width: Int, height: Int, subsampling: ChromaSubsampling = .yuv420,
                colorSpace: ColorSpace = .bt709Limited, alpha: Bool = false) {
        precondition(width > 0 && height > 0, "empty picture")
        let chroma = subsampling.chromaSize(width: width, height: height)
        let lumaBytes = width * height
        let chromaBytes = chroma.width * chroma.height
        let total = lumaBytes * (alpha ? 2 : 1) + 2 * chromaBytes
        storage = .allocate(capacity: total)
        storage.initialize(repeating: 0, count: total)
        let luma = Plane(base: storage, stride: width, width: width, height: height)
        let cb = Plane(base: storage + lumaBytes, stride: chroma.width, width: chroma.width, height: chroma.height)
        let cr = Plane(base: storage + lumaBytes + chromaBytes, stride: chroma.width, width: chroma.width, height: chroma.height)
        let alphaPlane = alpha ? Plane(base: storage + lumaBytes + 2 * chromaBytes, stride: width, width: width, height: height) : nil
        image = YUVImage(luma: luma, cb: cb, cr: cr, alpha: alphaPlane, subsampling: subsampling, colorSpace: colorSpace)
    }

    deinit { storage.deallocate() }
}
