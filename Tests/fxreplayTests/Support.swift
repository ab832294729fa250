import Foundation

/// The built `fxreplay` executable, next to the test bundle.
let fxreplayExecutable: URL = {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("fxreplay").path),
          directory.path != "/" {
        directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent("fxreplay")
}()

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// A launcher that runs its arguments with no signal blocked, as a shell in a terminal does. The
/// test runner's threads (libdispatch workers) block most signals and a child inherits that mask:
/// a signal whose default ends the process would stay pending there, hiding what it does to a
/// real run (perl-base, with POSIX, is in every Debian system).
let unblockingSignals = ["/usr/bin/perl", "-MPOSIX", "-e", "sigprocmask(SIG_SETMASK, POSIX::SigSet->new) or die; exec { $ARGV[0] } @ARGV or die"]

/// Runs the real `fxreplay` binary and collects its exit status and output. With
/// `fileSizeLimitKiB`, writes past that size fail (RLIMIT_FSIZE, its signal ignored unless
/// `fileSizeSignal`, as `ulimit -f` in a shell leaves it) the way they do on a full disk.
func runFxreplay(_ arguments: [String], environment: [String: String]? = nil, fileSizeLimitKiB: Int? = nil,
                 fileSizeSignal: Bool = false, currentDirectory: URL? = nil) throws -> RunResult {
    let process = Process()
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    if let fileSizeLimitKiB {
        process.executableURL = URL(fileURLWithPath: unblockingSignals[0])
        process.arguments = Array(unblockingSignals.dropFirst()) + ["/bin/bash", "-c", "ulimit -f \(fileSizeLimitKiB); \(fileSizeSignal ? "" : "trap '' XFSZ; ")exec \"$0\" \"$@\"", fxreplayExecutable.path] + arguments
    } else {
        process.executableURL = fxreplayExecutable
        process.arguments = arguments
    }
    if let environment { process.environment = environment }
    return try collect(process)
}

/// Runs `executable` with `arguments` and collects its exit status and output.
func runProcess(_ executable: String, _ arguments: [String]) throws -> RunResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    return try collect(process)
}

/// Starts `process` and collects its exit status, standard output and standard error.
private func collect(_ process: Process) throws -> RunResult {
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return RunResult(status: process.terminationStatus,
                     stdout: String(decoding: outData, as: UTF8.self),
                     stderr: String(decoding: errData, as: UTF8.self))
}
