/// Small generated calls for the tests of issue #23 (formats.md §9), with readers that get back
/// what was put in. Describe each stream as a ``FixtureStream`` (id, name, its ``FixtureTrack``s:
/// a file name whose extension picks the container, `.webm` → VP8 + Opus, `.mkv` → H.264 + AAC
/// unless ``FixtureAudio/codec`` says Opus, `.mka`/audio-only and video-only files too; the call
/// time the file's earliest presentation time plays at, an optional stop; a ``FixtureVideo`` with
/// picture size, frame times on the file's clock (``FixtureVideo/constant(size:fps:duration:start:tag:)``
/// or any VFR list) and a tag; a ``FixtureAudio`` with rate, channels, the media time of its first
/// sample and beep onsets). ``CallFixtures/writeArchive(_:in:createdAt:)`` writes the media and an
/// individual-stream archive manifest (createdAt, startTimeOffset, stopTimeOffset, connectionData);
/// ``CallFixtures/writeCallManifest(_:in:epoch:)`` a call manifest; ``CallFixtures/call(_:in:)`` the
/// ``Call`` model directly, for tests of later stages that do not go through a reader. Every video
/// frame shows its own index and the stream's tag as black/white cells (``FrameCode``): decode a
/// composed frame to grey (``GrayVideo/read(_:)``, the ffmpeg CLI) and read a tile with
/// ``FrameCode/read(_:picture:)``, giving the rectangle the picture occupies (``PixelRect/contain(_:in:)``).
/// Audio is silence with 1 kHz bursts at the beep times; ``BeepDetector/onsets(_:sampleRate:)``
/// finds onsets as the first sample whose trailing 1 ms energy crosses a threshold, so measure
/// source (``decodedAudio(_:)``) and mix the same way and codec delays cancel.
import Foundation
import ReplayKitless

/// A rectangle in pixels.
public struct PixelRect: Sendable, Equatable, CustomStringConvertible {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) { (self.x, self.y, self.width, self.height) = (x, y, width, height) }
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }

    /// Where a picture of `size` lands in `tile` with `contain` (formats.md §9: the largest size
    /// that fits, centred). Rounding may differ from the composer's by a pixel; cells are read at
    /// their centres, which that does not move off a cell.
    public static func contain(_ size: PictureSize, in tile: PixelRect) -> PixelRect {
        let scale = min(Double(tile.width) / Double(size.width), Double(tile.height) / Double(size.height))
        return centred(size, scale: scale, in: tile)
    }

    /// Where a picture of `size` lands with `cover` (fills the tile, centre-cropped: the rectangle
    /// reaches outside the tile).
    public static func cover(_ size: PictureSize, in tile: PixelRect) -> PixelRect {
        let scale = max(Double(tile.width) / Double(size.width), Double(tile.height) / Double(size.height))
        return centred(size, scale: scale, in: tile)
    }

    private static func centred(_ size: PictureSize, scale: Double, in tile: PixelRect) -> PixelRect {
        let w = Int((Double(size.width) * scale).rounded()), h = Int((Double(size.height) * scale).rounded())
        return PixelRect(x: tile.x + (tile.width - w) / 2, y: tile.y + (tile.height - h) / 2, width: w, height: h)
    }
}

/// A frame's index and its stream's tag drawn as cells of black and white that survive scaling
/// and lossy coding. The picture is a grid of 16 × 12 cells (10 × 10 px at 160 × 120); rows 3…8
/// carry, top to bottom: a guard (white, black, …), the index's 16 bits (most significant first,
/// white = 1), their complement, the tag's 16 bits, their complement, the inverse guard. The
/// rest is mid grey. A reader that finds the guards and complements right has found the code.
public enum FrameCode {
    public static let columns = 16
    public static let rows = 12
    static let firstRow = 3
    static let white: UInt8 = 235, black: UInt8 = 16, grey: UInt8 = 128

    /// The cell values of row `r` (0…5 of the code) for `index` and `tag`: `true` is white.
    static func codeRow(_ r: Int, index: Int, tag: Int) -> [Bool] {
        let bits = { (value: Int) in (0..<columns).map { value >> (columns - 1 - $0) & 1 == 1 } }
        switch r {
        case 0: return (0..<columns).map { $0 % 2 == 0 }
        case 1: return bits(index)
        case 2: return bits(index).map { !$0 }
        case 3: return bits(tag)
        case 4: return bits(tag).map { !$0 }
        default: return (0..<columns).map { $0 % 2 == 1 }
        }
    }

