import Foundation

/// Draws the person in front of the camera, in 2D over the room: head and shoulders (shirt, neck,
/// hair, face) swaying slowly, each part with an anti-aliased edge `edgeRamp` pixels wide, and
/// writes the exact coverage it blended with as the frame's mask (255 = person).
///
/// A part covers a luma sample by `α = clamp(0.5 − d / edgeRamp, 0, 1)`, `d` the signed distance
/// (pixels, negative inside) from the sample's centre to the part's outline. Parts are laid
/// "over" each other back to front; the mask is `round(255·(1 − Π(1 − αᵢ)))`. Chroma samples
/// blend with each part's coverage averaged over the luma samples they cover.
struct SamplePersonPainter {
    /// Width of the soft edge, pixels.
    static let edgeRamp = 2.5

    fileprivate enum Outline {
        /// Centre and semi-axes.
        case ellipse(x: Double, y: Double, radiusX: Double, radiusY: Double)
        /// Centre, half size and corner radius.
        case roundedBox(x: Double, y: Double, halfWidth: Double, halfHeight: Double, radius: Double)
        /// A trapezoid from `top` to `bottom` (y grows down) about `x`, with half widths and rounded corners.
        case trapezoid(x: Double, top: Double, bottom: Double, topHalf: Double, bottomHalf: Double, radius: Double)
    }

    private struct Part {
        var outline: Outline
        var color: (y: Double, cb: Double, cr: Double)
    }

    private let width: Int
    private let height: Int
    private let colors: [(y: Double, cb: Double, cr: Double)]

    /// Where the person stands across the picture, as a fraction of its width.
    private let across: Double

    /// - Parameter across: the middle of the person as a fraction of the width (the publisher
    ///   stands to the right of the boxes; a portrait camera has its person in the middle).
    init(width: Int, height: Int, colorSpace: ColorSpace, across: Double = 0.74) {
        self.width = width
        self.height = height
        self.across = across
        colors = [(38.0, 96.0, 112.0), (198, 146, 116), (58, 40, 30), (226, 174, 142)].map {
            colorSpace.yuvUnrounded(red: $0.0, green: $0.1, blue: $0.2)
        }
    }

    /// The parts at `seconds`, back to front: shirt, neck, hair, face.
    private func parts(at seconds: Double) -> [Part] {
        let h = Double(height)
        let x = across * Double(width) + 0.035 * Double(width) * sin(2 * .pi * seconds / 6.5)
        let bob = 0.008 * h * sin(2 * .pi * seconds / 3.1)
        return [
            Part(outline: .trapezoid(x: x, top: 0.64 * h + bob, bottom: 1.1 * h, topHalf: 0.17 * h, bottomHalf: 0.3 * h,
                                     radius: 0.06 * h), color: colors[0]),
            Part(outline: .roundedBox(x: x, y: 0.6 * h + bob, halfWidth: 0.045 * h, halfHeight: 0.09 * h, radius: 0.02 * h),
                 color: colors[1]),
            Part(outline: .ellipse(x: x, y: 0.37 * h + bob, radiusX: 0.112 * h, radiusY: 0.125 * h), color: colors[2]),
            Part(outline: .ellipse(x: x, y: 0.40 * h + bob, radiusX: 0.105 * h, radiusY: 0.14 * h), color: colors[3]),
        ]
    }

