import Foundation

extension AnnotationScene {
    /// Reads and checks an `annotations.json` scene file (formats.md §6).
    ///
    /// Top level: `version` (must be 1), `annotations` (an array) and `time`, the clock of every time
    /// in the scene (``SceneClock``: `poses` by default, `stream`, `call`, `epoch`). Each annotation:
    /// - `id` (required, unique string without control characters);
    /// - `anchor` (required): `{"world": [x, y, z]}` in metres, or
    ///   `{"tap": {"t", "x", "y", "depth", "mode"?}}` with `depth` > 0 and `mode` `"camera-depth"` (default)
    ///   or `"opentok-sample"`;
    /// - `shape`: `sphere` (default), `box`, `cone`, `cylinder`, `arrow`, `pin`, `ring`, `star` or `mesh`;
    /// - `mesh`: a Wavefront OBJ path, required exactly when `shape` is `mesh`, relative to the scene file's folder;
    /// - `size`: metres, > 0 (default 0.05); `color`: `#RRGGBB` or `#RRGGBBAA` (default `#FF3B30`);
    /// - `label`: text (default none); `labelSize`: pixels, > 0 (default 18);
    /// - `from`, `until`: seconds on the scene's clock (default: from the start, or from the tap time
    ///   for tap anchors, until the end); `from` ≤ `until`;
    /// - `orientation`: `[pitch, yaw, roll]` radians (default `[0, 0, 0]`); `billboard`: bool (default false);
    /// - `spin`: turns per second about the vertical axis (default 0); `stem`: bool (default false).
    ///
    /// Any other key, anywhere, is an error naming the file, line, annotation and key.
    public static func load(path: FilePath) throws(ReplayError) -> AnnotationScene {
        let folder = URL(fileURLWithPath: path.string).deletingLastPathComponent().path
        let bytes = try readInputFile(path.string, limit: InputLimits.sceneBytes, kind: "annotation scene", isText: true)
        return try AnnotationScene(json: bytes, file: path, baseDirectory: FilePath(folder))
    }

    /// Parses a scene from JSON bytes; `file` names it in errors and mesh paths resolve against `baseDirectory`.
    public init(json bytes: [UInt8], file path: FilePath, baseDirectory: FilePath) throws(ReplayError) {
        let file = path.string
        let root: JSONNode
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            throw ReplayError.badInput(file: file, line: error.line, "not valid JSON: \(error.message)")
        }
        let reader = SceneReader(file: file, baseDirectory: baseDirectory.string)
        self.init(annotations: try reader.scene(root), clock: try reader.clock(root))
    }
}

/// The checks behind ``AnnotationScene/init(json:file:baseDirectory:)``.
private struct SceneReader {
    let file: String
    let baseDirectory: String

    /// The largest distance or size in metres (``InputLimits/worldExtent``).
    static let farthest = InputLimits.worldExtent
    /// The largest time in seconds (``InputLimits/timeSeconds``): Unix times fit.
    static let latest = InputLimits.timeSeconds
    /// The largest angle in radians and spin in turns per second: beyond, turning loses all precision.
    static let largestTurn = 1e6

    private static let annotationKeys: Set = ["id", "anchor", "shape", "mesh", "size", "color", "label", "labelSize",
                                              "from", "until", "orientation", "billboard", "spin", "stem"]
    private static let shapes: [String: AnnotationShape] = [
        "sphere": .sphere, "box": .box, "cone": .cone, "cylinder": .cylinder, "arrow": .arrow,
        "pin": .pin, "ring": .ring, "star": .star,
    ]

    /// An error at `node`, naming the annotation (`context`) and key.
    private func fail(_ node: JSONNode, _ context: String?, _ key: String, _ message: String) -> ReplayError {
        let field = context.map { "\($0), key \"\(key)\"" } ?? "key \"\(key)\""
        return ReplayError.badInput(file: file, line: node.line, field: field, message)
    }

    private func checkKeys(_ node: JSONNode, allowed: Set<String>, context: String?, prefix: String = "") throws(ReplayError) {
        for (key, value) in node.members ?? [] where !allowed.contains(key) {
            let expected = allowed.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw fail(value, context, prefix + key, "unknown key (expected one of \(expected))")
        }
    }

