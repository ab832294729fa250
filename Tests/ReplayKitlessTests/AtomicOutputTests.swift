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
        try AtomicOutput.write(Data("one\n".utf8), to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "one\n")
        #expect(throws: ReplayError.self) { try AtomicOutput.write(Data("two\n".utf8), to: path, overwrite: false) }
        try AtomicOutput.write(Data("two\n".utf8), to: path, overwrite: true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two\n")
        #expect(try entries(dir) == ["out.csv"])
    }

    @Test func aDeviceIsWrittenThroughNotReplaced() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let null = dir.appendingPathComponent("null.csv").path, full = dir.appendingPathComponent("full.csv").path
        try FileManager.default.createSymbolicLink(atPath: null, withDestinationPath: "/dev/null")
        try FileManager.default.createSymbolicLink(atPath: full, withDestinationPath: "/dev/full")
        try AtomicOutput.write(Data("rows\n".utf8), to: null, overwrite: false)
        do {
            try AtomicOutput.write(Data("rows\n".utf8), to: full)
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
}
