import Foundation

extension ErrorStatistics {
    /// Table cells: mean, median, p95, max (two decimals).
    var cells: [String] { [fixed(mean), fixed(median), fixed(p95), fixed(max)] }
    static let emptyCells = ["-", "-", "-", "-"]
}

extension TrackComparisonReport: QAReportFiles {
    /// One row per annotation.
    package var table: TextTable {
        TextTable(
            headers: ["id", "compared", "mean", "median", "p95", "max", "visibility", "unmatched", "worst frame", "worst t", "result"],
            rows: annotations.map { annotation in
                let worst = annotation.error?.worst
                return [annotation.id, String(annotation.compared)]
                    + (annotation.error?.cells ?? ErrorStatistics.emptyCells)
                    + [String(annotation.visibilityMismatches), String(annotation.unmatched),
                       worst.map { String($0.frame) } ?? "-", worst.map { String(format: "%.3f", $0.t) } ?? "-",
                       annotation.passed ? "pass" : "FAIL"]
            })
    }

    /// What the comparison was, in one line.
    var headline: String {
        let match = timeTolerance.map { "nearest time within \(String(format: "%.3f", $0)) s" } ?? "frame"
        return "Placement tracks \(fileA) vs \(fileB): matched by \(match); p95 tolerance \(fixed(tolerance)) px, "
            + "at most \(maxVisibilityMismatches) visibility mismatches and \(maxUnmatched) unmatched rows per annotation"
    }

    /// The verdict, naming failing annotations and why.
    var verdict: [String] {
        guard !passed else { return ["PASS: all \(annotations.count) annotations within limits"] }
        return ["FAIL: " + failingIDs.joined(separator: ", ")]
            + annotations.filter { !$0.passed }.map { "  \($0.id): " + $0.failures.joined(separator: "; ") }
    }

    /// The report for a terminal: headline, table, verdict.
    public var text: String {
        headline + "\n\n" + table.render() + "\n" + verdict.joined(separator: "\n") + "\n"
    }

    /// The report as JSON (per-frame samples left out).
    public func json() throws(ReplayError) -> Data {
        try QAOutput.json(self)
    }

    /// Error over time, one line per annotation, with the tolerance and the visibility disagreements.
    package var plot: ErrorPlot {
        ErrorPlot(title: "Placement error: \(fileA.lastComponent?.string ?? "") vs \(fileB.lastComponent?.string ?? "")",
                  series: annotations.map { ErrorPlot.Series(label: $0.id, samples: $0.samples, disagreements: $0.visibilityMismatchFrames.map(\.t)) },
                  tolerance: tolerance)
    }

    /// ``plot`` as an SVG document.
    public func svg() -> String { plot.svg() }

    /// The limits the verdict was reached with.
    var thresholds: [(name: String, value: String)] {
        [(name: "p95 pixel error", value: "at most \(fixed(tolerance)) px"),
         (name: "visibility disagreements", value: "at most \(maxVisibilityMismatches) frames per annotation"),
         (name: "rows without a partner", value: "at most \(maxUnmatched) per annotation"),
         (name: "pairing", value: timeTolerance.map { "nearest time within \(String(format: "%.3f", $0)) s" } ?? "same frame number")]
    }

    /// An HTML page: the verdict, the thresholds, the table, the plot inline and `thumbnails` (e.g.
    /// worst frames) referenced relative to `directory`, the folder the page will be written to,
    /// under their colour `legend`; then what made it (`run`).
    public func html(thumbnails: [QAThumbnail] = [], legend: [QALegendEntry] = [], directory: FilePath, run: QARunInfo? = nil) -> String {
        var page = HTMLReport(title: "fxreplay qa compare")
        page.paragraph(headline)
        page.verdict(verdict, passed: passed)
        page.facts("Thresholds", thresholds)
        page.table(table, failingRows: Set(annotations.indices.filter { !annotations[$0].passed }))
        page.svg(plot.svg())
        if !thumbnails.isEmpty {
            page.heading("Worst frames")
            page.legend(legend)
            page.images(thumbnails, relativeTo: directory)
        }
        page.run(run)
        return page.render()
    }

