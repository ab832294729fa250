import Foundation
import ReplayKitless

extension BatchRecording {
    /// Whether a batch input is a whole call (formats.md §9), composed rather than rendered: an
    /// individual-stream archive's `.zip`, a manifest `.json` (an archive's or a call manifest),
    /// or a folder (an unpacked archive). A glob of `*.zip` or a manifest row naming one gets
    /// `fxreplay compose`.
    package static func isCall(_ input: String) -> Bool {
        guard !PathNames.isURL(input) else { return false }
        if ["zip", "json"].contains(URL(fileURLWithPath: input).pathExtension.lowercased()) { return true }
        return CallPaths.nonRegularKind(FilePath(input)) == "a folder"
    }

    /// The files a call input makes compose read besides itself, so that a changed one makes the
    /// output stale: for a manifest `.json` or a folder, the manifest and every media file it
    /// names. A ZIP holds its own; a manifest that cannot be read names none (compose says why).
    package static func callFiles(_ input: String) -> [String] {
        let manifest: String
        switch CallPaths.nonRegularKind(FilePath(input)) {
        case "a folder"?:
            guard let found = try? OpenedCall.manifest(inFolder: FilePath(input)) else { return [] }
            manifest = found.string
        case nil where URL(fileURLWithPath: input).pathExtension.lowercased() == "json":
            manifest = input
        default:
            return []
        }
        guard let text = try? readInputText(FilePath(manifest), limit: InputLimits.callManifestBytes, kind: "call manifest"),
              let streams = try? CallManifest(json: Array(text.utf8), file: manifest).streams else { return [manifest] }
        let folder = PathNames.directory(of: manifest)
        return [manifest] + streams.flatMap(\.tracks).compactMap { track in
            (try? CallPaths.components(of: track.file, track: track, manifest: manifest)).map { ([folder] + $0).joined(separator: "/") }
        }
    }
}

extension BatchPlanner {
    /// A call's job arguments: `--job` with the job's absolute path (compose expands its options
    /// and reads its `streams:`), the job file counted among the files that make an output stale.
    func callJobArguments(_ files: inout [String]) -> [String] {
        guard let job else { return [] }
        let path = PathNames.absolute(job.path)
        if !files.contains(path) { files.append(path) }
        return ["--job=\(path)"]
    }
}
