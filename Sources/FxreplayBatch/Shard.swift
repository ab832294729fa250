import Foundation
import ReplayKitless

/// One worker's share of a batch: the recordings whose listed path hashes to ``index``
/// modulo ``count``. The hash is FNV-1a 64 of the path's UTF-8 bytes after
/// ``PathNames/normalize(_:)``, exactly as listed (glob match or manifest cell, before
/// resolving against the manifest's directory), so every machine given the same list picks
/// the same recordings and each recording is done by exactly one worker.
package struct Shard: Sendable, Equatable, CustomStringConvertible {
    package let index: Int
    package let count: Int

    package init(index: Int, count: Int) throws(ReplayError) {
        guard count >= 1 else { throw .usage("shard count must be 1 or more (got \(count))") }
        guard (0..<count).contains(index) else { throw .usage("shard index \(index) must be 0 to \(count - 1) for \(count) shards (shards count from 0)") }
        self.index = index
        self.count = count
    }

    /// Parses `INDEX/COUNT`, e.g. `0/3`.
    package init(parsing text: String) throws(ReplayError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw .usage("--shard: '\(text)' is not INDEX/COUNT such as 0/4")
        }
        try self.init(index: index, count: count)
    }

    package var description: String { "\(index)/\(count)" }

    /// Whether this shard does the recording listed as `path`.
    package func contains(_ path: String) -> Bool { Self.index(of: path, count: count) == index }

    /// The shard that does `path` among `count`.
    package static func index(of path: String, count: Int) -> Int {
        Int(fnv1a64(PathNames.normalize(path).utf8) % UInt64(max(1, count)))
    }

    /// Where a shard came from, for the log line.
    package enum Source: String, Sendable {
        case commandLine = "--shard"
        case kubernetes = "JOB_COMPLETION_INDEX"
        case slurm = "SLURM_ARRAY_TASK_ID"
    }

    /// The shard of a Kubernetes Indexed Job (`JOB_COMPLETION_INDEX`, with `count` or
    /// `FXREPLAY_SHARD_COUNT`) or a Slurm job array (`SLURM_ARRAY_TASK_ID` minus
    /// `SLURM_ARRAY_TASK_MIN`, divided by `SLURM_ARRAY_TASK_STEP`, among `count`,
    /// `FXREPLAY_SHARD_COUNT` or `SLURM_ARRAY_TASK_COUNT`); `nil` when neither is set.
    package static func fromEnvironment(_ environment: [String: String], count explicitCount: Int?) throws(ReplayError) -> (Shard, Source)? {
        func number(_ name: String) throws(ReplayError) -> Int? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            guard let value = Int(text) else { throw .usage("\(name)='\(text)' is not a number") }
            return value
        }
        var configuredCount = explicitCount
        if configuredCount == nil { configuredCount = try number("FXREPLAY_SHARD_COUNT") }
        if let index = try number("JOB_COMPLETION_INDEX") {
            guard let count = configuredCount else {
                throw .usage("JOB_COMPLETION_INDEX is set but the shard count is not: pass --shard-count N (the Job's completions) or set FXREPLAY_SHARD_COUNT")
            }
            return (try Shard(index: index, count: count), .kubernetes)
        }
        if let id = try number("SLURM_ARRAY_TASK_ID") {
            let minimum = try number("SLURM_ARRAY_TASK_MIN") ?? 0
            let step = max(1, try number("SLURM_ARRAY_TASK_STEP") ?? 1)
            if configuredCount == nil { configuredCount = try number("SLURM_ARRAY_TASK_COUNT") }
            guard let count = configuredCount else {
                throw .usage("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not: pass --shard-count N")
            }
            guard (id - minimum) % step == 0, id >= minimum else {
                throw .usage("SLURM_ARRAY_TASK_ID \(id) is not on the array's range from \(minimum) in steps of \(step): use --array=A-B[:STEP]")
            }
            do {
                return (try Shard(index: (id - minimum) / step, count: count), .slurm)
            } catch {
                throw .usage("SLURM_ARRAY_TASK_ID \(id) (from \(minimum) in steps of \(step)) does not fit \(count) shards: use a contiguous --array=A-B[:STEP] or --shard-count")
            }
        }
        return nil
    }
}
