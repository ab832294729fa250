import Foundation

/// A parsed JSON value that remembers the line it started on, so errors in sidecars and scene
/// files can name the line. Numbers are parsed with `Double(String)`, which rounds correctly,
/// so `0.1` in a file is exactly the `Double` nearest 0.1.
public struct JSONNode: Sendable {
    /// What the value is, in JSON's kinds.
    public enum Value: Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONNode])
        /// Members in file order (duplicate keys are rejected by the reader).
        case object([(key: String, value: JSONNode)])
    }

    /// The value itself.
    public var value: Value
    /// 1-based line of the value's first character.
    public var line: Int

    /// The member named `key` of an object, `nil` for absent keys and non-objects.
    subscript(key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    package var number: Double? { if case .number(let n) = value { n } else { nil } }
    package var string: String? { if case .string(let s) = value { s } else { nil } }
    package var bool: Bool? { if case .bool(let b) = value { b } else { nil } }
    package var array: [JSONNode]? { if case .array(let a) = value { a } else { nil } }
    package var members: [(key: String, value: JSONNode)]? { if case .object(let m) = value { m } else { nil } }

    /// An array of exactly `count` numbers.
    package func numbers(count: Int) -> [Double]? {
        guard let items = array, items.count == count else { return nil }
        let values = items.compactMap(\.number)
        return values.count == count ? values : nil
    }

    /// A whole number that fits an `Int` (written `12` or `12.0`).
    package var integer: Int? {
        guard let n = number, n.rounded() == n, abs(n) < 1e15 else { return nil }
        return Int(n)
    }
}

/// Why a JSON text could not be read, and on which line.
public struct JSONSyntaxError: Error, Sendable {
    /// 1-based line where reading stopped.
    public var line: Int
    /// What was wrong there (`duplicate key "x"`, `expected ',' or '}'`, …).
    public var message: String
}

/// A strict RFC 8259 reader: no comments, no trailing commas, no NaN, no duplicate keys,
/// nesting limited so hostile input cannot exhaust the stack. Every JSON input of the library
/// (pose sidecars, scenes, call manifests, layouts) is read with it; public so that a program
/// reads its own JSON inputs (`fxreplay batch`'s job specs and manifests) as strictly.
public struct JSONReader {
    private let bytes: [UInt8]
    private var index = 0
    private var line: Int
    private static let maxDepth = 256

