import Foundation

/// How the library tells a URL from a local path, and finds a local path's folder: on spellings as
/// typed (strings), before they become `FilePath`s, which would fold a URL's `//`.
public enum PathNames {
    /// Whether `path` is opened by protocol (`https://…`, `file:///…`, under the ``InputPolicy``)
    /// rather than as a local file: a scheme (a letter, then letters, digits, `+`, `-`, `.`) and `://`.
    public static func isURL(_ path: String) -> Bool {
        guard let separator = path.range(of: "://") else { return false }
        let scheme = Array(path[..<separator.lowerBound].utf8)
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        guard let first = scheme.first, isLetter(first) else { return false }
        return scheme.allSatisfy { isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || "+-.".utf8.contains($0) }
    }

    /// The directory part of a local path: what comes before its last `/` (`/` for a file at the
    /// root, `.` when there is none); the folder an output's temporary file is written in.
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
