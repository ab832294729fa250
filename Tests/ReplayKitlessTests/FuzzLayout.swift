// The layout file's fuzz target (FuzzLayout), compiled like FuzzHarness.swift twice: here for
// FuzzRegressionTests, and in the fuzz package (Fuzz/Sources/FuzzHarness/FuzzLayout.swift is a
// symlink to it). Public API only.
import ReplayKitless

extension FuzzTarget {
    /// `compose --layout FILE.json` files read for a 1280×720 picture: every tile accepted lies
    /// inside the picture with a size of 2 or more, there are at most 256, their areas sum to at
    /// most 16 pictures (docs/limits.md), and laying out the streams they name gives those tiles.
    public static let layout = FuzzTarget("FuzzLayout") { input in
        let (width, height) = (1280, 720)
        let layout = try CustomLayout.parse(input, file: "fuzz.json", width: width, height: height)
        let rects = layout.tiles.map(\.rect)
        guard rects.allSatisfy({ $0.width >= 2 && $0.height >= 2 && $0.x >= 0 && $0.y >= 0
                                 && $0.x + $0.width <= width && $0.y + $0.height <= height }) else {
            throw FuzzFinding("a tile lies outside the \(width)x\(height) picture")
        }
        guard rects.count <= 256, rects.reduce(0, { $0 + $1.width * $1.height }) <= 16 * width * height else {
            throw FuzzFinding("\(rects.count) tiles covering more than the caps allow")
        }
        let streams = Array(Set(layout.tiles.map(\.stream))).sorted()
        let tiles = CallLayout.custom(layout).tiles(for: streams.map { [$0] }, width: width, height: height)
        guard tiles.map(\.rect) == rects, zip(tiles, layout.tiles).allSatisfy({ streams[$0.participant] == $1.stream }) else {
            throw FuzzFinding("the layout's tiles are not the file's")
        }
    }
}
