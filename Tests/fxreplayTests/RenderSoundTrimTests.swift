import Foundation
import FxTestSupport
@testable import ReplayKitless
import Testing

/// `ffprobe -v error` with `arguments`: its standard output, trimmed.
func ffprobe(_ arguments: [String]) throws -> String {
    let run = try QAFixtures.run("ffprobe", arguments)
    try #require(run.status == 0, "ffprobe \(arguments): \(run.log)")
    return String(decoding: run.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The codec names of the streams of `kind` (`a`, `v`) in `path`, as ffprobe reads them.
func probedCodecs(_ path: String, _ kind: String) throws -> [String] {
    try ffprobe(["-select_streams", kind, "-show_entries", "stream=codec_name", "-of", "csv=p=0", path])
        .split(separator: "\n").map(String.init)
}

/// Presentation times (seconds) of the video frames of `path`, as ffprobe decodes them.
func probedFrameTimes(_ path: String) throws -> [Double] {
    try ffprobe(["-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "default=nw=1:nk=1", path])
        .split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
}

@Suite struct RenderSoundTests {
    /// The beep's start minus the flash's, per flash, measured in `path` as in the sample itself.
    private func syncOffsets(_ path: String, square: [Int]) throws -> [Double] {
        let flashes = try flashFrames(path, square: square)
        let beeps = try beepOnsets(path)
        try #require(beeps.count == flashes.count && !beeps.isEmpty, "\(path): beeps at \(beeps), flashes at \(flashes.map(\.seconds))")
        return zip(beeps, flashes).map { $0 - $1.seconds }
    }

    /// An AAC recording rendered to .webm keeps its sound (as Opus: WebM cannot hold AAC), and an
    /// encoded sound keeps every beep at its flash: the offsets measured in the output are the
    /// source's own within 1 ms (so the codecs' priming cancels out), into WebM and into MP4.
    @Test func aacIntoWebMIsEncodedAsOpusInSync() throws {
        let sample = try GeneratedSample.get()
        let truth = try sample.truth()
        let source = sample.path("call.mp4")
        #expect(try probedCodecs(source, "a") == ["aac"])
        let sourceOffsets = try syncOffsets(source, square: truth.flashSquare)
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, extra, codec) in [("copy.webm", [String](), "opus"), ("encoded.mp4", ["--audio", "encode"], "aac"),
                                     ("opus.mkv", ["--audio", "encode", "--audio-codec", "opus", "--audio-bitrate", "96k"], "opus")] {
            let output = dir.appendingPathComponent(name).path
            let run = try runFxreplay(["render", source, "-o", output, "--progress", "none"] + extra)
            try #require(run.status == 0, "\(name): \(run.stderr)")
            #expect(try probedCodecs(output, "a") == [codec], "\(name)")
            let offsets = try syncOffsets(output, square: truth.flashSquare)
            try #require(offsets.count == sourceOffsets.count)
            for (out, original) in zip(offsets, sourceOffsets) {
                #expect(abs(out - original) <= 0.001, "\(name): beep − flash \(out) s, in the source \(original) s")
            }
        }
    }

    /// `--audio none` writes no audio stream; the default copy keeps AAC in MP4 untouched.
    @Test func audioNoneWritesNoSound() throws {
        let sample = try GeneratedSample.get()
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let silent = dir.appendingPathComponent("silent.mp4").path, copied = dir.appendingPathComponent("copied.mp4").path
        let run = try runFxreplay(["render", sample.path("call.mp4"), "-o", silent, "--audio", "none", "--progress", "none"])
        try #require(run.status == 0, "\(run.stderr)")
        #expect(try probedCodecs(silent, "a") == [])
        #expect(try probedCodecs(silent, "v") == ["h264"])
        let copy = try runFxreplay(["render", sample.path("call.mp4"), "-o", copied, "--progress", "none"])
        try #require(copy.status == 0, "\(copy.stderr)")
        #expect(try readPackets(copied, kind: .audio).map(\.bytes) == readPackets(sample.path("call.mp4"), kind: .audio).map(\.bytes))
    }

    /// `--audio-codec aac` into WebM cannot be written: bad usage naming the option.
    @Test func aacIntoWebMIsRefused() throws {
        let sample = try GeneratedSample.get()
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.webm").path
        let run = try runFxreplay(["render", sample.path("call.mp4"), "-o", output, "--audio-codec", "aac", "--progress", "none"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--audio-codec aac"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}

@Suite struct RenderTrimTests {
    /// `--from`/`--to` on a variable-rate input: the frames kept are those ffprobe shows on
    /// screen between the two times (the one showing at --from starts the output at 0), each
    /// later one at its own time less --from; the first picture is that frame's; the sound is
    /// cut to the sample (a tone that starts at 0.5 s starts at 0.5 − from).
    @Test func trimIsFrameAccurateOnVariableRateInput() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("vfr.mp4").path
        try writeRecording(to: input, pts: jitteredTimestamps(count: 40, start: 0.2, dropping: [12, 13, 20]), audioStart: 0.6,
                           audioSeconds: 0.6)
        let times = try probedFrameTimes(input)
        let first = try #require(times.first)
        let (from, to) = (0.35, 0.9)
        // Frame i is shown from times[i] to times[i + 1] (the last for a frame's length).
        let kept = times.indices.filter { i in
            let end = i + 1 < times.count ? times[i + 1] : times[i] + 1.0 / 30
            return times[i] < first + to && end > first + from
        }
        for (name, trimArguments) in [("cut.mp4", ["--from", "0.35", "--to", "0.9"]), ("cut.mkv", ["--from", "00:00:00.350", "--to", "0:00.900"])] {
            let output = dir.appendingPathComponent(name).path
            let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"] + trimArguments)
            try #require(run.status == 0, "\(name): \(run.stderr)")
            let outTimes = try probedFrameTimes(output)
            #expect(outTimes.count == kept.count, "\(name): \(outTimes.count) frames, ffprobe shows \(kept.count) in the cut")
            let expected = kept.map { max(times[$0] - first - from, 0) }
            for (got, want) in zip(outTimes, expected) { #expect(abs(got - want) <= 0.001, "\(name): frame at \(got) s, expected \(want) s") }
            // The first picture is the input's frame showing at --from (the pattern encodes the index).
            let reader = try VideoFrameReader(url: output)
            let frame = try #require(try reader.next())
            let image = try reader.image(of: frame)
            let psnr = patternPSNR(image, index: kept[0])
            #expect(psnr > 30, "\(name): first frame PSNR \(psnr) dB against input frame \(kept[0])")
            #expect(patternPSNR(image, index: kept[0] + 1) < psnr - 3)
            // The tone's start moves with the cut, to the sample's precision.
            let sourceOnset = try #require(try beepOnsets(input).first)
            let outputOnset = try #require(try beepOnsets(output).first)
            #expect(abs(outputOnset - (sourceOnset - first - from)) <= 0.001, "\(name): tone at \(outputOnset) s, source \(sourceOnset) s")
        }
    }

    /// Poses and annotations stay on the input's timeline: a trimmed render's frames are the
    /// untrimmed render's frames at the same input times, pixel for pixel (lossless FFV1), with
    /// the sample's moving annotations drawn in them.
    @Test func annotationsStayOnTheOriginalTimeline() throws {
        let sample = try GeneratedSample.get()
        try expectTrimmedFramesMatchTheWholeRender(of: sample.path("call.mp4"),
                                                   ["--poses-from-sei", "--annotations", sample.path("annotations.json")])
    }

    /// Masks too (formats.md §5: a mask video pairs by time, image N with frame N): the person
    /// cut out of the sample's moving background and put over a picture, from a mask video and
    /// from the same masks as numbered images, lands where the untrimmed render puts it.
    @Test(arguments: ["video", "images"]) func masksStayOnTheOriginalTimeline(source: String) throws {
        let sample = try GeneratedSample.get()
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var mask = sample.path("call.mask.mkv")
        if source == "images" {
            mask = dir.appendingPathComponent("mask_%05d.png").path
            try runFFmpegCLI(["-i", sample.path("call.mask.mkv"), "-fps_mode", "passthrough", "-start_number", "0", mask])
        }
        try expectTrimmedFramesMatchTheWholeRender(of: sample.path("call.mp4"),
                                                   ["--mask", mask, "--background", "image:" + sample.path("background.png")])
    }

    /// Renders `input` whole and from 1 s to 1.5 s with `options` to FFV1, and checks each frame of
    /// the cut against the whole render's frame shown at the same input time.
    private func expectTrimmedFramesMatchTheWholeRender(of input: String, _ options: [String]) throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let whole = dir.appendingPathComponent("whole.mkv").path, cut = dir.appendingPathComponent("cut.mkv").path
        let common = options + ["--codec", "ffv1", "--progress", "none"]
        let wholeRun = try runFxreplay(["render", input, "-o", whole] + common)
        try #require(wholeRun.status == 0, "\(wholeRun.stderr)")
        let cutRun = try runFxreplay(["render", input, "-o", cut, "--from", "1", "--to", "1.5"] + common)
        try #require(cutRun.status == 0, "\(cutRun.stderr)")
        let inputTimes = try probedFrameTimes(input)
        let first = try #require(inputTimes.first)
        let firstKept = try #require(inputTimes.indices.last { inputTimes[$0] <= first + 1 })
        let wholeReader = try VideoFrameReader(url: whole), cutReader = try VideoFrameReader(url: cut)
        var index = 0, compared = 0
        while let frame = try wholeReader.next() {
            defer { index += 1 }
            guard index >= firstKept else { continue }
            let wholeImage = try wholeReader.image(of: frame)
            guard let cutFrame = try cutReader.next() else { break }
            let cutImage = try cutReader.image(of: cutFrame)
            var differing = 0
            for y in 0..<wholeImage.height { for x in 0..<wholeImage.width where wholeImage.luma[x, y] != cutImage.luma[x, y] { differing += 1 } }
            #expect(differing == 0, "input frame \(index): \(differing) pixels differ from the untrimmed render's")
            compared += 1
        }
        #expect(compared >= 10)
    }
}
