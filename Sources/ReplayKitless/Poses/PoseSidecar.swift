import Foundation

/// The pose sidecar formats of formats.md §3, chosen by file extension.
public enum PoseSidecarFormat: String, Sendable, CaseIterable {
    /// JSON Lines (`.jsonl`, also `.ndjson`).
    case jsonl
    /// CSV with a header row (`.csv`).
    case csv
    /// Consecutive 32-byte pose32 records, one per frame in presentation order (`.pose32`).
    case pose32

    /// The format for `path`'s extension; a usage error for any other extension.
    public init(path: FilePath) throws(ReplayError) {
        switch URL(fileURLWithPath: path.string).pathExtension.lowercased() {
        case "jsonl", "ndjson": self = .jsonl
        case "csv": self = .csv
        case "pose32": self = .pose32
        default:
            throw ReplayError.usage("\(path): unknown pose file type; use a .jsonl, .csv or .pose32 file")
        }
    }
}

/// Reading and writing pose sidecar files (formats.md §3).
///
/// JSON Lines records: `t` (seconds) or `frame` (0-based index; `t` wins when both are given);
/// `position` + `euler` (3 numbers each) or `transform` (16 numbers, column-major camera-to-world,
/// used only when `position`/`euler` are absent); `zNear`; `fovY` and/or `intrinsics`
/// `{"fx","fy","cx","cy"}` (intrinsics win in the projection). Unknown keys and blank lines are ignored.
///
/// CSV: a header row naming the columns in any order (case-insensitive): `t` or `frame`,
/// `px, py, pz, pitch, yaw, roll, znear, fovy`. Extension: optional `fx, fy, cx, cy` columns
/// (all four or none); with them `fovy` may be left empty on rows that fill in the intrinsics.
/// Unknown columns and blank lines are ignored; an empty cell counts as absent.
///
/// Errors name the file, the line (the record for `.pose32`) and the field.
public enum PoseSidecar {
    /// Reads the sidecar at `path`, its format chosen by extension.
    public static func read(path: FilePath) throws(ReplayError) -> [PoseSample] {
        let format = try PoseSidecarFormat(path: path)
        let path = path.string
        let limit = format == .pose32 ? InputLimits.poseSamples * Pose32.byteCount : InputLimits.textFileBytes
        let samples = try parse(try readInputFile(path, limit: limit, kind: "pose sidecar", isText: format != .pose32),
                                format: format, file: FilePath(path))
        guard !samples.isEmpty else { throw ReplayError.badInput(file: path, "the pose sidecar holds no poses") }
        return samples
    }

    /// Parses sidecar bytes; `file` names the source in error messages.
    public static func parse(_ bytes: [UInt8], format: PoseSidecarFormat, file path: FilePath) throws(ReplayError) -> [PoseSample] {
        let file = path.string
        return switch format {
        case .jsonl: try parseJSONLines(bytes, file: file)
        case .csv: try parseCSV(bytes, file: file)
        case .pose32: try parsePose32(bytes, file: file)
        }
    }

    /// Writes `samples` to `path` (complete or not at all), format by extension unless given.
    public static func write(_ samples: [PoseSample], to path: FilePath, format: PoseSidecarFormat? = nil) throws(ReplayError) {
        let chosen = if let format { format } else { try PoseSidecarFormat(path: path) }
        let bytes = try encode(samples, format: chosen)
        try writeFileAtomically(Data(bytes), to: path.string)
    }

