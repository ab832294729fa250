import Foundation
import ReplayKitless
import Yams

/// The value a job spec or manifest row gives a render option.
package enum JobValue: Sendable, Equatable {
    /// `true` passes the flag, `false` leaves it out.
    case flag(Bool)
    /// One value: `--key=value`.
    case text(String)
    /// The option repeated once per value (an empty list passes nothing).
    case list([String])
}

/// One render option set by a job spec or a manifest row: the key is render's long option name.
package struct JobOption: Sendable, Equatable {
    /// The long option name without `--`.
    package var key: String
    package var value: JobValue
    /// The file that set it.
    package var file: String
    /// The line that set it, when known.
    package var line: Int?

    package init(key: String, value: JobValue, file: String, line: Int? = nil) {
        self.key = key
        self.value = value
        self.file = file
        self.line = line
    }

    /// The command-line arguments this option stands for. Values use the `--key=value` form so
    /// that a value starting with `-` stays a value.
    package var arguments: [String] {
        switch value {
        case .flag(let on): on ? ["--\(key)"] : []
        case .text(let text): ["--\(key)=\(text)"]
        case .list(let items): items.map { "--\(key)=\($0)" }
        }
    }

    /// Refuses a key that is not an option name (`^[A-Za-z0-9][A-Za-z0-9-]*$`): a key becomes
    /// `--KEY=…` on render's command line, so a space, `=` or leading dash would pass something else.
    package static func checkName(_ key: String, file: String, line: Int?) throws(ReplayError) {
        guard !isOptionName(key) else { return }
        let shown = key.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined()
        let dashed = key.replacingOccurrences(of: "_", with: "-")
        let hint = isOptionName(dashed) ? " (did you mean '\(dashed)'?)" : ""
        throw .badInput(file: file, line: line, field: shown,
                        "'\(shown)' is not an option name: letters, digits and dashes only, not starting with a dash\(hint)")
    }

    /// Whether `key` is letters, digits and dashes, starting with a letter or digit.
    package static func isOptionName(_ key: String) -> Bool {
        guard let first = key.utf8.first, first != UInt8(ascii: "-") else { return false }
        return key.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D }
    }

    /// A `badInput` error naming this option's file, line and key.
    package func error(_ message: String) -> ReplayError {
        .badInput(file: file, line: line, field: key, message)
    }
}

