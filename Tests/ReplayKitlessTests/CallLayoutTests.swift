import Foundation
import Testing
@testable import ReplayKitless

/// Layout geometry against formats.md §9, computed here independently of the composer.
@Suite struct CallLayoutTests {
    /// §9's grid, written out from the contract's words.
    static func expectedGrid(_ n: Int, _ W: Int, _ H: Int) -> [PixelRect] {
        let c = Int(Double(n).squareRoot().rounded(.up))
        let r = Int((Double(n) / Double(c)).rounded(.up))
        return (0..<n).map { i in
            let col = i % c, row = i / c
            let k = n - c * (r - 1)
            let shift = row == r - 1 && k < c ? Int((Double((c - k) * W) / Double(2 * c)).rounded(.down)) : 0
            let x0 = Int((Double(col * W) / Double(c)).rounded(.down)), x1 = Int((Double((col + 1) * W) / Double(c)).rounded(.down))
            let y0 = Int((Double(row * H) / Double(r)).rounded(.down)), y1 = Int((Double((row + 1) * H) / Double(r)).rounded(.down))
            return PixelRect(x: x0 + shift, y: y0, width: x1 - x0, height: y1 - y0)
        }
    }

    @Test(arguments: 1...7) func gridMatchesTheFormula(_ n: Int) {
        for (W, H) in [(1280, 720), (1282, 722), (641, 361)] {
            #expect(CallLayout.gridCells(count: n, width: W, height: H) == Self.expectedGrid(n, W, H), "n \(n), \(W)x\(H)")
        }
    }

