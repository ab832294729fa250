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
        if let diff, let picture = comparison.diff {
            try ImageWriter.writePNG(picture, to: diff, inputs: [a, b])
        }
        if json {
            FileHandle.standardOutput.write(try QAOutput.json(comparison.result) + Data("\n".utf8))
        } else {
            printReport(comparison.result.text)
        }
        if let failure = comparison.result.failure { throw failure }
    }
}

/// `fxreplay framehash INPUT [--check GOLDEN [--update]]`: ffmpeg's framemd5 lines for the first video stream.
struct Framehash: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "MD5 of every decoded frame, as `ffmpeg -f framemd5` prints them; or check against a golden file.")

    @Argument(help: "The recording to hash.", completion: .file(extensions: ["mp4", "mov", "mkv", "webm", "m4v", "avi", "h264", "hevc"]))
    var input: String

    @Option(help: "Compare with this framemd5 file instead of printing; exit 1 at the first difference, naming the frame.", completion: .file(extensions: ["framemd5", "txt"]))
    var check: String?

    @Flag(help: "With --check: rewrite the golden file from INPUT when it differs (a deliberate golden update).")
    var update = false

    @OptionGroup var inputAccess: InputAccessOptions

    func validate() throws {
        try requireFileNames(["INPUT": [input], "--check": [check]])
        if update && check == nil { throw ValidationError("--update needs --check GOLDEN, the file to rewrite") }
    }

    func run() throws {
        FFmpegLogging.configure(verbose: false)
        let hasher = try VideoFrameHasher(url: input)
        guard let check else {
            for line in hasher.headerLines { print(line) }
            while let line = try hasher.nextLine() { print(line) }
            return
        }
        if update { return try rewrite(check, from: hasher) }
        let golden = try FrameHashGolden.load(path: check)
        var checker = FrameHashChecker(golden: golden)
        while let line = try hasher.nextLine() {
            if let difference = checker.check(line) { throw difference.error(in: golden) }
        }
        if let difference = checker.finish() { throw difference.error(in: golden) }
        print("\(input): all \(checker.frames) frames match \(golden.file)")
    }

    /// `--update`: the whole listing replaces the golden file, unless it already matches.
    private func rewrite(_ path: String, from hasher: VideoFrameHasher) throws {
        var lines: [String] = []
        while let line = try hasher.nextLine() { lines.append(line) }
        // A golden file that is missing or unreadable is simply written anew.
        let existing = try? FrameHashGolden.load(path: path)
        let difference = existing?.compare(lines)
        if existing != nil, difference == nil {
            print("\(input): all \(lines.count) frames match \(path); left unchanged")
            return
        }
        let text = (hasher.headerLines + lines).joined(separator: "\n") + "\n"
        try AtomicOutput.write(Data(text.utf8), to: path, inputs: [input], rewritesReadFile: true)
        let was = difference.map { " (before: \($0.description.prefix { $0 != "\n" && $0 != ":" }))" } ?? ""
        print("\(input): wrote \(path) with \(lines.count) frames\(was)")
    }
}

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
        let plotOutput = try plot.map { path throws(ReplayError) in try outputs.reserve(path, inputs: inputs) }
        let reportOutput = try report.map { path throws(ReplayError) in try outputs.reserve(path, inputs: inputs) }
        let trackA = try PlacementTrack.load(path: a), trackB = try PlacementTrack.load(path: b)
        let comparison = TrackComparisonReport(comparing: trackA, with: trackB, options: options)
        var pictures: [QAThumbnail] = []
        if let video, let report {
            let stem = URL(fileURLWithPath: report).deletingPathExtension().path
            var names = Set<String>()
            let requests = comparison.thumbnailFrames(limit: thumbnails).map { picture in
                // One file per annotation and frame, named after both (ids reduced to characters safe in a file name).
                let id = String(picture.id.unicodeScalars.map { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") ? Character($0) : "_" })
                var path = "\(stem)-frame\(picture.frame.frame)-\(id).png"
                if !names.insert(path).inserted { path = "\(stem)-frame\(picture.frame.frame)-\(id)-\(names.count).png"; names.insert(path) }
                return ThumbnailRequest(frame: picture.frame.frame, t: picture.frame.t, label: picture.label, path: path,
                                        id: picture.id, accent: picture.accent)
            }
            pictures = try PlacementThumbnails.write(video: video, requests: requests, a: trackA, b: trackB,
                                                     timeTolerance: match == .time ? timeTolerance : nil,
                                                     legend: ["A: \(URL(fileURLWithPath: a).lastPathComponent)", "B: \(URL(fileURLWithPath: b).lastPathComponent)"],
                                                     inline: selfContained, into: outputs, protecting: inputs)
        }
        let legend = [QALegendEntry(label: "A: \(a)", color: MarkerStyle.trackColor(0)),
                      QALegendEntry(label: "B: \(b)", color: MarkerStyle.trackColor(1))]
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

/// `fxreplay qa latency INPUT …`: what a tap-to-anchor delay does to placement.
struct QALatency: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latency",
        abstract: "Placement error of tap annotations resolved late, measured on the recording's own poses (no decoding).",
        discussion: """
            For each tap annotation and delay D: the true anchor is the tap resolved with the pose of the frame \
            nearest the tap time, the late anchor the tap resolved with the pose of the frame nearest tap time + D \
            (the same resolution the scene uses). Both are projected into every frame from the tap frame on \
            (until the annotation's "until"); where both are on screen their pixel distance is the error. \
            Delays carry their unit: 200ms or 0.2s (a bare number other than 0 is refused: "200" is \
            more likely 200 ms than 200 seconds); a comma list prints one row per delay and tap.
            """)

    @Argument(help: "The recording, or a call with --stream.", completion: .file(extensions: ["mp4", "mov", "mkv", "webm", "m4v", "avi", "h264", "hevc", "zip", "json"]))
    var input: String

    @OptionGroup var callStream: CallStreamOption

    @OptionGroup var poseOptions: PoseOptions

    @Option(help: "Annotation scene (annotations.json); its tap annotations are checked.", completion: .file(extensions: ["json"]))
    var annotations: String

    // (Unconditional: a value such as -100ms is then refused for what it is, not taken for an option.)
    @Option(parsing: .unconditional, help: "Tap latency with its unit, e.g. 200ms or 0.2s, or a comma list (0,100ms,200ms).")
    var delay: String?

    @Option(name: .customLong("delay-list"), parsing: .unconditional, help: "More delays with their units, comma separated.")
    var delayList: String?

    @Option(parsing: .unconditional, help: "Fail (exit 1) when an annotation's p95 error exceeds this many pixels at any delay.")
    var tolerance: Double?

    @Flag(help: "Print the report as JSON on stdout instead of the text table.")
    var json = false

    @Option(help: "Write an HTML report (table, one error plot per delay) to this file.", completion: .file(extensions: ["html"]))
    var report: String?

    @Flag(help: "With --report: a page that needs no other file (its plots are inline in any case).")
    var selfContained = false

    @Option(help: "Write an SVG plot of error over time (every tap and delay) to this file.", completion: .file(extensions: ["svg"]))
    var plot: String?

    @OptionGroup var inputAccess: InputAccessOptions

    func validate() throws {
        try requireFileNames(["INPUT": [input], "--annotations": [annotations], "--report": [report], "--plot": [plot]])
        try poseOptions.requireSource()
        if delay == nil && delayList == nil { throw ValidationError("give --delay (e.g. 200ms) or --delay-list") }
        for (name, list) in [("--delay", delay), ("--delay-list", delayList)] {
            try list.map { try requireTimeUnits($0, option: name) }
        }
        if let tolerance, !(tolerance >= 0) { throw ValidationError("--tolerance must not be negative") }
        if selfContained && report == nil { throw ValidationError("--self-contained needs --report FILE.html") }
    }

    func run() throws {
        FFmpegLogging.configure(verbose: false)
        var delays: [Double] = []
        for text in [delay, delayList].compactMap({ $0 }).flatMap({ $0.split(separator: ",") }) {
            let value = try LatencyQA.parseDelay(String(text))
            if !delays.contains(value) { delays.append(value) }
        }
        guard !delays.isEmpty else { throw ReplayError.usage("--delay: no delay given (e.g. 200ms)") }
        let outputs = OutputGroup()
        // The scene's meshes are read too (AnnotationSettings lists them).
        let inputs = [input] + AnnotationSettings(scene: annotations).inputFiles + (poseOptions.poses.map { [$0] } ?? [])
        let plotOutput = try plot.map { path throws(ReplayError) in try outputs.reserve(path, inputs: inputs) }
        let reportOutput = try report.map { path throws(ReplayError) in try outputs.reserve(path, inputs: inputs) }
        let scene = try AnnotationScene.load(path: annotations)
        let call = try callStream.choice(input: input, poseTime: poseOptions.poseTime)
        let qa = try LatencyQA(input: call?.track.path ?? input, poses: try poseOptions.settings(clockOffset: call?.poseClockOffset, placement: call?.placement),
                               scene: scene, sceneFile: annotations)
        let taps = LatencyTap.taps(in: scene, width: qa.width, height: qa.height)
        guard !taps.isEmpty else { throw ReplayError.badInput(file: annotations, "no tap annotations to check for latency") }
        let result = qa.report(taps: taps, delays: delays, tolerance: tolerance)
        let run = QARunInfo(version: Fxreplay.configuration.version, commandLine: CommandLine.arguments,
                            inputs: [("recording", input), ("annotations", annotations)] + (poseOptions.poses.map { [("poses", $0)] } ?? []))
        try result.write(svg: plotOutput, html: reportOutput, run: run)
        try outputs.commit()
        if json {
            FileHandle.standardOutput.write(try result.json() + Data("\n".utf8))
        } else {
            printReport(result.text)
        }
        withExtendedLifetime(call) {}
        if let failure = result.failure { throw failure }
    }
}

