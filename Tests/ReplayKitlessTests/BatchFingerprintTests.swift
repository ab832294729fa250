import Foundation
import Testing
@testable import FxreplayBatch
@testable import ReplayKitless

@Suite struct BatchFingerprintTests {
    func sha256(_ bytes: [UInt8]) -> String {
        var hash = SHA256()
        hash.update(bytes)
        return hash.hexDigest()
    }

    @Test func sha256MatchesFIPSVectors() {
        #expect(sha256([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(sha256(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(sha256(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(sha256([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Whole blocks are hashed straight from each update and split ones are carried over: pieces
    /// that end anywhere within a block give the one-shot FIPS digest.
    @Test func sha256OfPiecesIsTheDigestOfTheWhole() {
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let sizes = [1, 63, 64, 65, 127, 1000, 0, 7]
        var hash = SHA256()
        var start = 0, turn = 0
        while start < million.count {
            let end = min(million.count, start + sizes[turn % sizes.count])
            hash.update(Array(million[start..<end]))
            start = end
            turn += 1
        }
        #expect(hash.hexDigest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        var abc = SHA256()
        for byte in "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8 { abc.update([byte]) }
        #expect(abc.hexDigest() == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func sha256AgreesWithCoreutilsAtBlockBoundaries() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for length in [55, 56, 63, 64, 65, 119, 120, 128] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let file = dir.appendingPathComponent("\(length)")
            try Data(bytes).write(to: file)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
            process.arguments = [file.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(sha256(bytes) == String(output.prefix(64)), "length \(length)")
        }
    }

    @Test func keyChangesWithArgumentsVersionContentAndTime() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fp-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let input = "\(dir)/in.mp4"
        // Larger than two samples, so the middle is not read.
        var bytes = [UInt8](repeating: 1, count: 3 * OutputFingerprint.sampleBytes)
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let fixedTime = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
        utimensat(AT_FDCWD, input, fixedTime, 0)
        let arguments = [input, "-o", "\(dir)/out.mp4", "--crf=20"]
        let key = OutputFingerprint.key(version: "1", arguments: arguments, files: [input])
        #expect(key == OutputFingerprint.key(version: "1", arguments: arguments, files: [input]))
        #expect(key != OutputFingerprint.key(version: "2", arguments: arguments, files: [input]))
        #expect(key != OutputFingerprint.key(version: "1", arguments: arguments.dropLast() + ["--crf=21"], files: [input]))
        // Same size and time, different first bytes: the sample catches it.
        bytes[0] = 2
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        utimensat(AT_FDCWD, input, fixedTime, 0)
        let changedHead = OutputFingerprint.key(version: "1", arguments: arguments, files: [input])
        #expect(changedHead != key)
        // Same content, new time.
        utimensat(AT_FDCWD, input, [timespec(tv_sec: 1_700_000_001, tv_nsec: 0), timespec(tv_sec: 1_700_000_001, tv_nsec: 0)], 0)
        #expect(OutputFingerprint.key(version: "1", arguments: arguments, files: [input]) != changedHead)
    }

    @Test func fingerprintVouchesOnlyForTheOutputItDescribes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fp-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let output = "\(dir)/call.mp4"
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: output))
        let fingerprint = try #require(OutputFingerprint(key: "k", version: "1", arguments: ["a"], output: output))
        try fingerprint.write(forOutput: output)
        #expect(OutputFingerprint.path(forOutput: output) == "\(dir)/.call.mp4.fxreplay.json")
        let loaded = try #require(OutputFingerprint.load(forOutput: output))
        #expect(loaded == fingerprint && loaded.outputBytes == 1000)
        #expect(loaded.matches(key: "k", output: output))
        #expect(!loaded.matches(key: "other", output: output))
        try Data(repeating: 7, count: 999).write(to: URL(fileURLWithPath: output))
        #expect(!loaded.matches(key: "k", output: output))
        OutputFingerprint.remove(forOutput: output)
        #expect(OutputFingerprint.load(forOutput: output) == nil)
    }

    /// Files of processes that are gone are removed (PIDs above Linux's largest, 2²²); a live
    /// process's file (this one's: a second batch writing the same directory) is kept. Another
    /// host's file is judged by its age: its PIDs mean nothing here.
    @Test func staleTemporaryFilesOfOneOutputAreRemoved() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stale-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let host = TemporaryName.host
        #expect(!host.isEmpty)
        let live = [".a.mp4.fxreplay-\(getpid())@\(host)-9.part", ".a.mp4.fxreplay-\(getpid())-9.part",
                    ".a.mp4.fxreplay-2147483600@other-host.example-5.part"]
        let gone = [".a.mp4.fxreplay-2147483600@\(host)-34.part", ".a.mp4.fxreplay-2147483601-78.part",
                    ".a.mp4.fxreplay-\(getpid())@other-host.example-6.part"]
        let unrelated = [".ab.mp4.fxreplay-1-2.part", "a.mp4", ".a.mp4.fxreplay.json"]
        for name in live + gone + unrelated { _ = FileManager.default.createFile(atPath: "\(dir)/\(name)", contents: Data()) }
        // The other host's second file last changed just over the limit ago.
        let old = Date(timeIntervalSinceNow: -staleTemporaryFileAge - 5)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: "\(dir)/\(gone[2])")
        #expect(removeStaleTemporaryFiles(for: FilePath("\(dir)/a.mp4")) == 3)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir)) == Set(live + unrelated))
    }

    /// The names AtomicOutput writes are the ones the clean-up reads.
    @Test func aTemporaryNameNamesItsWriter() throws {
        let name = TemporaryName.make(for: "out-1.mp4")
        let writer = try #require(TemporaryName.writer(of: name, for: "out-1.mp4"))
        #expect(writer.pid == getpid() && writer.host == TemporaryName.host)
        #expect(TemporaryName.writer(of: name, for: "out-1.mp") == nil)
        #expect(TemporaryName.writer(of: ".out-1.mp4.fxreplay.json", for: "out-1.mp4") == nil)
    }

    /// A temporary name fits the file system's 255 bytes whatever the output's legal name, and
    /// still names its writer; names differing only past the cut get different ones.
    @Test func aTemporaryNameOfALongestNameFits() throws {
        for name in [String(repeating: "a", count: 251) + ".mp4", String(repeating: "é", count: 125) + "a.mp4",
                     String(repeating: "😀", count: 62) + ".mp4", String(repeating: "b", count: 210)] {
            let temporary = TemporaryName.make(for: name)
            #expect(temporary.utf8.count <= 255, "\(temporary.utf8.count) bytes")
            let writer = try #require(TemporaryName.writer(of: temporary, for: name))
            #expect(writer.pid == getpid() && writer.host == TemporaryName.host)
        }
        let one = TemporaryName.prefix(for: String(repeating: "a", count: 250) + "1.mp4")
        let other = TemporaryName.prefix(for: String(repeating: "a", count: 250) + "2.mp4")
        #expect(one != other)
        #expect(TemporaryName.prefix(for: "short.mp4") == ".short.mp4.fxreplay-")
    }
}
