/// One number per colour plane of a Y'CbCr picture: luma (`y`), Cb (`u`) and Cr (`v`),
/// named as FFmpeg's quality filters name them.
public struct PlaneValues: Sendable, Equatable, Codable {
    /// Luma (Y').
    public var y: Double
    /// Blue-difference chroma (Cb).
    public var u: Double
    /// Red-difference chroma (Cr).
    public var v: Double

    /// One value per plane, in FFmpeg's order Y, Cb, Cr.
    public init(y: Double, u: Double, v: Double) {
        self.y = y; self.u = u; self.v = v
    }

    /// 0 on every plane, where sums start.
    public static let zero = PlaneValues(y: 0, u: 0, v: 0)

    /// Plane `index` in FFmpeg's order: 0 luma, 1 Cb, 2 Cr.
    public subscript(index: Int) -> Double {
        get {
            switch index {
            case 0: y
            case 1: u
            default: v
            }
        }
        set {
            switch index {
            case 0: y = newValue
            case 1: u = newValue
            default: v = newValue
            }
        }
    }

    /// Applies `transform` to each plane's value.
    func map(_ transform: (Double) -> Double) -> PlaneValues {
        PlaneValues(y: transform(y), u: transform(u), v: transform(v))
    }
}

/// The colour planes two pictures are compared on, checked to line up.
///
/// Only Y, Cb and Cr take part; an alpha plane is ignored (FFmpeg's `ssim` filter has no
/// alpha formats, and the pictures fxreplay compares are opaque video).
struct PlanePair {
    static let planeCount = 3

    let a: YUVImage
    let b: YUVImage

    init(_ a: YUVImage, _ b: YUVImage) throws(ReplayError) {
        guard a.width == b.width, a.height == b.height else {
            throw .badInput("cannot compare a \(a.width)×\(a.height) picture with a \(b.width)×\(b.height) one: sizes must match")
        }
        guard a.subsampling == b.subsampling else {
            throw .badInput("cannot compare pictures with different chroma subsampling")
        }
        for index in 1..<Self.planeCount {
            let pa = Self.plane(a, index), pb = Self.plane(b, index)
            guard pa.width == pb.width, pa.height == pb.height else {
                throw .badInput("chroma planes of the two pictures differ in size")
            }
        }
        self.a = a
        self.b = b
    }

    static func plane(_ image: YUVImage, _ index: Int) -> Plane {
        switch index {
        case 0: image.luma
        case 1: image.cb
        default: image.cr
        }
    }

    /// Each plane's share of all samples: FFmpeg's `planeweight` / `coefs`, `(double) h·w / sum`.
    var weights: PlaneValues {
        let luma = a.luma.width * a.luma.height
        let cb = a.cb.width * a.cb.height
        let cr = a.cr.width * a.cr.height
        let total = Double(luma + cb + cr)
        return PlaneValues(y: Double(luma) / total, u: Double(cb) / total, v: Double(cr) / total)
    }
}

extension Plane {
    /// The `width × height` samples from column `x`, row `y` on (which must lie inside this plane).
    func region(x: Int, y: Int, width: Int, height: Int) -> Plane {
        Plane(base: base + y * stride + x, stride: stride, width: width, height: height)
    }
}
