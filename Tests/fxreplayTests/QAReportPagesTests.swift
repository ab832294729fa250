import Foundation
@testable import ReplayKitless
import Testing

/// The pages and pictures of `qa compare --report --video`, `qa latency --report` and `compare --diff`,
/// checked on their pixels and text.
@Suite struct QAReportPagesTests {
    /// A flat grey 160×96 video (Y 100: R'G'B' 98, 98, 98) and tracks whose valve is (30, 40) px off on
    /// every frame (50 px) and whose pin agrees exactly.
    static func fixture() throws -> (dir: URL, video: String, a: String, b: String) {
        let dir = try makeScratchDirectory()
        let video = dir.appendingPathComponent("call.mkv").path
        try QAFixtures.writeVideo(video, width: 160, height: 96, pts: QAFixtures.frameTimes(6), draw: QAFixtures.flat(100, 128, 128))
        let frames = Array(0..<6)
        let a = try QAPlacementCommandTests.write(QAPlacementCommandTests.track(frames.flatMap { [($0, "valve", 40.0, 30.0), ($0, "pin", 120.0, 70.0)] }), dir, "a.csv")
        let b = try QAPlacementCommandTests.write(QAPlacementCommandTests.track(frames.flatMap { [($0, "valve", 70.0, 70.0), ($0, "pin", 120.0, 70.0)] }), dir, "b.csv")
        return (dir, video, a, b)
    }

    /// The first x.y.z in `fxreplay --version`.
    static func version() throws -> String {
        let output = try runFxreplay(["--version"]).stdout
        let range = try #require(output.range(of: "[0-9]+\\.[0-9]+\\.[0-9]+", options: .regularExpression))
        return String(output[range])
    }