/// Everything `fxreplay render` takes, kept in a YAML or JSON file.
///
/// The keys are render's long option names without `--`, so the format never lags behind the
/// command: `true` passes a flag, `false` leaves it out, a list repeats the option, anything
/// else is the option's value. An optional `batch:` section is for `fxreplay batch` only: the
/// output `container` and the naming patterns of per-recording inputs (see ``InputDiscovery``).
///
/// ```yaml
/// codec: h264
/// crf: 20
/// mirror: true
/// batch:
///   container: mkv
///   poses: ["{name}.poses.jsonl", "{name}.poses.csv"]
/// ```
package struct JobSpec: Sendable {
    /// The file the spec was read from.
    package let path: String
    /// Render options, sorted by key (each key appears once, so order never changes the meaning).
    package private(set) var options: [JobOption]
    /// How `fxreplay batch` finds each recording's own inputs.
    package let discovery: InputDiscovery
    /// Output file extension for `fxreplay batch` (`mp4` unless the `batch:` section says otherwise).
    package let container: String
    /// The options the `batch:` section names patterns for, each as the render option it becomes
    /// (valued `{name}`), with its line: render must know them.
    package let patternOptions: [JobOption]
    /// For `fxreplay compose`: the `streams:` section, each stream's (id or name) own render options.
    package private(set) var streams: [StreamOptions]

    /// One entry of a `streams:` section: render options for the stream `key` names.
    package struct StreamOptions: Sendable, Equatable {
        package var key: String
        package var options: [JobOption]
        package var line: Int?
    }

    /// Keys that are not render options of a job: the output is per run, and jobs do not nest.
    static let forbiddenKeys = [
        "output": "the output is given on the command line (render -o) or decided by batch (--out DIR)",
        "job": "job specs cannot include other job specs",
        // What reaches the encoder is the operator's to decide, as what inputs may reach is (allow-protocols).
        "encoder-opt": "encoder options are taken from the command line only",
    ]

    /// Render options a `streams:` entry cannot take: the output, its files and its encoder are the
    /// composition's, so for one stream they would do nothing.
    static let compositionKeys: Set<String> = [
        "report", "preview", "overwrite", "progress", "encoder-opt", "codec", "crf", "preset", "bitrate", "threads", "deterministic",
        "keyint", "tune", "profile", "level", "pix-fmt", "no-faststart", "audio", "audio-codec", "audio-bitrate",
    ]

    /// Reads a job spec; `.json` files are parsed as JSON, everything else as YAML. Relative paths
    /// in its options (and its `streams:` section) are relative to the job file's directory, as a
    /// manifest's are to the manifest: the same job works from any working directory.
    package init(contentsOf path: String) throws(ReplayError) {
        let text = try readInputText(FilePath(path), limit: InputLimits.jobSpecBytes, kind: "job spec")
        let parsed = try JobSpec(parsing: text, path: path, json: path.lowercased().hasSuffix(".json"))
        self = parsed.resolvingPaths(against: PathNames.directory(of: PathNames.absolute(path)))
    }

    /// The spec with each relative path its options name, read or written, resolved against `directory`.
    func resolvingPaths(against directory: String) -> JobSpec {
        var spec = self
        spec.options = options.map { $0.resolvingPaths(reads: directory, writes: nil) }
        spec.streams = streams.map { stream in
            var stream = stream
            stream.options = stream.options.map { $0.resolvingPaths(reads: directory, writes: nil) }
            return stream
        }
        return spec
    }

    /// Parses a job spec's text; `path` names it in error messages.
    package init(parsing text: String, path: String, json: Bool = false) throws(ReplayError) {
        self.path = path
        let root = json ? try RawValue.json(text, file: path) : try RawValue.yaml(text, file: path)
        var options: [JobOption] = []
        var discovery = InputDiscovery()
        var container = "mp4"
        var patternOptions: [JobOption] = []
        var streams: [StreamOptions] = []
        switch root {
        case .null:
            break
        case .map(let entries):
            for entry in entries {
                if entry.key == "streams" {
                    streams = try Self.parseStreamsSection(entry.value, line: entry.line, file: path)
                } else if entry.key == "batch" {
                    try Self.parseBatchSection(entry.value, line: entry.line, file: path, discovery: &discovery, container: &container,
                                               patternOptions: &patternOptions)
                } else if let option = try JobOption(key: entry.key, raw: entry.value, file: path, line: entry.line, nullAllowed: false) {
                    options.append(option)
                }
            }
        default:
            throw .badInput(file: path, "a job spec must be a mapping of render option names to values")
        }
        self.options = options.sorted { $0.key < $1.key }
        self.discovery = discovery
        self.container = container
        self.patternOptions = patternOptions
        self.streams = streams
    }

    /// `streams:` maps a stream's id or name to a mapping of render options.
    private static func parseStreamsSection(_ raw: RawValue, line: Int?, file: String) throws(ReplayError) -> [StreamOptions] {
        guard case .map(let entries) = raw else {
            throw .badInput(file: file, line: line, field: "streams", "must map stream ids or names to render options")
        }
        var streams: [StreamOptions] = []
        for entry in entries {
            let field = "streams.\(entry.key)"
            var options: [JobOption] = []
            switch entry.value {
            case .null: break
            case .map(let items):
                for item in items {
                    if compositionKeys.contains(item.key) {
                        throw .badInput(file: file, line: item.line, field: "\(field).\(item.key)",
                                        "does nothing for one stream: give \(item.key) to compose itself "
                                            + "(the output and its encoder are the composition's)")
                    }
                    guard let option = try JobOption(key: item.key, raw: item.value, file: file, line: item.line, nullAllowed: false) else { continue }
                    options.append(option)
                }
            default:
                throw .badInput(file: file, line: entry.line, field: field, "must be a mapping of render options (poses, annotations, mirror, …)")
            }
            streams.append(StreamOptions(key: entry.key, options: options.sorted { $0.key < $1.key }, line: entry.line))
        }
        return streams
    }

    /// The job as render arguments, in key order.
    package var arguments: [String] { options.flatMap(\.arguments) }

    private static func parseBatchSection(_ raw: RawValue, line: Int?, file: String,
                                          discovery: inout InputDiscovery, container: inout String,
                                          patternOptions: inout [JobOption]) throws(ReplayError) {
        guard case .map(let entries) = raw else {
            throw .badInput(file: file, line: line, field: "batch", "must be a mapping (container, and naming patterns per option)")
        }
        for entry in entries {
            let field = "batch.\(entry.key)"
            try JobOption.checkName(entry.key, file: file, line: entry.line)
            if entry.key == "container" {
                guard case .scalar(let text) = entry.value else {
                    throw .badInput(file: file, line: entry.line, field: field, "must be a file extension such as mp4, mkv, mov or webm")
                }
                let ext = text.hasPrefix(".") ? String(text.dropFirst()) : text
                guard EncoderSettings.containerExtensions.contains(ext.lowercased()) else {
                    throw .badInput(file: file, line: entry.line, field: field,
                                    "'\(text)' is not a container fxreplay writes: \(EncoderSettings.containerExtensions.joined(separator: ", "))")
                }
                container = ext
                continue
            }
            let patterns: [String]
            switch entry.value {
            case .null: patterns = []
            case .scalar(let text): patterns = [text]
            case .list(let items):
                patterns = try items.map { (item: RawValue) throws(ReplayError) -> String in
                    guard case .scalar(let text) = item else {
                        throw .badInput(file: file, line: entry.line, field: field, "patterns must be strings such as \"{name}.poses.jsonl\"")
                    }
                    return text
                }
            default:
                throw .badInput(file: file, line: entry.line, field: field, "must be a pattern such as \"{name}.poses.jsonl\", a list of them, or null")
            }
            if let message = InputDiscovery.problem(option: entry.key, patterns: patterns) {
                throw .badInput(file: file, line: entry.line, field: field, message)
            }
            discovery.patterns[entry.key] = patterns
            patternOptions.append(JobOption(key: entry.key, value: .text("{name}"), file: file, line: entry.line))
        }
    }
}

