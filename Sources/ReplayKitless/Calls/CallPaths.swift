import Foundation

/// The file names a manifest may use (formats.md §9): relative to the manifest's folder and
/// staying inside it. Absolute names and `..` are refused before anything is opened or extracted.
public enum CallPaths {
    /// `name` (a ``CallManifest/Track/file``) split into its components, refusing absolute names, `..`,
    /// and backslashes (a ZIP made on Windows separates folders with them, so `..\x` would climb too):
    /// join them to the manifest's folder to find the file as ``OpenedCall/open(_:)`` does.
    /// - Throws: `ReplayError.badInput` naming `manifest` (as ``Call/manifest`` does), the track's entry and field.
    public static func components(of name: String, track: CallManifest.Track, manifest: String) throws(ReplayError) -> [String] {
        func refuse(_ why: String) -> ReplayError {
            .badInput(file: manifest, line: track.line, field: "\(track.entry), \(track.fileKey)", "\"\(name)\" \(why)")
        }
        guard !name.hasPrefix("/") else { throw refuse("is an absolute name; file names are relative to the manifest's folder") }
        guard !name.contains("\\") else { throw refuse("contains a backslash; file names use '/' between folders") }
        let parts = name.split(separator: "/", omittingEmptySubsequences: true).map(String.init).filter { $0 != "." }
        guard !parts.contains("..") else { throw refuse("contains '..': the file would be outside the call's folder") }
        guard !parts.isEmpty else { throw refuse("names no file") }
        return parts
    }

    /// The file `name` names in `folder` (a folder on disk holding the manifest). With
    /// `confined` (an archive's folder) a symbolic link leading out of the folder is refused.
    /// - Throws: `ReplayError.badInput` naming the manifest, entry and field for a bad or missing file.
    static func resolve(_ name: String, in folder: String, track: CallManifest.Track, manifest: String,
                        confined: Bool) throws(ReplayError) -> String {
        let parts = try components(of: name, track: track, manifest: manifest)
        let path = ([folder] + parts).joined(separator: "/")
        switch nonRegularKind(FilePath(path)) {
        case nil: break
        case "missing"?:
            throw .badInput(file: manifest, line: track.line, field: "\(track.entry), \(track.fileKey)", "\"\(name)\" is missing (looked for \(path))")
        case "a folder"?:
            throw .badInput(file: manifest, line: track.line, field: "\(track.entry), \(track.fileKey)", "\"\(name)\" is a folder, not a media file")
        case let kind?:
            // Opening a FIFO waits for a writer, a device reads forever: a call's files are regular ones.
            throw .badInput(file: manifest, line: track.line, field: "\(track.entry), \(track.fileKey)", "\"\(name)\" is not a regular file (\(kind))")
        }
        if confined {
            let root = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
            let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            guard real.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
                throw .badInput(file: manifest, line: track.line, field: "\(track.entry), \(track.fileKey)",
                                "\"\(name)\" leads outside the archive's folder (to \(real))")
            }
        }
        return path
    }

    /// What `path` is when it is not a regular file (a symbolic link is followed): `missing`,
    /// `a folder`, `a FIFO`, `a socket`, `a device`; `nil` for a regular file. Found without
    /// opening it, which for a FIFO would wait for a writer.
    public static func nonRegularKind(_ path: FilePath) -> String? {
        var info = stat()
        guard stat(path.string, &info) == 0 else { return "missing" }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        default: return "a device"
        }
    }
}
