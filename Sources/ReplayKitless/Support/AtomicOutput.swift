import Foundation

/// An output file that is either complete or absent (formats.md §8): everything is written to a
/// hidden temporary file next to the final path and renamed into place only on success.
/// On failure, deinit or SIGINT/SIGTERM/SIGHUP the temporary file is removed.
///
/// A path that names a device or a pipe (`/dev/null`, `/dev/stdout`, a FIFO), or anything under
/// /dev or /proc (`/dev/stdout` leads to whatever the shell redirected it to), is written straight
/// through: there is no file to make atomic, and renaming over it would replace the device. A
/// symbolic link is followed: the file it points to is replaced, the link stays. `-` stands for
/// standard output, as for most Unix tools.
public final class AtomicOutput: @unchecked Sendable {
    /// The path the user asked for.
    public let finalPath: FilePath
    /// Where the bytes go until ``commit()``: a temporary file, or `finalPath` itself for a device or pipe.
    public let temporaryPath: FilePath
    /// `finalPath` is a device or a pipe, written in place.
    public let isStream: Bool
    /// The file ``commit()`` puts in place: `finalPath`, or the file its symbolic link points to.
    private let destination: String
    /// `destination` with every symbolic link on the way resolved: one file, one spelling.
    var resolvedDestination: String { URL(fileURLWithPath: destination).resolvingSymlinksInPath().path }
    private let overwrite: Bool
    /// What the refusal to replace a file calls the option that would: the caller's property.
    private let overwriteOption: String
    /// The output deliberately rewrites a file the run read (`framehash --check G --update`).
    private let rewritesReadFile: Bool
    private var done = false

