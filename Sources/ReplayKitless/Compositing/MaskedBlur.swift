/// How a `blur:SIGMA` background treats the person (`--blur-mode`).
public enum BlurMode: String, Sendable, Codable, CaseIterable {
    /// The whole frame blurred (formats.md §5): the person's colours spread into the background
    /// around them, a halo.
    case plain
    /// The person's pixels left out: out = blur(frame · (1 − m)) / blur(1 − m), m the mask (1 =
    /// person), so the background around the person keeps the background's colours.
    case masked
}

/// The halo-free blur of `--blur-mode masked`: the frame weighted by the background weight w = 255 −
/// mask (at chroma resolution for chroma, as in the blend), blurred, then divided by the blurred
/// weight. Where the blurred weight is under ``minimumWeight`` (deep inside the person, where the
/// background hardly shows) the quotient is too coarse and the plain blur is used.
final class MaskedBlur {
    /// Blurred background weights below this (out of 255) take the plain blur.
    static let minimumWeight: UInt8 = 32

    private let blur: GaussianBlur
    private let chromaMasks = MaskBlender()
    private var weighted: PlanarBuffer?
    private var lumaWeights = ScratchBuffer<UInt8>()
    private var chromaWeights = ScratchBuffer<UInt8>()
    /// 255 / w for every blurred weight w, so the division is one multiply.
    private let reciprocals: [Float] = (0...255).map { $0 == 0 ? 0 : 255 / Float($0) }

    init(blur: GaussianBlur) { self.blur = blur }

    /// Blurs `frame` into `destination` (same layout) with σ = `sigma`, leaving out where `mask`
    /// (luma size, 255 = person) is high.
    func blur(_ frame: YUVImage, mask: Plane, into destination: YUVImage, sigma: Double) {
        if weighted.map({ !$0.image.luma.hasSameSize(as: frame.luma) || $0.image.subsampling != frame.subsampling }) ?? true {
            weighted = PlanarBuffer(width: frame.width, height: frame.height, subsampling: frame.subsampling,
                                    colorSpace: frame.colorSpace)
        }
        let weighted = weighted!.image
        blur.blur(frame, into: destination, sigma: sigma)  // the fallback
        let lumaWeight = lumaWeights.plane(width: mask.width, height: mask.height)
        Self.complement(mask, into: lumaWeight)
        let chromaMask = chromaMasks.chromaMask(mask, subsampling: frame.subsampling)
        let chromaWeight = chromaWeights.plane(width: chromaMask.width, height: chromaMask.height)
        Self.complement(chromaMask, into: chromaWeight)
        Self.multiply(frame.luma, by: lumaWeight, into: weighted.luma)
        Self.multiply(frame.cb, by: chromaWeight, into: weighted.cb)
        Self.multiply(frame.cr, by: chromaWeight, into: weighted.cr)
        let chromaSigmaX = sigma / Double(1 << frame.subsampling.shiftX)
        let chromaSigmaY = sigma / Double(1 << frame.subsampling.shiftY)
        blur.blur(weighted.luma, into: weighted.luma, sigmaX: sigma, sigmaY: sigma)
        blur.blur(weighted.cb, into: weighted.cb, sigmaX: chromaSigmaX, sigmaY: chromaSigmaY)
        blur.blur(weighted.cr, into: weighted.cr, sigmaX: chromaSigmaX, sigmaY: chromaSigmaY)
        blur.blur(lumaWeight, into: lumaWeight, sigmaX: sigma, sigmaY: sigma)
        blur.blur(chromaWeight, into: chromaWeight, sigmaX: chromaSigmaX, sigmaY: chromaSigmaY)
        reciprocals.withUnsafeBufferPointer { reciprocals in
            normalise(weighted.luma, by: lumaWeight, into: destination.luma, reciprocals: reciprocals)
            normalise(weighted.cb, by: chromaWeight, into: destination.cb, reciprocals: reciprocals)
            normalise(weighted.cr, by: chromaWeight, into: destination.cr, reciprocals: reciprocals)
        }
    }

    /// `output = 255 − mask`.
    private static func complement(_ mask: Plane, into output: Plane) {
        for y in 0..<mask.height {
            let source = mask.base + y * mask.stride, target = output.base + y * output.stride
            for x in 0..<mask.width { target[x] = 255 &- source[x] }
        }
    }

    /// `output = round(plane · weight / 255)`.
    private static func multiply(_ plane: Plane, by weight: Plane, into output: Plane) {
        for y in 0..<plane.height {
            let source = plane.base + y * plane.stride, weights = weight.base + y * weight.stride
            let target = output.base + y * output.stride
            for x in 0..<plane.width { target[x] = UInt8(truncatingIfNeeded: divideBy255Rounded(UInt16(source[x]) &* UInt16(weights[x]))) }
        }
    }

    /// `output = round(weighted · 255 / weight)` where the blurred weight is high enough; elsewhere
    /// `output` keeps the plain blur.
    private func normalise(_ weighted: Plane, by weight: Plane, into output: Plane, reciprocals: UnsafeBufferPointer<Float>) {
        let minimum = Self.minimumWeight
        for y in 0..<weighted.height {
            let source = weighted.base + y * weighted.stride, weights = weight.base + y * weight.stride
            let target = output.base + y * output.stride
            for x in 0..<weighted.width where weights[x] >= minimum {
                target[x] = roundedByte(min(Float(source[x]) * reciprocals[Int(weights[x])], 255))
            }
        }
    }
}
