import Foundation
import Testing
@testable import ReplayKitless

/// Outputs are complete or absent, and a device or pipe is written through, never replaced.
/// (Devices are reached through symbolic links in a scratch directory, so a regression replaces
/// the link, not the device.)
@Suite struct AtomicOutputTests {
    func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    func entries(_ dir: URL) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() }

    @Test func writesWholeFilesAndRefusesToReplaceUnasked() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.csv").path
        try AtomicOutput.write(Data("one\n".utf8), to: FilePath(path))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "one\n")
        #expect(throws: ReplayError.self) { try AtomicOutput.write(Data("two\n".utf8), to: FilePath(path), overwrite: false) }
        try AtomicOutput.write(Data("two\n".utf8), to: FilePath(path), overwrite: true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two\n")
        #expect(try entries(dir) == ["out.csv"])
    }

    /// `-o /dev/stdout` with stdout redirected to a file: /dev/stdout leads through /proc/self/fd to
    /// that file. The bytes go through the descriptor; no link is replaced (it once replaced the
    /// machine's /dev/stdout with a regular file).
    @Test func theProcessOwnDescriptorsAreWrittenThrough() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let redirected = dir.appendingPathComponent("redirected.csv").path
        let descriptor = open(redirected, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let stdoutLike = dir.appendingPathComponent("stdout").path
        try FileManager.default.createSymbolicLink(atPath: stdoutLike, withDestinationPath: "/proc/self/fd/\(descriptor)")
        try AtomicOutput.write(Data("rows\n".utf8), to: FilePath(stdoutLike), overwrite: false)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: stdoutLike) == "/proc/self/fd/\(descriptor)")
        #expect(try String(contentsOfFile: redirected, encoding: .utf8) == "rows\n")
        #expect(try entries(dir) == ["redirected.csv", "stdout"])
    }

    /// A symbolic link is followed, as `ffmpeg` follows it: the file it names is written (made if
    /// missing), the link stays.
    @Test func aSymbolicLinkIsFollowed() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("data"), withIntermediateDirectories: true)
        let link = dir.appendingPathComponent("out.csv").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "data/real.csv")
        try AtomicOutput.write(Data("one\n".utf8), to: FilePath(link), overwrite: false)
        #expect(throws: ReplayError.self) { try AtomicOutput.write(Data("two\n".utf8), to: FilePath(link), overwrite: false) }
        try AtomicOutput.write(Data("two\n".utf8), to: FilePath(link), overwrite: true)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "data/real.csv")
        #expect(try String(contentsOfFile: dir.appendingPathComponent("data/real.csv").path, encoding: .utf8) == "two\n")
        #expect(try entries(dir.appendingPathComponent("data")) == ["real.csv"])
    }

    /// Without overwrite, a file that another program puts at the path while this run writes is
    /// left alone: the check at the start is not enough.
    @Test func aFileAppearingMeanwhileIsNotReplaced() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.csv").path
        let output = try AtomicOutput(path: FilePath(path), overwrite: false)
        try output.write(Data("mine\n".utf8))
        try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: path))
        do {
            try output.commit()
            Issue.record("the other file was replaced")
        } catch {
            #expect(error.kind == .usage && error.message.contains("appeared while this run was writing it"), "\(error)")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "theirs\n")
        #expect(try entries(dir) == ["out.csv"])
        // With overwrite, the run's own file wins.
        let replacing = try AtomicOutput(path: FilePath(path), overwrite: true)
        try replacing.write(Data("mine\n".utf8))
        try replacing.commit()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "mine\n")
    }

    /// An input reached by another name (a hard link) is refused like the input itself.
    @Test func aHardLinkToAnInputIsRefused() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.mp4").path, other = dir.appendingPathComponent("other.mp4").path
        try Data("video".utf8).write(to: URL(fileURLWithPath: input))
        try #require(link(input, other) == 0)
        #expect(throws: ReplayError.self) { try AtomicOutput(path: FilePath(other), overwrite: true, inputs: [input]) }
        #expect(try String(contentsOfFile: input, encoding: .utf8) == "video")
    }

    @Test func aDeviceIsWrittenThroughNotReplaced() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let null = dir.appendingPathComponent("null.csv").path, full = dir.appendingPathComponent("full.csv").path
        try FileManager.default.createSymbolicLink(atPath: null, withDestinationPath: "/dev/null")
        try FileManager.default.createSymbolicLink(atPath: full, withDestinationPath: "/dev/full")
        try AtomicOutput.write(Data("rows\n".utf8), to: FilePath(null), overwrite: false)
        do {
            try AtomicOutput.write(Data("rows\n".utf8), to: FilePath(full))
            Issue.record("writing to /dev/full succeeded")
        } catch {
            #expect(error.kind == .processing && error.message.contains("No space left"), "\(error)")
        }
        // Both are still links to their devices, and nothing else was left behind.
        for path in [null, full] {
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path).hasPrefix("/dev/"))
        }
        #expect(try entries(dir) == ["full.csv", "null.csv"])
    }

    /// A group's files appear together at `commit`, or not at all when it is dropped (a failure
    /// part-way); two outputs naming one file are refused, by any spelling.
    @Test func aGroupCommitsAllOrNothing() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.svg").path, b = dir.appendingPathComponent("b.html").path
        do {
            let outputs = OutputGroup()
            try outputs.write(Data("a".utf8), to: FilePath(a))
            try outputs.write(Data("b".utf8), to: FilePath(b))
            #expect(try entries(dir).allSatisfy { $0.hasSuffix(".part") }, "nothing in place before the commit")
            try outputs.commit()
        }
        #expect(try entries(dir) == ["a.svg", "b.html"])
        do {
            let outputs = OutputGroup()
            try outputs.write(Data("new a".utf8), to: FilePath(a))
            // The group is dropped without a commit, as when a later step fails.
        }
        #expect(try entries(dir) == ["a.svg", "b.html"])
        #expect(try String(contentsOfFile: a, encoding: .utf8) == "a")

        let outputs = OutputGroup()
        _ = try outputs.reserve(FilePath(a))
        for twin in [a, dir.path + "/./a.svg", dir.path + "/../" + dir.lastPathComponent + "/a.svg"] {
            do {
                _ = try outputs.reserve(FilePath(twin))
                Issue.record("\(twin) reserved twice")
            } catch {
                #expect(error.exitCode == 2 && error.message.contains(a), "\(error)")
            }
        }
        // A device takes several outputs.
        _ = try outputs.reserve("/dev/null")
        _ = try outputs.reserve("/dev/null")
    }
}