    /// Checks the destination and reserves a temporary path next to it.
    /// - Parameters:
    ///   - overwrite: replace an existing file instead of refusing.
    ///   - overwriteOption: the property `overwrite` comes from (`RenderOptions.overwrite`), which the
    ///     refusal names (``ReplayError/options``); `overwrite`, a call's parameter, by default.
    ///   - inputs: spellings of files that must never be written over (local paths, or URLs that may open them).
    ///   - rewritesReadFile: the output is meant to replace a file the run has read (a golden file
    ///     being updated), so ``ReadFiles`` does not refuse it; `inputs` still do.
    public init(path: FilePath, overwrite: Bool, overwriteOption: String = "overwrite", inputs: [String] = [],
                 rewritesReadFile: Bool = false) throws(ReplayError) {
        self.overwriteOption = overwriteOption
        finalPath = path
        let path = path.string
        let written = path == "-" ? "/dev/stdout" : path
        let url = URL(fileURLWithPath: written)
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw .processing("\(path): output directory \(directory) does not exist")
        }
        guard isDirectory.boolValue else { throw .processing("\(path): \(directory) is a file, not a directory") }
        var status = stat()
        let exists = stat(written, &status) == 0
        // The same file by any spelling: a URL of libavformat's file protocol or a wrapper of it,
        // a symbolic or a hard link (see LocalFiles).
        if let input = LocalFiles.firstSameFile(as: FilePath(written), among: inputs) ?? (rewritesReadFile ? nil : ReadFiles.readAs(FilePath(written))) {
            throw .usage("\(path): refusing to write over \(input) (an input, or another output, of this run)")
        }
        let links = Self.linkChain(url)
        let underDevices = links.contains { $0.path.hasPrefix("/dev/") || $0.path.hasPrefix("/proc/") }
        if exists, status.st_mode & S_IFMT != S_IFREG || underDevices {
            if status.st_mode & S_IFMT == S_IFDIR { throw .usage("\(path): is a directory") }
            guard access(written, W_OK) == 0 else { throw .processing("\(path): cannot write (permission denied)") }
            temporaryPath = FilePath(written)
            destination = written
            self.overwrite = true
            self.rewritesReadFile = rewritesReadFile
            isStream = true
            return
        }
        if exists {
            if status.st_mode & S_IFMT == S_IFDIR { throw .usage("\(path): is a directory") }
            if !overwrite { throw .usage("\(path): already exists (`\(overwriteOption)` replaces it)", options: [overwriteOption]) }
        }
        let target = links[links.count - 1]
        let targetDirectory = target.deletingLastPathComponent().path
        guard access(targetDirectory, W_OK) == 0 else {
            throw .processing("\(path): cannot write to directory \(targetDirectory) (\(errno == ENOENT ? "it does not exist" : String(cString: strerror(errno))))")
        }
        destination = target.path
        self.overwrite = overwrite
        self.rewritesReadFile = rewritesReadFile
        // What a killed run (SIGKILL, a crash, a power cut) left of this same output goes first.
        removeStaleTemporaryFiles(for: FilePath(target.path))
        temporaryPath = FilePath(target.deletingLastPathComponent().appendingPathComponent(TemporaryName.make(for: target.lastPathComponent)).path)
        isStream = false
        InterruptCleanup.shared.register(temporaryPath.string)
    }

    deinit { if !done { abort() } }

    /// `url` and every path its chain of symbolic links leads through, to where it ends (perhaps
    /// at a file that does not exist yet).
    private static func linkChain(_ url: URL) -> [URL] {
        var chain = [url.standardizedFileURL]
        for _ in 0..<40 {
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: chain[chain.count - 1].path) else { break }
            chain.append(URL(fileURLWithPath: link, relativeTo: chain[chain.count - 1].deletingLastPathComponent()).standardizedFileURL)
        }
        return chain
    }

    /// Moves the finished temporary file into place. Without `overwrite` a file that appeared
    /// there meanwhile (another run's) is not replaced: the link fails instead, atomically.
    public func commit() throws(ReplayError) {
        guard !done else { return }
        try checkUnread()
        done = true
        guard !isStream else { return }
        InterruptCleanup.shared.unregister(temporaryPath.string)
        defer { unlink(temporaryPath.string) }
        if !overwrite {
            if link(temporaryPath.string, destination) == 0 { return }
            if errno == EEXIST {
                throw .usage("\(finalPath): appeared while this run was writing it; left as it is (`\(overwriteOption)` replaces it)",
                             options: [overwriteOption])
            }
            // (A file system without hard links: a plain rename.)
        }
        if rename(temporaryPath.string, destination) != 0 {
            throw .processing("\(finalPath): cannot move the finished output into place: \(String(cString: strerror(errno)))")
        }
    }

    /// Refuses to put the output over a file the run has read since the output was reserved (a
    /// font or a track opened late; see ``ReadFiles``); the temporary file is then removed.
    public func checkUnread() throws(ReplayError) {
        guard !done, !isStream, !rewritesReadFile, let input = ReadFiles.readAs(FilePath(destination)) else { return }
        abort()
        throw .usage("\(finalPath): refusing to write over \(input) (an input of this run); nothing written")
    }

    /// Removes the temporary file; the final path is left untouched.
    public func abort() {
        done = true
        guard !isStream else { return }
        unlink(temporaryPath.string)
        InterruptCleanup.shared.unregister(temporaryPath.string)
    }

    /// Writes `data` atomically to `path` (reports, tracks, CSV files).
    public static func write(_ data: Data, to path: FilePath, overwrite: Bool = true, inputs: [String] = [],
                              rewritesReadFile: Bool = false) throws(ReplayError) {
        let output = try AtomicOutput(path: path, overwrite: overwrite, inputs: inputs, rewritesReadFile: rewritesReadFile)
        try output.write(data)
        try output.commit()
    }

    /// Writes `data` as the whole output, before ``commit()``; a failed write (a full disk) throws.
    public func write(_ data: Data) throws(ReplayError) {
        let descriptor = open(temporaryPath.string, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .processing("\(finalPath): cannot write (\(String(cString: strerror(errno))))") }
        var failure: Int32 = 0
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { failure = written < 0 ? errno : EIO; return }
                offset += written
            }
        }
        if close(descriptor) != 0 && failure == 0 { failure = errno }
        if failure != 0 { throw .processing("\(finalPath): cannot write (\(String(cString: strerror(failure))))\(Self.hint(failure))") }
    }

    /// What a write that failed with `errorNumber` ran into, for its message: the limits a
    /// server run meets.
    static func hint(_ errorNumber: Int32) -> String {
        switch errorNumber {
        case EFBIG: " (the file-size limit was reached: ulimit -f)"
        case ENOSPC, EDQUOT, EIO: " (disk full?)"
        default: ""
        }
    }
}