    /// Parses `bytes` as exactly one JSON value (surrounding whitespace allowed).
    /// `firstLine` is the line number of the first byte, for JSON Lines.
    public static func parse(_ bytes: [UInt8], firstLine: Int = 1) throws(JSONSyntaxError) -> JSONNode {
        var reader = JSONReader(bytes: bytes, line: firstLine)
        reader.skipWhitespace()
        let node = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.error("unexpected text after the JSON value") }
        return node
    }

    private init(bytes: [UInt8], line: Int) {
        self.bytes = bytes
        self.line = line
    }

    private func error(_ message: String) -> JSONSyntaxError { JSONSyntaxError(line: line, message: message) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            if byte == 0x0A { line += 1 }
            index += 1
        }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONSyntaxError) {
        guard current == byte else { throw error("expected \(what)") }
        index += 1
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONNode {
        guard depth < Self.maxDepth else { throw error("nested too deeply") }
        let startLine = line
        guard let byte = current else { throw error("unexpected end of JSON") }
        let value: JSONNode.Value
        switch byte {
        case UInt8(ascii: "{"): value = try object(depth: depth)
        case UInt8(ascii: "["): value = try array(depth: depth)
        case UInt8(ascii: "\""): value = .string(try string())
        case UInt8(ascii: "t"): try literal("true"); value = .bool(true)
        case UInt8(ascii: "f"): try literal("false"); value = .bool(false)
        case UInt8(ascii: "n"): try literal("null"); value = .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try number())
        default: throw error("unexpected character '\(Character(Unicode.Scalar(byte)))'")
        }
        return JSONNode(value: value, line: startLine)
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let expected = Array(word.utf8)
        guard bytes[index...].starts(with: expected) else { throw error("invalid literal (expected \(word))") }
        index += expected.count
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONNode.Value {
        index += 1
        var members: [(key: String, value: JSONNode)] = []
        var keys: Set<String> = []  // a linear search per key would make a big object take quadratic time
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
            let key = try string()
            guard keys.insert(key).inserted else { throw error("duplicate key \"\(key)\"") }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':' after key \"\(key)\"")
            skipWhitespace()
            members.append((key, try value(depth: depth + 1)))
            skipWhitespace()
            if current == UInt8(ascii: ",") { index += 1; continue }
            try expect(UInt8(ascii: "}"), "',' or '}'")
            return .object(members)
        }
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONNode.Value {
        index += 1
        var items: [JSONNode] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            if current == UInt8(ascii: ",") { index += 1; continue }
            try expect(UInt8(ascii: "]"), "',' or ']'")
            return .array(items)
        }
    }

    private mutating func number() throws(JSONSyntaxError) -> Double {
        let start = index
        func digits(_ reader: inout JSONReader) -> Int {
            let from = reader.index
            while let byte = reader.current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { reader.index += 1 }
            return reader.index - from
        }
        if current == UInt8(ascii: "-") { index += 1 }
        let leadingZero = current == UInt8(ascii: "0")
        let integerDigits = digits(&self)
        guard integerDigits > 0, !(leadingZero && integerDigits > 1) else { throw error("invalid number") }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw error("invalid number") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw error("invalid number") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            // (A hostile number may run to megabytes: quote its start.)
            throw error("number \(text.count > 40 ? text.prefix(32) + "… (\(text.count) characters)" : text) is out of range")
        }
        return value
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        index += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = current else { throw error("unterminated string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else { throw error("string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &utf8)
            case 0..<0x20:
                throw error("control character in string (escape it)")
            default:
                utf8.append(byte)
            }
        }
    }

    private mutating func escape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        guard let byte = current else { throw error("unterminated string") }
        index += 1
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
            UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
        ]
        if let replacement = simple[byte] { utf8.append(replacement); return }
        guard byte == UInt8(ascii: "u") else { throw error("invalid escape in string") }
        var scalar = try hex4()
        if (0xD800..<0xDC00).contains(scalar) {
            guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("unpaired surrogate in string")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in string") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw error("unpaired surrogate in string") }
        utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        let digits = bytes[min(index, bytes.count)..<min(index + 4, bytes.count)]
        guard digits.count == 4, digits.allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
              let value = UInt32(String(decoding: digits, as: UTF8.self), radix: 16) else {
            throw error("invalid \\u escape in string")
        }
        index += 4
        return value
    }
}

/// Writing numbers and strings for the JSON and CSV files fxreplay produces.
public enum TextNumber {
    /// Shortest text that reads back as exactly `value` (a JSON number; never NaN or infinite here).
    static func exact(_ value: Double) -> String { value.description }

    /// Shortest text that reads back, through a `Double`, as exactly the float32 `value`.
    /// Used for values that came from pose32, so pose32 → text → pose32 is bit-exact.
    static func exact(_ value: Float) -> String {
        let short = value.description
        if let parsed = Double(short), Float(parsed) == value { return short }
        return Double(value).description
    }

    /// Fixed-point text with `decimals` digits, halves rounded away from zero (0.25 → 0.3), never
    /// "-0.000": numbers as the library's reports and files write them.
    public static func fixed(_ value: Double, decimals: Int) -> String {
        // Integer formatting: String(format:) dominates writing a long track.
        if (0...9).contains(decimals), value.isFinite {
            var scale: Int64 = 1
            for _ in 0..<decimals { scale *= 10 }
            let scaled = (value * Double(scale)).rounded()
            if abs(scaled) < 9e15 {
                let magnitude = Int64(abs(scaled))
                var text = scaled < 0 && magnitude != 0 ? "-" : ""
                text += String(magnitude / scale)
                if decimals > 0 { text += "." + String(magnitude % scale).leftPadded(to: decimals) }
                return text
            }
        }
        let text = String(format: "%.\(decimals)f", value)
        if text.hasPrefix("-"), !text.contains(where: { $0 >= "1" && $0 <= "9" }) { return String(text.dropFirst()) }
        return text
    }

    /// A JSON string literal.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A CSV field, quoted when it holds a comma, quote or line break (RFC 4180).
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Writes `data` so that `path` is either the complete file or untouched (temporary file, then rename).
func writeFileAtomically(_ data: Data, to path: String) throws(ReplayError) {
    try AtomicOutput.write(data, to: FilePath(path))
}
