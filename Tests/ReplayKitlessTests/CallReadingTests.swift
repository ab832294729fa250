import Foundation
import FxTestSupport
import Testing
@testable import ReplayKitless

/// Small media files for reading calls, made once with the ffmpeg CLI: `av.webm` (VP8 + Opus, the
/// picture starting 0.02 s after the sound), `v.mkv` (FFV1 picture only), `a.webm` (Opus only).
enum CallMediaFiles {
    static let folder: String = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("call-media-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try! runFFmpegCLI(["-itsoffset", "0.02", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1",
                           "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:v", "libvpx", "-b:v", "100k",
                           "-c:a", "libopus", folder + "/av.webm"])
        try! runFFmpegCLI(["-f", "lavfi", "-i", "testsrc=size=48x32:rate=10:duration=1.5", "-c:v", "ffv1", folder + "/v.mkv"])
        try! runFFmpegCLI(["-f", "lavfi", "-i", "sine=frequency=880:duration=0.8", "-c:a", "libopus", folder + "/a.webm"])
        return folder
    }()

    /// A new folder holding the three files and `manifest.json` with `text`.
    static func callFolder(manifest text: String, name: String = "manifest.json") throws -> String {
        let call = FileManager.default.temporaryDirectory.appendingPathComponent("call-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: call, withIntermediateDirectories: true)
        for file in ["av.webm", "v.mkv", "a.webm"] {
            try FileManager.default.copyItem(atPath: folder + "/" + file, toPath: call + "/" + file)
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: call + "/" + name))
        return call
    }

    /// What ffprobe says, as numbers: `-show_entries ENTRIES -of csv=p=0` for `file`.
    static func ffprobe(_ entries: String, _ file: String, streams: String? = nil) throws -> [[Double]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error"] + (streams.map { ["-select_streams", $0] } ?? []) + ["-show_entries", entries, "-of", "csv=p=0", file]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            line.split(separator: ",").compactMap { Double($0) }
        }
    }
}

@Suite struct CallReadingTests {
    static let archiveManifest = """
        {"createdAt": 1700000000000,
         "files": [
           {"streamId": "s-av", "filename": "av.webm", "startTimeOffset": 1500, "stopTimeOffset": 4000,
            "connectionData": "{\\"name\\":\\"Car owner\\"}", "videoType": "camera"},
           {"streamId": "s-v", "filename": "v.mkv", "startTimeOffset": 250, "connectionData": "screen share"},
           {"streamId": "s-a", "filename": "a.webm", "startTimeOffset": 700}
         ]}
        """

    @Test func timelineOfAnArchiveFolderAgainstFFprobe() throws {
        let folder = try CallMediaFiles.callFolder(manifest: Self.archiveManifest)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let opened = try OpenedCall.open(FilePath(folder))
        let call = opened.call
        #expect(opened.privateFolder == nil)
        #expect(call.epoch == 1_700_000_000)
        #expect(call.streams.map(\.id) == ["s-av", "s-v", "s-a"])
        #expect(call.streams.map(\.name) == ["Car owner", "screen share", "s-a"])
        #expect(call.streams.map(\.hasVideo) == [true, true, false])
        #expect(call.streams.map(\.hasAudio) == [true, false, true])

        // p0 is the file's start_time as ffprobe reports it (the Opus priming counts: it is below the picture's start).
        let av = call.streams[0].tracks[0]
        let p0 = try #require(CallMediaFiles.ffprobe("format=start_time", folder + "/av.webm").first?.first)
        let videoStart = try #require(CallMediaFiles.ffprobe("stream=start_time", folder + "/av.webm", streams: "v:0").first?.first)
        let audioStart = try #require(CallMediaFiles.ffprobe("stream=start_time", folder + "/av.webm", streams: "a:0").first?.first)
        #expect(abs(av.mediaStart - p0) < 1e-6)
        #expect(p0 == min(audioStart, videoStart) && audioStart < 0, "the Opus priming counts: \(audioStart), \(videoStart)")
        #expect(videoStart - p0 > 0.01, "the picture starts after the sound")
        // The first picture plays at call time start + (v0 − p0); the first sound at start.
        #expect(abs(av.callTime(ofMediaTime: videoStart) - (1.5 + (videoStart - p0))) < 1e-9)
        #expect(av.start == 1.5 && av.stop == 4.0)

        // Without stopTimeOffset the stream stops where its media ends: the last packet's end, from ffprobe's packets.
        for (index, file) in [(1, "v.mkv"), (2, "a.webm")] {
            let track = call.streams[index].tracks[0]
            let packets = try CallMediaFiles.ffprobe("packet=pts_time,duration_time", folder + "/" + file)
            let end = try #require(packets.filter { $0.count == 2 }.map { $0[0] + $0[1] }.max())
            let start = try #require(CallMediaFiles.ffprobe("format=start_time", folder + "/" + file).first?.first)
            #expect(abs(track.mediaEnd - end) < 1e-6, "\(file)")
            #expect(abs(track.stop - (track.start + end - start)) < 1e-6, "\(file)")
        }
        #expect(call.streams[1].start == 0.25)
        #expect(abs(call.duration - 4.0) < 1e-9)
    }