    /// The file contents for `samples`. pose32 writes the samples in the order given, ignoring their
    /// keys, and needs every sample to have a `fovY`. JSON Lines and CSV need finite values (only
    /// pose32 can hold NaN or infinity, in zNear and fovY).
    public static func encode(_ samples: [PoseSample], format: PoseSidecarFormat) throws(ReplayError) -> [UInt8] {
        if format != .pose32, let sample = samples.first(where: { !$0.isFinite }) {
            throw ReplayError.badInput("the pose at \(sample.key) has a value that is not a finite number, which "
                                       + "\(format == .csv ? "CSV" : "JSON") cannot hold; write .pose32 instead")
        }
        return switch format {
        case .jsonl: Array(samples.map(jsonLine).joined().utf8)
        case .csv: Array(csv(samples).utf8)
        case .pose32: try throwingReplayError { try samples.flatMap { sample -> [UInt8] in
            guard let record = sample.pose32 else {
                throw ReplayError.badInput("the pose at \(sample.key) has intrinsics but no fovY, and pose32 can only "
                                           + "carry fovY; add fovY to the sidecar")
            }
            return record.bytes
        } }
        }
    }

    // MARK: pose32

    private static func parsePose32(_ bytes: [UInt8], file: String) throws(ReplayError) -> [PoseSample] {
        let count = bytes.count / Pose32.byteCount
        guard bytes.count % Pose32.byteCount == 0 else {
            throw ReplayError.badInput(file: file, field: "record \(count)",
                                       "truncated: the file is \(bytes.count) bytes, not a multiple of 32")
        }
        guard count <= InputLimits.poseSamples else { throw tooManyPoses(file: file, line: nil) }
        return try (0..<count).map { (index) throws(ReplayError) -> PoseSample in
            let start = index * Pose32.byteCount
            guard let record = Pose32(bytes: bytes[start..<start + Pose32.byteCount]) else {
                throw ReplayError.badInput(file: file, field: "record \(index)", "truncated record")
            }
            // zNear and fovY are checked after overrides (PoseTimeline): a bad fovY may be overridden.
            if let bad = record.values.prefix(6).firstIndex(where: { !$0.isFinite }) {
                throw ReplayError.badInput(file: file, field: "record \(index), \(Pose32.fieldNames[bad])",
                                           "not a finite number")
            }
            return PoseSample(key: .frame(index), pose32: record)
        }
    }

    // MARK: JSON Lines

    private static func tooManyPoses(file: String, line: Int?) -> ReplayError {
        ReplayError.badInput(file: file, line: line, "more than \(InputLimits.poseSamples) poses (see docs/poses.md, Limits)")
    }

    private static func parseJSONLines(_ bytes: [UInt8], file: String) throws(ReplayError) -> [PoseSample] {
        var samples: [PoseSample] = []
        for (rawLine, line) in lines(of: bytes) {
            try checkLineLength(rawLine, file: file, number: line)
            if rawLine.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            guard samples.count < InputLimits.poseSamples else { throw tooManyPoses(file: file, line: line) }
            let node: JSONNode
            do {
                node = try JSONReader.parse(Array(rawLine), firstLine: line)
            } catch {
                throw ReplayError.badInput(file: file, line: line, "not valid JSON: \(error.message)")
            }
            samples.append(try jsonRecord(node, file: file, line: line))
        }
        return samples
    }

