import Foundation
import Testing
import FxTestSupport
import ReplayKitless

/// `fxreplay compose` read back: which source frame each tile shows at each output time, from
/// the frame codes of the call fixtures, against formats.md §9's rule computed here from the
/// files' own timestamps (ffprobe) in whole milliseconds, and the grid formula written out anew.
@Suite(.serialized) struct ComposeCommandTests {
    /// A fixture file's frame times and earliest presentation time, in milliseconds, from ffprobe.
    struct Timing {
        var start: Int
        var frames: [Int]
    }

    static func ffprobe(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error"] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func timing(_ path: String) throws -> Timing {
        // (Lines of side data, if any, hold no number first.)
        func milliseconds(_ text: String) -> [Int] {
            text.split(separator: "\n").compactMap { line in
                Double(line.split(separator: ",").first.map(String.init) ?? "").map { Int(($0 * 1000).rounded()) }
            }
        }
        let start = milliseconds(try ffprobe(["-show_entries", "format=start_time", "-of", "csv=p=0", path]))
        let frames = milliseconds(try ffprobe(["-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time", "-of", "csv=p=0", path]))
        guard let p0 = start.first, !frames.isEmpty else { throw ReplayError.processing("\(path): ffprobe found no timing") }
        return Timing(start: p0, frames: frames)
    }

    /// §9's grid, from the contract's words.
    static func grid(_ n: Int, _ W: Int, _ H: Int) -> [FxTestSupport.PixelRect] {
        guard n > 0 else { return [] }
        let c = Int(Double(n).squareRoot().rounded(.up)), r = (n + c - 1) / c, k = n - c * (r - 1)
        return (0..<n).map { i in
            let col = i % c, row = i / c
            let shift = row == r - 1 && k < c ? (c - k) * W / (2 * c) : 0
            return FxTestSupport.PixelRect(x: col * W / c + shift, y: row * H / r, width: (col + 1) * W / c - col * W / c,
                                           height: (row + 1) * H / r - row * H / r)
        }
    }

