/// Where each shown participant goes on the composed picture (formats.md §9, layouts).
///
/// A layout is asked again whenever the set of active participants with video changes; it sees
/// them in grid order (by start time, ties in manifest order) and answers a rectangle per tile.
public enum CallLayout: Sendable, Equatable {
    /// `c = ceil(sqrt(n))` columns, `r = ceil(n / c)` rows, a short last row centred.
    case grid
    /// The `focus` participant large across the top; the others in a strip along the bottom.
    case focus(String)
    /// The `focus` participant filling the picture; the others small insets in its lower-right corner.
    case pip(String)
    /// Explicit tiles from a layout file; participants without a tile are not shown.
    case custom(CustomLayout)
    /// `focus` whose large participant follows who speaks (a ``FocusTimeline`` picks it per
    /// frame); asked for its tiles alone, the first participant is large, as at the start.
    case speaker

    /// One tile of a layout: which participant (its index in the list handed to ``tiles(for:width:height:)``),
    /// where, and how its picture is fitted (`nil`: the `--tile-fit` default).
    public struct Tile: Sendable, Equatable {
        /// The participant's index in the list the layout was asked about.
        public var participant: Int
        /// Where the tile goes on the composed picture, in output pixels.
        public var rect: PixelRect
        /// How the picture fills the tile; `nil`: `ComposeOptions/tileFit`.
        public var fit: BackgroundFit?
    }

    /// The tiles for `participants` (each given by the keys it answers to: its streams' ids and
    /// its name; in grid order) on a `width × height` picture, in drawing order (later tiles drawn
    /// over earlier ones). `pictures` gives, in the same order, each one's picture size as shown
    /// when it is known: `pip` shapes its insets like their pictures.
    public func tiles(for participants: [[String]], width: Int, height: Int, pictures: [PictureSize?] = []) -> [Tile] {
        let n = participants.count
        guard n > 0 else { return [] }
        func matches(_ key: String, _ keys: [String]) -> Bool { keys.contains(key) }
        switch self {
        case .grid:
            return Self.gridCells(count: n, width: width, height: height).enumerated().map { Tile(participant: $0.offset, rect: $0.element, fit: nil) }
        case .focus(let key), .pip(let key):
            // Without its focus (not yet joined, or gone), the call is shown as a grid.
            guard let focused = participants.firstIndex(where: { matches(key, $0) }) else {
                return CallLayout.grid.tiles(for: participants, width: width, height: height)
            }
            let others = participants.indices.filter { $0 != focused }
            if case .focus = self {
                return Self.focusTiles(focused: focused, others: others, width: width, height: height)
            }
            return Self.pipTiles(focused: focused, others: others, pictures: pictures, width: width, height: height)
        case .speaker:
            return CallLayout.focus(participants[0].first ?? "").tiles(for: participants, width: width, height: height, pictures: pictures)
        case .custom(let layout):
            return layout.tiles.compactMap { tile in
                participants.firstIndex { matches(tile.stream, $0) }.map { Tile(participant: $0, rect: tile.rect, fit: tile.fit) }
            }
        }
    }

    /// §9's grid: cell `i` in column `i mod c`, row `i div c`, edges `floor(col · W / c)` …,
    /// the last row's `k < c` cells shifted right by `floor((c − k) · W / (2c))`.
    public static func gridCells(count n: Int, width: Int, height: Int) -> [PixelRect] {
        guard n > 0 else { return [] }
        var c = Int(Double(n).squareRoot().rounded(.down))
        if c * c < n { c += 1 }
        let r = (n + c - 1) / c
        let lastRowCount = n - (r - 1) * c
        return (0..<n).map { i in
            let col = i % c, row = i / c
            let shift = row == r - 1 && lastRowCount < c ? (c - lastRowCount) * width / (2 * c) : 0
            let left = col * width / c, right = (col + 1) * width / c
            let top = row * height / r, bottom = (row + 1) * height / r
            return PixelRect(x: left + shift, y: top, width: right - left, height: bottom - top)
        }
    }

    /// `focus`: the focused participant over the top three quarters; the others share the bottom
    /// quarter in equal cells no wider than 16:9, centred (alone: the whole picture).
    static func focusTiles(focused: Int, others: [Int], width: Int, height: Int) -> [Tile] {
        guard !others.isEmpty else { return [Tile(participant: focused, rect: PixelRect(x: 0, y: 0, width: width, height: height), fit: nil)] }
        let stripHeight = height / 4
        let main = Tile(participant: focused, rect: PixelRect(x: 0, y: 0, width: width, height: height - stripHeight), fit: nil)
        let cellWidth = min(width / others.count, stripHeight * 16 / 9)
        let left = (width - cellWidth * others.count) / 2
        return [main] + others.enumerated().map { slot, participant in
            Tile(participant: participant, rect: PixelRect(x: left + slot * cellWidth, y: height - stripHeight, width: cellWidth, height: stripHeight), fit: nil)
        }
    }

    /// `pip`: the focused participant fills the picture; each other is an inset right to left
    /// along the bottom, a margin of 1/64 of the width apart and from the edges, further rows
    /// stacked upwards (each as high as its tallest inset) when a row is full. An inset whose
    /// picture's shape is known (`pictures`, as shown) has that shape and the area of a fifth of
    /// the picture's width by a fifth of its height, filled edge to edge (a portrait picture stays
    /// portrait, with no bars); one of unknown shape is that fifth-by-fifth box.
    static func pipTiles(focused: Int, others: [Int], pictures: [PictureSize?], width: Int, height: Int) -> [Tile] {
        let main = Tile(participant: focused, rect: PixelRect(x: 0, y: 0, width: width, height: height), fit: nil)
        let box = (width: width / 5, height: height / 5), margin = width / 64
        var tiles = [main]
        var right = width - margin, bottom = height - margin, rowHeight = 0
        for participant in others {
            var size = (width: box.width, height: box.height), fit: BackgroundFit?
            if participant < pictures.count, let picture = pictures[participant], picture.width > 0, picture.height > 0 {
                let aspect = Double(picture.width) / Double(picture.height)
                let shapedHeight = (Double(box.width * box.height) / aspect).squareRoot()
                // Even sides (4:2:0), no larger than the picture less its margins; cover crops the rounding's pixel.
                size.height = max(2, min(height - 2 * margin, Int(shapedHeight.rounded())) & ~1)
                size.width = max(2, min(width - 2 * margin, Int((shapedHeight * aspect).rounded())) & ~1)
                fit = .cover
            }
            if right - size.width < margin && right != width - margin {
                bottom -= rowHeight + margin
                right = width - margin
                rowHeight = 0
            }
            tiles.append(Tile(participant: participant, rect: PixelRect(x: right - size.width, y: max(0, bottom - size.height),
                                                                          width: size.width, height: size.height), fit: fit))
            right -= size.width + margin
            rowHeight = max(rowHeight, size.height)
        }
        return tiles
    }
}
