// The batch planner's fuzz target (FuzzBatchPlan), compiled like FuzzHarness.swift twice: here for
// FuzzRegressionTests, and in the fuzz package (Fuzz/Sources/FuzzHarness/FuzzBatchPlan.swift is a
// symlink to it). Public API only.
import Foundation
import FxreplayBatch
import ReplayKitless

extension FuzzTarget {
    /// A job and a manifest from other people, planned against a real `--out` (which holds
    /// symbolic links leading out of it): every file batch would write must be inside `--out`, and
    /// every render argument must be the input, `-o OUTPUT`, or an option the job, the row or a
    /// naming pattern legitimately names (no option smuggled through a key or a value).
    ///
    /// Input: the job spec (YAML, or JSON when it starts with `{`), a line `%%`, then the
    /// manifest (JSON Lines when it starts with `{`, else CSV). Without `%%`, all manifest.
    public static let batchPlan = FuzzTarget("FuzzBatchPlan") { input in try BatchPlanFuzzing.plan(input) }
}

enum BatchPlanFuzzing {
    /// A scratch tree made once per process: `in/` with a recording and its sidecars, `out/` with
    /// `escape -> ../elsewhere` and `link.mp4 -> ../elsewhere/victim.mp4`, `elsewhere/`.
    static let root: String = {
        var template = Array((NSTemporaryDirectory() + "/fxreplay-fuzz-batch-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        let real = realpath(made, nil)
        defer { free(real) }
        let root = real.map { String(cString: $0) } ?? made
        let manager = FileManager.default
        for folder in ["in", "out", "elsewhere"] { try? manager.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true) }
        for file in ["in/a.mp4", "in/b.mp4", "in/a.poses.jsonl", "in/a.mask.mp4", "elsewhere/victim.mp4"] {
            _ = manager.createFile(atPath: "\(root)/\(file)", contents: Data("x".utf8))
        }
        try? manager.createSymbolicLink(atPath: "\(root)/out/escape", withDestinationPath: "../elsewhere")
        try? manager.createSymbolicLink(atPath: "\(root)/out/link.mp4", withDestinationPath: "../elsewhere/victim.mp4")
        return root
    }()

    /// Keys batch itself decides or that are never options of a job; none may reach render from a job or row.
    static let reserved: Set<String> = ["output", "job", "report", "overwrite", "progress", "verbose"]

    static func plan(_ input: [UInt8]) throws {
        let text = String(decoding: input, as: UTF8.self)
        let parts = text.components(separatedBy: "\n%%\n")
        let jobText = parts.count > 1 ? parts[0] : nil
        let manifestText = parts.count > 1 ? parts.dropFirst().joined(separator: "\n%%\n") : text
        let job = try jobText.map { text throws(ReplayError) in
            try JobSpec(parsing: text, path: "\(root)/in/job.yaml", json: text.first == "{")
        }
        let manifest = "\(root)/in/m.csv"
        let rows = manifestText.first(where: { !$0.isWhitespace }) == "{"
            ? try Manifest.parseJSONLines(manifestText, file: manifest) : try Manifest.parseCSV(manifestText, file: manifest)
        let out = "\(root)/out"
        var planner = BatchPlanner(outputDirectory: out, job: job)
        planner.reportPath = out + "/batch-report.json"
        let recordings = try planner.recordings(rows: rows, manifest: manifest)
        guard recordings.count == rows.count else { throw FuzzFinding("\(rows.count) rows planned as \(recordings.count) recordings") }
        let patternKeys = Set((job?.patternOptions ?? []).map(\.key) + InputDiscovery.defaultPatterns.keys)
        for (recording, row) in zip(recordings, rows) {
            let named = Set((job?.options ?? []).map(\.key) + row.options.map(\.key)).union(patternKeys)
            let arguments = recording.arguments
            guard arguments.count >= 3, arguments[0] == recording.input, !recording.input.hasPrefix("-"),
                  arguments[1] == "-o", arguments[2] == recording.output else {
                throw FuzzFinding("line \(row.line): arguments do not start with INPUT -o OUTPUT: \(arguments)")
            }
            var written = [recording.output]
            for argument in arguments.dropFirst(3) {
                let key = argument.hasPrefix("--") ? String(argument.dropFirst(2).prefix { $0 != "=" }) : ""
                let isName = !key.isEmpty && !key.hasPrefix("-")
                    && key.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") }
                guard isName, named.contains(key), !reserved.contains(key) else {
                    throw FuzzFinding("line \(row.line): argument \(argument) is no option the job or row names: \(arguments)")
                }
                if key == "preview" { written.append(String(argument.dropFirst("--preview=".count))) }
            }
            let layout = BatchLayout(directory: out)
            for path in written + [layout.log(recording), layout.report(recording), layout.lock(recording)]
            where !isInside(path, out) {
                throw FuzzFinding("line \(row.line): \(path) is written outside \(out)")
            }
        }
    }

    /// `path` is `out/…` without `.` or `..` parts, and no existing part after `out` is a
    /// symbolic link leading elsewhere (checked step by step, independently of the planner).
    static func isInside(_ path: String, _ out: String) -> Bool {
        guard path.hasPrefix(out + "/") else { return false }
        let parts = path.dropFirst(out.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.isEmpty, !parts.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) else { return false }
        var prefix = out
        for part in parts {
            prefix += "/" + part
            var info = stat()
            guard lstat(prefix, &info) == 0 else { return true }
            if info.st_mode & S_IFMT == S_IFLNK {
                guard let target = realpath(prefix, nil) else { return false }
                defer { free(target) }
                guard String(cString: target).hasPrefix(realOut + "/") else { return false }
            }
        }
        return true
    }

    static let realOut: String = {
        guard let real = realpath("\(root)/out", nil) else { return "\(root)/out" }
        defer { free(real) }
        return String(cString: real)
    }()
}