    func scene(_ root: JSONNode) throws(ReplayError) -> [Annotation] {
        guard root.members != nil else {
            throw ReplayError.badInput(file: file, line: root.line, "the scene must be a JSON object")
        }
        try checkKeys(root, allowed: ["version", "annotations", "time"], context: nil)
        guard let version = root["version"] else { throw fail(root, nil, "version", "missing (must be 1)") }
        guard version.number == 1 else { throw fail(version, nil, "version", "must be 1") }
        guard let list = root["annotations"] else { throw fail(root, nil, "annotations", "missing") }
        guard let items = list.array else { throw fail(list, nil, "annotations", "expected an array of annotations") }
        guard items.count <= InputLimits.annotations else {
            throw fail(list, nil, "annotations", "\(items.count) annotations; a scene holds at most \(InputLimits.annotations) (see docs/limits.md)")
        }

        var annotations: [Annotation] = []
        var seen: Set<String> = []
        for (index, item) in items.enumerated() {
            let annotation = try self.annotation(item, index: index)
            guard seen.insert(annotation.id).inserted else {
                throw fail(item["id"] ?? item, "annotation \"\(annotation.id)\"", "id", "the same id is used twice")
            }
            annotations.append(annotation)
        }
        return annotations
    }

    private func annotation(_ node: JSONNode, index: Int) throws(ReplayError) -> Annotation {
        var context = "annotations[\(index)]"
        guard node.members != nil else {
            throw ReplayError.badInput(file: file, line: node.line, field: context, "each annotation must be a JSON object")
        }
        if let id = node["id"]?.string, !id.isEmpty { context = "annotation \"\(id)\"" }
        try checkKeys(node, allowed: Self.annotationKeys, context: context)

        func value(_ key: String) -> JSONNode? { node[key] }
        func required(_ key: String) throws(ReplayError) -> JSONNode {
            guard let found = node[key] else { throw fail(node, context, key, "missing") }
            return found
        }
        func number(_ key: String, _ check: (Double) -> Bool = { _ in true }, expected: String = "a number") throws(ReplayError) -> Double? {
            guard let found = value(key) else { return nil }
            guard let n = found.number, check(n) else { throw fail(found, context, key, "expected \(expected)") }
            return n
        }
        func bool(_ key: String) throws(ReplayError) -> Bool? {
            guard let found = value(key) else { return nil }
            guard let b = found.bool else { throw fail(found, context, key, "expected true or false") }
            return b
        }
        func string(_ key: String) throws(ReplayError) -> String? {
            guard let found = value(key) else { return nil }
            guard let s = found.string else { throw fail(found, context, key, "expected a string") }
            return s
        }

        let idNode = try required("id")
        guard let id = idNode.string, !id.isEmpty else { throw fail(idNode, context, "id", "expected a non-empty string") }
        // Track files, tables and logs hold one id per line.
        guard !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw fail(idNode, context, "id", "must not contain control characters (line breaks, tabs…)")
        }
        let anchor = try self.anchor(try required("anchor"), context: context)

