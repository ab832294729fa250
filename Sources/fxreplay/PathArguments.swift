import Foundation
import ReplayKitless

/// The file paths typed on the command line, as the library takes them.
///
/// `FilePath` drops a trailing `/`, which says that a name is a folder: `-o clip.mp4/` would become
/// `clip.mp4` and be written. These keep the slash's meaning, as the system calls would have on
/// the typed spelling, so such a name is refused, naming it as typed.
enum PathArgument {
    /// An output file: a name ending in `/` is a folder, never an output (exit 2).
    static func output(_ spelling: String) throws(ReplayError) -> FilePath {
        if spelling.count > 1, spelling.hasSuffix("/") {
            throw isFolder(spelling) ? .usage("\(spelling): is a directory") : .usage("\(spelling): ends in /, so names a folder, not an output file")
        }
        return FilePath(spelling)
    }

    /// A file or folder to read: a name ending in `/` must be a folder (exit 3 when it is a file).
    static func input(_ spelling: String) throws(ReplayError) -> FilePath {
        if spelling.count > 1, spelling.hasSuffix("/"), FileManager.default.fileExists(atPath: String(spelling.dropLast())), !isFolder(spelling) {
            throw .badInput(file: spelling, "not a folder (the name ends in /)")
        }
        return FilePath(spelling)
    }

    private static func isFolder(_ spelling: String) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: spelling, isDirectory: &folder) && folder.boolValue
    }
}
