import Foundation

extension PlacementTrack {
    public static let header = ["frame", "t", "id", "visible", "x", "y", "depth"]

    /// Reads and parses the CSV file at `path`.
    public static func load(path: String) throws(ReplayError) -> PlacementTrack {
        let text = try readInputText(path, limit: InputLimits.textFileBytes, kind: "placement track")
        return try parse(text, file: path)
    }

    /// Parses CSV text. Every problem is reported with the file, line and field.
    ///
    /// Rules: the header must be exactly §7's; `frame` a non-negative integer; `t` a finite number; `depth`,
    /// `x` and `y` finite numbers or empty; `visible` 0 or 1; `x` and `y` both empty or both set,
    /// and set when visible; one row per (`id`, `frame`). Fields may be quoted as in RFC 4180.
    /// Lines and rows are limited (docs/poses.md, Limits).
    public static func parse(_ text: String, file: String) throws(ReplayError) -> PlacementTrack {
        var rows: [PlacementRow] = []
        var seen: [RowKey: Int] = [:]
        var sawHeader = false
        for (rawLine, number) in lines(of: text) {
            var line = rawLine
            if number == 1, line.hasPrefix("\u{FEFF}") { line = line.dropFirst() }
            if line.allSatisfy(\.isWhitespace) { continue }
            try checkLineLength(line.utf8, file: file, number: number)
            let fields = try splitCSV(line, file: file, line: number)
            guard sawHeader else {
                guard fields == header else {
                    throw .badInput(file: file, line: number, "expected the header \"\(header.joined(separator: ","))\"")
                }
                sawHeader = true
                continue
            }
            guard rows.count < InputLimits.trackRows else {
                throw .badInput(file: file, line: number, "more than \(InputLimits.trackRows) rows (see docs/poses.md, Limits)")
            }
            let row = try parseRow(fields, file: file, line: number)
            let key = RowKey(id: row.id, frame: row.frame)
            if let earlier = seen[key] {
                throw .badInput(file: file, line: number, field: "frame",
                                "annotation \"\(row.id)\" already has a row for frame \(row.frame) (line \(earlier))")
            }
            seen[key] = number
            rows.append(row)
        }
        guard sawHeader else { throw .badInput(file: file, "empty placement track: no header line") }
        return PlacementTrack(file: file, rows: rows)
    }

    private struct RowKey: Hashable {
        var id: String
        var frame: Int
    }

    private static func parseRow(_ fields: [String], file: String, line: Int) throws(ReplayError) -> PlacementRow {
        guard fields.count == header.count else {
            throw .badInput(file: file, line: line, "expected \(header.count) fields, found \(fields.count)")
        }
        func number(_ index: Int) throws(ReplayError) -> Double {
            guard let value = Double(fields[index]), value.isFinite else {
                throw .badInput(file: file, line: line, field: header[index], "expected a number, found \"\(fields[index])\"")
            }
            return value
        }
        func optionalNumber(_ index: Int) throws(ReplayError) -> Double? {
            fields[index].isEmpty ? nil : try number(index)
        }
        guard let frame = Int(fields[0]), frame >= 0 else {
            throw .badInput(file: file, line: line, field: "frame", "expected a frame number, found \"\(fields[0])\"")
        }
        let t = try number(1)
        let id = fields[2]
        guard !id.isEmpty else { throw .badInput(file: file, line: line, field: "id", "empty annotation id") }
        guard fields[3] == "0" || fields[3] == "1" else {
            throw .badInput(file: file, line: line, field: "visible", "expected 0 or 1, found \"\(fields[3])\"")
        }
        let visible = fields[3] == "1"
        let x = try optionalNumber(4), y = try optionalNumber(5)
        guard (x == nil) == (y == nil) else {
            throw .badInput(file: file, line: line, field: x == nil ? "x" : "y", "x and y must both be set or both be empty")
        }
        if visible, x == nil {
            throw .badInput(file: file, line: line, field: "x", "a visible anchor needs x and y")
        }
        // Empty on frames without a pose (the `hide` policy), as `fxreplay track` writes them.
        let depth = try optionalNumber(6)
        if visible, depth == nil {
            throw .badInput(file: file, line: line, field: "depth", "a visible anchor needs a depth")
        }
        return PlacementRow(frame: frame, t: t, id: id, visible: visible, x: x, y: y, depth: depth, line: line)
    }

    /// Splits one CSV record; a field in double quotes may hold commas and `""` for a quote.
    private static func splitCSV(_ line: Substring, file: String, line number: Int) throws(ReplayError) -> [String] {
        var fields: [String] = []
        var current = ""
        var index = line.startIndex
        var quoted = false
        var fieldStart = true
        while index < line.endIndex {
            let character = line[index]
            if quoted {
                if character == "\"" {
                    let next = line.index(after: index)
                    if next < line.endIndex, line[next] == "\"" {
                        current.append("\"")
                        index = next
                    } else {
                        quoted = false
                    }
                } else {
                    current.append(character)
                }
            } else if character == "," {
                fields.append(current)
                current = ""
                fieldStart = true
                index = line.index(after: index)
                continue
            } else if character == "\"" && fieldStart && current.isEmpty {
                quoted = true
            } else {
                current.append(character)
            }
            fieldStart = false
            index = line.index(after: index)
        }
        guard !quoted else {
            throw .badInput(file: file, line: number, field: header[min(fields.count, header.count - 1)], "unterminated quoted field")
        }
        fields.append(current)
        return fields
    }
}