extension JobOption {
    /// Converts a parsed value; `nil` for a null the caller allows (a manifest's empty cell).
    init?(key: String, raw: RawValue, file: String, line: Int?, nullAllowed: Bool) throws(ReplayError) {
        if key.hasPrefix("-") {
            throw .badInput(file: file, line: line, field: key, "write option names without leading dashes (\(key.drop { $0 == "-" }))")
        }
        if let reason = JobSpec.forbiddenKeys[key] {
            throw .badInput(file: file, line: line, field: key, reason)
        }
        try Self.checkName(key, file: file, line: line)
        switch raw {
        case .null:
            if nullAllowed { return nil }
            throw .badInput(file: file, line: line, field: key, "has no value (write true, a value or a list)")
        case .bool(let on):
            self.init(key: key, value: .flag(on), file: file, line: line)
        case .scalar(let text):
            self.init(key: key, value: .text(text), file: file, line: line)
        case .list(let items):
            let values = try items.map { (item: RawValue) throws(ReplayError) -> String in
                switch item {
                case .scalar(let text): return text
                case .bool(let on): return on ? "true" : "false"
                default: throw .badInput(file: file, line: line, field: key, "list items must be single values")
                }
            }
            self.init(key: key, value: .list(values), file: file, line: line)
        case .map:
            throw .badInput(file: file, line: line, field: key, "takes a value, not a mapping")
        }
    }
}

