import Foundation

/// The files of one run that appear together or not at all: each is written in full under its
/// temporary name (``AtomicOutput``), and only when all are complete does ``commit()`` move them
/// into place, so a failure part-way (a full disk) leaves none of them. Files never committed are
/// removed when the group goes away. Two outputs naming the same file are refused.
public final class OutputGroup {
    private var outputs: [AtomicOutput] = []

    /// An empty group.
    public init() {}

    /// Reserves `path` for one output of the group.
    /// - Parameters:
    ///   - overwrite: replace an existing file instead of refusing.
    ///   - inputs: spellings of files that must never be written over (local paths, or URLs that may open them).
    /// - Throws: `usage` when `path` is an input or already an output of the group (a device or
    ///   pipe such as /dev/stdout may take several).
    public func reserve(_ path: FilePath, overwrite: Bool = true, inputs: [String] = []) throws(ReplayError) -> AtomicOutput {
        let output = try AtomicOutput(path: path, overwrite: overwrite, inputs: inputs)
        if !output.isStream, let other = outputs.first(where: { !$0.isStream && $0.resolvedDestination == output.resolvedDestination }) {
            output.abort()
            throw .usage("\(path): the same file as the output \(other.finalPath) of this run; give each output its own name")
        }
        outputs.append(output)
        return output
    }

    /// Writes `data` as the whole of `path`, out of sight until ``commit()``.
    public func write(_ data: Data, to path: FilePath, overwrite: Bool = true, inputs: [String] = []) throws(ReplayError) {
        try reserve(path, overwrite: overwrite, inputs: inputs).write(data)
    }

    /// Refuses, before any output moves, when one would land on a file the run has read since it was
    /// reserved (``AtomicOutput/checkUnread()``). A command whose video the library commits calls it
    /// before that commit, so the video does not appear without its report.
    public func checkUnread() throws(ReplayError) {
        for output in outputs { try output.checkUnread() }
    }

    /// Moves every output into place, in the order they were reserved.
    public func commit() throws(ReplayError) {
        try checkUnread()
        for output in outputs { try output.commit() }
        outputs.removeAll()
    }
}