/// Removes registered temporary files when the process is interrupted, then hands the signal to
/// the program, which ends the process (the library never does): `fxreplay` exits with 128 + the
/// signal number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP: a closed terminal, 152 for
/// SIGXCPU: the CPU-time limit, 142 for SIGALRM, 138/140 for SIGUSR1/SIGUSR2).
///
/// SIGXFSZ (the file-size limit, `ulimit -f`) is ignored instead: the write past the limit then
/// fails with EFBIG, and the run ends as any failed write does, exit 4 naming the limit. What
/// cannot be caught (SIGKILL, a crash) leaves its temporary file to the next run that writes the
/// same output (``AtomicOutput`` removes those whose writer is gone).
public final class InterruptCleanup: @unchecked Sendable {
    /// The process's one set of handlers and registered files.
    public static let shared = InterruptCleanup()
    /// The signals that end a run early and cleanly: every signal whose default action ends the
    /// process and that a user, a scheduler or a resource limit sends to stop a run.
    public static let signals = [SIGINT, SIGTERM, SIGHUP, SIGXCPU, SIGALRM, SIGUSR1, SIGUSR2]
    /// Those of ``signals`` not ignored when the process started (`nohup` ignores SIGHUP): only
    /// these are caught, and a child process gets them back at their defaults.
    public static let caught = signals.filter { !isIgnored($0) }
    private let lock = NSLock()
    private var paths: Set<String> = []
    /// Private folders (a call's extracted ZIP members), removed with everything in them.
    private var directories: Set<String> = []
    private var sources: [DispatchSourceSignal] = []

    /// Installs the handlers (once per process): on one of ``caught``, every registered temporary
    /// file and folder is removed, then `stop` runs with the signal's number (and is expected to end
    /// the process). A signal the process was started with ignored stays ignored: `nohup` runs keep
    /// running when the terminal closes.
    public func install(then stop: @escaping @Sendable (_ signal: Int32) -> Void) {
        lock.withLock {
            guard sources.isEmpty else { return }
            Self.ignoreFileSizeSignal()
            sources = Self.handle { [unowned self] signalNumber in
                self.removeRegistered()
                stop(signalNumber)
            }
        }
    }

    /// Makes a write past the file-size limit fail (EFBIG) instead of killing the process.
    public static func ignoreFileSizeSignal() { signal(SIGXFSZ, SIG_IGN) }

    /// Routes each of ``caught`` to `handler`, on a dispatch queue.
    public static func handle(_ handler: @escaping @Sendable (Int32) -> Void) -> [any DispatchSourceSignal] {
        caught.map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { handler(signalNumber) }
            source.resume()
            return source
        }
    }

    private static func isIgnored(_ signalNumber: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(signalNumber, nil, &current) == 0, let handler = current.__sigaction_handler.sa_handler else { return false }
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    func register(_ path: String) { lock.withLock { _ = paths.insert(path) } }
    func unregister(_ path: String) { lock.withLock { _ = paths.remove(path) } }
    func registerDirectory(_ path: String) { lock.withLock { _ = directories.insert(path) } }
    func unregisterDirectory(_ path: String) { lock.withLock { _ = directories.remove(path) } }

    /// Removes every registered temporary file and folder.
    private func removeRegistered() {
        let pending = lock.withLock { paths }
        for path in pending { unlink(path) }
        for directory in lock.withLock({ directories }) {
            // Again if a file appeared while the folder was emptied (the work goes on meanwhile).
            for _ in 0..<3 where FileManager.default.fileExists(atPath: directory) { try? FileManager.default.removeItem(atPath: directory) }
        }
    }

    /// What ended the run, as the message says it.
    public static func reason(_ signalNumber: Int32) -> String {
        switch signalNumber {
        case SIGINT, SIGTERM, SIGHUP: "interrupted"
        case SIGXCPU: "stopped by SIGXCPU (the CPU-time limit, ulimit -t)"
        case SIGALRM: "stopped by SIGALRM"
        case SIGUSR1: "stopped by SIGUSR1"
        case SIGUSR2: "stopped by SIGUSR2"
        default: "stopped by signal \(signalNumber)"
        }
    }
}