    /// A participant as the test sees it: tag, call start and stop (ms), its pictures' sizes by
    /// frame, its files' timings.
    struct Expected {
        var tag: Int
        var start: Int, stop: Int
        var timing: Timing
        var size: (Int) -> PictureSize
        /// Frame `i`'s call time in ms: start + (p − p0).
        func callTime(_ i: Int) -> Int { start + timing.frames[i] - timing.start }
        /// The latest frame due by output time `k / fps` (exactly: callTime·fps ≤ k·1000).
        func shown(frame k: Int, fps: Int, from: Int = 0) -> Int? {
            timing.frames.indices.last { callTime($0) * fps <= k * 1000 + from * fps }
        }
        func isActive(frame k: Int, fps: Int, from: Int = 0) -> Bool {
            start * fps <= k * 1000 + from * fps && k * 1000 + from * fps < stop * fps
        }
    }

    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fxreplay-compose-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Checks every output frame's tiles: the active participants in grid order, each tile showing
    /// the frame §9 says (or nothing before its first); output frame `k` shows call time `from + k / fps` (ms).
    static func checkGrid(_ output: String, participants: [Expected], fps: Int, width: Int, height: Int, end: Int? = nil,
                          from: Int = 0) throws {
        let frames = try GrayVideo.read(output)
        let end = end ?? participants.map(\.stop).max()!
        #expect(frames.count == ((end - from) * fps + 999) / 1000, "frame count")
        var layoutChanges: [Int] = []
        var previous: [Int] = []
        for (k, frame) in frames.enumerated() {
            let active = participants.indices.filter { participants[$0].isActive(frame: k, fps: fps, from: from) }
            if active != previous { layoutChanges.append(k) }
            previous = active
            for (cell, index) in zip(grid(active.count, width, height), active) {
                let participant = participants[index]
                guard let shown = participant.shown(frame: k, fps: fps, from: from) else { continue }
                let picture = FxTestSupport.PixelRect.contain(participant.size(shown), in: cell)
                let code = FrameCode.read(frame, picture: picture)
                #expect(code?.tag == participant.tag && code?.index == shown,
                        "output frame \(k) (t = \(Double(k) / Double(fps)) s), tile \(cell): expected frame \(shown) of tag \(participant.tag), read \(String(describing: code))")
            }
        }
        #expect(layoutChanges.count > 2, "the test should see people join and leave")
    }

    /// `--from` starts each picture stream at its keyframe before `from` (libvpx puts one every
    /// 128 pictures) rather than decoding from the file's start: the tiles still show the frames
    /// §9 says, and the report counts only the pictures from that keyframe on.
    @Test func composingFromLaterSeeksThePicturesAndKeepsTheTimeline() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let streams = [
            FixtureStream(id: "u", name: "Uma", tracks: [FixtureTrack(file: "u.webm", video: .constant(fps: 20, duration: 9.0, tag: 5), start: 0)]),
            FixtureStream(id: "v", name: "Vic", tracks: [FixtureTrack(file: "v.mkv", video: .constant(fps: 15, duration: 2.0, tag: 6), start: 6.3)]),
            FixtureStream(id: "w", name: "Wes", tracks: [FixtureTrack(file: "w.webm", video: .constant(fps: 10, duration: 0.6, tag: 7), start: 7.9)]),
        ]
        let manifest = try CallFixtures.writeArchive(streams, in: folder)
        let output = folder.appendingPathComponent("out.mkv").path
        let report = folder.appendingPathComponent("report.json").path
        let run = try runFxreplay(["compose", manifest, "-o", output, "--size", "320x240", "--fps", "20", "--codec", "ffv1",
                                   "--progress", "none", "--from", "7.45", "--report", report])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try Self.expected(streams, manifest: manifest, folder: folder)
        try Self.checkGrid(output, participants: expected, fps: 20, width: 320, height: 240, from: 7450)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as! [String: Any]
        let decoded = (json["participants"] as! [[String: Any]]).map { $0["framesDecoded"] as! Int }
        // Each file decoded from its last keyframe (ffprobe's packet flags) at or before call time
        // 7.45 s; Wes joins later and is decoded whole.
        var wanted: [Int] = []
        for participant in expected {
            let keyframes = try Self.ffprobe(["-select_streams", "v:0", "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0",
                                              folder.appendingPathComponent(streams[wanted.count].tracks[0].file).path])
                .split(separator: "\n").filter { $0.contains("K") }
                .compactMap { Double($0.split(separator: ",")[0]).map { Int(($0 * 1000).rounded()) } }
            let target = 7450 - participant.start + participant.timing.start
            let first = keyframes.last { $0 <= target }.flatMap { key in participant.timing.frames.firstIndex(of: key) } ?? 0
            wanted.append(participant.timing.frames.count - first)
        }
        #expect(wanted[0] < 180, "Uma's file should have a keyframe after its first before 7.45 s to seek to: \(wanted)")
        #expect(decoded == wanted, "pictures decoded per participant")
    }

    /// VFR and constant-rate sources, WebM (Opus priming: its p0 is before its first picture) and
    /// Matroska/H.264, starting at different times, one leaving early, portrait and landscape: the
    /// grid changes at the frames where someone joins or leaves.
    @Test func eachTileShowsTheFrameTheTimelineSays() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let small = PictureSize(width: 160, height: 120), tall = PictureSize(width: 120, height: 160)
        let streams = [
            FixtureStream(id: "a", name: "Ann", tracks: [FixtureTrack(
                file: "a.webm", video: FixtureVideo(size: small, frameTimes: [0, 0.05, 0.13, 0.2, 0.35, 0.4, 0.41, 0.6, 0.9, 1.0], tag: 11),
                audio: FixtureAudio(duration: 1.1), start: 0)]),
            FixtureStream(id: "b", name: "Bob", tracks: [FixtureTrack(
                file: "b.webm", video: .constant(size: tall, fps: 7, duration: 1.2, tag: 22), start: 0.25, stop: 1.05)]),
            FixtureStream(id: "c", name: "Cy", tracks: [FixtureTrack(
                file: "c.mkv", video: .constant(size: small, fps: 12, duration: 1.0, start: 0.1, tag: 33), start: 0.5)]),
            FixtureStream(id: "d", name: "Dee", tracks: [FixtureTrack(file: "d.mka", audio: FixtureAudio(duration: 1.6), start: 0.2)]),
        ]
        let manifest = try CallFixtures.writeArchive(streams, in: folder)
        let output = folder.appendingPathComponent("out.mkv").path
        let run = try runFxreplay(["compose", manifest, "-o", output, "--size", "320x240", "--fps", "20", "--codec", "ffv1", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as! [String: Any]
        let files = json["files"] as! [[String: Any]]
        var expected: [Expected] = []
        for (stream, file) in zip(streams, files) where stream.tracks[0].video != nil {
            let video = stream.tracks[0].video!
            expected.append(Expected(tag: video.tag, start: file["startTimeOffset"] as! Int, stop: file["stopTimeOffset"] as! Int,
                                     timing: try Self.timing(folder.appendingPathComponent(stream.tracks[0].file).path),
                                     size: { _ in video.size }))
        }
        // The audio-only participant, whose stop is the latest, sets the end and takes no tile.
        let end = files.map { $0["stopTimeOffset"] as! Int }.max()!
        try Self.checkGrid(output, participants: expected, fps: 20, width: 320, height: 240, end: end)
    }

    /// The expected form of a fixture archive's video streams, in manifest order.
    static func expected(_ streams: [FixtureStream], manifest: String, folder: URL) throws -> [Expected] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as! [String: Any]
        let files = json["files"] as! [[String: Any]]
        var expected: [Expected] = []
        for (stream, file) in zip(streams, files) where stream.tracks[0].video != nil {
            let video = stream.tracks[0].video!
            expected.append(Expected(tag: video.tag, start: file["startTimeOffset"] as! Int, stop: file["stopTimeOffset"] as! Int,
                                     timing: try Self.timing(folder.appendingPathComponent(stream.tracks[0].file).path),
                                     size: { i in video.sizes.filter { $0.key <= i }.max { $0.key < $1.key }?.value ?? video.size }))
        }
        return expected
    }

    /// Pat leaves and comes back as a new stream: one tile, kept first (as two streams, Quinn
    /// would take the first cell when Pat returns). Rae's picture turns from landscape to portrait
    /// mid-stream and stays in its tile, contained anew.
    @Test func aReconnectKeepsOneTileAndAResolutionChangeKeepsItsTile() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        var rae = FixtureVideo.constant(fps: 10, duration: 1.2, tag: 44)
        rae.sizes = [6: PictureSize(width: 120, height: 160)]
        let streams = [
            FixtureStream(id: "pat-1", name: "Pat", tracks: [FixtureTrack(file: "p1.webm", video: .constant(fps: 10, duration: 0.5, tag: 1), start: 0)]),
            FixtureStream(id: "pat-2", name: "Pat", tracks: [FixtureTrack(file: "p2.webm", video: .constant(fps: 10, duration: 0.5, tag: 2), start: 0.7)]),
            FixtureStream(id: "quinn", name: "Quinn", tracks: [FixtureTrack(file: "q.webm", video: .constant(fps: 10, duration: 1.1, tag: 3), start: 0.1)]),
            FixtureStream(id: "rae", name: "Rae", tracks: [FixtureTrack(file: "r.webm", video: rae, start: 0.05)]),
        ]
        let manifest = try CallFixtures.writeArchive(streams, in: folder)
        let output = folder.appendingPathComponent("out.mkv").path
        let report = folder.appendingPathComponent("report.json").path
        let run = try runFxreplay(["compose", manifest, "-o", output, "--size", "320x240", "--fps", "20", "--codec", "ffv1",
                                   "--progress", "none", "--report", report])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try Self.expected(streams, manifest: manifest, folder: folder)
        // Pat's two streams are one participant, placed by its first start: before Quinn and Rae.
        try Self.checkGrid(output, participants: [expected[0], expected[1], expected[3], expected[2]], fps: 20, width: 320, height: 240)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as! [String: Any]
        let participants = json["participants"] as! [[String: Any]]
        #expect(participants.map { $0["streams"] as! [String] } == [["pat-1", "pat-2"], ["rae"], ["quinn"]])
        #expect(participants[1]["resolutionChanges"] as? Int == 1)
    }

    /// A layout file: Quinn covering a wide tile (top and bottom cropped), Pat contained in a small tile on a grey
    /// background; Rae, without a tile, is not shown.
    @Test func aLayoutFilePlacesTheTilesItNames() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let streams = [
            FixtureStream(id: "pat", name: "Pat", tracks: [FixtureTrack(file: "p.webm", video: .constant(fps: 10, duration: 0.6, tag: 1), start: 0)]),
            FixtureStream(id: "quinn", name: "Quinn", tracks: [FixtureTrack(file: "q.webm", video: .constant(fps: 10, duration: 0.6, tag: 3), start: 0)]),
            FixtureStream(id: "rae", name: "Rae", tracks: [FixtureTrack(file: "r.webm", video: .constant(fps: 10, duration: 0.6, tag: 4), start: 0)]),
        ]
        let manifest = try CallFixtures.writeArchive(streams, in: folder)
        let layout = folder.appendingPathComponent("layout.json").path
        try Data("""
            {"version": 1, "background": "#808080",
             "tiles": [{"stream": "Quinn", "rect": [0, 0, 160, 80], "fit": "cover"}, {"stream": "pat", "rect": [200, 20, 100, 100]}]}
            """.utf8).write(to: URL(fileURLWithPath: layout))
        let output = folder.appendingPathComponent("out.mkv").path
        let run = try runFxreplay(["compose", manifest, "-o", output, "--size", "320x240", "--fps", "10", "--codec", "ffv1",
                                   "--progress", "none", "--layout", layout])
        #expect(run.status == 0, "\(run.stderr)")
        let frames = try GrayVideo.read(output)
        #expect(frames.count == 6)
        let size = PictureSize(width: 160, height: 120)
        for (k, frame) in frames.enumerated() {
            #expect(FrameCode.read(frame, picture: .cover(size, in: FxTestSupport.PixelRect(x: 0, y: 0, width: 160, height: 80)))?.tag == 3)
            let pat = FrameCode.read(frame, picture: .contain(size, in: FxTestSupport.PixelRect(x: 200, y: 20, width: 100, height: 100)))
            #expect(pat?.tag == 1 && pat?.index == k)
            // Outside the tiles and in the bar above Pat's picture: the background (#808080, mid grey).
            #expect(abs(Int(frame[250, 200]) - 127) <= 2 && abs(Int(frame[250, 24]) - 127) <= 2 && abs(Int(frame[80, 160]) - 127) <= 2)
        }
    }

    @Test func anUnknownStreamInAJobIsBadInputListingTheStreams() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let streams = [FixtureStream(id: "pat", name: "Pat", tracks: [FixtureTrack(file: "p.webm", video: .constant(fps: 10, duration: 0.3, tag: 1))])]
        let manifest = try CallFixtures.writeArchive(streams, in: folder)
        let job = folder.appendingPathComponent("job.yaml").path
        try Data("crf: 30\nstreams:\n  Pat:\n    mirror: true\n  nobody:\n    mirror: true\n".utf8).write(to: URL(fileURLWithPath: job))
        let output = folder.appendingPathComponent("out.mp4").path
        let run = try runFxreplay(["compose", manifest, "-o", output, "--job", job, "--progress", "none"])
        #expect(run.status == 3)
        #expect(run.stderr.contains("job.yaml:5") && run.stderr.contains("nobody") && run.stderr.contains("pat (Pat)"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        // Known streams only: composed, Pat's picture mirrored by its own effects.
        try Data("streams:\n  Pat:\n    mirror: true\n".utf8).write(to: URL(fileURLWithPath: job))
        let lossless = folder.appendingPathComponent("out.mkv").path
        let mirrored = try runFxreplay(["compose", manifest, "-o", lossless, "--job", job, "--progress", "none", "--size", "160x120",
                                        "--codec", "ffv1", "--overwrite"])
        #expect(mirrored.status == 0, "\(mirrored.stderr)")
        let frame = try GrayVideo.read(lossless)[0]
        var flipped = frame
        for y in 0..<frame.height { for x in 0..<frame.width { flipped.pixels[y * frame.width + x] = frame[frame.width - 1 - x, y] } }
        #expect(FrameCode.read(flipped, picture: FxTestSupport.PixelRect(x: 0, y: 0, width: 160, height: 120))?.tag == 1)
        #expect(FrameCode.read(frame, picture: FxTestSupport.PixelRect(x: 0, y: 0, width: 160, height: 120)) == nil)
    }

    /// SIGINT during a compose of a ZIP: neither output nor temporary files, nor the extracted call.
    @Test func anInterruptedComposeLeavesNothing() throws {
        let (dir, tmp) = try CallCommandFixtures.scratch(manifest: """
            {"createdAt": 1700000000000, "files": [{"streamId": "long", "filename": "long.mkv", "startTimeOffset": 0},
                                                   {"streamId": "late", "filename": "long.mkv", "startTimeOffset": 2000}]}
            """)
        try runFFmpegCLI(["-f", "lavfi", "-i", "testsrc=size=640x360:rate=30:duration=10", "-c:v", "ffv1", "-level", "1", dir + "/call/long.mkv"])
        let zip = dir + "/call.zip"
        try CallCommandFixtures.makeZip(zip, members: [("manifest.json", dir + "/call/manifest.json"), ("long.mkv", dir + "/call/long.mkv")])
        let outDir = dir + "/out"
        try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        let status = try CallCommandFixtures.interruptOnceWriting(
            ["compose", zip, "-o", outDir + "/call.mp4", "--preset", "veryslow", "--progress", "none",
             "--report", outDir + "/report.json", "--preview", outDir + "/sheet.png"],
            tmp: tmp, outDir: outDir, settle: 0.3)
        #expect(status == 130)
        #expect(CallCommandFixtures.contents(outDir).isEmpty, "\(CallCommandFixtures.contents(outDir))")
        #expect(CallCommandFixtures.contents(tmp).isEmpty, "\(CallCommandFixtures.contents(tmp))")
    }

    /// A stream whose WebM was cut short (an archive cut off): composed, its last picture held,
    /// the stream named in a warning and counted in the report.
    @Test func aStreamCutShortIsNamedAndCounted() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let streams = [
            FixtureStream(id: "pat", name: "Pat", tracks: [FixtureTrack(file: "p.webm", video: .constant(fps: 10, duration: 3, tag: 1), start: 0)]),
            FixtureStream(id: "quinn", name: "Quinn", tracks: [FixtureTrack(file: "q.webm", video: .constant(fps: 10, duration: 3, tag: 3), start: 0)]),
        ]
        let manifest = try CallFixtures.writeArchive(streams, in: folder)
        let path = folder.appendingPathComponent("q.webm").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
        let output = folder.appendingPathComponent("out.mkv").path, report = folder.appendingPathComponent("r.json").path
        let run = try runFxreplay(["compose", manifest, "-o", output, "--size", "320x120", "--fps", "10", "--codec", "ffv1",
                                   "--progress", "none", "--report", report])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: stream quinn (Quinn, q.webm)") && run.stderr.contains("cut short"), "\(run.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as! [String: Any]
        let participants = json["participants"] as! [[String: Any]]
        #expect((participants[1]["decodeErrors"] as? Int ?? 0) > 0)
        // Quinn's last picture is held to the end, in the right-hand cell.
        let frames = try GrayVideo.read(output)
        #expect(frames.count == 30)
        let last = FrameCode.read(frames[29], picture: FxTestSupport.PixelRect(x: 160, y: 0, width: 160, height: 120))
        #expect(last?.tag == 3 && (last?.index ?? 99) < 25)
    }
}
