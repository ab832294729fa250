import Foundation
import Testing
@testable import ReplayKitless

/// Parsing the two manifests of formats.md §9, without media.
@Suite struct CallManifestTests {
    func parse(_ text: String) throws(ReplayError) -> CallManifest {
        try CallManifest(json: Array(text.utf8), file: "m.json")
    }

    func failure(_ text: String) -> ReplayError? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    @Test func archiveManifestFieldsAndNames() throws {
        let manifest = try parse("""
            {"id": "b40", "createdAt": 1700000000250, "sessionId": "s", "name": "n", "extra": [1, 2],
             "files": [
               {"streamId": "a", "filename": "a.webm", "startTimeOffset": 1500, "stopTimeOffset": 7520,
                "connectionData": "{\\"name\\":\\"Car owner\\"}", "videoType": "camera", "size": 12},
               {"streamId": "b", "filename": "b.webm", "startTimeOffset": 0, "connectionData": "{\\"userName\\":\\"Ann\\"}"},
               {"streamId": "c", "filename": "c.webm", "startTimeOffset": 10, "connectionData": "{\\"username\\":\\"Bo\\"}"},
               {"streamId": "d", "filename": "d.webm", "startTimeOffset": 10, "connectionData": "agent=7; role=x"},
               {"streamId": "e", "filename": "e.webm", "startTimeOffset": 10, "connectionData": ""},
               {"streamId": "f", "filename": "f.webm", "startTimeOffset": 10},
               {"streamId": "g", "filename": "g.webm", "startTimeOffset": 10, "connectionData": "{\\"role\\":\\"x\\"}", "videoType": ""}
             ]}
            """)
        #expect(manifest.kind == .archive)
        #expect(manifest.epoch == 1_700_000_000.25)
        #expect(manifest.streams.map(\.id) == ["a", "b", "c", "d", "e", "f", "g"])
        // §9: a JSON object's name/userName/username, else the text when not empty, else the id.
        #expect(manifest.streams.map(\.name) == ["Car owner", "Ann", "Bo", "agent=7; role=x", "e", "f", "{\"role\":\"x\"}"])
        #expect(manifest.streams.map(\.videoType) == ["camera", nil, nil, nil, nil, nil, nil])
        let first = manifest.streams[0].tracks[0]
        #expect(first.file == "a.webm" && first.start == 1.5 && first.stop == 7.52)
        #expect(manifest.streams[1].tracks[0].stop == nil)
    }

    @Test func callManifestFields() throws {
        let manifest = try parse("""
            {"version": 1, "epoch": 1700000000.5,
             "participants": [
               {"id": "agent", "name": "Agent",
                "tracks": [{"file": "agent-video.mkv", "start": 0.0},
                           {"file": "sub/agent-audio.mka", "start": 0.012, "end": 9.0}]},
               {"id": "viewer", "tracks": [{"file": "v.webm", "start": 2}]}
             ]}
            """)
        #expect(manifest.kind == .call)
        #expect(manifest.epoch == 1_700_000_000.5)
        #expect(manifest.streams.map(\.name) == ["Agent", "viewer"])
        #expect(manifest.streams[0].tracks.map(\.start) == [0, 0.012])
        #expect(manifest.streams[0].tracks.map(\.stop) == [nil, 9])
        #expect(try parse(#"{"participants": [{"id": "x", "tracks": [{"file": "x.mkv", "start": 0}]}]}"#).epoch == nil)
    }

    @Test func aStringWhereANumberBelongsNamesTheLineEntryAndField() {
        let error = failure("""
            {"createdAt": 1,
             "files": [
               {"streamId": "a", "filename": "a.webm", "startTimeOffset": 0},
               {"streamId": "b", "filename": "b.webm",
                "startTimeOffset": "1500"}
             ]}
            """)
        #expect(error?.kind == .badInput)
        #expect(error?.message == #"m.json:5 (files[1] "b", startTimeOffset): expected a number, got a string"#)
    }

