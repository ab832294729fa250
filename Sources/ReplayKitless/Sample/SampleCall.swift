import CFFmpeg
import Foundation
import ZIPFoundation

/// The sample as a whole call (formats.md §9), as a Vonage/OpenTok individual-stream archive
/// records it: one file per published stream and a manifest placing each on the call's clock.
///
/// - `call-archive.zip`: `ARCHIVE_ID.json` (the manifest) and, named by stream id,
///   - **Car owner**, the publisher: the sample's own recording (the same frames, times and pose
///     SEI as `call.mp4`) as Matroska H.264 + Opus, from call time 0;
///   - **Expert**: a portrait camera (3:4, as tall as the publisher is wide: 480×640 for the
///     default 640×360) showing a person in front of a wall, VP8 + Opus WebM at a constant 30 fps,
///     joining later; a white square flashes while its voice, a two-note chime (660 then 880 Hz),
///     starts, once a second;
///   - **Dispatcher**: sound only (Opus WebM), joining between the two and leaving early: a 440 Hz
///     beep once a second.
/// - `call-archive.poses.jsonl`: the publisher's poses stamped with Unix times, as the app's clock
///   logged them: `createdAt / 1000 + ` each frame's call time (`render CALL --stream "Car owner"
///   --pose-time epoch`);
/// - `call-archive.annotations.json`: the sample's scene with its times in Unix time (`"time":
///   "epoch"`), the tap at the Unix time its frame was logged at, for those poses;
/// - `call-archive.job.yaml`: a compose job with the publisher's annotations as a per-stream effect.
///
/// Stop offsets are where each file's media ends on the call's clock, as read back by libavformat,
/// so the manifest agrees with the files.
struct SampleCall {
    static let archiveName = "call-archive.zip"
    static let poseLogName = "call-archive.poses.jsonl"
    static let jobName = "call-archive.job.yaml"
    static let sceneName = "call-archive.annotations.json"
    static let fileNames = [archiveName, poseLogName, sceneName, jobName]
    /// Unix time of call time 0, milliseconds (2026-01-01T00:00:00Z): the manifest's `createdAt`.
    static let createdAt: Int64 = 1_767_225_600_000

    /// One published stream of the archive.
    struct Participant {
        var name: String
        var streamId: String
        var fileExtension: String
        /// Call time at which the file's earliest presentation time plays, milliseconds.
        var startMilliseconds: Int64
        var hasVideo: Bool
        var fileName: String { "\(streamId).\(fileExtension)" }
    }

    let scene: SampleScene
    let archiveId: String
    let sessionId: String
    let publisher: Participant
    let expert: Participant
    let dispatcher: Participant
    /// The expert's picture size: portrait 3:4, as tall as the publisher's picture is wide.
    let expertSize: PictureSize
    /// How long the expert's and the dispatcher's media last, milliseconds.
    let guestMilliseconds: Int64