    /// Paints the code for `index` and `tag` over the whole picture.
    package static func draw(_ image: YUVImage, index: Int, tag: Int) {
        image.luma.fill(grey)
        image.cb.fill(128)
        image.cr.fill(128)
        for r in 0..<6 {
            let cells = codeRow(r, index: index, tag: tag)
            let top = (firstRow + r) * image.height / rows, bottom = (firstRow + r + 1) * image.height / rows
            for y in top..<bottom {
                let row = image.luma.row(y)
                for c in 0..<columns {
                    let value = cells[c] ? white : black
                    for x in c * image.width / columns..<(c + 1) * image.width / columns { row[x] = value }
                }
            }
        }
    }

    /// Paints the code into a picture stored as a display matrix turning it `rotation` degrees
    /// clockwise, then mirroring it, shows it: each stored pixel takes the value of the upright
    /// pixel it is shown at (worked out here from the turn's definition, not with the library's code).
    package static func draw(_ image: YUVImage, index: Int, tag: Int, shownTurned rotation: Int, mirrored: Bool) {
        guard rotation % 360 != 0 || mirrored else { return draw(image, index: index, tag: tag) }
        let (sw, sh) = (image.width, image.height)
        let turns = ((rotation / 90) % 4 + 4) % 4
        let shown = turns % 2 == 1 ? PictureSize(width: sh, height: sw) : PictureSize(width: sw, height: sh)
        let upright = PlanarBuffer(width: shown.width, height: shown.height, colorSpace: image.colorSpace)
        draw(upright.image, index: index, tag: tag)
        image.cb.fill(128)
        image.cr.fill(128)
        for sy in 0..<sh {
            let row = image.luma.row(sy)
            for sx in 0..<sw {
                // A clockwise quarter turn moves stored (x, y) of a w × h picture to (h − 1 − y, x).
                var (x, y, w, h) = (sx, sy, sw, sh)
                for _ in 0..<turns { (x, y, w, h) = (h - 1 - y, x, h, w) }
                if mirrored { x = w - 1 - x }
                row[sx] = upright.image.luma[x, y]
            }
        }
    }

    /// The index and tag a grey picture shows where a coded picture occupies `picture`, or `nil`
    /// when no code is there (background, another frame half-drawn, a wrong rectangle).
    /// Each cell is the mean of the 3 × 3 pixels at its centre.
    public static func read(_ frame: GrayFrame, picture: PixelRect) -> (index: Int, tag: Int)? {
        func cell(_ c: Int, _ r: Int) -> Bool? {
            let cx = picture.x + Int((Double(c) + 0.5) * Double(picture.width) / Double(columns))
            let cy = picture.y + Int((Double(firstRow + r) + 0.5) * Double(picture.height) / Double(rows))
            guard cx >= 1, cy >= 1, cx + 1 < frame.width, cy + 1 < frame.height else { return nil }
            var sum = 0
            for y in cy - 1...cy + 1 { for x in cx - 1...cx + 1 { sum += Int(frame[x, y]) } }
            return sum / 9 > (Int(white) + Int(black)) / 2
        }
        var values: [[Bool]] = []
        for r in 0..<6 {
            var row: [Bool] = []
            for c in 0..<columns {
                guard let bit = cell(c, r) else { return nil }
                row.append(bit)
            }
            values.append(row)
        }
        let number = { (bits: [Bool]) in bits.reduce(0) { $0 << 1 | ($1 ? 1 : 0) } }
        let index = number(values[1]), tag = number(values[3])
        for r in [0, 2, 4, 5] where values[r] != codeRow(r, index: index, tag: tag) { return nil }
        return (index, tag)
    }
}

/// One decoded picture's luma, row by row without padding.
public struct GrayFrame: Sendable {
    public var width: Int, height: Int
    public var pixels: [UInt8]
    public init(width: Int, height: Int, pixels: [UInt8]) { (self.width, self.height, self.pixels) = (width, height, pixels) }
    public subscript(x: Int, y: Int) -> UInt8 { pixels[y * width + x] }
}

/// Decoding with the ffmpeg CLI, independent of the code under test.
public enum GrayVideo {
    /// Every frame of the first video stream of `path`, in order, as 8-bit grey (full picture,
    /// no frame dropped or repeated).
    public static func read(_ path: String) throws -> [GrayFrame] {
        let probe = try MediaProbe.probe(path)
        guard let index = probe.videoStream, let width = probe.streams[index].width, let height = probe.streams[index].height else {
            throw ReplayError.badInput("\(path): no video")
        }
        let raw = path + ".gray"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try runFFmpegCLI(["-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", raw])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let size = width * height
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { GrayFrame(width: width, height: height, pixels: Array(bytes[$0..<$0 + size])) }
    }
}

