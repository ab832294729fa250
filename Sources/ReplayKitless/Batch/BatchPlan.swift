import Foundation

/// One recording of a batch: where it comes from, where it goes, and the exact render arguments.
public struct BatchRecording: Sendable, Equatable {
    /// The output's file name without extension; names the log and report files.
    public var name: String
    /// The input as listed (glob match or manifest cell), normalised: what ``Shard`` hashes.
    public var listed: String
    /// The input handed to render (a manifest's relative paths resolved against its directory).
    public var input: String
    public var output: String
    /// Render's arguments after `render`: the input, `-o OUTPUT`, then the job's options, the
    /// inputs found by naming convention, and the manifest row's options, in that order, so
    /// the more specific wins.
    public var arguments: [String]
    /// Local files among the arguments (input, discovered inputs, files named by options, the
    /// meshes of a scene): a change to any of them makes an old output stale.
    public var files: [String]
}

/// Turns globs or manifest rows into ``BatchRecording``s with unique outputs in one directory.
public struct BatchPlanner: Sendable {
    /// Render options `fxreplay batch` decides for every child itself; dropped from jobs and rows.
    public static let batchControlledOptions: Set<String> = ["progress", "report", "overwrite", "verbose"]

    public var outputDirectory: String
    public var job: JobSpec?

    public init(outputDirectory: String, job: JobSpec?) {
        self.outputDirectory = BatchPaths.normalize(outputDirectory)
        self.job = job
    }

    private var discovery: InputDiscovery { job?.discovery ?? InputDiscovery() }

    /// Recordings from files, URLs or glob patterns (expanded here when the shell did not).
    /// Files that are another listed recording's discovered inputs (`NAME.mask.mp4`) are left out.
    public func recordings(matching patterns: [String]) throws(ReplayError) -> [BatchRecording] {
        var listed: [String] = []
        var seen: Set<String> = []
        for pattern in patterns {
            let matches = Self.expand(pattern)
            if matches.isEmpty { FileHandle.standardError.write(Data("fxreplay: warning: \(pattern) matches no files\n".utf8)) }
            for path in matches.map(BatchPaths.normalize) where seen.insert(path).inserted { listed.append(path) }
        }
        var sidecars: Set<String> = []
        for path in listed {
            sidecars.formUnion(discovery.candidates(for: path).filter { $0 != path })
        }
        var meshes: [String: [String]] = [:]
        let recordings = listed.filter { !sidecars.contains($0) }.map { path in
            recording(listed: path, input: path, output: nil, rowOptions: [], meshes: &meshes)
        }
        if recordings.isEmpty { throw .badInput("no recordings to render: \(patterns.joined(separator: " ")) matched nothing") }
        return try unique(recordings)
    }

    /// Recordings from manifest rows; relative inputs are resolved against the manifest's
    /// directory, relative outputs against the output directory.
    public func recordings(rows: [ManifestRow], manifest: String) throws(ReplayError) -> [BatchRecording] {
        let base = BatchPaths.directory(of: manifest)
        var meshes: [String: [String]] = [:]
        return try unique(rows.map { row in
            let listed = BatchPaths.normalize(row.input)
            return recording(listed: listed, input: BatchPaths.resolve(row.input, against: base),
                             output: row.output.map { BatchPaths.resolve($0, against: outputDirectory) },
                             rowOptions: row.options, meshes: &meshes)
        })
    }

    /// - Parameter meshes: per scene file already read, the meshes it names (read once per batch).
    private func recording(listed: String, input: String, output: String?, rowOptions: [JobOption],
                           meshes: inout [String: [String]]) -> BatchRecording {
        let output = output ?? BatchPaths.normalize("\(outputDirectory)/\(BatchPaths.name(of: input)).\(job?.container ?? "mp4")")
        let isRenderOwn = { (option: JobOption) in !Self.batchControlledOptions.contains(option.key) }
        let jobOptions = (job?.options ?? []).filter(isRenderOwn)
        let rowOptions = rowOptions.filter(isRenderOwn)
        let found = discovery.inputs(for: input)
        var files: [String] = BatchPaths.isURL(input) ? [] : [input]
        // A scene's meshes are read by the render too: a changed mesh makes the output stale.
        var sceneMeshes: [String] = []
        for scene in (jobOptions + rowOptions).filter({ $0.key == "annotations" }).flatMap(\.values) {
            if meshes[scene] == nil { meshes[scene] = (try? AnnotationScene.load(path: scene))?.meshFiles ?? [] }
            sceneMeshes += meshes[scene] ?? []
        }
        for path in found.map(\.path) + (jobOptions + rowOptions).flatMap(\.values) + sceneMeshes
        where !files.contains(path) && BatchPaths.isRegularFile(path) {
            files.append(path)
        }
        return BatchRecording(name: BatchPaths.name(of: output), listed: listed, input: input, output: output,
                              arguments: [input, "-o", output] + jobOptions.flatMap(\.arguments) + found.map(\.argument)
                                  + rowOptions.flatMap(\.arguments),
                              files: files)
    }

    /// Refuses two recordings that would write the same output or log.
    private func unique(_ recordings: [BatchRecording]) throws(ReplayError) -> [BatchRecording] {
        var byName: [String: BatchRecording] = [:]
        for recording in recordings {
            if let other = byName[recording.name] {
                throw .usage("\(other.listed) and \(recording.listed) would both be named \(recording.name) "
                             + "(\(other.output), \(recording.output)): give them outputs with different file names "
                             + "(a manifest's output column, or rename an input)")
            }
            byName[recording.name] = recording
        }
        return recordings
    }

    /// Expands a glob pattern (`*`, `?`, `[…]`, `{a,b}`, `~`) to regular files; anything else
    /// (plain paths, URLs) is taken as is and checked by render.
    static func expand(_ pattern: String) -> [String] {
        guard !BatchPaths.isURL(pattern), pattern.contains(where: { "*?[{~".contains($0) }) else { return [pattern] }
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(pattern, GLOB_BRACE | GLOB_TILDE, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }
            .filter(BatchPaths.isRegularFile)
    }
}

extension JobOption {
    /// The values this option passes (none for a flag).
    var values: [String] {
        switch value {
        case .flag: []
        case .text(let text): [text]
        case .list(let items): items
        }
    }
}