    init(scene: SampleScene) {
        self.scene = scene
        let settings = scene.settings
        var random = SampleRandom(seed: settings.seed ^ 0xCA11_A2C4)
        func uuid() -> String {
            let hex = (0..<2).map { _ in String(random.next(), radix: 16).leftPadded(to: 16) }.joined()
            let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
                String(hex.dropFirst(range.lowerBound).prefix(range.count))
            }
            return parts.joined(separator: "-")
        }
        archiveId = uuid()
        sessionId = "2_MX4" + uuid().replacingOccurrences(of: "-", with: "")
        // The expert joins after a second (a quarter of a short call) and stays to the end; the
        // dispatcher joins half-way to that and leaves as long before the end.
        let join = Int64((min(1, settings.seconds / 4) * 1000).rounded())
        guestMilliseconds = Int64((settings.seconds * 1000).rounded()) - join
        publisher = Participant(name: "Car owner", streamId: uuid(), fileExtension: "mkv", startMilliseconds: 0, hasVideo: true)
        expert = Participant(name: "Expert", streamId: uuid(), fileExtension: "webm", startMilliseconds: join, hasVideo: true)
        dispatcher = Participant(name: "Dispatcher", streamId: uuid(), fileExtension: "webm", startMilliseconds: join / 2,
                                 hasVideo: false)
        let height = settings.size.width
        expertSize = PictureSize(width: (height * 3 / 4) & ~1, height: height)
    }

    /// The publisher's recording, hidden among `members` until zipped; the caller feeds it the
    /// sample's frames (``SampleGenerator``) and finishes it.
    func publisherWriter(directory: FilePath, members: OutputGroup) throws(ReplayError) -> MediaWriter {
        try MediaWriter(path: SampleGenerator.path(publisher.fileName, in: directory).string,
                        video: SampleGenerator.publisherVideo(scene.settings.size),
                        audio: .init(sampleRate: SampleSound.sampleRate, channels: 1,
                                     startSample: SampleGenerator.publisherAudioStart, codec: .opus),
                        group: members)
    }

    /// Writes the other participants' media among `members`, then the archive, the epoch pose log
    /// and the compose job among `outputs`. `publisherFile` is the finished publisher recording.
    func write(publisherFile: String, directory: FilePath, members: OutputGroup, into outputs: OutputGroup) throws(ReplayError) {
        let expertFile = try writeExpert(directory: directory, members: members)
        let dispatcherFile = try writeDispatcher(directory: directory, members: members)
        let files = [(publisher, publisherFile), (expert, expertFile), (dispatcher, dispatcherFile)]
        var entries: [SampleManifestFile] = []
        var publisherStartMicroseconds: Int64 = 0
        for (participant, path) in files {
            let (start, end) = try Self.mediaSpan(path, name: participant.fileName)
            if participant.streamId == publisher.streamId { publisherStartMicroseconds = Int64((start * 1e6).rounded()) }
            entries.append(SampleManifestFile(
                streamId: participant.streamId, filename: participant.fileName,
                startTimeOffset: participant.startMilliseconds,
                stopTimeOffset: participant.startMilliseconds + Int64(((end - start) * 1000).rounded()),
                connectionData: "{\"name\":\(TextNumber.jsonString(participant.name))}",
                videoType: participant.hasVideo ? "camera" : nil))
        }
        let manifest = SampleManifest(id: archiveId, createdAt: Self.createdAt, sessionId: sessionId, name: "Sample call",
                                      event: "archive", outputMode: "individual", files: entries)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let manifestData: Data
        do { manifestData = try encoder.encode(manifest) + Data("\n".utf8) } catch { throw .processing("\(archiveId).json: \(error)") }
        let zip = try outputs.reserve(SampleGenerator.path(Self.archiveName, in: directory))
        var contents = [(name: "\(archiveId).json", data: manifestData)]
        for (participant, path) in files {
            do { contents.append((participant.fileName, try Data(contentsOf: URL(fileURLWithPath: path)))) } catch {
                throw .processing("\(participant.fileName): cannot read it back: \(error.localizedDescription)")
            }
        }
        try writeZip(at: zip.temporaryPath.string, finalPath: zip.finalPath.string, members: contents)
        try outputs.write(poseLog(publisherStartMicroseconds: publisherStartMicroseconds),
                          to: SampleGenerator.path(Self.poseLogName, in: directory))
        let epochOfTap = unixMicroseconds(of: scene.tap.frame, publisherStartMicroseconds: publisherStartMicroseconds)
        try outputs.write(Data(SampleFiles.annotations(scene, epochOfTap: Double(epochOfTap) / 1e6).utf8),
                          to: SampleGenerator.path(Self.sceneName, in: directory))
        try outputs.write(Data(job(directory: directory).utf8), to: SampleGenerator.path(Self.jobName, in: directory))
    }

    /// Where a written file's media starts (libavformat's `start_time`, Opus priming included) and
    /// ends (the latest packet's end), seconds on its own clock. Not `start_time + duration`:
    /// Matroska's duration counts from 0, not from the first packet.
    private static func mediaSpan(_ path: String, name: String) throws(ReplayError) -> (start: Double, end: Double) {
        let demuxer = try Demuxer(url: path)
        guard let start = demuxer.startSeconds else { throw .processing("\(name): libavformat reads no start time back") }
        var end = start
        let packet = try Packet()
        while try demuxer.read(into: packet) {
            if packet.pts != noPTS {
                end = max(end, demuxer.streams[packet.streamIndex].timeBase.seconds(packet.pts + packet.duration))
            }
            packet.unref()
        }
        return (start, end)
    }

    // MARK: the other participants

    /// Constant 30 fps, times in milliseconds, from 0.
    private static let guestRate = 30

    /// Frame `index`'s presentation time at ``guestRate``, whole milliseconds.
    private static func guestMilliseconds(ofFrame index: Int) -> Int64 {
        Int64((Double(index) * 1000 / Double(guestRate)).rounded())
    }

    /// Media times (milliseconds) of a guest's probes: `first` and every second after it, at
    /// least 0.3 s before the end.
    private func probeTimes(first: Int64) -> [Int64] {
        Array(stride(from: first, to: guestMilliseconds - 300, by: 1000))
    }

    /// The expert: a person in the middle of a portrait picture, in front of a blue-grey wall; on
    /// each probe frame a white square, while the chime starts at that frame's time.
    private func writeExpert(directory: FilePath, members: OutputGroup) throws(ReplayError) -> String {
        let size = expertSize
        let colorSpace = SampleGenerator.publisherColorSpace(size)
        var encoder = EncoderSettings()
        encoder.codec = .vp8
        encoder.preset = "faster"
        encoder.crf = 20
        let writer = try MediaWriter(
            path: SampleGenerator.path(expert.fileName, in: directory).string,
            video: .init(size: size, timeBase: Rational(1, 1000), frameRate: Rational(Int32(Self.guestRate), 1),
                         encoder: encoder, colorSpace: colorSpace),
            audio: .init(sampleRate: SampleSound.sampleRate, channels: 1), group: members)
        let person = SamplePersonPainter(width: size.width, height: size.height, colorSpace: colorSpace, across: 0.5)
        let coverage = PlanarBuffer(width: size.width, height: size.height)
        let wall = colorSpace.yuv(red: 92, green: 108, blue: 128)
        let white = colorSpace.yuv(red: 255, green: 255, blue: 255)
        let side = max(8, size.height / 10) & ~1
        let square = ((size.width / 16) & ~1, (size.height / 24) & ~1, side)
        let probes = Set(probeTimes(first: 250).map { Int(($0 * Int64(Self.guestRate) + 500) / 1000) })
        let frames = Int(guestMilliseconds * Int64(Self.guestRate) / 1000)
        for index in 0..<frames {
            let milliseconds = Self.guestMilliseconds(ofFrame: index)
            try writer.addVideoFrame(pts: milliseconds, duration: Self.guestMilliseconds(ofFrame: index + 1) - milliseconds) { image in
                image.fill(wall)
                person.paint(at: Double(milliseconds) / 1000 + 2, into: image, mask: coverage.image.luma)
                if probes.contains(index) { SampleGenerator.paintSquare(square, white, into: image, coverage: nil) }
            }
        }
        let perMillisecond = Int64(SampleSound.sampleRate / 1000)
        var sound = SampleSound.roomTone(count: Int(guestMilliseconds * perMillisecond), seed: scene.settings.seed ^ 0xE4_9E47, hum: 150)
        for index in probes {
            let first = Int(Self.guestMilliseconds(ofFrame: index) * perMillisecond)
            SampleSound.addBeep(to: &sound, at: first, frequency: 660, seconds: 0.08, amplitude: 0.35)
            SampleSound.addBeep(to: &sound, at: first + 80 * Int(perMillisecond), frequency: 880, seconds: 0.08, amplitude: 0.35)
        }
        try writer.addAudio(sound)
        try writer.finish()
        return writer.temporaryPath
    }

    /// The dispatcher: sound only, a 440 Hz beep once a second over a lower hum.
    private func writeDispatcher(directory: FilePath, members: OutputGroup) throws(ReplayError) -> String {
        let writer = try MediaWriter(path: SampleGenerator.path(dispatcher.fileName, in: directory).string,
                                     audio: .init(sampleRate: SampleSound.sampleRate, channels: 1), group: members)
        let perMillisecond = Int64(SampleSound.sampleRate / 1000)
        let length = guestMilliseconds - dispatcher.startMilliseconds
        var sound = SampleSound.roomTone(count: Int(length * perMillisecond), seed: scene.settings.seed ^ 0xD15_7A7C, hum: 90)
        for time in probeTimes(first: 500) where time < length - 300 {
            SampleSound.addBeep(to: &sound, at: Int(time * perMillisecond), frequency: 440, seconds: 0.2, amplitude: 0.35)
        }
        try writer.addAudio(sound)
        try writer.finish()
        return writer.temporaryPath
    }

    // MARK: the archive and what goes with it

    /// The ZIP, stored (media is compressed already) but for the manifest, every entry dated
    /// `createdAt` so the same sample gives the same bytes.
    private func writeZip(at path: String, finalPath: String, members: [(name: String, data: Data)]) throws(ReplayError) {
        let date = Date(timeIntervalSince1970: Double(Self.createdAt) / 1000)
        do {
            let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
            for (name, data) in members {
                try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), modificationDate: date,
                                     compressionMethod: name.hasSuffix(".json") ? .deflate : .none) { position, size in
                    data.subdata(in: Int(position)..<Int(position) + size)
                }
            }
        } catch {
            throw .processing("\(finalPath): cannot write the archive: \(error)")
        }
    }

    /// The publisher's poses at Unix times: frame `p` (stream time) plays at call time
    /// `start + (p − p0)`, `p0` the file's earliest presentation time.
    private func poseLog(publisherStartMicroseconds p0: Int64) throws(ReplayError) -> Data {
        let samples = scene.frames.map { frame in
            PoseSample(key: .time(Double(unixMicroseconds(of: frame, publisherStartMicroseconds: p0)) / 1e6), pose32: frame.pose32)
        }
        return Data(try PoseSidecar.encode(samples, format: .jsonl))
    }

    /// The Unix time at which the publisher's `frame` plays, microseconds.
    private func unixMicroseconds(of frame: SampleScene.FrameInfo, publisherStartMicroseconds p0: Int64) -> Int64 {
        (Self.createdAt + publisher.startMilliseconds + frame.milliseconds) * 1000 - p0
    }

    /// `call-archive.job.yaml`: compose's options, with the publisher's annotations placed from
    /// its epoch-stamped pose log; paths relative to the job file, like every job's.
    private func job(directory: FilePath) -> String {
        func path(_ name: String) -> String { TextNumber.jsonString(name) }
        return """
            # The demo composition of this sample's call archive (keys are fxreplay compose's long options):
            #   fxreplay compose --job \(SampleGenerator.path(Self.jobName, in: directory)) \(SampleGenerator.path(Self.archiveName, in: directory)) -o call-composed.mp4
            layout: grid
            names: true
            streams:
              \(TextNumber.jsonString(publisher.name)):
                poses: \(path(Self.poseLogName))
                pose-time: epoch
                annotations: \(path(Self.sceneName))

            """
    }
}

/// The layout of an individual-stream archive's manifest (formats.md §9).
private struct SampleManifest: Encodable {
    var id: String
    var createdAt: Int64
    var sessionId: String
    var name: String
    var event: String
    var outputMode: String
    var files: [SampleManifestFile]
}

private struct SampleManifestFile: Encodable {
    var streamId: String
    var filename: String
    var startTimeOffset: Int64
    var stopTimeOffset: Int64
    var connectionData: String
    var videoType: String?
}