/// A picture track of a fixture file.
public struct FixtureVideo: Sendable {
    public var size: PictureSize
    /// Presentation time of each frame on the file's clock, seconds (rounded to Matroska's whole
    /// milliseconds when written). Frame `i` shows index `i`.
    public var frameTimes: [Double]
    /// Drawn in every frame (``FrameCode``): tells streams apart in a composed picture.
    public var tag: Int
    /// Picture size from frame `i` on (a mid-stream resolution change; VP8 only).
    public var sizes: [Int: PictureSize]
    /// The container's display matrix (MP4 only): shown turned `rotation` degrees clockwise, then
    /// mirrored. `size` and the code are as shown; the file stores the picture turned back, as a
    /// phone stores a portrait recording sideways.
    public var rotation = 0
    public var mirrored = false

    /// The size the file stores a picture shown at `shown` in.
    public func stored(_ shown: PictureSize) -> PictureSize {
        rotation % 180 == 90 ? PictureSize(width: shown.height, height: shown.width) : shown
    }

    public init(size: PictureSize, frameTimes: [Double], tag: Int, sizes: [Int: PictureSize] = [:]) {
        (self.size, self.frameTimes, self.tag, self.sizes) = (size, frameTimes, tag, sizes)
    }

    /// Frames every `1 / fps` seconds from `start` for `duration` seconds.
    public static func constant(size: PictureSize = PictureSize(width: 160, height: 120), fps: Double = 10, duration: Double,
                                start: Double = 0, tag: Int) -> FixtureVideo {
        let count = Int((duration * fps).rounded())
        return FixtureVideo(size: size, frameTimes: (0..<count).map { start + Double($0) / fps }, tag: tag)
    }

    /// The frame times as written: whole milliseconds.
    public var writtenTimes: [Double] { frameTimes.map { ($0 * 1000).rounded() / 1000 } }
}

/// A sound track of a fixture file: silence with tone bursts.
public struct FixtureAudio: Sendable {
    public var sampleRate: Int
    public var channels: Int
    /// Media time of the first sample, seconds on the file's clock.
    public var start: Double
    public var duration: Double
    /// Media times (the file's clock) at which a burst starts.
    public var beeps: [Double]
    public var beepLength: Double = 0.05
    public var beepFrequency: Double = 1000
    public var amplitude: Double = 0.5
    /// A tone throughout instead of bursts (clipping tests): its frequency.
    public var continuousTone: Double?
    /// `nil`: Opus in WebM, AAC elsewhere.
    public var codec: AudioCodec?

    public init(sampleRate: Int = 48000, channels: Int = 1, start: Double = 0, duration: Double, beeps: [Double] = [],
                codec: AudioCodec? = nil) {
        (self.sampleRate, self.channels, self.start, self.duration, self.beeps, self.codec) =
            (sampleRate, channels, start, duration, beeps, codec)
    }

    /// The samples, interleaved (every channel the same).
    public func samples() -> [Float] {
        let count = Int((duration * Double(sampleRate)).rounded())
        var out = [Float](repeating: 0, count: count * channels)
        let rate = Double(sampleRate)
        func put(_ i: Int, _ frequency: Double, from origin: Int) {
            let value = Float(amplitude * sin(2 * Double.pi * frequency * Double(i - origin) / rate))
            for c in 0..<channels { out[i * channels + c] = value }
        }
        if let continuousTone {
            for i in 0..<count { put(i, continuousTone, from: 0) }
            return out
        }
        for beep in beeps {
            let first = Int(((beep - start) * rate).rounded()), length = Int((beepLength * rate).rounded())
            for i in max(0, first)..<min(count, first + length) { put(i, beepFrequency, from: first) }
        }
        return out
    }
}

/// One media file of a stream and where it sits on the call's clock.
public struct FixtureTrack: Sendable {
    /// File name inside the call's folder; the extension picks the container.
    public var file: String
    public var video: FixtureVideo?
    public var audio: FixtureAudio?
    /// Call time, seconds, at which the file's earliest presentation time plays (an archive
    /// stores whole milliseconds).
    public var start: Double
    /// Call time the stream stops (`stopTimeOffset`, `end`); `nil`: the end of its media.
    public var stop: Double?

    public init(file: String, video: FixtureVideo? = nil, audio: FixtureAudio? = nil, start: Double = 0, stop: Double? = nil) {
        (self.file, self.video, self.audio, self.start, self.stop) = (file, video, audio, start, stop)
    }
}