    /// A picture of the report: one annotation on one frame.
    package struct PictureFrame: Sendable, Equatable {
        package var frame: FrameReference
        package var id: String
        package var label: String
        /// The annotation's colour in ``plot``.
        package var accent: RGBAColor
    }

    /// The frames worth a picture, at most `limit`, most telling first: the worst frame of each
    /// failing annotation (largest error first), then the first visibility disagreement of failing
    /// annotations, then the same for passing ones. A frame where A and B agree exactly (error 0)
    /// is never a "worst" frame. Frame numbers and times are track A's.
    package func thumbnailFrames(limit: Int) -> [PictureFrame] {
        let colours = Dictionary(annotations.enumerated().map { ($0.element.id, ErrorPlot.color(ofSeries: $0.offset)) }) { first, _ in first }
        func pictures(_ chosen: [AnnotationTrackComparison]) -> [PictureFrame] {
            let worst = chosen.compactMap { annotation in
                annotation.error.map { (annotation.id, $0.worst) }
            }.filter { $0.1.error > 0 }.sorted { $0.1.error > $1.1.error }
            return worst.map { id, sample in
                PictureFrame(frame: FrameReference(frame: sample.frame, t: sample.t), id: id,
                             label: "\(id): worst error \(fixed(sample.error)) px, frame \(sample.frame) (\(String(format: "%.3f", sample.t)) s)",
                             accent: colours[id]!)
            } + chosen.compactMap { annotation in
                annotation.firstVisibilityMismatch.map {
                    PictureFrame(frame: $0, id: annotation.id,
                                 label: "\(annotation.id): visibility differs, frame \($0.frame) (\(String(format: "%.3f", $0.t)) s)",
                                 accent: colours[annotation.id]!)
                }
            }
        }
        let chosen = pictures(annotations.filter { !$0.passed }) + pictures(annotations.filter(\.passed))
        return Array(chosen.prefix(max(0, limit)))
    }

    /// The worst-frame pictures of ``html(thumbnails:legend:directory:run:)`` (`fxreplay qa compare
    /// --video`): at most `limit` frames of `video`, the recording this comparison's tracks `a` and `b`
    /// belong to, worst first, each zoomed on its annotation with both tracks' placements drawn (A in
    /// ``PlacementOverlay/color(ofTrack:)`` 0, B in 1). Each picture is named after the page, `report`
    /// (`r.html` → `r-frame12-valve.png`), and handed to `save` with its PNG bytes as it is made;
    /// without `save` the PNGs stay in the returned entries, for a page that needs no other file.
    public func worstFramePictures(of video: String, a: PlacementTrack, b: PlacementTrack, limit: Int, namedAfter report: FilePath,
                                   save: ((_ png: Data, _ path: FilePath) throws(ReplayError) -> Void)?) throws(ReplayError) -> [QAThumbnail] {
        let stem = URL(fileURLWithPath: report.string).deletingPathExtension().path
        var names = Set<String>()
        let requests = thumbnailFrames(limit: limit).map { picture in
            // One file per annotation and frame, named after both (ids reduced to characters safe in a file name).
            let id = String(picture.id.unicodeScalars.map { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") ? Character($0) : "_" })
            var path = "\(stem)-frame\(picture.frame.frame)-\(id).png"
            if !names.insert(path).inserted { path = "\(stem)-frame\(picture.frame.frame)-\(id)-\(names.count).png"; names.insert(path) }
            return ThumbnailRequest(frame: picture.frame.frame, t: picture.frame.t, label: picture.label, path: path,
                                    id: picture.id, accent: picture.accent)
        }
        let legend = ["A: \(a.file.lastComponent?.string ?? "")", "B: \(b.file.lastComponent?.string ?? "")"]
        return try PlacementThumbnails.write(video: video, requests: requests, a: a, b: b, timeTolerance: timeTolerance,
                                             legend: legend, save: save)
    }

    /// The error `fxreplay qa compare` ends with when an annotation fails (exit status 1); `nil` on a pass.
    public var failure: ReplayError? {
        passed ? nil : .checkFailed("placement tracks differ: " + failingIDs.joined(separator: ", "))
    }
}
