/// Labels as drawn once, laid again on later frames: a label sits on whole pixels and its pixels
/// depend only on its text, size and colours, so wherever it lands whole inside the layer it is
/// copied rather than rasterized again (plate outline and glyph blending), giving the same texels.
/// A label cut by the layer's edge is drawn as usual (and not kept: it is not whole).
final class LabelPictures {
    private struct Key: Hashable {
        var text: String
        var em: Int
        var colorSpace: ColorSpace
    }

    /// A label's pixels, relative to its plate's top-left corner.
    private struct Picture {
        /// The rectangle around every pixel drawn.
        var box: PixelBounds
        /// Per row of `box`, the columns drawn (relative), and the texels of the whole box, row-major.
        var rows: [Range<Int>]
        var texels: [SIMD4<Float>]
        /// What drawing it returned: its share of the frame's drawing budget.
        var drawn: Int
    }

    private var pictures: [Key: Picture] = [:]
    private var keptTexels = 0
    /// At most this many texels are kept (16 MiB), whatever the scene's labels.
    static let maximumTexels = 1 << 20

    /// Draws `label` as ``LabelRenderer/draw(_:size:anchorX:anchorY:clearance:into:)`` does (into an
    /// empty `layer`), from the picture kept when there is one and it lands whole inside the layer.
    func draw(_ label: String, size: Double, anchorX: Double, anchorY: Double, clearance: Double, with renderer: LabelRenderer,
              colorSpace: ColorSpace, into layer: RenderLayer) -> Int {
        guard let place = renderer.placement(size: size, anchorX: anchorX, anchorY: anchorY, clearance: clearance) else { return 0 }
        let left = Int(place.left), top = Int(place.top)
        let key = Key(text: label, em: place.em, colorSpace: colorSpace)
        if let picture = pictures[key], Self.whole(picture.box, left, top, in: layer) {
            lay(picture, left: left, top: top, into: layer)
            return picture.drawn
        }
        let drawn = renderer.draw(label, size: size, anchorX: anchorX, anchorY: anchorY, clearance: clearance, into: layer)
        let box = layer.touched
        // Kept only when nothing was cut at the layer's edge (a cut plate also means unmeasured glyphs).
        guard pictures[key] == nil, !box.isEmpty, Self.whole(box, 0, 0, in: layer),
              keptTexels + box.area <= Self.maximumTexels else { return drawn }
        var rows: [Range<Int>] = []
        var texels: [SIMD4<Float>] = []
        rows.reserveCapacity(box.maxY - box.minY)
        texels.reserveCapacity(box.area)
        for y in box.minY..<box.maxY {
            let columns = layer.touchedColumns(row: y)
            rows.append(columns.isEmpty ? 0..<0 : (columns.lowerBound - left)..<(columns.upperBound - left))
            texels.append(contentsOf: UnsafeBufferPointer(start: layer.row(y) + box.minX, count: box.maxX - box.minX))
        }
        keptTexels += box.area
        pictures[key] = Picture(box: PixelBounds(minX: box.minX - left, minY: box.minY - top, maxX: box.maxX - left, maxY: box.maxY - top),
                                rows: rows, texels: texels, drawn: drawn)
        return drawn
    }

    /// Whether `box` moved by (`dx`, `dy`) lies inside the layer, clear of its edges.
    private static func whole(_ box: PixelBounds, _ dx: Int, _ dy: Int, in layer: RenderLayer) -> Bool {
        let bounds = layer.bounds
        return box.minX + dx > bounds.minX && box.minY + dy > bounds.minY && box.maxX + dx < bounds.maxX && box.maxY + dy < bounds.maxY
    }

    private func lay(_ picture: Picture, left: Int, top: Int, into layer: RenderLayer) {
        let width = picture.box.maxX - picture.box.minX
        picture.texels.withUnsafeBufferPointer { texels in
            for (index, columns) in picture.rows.enumerated() where !columns.isEmpty {
                let y = top + picture.box.minY + index
                layer.touch(row: y, from: left + columns.lowerBound, to: left + columns.upperBound)
                (layer.row(y) + left + columns.lowerBound)
                    .update(from: texels.baseAddress! + index * width + (columns.lowerBound - picture.box.minX), count: columns.count)
            }
        }
    }
}
