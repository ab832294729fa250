import Foundation

extension BatchRecording {
    /// Whether a batch input is a whole call (formats.md §9), composed rather than rendered: an
    /// individual-stream archive's `.zip`, or a manifest `.json` (an archive's or a call manifest).
    /// A glob of `*.zip` or a manifest row naming one gets `fxreplay compose`.
    package static func isCall(_ input: String) -> Bool {
        guard !BatchPaths.isURL(input) else { return false }
        return ["zip", "json"].contains(URL(fileURLWithPath: input).pathExtension.lowercased())
    }
}

extension BatchPlanner {
    /// A call's job arguments: `--job` with the job's absolute path (compose expands its options
    /// and reads its `streams:`), the job file counted among the files that make an output stale.
    func callJobArguments(_ files: inout [String]) -> [String] {
        guard let job else { return [] }
        let path = BatchPaths.absolute(job.path)
        if !files.contains(path) { files.append(path) }
        return ["--job=\(path)"]
    }
}
