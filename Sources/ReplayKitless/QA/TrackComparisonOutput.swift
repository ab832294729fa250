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

    /// Error over time, one line per annotation, with the tolerance.
    public var plot: ErrorPlot {
        ErrorPlot(title: "Placement error: \(URL(fileURLWithPath: fileA).lastPathComponent) vs \(URL(fileURLWithPath: fileB).lastPathComponent)",
                  series: annotations.map { ErrorPlot.Series(label: $0.id, samples: $0.samples) },
                  tolerance: tolerance)
    }

    /// An HTML page with the table, the plot inline and `thumbnails` (e.g. worst frames) referenced
    /// relative to `directory`, the folder the page will be written to, under their colour `legend`.
    public func html(thumbnails: [QAThumbnail] = [], legend: [QALegendEntry] = [], directory: String) -> String {
        var page = HTMLReport(title: "fxreplay qa compare")
        page.paragraph(headline)
        page.table(table, failingRows: Set(annotations.indices.filter { !annotations[$0].passed }))
        for (index, line) in verdict.enumerated() { page.paragraph(line, failing: !passed && index == 0) }
        page.svg(plot.svg())
        if !thumbnails.isEmpty {
            page.heading("Worst frames")
            page.legend(legend)
            page.images(thumbnails, relativeTo: directory)
        }
        return page.render()
    }

    /// The frames worth a picture, at most `limit`, most telling first: each annotation's worst frame
    /// (largest error first), then the first visibility mismatch of annotations that have one; each
    /// frame once. Frame numbers and times are track A's.
    public func thumbnailFrames(limit: Int) -> [(frame: FrameReference, label: String)] {
        let worst = annotations.compactMap { annotation in
            annotation.error.map { (annotation.id, $0.worst) }
        }.sorted { $0.1.error > $1.1.error }
        var chosen: [(frame: FrameReference, label: String)] = worst.map { id, sample in
            (FrameReference(frame: sample.frame, t: sample.t),
             "\(id): worst error \(fixed(sample.error)) px, frame \(sample.frame) (\(String(format: "%.3f", sample.t)) s)")
        }
        chosen += annotations.compactMap { annotation in
            annotation.firstVisibilityMismatch.map {
                ($0, "\(annotation.id): first visibility mismatch, frame \($0.frame) (\(String(format: "%.3f", $0.t)) s)")
            }
        }
        var seen = Set<Int>()
        return Array(chosen.filter { seen.insert($0.frame.frame).inserted }.prefix(max(0, limit)))
    }

    /// The error `fxreplay qa compare` ends with when an annotation fails (exit status 1); `nil` on a pass.
    public var failure: ReplayError? {
        passed ? nil : .checkFailed("placement tracks differ: " + failingIDs.joined(separator: ", "))
    }
}
