import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import ReplayKitless

/// A §7 CSV from (frame, id, visible, x, y) rows; t = frame / 30, depth 2.
func trackCSV(_ rows: [(frame: Int, id: String, visible: Bool, x: Double?, y: Double?)], timeShift: Double = 0) -> String {
    var text = "frame,t,id,visible,x,y,depth\n"
    for row in rows {
        let x = row.x.map { String($0) } ?? "", y = row.y.map { String($0) } ?? ""
        text += "\(row.frame),\(Double(row.frame) / 30 + timeShift),\(row.id),\(row.visible ? 1 : 0),\(x),\(y),2\n"
    }
    return text
}

/// Collects element names and texts of an XML document, failing the test when it does not parse.
final class XMLCollector: NSObject, XMLParserDelegate {
    var elements: [(name: String, attributes: [String: String])] = []
    var texts: [String] = []
    private var text = ""

    static func parse(_ string: String) -> XMLCollector? {
        let collector = XMLCollector()
        let parser = XMLParser(data: Data(string.utf8))
        parser.delegate = collector
        return parser.parse() ? collector : nil
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        elements.append((elementName, attributes))
        text = ""
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        if !text.isEmpty { texts.append(text) }
        text = ""
    }
}

@Suite struct QATrackTests {
    @Test func parsesRowsWithEmptyCoordinatesQuotesAndCRLF() throws {
        let text = "frame,t,id,visible,x,y,depth\r\n0,0.0,valve,1,10.5,20.25,1.5\r\n"
            + "0,0.0,\"tap, \"\"one\"\"\",0,,,-0.5\r\n1,0.033,valve,0,-3,700,1.4\r\n"
        let track = try PlacementTrack.parse(text, file: "a.csv")
        #expect(track.rows.count == 3)
        #expect(track.rows[0] == PlacementRow(frame: 0, t: 0, id: "valve", visible: true, x: 10.5, y: 20.25, depth: 1.5, line: 2))
        #expect(track.rows[1].id == "tap, \"one\"")
        #expect(track.rows[1].x == nil && track.rows[1].y == nil && track.rows[1].depth == -0.5)
        #expect(track.rows[2].line == 4 && !track.rows[2].visible && track.rows[2].x == -3)
    }

    @Test(arguments: [
        ("frame,t,id,visible,x,y\n", "a.csv:1"),
        ("frame,t,id,visible,x,y,depth\n0,0,a,1,1,2,3\n1,0.1,a,1,abc,2,3\n", "a.csv:3 (x)"),
        ("frame,t,id,visible,x,y,depth\n0,0,a,2,1,2,3\n", "a.csv:2 (visible)"),
        ("frame,t,id,visible,x,y,depth\n0,0,a,1,,,3\n", "a.csv:2 (x)"),
        ("frame,t,id,visible,x,y,depth\n0,0,a,0,1,,3\n", "a.csv:2 (y)"),
        ("frame,t,id,visible,x,y,depth\n0,0,a,1,1,2,3\n0,0,a,1,1,2,3\n", "a.csv:3 (frame)"),
        ("frame,t,id,visible,x,y,depth\n0,0,a,1,1,2\n", "a.csv:2"),
        ("frame,t,id,visible,x,y,depth\n-1,0,a,1,1,2,3\n", "a.csv:2 (frame)"),
        ("frame,t,id,visible,x,y,depth\n0,nan,a,1,1,2,3\n", "a.csv:2 (t)"),
        ("frame,t,id,visible,x,y,depth\n0,0,\"a,1,1,2,3\n", "a.csv:2 (id)"),
        ("", "a.csv"),
    ])
    func malformedTracksNameFileLineAndField(text: String, place: String) {
        do {
            _ = try PlacementTrack.parse(text, file: "a.csv")
            Issue.record("accepted malformed track: \(text)")
        } catch {
            #expect(error.kind == .badInput)
            #expect(error.message.hasPrefix(place + ":"), "\(error.message)")
        }
    }