/// A published stream (archive) or a participant (call manifest).
public struct FixtureStream: Sendable {
    public var id: String
    public var name: String
    public var videoType: String
    /// One track for an archive's stream; any number for a call manifest's participant.
    public var tracks: [FixtureTrack]

    public init(id: String, name: String? = nil, videoType: String = "camera", tracks: [FixtureTrack]) {
        (self.id, self.name, self.videoType, self.tracks) = (id, name ?? id, videoType, tracks)
    }
}

public enum CallFixtures {
    /// Writes one fixture media file (VP8 in WebM, H.264 elsewhere; audio per ``FixtureAudio/codec``).
    public static func writeMedia(_ path: String, video: FixtureVideo?, audio: FixtureAudio?) throws {
        let audioSpec = audio.map {
            MediaWriter.AudioSpec(sampleRate: $0.sampleRate, channels: $0.channels,
                                  startSample: Int64(($0.start * Double($0.sampleRate)).rounded()), codec: $0.codec)
        }
        let writer: MediaWriter
        if let video {
            var settings = EncoderSettings()
            settings.codec = path.lowercased().hasSuffix(".webm") ? .vp8 : .h264
            settings.preset = "ultrafast"
            settings.crf = 20
            writer = try MediaWriter(path: path, video: .init(size: video.stored(video.size), timeBase: Rational(1, 1000), frameRate: Rational(30, 1),
                                                              encoder: settings, rotation: video.rotation, mirrored: video.mirrored),
                                     audio: audioSpec)
            let times = video.writtenTimes.map { Int64(($0 * 1000).rounded()) }
            let typical = times.count > 1 ? times[1] - times[0] : 33
            for (index, pts) in times.enumerated() {
                let next = index + 1 < times.count ? times[index + 1] : pts + typical
                try writer.addVideoFrame(pts: pts, duration: next - pts, size: video.sizes[index].map(video.stored)) {
                    FrameCode.draw($0, index: index, tag: video.tag, shownTurned: video.rotation, mirrored: video.mirrored)
                }
            }
        } else if let audioSpec {
            writer = try MediaWriter(path: path, audio: audioSpec)
        } else {
            throw ReplayError.usage("\(path): a fixture file needs video or audio")
        }
        if let audio { try writer.addAudio(audio.samples()) }
        try writer.finish()
    }

    /// Writes every stream's media into `folder` and an individual-stream archive manifest
    /// (formats.md §9) named `manifest.json`; returns the manifest's path.
    /// - Parameter createdAt: Unix milliseconds of call time 0.
    @discardableResult
    public static func writeArchive(_ streams: [FixtureStream], in folder: URL, createdAt: Int64 = 1_700_000_000_000,
                                    manifestName: String = "manifest.json") throws -> String {
        var files: [[String: Any]] = []
        for stream in streams {
            for track in stream.tracks {
                let written = try write(track, in: folder)
                let start = Int((track.start * 1000).rounded())
                let stop = Int(((track.stop ?? written.stop) * 1000).rounded())
                let connection = try JSONSerialization.data(withJSONObject: ["name": stream.name])
                files.append(["streamId": stream.id, "filename": track.file, "startTimeOffset": start, "stopTimeOffset": stop,
                              "connectionData": String(decoding: connection, as: UTF8.self), "videoType": stream.videoType,
                              "size": written.bytes])
            }
        }
        let manifest: [String: Any] = ["id": "b40ef09b-0000-4000-8000-000000000000", "createdAt": createdAt,
                                       "sessionId": "fixture-session", "name": "fixture call", "files": files]
        return try writeJSON(manifest, to: folder.appendingPathComponent(manifestName))
    }

    /// Writes every participant's tracks into `folder` and a call manifest (formats.md §9) named
    /// `call.json`; returns its path.
    @discardableResult
    public static func writeCallManifest(_ participants: [FixtureStream], in folder: URL, epoch: Double? = 1_700_000_000.0,
                                         manifestName: String = "call.json") throws -> String {
        var entries: [[String: Any]] = []
        for participant in participants {
            var tracks: [[String: Any]] = []
            for track in participant.tracks {
                _ = try write(track, in: folder)
                var entry: [String: Any] = ["file": track.file, "start": track.start]
                if let stop = track.stop { entry["end"] = stop }
                tracks.append(entry)
            }
            entries.append(["id": participant.id, "name": participant.name, "tracks": tracks])
        }
        var manifest: [String: Any] = ["version": 1, "participants": entries]
        if let epoch { manifest["epoch"] = epoch }
        return try writeJSON(manifest, to: folder.appendingPathComponent(manifestName))
    }

