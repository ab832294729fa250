import Foundation

/// What a call's manifest says, before any media file is opened (formats.md §9): an archive
/// manifest (a JSON object with `files`) or a call manifest (one with `participants`).
///
/// Parsing is separate from probing so that every mistake in the manifest is reported, naming the
/// manifest, its line, the entry and the field, before anything is extracted or opened.
public struct CallManifest: Sendable, Equatable {
    /// Which of the two manifest forms was read.
    public enum Kind: String, Sendable {
        /// A Vonage Video (OpenTok) individual-stream archive's manifest.
        case archive
        /// fxreplay's own call manifest.
        case call
    }

    /// One media file as the manifest places it.
    public struct Track: Sendable, Equatable {
        /// The file name as written: relative to the manifest's folder, checked to stay inside that folder.
        public var file: String
        /// Call time, seconds, at which the file's earliest presentation time plays.
        public var start: Double
        /// Call time, seconds, at which the stream stops being active; `nil`: the end of its media.
        public var stop: Double?
        /// Where the entry is, for messages: `files[2] "6f4a…"` or `participants[0] "agent", tracks[1]`.
        public var entry: String
        /// The line the entry starts on.
        public var line: Int
        /// The key the file name is under: `filename` (archive) or `file` (call manifest), for messages.
        public var fileKey: String
    }

    /// An archive's file entry, or a call manifest's participant.
    public struct Stream: Sendable, Equatable {
        /// `streamId`, or the participant's `id`.
        public var id: String
        /// The name people know it by (see `name(connectionData:id:)`).
        public var name: String
        /// The archive's `videoType` (`camera`, `screen`); `nil` when not given.
        public var videoType: String?
        /// Its media files, in manifest order.
        public var tracks: [Track]
    }

    /// An archive manifest or fxreplay's call manifest.
    public var kind: Kind
    /// Unix time in seconds of call time 0, when the manifest gives it.
    public var epoch: Double?
    /// The streams, in manifest order.
    public var streams: [Stream]

    /// Parses a manifest; `file` names it in errors (text, not a path: a ZIP's member is `call.zip/manifest.json`).
    /// - Throws: `ReplayError.badInput` naming `file`, the line, the entry and the field.
    public init(json bytes: [UInt8], file: String) throws(ReplayError) {
        let root: JSONNode
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            throw .badInput(file: file, line: error.line, "not valid JSON: \(error.message)")
        }
        let fields = ManifestFields(file: file)
        guard root.members != nil else {
            throw .badInput(file: file, line: root.line, "not a call manifest: expected a JSON object with \"files\" (an archive's) or \"participants\"")
        }
        switch (root["files"], root["participants"]) {
        case (.some, .some):
            throw .badInput(file: file, line: root.line, "has both \"files\" and \"participants\": an archive manifest or a call manifest, not both")
        case (.some(let files), nil):
            kind = .archive
            epoch = try fields.epoch(root, "createdAt", unit: "ms")
            streams = try fields.archiveStreams(files)
        case (nil, .some(let participants)):
            kind = .call
            if let version = root["version"], version.number != 1 {
                throw fields.fail(version, nil, "version", "must be 1 (the only call manifest version)")
            }
            epoch = try fields.epoch(root, "epoch", unit: "s")
            streams = try fields.participants(participants)
        case (nil, nil):
            throw .badInput(file: file, line: root.line, "not a call manifest: no \"files\" (an archive manifest's) or \"participants\" (a call manifest's)")
        }
        guard !streams.isEmpty else {
            let key = kind == .archive ? "files" : "participants"
            throw .badInput(file: file, line: root[key]?.line, field: key, "the call has no \(kind == .archive ? "streams" : "participants"): nothing to show or hear")
        }
        var seen: [String: String] = [:]
        for (index, stream) in streams.enumerated() {
            let entry = kind == .archive ? "files[\(index)]" : "participants[\(index)]"
            if let first = seen[stream.id] {
                let line = stream.tracks.first?.line
                throw .badInput(file: file, line: line, field: "\(entry), \(kind == .archive ? "streamId" : "id")",
                                "duplicate id \"\(stream.id)\" (already used by \(first))")
            }
            seen[stream.id] = entry
        }
    }

    /// Whether `bytes` hold a JSON object with `files` or `participants` whose entries are a
    /// manifest's (each file with a `filename`, each participant with `tracks`): a manifest, to
    /// tell it from other JSON files in a call's folder (an annotation scene, a job, compose's
    /// report, whose `participants` have none).
    static func looksLikeManifest(_ bytes: [UInt8]) -> Bool {
        guard let root = try? JSONReader.parse(bytes) else { return false }
        for (key, member) in [("files", "filename"), ("participants", "tracks")] {
            if let items = root[key]?.array, items.allSatisfy({ $0[member] != nil }) { return true }
        }
        return false
    }

    /// A stream's name from an archive's `connectionData` (formats.md §9): the `name`, `userName` or
    /// `username` member when it parses as a JSON object holding one, else the text itself when it
    /// is not empty, else the stream's id.
    public static func name(connectionData: String?, id: String) -> String {
        guard let data = connectionData, !data.isEmpty else { return id }
        if let object = try? JSONReader.parse(Array(data.utf8)), object.members != nil {
            for key in ["name", "userName", "username"] {
                if let name = object[key]?.string, !name.isEmpty { return name }
            }
        }
        return data
    }
}

