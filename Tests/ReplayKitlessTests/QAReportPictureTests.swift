import Foundation
@testable import ReplayKitless
import Testing

/// What the `qa compare` report chooses to show: worst frames, plot marks, crop regions.
@Suite struct QAReportPictureTests {
    /// Per annotation, rows on frames 0…3 at x = 0 in A and x = `errors[f]` in B (nil: B hides it).
    static func tracks(_ errors: [String: [Double?]]) -> (PlacementTrack, PlacementTrack) {
        var a: [PlacementRow] = [], b: [PlacementRow] = []
        for (id, values) in errors.sorted(by: { $0.key < $1.key }) {
            for (frame, error) in values.enumerated() {
                a.append(PlacementRow(frame: frame, t: Double(frame) / 30, id: id, visible: true, x: 10, y: 10, depth: 1))
                b.append(PlacementRow(frame: frame, t: Double(frame) / 30, id: id, visible: error != nil, x: 10 + (error ?? 0), y: 10, depth: 1))
            }
        }
        return (PlacementTrack(file: "a.csv", rows: a), PlacementTrack(file: "b.csv", rows: b))
    }

    /// p fails on its 3 px at frame 2; q agrees exactly everywhere; r agrees where both show it but B
    /// hides it on frame 1. Worst frames: p's frame 2 and r's disagreement, never a frame of error 0
    /// (q's and r's "worst" by the statistics, frame 0, 0 px).
    @Test func framesWhereTheTracksAgreeAreNeverWorst() throws {
        let (a, b) = Self.tracks(["p": [0, 0, 3, 0], "q": [0, 0, 0, 0], "r": [0, nil, 0, 0]])
        let report = TrackComparisonReport(comparing: a, with: b)
        #expect(report.failingIDs == ["p", "r"])
        let frames = report.thumbnailFrames(limit: 6)
        #expect(frames.map(\.frame.frame) == [2, 1], "\(frames.map(\.label))")
        #expect(frames.first?.label.hasPrefix("p: worst error 3.00 px, frame 2") == true)
        #expect(frames.last?.label.hasPrefix("r: visibility differs, frame 1") == true)
        // All agree: nothing to show.
        let (same, copy) = Self.tracks(["q": [0, 0, 0, 0]])
        #expect(TrackComparisonReport(comparing: same, with: copy).thumbnailFrames(limit: 6).isEmpty)
    }

    /// The plot marks r's one disagreement (a triangle at t = 1/30 s on the time axis, in r's line
    /// colour) and labels the tolerance line with its value.
    @Test func plotMarksVisibilityDisagreementsAndTheTolerance() throws {
        let (a, b) = Self.tracks(["p": [0, 0, 3, 0], "r": [0, nil, 0, 0]])
        let svg = TrackComparisonReport(comparing: a, with: b, options: TrackComparisonOptions(tolerance: 1.5)).plot.svg()
        #expect(svg.contains(">tolerance 1.50 px</text>"))
        let groups = svg.components(separatedBy: "<g class=\"visibility\"").dropFirst()
        #expect(groups.count == 1)
        let group = try #require(groups.first?.components(separatedBy: "</g>").first)
        // r is the second series: Tableau's orange.
        #expect(group.contains("data-label=\"r\"") && group.contains("fill=\"#F28E2B\""))
        #expect(group.components(separatedBy: "<path").count - 1 == 1)
        #expect(svg.contains(">visibility differs</text>"))
        #expect(ErrorPlot.color(ofSeries: 1) == RGBAColor(red: 0xF2, green: 0x8E, blue: 0x2B))
    }

    /// Crops stay inside the frame and enlarge by whole pixels to about 320 px.
    @Test func cropRegionsFollowTheRule() {
        // Span 3 → 35 px square, centred on (6.5, 5.5) but moved inside the frame; ⌊320 / 35⌋ = 9.
        #expect(WorstFrameCrop.region(around: [(5, 5), (8, 6)], width: 160, height: 96)
                == .init(left: 0, top: 0, width: 35, height: 35, zoom: 9))
        // Span 100 → 132 px: wider than the frame is tall, so as tall as the frame; ×2.
        #expect(WorstFrameCrop.region(around: [(20, 40), (120, 50)], width: 160, height: 96)
                == .init(left: 4, top: 0, width: 132, height: 96, zoom: 2))
        #expect(WorstFrameCrop.scaleStep(zoom: 9) == 10 && WorstFrameCrop.scaleStep(zoom: 1) == 100 && WorstFrameCrop.scaleStep(zoom: 60) == 1)
    }
}
