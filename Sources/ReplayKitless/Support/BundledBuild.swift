import Foundation

/// The self-contained tarball's folder (`scripts/package.sh tarball`) when this process is its `fxreplay`, else
/// `nil`. A program's interpreter path cannot be relative to the program, so the tarball's `bin/fxreplay` is a small
/// static launcher (packaging/launcher.c) that runs the real binary through the bundled dynamic loader, `lib/`'s
/// `ld-linux-x86-64.so.2`, and names the folder in `FXREPLAY_BUNDLE`. The variable counts only while that loader is
/// the running executable, so one inherited by any other program (or set by hand) changes nothing.
package enum BundledBuild {
    package static let root: String? = {
        guard let root = ProcessInfo.processInfo.environment["FXREPLAY_BUNDLE"], root.hasPrefix("/"),
              ChildProcess.runningExecutable == root + "/lib/ld-linux-x86-64.so.2" else { return nil }
        return root
    }()
}
