import Foundation

/// The local files a command-line spelling of an input may open, whichever reader opens it.
///
/// One string can reach one file in many ways: as a plain path (the sidecar, scene and track readers),
/// or through libavformat's `file` protocol (`file:x.mp4`, `file:///abs/x.mp4`) and the protocols that
/// wrap another URL and end up at a local file: `async:`, `cache:`, `crypto:`/`crypto+`, `hls+`,
/// `subfile,,start,N,end,M,,:URL`, `concat:a|b` (several), `concatf:LIST` (the list and every URL in
/// it), `bluray:DIR`. Outputs must never be one of them, so every reading is taken: a spelling stands
/// for all the files it could open (over-protecting an odd file name costs a refusal, under-protecting
/// costs a recording). Public so that a program checking its own outputs against its inputs (as
/// `fxreplay batch` plans do) takes every reading too.
public enum LocalFiles {
    /// Wrappers whose rest, after `NAME:`, is another URL (FFmpeg 5.1: async.c, cache.c, crypto.c, hlsproto.c).
    static let nestingProtocols: Set<String> = ["async", "cache", "crypto", "hls", "bluray"]
    /// How deep wrappers are unwrapped (`cache:async:cache:…`), and how many URLs a concat list may add.
    static let maximumDepth = 16
    static let maximumListEntries = 1024
    static let maximumListBytes = 1 << 20

    /// Every local path `spelling` may open: the spelling itself as a path, and what its protocol
    /// wrappers lead to (recursively). No path is resolved here; see ``canonicalPath(_:)``.
    public static func paths(_ spelling: String) -> [FilePath] {
        var result: [String] = []
        var seen: Set<String> = []
        collect(spelling, depth: 0, into: &result, seen: &seen)
        return result.map { FilePath($0) }
    }

    private static func collect(_ spelling: String, depth: Int, into result: inout [String], seen: inout Set<String>) {
        guard !spelling.isEmpty, depth <= maximumDepth, seen.insert(spelling).inserted else { return }
        result.append(spelling)
        for nested in nestedURLs(spelling) { collect(nested, depth: depth + 1, into: &result, seen: &seen) }
    }

    /// The URLs (or paths) one protocol layer of `spelling` opens, as libavformat's `url_find_protocol`
    /// and each protocol's `open` read it: the scheme is the leading run of letters, digits, `+`, `-`
    /// and `.` before `:`; a `+` ends the protocol's name (`crypto+file:x`).
    static func nestedURLs(_ spelling: String) -> [String] {
        let schemeEnd = spelling.firstIndex { !($0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0))) } ?? spelling.endIndex
        let scheme = spelling[..<schemeEnd]
        let name = scheme.prefix { $0 != "+" }.lowercased()
        // `crypto+URL`, `hls+URL`: the nested URL starts after the `+`.
        if scheme.contains("+") {
            let afterPlus = spelling[spelling.index(after: scheme.firstIndex(of: "+")!)...]
            return nestingProtocols.contains(name) ? [String(afterPlus)] : []
        }
        if name == "subfile" {
            // `subfile,,start,N,end,M,,:URL`: options between commas, then the URL after a colon.
            // The options are not parsed here: every text after a colon is a possible URL.
            return spelling.indices.filter { spelling[$0] == ":" }.map { String(spelling[spelling.index(after: $0)...]) }
        }
        guard schemeEnd < spelling.endIndex, spelling[schemeEnd] == ":" else { return [] }
        let rest = String(spelling[spelling.index(after: schemeEnd)...])
        switch name {
        case "file": return fileProtocolPaths(rest)
        case "concat": return rest.split(separator: "|", omittingEmptySubsequences: true).map(String.init)
        case "concatf": return [rest] + listedURLs(rest)
        default: return nestingProtocols.contains(name) ? [rest] : []
        }
    }

    /// What `file:REST` opens: libavformat strips `file:` and opens the rest as it is (`///abs/x`
    /// is `/abs/x`), but a URL reader would take `//host/path` as `/path` and decode `%XX`: both.
    static func fileProtocolPaths(_ rest: String) -> [String] {
        var paths = [rest]
        if rest.hasPrefix("//"), !rest.hasPrefix("///") {
            let afterAuthority = rest.dropFirst(2)
            paths.append(afterAuthority.firstIndex(of: "/").map { String(afterAuthority[$0...]) } ?? "/")
        }
        paths += paths.compactMap { $0.removingPercentEncoding }.filter { !paths.contains($0) }
        return paths
    }

    /// The URLs a `concatf:` list names, one per line (and, read relative to the list's folder, too).
    private static func listedURLs(_ list: String) -> [String] {
        guard let handle = FileHandle(forReadingAtPath: list) else { return [] }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maximumListBytes)) ?? Data()
        let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.prefix(maximumListEntries)
        let folder = PathNames.directory(of: list)
        return lines.flatMap { line in line.hasPrefix("/") ? [line] : [line, folder + "/" + line] }
    }

    /// `path` made absolute with every symbolic link on the way resolved, as far as the file
    /// system has it: the existing part through `realpath`, the rest taken lexically (`..` drops a
    /// component), a dangling link followed to where it points. Two spellings of one file that do
    /// not exist yet (two outputs of a run) come out equal.
    public static func canonicalPath(_ path: FilePath) -> FilePath {
        FilePath(canonicalPath(path.isAbsolute ? path.string : FileManager.default.currentDirectoryPath + "/" + path.string, links: 0))
    }

    private static func canonicalPath(_ absolute: String, links: Int) -> String {
        if let real = realpath(absolute, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let trimmed = absolute.hasSuffix("/") && absolute.count > 1 ? String(absolute.dropLast()) : absolute
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        let parentPath = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
        let last = String(trimmed[trimmed.index(after: slash)...])
        let parent = parentPath == "/" ? "/" : canonicalPath(parentPath, links: links)
        let joined = parent == "/" ? "/" + last : parent + "/" + last
        switch last {
        case "", ".": return parent
        case "..": return PathNames.directory(of: parent)
        default:
            // A dangling symbolic link: the file it will create is where it points.
            if links < 40, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: joined) {
                return canonicalPath(target.hasPrefix("/") ? target : parent + "/" + target, links: links + 1)
            }
            return joined
        }
    }

    /// The first of `spellings` that names the same file as the local path `path`: the same device
    /// and inode when both exist (a symbolic or hard link, another spelling, a bind mount), else
    /// the same ``canonicalPath(_:)``.
    package static func firstSameFile(as path: FilePath, among spellings: [String]) -> String? {
        let identity = FileIdentity(path)
        let canonical = canonicalPath(path)
        return spellings.first { spelling in
            paths(spelling).contains { candidate in
                if let identity, let other = FileIdentity(candidate) { return identity == other }
                return canonicalPath(candidate) == canonical
            }
        }
    }
}
