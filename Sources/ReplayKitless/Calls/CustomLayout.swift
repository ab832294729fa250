/// A layout file (`compose --layout FILE.json`, formats.md §9): explicit tiles in output pixels.
///
///     {"version": 1, "background": "#101010",
///      "tiles": [{"stream": "ID or name", "rect": [x, y, w, h], "fit": "contain"}]}
public struct CustomLayout: Sendable, Equatable {
    /// One tile of the file.
    public struct Tile: Sendable, Equatable {
        /// A stream's id or name.
        public var stream: String
        /// Where the tile goes, in output pixels, inside the picture.
        public var rect: PixelRect
        /// `nil`: `--tile-fit`.
        public var fit: BackgroundFit?
        /// 1-based line of the tile in the file, for messages.
        public var line: Int
    }

    /// The file, for messages.
    public var file: FilePath
    /// The colour of the area no tile covers (`background` in the file); `nil`: `ComposeOptions/background`.
    public var background: RGBAColor?
    /// The tiles in the file's order, which is the drawing order (later over earlier).
    public var tiles: [Tile]

    /// Reads and checks a layout file whose tiles must lie inside a `width × height` picture: at most
    /// ``InputLimits/layoutTiles`` tiles, covering it at most ``InputLimits/layoutCoverage`` times over.
    /// - Throws: `ReplayError.badInput` naming the file, line and field.
    public static func load(path: FilePath, width: Int, height: Int) throws(ReplayError) -> CustomLayout {
        try parse(readInputFile(path.string, limit: InputLimits.sceneBytes, kind: "layout file", isText: true), file: path, width: width, height: height)
    }

    /// Reads a layout file's `bytes` (without a byte order mark), as ``load(path:width:height:)`` does;
    /// `file` names it in messages.
    public static func parse(_ bytes: [UInt8], file: FilePath, width: Int, height: Int) throws(ReplayError) -> CustomLayout {
        let path = file.string
        let root: JSONNode
        do { root = try JSONReader.parse(bytes) } catch {
            throw .badInput(file: path, line: error.line, "not valid JSON: \(error.message)")
        }
        func fail(_ node: JSONNode, _ field: String, _ message: String) -> ReplayError {
            .badInput(file: path, line: node.line, field: field, message)
        }
        func checkKeys(_ node: JSONNode, _ allowed: [String], context: String) throws(ReplayError) {
            for (key, value) in node.members ?? [] where !allowed.contains(key) {
                throw fail(value, context + key, "unknown key (expected one of \(allowed.joined(separator: ", ")))")
            }
        }
        guard root.members != nil else { throw .badInput(file: path, line: root.line, "a layout must be a JSON object") }
        try checkKeys(root, ["version", "background", "tiles"], context: "")
        guard let version = root["version"] else { throw fail(root, "version", "missing (must be 1)") }
        guard version.number == 1 else { throw fail(version, "version", "must be 1") }
        var background: RGBAColor?
        if let node = root["background"] {
            guard let text = node.string, let color = RGBAColor(hex: text) else { throw fail(node, "background", "expected a colour \"#RRGGBB\"") }
            background = color
        }
        guard let list = root["tiles"] else { throw fail(root, "tiles", "missing") }
        guard let items = list.array else { throw fail(list, "tiles", "expected an array of tiles") }
        // Every tile is painted on every frame: their number and the area they cover are capped.
        guard items.count <= InputLimits.layoutTiles else {
            throw fail(items[InputLimits.layoutTiles], "tiles[\(InputLimits.layoutTiles)]",
                       "\(items.count) tiles; a layout has at most \(InputLimits.layoutTiles) (see docs/limits.md)")
        }
        var covered = 0
        var tiles: [Tile] = []
        for (index, item) in items.enumerated() {
            let context = "tiles[\(index)]."
            guard item.members != nil else { throw fail(item, "tiles[\(index)]", "expected an object") }
            try checkKeys(item, ["stream", "rect", "fit"], context: context)
            guard let streamNode = item["stream"] else { throw fail(item, context + "stream", "missing") }
            guard let stream = streamNode.string, !stream.isEmpty else { throw fail(streamNode, context + "stream", "expected a stream's id or name") }
            guard let rectNode = item["rect"] else { throw fail(item, context + "rect", "missing") }
            guard let numbers = rectNode.array, numbers.count == 4, case let values = numbers.compactMap(\.integer), values.count == 4 else {
                throw fail(rectNode, context + "rect", "expected [x, y, w, h] in whole pixels")
            }
            let rect = PixelRect(x: values[0], y: values[1], width: values[2], height: values[3])
            guard rect.width >= 2, rect.height >= 2, rect.x >= 0, rect.y >= 0,
                  rect.x + rect.width <= width, rect.y + rect.height <= height else {
                throw fail(rectNode, context + "rect", "\(values) must have a size of 2 or more and lie inside the \(width)x\(height) picture")
            }
            covered += rect.width * rect.height  // (each inside the picture: no overflow)
            guard covered <= InputLimits.layoutCoverage * width * height else {
                throw fail(rectNode, context + "rect", "the tiles up to this one cover the \(width)x\(height) picture more than "
                           + "\(InputLimits.layoutCoverage) times over, the most a layout may paint a frame (see docs/limits.md)")
            }
            var fit: BackgroundFit?
            if let fitNode = item["fit"] {
                guard let text = fitNode.string, let value = BackgroundFit(rawValue: text), value != .stretch else {
                    throw fail(fitNode, context + "fit", "expected \"contain\" or \"cover\"")
                }
                fit = value
            }
            tiles.append(Tile(stream: stream, rect: rect, fit: fit, line: item.line))
        }
        return CustomLayout(file: file, background: background, tiles: tiles)
    }
}
