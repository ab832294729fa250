import Foundation
import Testing
import FxTestSupport
import ReplayKitless

/// `compose --layout speaker`, `--speakers`, `--highlight-speaker` and screen shares on generated
/// calls: each participant a flat colour (told apart by its luma) talking in sine tones at known
/// times and levels, from PCM so the levels are exact. The expected loudest stream per 100 ms
/// window and the focus moves are worked out here from the speech schedule with formats.md §9's
/// rule written anew, and read back from the composed pictures and the cue file.
@Suite(.serialized) struct SpeakerLayoutTests {
    /// One generated participant: its colour's grey level when decoded, and its speech.
    struct Talker {
        var id: String
        var name: String
        var color: String
        /// Luma of `color` decoded to grey (BT.601, full range).
        var luma: Int
        /// Speech turns: call seconds from, to, and the sine's amplitude (full scale 1).
        var turns: [(from: Double, to: Double, amplitude: Double)]
        var videoType = "camera"
        var startMilliseconds = 0
        var stopMilliseconds: Int?
    }

    static let red = ("#FF0000", 76), green = ("#00FF00", 150), blue = ("#0000FF", 29)

    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fxreplay-speaker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Writes each talker's file (flat colour, 10 fps, PCM tones) and an archive manifest.
    static func writeArchive(_ talkers: [Talker], seconds: Double, in folder: URL) throws -> String {
        var files: [String] = []
        for talker in talkers {
            // A turn is [from, to): sample n sounds when from ≤ n / 48000 < to (commas escaped for the filter graph).
            let gate = talker.turns.map { "gte(t\\,\($0.from))*lt(t\\,\($0.to))*\($0.amplitude)" }.joined(separator: "+")
            let file = "\(talker.id).mkv"
            try runFFmpegCLI(["-f", "lavfi", "-i", "color=c=\(talker.color):s=160x120:r=10:d=\(seconds)",
                              "-f", "lavfi", "-i", "aevalsrc=(\(gate.isEmpty ? "0" : gate))*sin(2*PI*440*t):s=48000:d=\(seconds)",
                              "-c:v", "ffv1", "-c:a", "pcm_s16le", folder.appendingPathComponent(file).path])
            let stop = talker.stopMilliseconds.map { ", \"stopTimeOffset\": \($0)" } ?? ""
            files.append("""
                {"streamId": "\(talker.id)", "filename": "\(file)", "startTimeOffset": \(talker.startMilliseconds)\(stop),
                 "connectionData": "{\\"name\\":\\"\(talker.name)\\"}", "videoType": "\(talker.videoType)"}
                """)
        }
        let manifest = folder.appendingPathComponent("archive.json")
        try Data("{\"id\": \"speaker-test\", \"createdAt\": 1700000000000, \"files\": [\(files.joined(separator: ","))]}".utf8).write(to: manifest)
        return manifest.path
    }

    /// §9: per 100 ms window from call time 0, the talker whose sine is loudest (a turn covering
    /// the window; amplitudes stand for levels, all well above −45 dBFS), or nil.
    static func loudest(_ talkers: [Talker], windows: Int) -> [String?] {
        (0..<windows).map { w in
            let middle = (Double(w) + 0.5) / 10
            let speaking = talkers.compactMap { talker in
                talker.turns.first { $0.from <= middle && middle < $0.to }.map { (talker.id, $0.amplitude) }
            }
            return speaking.max { $0.1 < $1.1 }?.0
        }
    }

    /// §9's focus rule over `loudest`: the window index from which each talker is large.
    static func focusMoves(_ loudest: [String?], first: String) -> [(window: Int, id: String)] {
        var moves = [(window: 0, id: first)]
        var run: (id: String?, since: Int) = (nil, 0)
        for (w, id) in loudest.enumerated() {
            if id != run.id { run = (id, w) }
            let end = w + 1
            guard let id, id != moves.last!.id, end - run.since >= 10, moves.count == 1 || end - moves.last!.window >= 20 else { continue }
            moves.append((end, id))
        }
        return moves
    }