/// A parsed YAML/JSON value before it is interpreted: scalars keep the text as written.
indirect enum RawValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case scalar(String)
    case list([RawValue])
    case map([Entry])

    struct Entry: Sendable, Equatable {
        var key: String
        var value: RawValue
        var line: Int?
    }

    static func yaml(_ text: String, file: String) throws(ReplayError) -> RawValue {
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw .badInput(file: file, line: error.line, "not valid YAML: \(error.problem)")
        } catch {
            throw .badInput(file: file, "not valid YAML: \(error)")
        }
        guard let node else { return .null }
        var budget = InputLimits.jobSpecValues
        return try convert(node, file: file, budget: &budget)
    }

    /// `budget` counts the values converted: Yams expands aliases while composing, so a few lines of
    /// aliases of aliases ("billion laughs") stand for billions of values.
    private static func convert(_ node: Node, file: String, budget: inout Int) throws(ReplayError) -> RawValue {
        budget -= 1
        guard budget >= 0 else {
            throw .badInput(file: file, line: node.mark?.line,
                            "more than \(InputLimits.jobSpecValues) values (aliases repeating aliases?); see docs/poses.md, Limits")
        }
        switch node {
        case .scalar(let scalar):
            switch node.tag.rawValue {
            case Tag.Name.null.rawValue: return .null
            case Tag.Name.bool.rawValue: return node.bool.map(RawValue.bool) ?? .scalar(scalar.string)
            default: return .scalar(scalar.string)
            }
        case .sequence(let sequence):
            var items: [RawValue] = []
            for item in sequence { items.append(try convert(item, file: file, budget: &budget)) }
            return .list(items)
        case .mapping(let mapping):
            var entries: [Entry] = []
            for (key, value) in mapping {
                guard case .scalar(let name) = key else {
                    throw .badInput(file: file, line: key.mark?.line, "keys must be option names")
                }
                entries.append(Entry(key: name.string, value: try convert(value, file: file, budget: &budget), line: key.mark?.line))
            }
            return .map(entries)
        case .alias:
            throw .badInput(file: file, line: node.mark?.line, "YAML aliases are not supported in job specs")
        }
    }

    /// Parses JSON (`line`: the line the text starts on, for JSON Lines), keeping `true`, `1` and
    /// `"1"` apart and each member's line for error messages; members sorted by key.
    static func json(_ text: String, file: String, line: Int? = nil) throws(ReplayError) -> RawValue {
        do {
            return RawValue(try JSONReader.parse(Array(text.utf8), firstLine: line ?? 1))
        } catch {
            throw .badInput(file: file, line: error.line, "not valid JSON: \(error.message)")
        }
    }

    private init(_ node: JSONNode) {
        switch node.value {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let n): self = .scalar(n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n))
        case .string(let text): self = .scalar(text)
        case .array(let items): self = .list(items.map(RawValue.init))
        case .object(let members):
            self = .map(members.sorted { $0.key < $1.key }.map { Entry(key: $0.key, value: RawValue($0.value), line: $0.value.line) })
        }
    }
}

private extension YamlError {
    var line: Int? {
        switch self {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): mark.line
        case .duplicatedKeysInMapping(_, let context): context.mark.line
        default: nil
        }
    }

    var problem: String {
        switch self {
        case .scanner(let context, let problem, _, _), .parser(let context, let problem, _, _), .composer(let context, let problem, _, _):
            context.map { "\($0.text) \(problem)" } ?? problem
        case .duplicatedKeysInMapping(let duplicates, _): "duplicated key \(duplicates.joined(separator: ", "))"
        default: "\(self)"
        }
    }
}

