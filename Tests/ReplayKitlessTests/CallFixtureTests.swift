import FxTestSupport
import XCTest
@testable import ReplayKitless

/// The call fixtures themselves: what they write can be read back (frame codes through the ffmpeg
/// CLI, beeps through the decoder), so the tests of #23 that rely on them measure something real.
final class CallFixtureTests: XCTestCase {
    func testFrameCodesAndBeepsReadBack() throws {
        _ = FFmpegLogging.defaults   // quiet unless a test beside it asked for FFmpeg's lines
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fxreplay-fixture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let video = FixtureVideo(size: PictureSize(width: 160, height: 120), frameTimes: [0.02, 0.1, 0.25, 0.3, 0.5], tag: 4660)
        let audio = FixtureAudio(sampleRate: 48000, channels: 2, start: 0, duration: 1, beeps: [0.3, 0.7])
        let path = folder.appendingPathComponent("a.webm").path
        try CallFixtures.writeMedia(path, video: video, audio: audio)

        let frames = try GrayVideo.read(path)
        XCTAssertEqual(frames.count, 5)
        for (i, frame) in frames.enumerated() {
            let code = FrameCode.read(frame, picture: PixelRect(x: 0, y: 0, width: 160, height: 120))
            XCTAssertEqual(code?.index, i)
            XCTAssertEqual(code?.tag, 4660)
        }
        // Off the picture (shifted by half a cell) no code is read.
        XCTAssertNil(FrameCode.read(frames[0], picture: PixelRect(x: 5, y: 0, width: 160, height: 120)))
        let probe = try MediaProbe.probe(path)
        XCTAssertEqual(probe.streams.map(\.codec).sorted(), ["opus", "vp8"])
        // Frames keep the times given: the sound's codec priming moved no stream.
        XCTAssertEqual(try XCTUnwrap(probe.streams.first { $0.kind == .video }?.startSeconds), 0.02, accuracy: 0.0005)

        let sound = try decodedAudio(path)
        let onsets = sound.beepOnsets
        XCTAssertEqual(onsets.count, 2)
        for (found, expected) in zip(onsets, [0.3, 0.7]) { XCTAssertEqual(found, expected, accuracy: 0.001) }
    }

    func testScaledCodeReadsInsideATile() throws {
        let buffer = PlanarBuffer(width: 160, height: 120)
        FrameCode.draw(buffer.image, index: 1234, tag: 7)
        // A 2.5× nearest-neighbour enlargement placed at (30, 10) in a 460×320 frame.
        var big = GrayFrame(width: 460, height: 320, pixels: [UInt8](repeating: 0, count: 460 * 320))
        for y in 0..<300 { for x in 0..<400 { big.pixels[(y + 10) * 460 + x + 30] = buffer.image.luma[x * 2 / 5, y * 2 / 5] } }
        let rect = PixelRect.contain(PictureSize(width: 160, height: 120), in: PixelRect(x: 30, y: 10, width: 400, height: 300))
        XCTAssertEqual(FrameCode.read(big, picture: rect)?.index, 1234)
        XCTAssertEqual(FrameCode.read(big, picture: rect)?.tag, 7)
    }

    func testArchiveManifestNamesEveryFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fxreplay-fixture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let streams = [
            FixtureStream(id: "s1", name: "Car owner", tracks: [FixtureTrack(file: "s1.webm", video: .constant(duration: 0.5, tag: 1),
                                                                            audio: FixtureAudio(duration: 0.5), start: 0.5)]),
            FixtureStream(id: "s2", name: "Agent", tracks: [FixtureTrack(file: "s2.mka", audio: FixtureAudio(sampleRate: 44100, duration: 0.5),
                                                                        start: 1, stop: 1.25)]),
        ]
        let manifest = try CallFixtures.writeArchive(streams, in: folder)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as! [String: Any]
        let files = json["files"] as! [[String: Any]]
        XCTAssertEqual(files.map { $0["filename"] as! String }, ["s1.webm", "s2.mka"])
        XCTAssertEqual(files.map { $0["startTimeOffset"] as! Int }, [500, 1000])
        XCTAssertEqual(files[1]["stopTimeOffset"] as? Int, 1250)
        XCTAssertEqual(files[0]["connectionData"] as? String, #"{"name":"Car owner"}"#)
        XCTAssertEqual(try MediaProbe.probe(folder.appendingPathComponent("s2.mka").path).streams.map(\.codec), ["aac"])
    }
}