    private static func jsonRecord(_ node: JSONNode, file: String, line: Int) throws(ReplayError) -> PoseSample {
        func fail(_ field: String, _ message: String) -> ReplayError {
            ReplayError.badInput(file: file, line: line, field: field, message)
        }
        guard node.members != nil else { throw fail("record", "each line must be a JSON object") }
        func number(_ key: String, in object: JSONNode = node) throws(ReplayError) -> Double? {
            guard let value = object[key] else { return nil }
            guard let n = value.number else { throw fail(key, "expected a number") }
            return n
        }
        func vector(_ key: String) throws(ReplayError) -> SIMD3<Double>? {
            guard let value = node[key] else { return nil }
            guard let v = value.numbers(count: 3) else { throw fail(key, "expected an array of 3 numbers") }
            return SIMD3(v[0], v[1], v[2])
        }

        let key: PoseSample.Key
        if let t = try number("t") {
            key = .time(t)
        } else if let frame = node["frame"] {
            guard let index = frame.integer, (0...InputLimits.frameIndex).contains(index) else {
                throw fail("frame", "expected a frame index from 0 to \(InputLimits.frameIndex)")
            }
            key = .frame(index)
        } else {
            throw fail("t", "missing (give \"t\" in seconds or \"frame\")")
        }

        let position: SIMD3<Double>, euler: SIMD3<Double>
        if let p = try vector("position") {
            guard let e = try vector("euler") else { throw fail("euler", "missing (\"position\" needs \"euler\")") }
            (position, euler) = (p, e)
        } else if let transform = node["transform"] {
            guard let m = transform.numbers(count: 16) else { throw fail("transform", "expected an array of 16 numbers") }
            guard let pose = rigidTransform(m) else {
                throw fail("transform", "not a camera-to-world rigid transform (column-major 4×4 with a rotation in "
                                        + "its upper 3×3 and 0 0 0 1 as its last row)")
            }
            (position, euler) = (pose.position, pose.euler)
        } else if node["euler"] != nil {
            throw fail("position", "missing (\"euler\" needs \"position\")")
        } else {
            throw fail("position", "missing (give \"position\" and \"euler\", or \"transform\")")
        }

        guard let zNear = try number("zNear") else { throw fail("zNear", "missing") }
        let fovY = try number("fovY")
        var intrinsics: Intrinsics?
        if let object = node["intrinsics"] {
            guard object.members != nil else { throw fail("intrinsics", "expected an object {\"fx\", \"fy\", \"cx\", \"cy\"}") }
            var values: [Double] = []
            for name in ["fx", "fy", "cx", "cy"] {
                guard let value = try number(name, in: object) else { throw fail("intrinsics.\(name)", "missing") }
                values.append(value)
            }
            intrinsics = Intrinsics(fx: values[0], fy: values[1], cx: values[2], cy: values[3])
        }
        guard fovY != nil || intrinsics != nil else { throw fail("fovY", "missing (give \"fovY\" or \"intrinsics\")") }
        return PoseSample(key: key, position: position, euler: euler, zNear: zNear, fovY: fovY,
                          intrinsics: intrinsics, line: line)
    }

    /// Position and rotation from a column-major 4×4 camera-to-world matrix, or `nil` when it is not rigid.
    static func rigidTransform(_ m: [Double]) -> Pose? {
        let r = Matrix3(columns: ([m[0], m[1], m[2]], [m[4], m[5], m[6]], [m[8], m[9], m[10]]))
        let tolerance = 1e-3
        guard abs(m[3]) < tolerance, abs(m[7]) < tolerance, abs(m[11]) < tolerance, abs(m[15] - 1) < tolerance else {
            return nil
        }
        let product = r.transposed * r
        for row in 0..<3 {
            for column in 0..<3 where abs(product[row, column] - (row == column ? 1 : 0)) > tolerance { return nil }
        }
        let (a, b, c) = r.columns
        let determinant = (a.y * b.z - a.z * b.y) * c.x + (a.z * b.x - a.x * b.z) * c.y + (a.x * b.y - a.y * b.x) * c.z
        guard determinant > 0 else { return nil }
        return Pose(position: [m[12], m[13], m[14]], rotation: r, zNear: 0, fovY: 0)
    }

    private static func number(_ value: Double, float: Bool) -> String {
        float ? TextNumber.exact(Float(value)) : TextNumber.exact(value)
    }

    private static func jsonLine(_ sample: PoseSample) -> String {
        func n(_ value: Double) -> String { number(value, float: sample.isFloat32) }
        func triple(_ v: SIMD3<Double>) -> String { "[\(n(v.x)), \(n(v.y)), \(n(v.z))]" }
        var line = switch sample.key {
        case .time(let t): "{\"t\": \(TextNumber.exact(t))"
        case .frame(let index): "{\"frame\": \(index)"
        }
        line += ", \"position\": \(triple(sample.position)), \"euler\": \(triple(sample.euler)), \"zNear\": \(n(sample.zNear))"
        if let fovY = sample.fovY { line += ", \"fovY\": \(n(fovY))" }
        if let k = sample.intrinsics {
            line += ", \"intrinsics\": {\"fx\": \(n(k.fx)), \"fy\": \(n(k.fy)), \"cx\": \(n(k.cx)), \"cy\": \(n(k.cy))}"
        }
        return line + "}\n"
    }

