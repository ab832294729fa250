import ArgumentParser
import Foundation
import ReplayKitless

/// `fxreplay qa …`: quality-assurance checks on annotation placement.
struct QA: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qa", abstract: "Quality checks on annotation placement.",
        subcommands: [QACompare.self, QALatency.self, QAOverlay.self])
}

/// How `qa compare` pairs rows.
enum TrackMatching: String, ExpressibleByArgument, CaseIterable {
    case frame, time
}

/// `fxreplay qa compare A.csv B.csv`: two placement tracks, annotation by annotation.
struct QACompare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two placement tracks (fxreplay track output, CSV or .jsonl): pixel error and visibility per annotation.",
        discussion: """
            Rows pair up by annotation id and frame number, or with --match time by the nearest time within \
            --time-tolerance. Per annotation: frames compared (both visible), mean, median, p95 (nearest rank) \
            and max pixel distance, visibility disagreements, unmatched rows, worst frame. An annotation fails when \
            its p95 exceeds --tolerance, or it has more visibility disagreements or unmatched rows than allowed, \
            or it is missing from one track; then the failing ids are named and the exit status is 1.
            """)

    @Argument(help: "The track to check (A).", completion: .file())
    var a: String

    @Argument(help: "The reference track (B).", completion: .file())
    var b: String

    @Option(parsing: .unconditional, help: "Largest allowed p95 pixel error per annotation.")
    var tolerance: Double = 1.0

    @Option(help: "Pair rows by frame number or by time.")
    var match: TrackMatching = .frame

    @Option(name: .customLong("time-tolerance"), parsing: .unconditional, help: "With --match time: largest time difference of a pair, seconds.")
    var timeTolerance: Double = 0.02

    @Option(name: .customLong("max-visibility-mismatch"), parsing: .unconditional, help: "Allowed frames per annotation where visibility differs.")
    var maxVisibilityMismatch: Int = 0

    @Option(name: .customLong("max-unmatched"), parsing: .unconditional, help: "Allowed rows per annotation without a partner.")
    var maxUnmatched: Int = 0

    @Flag(help: "Print the report as JSON on stdout instead of the text table.")
    var json = false

    @Option(help: "Write an HTML report (table, error plot, worst-frame pictures with --video) to this file.", completion: .file(extensions: ["html"]))
    var report: String?

    @Option(help: "Write an SVG plot of error over time to this file.", completion: .file(extensions: ["svg"]))
    var plot: String?

    @Option(help: "The video the tracks belong to: the HTML report then shows its worst frames with both placements drawn.", completion: .file(extensions: ["mp4", "mov", "mkv", "webm", "m4v", "avi", "h264", "hevc"]))
    var video: String?

    @Option(parsing: .unconditional, help: "With --video: at most this many worst-frame pictures.")
    var thumbnails: Int = 6

    @Flag(help: "With --report: put the pictures inside the HTML file (data: URIs) instead of PNG files beside it.")
    var selfContained = false

    @OptionGroup var inputAccess: InputAccessOptions

    func validate() throws {
        try requireFileNames(["A": [a], "B": [b], "--report": [report], "--plot": [plot], "--video": [video]])
        guard tolerance >= 0, timeTolerance >= 0 else { throw ValidationError("tolerances must not be negative") }
        guard maxVisibilityMismatch >= 0, maxUnmatched >= 0, thumbnails >= 0 else {
            throw ValidationError("counts must not be negative")
        }
        if video != nil && report == nil { throw ValidationError("--video needs --report FILE.html to show its pictures in") }
        if selfContained && report == nil { throw ValidationError("--self-contained needs --report FILE.html") }
    }

    func run() throws {
        FFmpegLogging.configure(verbose: false)
        let options = TrackComparisonOptions(matching: match == .frame ? .frame : .time(tolerance: timeTolerance),
                                             tolerance: tolerance, maxVisibilityMismatches: maxVisibilityMismatch,
                                             maxUnmatched: maxUnmatched)
        // The report files appear together, after the checks and the work: checked first, committed last.
        let outputs = OutputGroup()
        let inputs = [a, b] + (video.map { [$0] } ?? [])
        let plotOutput = try plot.map { path throws(ReplayError) in try outputs.reserve(PathArgument.output(path), inputs: inputs) }
        let reportOutput = try report.map { path throws(ReplayError) in try outputs.reserve(PathArgument.output(path), inputs: inputs) }
        let trackA = try PlacementTrack.load(path: PathArgument.input(a)), trackB = try PlacementTrack.load(path: PathArgument.input(b))
        let comparison = TrackComparisonReport(comparing: trackA, with: trackB, options: options)
        var pictures: [QAThumbnail] = []
        if let video, let report {
            // The pictures join the report files in the group: all of them in place, or none.
            let save = { (png: Data, path: FilePath) throws(ReplayError) in try outputs.write(png, to: path, inputs: [video] + inputs) }
            pictures = try comparison.worstFramePictures(of: video, a: trackA, b: trackB, limit: thumbnails, namedAfter: PathArgument.output(report),
                                                         save: selfContained ? nil : save)
        }
        let legend = [QALegendEntry(label: "A: \(a)", color: PlacementOverlay.color(ofTrack: 0)),
                      QALegendEntry(label: "B: \(b)", color: PlacementOverlay.color(ofTrack: 1))]
        let run = QARunInfo(version: Fxreplay.configuration.version, commandLine: CommandLine.arguments,
                            inputs: [("A", a), ("B", b)] + (video.map { [("video", $0)] } ?? []))
        try comparison.write(svg: plotOutput, html: reportOutput, thumbnails: pictures, legend: legend, run: run)
        try outputs.commit()
        if json {
            FileHandle.standardOutput.write(try comparison.json() + Data("\n".utf8))
        } else {
            printReport(comparison.text)
        }
        if let failure = comparison.failure { throw failure }
    }
}

extension QAReportFiles {
    /// `--plot` and `--report`: writes the plot and the page into their reserved outputs (of an
    /// `OutputGroup`, which the caller commits); the page references `thumbnails` relative to its own folder.
    func write(svg: AtomicOutput?, html: AtomicOutput?, thumbnails: [QAThumbnail] = [], legend: [QALegendEntry] = [],
               run: QARunInfo) throws(ReplayError) {
        if let svg { try svg.write(Data(self.svg().utf8)) }
        if let html {
            let directory = FilePath(URL(fileURLWithPath: html.finalPath.string).deletingLastPathComponent().path)
            try html.write(Data(self.html(thumbnails: thumbnails, legend: legend, directory: directory, run: run).utf8))
        }
    }
}
