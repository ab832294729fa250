import Foundation
import Testing

/// Help people find things (#26 item 6): misspelt commands, ffmpeg habits, one error style,
/// grouped help, library versions, a FAIL reason said once, and shell completion that works.
@Suite struct FindingThingsTests {
    @Test func misspeltSubcommandsSuggestTheNearest() throws {
        for (arguments, suggestion) in [(["rendr", "in.mp4"], "'render'"), (["prob", "x"], "'probe'"), (["qa", "latncy"], "'latency'"),
                                         (["poses", "extrct"], "'extract'")] {
            let run = try runFxreplay(arguments)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("fxreplay: error: '\(arguments.last == "x" || arguments.last == "in.mp4" ? arguments[0] : arguments[1])'"),
                    "\(run.stderr)")
            #expect(run.stderr.contains("did you mean \(suggestion)?"), "\(run.stderr)")
        }
        let far = try runFxreplay(["xyzzy"])
        #expect(far.status == 2 && far.stderr.contains("commands: render, probe"), "\(far.stderr)")
    }

    @Test func ffmpegHabitsGetTheFxreplaySpelling() throws {
        let input = try runFxreplay(["render", "-i", "in.mp4", "out.mp4"])
        #expect(input.status == 2 && input.stderr == "fxreplay: error: fxreplay takes the input as an argument, not -i: fxreplay render IN -o OUT\n",
                "\(input.stderr)")
        let overwrite = try runFxreplay(["render", "in.mp4", "-o", "out.mp4", "-y"])
        #expect(overwrite.status == 2 && overwrite.stderr == "fxreplay: error: -y: use --overwrite\n", "\(overwrite.stderr)")
        let codec = try runFxreplay(["render", "in.mp4", "-o", "out.mp4", "-c:v", "libx264"])
        #expect(codec.status == 2 && codec.stderr.contains("--codec"), "\(codec.stderr)")
    }

    /// Usage errors (ArgumentParser's), bad input (the library's) and validation all start the same way.
    @Test func everyErrorHasOneStyle() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let runs = [try runFxreplay(["render"]), try runFxreplay(["probe", dir.appendingPathComponent("missing.mp4").path]),
                    try runFxreplay(["render", "in.mp4", "-o", "out.mp4", "--crf", "99"]), try runFxreplay(["probe", "--bogus"])]
        for run in runs {
            #expect(run.status != 0)
            #expect(run.stderr.hasPrefix("fxreplay: error: "), "\(run.stderr)")
            #expect(!run.stderr.contains("Error: "), "\(run.stderr)")
        }
    }

    @Test func renderHelpIsGrouped() throws {
        let help = try runFxreplay(["render", "--help"])
        #expect(help.status == 0)
        var previous = help.stdout.startIndex
        // Each group titled, in this order, each holding its own options.
        for (title, option) in [("ENCODING:", "--crf"), ("CAMERA POSES:", "--pose-time"), ("PROGRESS AND MESSAGES:", "--progress"),
                                ("BACKGROUND REPLACEMENT:", "--mask"), ("INPUT ACCESS:", "--allow-protocols")] {
            let heading = try #require(help.stdout.range(of: "\n" + title + "\n", range: previous..<help.stdout.endIndex), "no \(title) in\n\(help.stdout)")
            let next = help.stdout.range(of: ":\n", range: heading.upperBound..<help.stdout.endIndex)?.lowerBound ?? help.stdout.endIndex
            #expect(help.stdout[heading.upperBound..<next].contains(option), "\(option) not under \(title)")
            previous = heading.upperBound
        }
    }

    /// `--version` names the FFmpeg libraries as libavcodec reports them, and the encoders' libraries
    /// as `ffmpeg -version` and the dynamic linker see them.
    @Test func versionListsTheLibrariesTheBytesDependOn() throws {
        let run = try runFxreplay(["--version"])
        #expect(run.status == 0, "\(run.stderr)")
        let ffmpeg = String(decoding: try QAFixtures.run("ffmpeg", ["-version"]).stdout, as: UTF8.self)
        // "ffmpeg version 5.1.6-0+deb12u1 Copyright …" and "libavcodec     59. 37.100 / 59. 37.100"
        let release = try #require(ffmpeg.split(separator: " ").dropFirst(2).first)
        #expect(run.stdout.contains("FFmpeg \(release)\n"), "\(run.stdout)")
        for library in ["libavcodec", "libavformat", "libavutil", "libswscale"] {
            let line = try #require(ffmpeg.split(separator: "\n").first { $0.hasPrefix(library) })
            let version = line.split(separator: "/").last!.split(separator: ".").map { Int($0.trimmingCharacters(in: .whitespaces))! }
            #expect(run.stdout.contains("\(library) \(version.map(String.init).joined(separator: "."))"), "\(library): \(run.stdout)")
        }
        let linked = try QAFixtures.run("ldd", [fxreplayExecutable.path])
        let libraries = String(decoding: linked.stdout, as: UTF8.self)
        if let x264 = libraries.split(separator: "\n").first(where: { $0.contains("libx264.so.") }) {
            let core = x264.split(separator: " ")[0].split(separator: ".").last!
            #expect(run.stdout.contains("x264 core \(core)"), "\(run.stdout)")
        }
        if libraries.contains("libvpx.so.") { #expect(run.stdout.contains("libvpx v"), "\(run.stdout)") }
        if libraries.contains("libx265.so.") { #expect(run.stdout.contains("x265 "), "\(run.stdout)") }
    }

    /// A failed check's reason is said once: on stderr as the error; the report's verdict line only says FAIL.
    @Test func failReasonIsPrintedOnce() throws {
        let sample = try GeneratedSample.get()
        let run = try runFxreplay(["qa", "latency", sample.path("call.mp4"), "--poses-from-sei", "--annotations", sample.path("annotations.json"),
                                   "--delay", "200ms", "--tolerance", "0"])
        #expect(run.status == 1, "\(run.stderr)")
        let everything = run.stdout + run.stderr
        #expect(everything.components(separatedBy: "tap-blue at 200 ms").count - 1 == 1, "the reason more than once:\n\(everything)")
        #expect(run.stderr.hasPrefix("fxreplay: error: tap latency check failed: tap-blue at 200 ms"), "\(run.stderr)")
        #expect(run.stdout.hasSuffix("FAIL (the reason is on stderr)\n"), "\(run.stdout)")
    }
}
