import ArgumentParser
import Foundation
import ReplayKitless

/// `fxreplay compare A B`: PSNR and SSIM of two videos, as FFmpeg's psnr and ssim filters compute them.
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "PSNR and SSIM of video A against video B, frame by frame (as FFmpeg's psnr/ssim filters).")

    @Argument(help: "The video to check (FFmpeg's main input).")
    var a: String

    @Argument(help: "The reference video.")
    var b: String

    @Option(name: .customLong("min-psnr"), help: "Fail (exit 1) when the average PSNR is below this many dB.")
    var minPSNR: Double?

    @Option(name: .customLong("min-ssim"), help: "Fail (exit 1) when the SSIM (All) is below this value.")
    var minSSIM: Double?

    @Option(help: "Also write the summary and per-frame values as JSON to this file.")
    var json: String?

    func run() throws {
        FFmpegLogging.configure(verbose: false)
        let result = try VideoComparisonResult(comparing: a, with: b, keepFrames: json != nil)
        print(result.text, terminator: "")
        if let json { try AtomicOutput.write(try QAOutput.json(result), to: json, inputs: [a, b]) }
        let failures = result.failures(minPSNR: minPSNR, minSSIM: minSSIM)
        if !failures.isEmpty { throw ReplayError.checkFailed(failures.joined(separator: "; ")) }
    }
}

/// `fxreplay framehash INPUT [--check GOLDEN]`: ffmpeg's framemd5 data lines for the first video stream.
struct Framehash: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "MD5 of every decoded frame, as `ffmpeg -f framemd5` prints them; or check against a golden file.")

    @Argument(help: "The recording to hash.")
    var input: String

    @Option(help: "Compare with this framemd5 file instead of printing; exit 1 at the first difference.")
    var check: String?

    func run() throws {
        FFmpegLogging.configure(verbose: false)
        let golden = try check.map { path throws(ReplayError) in try FrameHashGolden.load(path: path) }
        let hasher = try VideoFrameHasher(url: input)
        guard let golden else {
            for line in hasher.headerLines { print(line) }
            while let line = try hasher.nextLine() { print(line) }
            return
        }
        var checker = FrameHashChecker(golden: golden)
        while let line = try hasher.nextLine() {
            if let difference = checker.check(line) { throw difference.error }
        }
        if let difference = checker.finish() { throw difference.error }
        print("\(input): all \(checker.frames) frames match \(golden.file)")
    }
}

/// `fxreplay qa …`: quality-assurance checks on placement tracks.
struct QA: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qa", abstract: "Quality checks on placement tracks.", subcommands: [QACompare.self])
}

/// How `qa compare` pairs rows.
enum TrackMatching: String, ExpressibleByArgument, CaseIterable {
    case frame, time
}

/// `fxreplay qa compare A.csv B.csv`: two placement tracks, annotation by annotation.
struct QACompare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two placement tracks (fxreplay track CSV): pixel error and visibility per annotation.",
        discussion: """
            Rows pair up by annotation id and frame number, or with --match time by the nearest time within \
            --time-tolerance. Per annotation: frames compared (both visible), mean, median, p95 (nearest rank) \
            and max pixel distance, visibility mismatches, unmatched rows, worst frame. An annotation fails when \
            its p95 exceeds --tolerance, or it has more visibility mismatches or unmatched rows than allowed, \
            or it is missing from one track; then the exit status is 1.
            """)

    @Argument(help: "The track to check.")
    var a: String

    @Argument(help: "The reference track.")
    var b: String

    @Option(help: "Largest allowed p95 pixel error per annotation.")
    var tolerance: Double = 1.0

    @Option(help: "Pair rows by frame number or by time.")
    var match: TrackMatching = .frame

    @Option(name: .customLong("time-tolerance"), help: "With --match time: largest time difference of a pair, seconds.")
    var timeTolerance: Double = 0.02

    @Option(name: .customLong("max-visibility-mismatches"), help: "Allowed frames per annotation where visibility differs.")
    var maxVisibilityMismatches: Int = 0

    @Option(name: .customLong("max-unmatched"), help: "Allowed rows per annotation without a partner.")
    var maxUnmatched: Int = 0

    @Option(help: "Write the report as JSON to this file.")
    var json: String?

    @Option(help: "Write an SVG plot of error over time to this file.")
    var svg: String?

    @Option(help: "Write an HTML report (table, plot, thumbnails) to this file.")
    var html: String?

    @Option(help: "A picture for the HTML report, as LABEL=PATH (repeatable).")
    var thumbnail: [String] = []

    func validate() throws {
        guard tolerance >= 0, timeTolerance >= 0 else { throw ValidationError("tolerances must not be negative") }
        guard maxVisibilityMismatches >= 0, maxUnmatched >= 0 else { throw ValidationError("maximum counts must not be negative") }
        for item in thumbnail where !item.contains("=") {
            throw ValidationError("--thumbnail '\(item)': expected LABEL=PATH")
        }
    }

    func run() throws {
        let options = TrackComparisonOptions(matching: match == .frame ? .frame : .time(tolerance: timeTolerance),
                                             tolerance: tolerance, maxVisibilityMismatches: maxVisibilityMismatches,
                                             maxUnmatched: maxUnmatched)
        let report = TrackComparisonReport(comparing: try PlacementTrack.load(path: a), with: try PlacementTrack.load(path: b),
                                           options: options)
        let thumbnails = thumbnail.map { item in
            let parts = item.split(separator: "=", maxSplits: 1)
            return QAThumbnail(label: String(parts[0]), path: String(parts.count > 1 ? parts[1] : ""))
        }
        try report.write(json: json, svg: svg, html: html, thumbnails: thumbnails, inputs: [a, b])
        print(report.text, terminator: "")
        if let failure = report.failure { throw failure }
    }
}
