import Foundation
import ReplayKitless

/// How batch writes and reads path names besides the library's ``PathNames/isURL(_:)`` and
/// ``PathNames/directory(of:)``: names, one spelling of a path, resolving. Shared by the planner,
/// discovery, sharding and fingerprints.
extension PathNames {
    /// A recording's name: its file name without the extension (URL queries ignored).
    package static func name(of path: String) -> String {
        var last = path
        if isURL(path), let url = URL(string: path) { last = url.lastPathComponent }
        last = String(last.split(separator: "/").last ?? Substring(last))
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return last }
        return String(last[..<dot])
    }

    /// A path written one way only: no `./` segments, no repeated or trailing slashes, and a
    /// leading `./` kept only where the path would otherwise start with `-`. `..` is kept
    /// (resolving it needs the file system); symlinks are not resolved. URLs are left alone.
    package static func normalize(_ path: String) -> String {
        guard !isURL(path), !path.isEmpty else { return path }
        let absolute = path.hasPrefix("/")
        let parts = path.split(separator: "/").filter { $0 != "." }
        var result = parts.joined(separator: "/")
        if absolute { result = "/" + result }
        if result.isEmpty { return absolute ? "/" : "." }
        if result.hasPrefix("-") { result = "./" + result }
        return result
    }

    /// `relative` resolved against `directory` (absolute paths and URLs unchanged).
    package static func resolve(_ relative: String, against directory: String) -> String {
        if isURL(relative) || relative.hasPrefix("/") || directory == "." { return normalize(relative) }
        return normalize(directory + "/" + relative)
    }

    /// `path` resolved against the working directory, normalized (URLs unchanged), with `..` resolved
    /// as the file system resolves it (through symbolic links): up to the last `..`, the path must
    /// exist; when it does not, the `..` stay.
    package static func absolute(_ path: String) -> String {
        let resolved = resolve(path, against: FileManager.default.currentDirectoryPath)
        let parts = resolved.split(separator: "/", omittingEmptySubsequences: false)
        guard !isURL(resolved), let last = parts.lastIndex(of: "..") else { return resolved }
        let head = parts[...last].joined(separator: "/"), tail = parts[(last + 1)...].joined(separator: "/")
        guard let real = realpath(head, nil) else { return resolved }
        defer { free(real) }
        return normalize(String(cString: real) + "/" + tail)
    }

    /// Whether `path` is a regular file, following a symbolic link.
    package static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