    /// The grey level in the middle of the focus layout's large tile (the top three quarters).
    static func largeLuma(_ frame: GrayFrame) -> Int { Int(frame[frame.width / 2, frame.height * 3 / 8]) }

    /// Interjection under 1 s, a move, two turns 1.2 s apart (the second waits for the 2 s gap), silence at the end.
    static let talkers = [
        Talker(id: "a", name: "Ann", color: red.0, luma: red.1, turns: [(0, 3, 0.3), (8, 9.2, 0.3)]),
        Talker(id: "b", name: "Bob", color: green.0, luma: green.1, turns: [(3, 8, 0.3)]),
        Talker(id: "c", name: "Cy", color: blue.0, luma: blue.1, turns: [(6, 6.5, 0.6), (9.2, 12, 0.3)]),
    ]

    @Test func theFocusFollowsTheSpeakerAsTheRuleSaysAndTheCuesMatch() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = try Self.writeArchive(Self.talkers, seconds: 13, in: folder)
        let output = folder.appendingPathComponent("speaker.mkv").path, cues = folder.appendingPathComponent("speakers.vtt").path
        let run = try runFxreplay(["compose", manifest, "-o", output, "--layout", "speaker", "--speakers", cues,
                                   "--size", "320x180", "--fps", "10", "--codec", "ffv1", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")

        let loudest = Self.loudest(Self.talkers, windows: 130)
        let moves = Self.focusMoves(loudest, first: "a")
        // The schedule is built so the rule's cases happen: moves at 4.0 (b), 9.0 (a) and 11.0 (c, held back from 10.2).
        #expect(moves.map(\.window) == [0, 40, 90, 110])
        let luma = Dictionary(uniqueKeysWithValues: Self.talkers.map { ($0.id, $0.luma) })
        let frames = try GrayVideo.read(output)
        #expect(frames.count == 130)
        for (k, frame) in frames.enumerated() {
            let focused = moves.last { $0.window <= k }!.id
            #expect(abs(Self.largeLuma(frame) - luma[focused]!) < 20, "frame \(k): \(focused) should be large")
        }

        let names = Dictionary(uniqueKeysWithValues: Self.talkers.map { ($0.id, $0.name) })
        var expected = "WEBVTT\n"
        var w = 0
        while w < loudest.count {
            var end = w + 1
            while end < loudest.count && loudest[end] == loudest[w] { end += 1 }
            if let id = loudest[w] {
                expected += String(format: "\n00:00:%02d.%d00 --> 00:00:%02d.%d00\n", w / 10, w % 10, end / 10, end % 10) + names[id]! + "\n"
            }
            w = end
        }
        #expect(try String(contentsOfFile: cues, encoding: .utf8) == expected)
    }

    /// A sine of amplitude `a` has RMS `a / √2`: level `20 · log10(a) − 3.01` dBFS. Ann at −42 dBFS
    /// speaks (above the −45 floor), Bob at −48 dBFS does not, even alone.
    @Test func onlyLevelsAboveTheFloorSpeak() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        func amplitude(dBFS level: Double) -> Double { pow(10, (level + 10 * log10(2)) / 20) }
        let talkers = [
            Talker(id: "a", name: "Ann", color: Self.red.0, luma: Self.red.1, turns: [(0.5, 1.5, amplitude(dBFS: -42))]),
            Talker(id: "b", name: "Bob", color: Self.green.0, luma: Self.green.1, turns: [(1.5, 2.5, amplitude(dBFS: -48))]),
        ]
        let manifest = try Self.writeArchive(talkers, seconds: 3, in: folder)
        let output = folder.appendingPathComponent("grid.mkv").path, cues = folder.appendingPathComponent("cues.vtt").path
        let run = try runFxreplay(["compose", manifest, "-o", output, "--speakers", cues, "--size", "320x120", "--fps", "10",
                                   "--codec", "ffv1", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: cues, encoding: .utf8) == "WEBVTT\n\n00:00:00.500 --> 00:00:01.500\nAnn\n")
    }

