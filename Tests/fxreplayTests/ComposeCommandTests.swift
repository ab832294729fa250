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
        func isActive(frame k: Int, fps: Int) -> Bool { start * fps <= k * 1000 && k * 1000 < stop * fps }
    }

    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fxreplay-compose-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Checks every output frame's tiles: the active participants in grid order, each tile showing
    /// the frame §9 says (or nothing before its first).
    static func checkGrid(_ output: String, participants: [Expected], fps: Int, width: Int, height: Int, end: Int? = nil) throws {
        let frames = try GrayVideo.read(output)
        let end = end ?? participants.map(\.stop).max()!
        #expect(frames.count == (end * fps + 999) / 1000, "frame count")
        var layoutChanges: [Int] = []
        var previous: [Int] = []
        for (k, frame) in frames.enumerated() {
            let active = participants.indices.filter { participants[$0].isActive(frame: k, fps: fps) }
            if active != previous { layoutChanges.append(k) }
            previous = active
            for (cell, index) in zip(grid(active.count, width, height), active) {
                let participant = participants[index]
                guard let shown = participant.shown(frame: k, fps: fps) else { continue }
                let picture = FxTestSupport.PixelRect.contain(participant.size(shown), in: cell)
                let code = FrameCode.read(frame, picture: picture)
                #expect(code?.tag == participant.tag && code?.index == shown,
                        "output frame \(k) (t = \(Double(k) / Double(fps)) s), tile \(cell): expected frame \(shown) of tag \(participant.tag), read \(String(describing: code))")
            }
        }
        #expect(layoutChanges.count > 2, "the test should see people join and leave")
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
}
