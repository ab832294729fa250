import Foundation
import Logging
import ReplayKitless

/// One recording of a batch: where it comes from, where it goes, and the exact render arguments.
package struct BatchRecording: Sendable, Equatable {
    /// The output's file name without extension; names the log and report files.
    package var name: String
    /// The input as listed (glob match or manifest cell), normalised: what ``Shard`` hashes.
    package var listed: String
    /// The input handed to render (a manifest's relative paths resolved against its directory).
    package var input: String
    package var output: String
    /// Render's arguments after `render`: the input, `-o OUTPUT`, then the job's options, the
    /// inputs found by naming convention, and the manifest row's options, in that order, so
    /// the more specific wins.
    package var arguments: [String]
    /// The fxreplay command that makes the output: `render`, or `compose` for a call (``isCall(_:)``).
    package var command = "render"
    /// Local files among the arguments (input, discovered inputs, files named by options, the
    /// meshes of a scene): a change to any of them makes an old output stale.
    package var files: [String]
    /// The manifest line the recording comes from (`nil` for a glob's).
    package var line: Int? = nil
}

/// Turns globs or manifest rows into ``BatchRecording``s with unique outputs in one directory.
package struct BatchPlanner: Sendable {
    /// Render options `fxreplay batch` decides for every child itself; dropped from jobs and rows.
    package static let batchControlledOptions: Set<String> = ["progress", "report", "overwrite", "verbose"]
    /// Render options that name a file render writes: in a batch only a manifest cell, inside `--out`.
    package static let writtenOptions: Set<String> = ["preview"]

    package var outputDirectory: String
    package var job: JobSpec?
    /// The batch's own report (`DIR/batch-report.json`): checked with the other files it writes.
    package var reportPath: String?
    /// Where the batch writes.
    package var layout: BatchLayout { BatchLayout(directory: outputDirectory) }

    /// Inputs and outputs are planned as absolute paths, so render's arguments, and with them
    /// the fingerprints, do not depend on how the paths were spelled or where batch ran from.
    package init(outputDirectory: String, job: JobSpec?) {
        self.outputDirectory = PathNames.absolute(outputDirectory)
        self.job = job
    }

    private var discovery: InputDiscovery { job?.discovery ?? InputDiscovery() }

    /// Recordings from files, URLs or glob patterns (expanded here when the shell did not).
    /// Files that are another listed recording's discovered inputs (`NAME.mask.mp4`) are left out.
    package func recordings(matching patterns: [String]) throws(ReplayError) -> [BatchRecording] {
        try checkJob()
        var listed: [String] = []
        var seen: Set<String> = []
        for pattern in patterns {
            let matches = Self.expand(pattern)
            if matches.isEmpty { ReplayLog.logger.warning("\(pattern) matches no files") }
            for path in matches.map(PathNames.normalize) where seen.insert(path).inserted { listed.append(path) }
        }
        // Files a job option reads (a background picture) are inputs, not recordings, too.
        var readFiles: [String: [String]] = [:]
        var sidecars = Set(jobOptions.flatMap { option in
            option.values.flatMap { value in files(option: option.key, value: value, cache: &readFiles).map(PathNames.normalize) }
        })
        for path in listed {
            sidecars.formUnion(discovery.candidates(for: path).filter { $0 != path })
        }
        let recordings = listed.filter { !sidecars.contains($0) }.map { path in
            recording(listed: path, input: PathNames.absolute(path), output: nil, rowOptions: [], readFiles: &readFiles)
        }
        if recordings.isEmpty { throw .badInput("no recordings to render: \(patterns.joined(separator: " ")) matched nothing") }
        return try checked(recordings, manifest: nil)
    }

    /// Recordings from manifest rows; relative paths to files read (the input, and the sidecars,
    /// masks, scenes, fonts and pictures options name) are resolved against the manifest's
    /// directory, relative outputs (`output`, `preview`) against the output directory.
    package func recordings(rows: [ManifestRow], manifest: String) throws(ReplayError) -> [BatchRecording] {
        try checkJob()
        let base = PathNames.directory(of: PathNames.absolute(manifest))
        var readFiles: [String: [String]] = [:]
        var recordings: [BatchRecording] = []
        for row in rows {
            if let output = row.output, !EncoderSettings.containerExtensions.contains(URL(fileURLWithPath: output).pathExtension.lowercased()) {
                throw .badInput(file: manifest, line: row.line, field: "output",
                                "'\(output)' is not a video file name: end it with \(EncoderSettings.containerExtensions.map { "." + $0 }.joined(separator: ", "))")
            }
            let written = (row.output.map { [("output", $0)] } ?? [])
                + row.options.filter { Self.writtenOptions.contains($0.key) }.flatMap { option in option.values.map { (option.key, $0) } }
            for (field, value) in written {
                if let problem = BatchLayout.problem(ofWrittenPath: value) { throw .badInput(file: manifest, line: row.line, field: field, problem) }
            }
            var planned = recording(listed: PathNames.normalize(row.input), input: PathNames.resolve(row.input, against: base),
                                    output: row.output.map { PathNames.normalize(outputDirectory + "/" + $0) },
                                    rowOptions: row.options.map { $0.resolvingPaths(reads: base, writes: outputDirectory) },
                                    readFiles: &readFiles)
            planned.line = row.line
            recordings.append(planned)
        }
        return try checked(recordings, manifest: manifest)
    }

    /// Refuses job options batch cannot give every recording: a file render writes (one `preview`
    /// for all would be written over and over, outside `--out`), and naming patterns for options
    /// that are not files render reads (`output`, `preview`, `report`: discovery would pick an
    /// existing file next to the recording for render to replace).
    private func checkJob() throws(ReplayError) {
        guard let job else { return }
        for option in job.options where Self.writtenOptions.contains(option.key) {
            throw option.error("a file render writes is given per recording: a manifest column, relative to --out")
        }
        for option in job.patternOptions
        where Self.writtenOptions.contains(option.key) || Self.batchControlledOptions.contains(option.key)
            || JobSpec.forbiddenKeys[option.key] != nil {
            throw option.error("batch finds only files render reads by name, not '\(option.key)'")
        }
    }

    /// The job's options that render gets (those batch decides are dropped).
    private var jobOptions: [JobOption] { (job?.options ?? []).filter { !Self.batchControlledOptions.contains($0.key) } }

    /// Options that choose one thing in different ways; render refuses both at once.
    static let alternatives: [String: String] = ["poses": "poses-from-sei", "poses-from-sei": "poses"]

    /// The job's options that hold for a manifest row with `row`'s options: of two alternatives
    /// (``alternatives``), the row's choice replaces the job's.
    package static func jobOptions(_ job: [JobOption], under row: [JobOption]) -> [JobOption] {
        let rowChoices = Set(row.filter(\.isSet).map(\.key))
        return job.filter { alternatives[$0.key].map { !rowChoices.contains($0) } ?? true }
    }

    /// - Parameter readFiles: per option value already looked at, the files it makes render read
    ///   (each scene is read, each mask folder listed, once per batch).
    private func recording(listed: String, input: String, output: String?, rowOptions: [JobOption],
                           readFiles: inout [String: [String]]) -> BatchRecording {
        let output = output ?? PathNames.normalize("\(outputDirectory)/\(PathNames.name(of: input)).\(job?.container ?? "mp4")")
        let rowOptions = rowOptions.filter { !Self.batchControlledOptions.contains($0.key) }
        // A choice in the job or the row replaces an input found by name (`poses-from-sei: true`
        // with NAME.poses.jsonl present).
        let jobOptions = Self.jobOptions(jobOptions, under: rowOptions)
        let choices = Set((jobOptions + rowOptions).filter(\.isSet).map(\.key))
        // A call's per-stream inputs are a job's `streams:`, not files found next to it by name.
        let isCall = BatchRecording.isCall(input)
        let found = isCall ? [] : discovery.inputs(for: input).filter { Self.alternatives[$0.option].map { !choices.contains($0) } ?? true }
        var files: [String] = []
        var seen: Set<String> = []
        let values = (jobOptions + rowOptions).flatMap { option in option.values.map { (option.key, $0) } }
            + found.map { ($0.option, $0.path) }
        // A call's manifest and media files count as its input does.
        for path in [input] + (isCall ? BatchRecording.callFiles(input) : [])
            + values.flatMap({ option, value in self.files(option: option, value: value, cache: &readFiles) })
        where seen.insert(path).inserted && PathNames.isRegularFile(path) {
            files.append(path)
        }
        // compose reads the job itself, for its `streams:` section.
        let jobArguments = isCall ? callJobArguments(&files) : jobOptions.flatMap(\.arguments)
        return BatchRecording(name: PathNames.name(of: output), listed: listed, input: input, output: output,
                              arguments: [input, "-o", output] + jobArguments + found.map(\.argument)
                                  + rowOptions.flatMap(\.arguments),
                              command: isCall ? "compose" : "render", files: files)
    }

    /// ``files(option:value:)``, looked up once per option value and batch.
    private func files(option: String, value: String, cache: inout [String: [String]]) -> [String] {
        let key = option + "\u{0}" + value
        if let known = cache[key] { return known }
        let files = Self.files(option: option, value: value)
        cache[key] = files
        return files
    }

    /// The files a render option's value may make render read: for `annotations` the scene and
    /// the OBJ meshes it names, for `background` the file after `image:` or `video:`, for `mask`
    /// the video or every image of a numbered sequence; otherwise the value itself (which only
    /// counts when it is a file).
    static func files(option: String, value: String) -> [String] {
        switch option {
        case "annotations": [value] + ((try? AnnotationScene.load(path: FilePath(value)))?.meshFiles.map(\.string) ?? [])
        case "background": (try? BackgroundSpec(parsing: value).file).map { [$0] } ?? []
        case "mask": MaskSource(argument: value).files
        default: [value]
        }
    }

    /// Refuses a plan that would write where it must not: two recordings with one output or log
    /// name; a file written (output, preview, fingerprint, log, render report, the batch report)
    /// outside `--out`, a symbolic link followed (exit 3, naming the manifest line and field); a
    /// file written twice, or written over a file the batch reads, by any spelling or link: any
    /// recording's input and files, the manifest, the job (exit 2).
    private func checked(_ recordings: [BatchRecording], manifest: String?) throws(ReplayError) -> [BatchRecording] {
        var byName: [String: BatchRecording] = [:]
        for recording in recordings {
            if let other = byName[recording.name] {
                throw .usage("\(other.listed) and \(recording.listed) would both be named \(recording.name) "
                             + "(\(other.output), \(recording.output)): give them outputs with different file names "
                             + "(a manifest's output column, or rename an input)")
            }
            byName[recording.name] = recording
        }
        let layout = layout
        let root = LocalFiles.canonicalPath(FilePath(outputDirectory)).string
        var writers: [String: String] = [:]  // canonical path → who writes it
        /// `line`: the manifest line whose row makes batch write `path` (`nil`: none does).
        func claim(_ path: String, by writer: String, field: String, line: Int?) throws(ReplayError) {
            let canonical = LocalFiles.canonicalPath(FilePath(path)).string
            guard BatchLayout.isInside(canonical: canonical, root: root) else {
                let message = "\(path) leads outside --out \(outputDirectory) (through '..' or a symbolic link): batch writes only inside it"
                guard let manifest, let line else { throw .badInput(message) }
                throw .badInput(file: manifest, line: line, field: field, message)
            }
            if let other = writers[canonical] {
                throw .usage("\(path): written for both \(other) and \(writer); give each its own name")
            }
            writers[canonical] = writer
        }
        if let reportPath { try claim(reportPath, by: "the batch report", field: "output", line: nil) }
        for recording in recordings {
            for (field, path) in layout.writtenFiles(recording) {
                try claim(path, by: recording.listed, field: field, line: recording.line)
            }
        }
        // Every file read, by every spelling it has (a URL of the file protocol, a link).
        var readByIdentity: [FileIdentity: String] = [:]
        var readByPath: [String: String] = [:]
        let batchInputs = [manifest, job?.path].compactMap { $0 }.map { ($0, "the batch") }
        var seen: Set<String> = []
        for (spelling, reader) in batchInputs + recordings.flatMap({ recording in ([recording.input] + recording.files).map { ($0, recording.listed) } })
        where seen.insert(spelling).inserted {
            let description = "\(spelling), which \(reader) reads"
            for path in LocalFiles.paths(spelling) {
                if let identity = FileIdentity(path), readByIdentity[identity] == nil { readByIdentity[identity] = description }
                let canonical = LocalFiles.canonicalPath(path).string
                if readByPath[canonical] == nil { readByPath[canonical] = description }
            }
        }
        for (canonical, writer) in writers {
            guard let read = FileIdentity(FilePath(canonical)).flatMap({ readByIdentity[$0] }) ?? readByPath[canonical] else { continue }
            throw .usage("\(canonical) (written for \(writer)) would write over \(read): "
                         + "give the output another name or directory (inputs are never written over)")
        }
        return recordings
    }

    /// Expands a glob pattern (`*`, `?`, `[…]`, `{a,b}`, `~`) to regular files; anything else
    /// (plain paths, URLs) is taken as is and checked by render.
    static func expand(_ pattern: String) -> [String] {
        guard !PathNames.isURL(pattern), pattern.contains(where: { "*?[{~".contains($0) }) else { return [pattern] }
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(pattern, GLOB_BRACE | GLOB_TILDE, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }
            .filter(PathNames.isRegularFile)
    }
}

