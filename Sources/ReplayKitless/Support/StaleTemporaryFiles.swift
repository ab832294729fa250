import Foundation

/// Size and modification time of a regular local file (a symbolic link followed): what tells a
/// batch's output unchanged since its fingerprint, and another machine's temporary file stale.
public struct FileStatus: Sendable, Equatable {
    /// Bytes.
    public var size: Int64
    /// Nanoseconds since 1970.
    public var modified: Int64

    /// `path`'s status; `nil` for a missing file or anything but a regular file.
    public init?(_ path: FilePath) {
        var info = stat()
        guard stat(path.string, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}

/// Removes temporary files that a killed run left next to `finalPath` (the hidden files
/// ``AtomicOutput`` writes before renaming into place) and returns how many. A file this machine
/// wrote is kept while its process lives (a second batch on the same directory); one another
/// machine wrote (a directory shared by a cluster's workers), while it changed in the last ten
/// minutes, as a live render's output keeps growing. The library calls it for every output it
/// writes; a program calls it for a file it does not write again (an output found up to date).
@discardableResult
public func removeStaleTemporaryFiles(for finalPath: FilePath) -> Int {
    let directory = PathNames.directory(of: finalPath.string)
    guard let fileName = finalPath.lastComponent?.string else { return 0 }
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
    var removed = 0
    for name in names {
        guard let writer = TemporaryName.writer(of: name, for: fileName) else { continue }
        let path = directory + "/" + name
        let isLocal = writer.host == nil || writer.host == TemporaryName.host
        if isLocal ? writer.pid.map(isRunning) == true : changedRecently(path) { continue }
        if unlink(path) == 0 { removed += 1 }
    }
    return removed
}

/// How long another machine's temporary file may go unchanged before it counts as left behind.
package let staleTemporaryFileAge: TimeInterval = 600

private func changedRecently(_ path: String) -> Bool {
    guard let modified = FileStatus(FilePath(path))?.modified else { return false }
    return Date().timeIntervalSince1970 - Double(modified) / 1e9 < staleTemporaryFileAge
}

/// Whether process `pid` exists and has not ended (a zombie, ended but not yet waited for, has).
package func isRunning(_ pid: Int32) -> Bool {
    guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
    // /proc/PID/stat: "PID (command) STATE …"
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return true }
    let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
    return state != "Z" && state != "X"
}
