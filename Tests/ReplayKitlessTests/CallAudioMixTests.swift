import CFFmpeg
import FxTestSupport
import XCTest
@testable import ReplayKitless

/// The sound of a composed call (formats.md §9): every stream at its call time, 48 kHz, summed,
/// clipped. Beeps are measured the same way in each source file (its own decoder, its own rate)
/// and in the mix, so codec delays cancel and what is left is the placement.
final class CallAudioMixTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        _ = FFmpegLogging.defaults   // quiet unless a test beside it asked for FFmpeg's lines
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("fxreplay-mix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Three participants: Opus 48 kHz mono in WebM whose sound starts 20 ms before its picture;
    /// AAC 44.1 kHz stereo in Matroska; AAC 16 kHz mono, audio only, joining late.
    private func threeParticipants() -> [FixtureStream] {
        [
            FixtureStream(id: "publisher", tracks: [FixtureTrack(
                file: "publisher.webm", video: .constant(duration: 1.5, start: 0.02, tag: 1),
                audio: FixtureAudio(sampleRate: 48000, channels: 1, start: 0, duration: 1.5, beeps: [0.3, 1.2]), start: 0.5)]),
            FixtureStream(id: "agent", tracks: [FixtureTrack(
                file: "agent.mkv", video: .constant(size: PictureSize(width: 192, height: 108), duration: 2, tag: 2),
                audio: FixtureAudio(sampleRate: 44100, channels: 2, start: 0, duration: 2, beeps: [0.9, 1.9]), start: 0.25)]),
            FixtureStream(id: "phone", tracks: [FixtureTrack(
                file: "phone.mka", audio: FixtureAudio(sampleRate: 16000, channels: 1, start: 0, duration: 1.2, beeps: [0.2, 0.9]),
                start: 1.7)]),
        ]
    }

    /// Each beep's call time, from the source file measured on its own clock.
    private func expectedBeeps(_ call: Call) throws -> [Double] {
        try call.streams.flatMap { stream in
            try stream.tracks.filter(\.hasAudio).flatMap { track in try decodedAudio(track.path.string).beepOnsets.map(track.callTime(ofMediaTime:)) }
        }.sorted()
    }

    private func mixAll(_ call: Call, from: Double = 0, to: Double? = nil) throws -> (left: [Float], right: [Float]) {
        let mix = try CallAudioMix(call: call, from: from, to: to)
        var left: [Float] = [], right: [Float] = []
        while true {
            // An odd read size, so windows do not line up with any codec's frames.
            let part = try mix.read(frames: 1000)
            if part.left.isEmpty { break }
            left += part.left
            right += part.right
        }
        XCTAssertEqual(Int64(left.count), mix.frameCount)
        return (left, right)
    }

    private func assertOnsets(_ found: [Double], _ expected: [Double], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(found.count, expected.count, "found \(found), expected \(expected)", file: file, line: line)
        for (f, e) in zip(found, expected) {
            XCTAssertEqual(f, e, accuracy: 0.001, "beep at call time \(e) s found at \(f) s", file: file, line: line)
        }
    }

    func testBeepsOfThreeParticipantsAtTheirCallTimes() throws {
        let call = try CallFixtures.call(threeParticipants(), in: folder)
        let expected = try expectedBeeps(call)
        XCTAssertEqual(expected.count, 6)
        let mix = try mixAll(call, to: 3)
        XCTAssertEqual(mix.left.count, 3 * 48000)
        let found = BeepDetector.onsets(mix.left, sampleRate: 48000)
        assertOnsets(found, expected)
        print("beep placement errors, ms:", zip(found, expected).map { (($0 - $1) * 1000 * 1000).rounded() / 1000 })
        // Mono sources play on both sides, stereo ones keep their sides: here every side is the same.
        assertOnsets(BeepDetector.onsets(mix.right, sampleRate: 48000), expected)
    }

    func testFromShiftsEverything() throws {
        let call = try CallFixtures.call(threeParticipants(), in: folder)
        let whole = try mixAll(call, to: 3)
        let late = try mixAll(call, from: 0.5, to: 3)
        XCTAssertEqual(late.left.count, 120_000)
        // Sample for sample the same sound, 24000 samples earlier.
        XCTAssertEqual(late.left, Array(whole.left[24000...]))
        let expected = try expectedBeeps(call).filter { $0 >= 0.5 }.map { $0 - 0.5 }
        assertOnsets(BeepDetector.onsets(late.left, sampleRate: 48000), expected)
    }

    func testFromFarIntoATrackSeeksAndKeepsTime() throws {
        let long = FixtureStream(id: "long", tracks: [FixtureTrack(
            file: "long.webm", audio: FixtureAudio(sampleRate: 48000, channels: 1, duration: 13, beeps: [1, 11.2, 12.1]), start: 0.3)])
        let call = try CallFixtures.call([long], in: folder)
        XCTAssertGreaterThan(11 - 0.3, TrackSound.seekDistance, "the mix must seek")
        let expected = try expectedBeeps(call).filter { $0 >= 11 }.map { $0 - 11 }
        XCTAssertEqual(expected.count, 2)
        let mix = try mixAll(call, from: 11, to: 13)
        let found = BeepDetector.onsets(mix.left, sampleRate: 48000)
        assertOnsets(found, expected)
        // Where the mix starts does not move the sound: the same onsets as decoding from the start.
        let whole = BeepDetector.onsets(try mixAll(call, to: 13).left, sampleRate: 48000).filter { $0 >= 11 }.map { $0 - 11 }
        XCTAssertEqual(found.count, whole.count)
        for (a, b) in zip(found, whole) { XCTAssertEqual(a, b, accuracy: 0.0001) }
    }

    /// Two in-phase full-scale tones (lossless PCM, so the sum is known exactly) clip at full
    /// scale; a mix that wrapped or scaled would differ.
    func testFullScaleTonesClip() throws {
        let tone = (0..<24000).map { Float(sin(2 * Double.pi * 500 * Double($0) / 48000)) }
        for name in ["a.mka", "b.mka"] {
            let raw = folder.appendingPathComponent(name + ".raw")
            try tone.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: raw)
            try runFFmpegCLI(["-f", "f32le", "-ar", "48000", "-ac", "1", "-i", raw.path, "-c:a", "pcm_f32le",
                              folder.appendingPathComponent(name).path])
        }
        let call = try CallFixtures.call([FixtureStream(id: "a", tracks: [FixtureTrack(file: "a.mka")]),
                                          FixtureStream(id: "b", tracks: [FixtureTrack(file: "b.mka")])], in: folder)
        let mix = try mixAll(call, to: 0.5)
        XCTAssertEqual(mix.left.count, tone.count)
        XCTAssertEqual(mix.left.max(), 1)
        XCTAssertEqual(mix.left.min(), -1)
        for i in tone.indices where abs(mix.left[i] - min(1, max(-1, 2 * tone[i]))) > 1e-6 {
            XCTFail("sample \(i): \(mix.left[i]), expected \(min(1, max(-1, 2 * tone[i])))")
            break
        }
        XCTAssertEqual(mix.right, mix.left)
    }

    func testStreamIsSilentFromItsStop() throws {
        var audio = FixtureAudio(sampleRate: 44100, channels: 1, duration: 1)
        audio.continuousTone = 440
        let call = try CallFixtures.call([FixtureStream(id: "cut", tracks: [FixtureTrack(file: "cut.mkv", audio: audio, start: 0.2, stop: 0.8)])],
                                         in: folder)
        let mix = try mixAll(call, to: 1.3)
        let stop = 48000 * 8 / 10
        XCTAssertEqual(mix.left[stop...].max(), 0, "sound after the stop")
        XCTAssertEqual(mix.left[stop...].min(), 0, "sound after the stop")
        XCTAssertEqual(mix.left[..<(48000 / 5)].map(abs).max(), 0, "sound before the start")
        let heard = mix.left[(stop - 4800)..<stop]
        XCTAssertGreaterThan(heard.map { $0 * $0 }.reduce(0, +) / Float(heard.count), 0.1, "the tone until the stop")
    }

    /// A file cut short (an archive that was not finished) is heard up to the cut, not refused.
    func testTruncatedTrackIsHeardUpToTheCut() throws {
        let whole = folder.appendingPathComponent("whole.webm")
        try CallFixtures.writeMedia(whole.path, video: nil, audio: FixtureAudio(duration: 2, beeps: [0.3, 1.6]))
        let bytes = try Data(contentsOf: whole)
        try bytes.prefix(bytes.count * 6 / 10).write(to: folder.appendingPathComponent("cut.webm"))
        let call = try CallFixtures.call([FixtureStream(id: "cut", tracks: [FixtureTrack(file: "cut.webm", stop: 2)])], in: folder)
        let source = try decodedAudio(whole.path).beepOnsets.map(call.streams[0].tracks[0].callTime(ofMediaTime:))
        let mix = try CallAudioMix(call: call, to: 2)
        var left: [Float] = []
        while true {
            let part = try mix.read(frames: 4096)
            if part.left.isEmpty { break }
            left += part.left
        }
        XCTAssertEqual(left.count, 96000)
        assertOnsets(BeepDetector.onsets(left, sampleRate: 48000), [source[0]])
        XCTAssertTrue(Set(mix.damagedPackets.keys).isSubset(of: ["cut"]))
    }

    /// The encoded sound of a composition: `(to − from) × 48000` samples (± one encoder frame),
    /// the beeps still at their times, in each container's codec.
    func testSoundTrackLengthAndTimingInEachContainer() throws {
        let call = try CallFixtures.call(threeParticipants(), in: folder)
        let expected = try expectedBeeps(call).filter { $0 >= 0.5 && $0 < 2.9 }.map { $0 - 0.5 }
        for (name, codec) in [("out.mp4", "aac"), ("out.mkv", "aac"), ("out.webm", "opus")] {
            let path = folder.appendingPathComponent(name).path
            let muxer = try Muxer(output: try AtomicOutput(path: FilePath(path), overwrite: true), bitexact: false)
            let sound = try CallSoundTrack(call: call, from: 0.5, to: 2.9, muxer: muxer)
            try muxer.writeHeader()
            for k in 1...48 { try sound.write(upTo: Double(k) / 20) }
            try sound.finish()
            try muxer.finish()
            XCTAssertEqual(try MediaProbe.probe(path).streams.map(\.codec), [codec])
            let raw = path + ".f32"
            try runFFmpegCLI(["-i", path, "-f", "f32le", "-ac", "2", "-ar", "48000", raw])
            let samples = try Data(contentsOf: URL(fileURLWithPath: raw)).count / 8
            XCTAssertEqual(Double(samples), 2.4 * 48000, accuracy: 1024, name)
            let decoded = try decodedAudio(path)
            assertOnsets(decoded.beepOnsets, expected)
        }
    }

    /// Pictures and sound in one output, as compose writes them: the sound's codec priming moves
    /// no stream (the first picture still has time 0), and a beep is heard when the frame of its
    /// call time is shown, in every container.
    func testSoundAndPicturesStayInStep() throws {
        let call = try CallFixtures.call(threeParticipants(), in: folder)
        let expected = try expectedBeeps(call).filter { $0 >= 0.5 && $0 < 2.9 }.map { $0 - 0.5 }
        for name in ["av.mp4", "av.mkv", "av.webm"] {
            let path = folder.appendingPathComponent(name).path
            let muxer = try Muxer(output: try AtomicOutput(path: FilePath(path), overwrite: true), bitexact: false)
            var settings = EncoderSettings()
            settings.preset = "ultrafast"
            let codec = VideoCodec.defaultCodec(forOutput: FilePath(path))
            let encoder = try Encoder(settings: settings, codec: codec == .vp9 ? .vp8 : codec, width: 64, height: 48,
                                      timeBase: AVRational(num: 1, den: 20), frameRate: AVRational(num: 20, den: 1),
                                      colorOf: nil, alpha: false, globalHeader: muxer.needsGlobalHeader)
            let video = try muxer.addStream(encoder: encoder)
            let sound = try CallSoundTrack(call: call, from: 0.5, to: 2.9, muxer: muxer)
            try muxer.writeHeader()
            let picture = try Frame(width: 64, height: 48, format: AV_PIX_FMT_YUV420P)
            let packet = try Packet()
            func drain() throws {
                while try encoder.receive(into: packet) == .produced { try muxer.write(packet, stream: video) }
            }
            for k in 0..<48 {
                picture.yuvImage!.luma.fill(UInt8(16 + k * 4))
                picture.pts = Int64(k)
                picture.duration = 1
                try encoder.send(picture)
                try drain()
                try sound.write(upTo: Double(k + 1) / 20)
            }
            try encoder.send(nil)
            try drain()
            try sound.finish()
            try muxer.finish()
            let probe = try MediaProbe.probe(path)
            let videoStart = try XCTUnwrap(probe.streams.first { $0.kind == .video }?.startSeconds)
            XCTAssertEqual(videoStart, 0, accuracy: 0.0005, "\(name): the first picture moved")
            assertOnsets(try decodedAudio(path).beepOnsets.map { $0 - videoStart }, expected)
        }
    }
}