extension JobOption {
    /// The option with each relative path in its values resolved: a file render reads against
    /// `reads`, a file it writes against `writes` (a manifest's, inside `--out`), or against
    /// `reads` too without one (a job file's). URLs, absolute paths and values that are not
    /// paths (`--mask alpha`, `--background blur:8`, `--layout grid`, numbers) stay as they are.
    func resolvingPaths(reads: String, writes: String?) -> JobOption {
        func resolved(_ value: String) -> String {
            switch key {
            case "poses", "annotations", "font": PathNames.resolve(value, against: reads)
            // compose's layout: a file name ends in .json (grid, focus and pip are names).
            case "layout": value.lowercased().hasSuffix(".json") ? PathNames.resolve(value, against: reads) : value
            case "mask": MaskSource(argument: value) == .inputAlpha ? value : PathNames.resolve(value, against: reads)
            case "background":
                // `image:PATH` or `video:PATH`: the path is everything after the first colon.
                if let file = (try? BackgroundSpec(parsing: value))?.file, let colon = value.firstIndex(of: ":") {
                    value[...colon] + PathNames.resolve(file, against: reads)
                } else { value }
            // Checked to be relative and without `..` (BatchLayout): a path under `writes`, even if it looks like a URL.
            case "preview": writes.map { PathNames.normalize($0 + "/" + value) } ?? PathNames.resolve(value, against: reads)
            case "report" where writes == nil: PathNames.resolve(value, against: reads)
            default: value
            }
        }
        var option = self
        switch value {
        case .flag: break
        case .text(let text): option.value = .text(resolved(text))
        case .list(let items): option.value = .list(items.map(resolved))
        }
        return option
    }

    /// Whether it passes anything (a flag set to `false` does not).
    var isSet: Bool { value != .flag(false) }

    /// The values this option passes (none for a flag).
    var values: [String] {
        switch value {
        case .flag: []
        case .text(let text): [text]
        case .list(let items): items
        }
    }
}
