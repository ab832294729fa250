import Foundation

/// Draws a label into a ``RenderLayer`` in screen space: white text, `size` pixels per em, on a
/// rounded, semi-opaque dark plate whose lower-left corner sits `clearance` pixels right of and
/// above the anchor's projection. Glyph bitmaps land on whole pixels, so text stays crisp.
struct LabelRenderer {
    let glyphs: GlyphCache
    let text: SIMD3<Float>
    let plate: SIMD3<Float>
    static let plateOpacity: Float = 0.7

    init(glyphs: GlyphCache, colorSpace: ColorSpace) {
        self.glyphs = glyphs
        let white = colorSpace.yuvUnrounded(red: 255, green: 255, blue: 255)
        let dark = colorSpace.yuvUnrounded(red: 28, green: 28, blue: 30)
        text = SIMD3(Float(white.y), Float(white.cb), Float(white.cr))
        plate = SIMD3(Float(dark.y), Float(dark.cb), Float(dark.cr))
    }

    /// Lays out `label` at `size` pixels per em (4…``InputLimits/labelSize``) next to the anchor at pixel
    /// (`anchorX`, `anchorY`) and draws it into `layer`. Returns the pixels drawn (plate and glyphs,
    /// within the layer), the label's share of the frame's drawing budget. Glyphs past the layer's
    /// right edge are neither measured nor rasterized: a long label costs what shows of it.
    @discardableResult
    func draw(_ label: String, size: Double, anchorX: Double, anchorY: Double, clearance: Double, into layer: RenderLayer) -> Int {
        guard let place = placement(size: size, anchorX: anchorX, anchorY: anchorY, clearance: clearance) else { return 0 }
        let em = place.em, metrics = place.metrics, padX = place.padX, padY = place.padY
        let plateHeight = place.plateHeight, left = place.left, top = place.top
        let plateWidth = plateWidth(of: label, em: em, padX: padX, left: left, rightEdge: layer.bounds.maxX)
        var drawn = fillPlate(left: left, top: top, width: plateWidth, height: plateHeight,
                              radius: min(0.35 * Double(em), plateHeight / 2), into: layer)

        var pen = left + padX
        let baseline = Int(top + padY + metrics.ascender.rounded())
        for scalar in label.unicodeScalars where scalar.value >= 0x20 {
            guard pen < Double(layer.bounds.maxX) else { break }
            let glyph = glyphs.glyph(scalar.value, size: em)
            drawn += stamp(glyph, x: Int(pen.rounded()) + glyph.left, y: baseline - glyph.top, into: layer)
            pen += glyph.advance
        }
        return drawn
    }

    /// The width of the plate of `label` at `em` pixels per em whose left edge is at `left`: its
    /// text measured up to where it passes `rightEdge` (what shows of it), and the padding.
    /// With `measured` (``measure(_:em:)`` of the same label and size), a text that stops short of
    /// `rightEdge` is not measured again.
    func plateWidth(of label: String, em: Int, padX: Double, left: Double, rightEdge: Int,
                    measured: (width: Double, widestPrefix: Double)? = nil) -> Double {
        let visibleText = Double(rightEdge) - left - padX
        // Every glyph counts when the text before each of them is short of what shows.
        if let measured, measured.widestPrefix < visibleText { return measured.width.rounded(.up) + 2 * padX }
        var textWidth = 0.0
        for scalar in label.unicodeScalars where scalar.value >= 0x20 {
            guard textWidth < visibleText else { break }
            textWidth += glyphs.glyph(scalar.value, size: em).advance
        }
        return textWidth.rounded(.up) + 2 * padX
    }

    /// The advances of `label`'s glyphs at `em` pixels per em summed in order, as `plateWidth` sums
    /// them: the whole text's width, and the widest of the sums before each glyph.
    func measure(_ label: String, em: Int) -> (width: Double, widestPrefix: Double) {
        var width = 0.0, widestPrefix = -Double.infinity
        for scalar in label.unicodeScalars where scalar.value >= 0x20 {
            widestPrefix = max(widestPrefix, width)
            width += glyphs.glyph(scalar.value, size: em).advance
        }
        return (width, widestPrefix)
    }

    /// Where a label of `size` pixels per em goes for an anchor at pixel (`anchorX`, `anchorY`):
    /// its plate's top-left corner, on whole pixels, and its measures; `nil` when far off any frame.
    func placement(size: Double, anchorX: Double, anchorY: Double, clearance: Double)
        -> (em: Int, metrics: FontMetrics, padX: Double, padY: Double, plateHeight: Double, left: Double, top: Double)? {
        guard size.isFinite else { return nil }
        let em = Int(max(4, min(InputLimits.labelSize, size.rounded())))
        let metrics = glyphs.metrics(size: em)
        let padX = (0.4 * Double(em)).rounded(), padY = (0.25 * Double(em)).rounded()
        let plateHeight = (metrics.ascender - metrics.descender).rounded(.up) + 2 * padY
        let left = (anchorX + clearance).rounded()
        let top = (anchorY - clearance).rounded() - plateHeight
        guard abs(left) < 1e6, abs(top) < 1e6 else { return nil }   // also rejects NaN: far off any frame
        return (em, metrics, padX, padY, plateHeight, left, top)
    }

    /// Fills a rounded rectangle with the plate colour, its edge antialiased by the distance
    /// from each pixel centre to the outline.
    private func fillPlate(left: Double, top: Double, width: Double, height: Double, radius: Double, into layer: RenderLayer) -> Int {
        let rect = PixelBounds.covering(x0: left, y0: top, x1: left + width, y1: top + height,
                                      width: layer.bounds.maxX, height: layer.bounds.maxY).intersection(layer.bounds)
        guard !rect.isEmpty else { return 0 }
        layer.touch(rect)
        let halfWidth = width / 2, halfHeight = height / 2
        let centreX = left + halfWidth, centreY = top + halfHeight
        for y in rect.minY..<rect.maxY {
            let texels = layer.row(y)
            let qy = abs(Double(y) + 0.5 - centreY) - (halfHeight - radius)
            for x in rect.minX..<rect.maxX {
                let qx = abs(Double(x) + 0.5 - centreX) - (halfWidth - radius)
                let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot() + min(max(qx, qy), 0) - radius
                let coverage = Float(max(0, min(1, 0.5 - outside)))
                texels[x] = SIMD4(plate, coverage * Self.plateOpacity)
            }
        }
        return rect.area
    }

    /// Lays a glyph bitmap, top-left at pixel (`x`, `y`), over what the layer holds.
    private func stamp(_ glyph: Glyph, x: Int, y: Int, into layer: RenderLayer) -> Int {
        let rect = PixelBounds(minX: x, minY: y, maxX: x + glyph.width, maxY: y + glyph.rows).intersection(layer.bounds)
        guard !rect.isEmpty else { return 0 }
        layer.touch(rect)
        for py in rect.minY..<rect.maxY {
            let texels = layer.row(py)
            for px in rect.minX..<rect.maxX {
                let g = Float(glyph.coverage[(py - y) * glyph.width + (px - x)]) / 255
                guard g > 0 else { continue }
                let under = texels[px]
                let alpha = g + under.w * (1 - g)
                let color = (text * g + SIMD3(under.x, under.y, under.z) * (under.w * (1 - g))) / alpha
                texels[px] = SIMD4(color, alpha)
            }
        }
        return rect.area
    }
}
