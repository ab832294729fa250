import Foundation
import ReplayKitless

/// One row of a batch manifest: a recording, where its output goes, and its own render options.
package struct ManifestRow: Sendable, Equatable {
    /// The input exactly as written in the manifest.
    package var input: String
    /// The output as written, when the row gives one.
    package var output: String?
    /// Every other column or key: a render option for this recording only.
    package var options: [JobOption]
    package var line: Int
}

/// Reads batch manifests: CSV with a header row, or JSON Lines (`.jsonl`, `.ndjson`, or any file
/// whose first character is `{`). Columns/keys: `input` (required), `output` (optional), and any
/// render option name. In CSV an empty cell leaves the option unset and `true`/`false` pass or
/// omit a flag; in JSONL values are typed as in a job spec and `null` leaves the option unset.
package enum Manifest {
    package static func load(_ path: String) throws(ReplayError) -> [ManifestRow] {
        let text = try readInputText(FilePath(path), limit: InputLimits.manifestBytes, kind: "manifest")
        let lower = path.lowercased()
        let isJSONLines = lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson")
            || text.first(where: { !$0.isWhitespace }) == "{"
        let rows = isJSONLines ? try parseJSONLines(text, file: path) : try parseCSV(text, file: path)
        if rows.isEmpty { throw .badInput(file: path, "lists no recordings") }
        return rows
    }

    /// Parses JSON Lines: one object per line; blank lines are skipped.
    package static func parseJSONLines(_ text: String, file: String) throws(ReplayError) -> [ManifestRow] {
        var rows: [ManifestRow] = []
        for (bytes, number) in lines(of: Array(text.utf8)) {
            let line = String(decoding: bytes, as: UTF8.self)
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            guard case .map(let entries) = try RawValue.json(line, file: file, line: number) else {
                throw .badInput(file: file, line: number, "each line must be a JSON object with at least \"input\"")
            }
            var cells: [(String, RawValue)] = []
            for entry in entries { cells.append((entry.key, entry.value)) }
            rows.append(try row(cells, file: file, line: number))
        }
        return rows
    }

    /// Parses CSV (RFC 4180 quoting, `,` separated) with a header row.
    package static func parseCSV(_ text: String, file: String) throws(ReplayError) -> [ManifestRow] {
        let records = try CSVReader.records(text, file: file)
        guard let header = records.first else { return [] }
        let names = header.cells.map { $0.trimmingCharacters(in: .whitespaces) }
        var seen: Set<String> = []  // not a search of the names before each: a wide header would take quadratic time
        for name in names where name.isEmpty || !seen.insert(name).inserted {
            throw .badInput(file: file, line: header.line, field: name, name.isEmpty ? "a column has no name" : "column named twice")
        }
        guard names.contains("input") else {
            throw .badInput(file: file, line: header.line, "the header row has no 'input' column")
        }
        var rows: [ManifestRow] = []
        for record in records.dropFirst() {
            guard record.cells.count == names.count else {
                throw .badInput(file: file, line: record.line, "\(record.cells.count) cells, but the header has \(names.count) columns")
            }
            let cells = zip(names, record.cells).map { name, cell -> (String, RawValue) in
                switch cell.lowercased() {
                case "": (name, .null)
                case "true": (name, .bool(true))
                case "false": (name, .bool(false))
                default: (name, .scalar(cell))
                }
            }
            rows.append(try row(cells, file: file, line: record.line))
        }
        return rows
    }

    private static func row(_ cells: [(String, RawValue)], file: String, line: Int) throws(ReplayError) -> ManifestRow {
        var input: String?
        var output: String?
        var options: [JobOption] = []
        for (key, value) in cells {
            switch key {
            case "input":
                guard case .scalar(let text) = value, !text.isEmpty else {
                    throw .badInput(file: file, line: line, field: "input", "must name a recording")
                }
                input = text
            case "output":
                switch value {
                case .null: break
                case .scalar(let text): output = text
                default: throw .badInput(file: file, line: line, field: "output", "must be a file name")
                }
            default:
                if let option = try JobOption(key: key, raw: value, file: file, line: line, nullAllowed: true) {
                    options.append(option)
                }
            }
        }
        guard let input else { throw .badInput(file: file, line: line, field: "input", "missing") }
        return ManifestRow(input: input, output: output, options: options.sorted { $0.key < $1.key }, line: line)
    }
}

/// A small RFC 4180 reader: quoted cells may hold commas, quotes (doubled) and newlines.
private enum CSVReader {
    struct Record {
        var cells: [String]
        var line: Int
    }

    static func records(_ text: String, file: String) throws(ReplayError) -> [Record] {
        var records: [Record] = []
        var cells: [String] = []
        var cell = ""
        var quoted = false
        var wasQuoted = false
        var line = 1
        var recordLine = 1
        var iterator = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil

        func endCell() {
            cells.append(wasQuoted ? cell : cell.trimmingCharacters(in: .whitespaces))
            cell = ""
            wasQuoted = false
        }
        func endRecord() {
            endCell()
            if !(cells.count == 1 && cells[0].isEmpty) { records.append(Record(cells: cells, line: recordLine)) }
            cells = []
        }
        while let scalar = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if scalar == "\"" {
                    let next = iterator.next()
                    if next == "\"" { cell.unicodeScalars.append("\"") } else { quoted = false; pending = next }
                } else {
                    if scalar == "\n" { line += 1 }
                    cell.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where cell.allSatisfy(\.isWhitespace):
                cell = ""
                quoted = true
                wasQuoted = true
            case ",":
                endCell()
            case "\r":
                break
            case "\n":
                endRecord()
                line += 1
                recordLine = line
            default:
                cell.unicodeScalars.append(scalar)
            }
        }
        if quoted { throw .badInput(file: file, line: recordLine, "a quoted cell is not closed") }
        endRecord()
        return records
    }
}
