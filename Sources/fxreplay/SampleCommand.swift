import ArgumentParser
import Foundation
import ReplayKitless

/// `fxreplay sample -o DIR`: a synthetic recorded call with its poses, mask, background and
/// annotations, the same bytes for the same settings (the bundled `Samples/` were made with it).
struct Sample: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate a synthetic recorded call (video with pose SEI, sidecars, mask, background, annotations, job, truth).",
        discussion: "Writes \(SampleGenerator.fileNames.joined(separator: ", ")) into DIR. The same options give the same bytes.")

    @Option(name: .shortAndLong, help: "Directory to write the sample into (created when missing).", completion: .directory)
    var output: String

    @Option(parsing: .unconditional, help: "Length of the call in seconds (1 to 600).")
    var seconds: Double = 4

    @Option(help: "Picture size WxH (even, from 64x64 to 3840x2160).")
    var size: PictureSize = PictureSize(width: 640, height: 360)

    @Option(help: "Seed of the timing jitter, dropped frames, hand shake and room tone.")
    var seed: UInt64 = 1

    @Flag(help: "Replace the sample's files if DIR already holds them.")
    var overwrite = false

    func validate() throws {
        try requireFileNames(["-o": [output]])
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw ValidationError("-o \(output): is a file; the sample is a directory of files (give a new or existing directory)")
        }
        do {
            try SampleSettings(size: size, seconds: seconds, seed: seed).validate()
        } catch {
            throw ValidationError(OptionFlags.message(of: error))
        }
    }

    func run() throws {
        FFmpegLogging.configure(verbose: false)
        let summary = try SampleGenerator.generate(SampleSettings(size: size, seconds: seconds, seed: seed),
                                                   into: FilePath(output), overwrite: overwrite)
        printError("fxreplay: wrote \(summary.files.count) files to \(output): \(summary.frames) frames "
                   + "(\(summary.droppedFrames) dropped), \(summary.flashes) flash/beep probes")
    }
}
