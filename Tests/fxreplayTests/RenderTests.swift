import Foundation
@testable import ReplayKitless
import Testing

@Suite struct RenderTests {
    @Test func keepsEveryTimestampAudioAndContent() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mp4").path
        let output = dir.appendingPathComponent("out.mp4").path
        // 40 frames from 1.5 s with jitter, three dropped; audio starts 0.25 s after the video.
        let pts = jitteredTimestamps(count: 40, start: 1.5, dropping: [7, 8, 21])
        try writeRecording(to: input, pts: pts, audioStart: 1.75)
        let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")

        let source = try decodeFrames(input, measure: false)
        let rendered = try decodeFrames(output)
        #expect(source.count == pts.count)
        #expect(rendered.count == source.count)
        // Every presentation time kept exactly (compared as rationals: time bases may differ).
        for (a, b) in zip(source, rendered) {
            #expect(Int64(a.pts) * Int64(a.timeBase.numerator) * Int64(b.timeBase.denominator)
                    == Int64(b.pts) * Int64(b.timeBase.numerator) * Int64(a.timeBase.denominator))
        }
        #expect(abs((rendered.first?.seconds ?? 0) - 1.5) < 0.01)
        // Content preserved: each output frame matches the pattern of its own index.
        #expect(rendered.allSatisfy { $0.psnr > 30 }, "min PSNR \(rendered.map(\.psnr).min() ?? 0)")
        // Audio packets byte-identical with the same timestamps.
        let audioIn = try readPackets(input, kind: .audio)
        let audioOut = try readPackets(output, kind: .audio)
        #expect(!audioIn.isEmpty && audioIn.count == audioOut.count)
        for (a, b) in zip(audioIn, audioOut) {
            #expect(a.bytes == b.bytes)
            #expect(abs(a.pts - b.pts) < 1e-9)
        }
    }

    @Test func resolutionChangeMidStreamIsScaledToTheFirstSize() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.webm").path
        let output = dir.appendingPathComponent("out.mp4").path
        let pts = (0..<20).map { Int64($0) * 3000 }
        try writeRecording(to: input, pts: pts, sizes: [10: PictureSize(width: 320, height: 192)], codec: .vp8)
        let source = try decodeFrames(input, measure: false)
        #expect(source[9].width == 160 && source[10].width == 320, "fixture must change size")

        let reportPath = dir.appendingPathComponent("report.json").path
        let run = try runFxreplay(["render", input, "-o", output, "--progress", "none", "--report", reportPath])
        #expect(run.status == 0, "\(run.stderr)")
        let rendered = try decodeFrames(output)
        #expect(rendered.count == 20)
        #expect(rendered.allSatisfy { $0.width == 160 && $0.height == 96 })
        #expect(rendered.prefix(10).allSatisfy { $0.psnr > 30 })
        // After the change the picture was scaled down 2:1, so allow for resampling.
        #expect(rendered.suffix(10).allSatisfy { $0.psnr > 20 }, "\(rendered.map(\.psnr))")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
        #expect(report?["resolutionChanges"] as? Int == 1)
        #expect(report?["framesEncoded"] as? Int == 20)
        // The report's size is the new file's, also when it replaces an older one of another size.
        for crf in ["40", "10"] {
            let again = try runFxreplay(["render", input, "-o", output, "--progress", "none", "--crf", crf, "--overwrite", "--report", reportPath])
            #expect(again.status == 0, "\(again.stderr)")
            let bytes = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int
            let output = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
            #expect((output?["output"] as? [String: Any])?["bytes"] as? Int == bytes, "crf \(crf)")
        }
    }

    /// A stored picture with a white block in its top-left corner, shown rotated 90° clockwise.
    @Test func rotationIsAppliedToPixelsLikeFFmpegAutorotate() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("rotated.mp4").path
        try writeBlockRecording(to: input, rotation: 90)
        let output = dir.appendingPathComponent("upright.mp4").path
        let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        // Clockwise quarter turn: the stored top-left corner is shown top-right.
        let corner = try brightCorner(output)
        #expect(corner.size == PictureSize(width: 48, height: 64))
        #expect(corner.name == "top-right")
        // The ffmpeg CLI's own autorotation agrees.
        let reference = dir.appendingPathComponent("reference.mp4").path
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-v", "error", "-i", input, "-c:v", "libx264", "-preset", "ultrafast", reference]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        #expect(try brightCorner(reference).name == corner.name)

        let kept = dir.appendingPathComponent("kept.mp4").path
        #expect(try runFxreplay(["render", input, "-o", kept, "--keep-rotation", "--progress", "none"]).status == 0)
        let keptDemuxer = try Demuxer(url: kept)
        #expect(keptDemuxer.bestVideoStream?.rotation == 90)
        #expect(try brightCorner(kept).name == "top-left")
        // --size is in display orientation (48×64 shown): the kept, turned picture is stored 32×24.
        let keptSmaller = dir.appendingPathComponent("kept-smaller.mp4").path
        #expect(try runFxreplay(["render", input, "-o", keptSmaller, "--keep-rotation", "--size", "24x32", "--progress", "none"]).status == 0)
        #expect(try brightCorner(keptSmaller).size == PictureSize(width: 32, height: 24))
        // Matroska cannot store the rotation.
        let keptMKV = try runFxreplay(["render", input, "-o", dir.appendingPathComponent("kept.mkv").path, "--keep-rotation"])
        #expect(keptMKV.status == 2 && keptMKV.stderr.contains("cannot store the input's 90° rotation"), "\(keptMKV.stderr)")

        let mirrored = dir.appendingPathComponent("mirrored.mp4").path
        #expect(try runFxreplay(["render", input, "-o", mirrored, "--mirror", "--progress", "none"]).status == 0)
        #expect(try brightCorner(mirrored).name == "top-left")
    }

    /// A mirrored display matrix (a front camera's recording): --keep-rotation writes the stored
    /// picture with the whole matrix, mirroring included, so it is shown as the input is.
    @Test(arguments: [0, 90])
    func keepRotationKeepsAMirroredMatrix(rotation: Int) throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("mirrored.mp4").path, kept = dir.appendingPathComponent("kept.mp4").path
        try writeBlockRecording(to: input, rotation: rotation, mirrored: true)
        let run = try runFxreplay(["render", input, "-o", kept, "--keep-rotation", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let stream = try #require(try Demuxer(url: kept).bestVideoStream)
        #expect(stream.rotation == rotation && stream.mirrored)
        #expect(try brightCorner(kept).name == "top-left")
        // Shown the same way: turned upright (fxreplay's default, as ffmpeg's autorotate), both put the block in one corner.
        let shownInput = dir.appendingPathComponent("shown-input.mp4").path, shownKept = dir.appendingPathComponent("shown-kept.mp4").path
        #expect(try runFxreplay(["render", input, "-o", shownInput, "--progress", "none"]).status == 0)
        #expect(try runFxreplay(["render", kept, "-o", shownKept, "--progress", "none"]).status == 0)
        // (Turned clockwise, then mirrored: the stored top-left block ends top-right, or for 90° top-left.)
        #expect(try brightCorner(shownInput).name == (rotation == 0 ? "top-right" : "top-left"))
        #expect(try brightCorner(shownKept).name == brightCorner(shownInput).name)
        // The ffmpeg CLI's autorotation shows the input so too.
        let reference = dir.appendingPathComponent("reference.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-i", input, "-c:v", "libx264", "-preset", "ultrafast", reference]).status == 0)
        #expect(try brightCorner(reference).name == brightCorner(shownInput).name)
        let mkv = try runFxreplay(["render", input, "-o", dir.appendingPathComponent("kept.mkv").path, "--keep-rotation"])
        #expect(mkv.status == 2 && mkv.stderr.contains("mirroring"), "\(mkv.stderr)")
    }

    /// A cut made with `ffmpeg -ss 0.5 -c copy`: MP4 keeps half a second of packets before the cut,
    /// hidden by its edit list. Matroska has no edit list: the audio there must be left out, as the
    /// video frames are, or it plays half a second before the first picture.
    @Test func audioBeforeAnEditListsCutIsLeftOutOfMatroska() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("source.mp4").path, cut = dir.appendingPathComponent("cut.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25", "-f", "lavfi", "-i",
                                              "sine=frequency=440:sample_rate=48000", "-t", "2", "-g", "100", "-c:v", "libx264",
                                              "-c:a", "aac", source]).status == 0)
        #expect(try QAFixtures.run("ffmpeg", ["-ss", "0.5", "-i", source, "-c", "copy", cut]).status == 0)
        for name in ["out.mkv", "out.mp4"] {
            let output = dir.appendingPathComponent(name).path
            let run = try runFxreplay(["render", cut, "-o", output, "--progress", "none"])
            #expect(run.status == 0, "\(run.stderr)")
            // Each stream's first presented time, as ffprobe (any player) sees it.
            let starts = try ["v:0", "a:0"].map { selector in
                let probe = try QAFixtures.run("ffprobe", ["-v", "error", "-select_streams", selector, "-show_entries", "stream=start_time",
                                                           "-of", "csv=p=0", output])
                return try #require(Double(String(decoding: probe.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
            }
            // Within an AAC frame's priming (21 ms), not the 0.5 s cut.
            #expect(abs(starts[0] - starts[1]) < 0.03, "\(name): video starts at \(starts[0]) s, audio at \(starts[1]) s")
        }
    }

    @Test func deterministicRunsProduceIdenticalBytes() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mp4").path
        try writeRecording(to: input, pts: jitteredTimestamps(count: 30, start: 0), audioStart: 0)
        var outputs: [Data] = []
        for name in ["a.mp4", "b.mp4"] {
            let output = dir.appendingPathComponent(name).path
            let run = try runFxreplay(["render", input, "-o", output, "--deterministic", "--progress", "none"])
            #expect(run.status == 0, "\(run.stderr)")
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: output)))
        }
        #expect(outputs[0] == outputs[1] && !outputs[0].isEmpty)
    }

    /// MPEG-TS inputs into MP4: one whose clock wrapped (it starts before 0, where MP4's edit list
    /// hides frames from players) and one starting at an NTSC frame time (MP4's default 1/1000 s
    /// movie time scale rounded the start down by 0.7 ms). ffprobe, as any player, must count every
    /// frame, at its input time apart from one shift shared by all streams.
    @Test(arguments: [("wrapped.ts", ["-output_ts_offset", "95441"], "30"), ("ntsc.ts", [], "30000/1001")])
    func transportStreamsKeepEveryFrameAndStartInMP4(_ name: String, _ offset: [String], _ rate: String) throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent(name).path, output = dir.appendingPathComponent("out.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=\(rate)", "-f", "lavfi", "-i",
                                              "sine=frequency=440:sample_rate=48000", "-t", "2", "-c:v", "libx264", "-c:a", "aac"]
                                   + offset + [input]).status == 0)
        let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let source = try streams(input), rendered = try streams(output)
        let video = try #require(source["video"]), audio = try #require(source["audio"])
        #expect(video.frames == 60 && rendered["video"]?.frames == 60, "\(source) \(rendered)")
        #expect(rendered["audio"]?.frames == audio.frames, "\(source) \(rendered)")
        let offsetIn = video.start - audio.start, offsetOut = (rendered["video"]?.start ?? 0) - (rendered["audio"]?.start ?? 0)
        #expect(abs(offsetIn - offsetOut) < 2e-5, "A/V offset \(offsetIn) → \(offsetOut)")
        if video.start > 0 {
            #expect(abs((rendered["video"]?.start ?? 0) - video.start) < 2e-5, "start \(video.start) → \(String(describing: rendered["video"]))")
        } else {
            #expect(min(rendered["video"]?.start ?? -1, rendered["audio"]?.start ?? -1) == 0, "\(rendered)")
        }
    }

    /// MP4 and MOV into a named pipe, which cannot seek back to write the index at the start: written
    /// as fragmented MP4 (with a warning), every frame at its own time and the streams' starts kept,
    /// as in a file.
    @Test(arguments: ["mp4", "mov"])
    func mp4IntoAPipeIsFragmentedAndKeepsEveryTime(_ container: String) throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = repositoryRoot.appendingPathComponent("Samples/call.mp4").path
        let file = dir.appendingPathComponent("file.\(container)").path, pipe = dir.appendingPathComponent("pipe.\(container)").path
        let received = dir.appendingPathComponent("received.\(container)").path
        #expect(try runFxreplay(["render", input, "-o", file, "--progress", "none"]).status == 0)
        #expect(mkfifo(pipe, 0o644) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "cat \"$0\" > \"$1\"", pipe, received]
        try reader.run()
        let run = try runFxreplay(["render", input, "-o", pipe, "--progress", "none"])
        // (A render that never opened the pipe leaves the reader waiting for a writer.)
        let deadline = Date(timeIntervalSinceNow: 5)
        while reader.isRunning && Date() < deadline { usleep(20_000) }
        if reader.isRunning { reader.terminate() }
        reader.waitUntilExit()
        #expect(run.status == 0 && run.stderr.contains("cannot seek (a pipe): written as fragmented MP4"), "\(run.stderr)")
        let expected = try decodeFrames(file, measure: false), got = try decodeFrames(received, measure: false)
        #expect(got.count == 116 && got.map(\.seconds) == expected.map(\.seconds))
        let fromFile = try streams(file), fromPipe = try streams(received)
        #expect(fromPipe["video"]?.start == 1.0 && fromPipe["audio"]?.start == fromFile["audio"]?.start, "\(fromPipe) \(fromFile)")
        #expect(fromPipe["audio"]?.frames == fromFile["audio"]?.frames)
    }

    /// Two transport streams joined byte for byte, the second's clock 40 ms behind where the first
    /// one's audio ends: the audio packets that would step back are dropped with a warning (every
    /// container refuses them; the render used to fail, exit 4, blaming the output).
    @Test(arguments: ["mp4", "mkv"])
    func copiedPacketsWhoseClockStepsBackAreDropped(_ container: String) throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var joined = Data()
        for (index, offset) in ["0", "1.04"].enumerated() {
            let part = dir.appendingPathComponent("part\(index).ts").path
            #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=30", "-f", "lavfi", "-i", "sine=sample_rate=48000",
                                                  "-t", "1", "-c:v", "libx264", "-c:a", "aac", "-output_ts_offset", offset, part]).status == 0)
            joined += try Data(contentsOf: URL(fileURLWithPath: part))
        }
        let input = dir.appendingPathComponent("joined.ts").path, output = dir.appendingPathComponent("out.\(container)").path
        try joined.write(to: URL(fileURLWithPath: input))
        let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let audioIn = try readPackets(input, kind: .audio), audioOut = try readPackets(output, kind: .audio)
        // Those whose time is not after every earlier one's are the ones dropped.
        var latest = -Double.infinity
        let increasing = audioIn.filter { packet in
            defer { latest = max(latest, packet.pts) }
            return packet.pts > latest
        }
        #expect(increasing.count < audioIn.count && audioOut.count == increasing.count, "\(audioIn.count) → \(audioOut.count)")
        // The same audio (the muxer takes off the ADTS headers AAC has in a transport stream: 7 bytes).
        #expect(zip(increasing, audioOut).allSatisfy { $0.bytes.count == $1.bytes.count + 7 && Array($0.bytes.dropFirst(7)) == $1.bytes })
        #expect(run.stderr.contains("\(audioIn.count - increasing.count) copied packets (audio…) whose timestamps went back dropped"))
        #expect(try decodeFrames(output, measure: false).count == 60)
    }

    /// A font attached to a Matroska file (as subtitles need) and an MP4's cover picture are kept:
    /// the containers take them though their codec tables do not list them.
    @Test func attachmentsAndCoverPicturesAreCopied() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
        let attached = dir.appendingPathComponent("attached.mkv").path, cover = dir.appendingPathComponent("cover.png").path
        let covered = dir.appendingPathComponent("covered.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=10", "-t", "1", "-c:v", "libx264",
                                              "-attach", font, "-metadata:s:t", "mimetype=application/x-truetype-font", attached]).status == 0)
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=32x32", "-frames:v", "1", cover]).status == 0)
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=10", "-i", cover, "-t", "1", "-map", "0",
                                              "-map", "1", "-c:v:0", "libx264", "-c:v:1", "png", "-disposition:v:1", "attached_pic",
                                              covered]).status == 0)
        for (input, output) in [(attached, "attached-out.mkv"), (covered, "covered-out.mp4")] {
            let path = dir.appendingPathComponent(output).path
            let run = try runFxreplay(["render", input, "-o", path, "--progress", "none"])
            #expect(run.status == 0 && !run.stderr.contains("dropped"), "\(run.stderr)")
            let streams = try QAFixtures.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name:stream_tags=filename,mimetype:stream_disposition=attached_pic",
                                                         "-of", "csv=p=0", path])
            let listing = String(decoding: streams.stdout, as: UTF8.self)
            if input == attached {
                #expect(listing.contains("ttf,0,DejaVuSans.ttf,application/x-truetype-font"), "\(listing)")
                let source = try Demuxer(url: input), copy = try Demuxer(url: path)
                func fontBytes(_ demuxer: Demuxer) -> Data? {
                    demuxer.streams.first { $0.kind == .attachment }.map { info in
                        let parameters = demuxer.stream(info.index).pointee.codecpar.pointee
                        return Data(bytes: parameters.extradata, count: Int(parameters.extradata_size))
                    }
                }
                #expect(fontBytes(copy) != nil && fontBytes(copy) == fontBytes(source))
            } else {
                #expect(listing.contains("png,1"), "\(listing)")
            }
        }
    }

    @Test(arguments: ["mkv", "mov", "webm"])
    func otherContainersKeepFrameCount(_ container: String) throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mp4").path
        try writeRecording(to: input, pts: jitteredTimestamps(count: 15, start: 0.5), audioStart: 0.5)
        let output = dir.appendingPathComponent("out.\(container)").path
        let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let frames = try decodeFrames(output)
        #expect(frames.count == 15)
        #expect(frames.allSatisfy { $0.psnr > 28 })
        if container == "webm" {
            // WebM cannot carry AAC: dropped with a warning.
            #expect(run.stderr.contains("warning") && run.stderr.contains("aac"))
        } else {
            #expect(try readPackets(output, kind: .audio).count == (try readPackets(input, kind: .audio)).count)
        }
    }
}