        var shape = AnnotationShape.sphere
        if let name = try string("shape") {
            if name == "mesh" {
                shape = .mesh(path: FilePath())
            } else if let builtIn = Self.shapes[name] {
                shape = builtIn
            } else {
                let names = (Self.shapes.keys.sorted() + ["mesh"]).joined(separator: ", ")
                throw fail(node["shape"] ?? node, context, "shape", "expected one of \(names)")
            }
        }
        if let meshNode = value("mesh") {
            guard case .mesh = shape else {
                throw fail(meshNode, context, "mesh", "only allowed with \"shape\": \"mesh\"")
            }
            guard let path = meshNode.string, !path.isEmpty else {
                throw fail(meshNode, context, "mesh", "expected the path of a Wavefront OBJ file")
            }
            let resolved = path.hasPrefix("/") ? path : URL(fileURLWithPath: baseDirectory).appendingPathComponent(path).standardized.path
            var isDirectory: ObjCBool = false
            guard FileManager.default.isReadableFile(atPath: resolved),
                  FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw fail(meshNode, context, "mesh", "cannot read mesh file \(resolved)\(isDirectory.boolValue ? " (a directory)" : "")")
            }
            shape = .mesh(path: FilePath(resolved))
        } else if case .mesh = shape {
            throw fail(node, context, "mesh", "missing (\"shape\": \"mesh\" needs a \"mesh\" file path)")
        }

        var annotation = Annotation(id: id, anchor: anchor, shape: shape)
        if let size = try number("size", { $0 > 0 && $0 <= Self.farthest }, expected: "a size in metres greater than 0, at most 1e9") {
            annotation.size = size
        }
        if let colorNode = value("color") {
            guard let text = colorNode.string, text.hasPrefix("#"), let color = RGBAColor(hex: text) else {
                throw fail(colorNode, context, "color", "expected a colour \"#RRGGBB\" or \"#RRGGBBAA\"")
            }
            annotation.color = color
        }
        annotation.label = try string("label")
        if let label = annotation.label, label.unicodeScalars.count > InputLimits.labelCharacters {
            throw fail(node["label"] ?? node, context, "label", "\(label.unicodeScalars.count) characters; a label has at most "
                       + "\(InputLimits.labelCharacters) (see docs/limits.md)")
        }
        if let labelSize = try number("labelSize", { $0 > 0 && $0 <= InputLimits.labelSize },
                                      expected: "a text height in pixels greater than 0, at most \(Int(InputLimits.labelSize))") {
            annotation.labelSize = labelSize
        }
        annotation.from = try number("from", { abs($0) <= Self.latest }, expected: "a time in seconds within ±1e10")
        annotation.until = try number("until", { abs($0) <= Self.latest }, expected: "a time in seconds within ±1e10")
        if let from = annotation.from, let until = annotation.until, until < from {
            throw fail(value("until") ?? node, context, "until", "must not be before \"from\" (\(from))")
        }
        if let orientation = value("orientation") {
            guard let v = orientation.numbers(count: 3), v.allSatisfy({ abs($0) <= Self.largestTurn }) else {
                throw fail(orientation, context, "orientation", "expected [pitch, yaw, roll] in radians, each within ±1e6")
            }
            annotation.orientation = SIMD3(v[0], v[1], v[2])
        }
        if let billboard = try bool("billboard") { annotation.billboard = billboard }
        if let spin = try number("spin", { abs($0) <= Self.largestTurn }, expected: "turns per second within ±1e6") { annotation.spin = spin }
        if let stem = try bool("stem") { annotation.stem = stem }
        return annotation
    }

    /// The scene's `time`: the clock of its times (`poses` when absent).
    func clock(_ root: JSONNode) throws(ReplayError) -> SceneClock {
        guard let node = root["time"] else { return .poses }
        guard let name = node.string, let clock = SceneClock(rawValue: name) else {
            throw fail(node, nil, "time", "expected one of " + SceneClock.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
        }
        return clock
    }

    private func anchor(_ node: JSONNode, context: String) throws(ReplayError) -> AnnotationAnchor {
        let expected = "expected {\"world\": [x, y, z]} or {\"tap\": {\"t\", \"x\", \"y\", \"depth\"}}"
        try checkKeys(node, allowed: ["world", "tap"], context: context, prefix: "anchor.")
        guard let members = node.members, members.count == 1 else { throw fail(node, context, "anchor", expected) }
        if let world = node["world"] {
            guard let v = world.numbers(count: 3), v.allSatisfy({ abs($0) <= Self.farthest }) else {
                throw fail(world, context, "anchor.world", "expected [x, y, z] in metres, each within ±1e9")
            }
            return .world(SIMD3(v[0], v[1], v[2]))
        }
        guard let tap = node["tap"], tap.members != nil else { throw fail(node, context, "anchor.tap", expected) }
        try checkKeys(tap, allowed: ["t", "x", "y", "depth", "mode"], context: context, prefix: "anchor.tap.")
        func number(_ key: String, expected: String, _ check: (Double) -> Bool = { _ in true }) throws(ReplayError) -> Double {
            guard let found = tap[key] else { throw fail(tap, context, "anchor.tap.\(key)", "missing") }
            guard let n = found.number, check(n) else { throw fail(found, context, "anchor.tap.\(key)", "expected \(expected)") }
            return n
        }
        let within = { (n: Double) in abs(n) <= Self.farthest }
        let t = try number("t", expected: "the tap time in seconds within ±1e10") { abs($0) <= Self.latest }
        let x = try number("x", expected: "a pixel x coordinate within ±1e9", within)
        let y = try number("y", expected: "a pixel y coordinate within ±1e9", within)
        let depth = try number("depth", expected: "a depth in metres greater than 0, at most 1e9") { $0 > 0 && $0 <= Self.farthest }
        var mode = TapAnchor.Mode.cameraDepth
        if let modeNode = tap["mode"] {
            guard let name = modeNode.string, let parsed = TapAnchor.Mode(rawValue: name) else {
                throw fail(modeNode, context, "anchor.tap.mode", "expected \"camera-depth\" or \"opentok-sample\"")
            }
            mode = parsed
        }
        return .tap(TapAnchor(t: t, x: x, y: y, depth: depth, mode: mode))
    }
}