/// Reading the fields of a manifest's entries, each mistake named with its line, entry and field.
private struct ManifestFields {
    let file: String

    func fail(_ node: JSONNode, _ entry: String?, _ field: String, _ message: String) -> ReplayError {
        .badInput(file: file, line: node.line, field: entry.map { "\($0), \(field)" } ?? field, message)
    }

    private func typeName(_ node: JSONNode) -> String {
        switch node.value {
        case .null: "null"
        case .bool: "true/false"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    func optionalNumber(_ object: JSONNode, _ key: String, in entry: String?) throws(ReplayError) -> Double? {
        guard let node = object[key] else { return nil }
        guard let value = node.number else { throw fail(node, entry, key, "expected a number, got \(typeName(node))") }
        return value
    }

    func number(_ object: JSONNode, _ key: String, in entry: String) throws(ReplayError) -> Double {
        guard let value = try optionalNumber(object, key, in: entry) else {
            throw fail(object, entry, key, "missing (a number is required)")
        }
        return value
    }

    func optionalString(_ object: JSONNode, _ key: String, in entry: String?) throws(ReplayError) -> String? {
        guard let node = object[key] else { return nil }
        if case .null = node.value { return nil }
        guard let value = node.string else { throw fail(node, entry, key, "expected a string, got \(typeName(node))") }
        return value
    }

    /// A required string without control characters, not empty: an id or a file name.
    func string(_ object: JSONNode, _ key: String, in entry: String) throws(ReplayError) -> String {
        guard let value = try optionalString(object, key, in: entry) else {
            throw fail(object, entry, key, "missing (a string is required)")
        }
        let node = object[key]!
        guard !value.isEmpty else { throw fail(node, entry, key, "is empty") }
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw fail(node, entry, key, "contains a control character")
        }
        return value
    }

    func array(_ node: JSONNode, _ key: String, in entry: String?) throws(ReplayError) -> [JSONNode] {
        guard let items = node.array else { throw fail(node, entry, key, "expected an array, got \(typeName(node))") }
        return items
    }

    func object(_ node: JSONNode, _ entry: String) throws(ReplayError) -> JSONNode {
        guard node.members != nil else {
            throw .badInput(file: file, line: node.line, field: entry, "expected an object, got \(typeName(node))")
        }
        return node
    }

    /// A time in seconds: finite, not negative, below ``InputLimits/callTime`` (a year), so a
    /// hostile value cannot overflow later sums or conversions.
    func time(_ value: Double, _ node: JSONNode, _ entry: String, _ key: String, unit: String) throws(ReplayError) -> Double {
        let seconds = unit == "ms" ? value / 1000 : value
        guard seconds >= 0, seconds < InputLimits.callTime else {
            throw fail(node[key] ?? node, entry, key, "\(TextNumber.exact(value)) is out of range (0 up to a year, in \(unit == "ms" ? "milliseconds" : "seconds"); docs/limits.md)")
        }
        return seconds
    }

    /// Call time 0 as Unix seconds from `key` in `unit` (`ms`: an archive's `createdAt`), within
    /// ``InputLimits/callEpoch`` (1970 to 2096); `nil` when absent.
    func epoch(_ root: JSONNode, _ key: String, unit: String) throws(ReplayError) -> Double? {
        guard let value = try optionalNumber(root, key, in: nil) else { return nil }
        let seconds = unit == "ms" ? value / 1000 : value
        guard InputLimits.callEpoch.contains(seconds) else {
            let scale = unit == "ms" ? 1000.0 : 1
            let range = "\(Int64(InputLimits.callEpoch.lowerBound * scale)) to \(Int64(InputLimits.callEpoch.upperBound * scale))"
            throw fail(root[key]!, nil, key, "\(TextNumber.exact(value)) is out of range (Unix time in \(unit == "ms" ? "milliseconds" : "seconds") from \(range): 1970 to 2096; docs/limits.md)")
        }
        return seconds
    }

    /// The entries of array `key` of `node`, refusing more than `limit` (``InputLimits``), named
    /// by the first entry past it: `what` says what they are.
    func capped(_ node: JSONNode, _ key: String, in entry: String?, limit: Int, what: String) throws(ReplayError) -> [JSONNode] {
        let items = try array(node, key, in: entry)
        guard items.count <= limit else {
            throw fail(items[limit], (entry.map { "\($0), " } ?? "") + "\(key)[\(limit)]", key, "more than \(limit) \(what), the most fxreplay reads (docs/limits.md)")
        }
        return items
    }

    /// A media file's entry: its name, start and optional stop under `keys`, times in `unit` (`ms` or `s`).
    func track(_ node: JSONNode, _ entry: String, keys: (file: String, start: String, stop: String),
               unit: String) throws(ReplayError) -> CallManifest.Track {
        let file = try string(node, keys.file, in: entry)
        let start = try time(try number(node, keys.start, in: entry), node, entry, keys.start, unit: unit)
        let stop = try optionalNumber(node, keys.stop, in: entry).map { (value: Double) throws(ReplayError) in
            try time(value, node, entry, keys.stop, unit: unit)
        }
        if let stop, stop < start { throw fail(node[keys.stop]!, entry, keys.stop, "is before \(keys.start)") }
        return .init(file: file, start: start, stop: stop, entry: entry, line: node.line, fileKey: keys.file)
    }

    func archiveStreams(_ files: JSONNode) throws(ReplayError) -> [CallManifest.Stream] {
        var streams: [CallManifest.Stream] = []
        for (index, item) in try capped(files, "files", in: nil, limit: InputLimits.callStreams, what: "streams in a call").enumerated() {
            var entry = "files[\(index)]"
            let node = try object(item, entry)
            let id = try string(node, "streamId", in: entry)
            entry += " \"\(id)\""
            let track = try track(node, entry, keys: ("filename", "startTimeOffset", "stopTimeOffset"), unit: "ms")
            let connectionData = try optionalString(node, "connectionData", in: entry)
            let videoType = try optionalString(node, "videoType", in: entry).flatMap { $0.isEmpty ? nil : $0 }
            streams.append(.init(id: id, name: CallManifest.name(connectionData: connectionData, id: id), videoType: videoType,
                                 tracks: [track]))
        }
        return streams
    }

    func participants(_ participants: JSONNode) throws(ReplayError) -> [CallManifest.Stream] {
        var streams: [CallManifest.Stream] = []
        var trackCount = 0
        for (index, item) in try capped(participants, "participants", in: nil, limit: InputLimits.callStreams, what: "participants in a call").enumerated() {
            var entry = "participants[\(index)]"
            let node = try object(item, entry)
            let id = try string(node, "id", in: entry)
            entry += " \"\(id)\""
            let name = try optionalString(node, "name", in: entry).flatMap { $0.isEmpty ? nil : $0 } ?? id
            guard let tracksNode = node["tracks"] else { throw fail(node, entry, "tracks", "missing (an array of tracks is required)") }
            let items = try capped(tracksNode, "tracks", in: entry, limit: InputLimits.callTracksPerStream, what: "tracks for one participant")
            guard !items.isEmpty else { throw fail(tracksNode, entry, "tracks", "is empty: a participant needs at least one track") }
            var tracks: [CallManifest.Track] = []
            for (trackIndex, trackItem) in items.enumerated() {
                let trackEntry = "\(entry), tracks[\(trackIndex)]"
                trackCount += 1
                guard trackCount <= InputLimits.callTracks else {
                    throw fail(trackItem, trackEntry, "tracks", "more than \(InputLimits.callTracks) tracks in the call, the most fxreplay reads (docs/limits.md)")
                }
                tracks.append(try track(try object(trackItem, trackEntry), trackEntry, keys: ("file", "start", "end"), unit: "s"))
            }
            streams.append(.init(id: id, name: name, videoType: nil, tracks: tracks))
        }
        return streams
    }
}