    // MARK: CSV

    private static let poseColumns = ["px", "py", "pz", "pitch", "yaw", "roll", "znear"]
    private static let intrinsicsColumns = ["fx", "fy", "cx", "cy"]

    private static func csv(_ samples: [PoseSample]) -> String {
        let hasTime = samples.contains { if case .time = $0.key { true } else { false } }
        let hasFrame = samples.contains { if case .frame = $0.key { true } else { false } }
        let hasIntrinsics = samples.contains { $0.intrinsics != nil }
        var header = (hasTime || !hasFrame ? ["t"] : []) + (hasFrame ? ["frame"] : []) + poseColumns + ["fovy"]
        if hasIntrinsics { header += intrinsicsColumns }
        var text = header.joined(separator: ",") + "\n"
        for sample in samples {
            func n(_ value: Double) -> String { number(value, float: sample.isFloat32) }
            var cells: [String] = []
            switch sample.key {
            case .time(let t): cells = [TextNumber.exact(t)] + (hasFrame ? [""] : [])
            case .frame(let index): cells = (hasTime ? [""] : []) + [String(index)]
            }
            cells += [sample.position.x, sample.position.y, sample.position.z,
                      sample.euler.x, sample.euler.y, sample.euler.z, sample.zNear].map(n)
            cells.append(sample.fovY.map(n) ?? "")
            if hasIntrinsics {
                let k = sample.intrinsics
                cells += [k?.fx, k?.fy, k?.cx, k?.cy].map { $0.map(n) ?? "" }
            }
            text += cells.joined(separator: ",") + "\n"
        }
        return text
    }

    private static func parseCSV(_ bytes: [UInt8], file: String) throws(ReplayError) -> [PoseSample] {
        var columns: [String: Int]?
        var columnCount = 0
        var samples: [PoseSample] = []
        for (rawLine, line) in lines(of: bytes) {
            try checkLineLength(rawLine, file: file, number: line)
            guard let content = String(validating: rawLine.last == 0x0D ? rawLine.dropLast() : rawLine, as: UTF8.self) else {
                throw ReplayError.badInput(file: file, line: line, "not UTF-8 text")
            }
            if content.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            guard let fields = splitCSVLine(content) else {
                throw ReplayError.badInput(file: file, line: line, "unbalanced quotes")
            }
            guard let header = columns else {
                guard fields.count <= InputLimits.csvColumns else {
                    throw ReplayError.badInput(file: file, line: line,
                                               "more than \(InputLimits.csvColumns) columns (see docs/poses.md, Limits)")
                }
                columns = try csvHeader(fields, file: file, line: line)
                columnCount = fields.count
                continue
            }
            guard fields.count == columnCount else {
                throw ReplayError.badInput(file: file, line: line,
                                           "expected \(columnCount) fields like the header, found \(fields.count)")
            }
            guard samples.count < InputLimits.poseSamples else { throw tooManyPoses(file: file, line: line) }
            samples.append(try csvRecord(fields, columns: header, file: file, line: line))
        }
        guard columns != nil else { throw ReplayError.badInput(file: file, line: 1, "empty file: a header row is required") }
        return samples
    }

