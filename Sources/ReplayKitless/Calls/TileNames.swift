/// Participants' names on their tiles (`compose --names`): a plate in each tile's lower-left
/// corner, drawn with the project's FreeType text (``LabelRenderer``) into a picture-sized layer
/// once per layout, and blended into every frame (only the plates' pixels are touched).
final class TileNames {
    private let layer: RenderLayer
    private let glyphs: GlyphCache
    private let colorSpace: ColorSpace

    init(width: Int, height: Int, colorSpace: ColorSpace, font: String?) throws(ReplayError) {
        let path = font ?? AnnotationRenderer.Options.defaultFontPath
        do { glyphs = try GlyphCache(path: path) } catch { throw .badInput("\(path): cannot load the font for --names: \(error)") }
        layer = RenderLayer(width: width, height: height)
        self.colorSpace = colorSpace
    }

    /// Lays out the names for a new layout: each in its tile, text a sixteenth of the tile's
    /// height (12 to 32 pixels), inset from the corner by half that.
    func draw(_ labels: [(name: String, tile: PixelRect)]) {
        layer.clear()
        let renderer = LabelRenderer(glyphs: glyphs, colorSpace: colorSpace)
        for (name, tile) in labels {
            let size = Double(min(32, max(12, tile.height / 16)))
            renderer.draw(name, size: size, anchorX: Double(tile.x) + size / 2, anchorY: Double(tile.y + tile.height) - size / 2,
                          clearance: 0, into: layer)
        }
    }

    func composite(into image: YUVImage) {
        LayerCompositor.composite(layer, opacity: 1, into: image, occlusion: nil)
    }
}