/// Writes a short recording whose stored picture is black with a white 16×16 block top-left.
func writeBlockRecording(to path: String, rotation: Int, mirrored: Bool = false) throws {
    var settings = EncoderSettings()
    settings.preset = "ultrafast"
    let writer = try MediaWriter(path: path, video: .init(size: PictureSize(width: 64, height: 48), timeBase: Rational(1, 30),
                                                          encoder: settings, rotation: rotation, mirrored: mirrored))
    for index in 0..<3 {
        try writer.addVideoFrame(pts: Int64(index), duration: 1) { image in
            image.fill(YUVColor(y: 16, cb: 128, cr: 128))
            for y in 0..<16 { for x in 0..<16 { image.luma[x, y] = 235 } }
        }
    }
    try writer.finish()
}

/// Which corner of the first decoded frame is bright, and the frame's size.
func brightCorner(_ path: String) throws -> (name: String, size: PictureSize) {
    let reader = try VideoFrameReader(url: path)
    guard let frame = try reader.next(), let image = frame.yuvImage else { return ("none", PictureSize(width: 0, height: 0)) }
    let w = image.width, h = image.height
    let corners = [("top-left", 4, 4), ("top-right", w - 5, 4), ("bottom-left", 4, h - 5), ("bottom-right", w - 5, h - 5)]
    let bright = corners.filter { image.luma[$0.1, $0.2] > 128 }.map(\.0)
    return (bright.count == 1 ? bright[0] : "ambiguous \(bright)", PictureSize(width: w, height: h))
}