    /// `--speakers` over a file the composition reads (the manifest, a stream's media) is refused
    /// before any work (exit 2), the file kept, and no video appears.
    @Test func theCueFileNeverWritesOverWhatIsRead() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = try Self.writeArchive([Self.talkers[0]], seconds: 1, in: folder)
        let output = folder.appendingPathComponent("out.mkv").path
        for victim in [manifest, folder.appendingPathComponent("a.mkv").path] {
            let before = try Data(contentsOf: URL(fileURLWithPath: victim))
            let run = try runFxreplay(["compose", manifest, "-o", output, "--speakers", victim, "--overwrite", "--progress", "none"])
            #expect(run.status == 2, "\(run.stderr)")
            #expect(run.stderr.contains("refusing to write over"), "\(run.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == before, "\(victim) was written over")
            #expect(!FileManager.default.fileExists(atPath: output), "the video appeared")
        }
    }

    @Test func aScreenShareTakesTheFocusUnlessAnotherIsNamed() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let talkers = [
            Talker(id: "a", name: "Ann", color: Self.red.0, luma: Self.red.1, turns: [(0, 6, 0.3)]),
            Talker(id: "s", name: "Slides", color: Self.blue.0, luma: Self.blue.1, turns: [], videoType: "screen",
                   startMilliseconds: 2000, stopMilliseconds: 4000),
        ]
        let manifest = try Self.writeArchive(talkers, seconds: 6, in: folder)
        for (arguments, screenWins) in [(["--layout", "focus"], true), (["--layout", "speaker"], true), (["--layout", "focus", "--focus", "Ann"], false)] {
            let output = folder.appendingPathComponent("screen-\(UUID().uuidString).mkv").path
            let run = try runFxreplay(["compose", manifest, "-o", output, "--size", "320x180", "--fps", "10", "--codec", "ffv1",
                                       "--progress", "none"] + arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            let frames = try GrayVideo.read(output)
            #expect(frames.count == 60)
            for (k, frame) in frames.enumerated() {
                let large = screenWins && (20..<40).contains(k) ? Self.blue.1 : Self.red.1
                #expect(abs(Self.largeLuma(frame) - large) < 20, "\(arguments) frame \(k)")
            }
        }
    }

    @Test func theSpeakersTileIsOutlined() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let talkers = [
            Talker(id: "a", name: "Ann", color: Self.red.0, luma: Self.red.1, turns: [(0, 1, 0.3)]),
            Talker(id: "b", name: "Bob", color: Self.green.0, luma: Self.green.1, turns: [(1, 2, 0.3)]),
        ]
        let manifest = try Self.writeArchive(talkers, seconds: 3, in: folder)
        let output = folder.appendingPathComponent("grid.mkv").path
        let run = try runFxreplay(["compose", manifest, "-o", output, "--highlight-speaker", "--size", "320x120", "--fps", "10",
                                   "--codec", "ffv1", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let frames = try GrayVideo.read(output)
        #expect(frames.count == 30)
        // Two grid cells of 160 × 120, each filled by its 4:3 picture; the outline (yellow, luma ≈ 200)
        // runs along the inside of the tile's edges; the middles keep their colour.
        let yellow = 200
        for (k, frame) in frames.enumerated() {
            let speaker = k < 10 ? 0 : k < 20 ? 1 : nil
            for (cell, luma) in [Self.red.1, Self.green.1].enumerated() {
                let left = cell * 160
                let edges = [frame[left + 1, 60], frame[left + 158, 60], frame[left + 80, 1], frame[left + 80, 118]].map(Int.init)
                for edge in edges { #expect(abs(edge - (speaker == cell ? yellow : luma)) < 20, "frame \(k) cell \(cell): \(edges)") }
                #expect(abs(Int(frame[left + 80, 60]) - luma) < 20, "frame \(k) cell \(cell) middle")
            }
        }
    }
}
