import Foundation
import Testing
@testable import FxreplayBatch
@testable import ReplayKitless

/// Issue #33: what a call's manifest may ask for is bounded (docs/limits.md), and the batch
/// fingerprint of a call covers the media it names.
@Suite struct CallBoundsTests {
    func failure(_ text: String) -> ReplayError? {
        do { _ = try CallManifest(json: Array(text.utf8), file: "m.json"); return nil } catch { return error }
    }

    /// A call manifest of `participants` participants with `tracks` one-second tracks each, back to back.
    func callManifest(participants: Int, tracks: Int) -> String {
        let entries = (0..<participants).map { p in
            let list = (0..<tracks).map { #"{"file": "p\#(p)-\#($0).mkv", "start": \#($0)}"# }.joined(separator: ",")
            return #"{"id": "p\#(p)", "tracks": [\#(list)]}"#
        }
        return #"{"version": 1, "participants": [\#(entries.joined(separator: ",\n"))]}"#
    }

    /// 256 participants are read; the 257th is refused, named by its index and the field.
    @Test func participantsAreCapped() throws {
        #expect(failure(callManifest(participants: 256, tracks: 1)) == nil)
        let error = try #require(failure(callManifest(participants: 257, tracks: 1)))
        #expect(error.exitCode == 3)
        // Line 257: the manifest's first line holds participant 0, so participant 256 starts on line 257.
        #expect(error.message.hasPrefix("m.json:257 (participants[256], participants): more than 256"), "\(error.message)")

        let files = (0..<257).map { #"{"streamId": "s\#($0)", "filename": "a.webm", "startTimeOffset": 0}"# }
        let archive = try #require(failure(#"{"files": [\#(files.joined(separator: ",\n"))]}"#))
        #expect(archive.message.hasPrefix("m.json:257 (files[256], files): more than 256"), "\(archive.message)")
    }

    /// 1 000 tracks for one participant are read, 1 001 are not; nor are 2 001 tracks in all.
    @Test func tracksAreCapped() throws {
        #expect(failure(callManifest(participants: 1, tracks: 1_000)) == nil)
        let perParticipant = try #require(failure(callManifest(participants: 1, tracks: 1_001)))
        #expect(perParticipant.exitCode == 3)
        #expect(perParticipant.message.contains(#"(participants[0] "p0", tracks[1000], tracks): more than 1000"#), "\(perParticipant.message)")
        #expect(failure(callManifest(participants: 2, tracks: 1_000)) == nil)
        let inAll = try #require(failure(callManifest(participants: 3, tracks: 667)))
        // 2 × 667 = 1 334 tracks before the third participant; its track 666 is the 2 001st.
        #expect(inAll.message.contains(#"(participants[2] "p2", tracks[666], tracks): more than 2000 tracks in the call"#), "\(inAll.message)")
    }

    @Test(arguments: [
        (#"{"createdAt": 1e300, "files": [{"streamId": "a", "filename": "a.webm", "startTimeOffset": 0}]}"#, "m.json:1 (createdAt): 1e+300 is out of range"),
        (#"{"createdAt": -1, "files": [{"streamId": "a", "filename": "a.webm", "startTimeOffset": 0}]}"#, "m.json:1 (createdAt): -1.0 is out of range"),
        (#"{"createdAt": 4000000000001, "files": [{"streamId": "a", "filename": "a.webm", "startTimeOffset": 0}]}"#, "(createdAt): 4000000000001.0 is out of range"),
        (#"{"epoch": 1e17, "participants": [{"id": "a", "tracks": [{"file": "a.mkv", "start": 0}]}]}"#, "m.json:1 (epoch): 1e+17 is out of range"),
        (#"{"epoch": -0.5, "participants": [{"id": "a", "tracks": [{"file": "a.mkv", "start": 0}]}]}"#, "(epoch): -0.5 is out of range"),
        (#"{"participants": [{"id": "a", "tracks": [{"file": "a.mkv", "start": 1e17}]}]}"#, #"(participants[0] "a", tracks[0], start): 1e+17 is out of range"#),
        (#"{"files": [{"streamId": "a", "filename": "a.webm", "startTimeOffset": 0, "stopTimeOffset": 1e300}]}"#, #"(files[0] "a", stopTimeOffset): 1e+300 is out of range"#),
    ])
    func timesOutOfRangeAreBadInput(text: String, expected: String) throws {
        let error = try #require(failure(text))
        #expect(error.exitCode == 3)
        #expect(error.message.contains(expected), "\(error.message)")
    }

    @Test func realEpochsAreRead() throws {
        let file = #"{"streamId": "a", "filename": "a.webm", "startTimeOffset": 0}"#
        let archive = try CallManifest(json: Array(#"{"createdAt": 1700000000250, "files": [\#(file)]}"#.utf8), file: "m.json")
        #expect(archive.epoch == 1_700_000_000.25)
        let call = try CallManifest(json: Array(#"{"epoch": 0, "participants": [{"id": "a", "tracks": [{"file": "a.mkv", "start": 0}]}]}"#.utf8),
                                    file: "m.json")
        #expect(call.epoch == 0)
    }

    @Test(arguments: [(#"{"createdAt": 1700000000000, "files": []}"#, "m.json:1 (files): the call has no streams"),
                      (#"{"version": 1, "participants": []}"#, "m.json:1 (participants): the call has no participants")])
    func anEmptyCallIsBadInput(text: String, expected: String) throws {
        let error = try #require(failure(text))
        #expect(error.exitCode == 3)
        #expect(error.message.contains(expected), "\(error.message)")
    }

    /// compose's report has `participants` too: it is not a manifest, a manifest is.
    @Test func aComposeReportIsNotAManifest() throws {
        var report = ComposeReport(input: "call", output: .init(path: "o.mp4", container: "mp4", codec: "libx264", width: 64,
                                                                          height: 48, pixelFormat: "yuv420p", bytes: 1, copiedStreams: 0), layout: "grid", fps: 30, from: 0, to: 4)
        report.participants = [.init(name: "Agent", streams: ["a"])]
        let bytes = [UInt8](try JSONEncoder().encode(report))
        #expect(!CallManifest.looksLikeManifest(bytes))
        #expect(CallManifest.looksLikeManifest(Array(callManifest(participants: 1, tracks: 1).utf8)))
        #expect(CallManifest.looksLikeManifest(Array(#"{"files": [{"streamId": "a", "filename": "a.webm"}]}"#.utf8)))
    }

    /// A call manifest's batch fingerprint changes when a participant's file does, read from the
    /// manifest or from its folder.
    @Test func theBatchFingerprintCoversTheCallsMedia() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("callfp-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/call", withIntermediateDirectories: true)
        try Data(callManifest(participants: 2, tracks: 1).utf8).write(to: URL(fileURLWithPath: dir + "/call/call.json"))
        for name in ["p0-0.mkv", "p1-0.mkv"] { try Data("media \(name)".utf8).write(to: URL(fileURLWithPath: dir + "/call/" + name)) }
        let fixedTime = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
        utimensat(AT_FDCWD, dir + "/call/p1-0.mkv", fixedTime, 0)
        for input in [dir + "/call/call.json", dir + "/call"] {
            let recording = try #require(try BatchPlanner(outputDirectory: dir + "/out", job: nil).recordings(matching: [input]).first)
            #expect(recording.command == "compose", "\(input)")
            #expect(Set(recording.files) == [dir + "/call/call.json", dir + "/call/p0-0.mkv", dir + "/call/p1-0.mkv"], "\(recording.files)")
            let key = OutputFingerprint.key(version: "1", arguments: recording.arguments, files: recording.files)
            // The same size and time, one byte changed: only the file's own bytes tell.
            try Data("media p1-0.mkw".utf8).write(to: URL(fileURLWithPath: dir + "/call/p1-0.mkv"))
            utimensat(AT_FDCWD, dir + "/call/p1-0.mkv", fixedTime, 0)
            #expect(OutputFingerprint.key(version: "1", arguments: recording.arguments, files: recording.files) != key, "\(input)")
            try Data("media p1-0.mkv".utf8).write(to: URL(fileURLWithPath: dir + "/call/p1-0.mkv"))
            utimensat(AT_FDCWD, dir + "/call/p1-0.mkv", fixedTime, 0)
        }
    }
}
