import FxTestSupport
import Foundation
@testable import ReplayKitless
import Testing

/// Inputs and options someone else wrote (issue #24): a recording reaches nothing but itself
/// unless the operator allows it, options fail before any work, and file names cannot drive the
/// terminal.
@Suite struct HostileInputTests {
    /// A scratch directory with a 10-frame recording `in.mp4`.
    private func scratchWithRecording() throws -> URL {
        let dir = try makeScratchDirectory()
        try writeRecording(to: dir.appendingPathComponent("in.mp4").path, pts: (0..<10).map { Int64($0) * 3000 })
        return dir
    }

    @Test func anHLSPlaylistNamingALocalFileIsRefused() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try runFFmpegCLI(["-f", "lavfi", "-i", "testsrc=s=64x48:r=10:d=1", "-c:v", "mpeg2video", "-f", "mpegts",
                          dir.appendingPathComponent("segment.ts").path])
        let playlist = dir.appendingPathComponent("call.m3u8").path
        try "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\nsegment.ts\n#EXT-X-ENDLIST\n"
            .write(toFile: playlist, atomically: true, encoding: .utf8)
        for arguments in [["probe", playlist], ["render", playlist, "-o", dir.appendingPathComponent("out.mp4").path]] {
            let run = try runFxreplay(arguments)
            #expect(run.status == 3, "\(arguments[0]): \(run.stderr)")
            #expect(run.stderr.contains(playlist) && run.stderr.contains("demuxer hls") && run.stderr.contains("--allow-protocols hls"),
                    "\(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.mp4").path))
    }

    @Test func anFFconcatListIsRefusedUnlessAllowed() throws {
        let dir = try scratchWithRecording()
        defer { try? FileManager.default.removeItem(at: dir) }
        let list = dir.appendingPathComponent("call.txt").path
        try "ffconcat version 1.0\nfile in.mp4\nfile in.mp4\n".write(toFile: list, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("out.mp4").path
        let refused = try runFxreplay(["render", list, "-o", output, "--progress", "none"])
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(refused.stderr.contains(list) && refused.stderr.contains("demuxer concat") && refused.stderr.contains("--allow-protocols concat"),
                "\(refused.stderr)")
        let allowed = try runFxreplay(["render", list, "-o", output, "--progress", "none", "--allow-protocols", "concat"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try decodeFrames(output, measure: false).count == 20, "both entries of the list")
    }

    /// The format is probed on the same open the demuxer then reads: a recording arriving
    /// through a named pipe keeps its first bytes.
    @Test func aRecordingThroughANamedPipeIsReadWhole() throws {
        let dir = try scratchWithRecording()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pipe = dir.appendingPathComponent("live.mkv").path
        #expect(mkfifo(pipe, 0o644) == 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        writer.arguments = ["-v", "error", "-y", "-i", dir.appendingPathComponent("in.mp4").path, "-c", "copy", "-f", "matroska", pipe]
        try writer.run()
        let run = try runFxreplay(["framehash", pipe])
        writer.waitUntilExit()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 10)
    }

    /// A recording whose name looks like an image pattern is that one picture, not the sequence
    /// of other files the pattern would name.
    @Test func aPatternLikeRecordingNameReadsOnlyThatFile() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for index in 1...3 {
            try runFFmpegCLI(["-f", "lavfi", "-i", "color=c=gray:s=32x24", "-frames:v", "1", dir.appendingPathComponent("img\(index).png").path])
        }
        let recording = dir.appendingPathComponent("img%d.png").path
        try FileManager.default.copyItem(atPath: dir.appendingPathComponent("img1.png").path, toPath: recording)
        let run = try runFxreplay(["framehash", recording])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 1, "\(run.stdout)")
    }

    /// A job spec or manifest row cannot grant itself what the operator did not.
    @Test func aJobSpecCannotAllowProtocols() throws {
        let dir = try scratchWithRecording()
        defer { try? FileManager.default.removeItem(at: dir) }
        let job = dir.appendingPathComponent("job.yaml").path
        try "allow-protocols: concat\n".write(toFile: job, atomically: true, encoding: .utf8)
        let run = try runFxreplay(["render", "--job", job, dir.appendingPathComponent("in.mp4").path, "-o", dir.appendingPathComponent("out.mp4").path])
        #expect(run.status == 3 && run.stderr.contains(job) && run.stderr.contains("command line only"), "\(run.stderr)")
    }

    /// A batch passes its own --allow-protocols to every render; a manifest row cannot set one.
    @Test func aBatchAllowsWhatItsCommandLineAllows() throws {
        let dir = try scratchWithRecording()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "ffconcat version 1.0\nfile in.mp4\n".write(to: dir.appendingPathComponent("list.txt"), atomically: true, encoding: .utf8)
        let granting = dir.appendingPathComponent("granting.csv")
        try "input,output,allow-protocols\nlist.txt,list.mp4,concat\n".write(to: granting, atomically: true, encoding: .utf8)
        let (refusedRow, _) = try runBatch(["--manifest", granting.path], out: dir.appendingPathComponent("out1"))
        #expect(refusedRow.status == 3 && refusedRow.stderr.contains(granting.path + ":2") && refusedRow.stderr.contains("command line only"),
                "\(refusedRow.stderr)")
        let manifest = dir.appendingPathComponent("list.csv")
        try "input,output\nlist.txt,list.mp4\nin.mp4,in.mp4\n".write(to: manifest, atomically: true, encoding: .utf8)
        let (refused, refusedReport) = try runBatch(["--manifest", manifest.path], out: dir.appendingPathComponent("out2"))
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refusedReport?.recordings.map(\.status) == [.failed, .done])
        #expect(refusedReport?.recordings.first?.error?.contains("--allow-protocols concat") == true)
        let out = dir.appendingPathComponent("out3")
        let (allowed, allowedReport) = try runBatch(["--manifest", manifest.path, "--allow-protocols", "concat"], out: out)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowedReport?.recordings.map(\.status) == [.done, .done])
        #expect(try decodeFrames(out.appendingPathComponent("list.mp4").path, measure: false).count == 10)
    }

    @Test func aNetworkProtocolIsRefusedUnlessAllowed() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = "http://127.0.0.1:9/call.mp4"
        let run = try runFxreplay(["probe", url])
        #expect(run.status == 3 && run.stderr.contains(url) && run.stderr.contains("--allow-protocols http,tcp"), "\(run.stderr)")
    }

    /// A server that accepts the connection and never answers: the open gives up after --io-timeout.
    @Test func aSilentServerTimesOut() throws {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(server >= 0)
        defer { close(server) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(server, $0, length) == 0 && listen(server, 4) == 0 && getsockname(server, $0, &length) == 0 }
        }
        try #require(bound)
        let url = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/call.mp4"
        let started = Date()
        let run = try runFxreplay(["probe", url, "--allow-protocols", "http,tcp", "--io-timeout", "1"])
        #expect(run.status == 3, "\(run.stderr)")
        #expect(Date().timeIntervalSince(started) < 8, "gave up after about a second")
    }

    @Test(arguments: [
        (["--threads", "65", "--codec", "prores", "-o", "out.mov"], "prores encoder takes at most 64 threads"),
        (["--threads", "17", "--codec", "hevc"], "hevc encoder takes at most 16 threads"),
        (["--size", "16384x16384"], "larger than FFmpeg's pictures may be"),
        (["--size", "-640x480"], "must be positive"),
        (["--bitrate", "-5k"], "is not a bitrate"),
        (["--preview", "sheet.jpg"], "does not end in .png"),
        (["--sei-uuid", "not-a-uuid"], "is not a UUID"),
        (["--allow-protocols", "http;rm"], "is not a protocol or format name"),
        (["--io-timeout", "0"], "--io-timeout must be more than 0"),
    ])
    func aBadOptionIsBadUsageBeforeAnyWork(options: [String], complaint: String) throws {
        let dir = try scratchWithRecording()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try runFxreplay(["render", "in.mp4", "-o", "out.mp4", "--progress", "none"] + options, currentDirectory: dir)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains(complaint), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["in.mp4"])
    }

    /// A display matrix of 91° or 30° is no quarter turn: ffmpeg 5.1 turns such a picture with
    /// its `rotate` filter (same frame size, black corners; 91° is not within its 1° of 90°), where
    /// fxreplay snapped it to a quarter turn and so disagreed with `ffmpeg -f framemd5`. Such a
    /// file is refused; 1° ffmpeg leaves alone, and so does fxreplay, hash for hash.
    @Test(arguments: [91, 30])
    func aDisplayMatrixOfNoQuarterTurnIsRefused(degrees: Int) throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("turned.mp4").path
        try writeRecording(to: input, pts: (0..<3).map { Int64($0) * 3000 }, rotation: degrees)
        let reference = dir.appendingPathComponent("ffmpeg.framemd5").path
        try runFFmpegCLI(["-i", input, "-map", "0:v:0", "-fps_mode", "passthrough", "-enc_time_base", "-1", "-fflags", "+bitexact", "-f", "framemd5", reference])
        // ffmpeg kept the stored 160x96 frame size: it did not transpose.
        #expect(try String(contentsOfFile: reference, encoding: .utf8).contains("#dimensions 0: 160x96"))
        for arguments in [["framehash", input], ["render", input, "-o", dir.appendingPathComponent("out.mp4").path]] {
            let run = try runFxreplay(arguments)
            #expect(run.status == 3, "\(arguments[0]): \(run.stderr)")
            #expect(run.stderr.contains(input) && run.stderr.contains("not a quarter turn"), "\(run.stderr)")
        }
    }

    @Test func aOneDegreeDisplayMatrixHashesAsFFmpegShowsIt() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("turned.mp4").path
        try writeRecording(to: input, pts: (0..<3).map { Int64($0) * 3000 }, rotation: 1)
        let reference = dir.appendingPathComponent("ffmpeg.framemd5").path
        try runFFmpegCLI(["-i", input, "-map", "0:v:0", "-fps_mode", "passthrough", "-enc_time_base", "-1", "-fflags", "+bitexact", "-f", "framemd5", reference])
        let run = try runFxreplay(["framehash", input, "--check", reference])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    }

    /// A file name holding terminal escapes (clear screen, recolour, a carriage return that hides
    /// the start of the line) is printed with them written out.
    @Test func controlCharactersInFileNamesArePrintedEscaped() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = dir.appendingPathComponent("call\u{1B}[2J\u{1B}[31m\r\u{9B}1m.mp4").path
        let run = try runFxreplay(["render", name, "-o", dir.appendingPathComponent("out.mp4").path])
        #expect(run.status == 3)
        #expect(!run.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F..<0xA0).contains($0.value) }, "\(run.stderr.debugDescription)")
        #expect(run.stderr.contains("call\\u{1B}[2J\\u{1B}[31m\\r\\u{009B}1m.mp4"), "\(run.stderr)")
    }
}