/// `fxreplay qa overlay INPUT --track A.csv --track B.csv -o review.mp4`: placements drawn on the video.
struct QAOverlay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overlay",
        abstract: "Draw the placements of one or more tracks on the video as coloured markers (re-encoded, audio copied).",
        discussion: """
            Each track's visible rows become a ring and cross at (x, y) on the frame with that number, in the \
            track's colour: 1st red, 2nd cyan, 3rd yellow, 4th green, 5th purple. Every frame keeps its own time.
            """)

    @Argument(help: "The recording the tracks belong to, or a call with --stream.", completion: .file(extensions: ["mp4", "mov", "mkv", "webm", "m4v", "avi", "h264", "hevc", "zip", "json"]))
    var input: String

    @OptionGroup var callStream: CallStreamOption

    @Option(help: "A placement track (CSV, or JSON Lines in a .jsonl file); repeat for several, each in its own colour.", completion: .file(extensions: ["csv", "jsonl"]))
    var track: [String]

    @Option(name: .shortAndLong, help: "The review video to write.", completion: .file(extensions: ["mp4", "mov", "mkv", "webm"]))
    var output: String

    @OptionGroup var encoder: EncoderOptions

    @Flag(help: "Replace OUTPUT if it exists.")
    var overwrite = false

    @OptionGroup var progress: ProgressOptions

    @OptionGroup var inputAccess: InputAccessOptions

    func validate() throws {
        try requireFileNames(["INPUT": [input], "--track": track, "-o": [output]])
    }

    func run() throws {
        FFmpegLogging.configure(verbose: progress.verbose)
        let tracks = try track.map { path throws(ReplayError) in try PlacementTrack.load(path: path) }
        let call = try callStream.choice(input: input)
        var options = RenderOptions(input: call?.track.path ?? input, output: output)
        options.encoder = encoder.settings
        options.overwrite = overwrite
        options.otherInputs = track
        let result = try Renderer(options: options, extraEffects: [PlacementOverlay(tracks: tracks)]).run(progress: progress.progress, label: "overlay")
        let legend = track.enumerated().map { "\($0.element) \(MarkerStyle.trackColorName($0.offset))" }
        printError("fxreplay: wrote \(output): \(result.framesEncoded) frames; markers: " + legend.joined(separator: ", "))
        // Rows past the video's last frame are drawn nowhere: most likely a track of another recording.
        let beyond = zip(track, tracks).compactMap { path, placements in
            let count = placements.rows.filter { $0.frame >= result.framesEncoded }.count
            return count > 0 ? "\(path): \(count) rows name frames past the video's \(result.framesEncoded) (not drawn): is it this recording's track?" : nil
        }
        printWarnings(result.warnings + beyond)
        withExtendedLifetime(call) {}
    }
}

/// Refuses a bare number in a comma list of durations (`200` rather than `200ms` or `0.2s`): a
/// tap delay is a fraction of a second, so `200` is far more likely milliseconds than the 200
/// seconds it would mean. Zero needs no unit.
func requireTimeUnits(_ list: String, option: String) throws {
    for item in list.split(separator: ",") {
        let text = item.trimmingCharacters(in: .whitespaces)
        guard let value = Double(text), value.isFinite, value != 0 else { continue }
        throw ValidationError("\(option) \(text): give a unit: did you mean \(text)ms? (or \(text)s for seconds)")
    }
}

/// A check's text report as printed: its closing "FAIL: reasons" line shortened to "FAIL (…)", since
/// the reasons end the run once, as its error on stderr (formats.md §8, exit 1).
func printReport(_ text: String) {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    if let last = lines.lastIndex(where: { !$0.isEmpty }), lines[last].hasPrefix("FAIL: ") { lines[last] = "FAIL (the reason is on stderr)" }
    if lines.last?.isEmpty == true { lines.removeLast() }
    for line in lines { printLine(String(line)) }
}
