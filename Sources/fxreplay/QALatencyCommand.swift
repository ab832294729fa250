import ArgumentParser
import Foundation
import ReplayKitless

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
        let inputs = [input] + AnnotationSettings(scene: try PathArgument.input(annotations)).inputFiles.map(\.string) + (poseOptions.poses.map { [$0] } ?? [])
        let plotOutput = try plot.map { path throws(ReplayError) in try outputs.reserve(PathArgument.output(path), inputs: inputs) }
        let reportOutput = try report.map { path throws(ReplayError) in try outputs.reserve(PathArgument.output(path), inputs: inputs) }
        let scene = try AnnotationScene.load(path: PathArgument.input(annotations))
        let call = try callStream.choice(input: input, poseTime: poseOptions.poseTime)
        let qa = try LatencyQA(input: call?.track.path.string ?? input, poses: try poseOptions.settings(clockOffset: call?.poseClockOffset, placement: call?.placement),
                               scene: scene, sceneFile: try PathArgument.input(annotations))
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
