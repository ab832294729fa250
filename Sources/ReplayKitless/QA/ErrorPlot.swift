import Foundation

/// An SVG line chart of pixel error over time: one polyline per series (annotation), labelled axes,
/// a legend, and the tolerance as a dashed line.
package struct ErrorPlot: Sendable {
    /// One line of the chart.
    package struct Series: Sendable {
        package var label: String
        package var samples: [ErrorSample]
        /// Times (seconds) where the two placements disagree on visibility: no error to plot, marked
        /// with a triangle on the time axis in the series' colour.
        package var disagreements: [Double]
        package init(label: String, samples: [ErrorSample], disagreements: [Double] = []) {
            self.label = label
            self.samples = samples
            self.disagreements = disagreements
        }
    }

    package var title: String
    package var series: [Series]
    package var tolerance: Double?
    package var width = 800.0
    package var height = 400.0

    package init(title: String, series: [Series], tolerance: Double? = nil) {
        self.title = title
        self.series = series
        self.tolerance = tolerance
    }

    /// Tableau 10: distinct, readable colours; repeats after ten series.
    static let palette = ["#4E79A7", "#F28E2B", "#E15759", "#76B7B2", "#59A14F",
                          "#EDC948", "#B07AA1", "#FF9DA7", "#9C755F", "#BAB0AC"]

    /// The colour of series `index`: report pictures of that annotation carry it, so a picture and
    /// its line in the plot go together.
    package static func color(ofSeries index: Int) -> RGBAColor {
        RGBAColor(hex: palette[index % palette.count]) ?? RGBAColor(red: 0, green: 0, blue: 0)
    }

    /// The tolerance line's colour and its legend text.
    static let toleranceColour = "#B00020"
    static func toleranceLabel(_ tolerance: Double) -> String { "tolerance \(fixed(tolerance)) px" }

    private let left = 64.0, right = 180.0, top = 40.0, bottom = 52.0

    /// The chart as a standalone SVG document (also valid inline in HTML).
    package func svg() -> String {
        let samples = series.flatMap(\.samples)
        let times = samples.map(\.t) + series.flatMap(\.disagreements)
        let xAxis = Axis(low: times.min() ?? 0, high: times.max() ?? 1)
        let yAxis = Axis(low: 0, high: max(samples.map(\.error).max() ?? 0, tolerance ?? 0, 1e-9))
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        func px(_ t: Double) -> Double { left + (t - xAxis.low) / (xAxis.high - xAxis.low) * plotWidth }
        func py(_ e: Double) -> Double { top + plotHeight - (e - yAxis.low) / (yAxis.high - yAxis.low) * plotHeight }
        let n = { (value: Double) in String(format: "%.2f", value) }

        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(n(width))" height="\(n(height))" viewBox="0 0 \(n(width)) \(n(height))" \
        font-family="sans-serif" font-size="11">
        <title>\(xmlEscaped(title))</title>
        <rect x="0" y="0" width="\(n(width))" height="\(n(height))" fill="white"/>
        <text x="\(n(width / 2))" y="22" text-anchor="middle" font-size="14">\(xmlEscaped(title))</text>

        """
        // Grid, ticks and tick labels.
        svg += "<g class=\"axes\" stroke=\"#999\" stroke-width=\"1\">\n"
        for value in xAxis.ticks {
            let x = px(value)
            svg += "<line x1=\"\(n(x))\" y1=\"\(n(top))\" x2=\"\(n(x))\" y2=\"\(n(top + plotHeight))\" stroke=\"#eee\"/>\n"
            svg += "<line x1=\"\(n(x))\" y1=\"\(n(top + plotHeight))\" x2=\"\(n(x))\" y2=\"\(n(top + plotHeight + 5))\"/>\n"
        }
        for value in yAxis.ticks {
            let y = py(value)
            svg += "<line x1=\"\(n(left))\" y1=\"\(n(y))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(y))\" stroke=\"#eee\"/>\n"
            svg += "<line x1=\"\(n(left - 5))\" y1=\"\(n(y))\" x2=\"\(n(left))\" y2=\"\(n(y))\"/>\n"
        }
        svg += "<line x1=\"\(n(left))\" y1=\"\(n(top + plotHeight))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(top + plotHeight))\"/>\n"
        svg += "<line x1=\"\(n(left))\" y1=\"\(n(top))\" x2=\"\(n(left))\" y2=\"\(n(top + plotHeight))\"/>\n</g>\n"
        svg += "<g class=\"tick-labels\" fill=\"#333\">\n"
        for value in xAxis.ticks {
            svg += "<text x=\"\(n(px(value)))\" y=\"\(n(top + plotHeight + 18))\" text-anchor=\"middle\">\(xAxis.label(value))</text>\n"
        }
        for value in yAxis.ticks {
            svg += "<text x=\"\(n(left - 8))\" y=\"\(n(py(value) + 4))\" text-anchor=\"end\">\(yAxis.label(value))</text>\n"
        }
        svg += "</g>\n"
        svg += "<text class=\"axis-title\" x=\"\(n(left + plotWidth / 2))\" y=\"\(n(height - 12))\" text-anchor=\"middle\">time (s)</text>\n"
        svg += "<text class=\"axis-title\" x=\"16\" y=\"\(n(top + plotHeight / 2))\" text-anchor=\"middle\" "
            + "transform=\"rotate(-90 16 \(n(top + plotHeight / 2)))\">pixel error (px)</text>\n"

        if let tolerance {
            let y = py(tolerance)
            svg += "<line class=\"tolerance\" x1=\"\(n(left))\" y1=\"\(n(y))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(y))\" "
                + "stroke=\"\(Self.toleranceColour)\" stroke-width=\"1\" stroke-dasharray=\"6 4\"/>\n"
            svg += "<text class=\"tolerance-label\" x=\"\(n(left + plotWidth - 4))\" y=\"\(n(y - 4))\" text-anchor=\"end\" "
                + "fill=\"\(Self.toleranceColour)\">\(xmlEscaped(Self.toleranceLabel(tolerance)))</text>\n"
        }
        // Visibility disagreements: a triangle on the time axis per frame, in the series' colour.
        let disagreeing = series.contains { !$0.disagreements.isEmpty }
        for (index, line) in series.enumerated() where !line.disagreements.isEmpty {
            let colour = Self.palette[index % Self.palette.count], base = top + plotHeight
            svg += "<g class=\"visibility\" data-label=\"\(xmlEscaped(line.label))\" fill=\"\(colour)\" stroke=\"#333\" stroke-width=\"0.5\">\n"
            for t in line.disagreements {
                let x = px(t)
                svg += "<path d=\"M\(n(x)) \(n(base - 9)) L\(n(x - 5)) \(n(base)) L\(n(x + 5)) \(n(base)) Z\"/>\n"
            }
            svg += "</g>\n"
        }
        // Data: one polyline per series (a dot as well when it has a single point).
        for (index, line) in series.enumerated() {
            let colour = Self.palette[index % Self.palette.count]
            let points = line.samples.map { "\(n(px($0.t))),\(n(py($0.error)))" }.joined(separator: " ")
            svg += "<polyline class=\"series\" data-label=\"\(xmlEscaped(line.label))\" fill=\"none\" stroke=\"\(colour)\" "
                + "stroke-width=\"1.5\" points=\"\(points)\"/>\n"
            if line.samples.count == 1, let only = line.samples.first {
                svg += "<circle cx=\"\(n(px(only.t)))\" cy=\"\(n(py(only.error)))\" r=\"2.5\" fill=\"\(colour)\"/>\n"
            }
        }
        // Legend.
        let legendX = left + plotWidth + 16
        svg += "<g class=\"legend\">\n"
        var entries = series.enumerated().map { ($0.element.label, Self.palette[$0.offset % Self.palette.count], "") }
        if let tolerance { entries.append((Self.toleranceLabel(tolerance), Self.toleranceColour, " stroke-dasharray=\"6 4\"")) }
        for (index, entry) in entries.enumerated() {
            let y = top + 8 + Double(index) * 18
            svg += "<line x1=\"\(n(legendX))\" y1=\"\(n(y))\" x2=\"\(n(legendX + 20))\" y2=\"\(n(y))\" stroke=\"\(entry.1)\" stroke-width=\"2\"\(entry.2)/>\n"
            svg += "<text x=\"\(n(legendX + 26))\" y=\"\(n(y + 4))\">\(xmlEscaped(entry.0))</text>\n"
        }
        if disagreeing {
            let y = top + 8 + Double(entries.count) * 18
            svg += "<path d=\"M\(n(legendX + 10)) \(n(y - 5)) L\(n(legendX + 5)) \(n(y + 4)) L\(n(legendX + 15)) \(n(y + 4)) Z\" fill=\"#888\" stroke=\"#333\" stroke-width=\"0.5\"/>\n"
            svg += "<text x=\"\(n(legendX + 26))\" y=\"\(n(y + 4))\">visibility differs</text>\n"
        }
        svg += "</g>\n</svg>\n"
        return svg
    }

    /// A linear axis widened to round tick values (steps of 1, 2 or 5 × 10ᵏ, about five of them).
    struct Axis {
        let low: Double
        let high: Double
        let step: Double

        init(low: Double, high: Double) {
            var low = low, high = high
            if high - low < 1e-9 { low -= 0.5; high += 0.5 }
            let rough = (high - low) / 5
            let magnitude = pow(10, floor(log10(rough)))
            let fraction = rough / magnitude
            step = (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * magnitude
            self.low = floor(low / step) * step
            self.high = ceil(high / step) * step
        }

        var ticks: [Double] {
            let count = Int(clamping: (high - low) / step, rounding: .toNearestOrAwayFromZero, to: 0...100)
            return (0...count).map { low + Double($0) * step }
        }

        func label(_ value: Double) -> String {
            let decimals = Int(clamping: -floor(log10(step)), to: 0...17)
            // Ticks are sums of steps: snap values a rounding error away from 0 to 0 (no "-0.0").
            return String(format: "%.\(decimals)f", abs(value) < step * 1e-6 ? 0 : value)
        }
    }
}
