import Foundation
@testable import ReplayKitless

/// A fresh scratch directory per test (and FFmpeg's own messages off, as the CLI has them: set once,
/// never reset here, so a test that turns them on for a while is not turned quiet by one running beside it).
func makeScratchDirectory() throws -> URL {
    _ = FFmpegLogging.defaults
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("fxreplay-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Known picture content for frame `index`: a smooth gradient that drifts per frame, and a
/// white 8×8 marker whose position encodes the frame index, so frame order is checkable.
func drawPattern(_ image: YUVImage, index: Int) {
    for y in 0..<image.height {
        let row = image.luma.row(y)
        for x in 0..<image.width { row[x] = UInt8(40 + (x * 120 / image.width + y * 60 / image.height + index) % 150) }
    }
    image.cb.fill(110)
    image.cr.fill(150)
    let markerX = (index * 8) % max(8, image.width - 8)
    for y in 0..<8 { for x in markerX..<markerX + 8 { image.luma[x, y] = 235 } }
}

/// Luma PSNR between a decoded picture and the pattern of frame `index`.
func patternPSNR(_ image: YUVImage, index: Int) -> Double {
    let expected = PlanarBuffer(width: image.width, height: image.height)
    drawPattern(expected.image, index: index)
    var squared = 0.0
    for y in 0..<image.height {
        for x in 0..<image.width {
            let d = Double(image.luma[x, y]) - Double(expected.image.luma[x, y])
            squared += d * d
        }
    }
    let mse = squared / Double(image.width * image.height)
    return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
}

/// Writes a test recording with the project's own writer: patterned frames at the given
/// timestamps (1/90000 time base), optionally a 440 Hz tone starting at `audioStart` seconds.
/// The default preset writes no B-frames; `medium` does.
func writeRecording(to path: String, size: PictureSize = PictureSize(width: 160, height: 96), pts: [Int64],
                    sizes: [Int: PictureSize] = [:], rotation: Int = 0, mirrored: Bool = false, audioStart: Double? = nil,
                    codec: VideoCodec? = nil, preset: String = "ultrafast", audioSeconds: Double = 1.0) throws {
    var settings = EncoderSettings()
    settings.codec = codec
    settings.preset = preset
    settings.crf = 18
    let writer = try MediaWriter(path: path, video: .init(size: size, timeBase: Rational(1, 90000), encoder: settings, rotation: rotation, mirrored: mirrored),
                                 audio: audioStart.map { .init(sampleRate: 48000, channels: 1, startSample: Int64($0 * 48000)) })
    for (index, timestamp) in pts.enumerated() {
        let next = index + 1 < pts.count ? pts[index + 1] : timestamp + 3000
        try writer.addVideoFrame(pts: timestamp, duration: next - timestamp, size: sizes[index]) { drawPattern($0, index: index) }
    }
    if audioStart != nil {
        let samples = (0..<Int(48000 * audioSeconds)).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48000)) }
        try writer.addAudio(samples)
    }
    try writer.finish()
}

/// Jittered, variable-rate timestamps (1/90000) starting at `start` seconds, with frames dropped.
func jitteredTimestamps(count: Int, start: Double, dropping dropped: Set<Int> = []) -> [Int64] {
    var result: [Int64] = []
    var generator = SplitMix(seed: 42)
    for index in 0..<count where !dropped.contains(index) {
        let jitter = Int64(generator.next() % 1200) - 600
        result.append(Int64(start * 90000) + Int64(index) * 3000 + jitter)
    }
    return result
}

/// A small deterministic random number generator for fixtures.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}

/// A decoded frame's timing (in seconds, exact via the stream's time base) and size.
struct DecodedFrame {
    var seconds: Double
    var pts: Int64
    var timeBase: Rational
    var width: Int
    var height: Int
    var psnr: Double
}

/// Decodes every video frame of `path`, measuring each against the pattern of its index.
func decodeFrames(_ path: String, measure: Bool = true) throws -> [DecodedFrame] {
    let reader = try VideoFrameReader(url: path)
    var frames: [DecodedFrame] = []
    while let frame = try reader.next() {
        let psnr = measure ? patternPSNR(try reader.image(of: frame), index: frames.count) : 0
        frames.append(DecodedFrame(seconds: reader.stream.timeBase.seconds(frame.pts), pts: frame.pts,
                                   timeBase: reader.stream.timeBase, width: frame.width, height: frame.height, psnr: psnr))
    }
    return frames
}

/// Every packet of the first stream of `kind`: its timestamp in seconds and its bytes.
func readPackets(_ path: String, kind: MediaKind) throws -> [(pts: Double, bytes: [UInt8])] {
    let demuxer = try Demuxer(url: path)
    guard let stream = demuxer.streams.first(where: { $0.kind == kind }) else { return [] }
    let packet = try Packet()
    var result: [(Double, [UInt8])] = []
    while try demuxer.read(into: packet) {
        if packet.streamIndex == stream.index { result.append((stream.timeBase.seconds(packet.pts), Array(packet.data))) }
        packet.unref()
    }
    return result
}
