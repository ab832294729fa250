import Foundation
import ReplayKitless

/// Size and modification time of a regular file, for fingerprints and the report.
package struct FileStatus {
    package var size: Int64
    /// Nanoseconds since 1970.
    package var modified: Int64

    package init?(_ path: String) {
        var info = stat()
        guard !PathNames.isURL(path), stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}
