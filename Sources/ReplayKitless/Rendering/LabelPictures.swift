/// Labels as drawn once, laid again on later frames: a label sits on whole pixels and its pixels
/// depend only on its text, size and colours, so wherever it lands whole inside the frame it is
/// composited straight from the picture kept of it (no plate outline or glyph blending again, and
/// no copy into the label layer), giving the same bytes. A label cut by the layer's edge is
/// drawn as usual (and not kept: it is not whole).
final class LabelPictures {
    private struct Key: Hashable {
        var text: String
        var em: Int
        var colorSpace: ColorSpace
    }

    private var pictures: [Key: LabelPicture] = [:]
    /// Labels' text as ``LabelRenderer/measure(_:em:)`` measures it, by text and size: placing a
    /// label, kept or not, looks up no glyph on later frames.
    private var measures: [MeasureKey: (width: Double, widestPrefix: Double)] = [:]
    private struct MeasureKey: Hashable {
        var text: String
        var em: Int
    }
    private var keptTexels = 0
    /// At most this many texels are kept (16 MiB), whatever the scene's labels.
    static let maximumTexels = 1 << 20

    /// Draws `label` as ``LabelRenderer/draw(_:size:anchorX:anchorY:clearance:into:)`` does (into an
    /// empty `layer`), or, when a picture of it is kept and lands whole inside the layer, leaves the
    /// layer empty and returns the picture where it lands, to be composited instead. `drawn` is the
    /// label's share of the frame's drawing budget either way.
    func draw(_ label: String, size: Double, anchorX: Double, anchorY: Double, clearance: Double, with renderer: LabelRenderer,
              colorSpace: ColorSpace, into layer: RenderLayer) -> (drawn: Int, kept: PlacedLabel?) {
        guard let place = renderer.placement(size: size, anchorX: anchorX, anchorY: anchorY, clearance: clearance) else { return (0, nil) }
        let left = Int(place.left), top = Int(place.top)
        let key = Key(text: label, em: place.em, colorSpace: colorSpace)
        if let picture = pictures[key], Self.whole(picture.box, left, top, in: layer) {
            return (picture.drawn, PlacedLabel(picture: picture, left: left, top: top))
        }
        let drawn = renderer.draw(label, size: size, anchorX: anchorX, anchorY: anchorY, clearance: clearance, into: layer)
        let box = layer.touched
        // Kept only when nothing was cut at the layer's edge (a cut plate also means unmeasured glyphs).
        guard pictures[key] == nil, !box.isEmpty, Self.whole(box, 0, 0, in: layer),
              keptTexels + LabelPicture.texels(around: box) <= Self.maximumTexels else { return (drawn, nil) }
        keptTexels += LabelPicture.texels(around: box)
        pictures[key] = LabelPicture(copying: box, of: layer, left: left, top: top, drawn: drawn)
        return (drawn, nil)
    }

    /// ``LabelRenderer/plateWidth(of:em:padX:left:rightEdge:measured:)`` of `label`, its text
    /// measured once.
    func plateWidth(of label: String, em: Int, padX: Double, left: Double, rightEdge: Int, with renderer: LabelRenderer) -> Double {
        let key = MeasureKey(text: label, em: em)
        let measured: (width: Double, widestPrefix: Double)
        if let known = measures[key] {
            measured = known
        } else {
            measured = renderer.measure(label, em: em)
            measures[key] = measured
        }
        return renderer.plateWidth(of: label, em: em, padX: padX, left: left, rightEdge: rightEdge, measured: measured)
    }

    /// Whether `box` moved by (`dx`, `dy`) lies inside the layer, clear of its edges (so that its
    /// margin of one pixel does too).
    private static func whole(_ box: PixelBounds, _ dx: Int, _ dy: Int, in layer: RenderLayer) -> Bool {
        let bounds = layer.bounds
        return box.minX + dx > bounds.minX && box.minY + dy > bounds.minY && box.maxX + dx < bounds.maxX && box.maxY + dy < bounds.maxY
    }
}

/// A label's pixels, relative to its plate's top-left corner.
final class LabelPicture {
    /// The rectangle around every pixel drawn.
    let box: PixelBounds
    /// Per row of `box`, the columns drawn (relative).
    let rows: [Range<Int>]
    /// The texels of `box` and a margin of one uncovered pixel all round, row-major: the compositor
    /// reads whole 2×2 blocks, which reach one pixel past the box where it starts or ends on an odd
    /// frame pixel, as it would read the cleared pixels of a frame-sized layer.
    let texels: UnsafeMutablePointer<SIMD4<Float>>
    /// Texels from one row of `texels` to the next.
    let stride: Int
    /// What drawing it returned: its share of the frame's drawing budget.
    let drawn: Int

    /// How many texels a picture of `box` holds, its margin included.
    static func texels(around box: PixelBounds) -> Int { (box.maxX - box.minX + 2) * (box.maxY - box.minY + 2) }

    /// The picture of what `layer` holds in `box` (frame pixels), drawn with its plate's top-left at (`left`, `top`).
    init(copying box: PixelBounds, of layer: RenderLayer, left: Int, top: Int, drawn: Int) {
        self.box = PixelBounds(minX: box.minX - left, minY: box.minY - top, maxX: box.maxX - left, maxY: box.maxY - top)
        self.drawn = drawn
        stride = box.maxX - box.minX + 2
        texels = .allocate(capacity: Self.texels(around: box))
        texels.initialize(repeating: .zero, count: Self.texels(around: box))
        rows = (box.minY..<box.maxY).map { y in
            let columns = layer.touchedColumns(row: y)
            return columns.isEmpty ? 0..<0 : (columns.lowerBound - left)..<(columns.upperBound - left)
        }
        for y in box.minY..<box.maxY {
            (texels + (y - box.minY + 1) * stride + 1).update(from: layer.row(y) + box.minX, count: box.maxX - box.minX)
        }
    }

    deinit { texels.deallocate() }
}

/// A kept label with its plate's top-left at frame pixel (`left`, `top`), as the compositor reads it.
struct PlacedLabel: CompositeSource {
    let picture: LabelPicture
    let left: Int, top: Int

    var touched: PixelBounds {
        PixelBounds(minX: picture.box.minX + left, minY: picture.box.minY + top, maxX: picture.box.maxX + left, maxY: picture.box.maxY + top)
    }

    /// The box and its margin.
    var bounds: PixelBounds {
        let box = touched
        return PixelBounds(minX: box.minX - 1, minY: box.minY - 1, maxX: box.maxX + 1, maxY: box.maxY + 1)
    }

    @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
        picture.texels + ((y - top - picture.box.minY + 1) * picture.stride - (left + picture.box.minX - 1))
    }

    @inline(__always) func touchedColumns(row y: Int) -> Range<Int> {
        let index = y - top - picture.box.minY
        guard index >= 0, index < picture.rows.count else { return 0..<0 }
        let columns = picture.rows[index]
        return columns.isEmpty ? 0..<0 : (columns.lowerBound + left)..<(columns.upperBound + left)
    }
}