    @Test func missingFileIsBadInput() {
        do {
            _ = try PlacementTrack.load(path: "/nonexistent/track.csv")
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.kind == .badInput && error.message.hasPrefix("/nonexistent/track.csv:"))
        }
    }

    @Test func constantShiftGivesThatError() throws {
        let a = try PlacementTrack.parse(trackCSV((0..<10).map { ($0, "valve", true, Double(100 + $0), 50.0) }), file: "a.csv")
        let b = try PlacementTrack.parse(trackCSV((0..<10).map { ($0, "valve", true, Double(103 + $0), 54.0) }), file: "b.csv")
        let report = TrackComparisonReport(comparing: a, with: b, options: TrackComparisonOptions(tolerance: 4.99))
        let valve = try #require(report.annotations.first)
        #expect(valve.compared == 10 && valve.unmatched == 0 && valve.visibilityMismatches == 0)
        let error = try #require(valve.error)
        for value in [error.mean, error.median, error.p95, error.max] { #expect(abs(value - 5) < 1e-12) }
        // 5 px > 4.99 px tolerance.
        #expect(!report.passed && report.failingIDs == ["valve"])
        #expect(TrackComparisonReport(comparing: a, with: b, options: TrackComparisonOptions(tolerance: 5)).passed)
    }

    @Test func percentilesOnAHandMadeList() throws {
        // Errors 1…20 in scrambled order.
        let errors = [7, 19, 3, 12, 20, 1, 15, 9, 5, 11, 18, 2, 14, 6, 17, 10, 4, 13, 8, 16].map(Double.init)
        let samples = errors.enumerated().map { ErrorSample(frame: $0.offset, t: Double($0.offset) / 10, error: $0.element) }
        let statistics = try #require(ErrorStatistics(samples))
        #expect(statistics.count == 20)
        #expect(statistics.mean == 10.5)
        #expect(statistics.median == 10.5)      // (10 + 11) / 2
        #expect(statistics.p95 == 19)           // rank ⌈0.95 · 20⌉ = 19
        #expect(statistics.max == 20 && statistics.worst.frame == 4 && statistics.worst.t == 0.4)
        // Odd count: the middle value; rank ⌈0.95 · 7⌉ = 7, the largest.
        let seven = try #require(ErrorStatistics([3, 1, 4, 1, 5, 9, 2].enumerated().map {
            ErrorSample(frame: $0.offset, t: 0, error: Double($0.element))
        }))
        #expect(seven.median == 3 && seven.p95 == 9)
        // 100 values 1…100: rank 95 exactly, no rounding up to 96.
        let hundred = try #require(ErrorStatistics((1...100).map { ErrorSample(frame: $0, t: 0, error: Double($0)) }))
        #expect(hundred.p95 == 95)
        #expect(ErrorStatistics([]) == nil)
    }

    @Test func errorsFlowFromTracksIntoPercentiles() throws {
        // Frame f is off by f + 1 pixels along x.
        let a = try PlacementTrack.parse(trackCSV((0..<20).map { ($0, "pin", true, 10.0, 10.0) }), file: "a.csv")
        let b = try PlacementTrack.parse(trackCSV((0..<20).map { ($0, "pin", true, 10.0 + Double($0 + 1), 10.0) }), file: "b.csv")
        let pin = try #require(TrackComparisonReport(comparing: a, with: b).annotations.first?.error)
        #expect(pin.p95 == 19 && pin.median == 10.5 && pin.max == 20 && pin.worst.frame == 19)
    }

    @Test func visibilityMismatchesAreCounted() throws {
        let a = try PlacementTrack.parse(trackCSV((0..<10).map { ($0, "tap-1", true, 5.0, 5.0) }), file: "a.csv")
        let b = try PlacementTrack.parse(trackCSV((0..<10).map { frame in
            [2, 5, 6].contains(frame) ? (frame, "tap-1", false, 5.0, 5.0) : (frame, "tap-1", true, 5.0, 5.0)
        }), file: "b.csv")
        let strict = TrackComparisonReport(comparing: a, with: b)
        let tap = try #require(strict.annotations.first)
        #expect(tap.visibilityMismatches == 3 && tap.compared == 7 && tap.matched == 10)
        #expect(tap.firstVisibilityMismatch == FrameReference(frame: 2, t: 2.0 / 30))
        #expect(strict.failingIDs == ["tap-1"])
        #expect(TrackComparisonReport(comparing: a, with: b, options: TrackComparisonOptions(maxVisibilityMismatches: 3)).passed)
    }

    @Test func bothInvisibleIsNeitherComparedNorMismatch() throws {
        let a = try PlacementTrack.parse(trackCSV([(0, "x", false, nil, nil), (1, "x", true, 1, 1)]), file: "a.csv")
        let b = try PlacementTrack.parse(trackCSV([(0, "x", false, 9, 9), (1, "x", true, 1, 1)]), file: "b.csv")
        let x = try #require(TrackComparisonReport(comparing: a, with: b).annotations.first)
        #expect(x.compared == 1 && x.visibilityMismatches == 0 && x.error?.max == 0 && x.passed)
    }

    @Test func unmatchedAndMissingAnnotationsFail() throws {
        let a = try PlacementTrack.parse(trackCSV((0..<5).map { ($0, "a", true, 1.0, 1.0) } + [(0, "only-a", true, 1, 1)]), file: "a.csv")
        let b = try PlacementTrack.parse(trackCSV((0..<4).map { ($0, "a", true, 1.0, 1.0) } + [(0, "only-b", true, 1, 1)]), file: "b.csv")
        let report = TrackComparisonReport(comparing: a, with: b)
        #expect(report.annotations.map(\.id) == ["a", "only-a", "only-b"])
        #expect(report.annotations[0].unmatched == 1)
        #expect(report.failingIDs == ["a", "only-a", "only-b"])
        #expect(report.annotations[1].failures == ["missing from b.csv"])
        let lenient = TrackComparisonReport(comparing: a, with: b, options: TrackComparisonOptions(maxUnmatched: 1))
        #expect(lenient.failingIDs == ["only-a", "only-b"])
    }

    @Test func timeMatchingPairsNearestRowWithinTolerance() throws {
        // B runs at 15 fps (frames 0, 2, 4 … of A's 30 fps clock, numbered 0, 1, 2 …), 4 ms late.
        let a = try PlacementTrack.parse(trackCSV((0..<10).map { ($0, "v", true, Double($0), 0.0) }), file: "a.csv")
        var bText = "frame,t,id,visible,x,y,depth\n"
        for frame in 0..<5 { bText += "\(frame),\(Double(2 * frame) / 30 + 0.004),v,1,\(Double(2 * frame)),0,2\n" }
        let b = try PlacementTrack.parse(bText, file: "b.csv")
        let report = TrackComparisonReport(comparing: a, with: b, options: TrackComparisonOptions(matching: .time(tolerance: 0.02)))
        let v = try #require(report.annotations.first)
        // Even A frames meet their twin 4 ms away (error 0); for odd ones the nearest B row is 29.3 ms
        // away (beyond 20 ms), so they are unmatched.
        #expect(v.matched == 5 && v.unmatched == 5 && v.error?.max == 0)
        let wide = TrackComparisonReport(comparing: a, with: b, options: TrackComparisonOptions(matching: .time(tolerance: 0.05), tolerance: 1))
        let all = try #require(wide.annotations.first)
        // Odd frame f: B at f − 1 is 1/30 − 0.004 = 0.0293 s away, B at f + 1 is 0.0373 s: picks f − 1, error 1 px.
        #expect(all.matched == 10 && all.unmatched == 0 && all.error?.max == 1 && all.error?.mean == 0.5)
        #expect(wide.matching == "time" && wide.timeTolerance == 0.05)
    }

    @Test func timeMatchingCountsAFrameMissingFromEitherTrack() throws {
        // Both at 30 fps: A lacks frame 3, B lacks frame 7. Each gap leaves a row of the other track
        // whose nearest neighbours are 1/30 s (> 20 ms) away: one unmatched row each way.
        func track(without missing: Int, file: String) throws -> PlacementTrack {
            try PlacementTrack.parse(trackCSV((0..<10).filter { $0 != missing }.map { ($0, "v", true, Double($0), 0.0) }), file: FilePath(file))
        }
        let a = try track(without: 3, file: "a.csv"), b = try track(without: 7, file: "b.csv")
        let options = TrackComparisonOptions(matching: .time(tolerance: 0.02))
        let both = try #require(TrackComparisonReport(comparing: a, with: b, options: options).annotations.first)
        #expect(both.matched == 8 && both.unmatched == 2 && !both.passed)
        // A frame missing from the track under test alone fails too, and is allowed by --max-unmatched 1.
        let full = try PlacementTrack.parse(trackCSV((0..<10).map { ($0, "v", true, Double($0), 0.0) }), file: "b.csv")
        let gap = try #require(TrackComparisonReport(comparing: a, with: full, options: options).annotations.first)
        #expect(gap.matched == 9 && gap.unmatched == 1 && !gap.passed)
        var lenient = options
        lenient.maxUnmatched = 1
        #expect(TrackComparisonReport(comparing: a, with: full, options: lenient).passed)
    }

    @Test func nearestIndexPrefersEarlierOnTies() {
        #expect(nearestIndex(in: [0, 1, 2], to: 1.5) == 1)
        #expect(nearestIndex(in: [0, 1, 2], to: 1.6) == 2)
        #expect(nearestIndex(in: [0, 1, 2], to: -5) == 0)
        #expect(nearestIndex(in: [0, 1, 2], to: 9) == 2)
        #expect(nearestIndex(in: [], to: 1) == nil)
    }

    func sampleReport() throws -> TrackComparisonReport {
        let a = try PlacementTrack.parse(trackCSV((0..<30).flatMap { f in
            [(f, "valve", true, 100.0, 100.0), (f, "tap <1> & \"2\"", f % 10 != 3, 50.0, 50.0)]
        }), file: "runs/a.csv")
        let b = try PlacementTrack.parse(trackCSV((0..<30).flatMap { f in
            [(f, "valve", true, 100.0 + Double(f) / 10, 100.0), (f, "tap <1> & \"2\"", true, 50.0, 52.0)]
        }), file: "runs/b.csv")
        return TrackComparisonReport(comparing: a, with: b, options: TrackComparisonOptions(tolerance: 2.5, maxVisibilityMismatches: 5))
    }

    @Test func jsonParsesBack() throws {
        let report = try sampleReport()
        let data = try report.json()
        var decoded = try QAOutput.decode(TrackComparisonReport.self, from: data)
        // Per-frame samples and disagreement frames stay out of the JSON; everything else survives.
        #expect(decoded.annotations.allSatisfy { $0.samples.isEmpty && $0.visibilityMismatchFrames.isEmpty })
        for index in decoded.annotations.indices {
            decoded.annotations[index].samples = report.annotations[index].samples
            decoded.annotations[index].visibilityMismatchFrames = report.annotations[index].visibilityMismatchFrames
        }
        #expect(decoded == report)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["passed"] as? Bool == report.passed)
        #expect(object["failingIDs"] as? [String] == report.failingIDs)
    }

    @Test func textTableNamesFailures() throws {
        let report = try sampleReport()
        // valve: errors f/10 for f in 0…29, p95 = rank 29 → 2.8 px > 2.5 px; the tap: 2 px, 3 mismatches.
        #expect(report.failingIDs == ["valve"])
        let text = report.text
        #expect(text.contains("FAIL: valve"))
        let valveLine = try #require(text.split(separator: "\n").first { $0.hasPrefix("valve") })
        #expect(valveLine.contains("2.80") && valveLine.contains("2.90") && valveLine.hasSuffix("FAIL"))
    }

    @Test func svgIsValidXMLWithOnePolylinePerAnnotation() throws {
        let report = try sampleReport()
        let svg = report.plot.svg()
        let xml = try #require(XMLCollector.parse(svg), "SVG does not parse as XML")
        #expect(xml.elements.first?.name == "svg")
        let polylines = xml.elements.filter { $0.name == "polyline" }
        #expect(polylines.count == report.annotations.count)
        #expect(polylines.map { $0.attributes["data-label"] } == report.annotations.map(\.id))
        // Every compared frame is a point.
        let valvePoints = polylines[0].attributes["points"]?.split(separator: " ").count
        #expect(valvePoints == 30)
        #expect(xml.texts.contains("time (s)") && xml.texts.contains("pixel error (px)"))
        // The tolerance line's value, on the line and in the legend.
        #expect(xml.texts.contains("tap <1> & \"2\"") && xml.texts.filter { $0 == "tolerance 2.50 px" }.count == 2)
        // Tick labels are numbers.
        #expect(xml.texts.filter { Double($0) != nil }.count >= 6)
    }

    @Test func svgOfEmptyAndSinglePointSeriesStillParses() throws {
        let plot = ErrorPlot(title: "empty", series: [.init(label: "none", samples: []),
                                                      .init(label: "one", samples: [ErrorSample(frame: 0, t: 3, error: 0)])])
        let xml = try #require(XMLCollector.parse(plot.svg()))
        #expect(xml.elements.filter { $0.name == "polyline" }.count == 2)
        #expect(xml.elements.contains { $0.name == "circle" })
    }

    @Test func htmlReferencesExistingThumbnails() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reportDirectory = directory.appendingPathComponent("report")
        let thumbnails = directory.appendingPathComponent("thumbs dir")
        try FileManager.default.createDirectory(at: reportDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: thumbnails, withIntermediateDirectories: true)
        let pictures = ["valve worst.png", "tap.png"].map { thumbnails.appendingPathComponent($0) }
        for picture in pictures { try Data([0x89, 0x50, 0x4E, 0x47]).write(to: picture) }
        let local = reportDirectory.appendingPathComponent("local.png")
        try Data([0x89]).write(to: local)

        let report = try sampleReport()
        let html = report.html(thumbnails: [QAThumbnail(label: "valve, frame 29", path: FilePath(pictures[0].path)),
                                            QAThumbnail(label: "tap", path: FilePath(pictures[1].path)),
                                            QAThumbnail(label: "local", path: FilePath(local.path))],
                               directory: FilePath(reportDirectory.path))
        let htmlFile = reportDirectory.appendingPathComponent("report.html")
        try AtomicOutput.write(Data(html.utf8), to: FilePath(htmlFile.path))

        let page = try String(contentsOf: htmlFile, encoding: .utf8)
        let sources = page.components(separatedBy: "src=\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
        #expect(sources == ["../thumbs%20dir/valve%20worst.png", "../thumbs%20dir/tap.png", "local.png"])
        for source in sources {
            let resolved = URL(string: source, relativeTo: htmlFile)?.standardizedFileURL.path ?? ""
            #expect(FileManager.default.fileExists(atPath: resolved), "\(source) does not resolve to a file")
        }
        #expect(page.contains("<svg") && page.contains("<table>") && page.contains("tap &lt;1&gt; &amp; &quot;2&quot;"))
        // The inline SVG is well-formed on its own.
        let svgStart = try #require(page.range(of: "<svg")), svgEnd = try #require(page.range(of: "</svg>"))
        #expect(XMLCollector.parse(String(page[svgStart.lowerBound..<svgEnd.upperBound])) != nil)
    }

    @Test func writesRequestedFilesAndReportsFailure() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let report = try sampleReport()
        let json = directory.appendingPathComponent("r.json").path, svg = directory.appendingPathComponent("r.svg").path
        let html = directory.appendingPathComponent("r.html").path
        let outputs = OutputGroup()
        // What `fxreplay qa compare --json/--plot/--report` write, each through the group.
        try outputs.reserve(FilePath(json)).write(try report.json())
        try outputs.reserve(FilePath(svg)).write(Data(report.svg().utf8))
        try outputs.reserve(FilePath(html)).write(Data(report.html(directory: FilePath(directory.path)).utf8))
        // Nothing is in place until the group is committed.
        #expect(!FileManager.default.fileExists(atPath: json) && !FileManager.default.fileExists(atPath: html))
        try outputs.commit()
        _ = try QAOutput.decode(TrackComparisonReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        #expect(XMLCollector.parse(try String(contentsOfFile: svg, encoding: .utf8)) != nil)
        #expect(try String(contentsOfFile: html, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        let failure = try #require(report.failure)
        #expect(failure.exitCode == 1 && failure.message.contains("valve"))
        // An unwritable destination is a processing failure (exit 4) and leaves nothing behind.
        let missing = directory.appendingPathComponent("no/such/dir/r.json").path
        do {
            try OutputGroup().reserve(FilePath(missing)).write(try report.json())
            Issue.record("wrote into a missing directory")
        } catch {
            #expect(error.exitCode == 4)
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