    /// Writes the streams' media into `folder` and builds the ``Call`` a reader would, timing each
    /// track from the written file (libavformat's start time and duration), for tests of later
    /// stages that should not depend on a manifest reader.
    public static func call(_ streams: [FixtureStream], in folder: URL, epoch: Double? = 1_700_000_000.0) throws -> Call {
        var model: [CallStream] = []
        for (order, stream) in streams.enumerated() {
            var tracks: [CallTrack] = []
            for track in stream.tracks {
                let written = try write(track, in: folder)
                tracks.append(CallTrack(path: FilePath(written.path), name: track.file, start: track.start, stop: track.stop ?? written.stop,
                                        mediaStart: written.mediaStart, mediaEnd: written.mediaEnd,
                                        hasVideo: written.hasVideo, hasAudio: written.hasAudio,
                                        rotation: track.video?.rotation ?? 0, mirrored: track.video?.mirrored ?? false,
                                        shownSize: track.video?.size))
            }
            model.append(CallStream(id: stream.id, name: stream.name, videoType: stream.videoType, order: order, tracks: tracks))
        }
        return Call(source: FilePath(folder.path), manifest: folder.path, epoch: epoch, streams: model)
    }

    private struct Written {
        var path: String, mediaStart: Double, mediaEnd: Double, bytes: Int, hasVideo: Bool, hasAudio: Bool
        /// The default stop: where the media ends, on the call's clock.
        var stop: Double
    }

    /// Writes the track's file unless it exists (a test may have made it another way), and times it.
    private static func write(_ track: FixtureTrack, in folder: URL) throws -> Written {
        let path = folder.appendingPathComponent(track.file).path
        if !FileManager.default.fileExists(atPath: path) { try writeMedia(path, video: track.video, audio: track.audio) }
        let probe = try MediaProbe.probe(path)
        let mediaStart = probe.startSeconds ?? 0
        let mediaEnd = mediaStart + (probe.durationSeconds ?? 0)
        let bytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return Written(path: path, mediaStart: mediaStart, mediaEnd: mediaEnd, bytes: bytes,
                       hasVideo: probe.streams.contains { $0.kind == .video }, hasAudio: probe.streams.contains { $0.kind == .audio },
                       stop: track.start + mediaEnd - mediaStart)
    }

    private static func writeJSON(_ object: [String: Any], to url: URL) throws -> String {
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]).write(to: url)
        return url.path
    }
}

/// Sound decoded from a file with the project's ``AudioReader`` (channels averaged): the first
/// sample's presentation time, the rate and the samples, for measuring beeps in a source file.
public struct DecodedAudio: Sendable {
    public var start: Double
    public var sampleRate: Int
    public var samples: [Float]

    /// Beep onsets as media times on the file's clock.
    public var beepOnsets: [Double] { BeepDetector.onsets(samples, sampleRate: sampleRate).map { start + $0 } }
}

/// Decodes the first audio stream of `path`, assuming it has no gaps.
public func decodedAudio(_ path: String) throws -> DecodedAudio {
    let reader = try AudioReader(url: path)
    var start: Double?
    var samples: [Float] = []
    while let chunk = try reader.next() {
        if start == nil { start = chunk.seconds }
        samples += chunk.samples
    }
    return DecodedAudio(start: start ?? 0, sampleRate: reader.stream.sampleRate, samples: samples)
}

/// Finds tone bursts in sound.
public enum BeepDetector {
    /// Offsets, seconds from the first sample, where the mean square over the `window` seconds
    /// ending at a sample first reaches `threshold` after at least `quiet` seconds below it. The
    /// window is in seconds, so sources at any rate and the 48 kHz mix are measured alike.
    public static func onsets(_ samples: [Float], sampleRate: Int, window: Double = 0.001, threshold: Double = 0.02,
                              quiet: Double = 0.1) -> [Double] {
        let n = max(1, Int((window * Double(sampleRate)).rounded()))
        let quietSamples = Int(quiet * Double(sampleRate))
        var result: [Double] = []
        var sum = 0.0
        var lastLoud = Int.min / 2
        for i in samples.indices {
            sum += Double(samples[i]) * Double(samples[i])
            if i >= n { sum -= Double(samples[i - n]) * Double(samples[i - n]) }
            if sum / Double(n) >= threshold {
                if i - lastLoud > quietSamples { result.append(Double(i) / Double(sampleRate)) }
                lastLoud = i
            }
        }
        return result
    }
}
