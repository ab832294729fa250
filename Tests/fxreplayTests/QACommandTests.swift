import Foundation
import ReplayKitless
import Testing

/// Runs the real `ffmpeg` CLI; returns its exit status and log.
private func ffmpegCLI(_ arguments: [String]) throws -> (status: Int32, log: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = ["-hide_banner", "-nostdin", "-nostats", "-y"] + arguments
    let err = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = err
    try process.run()
    let data = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// FFmpeg's closing PSNR and SSIM lines for A against B (both autorotated, as ffmpeg does).
private func ffmpegQualityLines(_ a: String, _ b: String) throws -> [String] {
    let run = try ffmpegCLI(["-filter_threads", "1", "-i", a, "-i", b, "-lavfi", "[0:v][1:v]psnr;[0:v][1:v]ssim", "-f", "null", "-"])
    return run.log.split(separator: "\n").compactMap { line in
        (line.range(of: "PSNR y:") ?? line.range(of: "SSIM Y:")).map { String(line[$0.lowerBound...]) }
    }
}

@Suite struct QACommandTests {
    @Test func compareMatchesFFmpegAndAppliesThresholds() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let reference = dir.appendingPathComponent("ref.mp4").path, worse = dir.appendingPathComponent("worse.mp4").path
        #expect(try ffmpegCLI(["-f", "lavfi", "-i", "testsrc=size=96x64:rate=25", "-frames:v", "8", "-pix_fmt", "yuv420p",
                               "-c:v", "libx264", "-qp", "0", reference]).status == 0)
        #expect(try ffmpegCLI(["-i", reference, "-c:v", "libx264", "-crf", "38", worse]).status == 0)

        let run = try runFxreplay(["compare", worse, reference])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(worse) vs \(reference): 8 frames compared")
        #expect(Array(lines.dropFirst()) == (try ffmpegQualityLines(worse, reference)))

        let json = dir.appendingPathComponent("q.json").path
        let strict = try runFxreplay(["compare", worse, reference, "--min-psnr", "60", "--min-ssim", "0.5", "--json", json])
        #expect(strict.status == 1 && strict.stderr.contains("PSNR") && !strict.stderr.contains("SSIM"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        #expect((object["frames"] as? [Any])?.count == 8 && object["framesA"] as? Int == 8)
        #expect(try runFxreplay(["compare", reference, reference, "--min-psnr", "99", "--min-ssim", "1"]).status == 0)

        let shorter = dir.appendingPathComponent("short.mp4").path
        #expect(try ffmpegCLI(["-i", reference, "-frames:v", "5", "-c:v", "libx264", "-qp", "0", shorter]).status == 0)
        let mismatch = try runFxreplay(["compare", shorter, reference])
        #expect(mismatch.status == 1 && mismatch.stderr.contains("frame counts differ"))
        #expect(mismatch.stdout.hasPrefix("\(shorter) vs \(reference): 5 frames compared (\(shorter) has 5, \(reference) has 8)"))
    }

    @Test func compareTurnsRotatedVideoUpright() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plain = dir.appendingPathComponent("plain.mp4").path, rotated = dir.appendingPathComponent("rotated.mp4").path
        let upright = dir.appendingPathComponent("upright.mp4").path
        #expect(try ffmpegCLI(["-f", "lavfi", "-i", "testsrc=size=80x64:rate=25", "-frames:v", "4", "-pix_fmt", "yuv420p",
                               "-c:v", "libx264", plain]).status == 0)
        #expect(try ffmpegCLI(["-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated]).status == 0)
        // ffmpeg turns the rotated input upright while re-encoding it (lossy, so the two differ a little).
        #expect(try ffmpegCLI(["-i", rotated, "-c:v", "libx264", "-crf", "30", upright]).status == 0)
        let run = try runFxreplay(["compare", rotated, upright])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Array(run.stdout.split(separator: "\n").map(String.init).dropFirst()) == (try ffmpegQualityLines(rotated, upright)))
    }

    @Test func framehashPrintsFFmpegLinesAndChecksGolden() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.appendingPathComponent("clip.mp4").path, golden = dir.appendingPathComponent("golden.framemd5").path
        #expect(try ffmpegCLI(["-f", "lavfi", "-i", "testsrc=size=48x32:rate=30", "-frames:v", "5", "-pix_fmt", "yuv420p",
                               "-c:v", "libx264", video]).status == 0)
        #expect(try ffmpegCLI(["-i", video, "-map", "0:v:0", "-fps_mode", "passthrough", "-enc_time_base", "-1",
                               "-fflags", "+bitexact", "-f", "framemd5", golden]).status == 0)
        let expected = try String(contentsOfFile: golden, encoding: .utf8)

        let run = try runFxreplay(["framehash", video])
        #expect(run.status == 0)
        #expect(run.stdout == expected)
        #expect(try runFxreplay(["framehash", video, "--check", golden]).status == 0)

        // Frame 3's hash changed: exit 1 naming frame 3.
        var lines = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let index = try #require(lines.indices.filter { !lines[$0].hasPrefix("#") && !lines[$0].isEmpty }.dropFirst(3).first)
        lines[index] = String(lines[index].dropLast(4)) + "0000"
        let broken = dir.appendingPathComponent("broken.framemd5").path
        try lines.joined(separator: "\n").write(toFile: broken, atomically: true, encoding: .utf8)
        let failed = try runFxreplay(["framehash", video, "--check", broken])
        #expect(failed.status == 1 && failed.stderr.contains("frame 3"))
        #expect(try runFxreplay(["framehash", video, "--check", dir.appendingPathComponent("missing").path]).status == 3)
    }

    @Test func qaCompareExitCodesAndReports() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var a = "frame,t,id,visible,x,y,depth\n", b = a
        for frame in 0..<20 {
            let t = Double(frame) / 30
            a += "\(frame),\(t),valve,1,100,100,2\n\(frame),\(t),pin,1,10,10,2\n"
            b += "\(frame),\(t),valve,1,103,104,2\n\(frame),\(t),pin,1,10.5,10,2\n"
        }
        let fileA = dir.appendingPathComponent("a.csv").path, fileB = dir.appendingPathComponent("b.csv").path
        try a.write(toFile: fileA, atomically: true, encoding: .utf8)
        try b.write(toFile: fileB, atomically: true, encoding: .utf8)

        let passing = try runFxreplay(["qa", "compare", fileA, fileB, "--tolerance", "5"])
        #expect(passing.status == 0 && passing.stdout.contains("PASS"))
        let json = dir.appendingPathComponent("r.json").path, svg = dir.appendingPathComponent("r.svg").path
        let html = dir.appendingPathComponent("r.html").path
        let failing = try runFxreplay(["qa", "compare", fileA, fileB, "--json", json, "--svg", svg, "--html", html,
                                       "--thumbnail", "valve=\(dir.path)/valve.png"])
        #expect(failing.status == 1 && failing.stderr.contains("valve") && !failing.stderr.contains("pin"))
        let report = try QAOutput.decode(TrackComparisonReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        #expect(report.failingIDs == ["valve"] && report.annotations.first?.error?.p95 == 5)
        #expect(FileManager.default.fileExists(atPath: svg))
        #expect(try String(contentsOfFile: html, encoding: .utf8).contains("src=\"valve.png\""))

        try (a + "20,0.7,valve,yes,1,1,2\n").write(toFile: fileA, atomically: true, encoding: .utf8)
        let malformed = try runFxreplay(["qa", "compare", fileA, fileB])
        #expect(malformed.status == 3 && malformed.stderr.contains("\(fileA):42 (visible)"))
        #expect(try runFxreplay(["qa", "compare", fileA, fileB, "--match", "sometimes"]).status == 2)
    }
}