    @Test func aZipIsExtractedIntoAPrivateFolderThatGoesWithTheCall() throws {
        let folder = try CallMediaFiles.callFolder(manifest: Self.archiveManifest)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let zip = folder + "/call.zip"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n"
                             + "    for name in sys.argv[2:]: z.write(sys.argv[1].rsplit('/', 1)[0] + '/' + name, 'archive/' + name)",
                             zip, "manifest.json", "av.webm", "v.mkv", "a.webm"]
        try process.run()
        process.waitUntilExit()
        var opened: OpenedCall? = try OpenedCall.open(FilePath(zip))
        let privateFolder = try #require(opened?.privateFolder)
        #expect(opened?.call.manifest == zip + "/archive/manifest.json")
        #expect(opened?.call.streams.allSatisfy { $0.tracks.allSatisfy { $0.path.starts(with: privateFolder) } } == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: privateFolder.string).count == 3, "the members the manifest names, no more")
        let fromFolder = try OpenedCall.open(FilePath(folder)).call
        #expect(opened?.call.streams.map(\.tracks.first!.mediaEnd) == fromFolder.streams.map(\.tracks.first!.mediaEnd))
        opened = nil
        #expect(!FileManager.default.fileExists(atPath: privateFolder.string))
    }

    @Test func theManifestFileAndACallManifestReadTheSame() throws {
        let folder = try CallMediaFiles.callFolder(manifest: Self.archiveManifest, name: "b40ef09b.json")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fromFile = try OpenedCall.open(FilePath(folder + "/b40ef09b.json")).call
        let fromFolder = try OpenedCall.open(FilePath(folder)).call
        #expect(fromFile.streams.map(\.tracks.first!.mediaStart) == fromFolder.streams.map(\.tracks.first!.mediaStart))

        try Data("""
            {"version": 1, "epoch": 1700000000.5, "participants": [
              {"id": "agent", "name": "Agent", "tracks": [{"file": "v.mkv", "start": 1.0}, {"file": "a.webm", "start": 1.25, "end": 1.75}]}
            ]}
            """.utf8).write(to: URL(fileURLWithPath: folder + "/call.json"))
        let call = try OpenedCall.open(FilePath(folder + "/call.json")).call
        #expect(call.epoch == 1_700_000_000.5)
        let agent = try call.stream("Agent")
        #expect(agent.id == "agent" && agent.hasVideo && agent.hasAudio)
        #expect(agent.tracks[1].stop == 1.75)
        #expect(agent.start == 1.0)
        // The folder now holds two manifests: naming it is ambiguous.
        #expect(throws: ReplayError.self) { try OpenedCall.open(FilePath(folder)) }
    }

    @Test func overlappingTracksOfOneKindAreRefused() throws {
        let folder = try CallMediaFiles.callFolder(manifest: """
            {"participants": [{"id": "p", "tracks": [{"file": "a.webm", "start": 0}, {"file": "av.webm", "start": 0.5}]}]}
            """)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let error = #expect(throws: ReplayError.self) { try OpenedCall.open(FilePath(folder)) }
        #expect(error?.kind == .badInput)
        #expect(error?.message.contains(#"(participants[0] "p", tracks[1]): its audio"#) == true, "\(error?.message ?? "")")
    }

    @Test func missingAndNonMediaFilesNameTheEntry() throws {
        let folder = try CallMediaFiles.callFolder(manifest: """
            {"files": [{"streamId": "x", "filename": "gone.webm", "startTimeOffset": 0}]}
            """)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var error = #expect(throws: ReplayError.self) { try OpenedCall.open(FilePath(folder)) }
        #expect(error?.kind == .badInput)
        #expect(error?.message.hasPrefix(#"\#(folder)/manifest.json:1 (files[0] "x", filename): "gone.webm" is missing"#) == true, "\(error?.message ?? "")")

        try Data("not media at all".utf8).write(to: URL(fileURLWithPath: folder + "/gone.webm"))
        error = #expect(throws: ReplayError.self) { try OpenedCall.open(FilePath(folder)) }
        #expect(error?.message.hasPrefix(#"\#(folder)/manifest.json:1 (files[0] "x", filename): "gone.webm": cannot open as media"#) == true,
                "\(error?.message ?? "")")
    }

    @Test func aSymbolicLinkOutOfAnArchiveFolderIsRefused() throws {
        let folder = try CallMediaFiles.callFolder(manifest: """
            {"files": [{"streamId": "x", "filename": "link.webm", "startTimeOffset": 0}]}
            """)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.webm", withDestinationPath: CallMediaFiles.folder + "/a.webm")
        let error = #expect(throws: ReplayError.self) { try OpenedCall.open(FilePath(folder)) }
        #expect(error?.message.contains("leads outside the archive's folder") == true, "\(error?.message ?? "")")
    }

    @Test func poseClockOffsets() throws {
        let track = CallTrack(path: "x", name: "x", start: 2.5, stop: 9, mediaStart: -0.007, mediaEnd: 6, hasVideo: true, hasAudio: true)
        let call = Call(source: "c", manifest: "m", epoch: 1_700_000_000, streams: [
            CallStream(id: "a", name: "A", videoType: nil, order: 0, tracks: [track]),
        ])
        // Call time t plays media time p = mediaStart + (t − start); Unix time u is call time u − epoch.
        let callOffset = try call.poseClockOffset(.call, track: track)
        #expect(abs((4.0 + callOffset) - (-0.007 + 1.5)) < 1e-12)
        let epochOffset = try call.poseClockOffset(.epoch, track: track)
        #expect(abs((1_700_000_004.0 + epochOffset) - (-0.007 + 1.5)) < 1e-6)
        var noEpoch = call
        noEpoch.epoch = nil
        #expect((try? noEpoch.poseClockOffset(.epoch, track: track)) == nil)
        #expect(try call.renderedTrack(ofStream: "A").stream.id == "a")
    }
}