    /// Blends the person into `image` at `seconds` and writes its coverage into `mask` (frame-sized),
    /// clearing the rest of the mask.
    func paint(at seconds: Double, into image: YUVImage, mask: Plane) {
        mask.fill(0)
        let parts = parts(at: seconds)
        let h = Double(height)
        let centerX = parts[0].outline.centerX
        // Everything lies within 0.31·h of the centre line and below 0.23·h.
        let margin = 0.31 * h + Self.edgeRamp + 2
        let shiftX = image.subsampling.shiftX, shiftY = image.subsampling.shiftY
        let blockWidth = 1 << shiftX, blockHeight = 1 << shiftY
        let left = max(0, Int(centerX - margin) >> shiftX), right = min(image.cb.width, (Int(centerX + margin) >> shiftX) + 1)
        let top = max(0, Int(0.23 * h) >> shiftY)
        guard left < right else { return }
        // A block whose centre is this far from an outline is wholly inside or outside it.
        let blockReach = Double(blockWidth + blockHeight) / 2 + Self.edgeRamp
        var alphas = [Double](repeating: 0, count: blockWidth * blockHeight * parts.count)
        for chromaY in top..<image.cb.height {
            for chromaX in left..<right {
                let x0 = chromaX << shiftX, y0 = chromaY << shiftY
                let x1 = min(x0 + blockWidth, width), y1 = min(y0 + blockHeight, height)
                let samples = (x1 - x0) * (y1 - y0)
                let centre = (x: Double(x0 + x1) / 2, y: Double(y0 + y1) / 2)
                var cb = Double(image.cb[chromaX, chromaY]), cr = Double(image.cr[chromaX, chromaY])
                var touched = false
                for k in 0..<parts.count {
                    let part = parts[k], base = k * blockWidth * blockHeight
                    let d = part.outline.distance(centre.x, centre.y)
                    var sum = 0.0
                    for y in y0..<y1 {
                        for x in x0..<x1 {
                            let alpha: Double
                            if d > blockReach { alpha = 0 } else if d < -blockReach { alpha = 1 } else {
                                alpha = max(0, min(1, 0.5 - part.outline.distance(Double(x) + 0.5, Double(y) + 0.5) / Self.edgeRamp))
                            }
                            alphas[base + (y - y0) * blockWidth + (x - x0)] = alpha
                            sum += alpha
                        }
                    }
                    guard sum > 0 else { continue }
                    touched = true
                    let mean = sum / Double(samples)
                    cb += mean * (part.color.cb - cb)
                    cr += mean * (part.color.cr - cr)
                }
                guard touched else { continue }
                image.cb[chromaX, chromaY] = UInt8(max(0, min(255, cb.rounded())))
                image.cr[chromaX, chromaY] = UInt8(max(0, min(255, cr.rounded())))
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        var luma = Double(image.luma[x, y]), uncovered = 1.0
                        for k in 0..<parts.count {
                            let alpha = alphas[k * blockWidth * blockHeight + (y - y0) * blockWidth + (x - x0)]
                            luma += alpha * (parts[k].color.y - luma)
                            uncovered *= 1 - alpha
                        }
                        image.luma[x, y] = UInt8(max(0, min(255, luma.rounded())))
                        mask[x, y] = UInt8((255 * (1 - uncovered)).rounded())
                    }
                }
            }
        }
    }
}

extension SamplePersonPainter.Outline {
    var centerX: Double {
        switch self {
        case .ellipse(let x, _, _, _), .roundedBox(let x, _, _, _, _), .trapezoid(let x, _, _, _, _, _): x
        }
    }

    /// Signed distance in pixels from (`px`, `py`) to the outline, negative inside (first order for the ellipse).
    func distance(_ px: Double, _ py: Double) -> Double {
        switch self {
        case .ellipse(let x, let y, let rx, let ry):
            let qx = (px - x) / rx, qy = (py - y) / ry
            let g = qx * qx + qy * qy - 1
            let gradient = 2 * ((qx / rx) * (qx / rx) + (qy / ry) * (qy / ry)).squareRoot()
            return gradient > 0 ? g / gradient : -min(rx, ry)
        case .roundedBox(let x, let y, let halfWidth, let halfHeight, let radius):
            let qx = abs(px - x) - (halfWidth - radius), qy = abs(py - y) - (halfHeight - radius)
            let ox = max(qx, 0), oy = max(qy, 0)
            return (ox * ox + oy * oy).squareRoot() + min(max(qx, qy), 0) - radius
        case .trapezoid(let x, let top, let bottom, let topHalf, let bottomHalf, let radius):
            // Inigo Quilez's exact trapezoid distance (y up), shrunk by the radius and grown back.
            let halfHeight = (bottom - top) / 2 - radius
            let r1 = bottomHalf - radius, r2 = topHalf - radius
            let qx = abs(px - x), qy = (top + bottom) / 2 - py
            let k2x = r2 - r1, k2y = 2 * halfHeight
            let cax = qx - min(qx, qy < 0 ? r1 : r2), cay = abs(qy) - halfHeight
            let t = max(0, min(1, ((r2 - qx) * k2x + (halfHeight - qy) * k2y) / (k2x * k2x + k2y * k2y)))
            let cbx = qx - r2 + k2x * t, cby = qy - halfHeight + k2y * t
            let sign: Double = cbx < 0 && cay < 0 ? -1 : 1
            return sign * min(cax * cax + cay * cay, cbx * cbx + cby * cby).squareRoot() - radius
        }
    }
}
