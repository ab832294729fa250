import Foundation

/// A call opened for reading (formats.md §9): an individual-stream archive (its ZIP, the folder it
/// unpacks to, or its manifest `.json`) or a call manifest, with every media file probed.
///
/// A ZIP's members are extracted into a private folder under the system's temporary folder
/// (`TMPDIR`); this object owns it and removes it when it goes away, and an interrupting signal
/// (SIGINT, SIGTERM, SIGHUP) removes it too. Keep the object alive while the call's files are read.
public final class OpenedCall: @unchecked Sendable {
    /// The call, its tracks' paths pointing into ``privateFolder`` for a ZIP.
    public let call: Call
    /// The folder a ZIP was extracted into; `nil` for a folder or manifest read in place.
    public let privateFolder: FilePath?

    private init(call: Call, privateFolder: FilePath?) {
        self.call = call
        self.privateFolder = privateFolder
        // A call's every file is its input, whichever stream a command reads (`render CALL --stream A`
        // must not write over B's recording).
        for file in [call.source.string, call.manifest] + call.streams.flatMap({ $0.tracks.map(\.path.string) }) { ReadFiles.note(file) }
    }

    deinit { if let privateFolder { Self.remove(privateFolder.string) } }

    /// Whether the input `path` (a string: it may be a URL, never a call) names a call rather than a
    /// media file: a folder holding a `.json` file, a `.zip` or `.json` file, or a file that starts as
    /// a ZIP does. (Nothing fxreplay renders is any of these; a folder without a manifest stays "a
    /// folder, not a media file".)
    public static func isCall(_ path: String) -> Bool {
        guard !path.contains("://") else { return false }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.contains { $0.lowercased().hasSuffix(".json") && !$0.hasPrefix(".") }
        }
        let suffix = URL(fileURLWithPath: path).pathExtension.lowercased()
        if suffix == "zip" || suffix == "json" { return true }
        guard CallPaths.nonRegularKind(FilePath(path)) == nil, let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)) == Data([0x50, 0x4B, 0x03, 0x04])
    }

    /// Opens the call at `path` and probes its media files.
    /// - Throws: `ReplayError.badInput` naming the manifest, the entry and the field for anything
    ///   wrong with the call; `.processing` when the private folder cannot be made or filled.
    public static func open(_ call: FilePath) throws(ReplayError) -> OpenedCall {
        let path = call.string
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .badInput("\(path): no such file or folder") }
        if isDirectory.boolValue {
            return try read(manifestPath: try manifest(inFolder: call).string, source: call)
        }
        // Opening a FIFO would wait for a writer that may never come.
        if let kind = CallPaths.nonRegularKind(call) { throw .badInput("\(path): is \(kind), not a call's archive or manifest file") }
        if URL(fileURLWithPath: path).pathExtension.lowercased() == "json" {
            return try read(manifestPath: path, source: call)
        }
        let folder = try makePrivateFolder()
        do {
            let extracted = try CallZip.extract(path, into: folder)
            let opened = try build(extracted.manifest, name: extracted.manifestName, source: call) { stream, track, _ in
                FilePath(extracted.paths[stream][track])
            }
            return OpenedCall(call: opened, privateFolder: FilePath(folder))
        } catch {
            remove(folder)
            throw error
        }
    }

    private static func read(manifestPath: String, source: FilePath) throws(ReplayError) -> OpenedCall {
        let bytes = try readInputFile(manifestPath, limit: InputLimits.callManifestBytes, kind: "call manifest", isText: true)
        let manifest = try CallManifest(json: bytes, file: manifestPath)
        let folder = URL(fileURLWithPath: manifestPath).deletingLastPathComponent().path
        let call = try build(manifest, name: manifestPath, source: source) { (_, _, track) throws(ReplayError) in
            FilePath(try CallPaths.resolve(track.file, in: folder, track: track, manifest: manifestPath, confined: manifest.kind == .archive))
        }
        return OpenedCall(call: call, privateFolder: nil)
    }

    /// The manifest of an unpacked archive: the one JSON file directly in `folder` that is a
    /// manifest by its content (another JSON file, such as compose's report, is passed over).
    /// Only regular files are opened: a FIFO named `*.json` is passed over with a warning. This is
    /// the manifest ``open(_:)`` reads for a folder.
    /// - Throws: `ReplayError.badInput` when the folder holds no manifest or more than one.
    public static func manifest(inFolder path: FilePath) throws(ReplayError) -> FilePath {
        let folder = path.string
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        let jsonFiles = names.filter { $0.lowercased().hasSuffix(".json") && !$0.hasPrefix(".") }.map { folder + "/" + $0 }.filter { file in
            guard let kind = CallPaths.nonRegularKind(FilePath(file)) else { return true }
            ReplayLog.warning("\(file): not a regular file (\(kind)); passed over")
            return false
        }
        let manifests = jsonFiles.filter { file in
            (try? readInputFile(file, limit: InputLimits.callManifestBytes, kind: "call manifest", isText: true))
                .map(CallManifest.looksLikeManifest) ?? false
        }
        guard manifests.count == 1 else {
            let found = jsonFiles.isEmpty ? "no .json file" : "\(manifests.count) manifests among \(jsonFiles.map { ($0 as NSString).lastPathComponent }.joined(separator: ", "))"
            throw .badInput("\(folder): expected one manifest (a .json file with \"files\" or \"participants\"), found \(found)")
        }
        return FilePath(manifests[0])
    }

    /// Probes every track's file (found by `path(stream, track, manifestTrack)`) and places it on the call's clock.
    private static func build(_ manifest: CallManifest, name: String, source: FilePath,
                              path: (Int, Int, CallManifest.Track) throws(ReplayError) -> FilePath) throws(ReplayError) -> Call {
        var streams: [CallStream] = []
        for (streamIndex, stream) in manifest.streams.enumerated() {
            var tracks: [CallTrack] = []
            for (trackIndex, entry) in stream.tracks.enumerated() {
                let file = try path(streamIndex, trackIndex, entry)
                let media: CallMedia
                do {
                    media = try CallMedia(path: file.string)
                } catch {
                    let why = error.message.hasPrefix("\(file): ") ? String(error.message.dropFirst(file.string.count + 2)) : error.message
                    throw .badInput(file: name, line: entry.line, field: "\(entry.entry), \(entry.fileKey)", "\"\(entry.file)\": \(why)")
                }
                let stop = entry.stop ?? entry.start + (media.end - media.start)
                tracks.append(CallTrack(path: file, name: entry.file, start: entry.start, stop: stop, mediaStart: media.start,
                                        mediaEnd: media.end, hasVideo: media.hasVideo, hasAudio: media.hasAudio,
                                        rotation: media.rotation, mirrored: media.mirrored, shownSize: media.shownSize))
            }
            try checkOverlaps(tracks, of: stream, manifest: name)
            streams.append(CallStream(id: stream.id, name: stream.name, videoType: stream.videoType, order: streamIndex, tracks: tracks))
        }
        guard streams.contains(where: { $0.stop > $0.start }) else {
            throw .badInput(file: name, "the call has no media: every stream stops where it starts")
        }
        return Call(source: source, manifest: name, epoch: manifest.epoch, streams: streams)
    }

    /// A participant's tracks of one kind (picture, sound) must not overlap (formats.md §9).
    private static func checkOverlaps(_ tracks: [CallTrack], of stream: CallManifest.Stream, manifest: String) throws(ReplayError) {
        for (kind, carries) in [("video", \CallTrack.hasVideo), ("audio", \CallTrack.hasAudio)] {
            let indices = tracks.indices.filter { tracks[$0][keyPath: carries] }.sorted { tracks[$0].start < tracks[$1].start }
            for (earlier, later) in zip(indices, indices.dropFirst()) where tracks[later].start < tracks[earlier].stop {
                let entry = stream.tracks[later]
                throw .badInput(file: manifest, line: entry.line, field: entry.entry,
                                "its \(kind) (from \(TextNumber.exact(tracks[later].start)) s) overlaps \(stream.tracks[earlier].entry)'s (until \(TextNumber.exact(tracks[earlier].stop)) s): a participant's tracks of one kind must not overlap")
            }
        }
    }

    /// What every private folder's name starts with; then `PID@HOST-XXXXXX` (see ``TemporaryName``).
    static let privateFolderPrefix = "fxreplay-call-"

    /// A new folder only this process uses, under `TMPDIR`, removed on an interrupting signal. Its
    /// name carries this process's id and host, so that a later run can remove it if this one is
    /// killed; such folders that killed runs left go first.
    private static func makePrivateFolder() throws(ReplayError) -> String {
        let base = NSTemporaryDirectory()
        removeStalePrivateFolders(in: base)
        let name = privateFolderPrefix + "\(getpid())@\(TemporaryName.host)-XXXXXX"
        var template = Array(((base.hasSuffix("/") ? base : base + "/") + name).utf8CString)
        guard let made = mkdtemp(&template) else {
            throw .processing("\(base): cannot make a temporary folder for the call's files (\(String(cString: strerror(errno))))")
        }
        let folder = String(cString: made)
        InterruptCleanup.shared.registerDirectory(folder)
        return folder
    }

    /// Removes the private folders in `base` that killed runs left (SIGKILL, a crash: nothing ran
    /// their clean-up), as ``removeStaleTemporaryFiles(for:)`` does for outputs: only a folder this
    /// user owns, made on this host by a process that is gone. One of a live process, of another
    /// host (a shared TMPDIR: its process cannot be looked at from here) or of an earlier version
    /// (`fxreplay-call-XXXXXX`, no process in its name) is kept.
    static func removeStalePrivateFolders(in base: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base) else { return }
        for name in names where name.hasPrefix(privateFolderPrefix) {
            let owner = name.dropFirst(privateFolderPrefix.count).prefix { $0 != "-" }
            guard let at = owner.firstIndex(of: "@"), let pid = Int32(owner[..<at]),
                  owner[owner.index(after: at)...] == TemporaryName.host, !isRunning(pid) else { continue }
            let path = (base.hasSuffix("/") ? base : base + "/") + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else { continue }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    private static func remove(_ folder: String) {
        try? FileManager.default.removeItem(atPath: folder)
        InterruptCleanup.shared.unregisterDirectory(folder)
    }
}
