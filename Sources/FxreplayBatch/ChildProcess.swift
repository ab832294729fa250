import Foundation
import ReplayKitless

/// A child process with stdout and stderr on one pipe, spawned with `posix_spawn` so that
/// nothing but the pipe's write end reaches it (every other descriptor is close-on-exec) and
/// the signals the batch catches and SIGPIPE are back to their defaults: when the batch dies, even by
/// SIGKILL, the child's next write to the pipe ends it.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    /// The read end of the child's stdout+stderr.
    let output: Int32

    /// How a child ended.
    enum Termination: Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    init(executable: String, arguments: [String]) throws(ReplayError) {
        var fds: [Int32] = [-1, -1]
        // Children are only started from one thread, so no other spawn can inherit the pipe
        // between pipe() and fcntl().
        guard pipe(&fds) == 0 else { throw .processing("cannot create a pipe: \(String(cString: strerror(errno)))") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer { close(fds[1]) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signalNumber in InterruptCleanup.caught + [SIGPIPE] { sigaddset(&defaults, signalNumber) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard status == 0 else {
            close(fds[0])
            throw .processing("cannot start \(executable): \(String(cString: strerror(status)))")
        }
        self.pid = pid
        output = fds[0]
    }

    /// Sends `signalNumber` to the child.
    func send(_ signalNumber: Int32) { kill(pid, signalNumber) }

    /// Calls `body` with each chunk of output until the child closes it, then closes the pipe.
    func readOutput(_ body: (UnsafeRawBufferPointer) -> Void) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { buffer.deallocate(); close(output) }
        while true {
            let count = read(output, buffer.baseAddress, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// Waits for the child to end.
    func wait() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return .exited(-1) }
        }
        let signalNumber = status & 0x7f
        return signalNumber == 0 ? .exited((status >> 8) & 0xff) : .signaled(signalNumber)
    }

    /// The program that runs this fxreplay again for a batch's children: the tarball's launcher in a bundled build
    /// (the running executable is then its dynamic loader), else the running executable.
    static var currentExecutable: String {
        BundledBuild.root.map { $0 + "/bin/fxreplay" } ?? BundledBuild.runningExecutable
    }
}
