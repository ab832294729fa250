import Foundation

extension PlacementTrack {
    /// The CSV header of a track file (formats.md §7), in column order.
    public static let header = ["frame", "t", "id", "visible", "x", "y", "depth"]

    /// Reads and parses the track at `path`: JSON Lines for a `.jsonl` (or `.ndjson`) file, as
    /// `fxreplay track` writes it there, else CSV.
    public static func load(path: FilePath) throws(ReplayError) -> PlacementTrack {
        let text = try readInputText(path, limit: InputLimits.textFileBytes, kind: "placement track")
        let isJSONLines = ["jsonl", "ndjson"].contains(URL(fileURLWithPath: path.string).pathExtension.lowercased())
        return try isJSONLines ? parseJSONLines(text, file: path) : parse(text, file: path)
    }

    /// Parses CSV text. Every problem is reported with the file, line and field.
    ///
    /// Rules: the header must be exactly §7's; `frame` a non-negative integer; `t` a finite number; `depth`,
    /// `x` and `y` finite numbers or empty; `visible` 0 or 1; `x` and `y` both empty or both set,
    /// and set when visible; one row per (`id`, `frame`). Fields may be quoted as in RFC 4180.
    /// Lines and rows are limited (docs/limits.md).
    public static func parse(_ text: String, file path: FilePath) throws(ReplayError) -> PlacementTrack {
        let file = path.string
        var rows = RowCollector(file: file)
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
            try rows.add(fields, line: number)
        }
        guard sawHeader else { throw .badInput(file: file, "empty placement track: no header line") }
        return PlacementTrack(file: path, rows: rows.rows)
    }

    /// Parses JSON Lines: one object per row with §7's fields, `visible` a boolean (or 0/1) and
    /// missing values `null`, as `fxreplay track` writes them; the rules are the CSV's.
    public static func parseJSONLines(_ text: String, file path: FilePath) throws(ReplayError) -> PlacementTrack {
        let file = path.string
        var rows = RowCollector(file: file)
        for (line, number) in lines(of: text) {
            if line.allSatisfy(\.isWhitespace) { continue }
            try checkLineLength(line.utf8, file: file, number: number)
            let node: JSONNode
            do { node = try JSONReader.parse(Array(line.utf8), firstLine: number) } catch {
                throw .badInput(file: file, line: number, "not valid JSON: \(error.message)")
            }
            guard let members = node.members else { throw .badInput(file: file, line: number, "expected an object") }
            if let unknown = members.first(where: { !header.contains($0.key) }) {
                throw .badInput(file: file, line: number, field: unknown.key, "unknown key")
            }
            let fields = try header.map { (key: String) throws(ReplayError) -> String in
                guard let value = node[key] else { throw .badInput(file: file, line: number, field: key, "missing") }
                switch value.value {
                case .null: return ""
                case .bool(let flag): return flag ? "1" : "0"
                case .string(let text): return text
                case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
                case .array, .object: throw .badInput(file: file, line: number, field: key, "expected a number, string or null")
                }
            }
            try rows.add(fields, line: number)
        }
        return PlacementTrack(file: path, rows: rows.rows)
    }

    /// The rows read so far, refusing a second row for the same (id, frame) and more than the limit.
    private struct RowCollector {
        let file: String
        var rows: [PlacementRow] = []
        var seen: [RowKey: Int] = [:]

        init(file: String) { self.file = file }

        mutating func add(_ fields: [String], line: Int) throws(ReplayError) {
            guard rows.count < InputLimits.trackRows else {
                throw .badInput(file: file, line: line, "more than \(InputLimits.trackRows) rows (see docs/poses.md, Limits)")
            }
            let row = try parseRow(fields, file: file, line: line)
            let key = RowKey(id: row.id, frame: row.frame)
            if let earlier = seen[key] {
                throw .badInput(file: file, line: line, field: "frame",
                                "annotation \"\(row.id)\" already has a row for frame \(row.frame) (line \(earlier))")
            }
            seen[key] = line
            rows.append(row)
        }
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
            guard let value = Double(decimalText: fields[index]), value.isFinite else {
                throw .badInput(file: file, line: line, field: header[index], "expected a number, found \"\(fields[index])\"")
            }
            // Differences of two tracks' values must stay finite: 1e308 − (−1e308) is infinite. Times
            // (call or Unix times) go further than positions.
            let limit = header[index] == "t" ? InputLimits.timeSeconds : InputLimits.worldExtent
            guard abs(value) <= limit else {
                throw .badInput(file: file, line: line, field: header[index], "\(fields[index]) is out of range (at most ±\(limit == InputLimits.timeSeconds ? "1e10" : "1e9"))")
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