    /// The worst frame of the failing valve is a crop around both placements, enlarged by whole pixels:
    /// by the documented rule, span max(30, 40) = 40 → a 72 px square centred on (55, 50), i.e. from
    /// (19, 14), ×⌊320 / 72⌋ = ×4. So A's marker centre (40, 30) lands 84, 64 px and B's (70, 70) 204, 224 px
    /// into the grey crop, in their exact colours. The pin (error 0 everywhere) gets no picture.
    @Test func worstFrameIsAZoomedCropWithBothMarkersAndAScale() throws {
        let (dir, video, a, b) = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let html = dir.appendingPathComponent("review.html").path
        let run = try runFxreplay(["qa", "compare", a, b, "--tolerance", "49.9", "--report", html, "--video", video])
        #expect(run.status == 1, "\(run.stderr)")
        let pictures = try QAFixtures.imageFiles(inPage: html)
        #expect(pictures == [dir.appendingPathComponent("review-frame0-valve.png").path])
        let path = try #require(pictures.first)
        let frame = try #require(try VideoFrameReader(url: path).next())
        let width = frame.width, height = frame.height
        let rgb = try QAFixtures.rgb24(path)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(rgb[(y * width + x) * 3..<(y * width + x) * 3 + 3]) }
        // The crop: the grey pixels' bounding box, 72 × 4 px square.
        var minX = width, minY = height, maxX = -1, maxY = -1
        for y in 0..<height {
            for x in 0..<width where pixel(x, y).allSatisfy({ abs(Int($0) - 98) <= 1 }) {
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        #expect(maxX - minX + 1 == 288 && maxY - minY + 1 == 288, "grey from (\(minX), \(minY)) to (\(maxX), \(maxY))")
        #expect(pixel(minX + (40 - 19) * 4, minY + (30 - 14) * 4) == [0xFF, 0x3B, 0x30])
        #expect(pixel(minX + (70 - 19) * 4, minY + (70 - 14) * 4) == [0x00, 0xC7, 0xFF])
        // The caption band above: the valve's plot colour (first series, #4E79A7) as a swatch, and text.
        let above = (0..<minY).flatMap { y in (0..<width).map { pixel($0, y) } }
        #expect(above.contains([0x4E, 0x79, 0xA7]) && above.contains { $0.allSatisfy { $0 > 200 } })
        // Under the crop: both markers in the legend, and a white scale bar 20 px × 4 = 80 px long.
        let below = (maxY + 1..<height).map { y in (0..<width).map { pixel($0, y) } }
        #expect(below.joined().contains([0xFF, 0x3B, 0x30]) && below.joined().contains([0x00, 0xC7, 0xFF]))
        let longestWhiteRun = below.map { row in
            row.reduce(into: (run: 0, best: 0)) { state, value in
                state.run = value == [255, 255, 255] ? state.run + 1 : 0
                state.best = max(state.best, state.run)
            }.best
        }.max()
        #expect(longestWhiteRun == 80)
        // Ids beside the markers: red text right of A's marker (its plate starts 10 px right of the centre).
        let aRight = (minY + 40..<minY + 64).flatMap { y in (minX + 84 + 12..<minX + 84 + 60).map { pixel($0, y) } }
        #expect(aRight.contains { Int($0[0]) > 200 && Int($0[1]) < 120 }, "no red id right of A's marker")
    }

    /// The page says what was checked, against what, by which program and how it was run; the latency
    /// page as well. --self-contained puts the same picture inside the page and writes no other file.
    @Test func pagesCarryVerdictThresholdsInputsVersionAndCommandLine() throws {
        let (dir, video, a, b) = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let version = try Self.version()
        let html = dir.appendingPathComponent("review.html").path
        #expect(try runFxreplay(["qa", "compare", a, b, "--tolerance", "49.9", "--max-unmatched", "2", "--report", html, "--video", video]).status == 1)
        let page = try String(contentsOfFile: html, encoding: .utf8)
        for text in ["FAIL: valve", "p95 error 50.00 px exceeds the tolerance 49.90 px", "at most 49.90 px", "at most 2 per annotation",
                     "<th>input A</th><td>\(a)</td>", "<th>input B</th><td>\(b)</td>", "<th>input video</th><td>\(video)</td>",
                     "<th>fxreplay</th><td>\(version)</td>",
                     "qa compare \(a) \(b) --tolerance 49.9 --max-unmatched 2 --report \(html) --video \(video)</code>"] {
            #expect(page.contains(text), "missing \(text)")
        }

        let inline = dir.appendingPathComponent("inline.html").path
        let contained = try runFxreplay(["qa", "compare", a, b, "--tolerance", "49.9", "--report", inline, "--video", video, "--self-contained"])
        #expect(contained.status == 1, "\(contained.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("inline-frame0-valve.png").path))
        let inlinePage = try String(contentsOfFile: inline, encoding: .utf8)
        // Nothing outside the page: every src and href is a data: URI (the pictures, and the empty icon
        // that keeps browsers from asking the server for /favicon.ico).
        let sources = inlinePage.components(separatedBy: "src=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        let links = inlinePage.components(separatedBy: "href=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(sources.count == 1 && links.allSatisfy { $0.hasPrefix("data:") })
        let prefix = "data:image/png;base64,"
        for source in sources {
            #expect(source.hasPrefix(prefix))
            #expect(Data(base64Encoded: String(source.dropFirst(prefix.count)))
                    == FileManager.default.contents(atPath: dir.appendingPathComponent("review-frame0-valve.png").path))
        }
        #expect(try runFxreplay(["qa", "compare", a, b, "--self-contained"]).status == 2)
    }

    /// `qa latency --report`: verdict, thresholds, inputs, version and command line too.
    @Test func latencyPageCarriesTheRun() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (video, sidecar) = try QAPlacementCommandTests.panningRecording(in: dir)
        let scene = try QAPlacementCommandTests.write(#"{"version": 1, "annotations": [{"id": "tap-1", "anchor": {"tap": {"t": 0.2, "x": 80, "y": 48, "depth": 2}}}]}"#,
                                                      dir, "scene.json")
        let html = dir.appendingPathComponent("latency.html").path
        let run = try runFxreplay(["qa", "latency", video, "--poses", sidecar, "--annotations", scene, "--delay", "200ms,0",
                                   "--tolerance", "5", "--report", html, "--self-contained"])
        #expect(run.status == 1, "\(run.stderr)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        for text in ["FAIL: tap-1 at 200 ms", "at most 5.00 px", "200 ms, 0 ms", "<th>input recording</th><td>\(video)</td>",
                     "<th>input annotations</th><td>\(scene)</td>", "<th>input poses</th><td>\(sidecar)</td>",
                     "<th>fxreplay</th><td>\(try Self.version())</td>", "--delay 200ms,0 --tolerance 5 --report \(html) --self-contained</code>"] {
            #expect(page.contains(text), "missing \(text)")
        }
        #expect(!page.contains("src=") && page.components(separatedBy: "href=\"").dropFirst().allSatisfy { $0.hasPrefix("data:") })
    }
}