    @Test(arguments: [
        (#"[1, 2]"#, "m.json:1: not a call manifest"),
        (#"{"id": "x"}"#, "m.json:1: not a call manifest: no \"files\""),
        (#"{"files": {}}"#, "m.json:1 (files): expected an array, got an object"),
        (#"{"files": [{"filename": "a.webm", "startTimeOffset": 0}]}"#, "m.json:1 (files[0], streamId): missing"),
        (#"{"files": [{"streamId": "a", "startTimeOffset": 0}]}"#, #"m.json:1 (files[0] "a", filename): missing"#),
        (#"{"files": [{"streamId": "a", "filename": "a", "startTimeOffset": -5}]}"#, #"(files[0] "a", startTimeOffset): -5.0 is out of range"#),
        (#"{"files": [{"streamId": "a", "filename": "a", "startTimeOffset": 50, "stopTimeOffset": 10}]}"#, "is before startTimeOffset"),
        (#"{"files": [{"streamId": 7, "filename": "a", "startTimeOffset": 0}]}"#, "(files[0], streamId): expected a string, got a number"),
        (#"{"createdAt": "now", "files": []}"#, "m.json:1 (createdAt): expected a number, got a string"),
        (#"{"participants": [{"id": "a", "tracks": []}]}"#, #"(participants[0] "a", tracks): is empty"#),
        (#"{"participants": [{"id": "a", "tracks": [{"file": "x", "start": "0"}]}]}"#,
         #"(participants[0] "a", tracks[0], start): expected a number, got a string"#),
        (#"{"version": 2, "participants": []}"#, "(version): must be 1"),
        (#"{"files": [], "participants": []}"#, "has both"),
        ("{\"files\": [\n{\"streamId\": \"a\", \"filename\": \"a\", \"startTimeOffset\": 0},\n{\"streamId\": \"a\", \"filename\": \"b\", \"startTimeOffset\": 0}]}",
         #"m.json:3 (files[1], streamId): duplicate id "a" (already used by files[0])"#),
        (#"{"participants": [{"id": "a", "tracks": [{"file": "x", "start": 0}]}, {"id": "a", "tracks": [{"file": "y", "start": 0}]}]}"#,
         "duplicate id \"a\""),
    ])
    func mistakesAreBadInputNamingTheField(text: String, expected: String) {
        let error = failure(text)
        #expect(error?.kind == .badInput)
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
    }

    @Test(arguments: ["../x.webm", "/etc/passwd", "a/../../x.webm", "..", "a\\..\\x.webm", "./"])
    func namesOutsideTheFolderAreRefused(name: String) {
        let track = CallManifest.Track(file: name, start: 0, stop: nil, entry: #"files[0] "a""#, line: 3, fileKey: "filename")
        #expect(throws: ReplayError.self) { try CallPaths.components(of: name, track: track, manifest: "m.json") }
        do {
            _ = try CallPaths.components(of: name, track: track, manifest: "m.json")
        } catch {
            #expect(error.kind == .badInput && error.message.hasPrefix(#"m.json:3 (files[0] "a", filename): ""#), "\(error.message)")
        }
    }

    @Test func relativeNamesInsideTheFolderAreKept() throws {
        let track = CallManifest.Track(file: "", start: 0, stop: nil, entry: "e", line: 1, fileKey: "file")
        #expect(try CallPaths.components(of: "./sub//a.webm", track: track, manifest: "m") == ["sub", "a.webm"])
        #expect(try CallPaths.components(of: "a..b.webm", track: track, manifest: "m") == ["a..b.webm"])
    }

    @Test func zipExpansionLimit() {
        #expect(CallZip.expansionLimit(stored: 0) == 1 << 20)
        #expect(CallZip.expansionLimit(stored: 1 << 20) == 100 << 20)
        #expect(CallZip.expansionLimit(stored: .max) == CallZip.totalBytes)
        #expect(CallZip.privateName(for: "dir/../é x.webm", number: 3) == "3-__x.webm")
        #expect(CallZip.privateName(for: ".hidden", number: 1) == "1-_hidden")
    }
}
