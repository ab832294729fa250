/// Participants' names on their tiles (`compose --names`): a plate at the bottom-left corner of
/// each participant's picture as placed (formats.md §9: the picture's corner, not the cell's, so a
/// portrait picture in a wide cell keeps its name on it), drawn with the project's FreeType text
/// (``LabelRenderer``) into a picture-sized layer whenever the names or their pictures move, and
/// blended into every frame (only the plates' pixels are touched).
final class TileNames {
    /// One name and the rectangle of the picture it belongs to (the tile's, before its first picture).
    struct Label: Equatable {
        var name: String
        var picture: PixelRect
    }

    private let layer: RenderLayer
    private let glyphs: GlyphCache
    private let colorSpace: ColorSpace
    /// What the layer shows.
    private var drawn: [Label]?

    init(width: Int, height: Int, colorSpace: ColorSpace, font: String?) throws(ReplayError) {
        let path = font ?? AnnotationRenderer.Options.defaultFontPath
        do { glyphs = try GlyphCache(path: path) } catch { throw .badInput("\(path): cannot load the font for `ComposeOptions.names`: \(error)", options: ["ComposeOptions.names"]) }
        layer = RenderLayer(width: width, height: height)
        self.colorSpace = colorSpace
    }

    /// The text size for a picture `height` pixels tall: a sixteenth of it, 12 to 32 pixels. The
    /// plate sits inside the picture, half that in from its left and bottom edges.
    static func textSize(pictureHeight height: Int) -> Int { min(32, max(12, height / 16)) }

    /// Blends `labels` into `image`, laying them out anew when they changed since the last frame.
    func composite(_ labels: [Label], into image: YUVImage) {
        if labels != drawn {
            layer.clear()
            let renderer = LabelRenderer(glyphs: glyphs, colorSpace: colorSpace)
            for label in labels {
                let size = Double(Self.textSize(pictureHeight: label.picture.height))
                renderer.draw(label.name, size: size, anchorX: Double(label.picture.x) + size / 2,
                              anchorY: Double(label.picture.y + label.picture.height) - size / 2, clearance: 0, into: layer)
            }
            drawn = labels
        }
        LayerCompositor.composite(layer, opacity: 1, into: image, occlusion: nil)
    }
}
