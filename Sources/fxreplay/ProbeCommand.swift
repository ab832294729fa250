import ArgumentParser
import Foundation
import ReplayKitless

struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe a recording: streams, timing (VFR), rotation, resolution changes, pose SEI; or a whole call.")

    @Argument(help: "The recording to describe, or a call (archive .zip, its folder, its manifest .json, or a call manifest).", completion: .file())
    var input: String

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @OptionGroup var inputAccess: InputAccessOptions

    func validate() throws {
        try requireFileNames(["INPUT": [input]])
    }

    func run() throws {
        FFmpegLogging.configure(verbose: false)
        if OpenedCall.isCall(input) { return try probeCall() }
        let result = try MediaProbe.probe(input)
        if json {
            FileHandle.standardOutput.write(try prettyJSON(result))
            return
        }
        var header = "\(result.path): \(result.container)"
        if let duration = result.durationSeconds { header += String(format: ", %.3f s", duration) }
        if let start = result.startSeconds { header += String(format: ", starts at %.3f s", start) }
        printLine(header)
        for stream in result.streams {
            var line = "  #\(stream.index) \(stream.kind.rawValue) \(stream.codec), \(stream.packets) packets, time base \(stream.timeBase)"
            if let w = stream.width, let h = stream.height { line += ", \(w)x\(h)" }
            if let rate = stream.sampleRate, let channels = stream.channels { line += ", \(rate) Hz, \(channels) ch" }
            if let start = stream.startSeconds { line += String(format: ", start %.6f s", start) }
            printLine(line)
            let coding = stream.codingSummary
            if !coding.isEmpty { printLine("     " + coding) }
        }
        guard result.videoStream != nil else {
            print("  no video")
            return
        }
        print("  video frames: \(result.frames)")
        if let i = result.frameIntervals {
            print(String(format: "  frame interval: min %.2f ms, mean %.2f ms, max %.2f ms, sd %.2f ms (%@)",
                         i.min, i.mean, i.max, i.standardDeviation, i.variableFrameRate ? "variable frame rate" : "constant frame rate"))
        }
        print("  rotation: \(result.rotation)° clockwise\(result.mirrored ? ", mirrored" : "")")
        print("  resolutions: \(result.resolutions.joined(separator: " → "))")
        print("  pose SEI: \(result.poseSEIFrames > 0 ? "\(result.poseSEIFrames) frames" : "none")")
    }
}
