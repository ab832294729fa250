import Foundation
import Testing
@testable import ReplayKitless

/// Deterministic pseudo-random bytes (a 64-bit LCG), so fixtures are the same on every run.
struct FixtureRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt8 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return UInt8(truncatingIfNeeded: state >> 33)
    }
    /// A value in `range`.
    mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next()) % (range.count)
    }
}

/// A 4:2:0 picture filled by `sample(plane, x, y)`.
func makePicture(width: Int, height: Int, subsampling: ChromaSubsampling = .yuv420,
                 _ sample: (Int, Int, Int) -> UInt8) -> PlanarBuffer {
    let buffer = PlanarBuffer(width: width, height: height, subsampling: subsampling)
    for (index, plane) in [buffer.image.luma, buffer.image.cb, buffer.image.cr].enumerated() {
        for y in 0..<plane.height { for x in 0..<plane.width { plane[x, y] = sample(index, x, y) } }
    }
    return buffer
}

/// The picture packed as rawvideo (planes one after another, rows without padding).
func rawBytes(_ image: YUVImage) -> [UInt8] {
    var bytes: [UInt8] = []
    for plane in [image.luma, image.cb, image.cr] {
        for y in 0..<plane.height { bytes.append(contentsOf: plane.row(y)) }
    }
    return bytes
}

/// A fresh directory under the system temporary directory, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("fxreplay-qa-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs the real `ffmpeg` CLI; returns its exit status and log (stderr). Standard output is discarded.
func runFFmpeg(_ arguments: [String]) throws -> (status: Int32, log: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = ["-hide_banner", "-nostdin", "-nostats"] + arguments
    let err = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = err
    try process.run()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: errData, as: UTF8.self))
}

/// Two short 4:2:0 sequences, the second a noisy copy of the first with more noise in later frames.
func noisySequence(width: Int, height: Int, frames: Int, seed: UInt64) -> (a: [PlanarBuffer], b: [PlanarBuffer]) {
    var random = FixtureRandom(seed: seed)
    var a: [PlanarBuffer] = [], b: [PlanarBuffer] = []
    for frame in 0..<frames {
        // Smooth gradients plus texture, so SSIM windows see structure and not only noise.
        let original = makePicture(width: width, height: height) { plane, x, y in
            UInt8(truncatingIfNeeded: (x * (3 + plane) + y * 5 + frame * 7) & 0xFF) ^ (random.next() & 0x0F)
        }
        let amplitude = 2 + 6 * frame
        let noisy = makePicture(width: width, height: height) { plane, x, y in
            UInt8(clamping: Int(PlanePair.plane(original.image, plane)[x, y]) + random.next(in: -amplitude...amplitude))
        }
        a.append(original)
        b.append(noisy)
    }
    return (a, b)
}

/// Runs `ffmpeg` with `filter` (`psnr` or `ssim`) on the two sequences, written as raw yuv420p files.
/// Returns FFmpeg's closing log line (from the filter name on) and its per-frame stats file lines.
func ffmpegQuality(_ filter: String, _ a: [PlanarBuffer], _ b: [PlanarBuffer]) throws -> (summary: String, frames: [String]) {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let fileA = directory.appendingPathComponent("a.yuv"), fileB = directory.appendingPathComponent("b.yuv")
    let stats = directory.appendingPathComponent("stats.log")
    try Data(a.flatMap { rawBytes($0.image) }).write(to: fileA)
    try Data(b.flatMap { rawBytes($0.image) }).write(to: fileB)
    let size = "\(a[0].image.width)x\(a[0].image.height)"
    let input = ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", size, "-i"]
    // One filter thread: FFmpeg then sums SSIM rows in one slice, as the port does.
    let result = try runFFmpeg(["-filter_threads", "1"] + input + [fileA.path] + input + [fileB.path]
        + ["-lavfi", "[0:v][1:v]\(filter)=stats_file=\(stats.path)", "-f", "null", "-"])
    #expect(result.status == 0, "ffmpeg failed: \(result.log)")
    let marker = filter == "psnr" ? "PSNR y:" : "SSIM Y:"
    guard let line = result.log.split(separator: "\n").first(where: { $0.contains(marker) }),
          let start = line.range(of: marker.prefix(4)) else {
        Issue.record("no \(filter) summary in ffmpeg's log: \(result.log)")
        return ("", [])
    }
    let frames = try String(contentsOf: stats, encoding: .utf8).split(separator: "\n").map(String.init)
    return (String(line[start.lowerBound...]), frames)
}

/// The numbers in a log line, in order (`inf` included).
func numbers(in line: String) -> [Double] {
    line.split(whereSeparator: { " :()".contains($0) }).compactMap { Double($0) }
}