    private static func csvHeader(_ fields: [String], file: String, line: Int) throws(ReplayError) -> [String: Int] {
        let known = Set(["t", "frame", "fovy"] + poseColumns + intrinsicsColumns)
        var columns: [String: Int] = [:]
        for (index, field) in fields.enumerated() {
            let name = field.trimmingCharacters(in: .whitespaces).lowercased()
            guard known.contains(name) else { continue }
            guard columns[name] == nil else {
                throw ReplayError.badInput(file: file, line: line, field: name, "column appears twice in the header")
            }
            columns[name] = index
        }
        func missing(_ name: String, _ hint: String = "") -> ReplayError {
            ReplayError.badInput(file: file, line: line, field: name, "header has no \"\(name)\" column\(hint)")
        }
        guard columns["t"] != nil || columns["frame"] != nil else { throw missing("t", " (or \"frame\"); a header row is required") }
        if let absent = poseColumns.first(where: { columns[$0] == nil }) { throw missing(absent) }
        let intrinsicsPresent = intrinsicsColumns.filter { columns[$0] != nil }
        if !intrinsicsPresent.isEmpty, let absent = intrinsicsColumns.first(where: { columns[$0] == nil }) {
            throw missing(absent, " (fx, fy, cx, cy go together)")
        }
        if columns["fovy"] == nil, intrinsicsPresent.isEmpty { throw missing("fovy") }
        return columns
    }

    private static func csvRecord(_ fields: [String], columns: [String: Int], file: String, line: Int) throws(ReplayError) -> PoseSample {
        func fail(_ field: String, _ message: String) -> ReplayError {
            ReplayError.badInput(file: file, line: line, field: field, message)
        }
        func cell(_ name: String) -> String? {
            guard let index = columns[name] else { return nil }
            let value = fields[index].trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        func number(_ name: String) throws(ReplayError) -> Double? {
            guard let text = cell(name) else { return nil }
            guard let value = Double(decimalText: text), value.isFinite else { throw fail(name, "\"\(text)\" is not a finite number") }
            return value
        }
        func required(_ name: String) throws(ReplayError) -> Double {
            guard let value = try number(name) else { throw fail(name, "missing") }
            return value
        }

        let key: PoseSample.Key
        if let t = try number("t") {
            key = .time(t)
        } else if let text = cell("frame") {
            guard let index = Int(text), (0...InputLimits.frameIndex).contains(index) else {
                throw fail("frame", "\"\(text)\" is not a frame index from 0 to \(InputLimits.frameIndex)")
            }
            key = .frame(index)
        } else {
            throw fail(columns["t"] != nil ? "t" : "frame", "missing")
        }
        let v = try poseColumns.map(required)
        let k = try intrinsicsColumns.map(number)
        var intrinsics: Intrinsics?
        if k.contains(where: { $0 != nil }) {
            guard let fx = k[0], let fy = k[1], let cx = k[2], let cy = k[3] else {
                throw fail(intrinsicsColumns[k.firstIndex { $0 == nil } ?? 0], "missing (fx, fy, cx, cy go together)")
            }
            intrinsics = Intrinsics(fx: fx, fy: fy, cx: cx, cy: cy)
        }
        let fovY = try number("fovy")
        guard fovY != nil || intrinsics != nil else { throw fail("fovy", "missing") }
        return PoseSample(key: key, position: [v[0], v[1], v[2]], euler: [v[3], v[4], v[5]], zNear: v[6],
                          fovY: fovY, intrinsics: intrinsics, line: line)
    }

    /// Splits one CSV line into fields (RFC 4180 quoting within the line); `nil` for unbalanced quotes.
    private static func splitCSVLine(_ line: String) -> [String]? {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var iterator = line.makeIterator()
        var pending = iterator.next()
        while let character = pending {
            pending = iterator.next()
            if quoted {
                if character == "\"" {
                    if pending == "\"" { field.append("\""); pending = iterator.next() } else { quoted = false }
                } else {
                    field.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                fields.append(field)
                field = ""
            } else {
                field.append(character)
            }
        }
        guard !quoted else { return nil }
        fields.append(field)
        return fields
    }
}

private extension PoseSample {
    /// Every value is a finite number, as JSON and CSV need (pose32 can hold NaN and infinity).
    var isFinite: Bool {
        let lens = intrinsics.map { [$0.fx, $0.fy, $0.cx, $0.cy] } ?? []
        return (position.x.isFinite && position.y.isFinite && position.z.isFinite && euler.x.isFinite && euler.y.isFinite
                && euler.z.isFinite && zNear.isFinite && fovY?.isFinite != false && lens.allSatisfy(\.isFinite))
    }
}
