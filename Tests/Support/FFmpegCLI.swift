import Foundation
import ReplayKitless

/// Runs `/usr/bin/ffmpeg -v error -y ARGUMENTS`, throwing on a non-zero status: an independent
/// tool to make test inputs and reference results with.
public func runFFmpegCLI(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = ["-v", "error", "-y"] + arguments
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw ReplayError.processing("ffmpeg \(arguments): \(message)") }
}

/// Raw pixels of `pixelFormat` (`gray`, `rgb24`, `rgba`, …) written as a one-picture image; the format follows the extension.
public func writeRawImage(_ path: String, width: Int, height: Int, pixelFormat: String, bytes: [UInt8]) throws {
    let raw = path + ".raw"
    try Data(bytes).write(to: URL(fileURLWithPath: raw))
    defer { try? FileManager.default.removeItem(atPath: raw) }
    try runFFmpegCLI(["-f", "rawvideo", "-pix_fmt", pixelFormat, "-s", "\(width)x\(height)", "-i", raw, "-frames:v", "1", path])
}

/// Full-range grey frames at a constant rate, losslessly (FFV1, gray) in Matroska.
public func writeGreyVideo(_ path: String, width: Int, height: Int, rate: String, frames: [[UInt8]]) throws {
    let raw = path + ".raw"
    try Data(frames.flatMap { $0 }).write(to: URL(fileURLWithPath: raw))
    defer { try? FileManager.default.removeItem(atPath: raw) }
    try runFFmpegCLI(["-f", "rawvideo", "-pix_fmt", "gray", "-s", "\(width)x\(height)", "-framerate", rate, "-i", raw,
                      "-c:v", "ffv1", "-pix_fmt", "gray", path])
}