@Suite struct CodecTests {
    /// Values a codec refuses are usage errors before anything is encoded; settings it ignores are warned about.
    @Test func encoderSettingsAreCheckedAgainstTheCodec() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mp4").path
        try writeRecording(to: input, pts: (0..<3).map { Int64($0) * 3000 })
        for (flags, message) in [(["--preset", "bogus"], "--preset bogus: h264 takes ultrafast"),
                                 (["--codec", "hevc", "--crf", "52"], "--crf 52: hevc takes 0 to 51"),
                                 (["--codec", "prores", "--preset", "bogus"], "--preset bogus: prores takes the profiles proxy")] {
            let output = dir.appendingPathComponent("out.\(flags.contains("prores") ? "mov" : "mp4")").path
            let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"] + flags)
            #expect(run.status == 2 && run.stderr.contains(message), "\(flags): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        let lossless = try runFxreplay(["render", input, "-o", dir.appendingPathComponent("out.mkv").path, "--codec", "ffv1", "--crf", "10",
                                        "--progress", "none"])
        #expect(lossless.status == 0 && lossless.stderr.contains("warning: ffv1 is lossless"), "\(lossless.stderr)")
    }

    /// The file's metadata is copied, and Matroska marks its tracks default (it wrote every one not default).
    @Test func metadataAndDefaultTracksAreKept() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("titled.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=0.3", "-f", "lavfi", "-i",
                                              "sine=duration=0.3", "-metadata", "title=My call", "-c:v", "libx264", "-c:a", "aac", input]).status == 0)
        let output = dir.appendingPathComponent("out.mkv").path
        #expect(try runFxreplay(["render", input, "-o", output, "--progress", "none"]).status == 0)
        let probe = try QAFixtures.run("ffprobe", ["-v", "error", "-show_entries", "format_tags=title:stream=codec_type:stream_disposition=default",
                                                   "-of", "compact", output])
        let text = String(decoding: probe.stdout, as: UTF8.self)
        #expect(text.contains("tag:title=My call"), "\(text)")
        #expect(text.contains("codec_type=video|disposition:default=1") && text.contains("codec_type=audio|disposition:default=1"), "\(text)")
    }

    /// Stream tags are kept as ffmpeg keeps them (the audio's handler name here), and so is a QuickTime
    /// timecode track's start: MP4/MOV get a new timecode track, Matroska a TIMECODE tag. The
    /// track itself (no codec to copy) is not reported as dropped.
    @Test(arguments: [("mov", "timecode"), ("mp4", "timecode"), ("mkv", "TIMECODE")])
    func timecodeAndStreamTagsAreKept(_ container: String, _ key: String) throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("camera.mov").path, output = dir.appendingPathComponent("out.\(container)").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25:duration=0.4", "-f", "lavfi", "-i",
                                              "sine=duration=0.4", "-c:v", "libx264", "-c:a", "aac", "-timecode", "01:02:03:04",
                                              "-metadata:s:a:0", "handler_name=Boom mic", input]).status == 0)
        let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"])
        #expect(run.status == 0 && !run.stderr.contains("dropped"), "\(run.stderr)")
        let probe = try QAFixtures.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_tag_string:stream_tags",
                                                   "-of", "compact", output])
        let lines = String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines.contains { $0.contains("codec_type=video") && $0.contains("tag:\(key)=01:02:03:04") }, "\(lines)")
        #expect(lines.contains { $0.contains("codec_type=audio") && $0.lowercased().contains("tag:handler_name=boom mic") }, "\(lines)")
        if container != "mkv" {
            #expect(lines.contains { $0.contains("codec_type=data") && $0.contains("tmcd") && $0.contains("tag:timecode=01:02:03:04") }, "\(lines)")
        }
    }

    /// Pictures deeper or fuller than 8-bit 4:2:0 are processed as such, and the render says so.
    @Test func deeperPicturesAreWarnedAbout() throws {
        let dir = try makeScratchDirectory()
        for format in ["yuv444p", "yuv420p10le", "yuv420p"] {
            let input = dir.appendingPathComponent("\(format).mkv").path
            #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=0.2", "-pix_fmt", format,
                                                  "-c:v", "ffv1", input]).status == 0)
            let run = try runFxreplay(["render", input, "-o", dir.appendingPathComponent("\(format)-out.mkv").path, "--progress", "none"])
            let warned = run.stderr.contains("warning: the input's \(format) pictures are processed as 8-bit 4:2:0")
            #expect(run.status == 0 && warned == (format != "yuv420p"), "\(format): \(run.stderr)")
        }
    }

    @Test func oddSizesAreRoundedAndSaidSo() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("odd.mkv").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=66x50:rate=10:duration=0.2", "-vf", "scale=65:49", "-pix_fmt", "yuv444p", "-c:v", "ffv1", input]).status == 0)
        let output = dir.appendingPathComponent("out.mkv").path
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "ffv1", "--progress", "none"])
        #expect(run.status == 0 && run.stderr.contains("warning: 65x49 is rounded to 64x48"), "\(run.stderr)")
        #expect(try brightCorner(output).size == PictureSize(width: 64, height: 48))
        let asked = try runFxreplay(["render", input, "-o", output, "--size", "99x75", "--overwrite", "--progress", "none"])
        #expect(asked.status == 0 && asked.stderr.contains("warning: 99x75 is rounded to 98x74"), "\(asked.stderr)")
    }

    /// ProRes is video range only: a full-range input is converted (and tagged) so, not copied as is.
    @Test func fullRangeInputToProResKeepsItsColours() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("full.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "color=c=0x3070C8:s=64x48:r=10:d=0.3", "-vf", "scale=out_range=full",
                                              "-c:v", "libx264", "-pix_fmt", "yuvj420p", "-crf", "0", input]).status == 0)
        let output = dir.appendingPathComponent("out.mov").path
        let run = try runFxreplay(["render", input, "-o", output, "--codec", "prores", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        func rgb(_ path: String) throws -> [Int] {
            let decoded = try QAFixtures.run("ffmpeg", ["-v", "error", "-i", path, "-frames:v", "1", "-vf", "format=rgb24", "-f", "rawvideo", "-"])
            return Array(decoded.stdout.prefix(3)).map(Int.init)
        }
        let source = try rgb(input), rendered = try rgb(output)
        #expect(abs(source[0] - 0x30) <= 2 && abs(source[1] - 0x70) <= 2 && abs(source[2] - 0xC8) <= 2, "\(source)")
        #expect(zip(source, rendered).allSatisfy { abs($0 - $1) <= 3 }, "\(source) → \(rendered)")
        let probe = try QAFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=color_range", "-of", "csv=p=0", output])
        #expect(String(decoding: probe.stdout, as: UTF8.self).hasPrefix("tv"))
    }

    /// Non-square pixels keep their shape: 120×90 at 4:3 is shown 160×90, and so is the output,
    /// also when scaled to 60×90 (8:3). FFV1 keeps the ratio in its frame headers, where framehash
    /// reads it as ffmpeg does.
    @Test func sampleAspectRatioIsKept() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("anamorphic.mp4").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=120x90:rate=10:duration=0.3", "-vf", "setsar=4/3",
                                              "-c:v", "libx264", input]).status == 0)
        func sar(_ path: String) throws -> String {
            let probe = try QAFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                       "stream=width,height,sample_aspect_ratio", "-of", "csv=p=0", path])
            return String(decoding: probe.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try sar(input) == "120,90,4:3")
        for (name, extra, expected) in [("out.mp4", [String](), "120,90,4:3"), ("out.mkv", ["--codec", "ffv1"], "120,90,4:3"),
                                        ("narrow.mp4", ["--size", "60x90"], "60,90,8:3")] {
            let output = dir.appendingPathComponent(name).path
            let run = try runFxreplay(["render", input, "-o", output, "--progress", "none"] + extra)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try sar(output) == expected, "\(name)")
        }
        let listing = try QAFixtures.run("ffmpeg", ["-i", dir.appendingPathComponent("out.mkv").path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                                    "-enc_time_base", "-1", "-fflags", "+bitexact", "-f", "framemd5", "-"])
        let framehash = try runFxreplay(["framehash", dir.appendingPathComponent("out.mkv").path])
        #expect(framehash.stdout == String(decoding: listing.stdout, as: UTF8.self) && framehash.stdout.contains("#sar 0: 4/3"))
    }

    /// MOV's codec tables list VP9 and Opus, which only its MP4 mode takes: the codec is a usage error
    /// up front and the audio is dropped with a warning, instead of a header that fails at the end.
    @Test func containersRefuseWhatTheirMuxerRefuses() throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("opus.mkv").path
        #expect(try QAFixtures.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=0.5", "-f", "lavfi",
                                              "-i", "sine=duration=0.5:sample_rate=48000", "-c:v", "libx264", "-c:a", "libopus", input]).status == 0)
        for (codec, container, status) in [("vp9", "mov", 2), ("vp8", "mp4", 2), ("ffv1", "mov", 2), ("h264", "webm", 2), ("prores", "mkv", 0)] {
            let output = dir.appendingPathComponent("out-\(codec).\(container)").path
            let run = try runFxreplay(["render", input, "-o", output, "--codec", codec, "--progress", "none"])
            #expect(run.status == Int32(status), "\(codec) in .\(container): \(run.stderr)")
            #expect(status == 2 ? run.stderr.contains("cannot hold \(codec) video") : FileManager.default.fileExists(atPath: output))
        }
        // AVI would re-time a variable frame rate; MPEG-TS is not written either.
        for name in ["out.avi", "out.ts", "out.txt"] {
            let run = try runFxreplay(["render", input, "-o", dir.appendingPathComponent(name).path, "--progress", "none"])
            #expect(run.status == 2 && run.stderr.contains("unsupported output format (use .mp4, .mov, .mkv or .webm)"), "\(name): \(run.stderr)")
        }
        let mov = dir.appendingPathComponent("out.mov").path
        let run = try runFxreplay(["render", input, "-o", mov, "--progress", "none"])
        // MOV cannot hold Opus: the sound is encoded as AAC instead (#26), with a warning saying so.
        #expect(run.status == 0 && run.stderr.contains("warning: the input's opus sound is encoded as aac: a .mov file cannot hold opus"), "\(run.stderr)")
        #expect(try probedCodecs(mov, "a") == ["aac"] && (try decodeFrames(mov)).count == 5)
    }

    @Test(arguments: [("hevc", "mp4", "hevc"), ("prores", "mov", "prores"), ("ffv1", "mkv", "ffv1"), ("vp9", "webm", "vp9")])
    func encodesWithEachCodec(codec: String, container: String, decoderName: String) throws {
        let dir = try makeScratchDirectory()
        let input = dir.appendingPathComponent("in.mp4").path
        try writeRecording(to: input, pts: jitteredTimestamps(count: 10, start: 0.2))
        let output = dir.appendingPathComponent("out.\(container)").path
        let run = try runFxreplay(["render", input, "-o", output, "--codec", codec, "--preset", codec == "prores" ? "standard" : "ultrafast", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let demuxer = try Demuxer(url: output)
        #expect(demuxer.bestVideoStream?.codecName == decoderName)
        if codec == "hevc" {
            // Apple's players take HEVC in MP4 only tagged 'hvc1'.
            let probe = try QAFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_tag_string",
                                                       "-of", "csv=p=0", output])
            #expect(String(decoding: probe.stdout, as: UTF8.self).hasPrefix("hvc1"))
        }
        let frames = try decodeFrames(output)
        #expect(frames.count == 10)
        #expect(frames.allSatisfy { $0.psnr > 28 }, "\(frames.map(\.psnr))")
    }
}

/// Per stream kind, as ffprobe sees the file: frames decoded (edit lists applied) and the first packet's time.
func streams(_ path: String) throws -> [String: (frames: Int, start: Double)] {
    let probe = try QAFixtures.run("ffprobe", ["-v", "error", "-count_frames", "-show_entries",
                                               "stream=codec_type,nb_read_frames,start_time", "-of", "csv=p=0", path])
    var result: [String: (Int, Double)] = [:]
    for line in String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n") {
        let fields = line.split(separator: ",").map(String.init)
        if fields.count == 3, let start = Double(fields[1]), let frames = Int(fields[2]) { result[fields[0]] = (frames, start) }
    }
    return result
}
