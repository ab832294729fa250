import Foundation

/// A plain-text table with aligned columns: text left-aligned, numbers right-aligned.
package struct TextTable: Sendable {
    package var headers: [String]
    package var rows: [[String]]

    package init(headers: [String], rows: [[String]]) {
        self.headers = headers
        self.rows = rows
    }

    package func render() -> String {
        let columns = headers.count
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.prefix(columns).enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        // A column is numeric when every non-empty, non-dash cell reads as a number.
        let numeric = (0..<columns).map { index in
            rows.allSatisfy { row in
                index >= row.count || row[index] == "-" || row[index].isEmpty || Double(row[index]) != nil
            }
        }
        func line(_ cells: [String]) -> String {
            (0..<columns).map { index in
                let cell = index < cells.count ? cells[index] : ""
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                return numeric[index] ? pad + cell : cell + pad
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n") + "\n"
    }
}

/// A picture shown in an HTML report (worst-frame thumbnails): a caption and the image file's path,
/// or the PNG itself for a self-contained page.
public struct QAThumbnail: Sendable, Equatable {
    /// The caption under the picture (the frame, its time, what it shows).
    public var label: String
    /// The PNG's path; the page links it relative to its own folder.
    public var path: FilePath
    /// The PNG's bytes, shown as a `data:` URI instead of referencing `path`.
    public var inline: Data?

    /// A picture captioned `label` at `path`, or inlined from `inline` when given.
    public init(label: String, path: FilePath, inline: Data? = nil) {
        self.label = label
        self.path = path
        self.inline = inline
    }
}

/// What a QA page says about the run that made it, so a page found later explains itself: the
/// program's version, the command line and the input files.
public struct QARunInfo: Sendable, Equatable {
    /// The version of the program that made the page (`fxreplay --version`'s first line).
    public var version: String
    /// The arguments, the program's name first.
    public var commandLine: [String]
    /// The inputs, each with what it is (e.g. "A", "video"): local paths, or URLs that ``InputPolicy`` allows.
    public var inputs: [(role: String, path: String)]

    /// What a page shows about its run.
    public init(version: String, commandLine: [String], inputs: [(role: String, path: String)]) {
        self.version = version
        self.commandLine = commandLine
        self.inputs = inputs
    }

    public static func == (lhs: QARunInfo, rhs: QARunInfo) -> Bool {
        lhs.version == rhs.version && lhs.commandLine == rhs.commandLine
            && lhs.inputs.map(\.role) == rhs.inputs.map(\.role) && lhs.inputs.map(\.path) == rhs.inputs.map(\.path)
    }

    /// The command line as a POSIX shell reads it back: arguments with anything but
    /// `A-Za-z0-9_@%+=:,./-` single-quoted.
    public var shellCommand: String {
        commandLine.map { argument in
            let plain = !argument.isEmpty && argument.unicodeScalars.allSatisfy {
                CharacterSet.alphanumerics.contains($0) && $0.isASCII || "_@%+=:,./-".unicodeScalars.contains($0)
            }
            return plain ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }
}

/// A colour key entry of an HTML report: which marker colour stands for what.
public struct QALegendEntry: Sendable, Equatable {
    /// What the colour stands for (an annotation id, track A or B).
    public var label: String
    /// The marker colour.
    public var color: RGBAColor

    /// An entry saying that `color` stands for `label`.
    public init(label: String, color: RGBAColor) {
        self.label = label
        self.color = color
    }
}

/// JSON as the QA reports write it.
package enum QAOutput {
    /// JSON as fxreplay writes it: pretty, keys sorted, infinities as the strings `"inf"`/`"-inf"`.
    package static func json<T: Encodable>(_ value: T) throws(ReplayError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do {
            return try encoder.encode(value)
        } catch {
            throw .processing("cannot encode JSON: \(error)")
        }
    }

    /// The decoder matching ``json(_:)``.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(ReplayError) -> T {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try throwingReplayError(as: .badInput) { try decoder.decode(type, from: data) }
    }
}

/// A QA report that can be written as JSON, an SVG plot and an HTML page (``TrackComparisonReport``,
/// ``LatencyReport``): what `fxreplay qa … --json/--plot/--report` write.
public protocol QAReportFiles {
    /// The report as JSON.
    func json() throws(ReplayError) -> Data
    /// The error-over-time plot as a standalone SVG document.
    func svg() -> String
    /// The HTML page, referencing `thumbnails` relative to `directory` (where it will be written),
    /// with `legend` explaining their marker colours and `run` saying what made it.
    func html(thumbnails: [QAThumbnail], legend: [QALegendEntry], directory: FilePath, run: QARunInfo?) -> String
}

/// Escapes text for XML and HTML content and attribute values.
func xmlEscaped(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.count)
    for character in text {
        switch character {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&#39;"
        default: escaped.append(character)
        }
    }
    return escaped
}

/// The path of `file` relative to `directory` (both made absolute against the working directory),
/// with `..` steps where needed.
func relativePath(of file: String, from directory: String) -> String {
    let target = URL(fileURLWithPath: file).standardizedFileURL.pathComponents
    let base = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL.pathComponents
    var common = 0
    while common < target.count - 1, common < base.count, target[common] == base[common] { common += 1 }
    let ups = Array(repeating: "..", count: base.count - common)
    return (ups + target[common...]).joined(separator: "/")
}

/// A self-contained HTML page: headings, paragraphs, tables, inline SVG and referenced images.
package struct HTMLReport: Sendable {
    private var body: [String] = []
    private let title: String

    package init(title: String) {
        self.title = title
        body.append("<h1>\(xmlEscaped(title))</h1>")
    }

    package mutating func heading(_ text: String) {
        body.append("<h2>\(xmlEscaped(text))</h2>")
    }

    package mutating func paragraph(_ text: String, failing: Bool = false) {
        body.append(failing ? "<p class=\"fail\">\(xmlEscaped(text))</p>" : "<p>\(xmlEscaped(text))</p>")
    }

    /// A table; rows whose index is in `failingRows` are highlighted.
    package mutating func table(_ table: TextTable, failingRows: Set<Int> = []) {
        var html = "<table>\n<thead><tr>" + table.headers.map { "<th>\(xmlEscaped($0))</th>" }.joined() + "</tr></thead>\n<tbody>\n"
        for (index, row) in table.rows.enumerated() {
            html += failingRows.contains(index) ? "<tr class=\"fail\">" : "<tr>"
            html += row.map { "<td>\(xmlEscaped($0))</td>" }.joined() + "</tr>\n"
        }
        body.append(html + "</tbody>\n</table>")
    }

    /// An SVG document inline.
    package mutating func svg(_ svg: String) {
        body.append("<figure class=\"plot\">\n\(svg)</figure>")
    }

    /// The verdict in a box of its own (green on a pass, red on a failure), with its reasons under it.
    package mutating func verdict(_ lines: [String], passed: Bool?) {
        guard let first = lines.first else { return }
        let kind = passed.map { $0 ? "pass" : "fail" } ?? "none"
        body.append("<div class=\"verdict \(kind)\"><p><strong>\(xmlEscaped(first))</strong></p>"
            + lines.dropFirst().map { "<p>\(xmlEscaped($0.trimmingCharacters(in: .whitespaces)))</p>" }.joined() + "</div>")
    }

    /// A two-column table of names and values (thresholds, the run's facts).
    package mutating func facts(_ heading: String, _ rows: [(name: String, value: String)], monospaced: Set<String> = []) {
        guard !rows.isEmpty else { return }
        body.append("<h2>\(xmlEscaped(heading))</h2>\n<table class=\"facts\">\n" + rows.map { row in
            let value = monospaced.contains(row.name) ? "<code>\(xmlEscaped(row.value))</code>" : xmlEscaped(row.value)
            return "<tr><th>\(xmlEscaped(row.name))</th><td>\(value)</td></tr>\n"
        }.joined() + "</table>")
    }

    /// The run's version, inputs and command line.
    package mutating func run(_ run: QARunInfo?) {
        guard let run else { return }
        facts("Run", run.inputs.map { (name: "input \($0.role)", value: $0.path) }
              + [(name: "fxreplay", value: run.version), (name: "command line", value: run.shellCommand)],
              monospaced: ["command line"])
    }

    /// A colour key: a swatch and a label per entry.
    package mutating func legend(_ entries: [QALegendEntry]) {
        guard !entries.isEmpty else { return }
        body.append("<p class=\"legend\">" + entries.map { entry in
            "<span class=\"swatch\" style=\"background:\(entry.color)\"></span> \(xmlEscaped(entry.label))"
        }.joined(separator: " &#160; ") + "</p>")
    }

    /// Images referenced by paths relative to `directory`, where the HTML file will be written.
    package mutating func images(_ thumbnails: [QAThumbnail], relativeTo directory: FilePath) {
        guard !thumbnails.isEmpty else { return }
        var html = "<div class=\"thumbnails\">\n"
        for thumbnail in thumbnails {
            let href: String
            if let inline = thumbnail.inline {
                href = "data:image/png;base64," + inline.base64EncodedString()
            } else {
                let relative = relativePath(of: thumbnail.path.string, from: directory.string)
                href = relative.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? relative
            }
            html += "<figure><img src=\"\(xmlEscaped(href))\" alt=\"\(xmlEscaped(thumbnail.label))\">"
                + "<figcaption>\(xmlEscaped(thumbnail.label))</figcaption></figure>\n"
        }
        body.append(html + "</div>")
    }

    package func render() -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <link rel="icon" href="data:,">
        <title>\(xmlEscaped(title))</title>
        <style>
        body { font-family: sans-serif; margin: 2em; color: #222; }
        table { border-collapse: collapse; margin: 0.5em 0 1.2em; }
        th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: right; }
        th:first-child, td:first-child { text-align: left; }
        tr.fail td, p.fail { color: #b00020; font-weight: bold; }
        table.facts th { text-align: left; background: #f4f4f4; }
        table.facts td { text-align: left; }
        .verdict { border-left: 6px solid #888; padding: 0.2em 1em; margin: 1em 0; background: #f6f6f6; }
        .verdict p { margin: 0.3em 0; }
        .verdict.pass { border-color: #2e7d32; color: #1b5e20; }
        .verdict.fail { border-color: #b00020; color: #b00020; }
        code { white-space: pre-wrap; word-break: break-all; }
        .thumbnails figure { display: inline-block; margin: 0.5em; }
        .thumbnails figure { vertical-align: top; max-width: 360px; }
        .thumbnails img { max-width: 360px; border: 1px solid #ccc; image-rendering: pixelated; }
        .swatch { display: inline-block; width: 1em; height: 1em; vertical-align: middle; border: 1px solid #333; }
        </style>
        </head>
        <body>
        \(body.joined(separator: "\n"))
        </body>
        </html>

        """
    }
}
