import ArgumentParser
import Foundation
import ReplayKitless

extension FrameAlignment: ExpressibleByArgument {}

/// `fxreplay compare A B`: PSNR and SSIM of two videos, as FFmpeg's psnr and ssim filters compute them,
/// plus frame counts, timestamps, duration and audio presence.
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare video A with reference B: PSNR and SSIM per frame (as FFmpeg's psnr/ssim filters), "
            + "frame counts, timestamps, duration, audio.",
        discussion: """
            Frames pair up by presentation time measured from each video's first frame (a partner must lie \
            within half a frame), or in order with --align index. The check fails (exit 1) when a threshold \
            is missed (naming the worst frame), frame counts differ, a frame has no partner, timestamps differ \
            by more than --max-time-delta, durations differ by more than a frame, or only one video has audio.
            """)

    @Argument(help: "The video to check (FFmpeg's main input).", completion: .file())
    var a: String

    @Argument(help: "The reference video.", completion: .file())
    var b: String

    @Option(name: .customLong("min-psnr"), parsing: .unconditional, help: "Fail when the average PSNR is below this many dB.")
    var minPSNR: Double?

    @Option(name: .customLong("min-ssim"), parsing: .unconditional, help: "Fail when the SSIM (All) is below this value.")
    var minSSIM: Double?

    @Option(help: "Pair frames by presentation time or by index.")
    var align: FrameAlignment = .time

    @Option(name: .customLong("max-time-delta"), parsing: .unconditional, help: "Largest allowed timestamp difference of a pair, seconds (default: half a frame).")
    var maxTimeDelta: Double?

    @Flag(help: "Do not fail when only one of the videos has audio.")
    var ignoreAudio = false

    @Flag(help: "Print the report as JSON on stdout instead of text.")
    var json = false

    @Flag(help: "With --json: include every pair's PSNR and SSIM.")
    var perFrame = false

    @Option(help: "Write the worst frame as PNG: A | B | heat map of the luma difference, labelled, with the frame and the colour scale.",
            completion: .file(extensions: ["png"]))
    var diff: String?

    @OptionGroup var inputAccess: InputAccessOptions

    func validate() throws {
        try requireFileNames(["A": [a], "B": [b], "--diff": [diff]])
        if let maxTimeDelta, !(maxTimeDelta >= 0) { throw ValidationError("--max-time-delta must be 0 or more seconds") }
        if let minSSIM, !(minSSIM <= 1) { throw ValidationError("--min-ssim must be at most 1") }
        if let minPSNR, !minPSNR.isFinite { throw ValidationError("--min-psnr must be a number of dB") }
    }

    func run() throws {
        FFmpegLogging.configure(verbose: false)
        var options = VideoComparisonOptions()
        options.alignment = align
        options.minPSNR = minPSNR
        options.minSSIM = minSSIM
        options.maxTimeDelta = maxTimeDelta
        options.checkAudio = !ignoreAudio
        options.perFrame = perFrame
        options.diffPicture = diff != nil
        let comparison = try VideoComparison(comparing: a, with: b, options: options)
        printWarnings(comparison.warnings)
        if let diff, let png = try comparison.diffPNG() {
            try AtomicOutput.write(png, to: PathArgument.output(diff), inputs: [a, b])
        }
        if json {
            FileHandle.standardOutput.write(try comparison.result.json() + Data("\n".utf8))
        } else {
            printReport(comparison.result.text)
        }
        if let failure = comparison.result.failure { throw failure }
    }
}