/// The hidden name an output is written under until it is complete: `.NAME.fxreplay-PID@HOST-N.part`.
/// The writer's process and host let a later run, on this machine or another sharing the
/// directory, tell a file a killed run left from one a live render is still writing.
enum TemporaryName {
    /// This machine, as 8 hex digits of a hash of its name (a container's own, in a pod): short,
    /// so that a long output name still fits the file system's 255 bytes.
    static let host: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        let hash = fnv1a64(buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
        return String(UInt32(truncatingIfNeeded: hash), radix: 16).leftPadded(to: 8)
    }()

    static func make(for fileName: String) -> String {
        prefix(for: fileName) + "\(getpid())@\(host)-\(UInt32.random(in: 0...UInt32.max)).part"
    }

    /// What every temporary name of `fileName` starts with.
    static func prefix(for fileName: String) -> String { ".\(fitting(fileName)).fxreplay-" }

    /// The longest a file name may be (NAME_MAX on Linux and macOS file systems), in bytes.
    static let nameLimit = 255
    /// The longest end ``make(for:)`` gives a name: `-` / `@` separated pid, host and number.
    private static let longestEnd = "4294967295@ffffffff-4294967295.part".utf8.count

    /// `fileName`, or, when its temporary name would pass ``nameLimit`` (a legal 255-byte output
    /// name), its start cut at a character boundary followed by `~` and a hash of the whole name:
    /// the same for every run, so a later run still recognises the parts of that output.
    private static func fitting(_ fileName: String) -> String {
        let room = nameLimit - ".".utf8.count - ".fxreplay-".utf8.count - longestEnd
        guard fileName.utf8.count > room else { return fileName }
        let hash = "~" + String(UInt32(truncatingIfNeeded: fnv1a64(fileName.utf8)), radix: 16).leftPadded(to: 8)
        var start = Substring(fileName)
        while start.utf8.count > room - hash.utf8.count { start = start.dropLast() }
        return start + hash
    }

    /// The process that wrote temporary file `name` of `fileName`, and its host (`nil` in the
    /// `.NAME.fxreplay-PID-N.part` names of earlier versions); `nil` when `name` is not one.
    static func writer(of name: String, for fileName: String) -> (pid: Int32?, host: String?)? {
        let prefix = prefix(for: fileName)
        guard name.hasPrefix(prefix), name.hasSuffix(".part"), name.count >= prefix.count + 5 else { return nil }
        let middle = name.dropFirst(prefix.count).dropLast(5)
        let owner = middle.lastIndex(of: "-").map { middle[..<$0] } ?? middle
        let at = owner.firstIndex(of: "@")
        return (Int32(at.map { owner[..<$0] } ?? owner), at.map { String(owner[owner.index(after: $0)...]) })
    }
}

/// A file's device and inode: the same for every path that leads to it (another spelling, a
/// symbolic or a hard link).
public struct FileIdentity: Hashable {
    /// The device holding the file.
    public let device: UInt64
    /// The file's number on that device.
    public let inode: UInt64

    /// `path` as written, else with `..` taken lexically (`out/../a.mp4` before `out` exists).
    public init?(_ path: FilePath) {
        var info = stat()
        guard stat(path.string, &info) == 0 || stat(URL(fileURLWithPath: path.string).standardizedFileURL.path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
