import Foundation

/// The self-contained tarball's folder (`scripts/package.sh tarball`) when this process is its `fxreplay`, else
/// `nil`. A program's interpreter path cannot be relative to the program, so the tarball's `bin/fxreplay` is a small
/// static launcher (packaging/launcher.c) that runs the real binary through the bundled dynamic loader, `lib/`'s
/// `ld-linux-x86-64.so.2`, and names the folder in `FXREPLAY_BUNDLE`. The variable counts only while that loader is
/// the running executable, so one inherited by any other program (or set by hand) changes nothing.
///
/// Public for the programs built on the library (the CLI and its batch runner): the library itself finds its bundled font here.
public enum BundledBuild {
    /// The tarball's folder while this process runs from it, else `nil`.
    public static let root: String? = {
        guard let root = ProcessInfo.processInfo.environment["FXREPLAY_BUNDLE"], root.hasPrefix("/"),
              runningExecutable == root + "/lib/ld-linux-x86-64.so.2" else { return nil }
        return root
    }()

    /// The path of the running executable (`/proc/self/exe`), falling back to `argv[0]`.
    public static var runningExecutable: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