    @Test func gridCellsByHand() {
        // n = 3 at 1280x720: 2 columns, 2 rows; the last row's single cell centred by 1280/4.
        #expect(CallLayout.gridCells(count: 3, width: 1280, height: 720) == [
            PixelRect(x: 0, y: 0, width: 640, height: 360), PixelRect(x: 640, y: 0, width: 640, height: 360),
            PixelRect(x: 320, y: 360, width: 640, height: 360)])
        // n = 5: 3 columns of 426/427 pixels, the last row's two cells shifted by floor(1280/6) = 213.
        let five = CallLayout.gridCells(count: 5, width: 1280, height: 720)
        #expect(five.map(\.x) == [0, 426, 853, 213, 639] && five.map(\.width) == [426, 427, 427, 426, 427])
    }

    @Test func focusAndPipKeepTheFocusLargeAndOthersInside() {
        let keys = [["a", "Ann"], ["b", "Bob"], ["c", "Cy"]]
        let focus = CallLayout.focus("Bob").tiles(for: keys, width: 1280, height: 720)
        #expect(focus.first?.participant == 1 && focus.first?.rect == PixelRect(x: 0, y: 0, width: 1280, height: 540))
        #expect(focus.dropFirst().allSatisfy { $0.rect.y == 540 && $0.rect.height == 180 && $0.rect.x >= 0 && $0.rect.x + $0.rect.width <= 1280 })
        let pip = CallLayout.pip("a").tiles(for: keys, width: 1280, height: 720)
        #expect(pip.first?.rect == PixelRect(x: 0, y: 0, width: 1280, height: 720))
        #expect(pip.dropFirst().map(\.rect) == [PixelRect(x: 1280 - 20 - 256, y: 720 - 20 - 144, width: 256, height: 144),
                                                PixelRect(x: 1280 - 2 * 276, y: 720 - 164, width: 256, height: 144)])
        // Without its focus the call shows as a grid.
        #expect(CallLayout.pip("z").tiles(for: keys, width: 1280, height: 720).map(\.rect) == CallLayout.gridCells(count: 3, width: 1280, height: 720))
    }

    /// `pip` with the pictures' shapes known: a 9:16 phone inset is portrait with the area of the
    /// 256 × 144 box (144 × 256), filled edge to edge (cover); a 16:9 one is the box itself; the
    /// focus's own shape is ignored.
    @Test func pipInsetsTakeTheirPicturesShape() {
        let keys = [["a", "Ann"], ["b", "Bob"], ["c", "Cy"]]
        let pictures: [PictureSize?] = [PictureSize(width: 640, height: 480), PictureSize(width: 720, height: 1280), PictureSize(width: 1280, height: 720)]
        let pip = CallLayout.pip("a").tiles(for: keys, width: 1280, height: 720, pictures: pictures)
        #expect(pip.map(\.rect) == [PixelRect(x: 0, y: 0, width: 1280, height: 720),
                                    PixelRect(x: 1280 - 20 - 144, y: 720 - 20 - 256, width: 144, height: 256),
                                    PixelRect(x: 1280 - 20 - 144 - 20 - 256, y: 720 - 20 - 144, width: 256, height: 144)])
        #expect(pip.map(\.fit) == [nil, .cover, .cover])
    }

    @Test func layoutFileIsReadAndItsErrorsNameLineAndField() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("layout.json").path
        try Data("""
        {"version": 1, "background": "#101010",
         "tiles": [{"stream": "Bob", "rect": [0, 0, 640, 720], "fit": "cover"},
                   {"stream": "a", "rect": [640, 0, 640, 720]}]}
        """.utf8).write(to: URL(fileURLWithPath: path))
        let layout = try CustomLayout.load(path: FilePath(path), width: 1280, height: 720)
        #expect(layout.background == RGBAColor(red: 16, green: 16, blue: 16))
        #expect(layout.tiles.map(\.rect) == [PixelRect(x: 0, y: 0, width: 640, height: 720), PixelRect(x: 640, y: 0, width: 640, height: 720)])
        let tiles = CallLayout.custom(layout).tiles(for: [["a", "Ann"], ["b", "Bob"], ["c", "Cy"]], width: 1280, height: 720)
        #expect(tiles.map(\.participant) == [1, 0] && tiles.map(\.fit) == [.cover, nil])

        for (text, line, field) in [("{\"version\": 1,\n \"tiles\": [{\"stream\": \"a\",\n \"rect\": [0, 0, \"w\", 10]}]}", 3, "tiles[0].rect"),
                                    ("{\"version\": 1, \"tiles\": [\n{\"stream\": \"a\", \"rect\": [0, 0, 1300, 10]}]}", 2, "tiles[0].rect"),
                                    ("{\"version\": 1, \"tiles\": [{\"stream\": \"a\", \"rect\": [0, 0, 8, 8],\n \"fit\": \"stretch\"}]}", 2, "tiles[0].fit"),
                                    ("{\"version\": 1,\n\"tile\": []}", 2, "tile")] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            do {
                _ = try CustomLayout.load(path: FilePath(path), width: 1280, height: 720)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.exitCode == 3 && error.message.contains("\(path):\(line)") && error.message.contains(field), "\(error.message)")
            }
        }
    }

    @Test func reconnectedParticipantIsOneAndOverlappingNamesAreNot() {
        func stream(_ id: String, _ name: String, _ start: Double, _ stop: Double, order: Int) -> CallStream {
            CallStream(id: id, name: name, videoType: nil, order: order, tracks: [
                CallTrack(path: FilePath("/\(id).webm"), name: "\(id).webm", start: start, stop: stop, mediaStart: 0, mediaEnd: stop - start,
                          hasVideo: true, hasAudio: true)])
        }
        let call = Call(source: "call", manifest: "call", epoch: nil, streams: [
            stream("a1", "Ann", 0, 4, order: 0), stream("b", "Bob", 1, 9, order: 1), stream("a2", "Ann", 5, 9, order: 2),
            stream("c1", "Cy", 0, 5, order: 3), stream("c2", "Cy", 2, 9, order: 4)])
        let participants = CallParticipant.withVideo(in: call)
        #expect(participants.map { $0.streams.map(\.id) } == [["a1", "a2"], ["c1"], ["b"], ["c2"]])
        #expect(participants[0].isShown(at: 3.9) && !participants[0].isShown(at: 4.5) && participants[0].isShown(at: 5))
    }
}
