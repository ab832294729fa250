import Foundation
@testable import ReplayKitless
import Testing

/// Little-endian float32 values of a file, in order.
func float32Values(_ path: String) throws -> [Float] {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    return stride(from: 0, to: bytes.count - 3, by: 4).map { i in
        Float(bitPattern: UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24)
    }
}

@Suite struct SampleTests {
    @Test func sameSettingsGiveTheSameBytesAndTheSeedChangesThem() throws {
        let base = try makeScratchDirectory()
        func generate(_ name: String, seed: Int) throws -> String {
            let directory = base.appendingPathComponent(name).path
            let run = try runFxreplay(["sample", "-o", directory, "--seconds", "1", "--size", "128x72", "--seed", String(seed)])
            #expect(run.status == 0, "\(run.stderr)")
            return directory
        }
        let a = try generate("a", seed: 3), b = try generate("b", seed: 3), c = try generate("c", seed: 4)
        func contents(_ directory: String, _ name: String) throws -> String {
            // job.yaml and scene.json name their own directory; everything else must match byte for byte.
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)), as: UTF8.self)
                .replacingOccurrences(of: directory, with: "DIR")
        }
        for name in ["call.mp4", "call.poses.jsonl", "call.poses.csv", "call.poses.pose32", "call.mask.mkv",
                     "background.png", "annotations.json", "job.yaml", "scene.json",
                     "call-archive.zip", "call-archive.poses.jsonl", "call-archive.job.yaml"] {
            #expect(try contents(a, name) == contents(b, name), "\(name) differs between two runs with the same seed")
        }
        for name in ["call.mp4", "call.poses.pose32", "call.mask.mkv", "call-archive.zip", "call-archive.poses.jsonl"] {
            #expect(try contents(a, name) != contents(c, name), "\(name) does not depend on the seed")
        }
        #expect(try contents(a, "background.png") == contents(c, "background.png"))
    }

    @Test func refusesToOverwriteAndBadSettings() throws {
        let sample = try GeneratedSample.get()
        let before = try Data(contentsOf: URL(fileURLWithPath: sample.path("call.mp4")))
        let again = try runFxreplay(["sample", "-o", sample.directory, "--seconds", "1"])
        #expect(again.status == 2 && again.stderr.contains("--overwrite"), "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sample.path("call.mp4"))) == before)
        let dir = try makeScratchDirectory().path
        for arguments in [["--size", "63x64"], ["--size", "64x65"], ["--seconds", "0.5"], ["--seconds", "nan"], ["--seed", "-1"]] {
            let run = try runFxreplay(["sample", "-o", dir] + arguments)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        // A file where the directory should be is bad usage, and stays as it was.
        let file = (dir as NSString).appendingPathComponent("notes.txt")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: file))
        let onFile = try runFxreplay(["sample", "-o", file])
        #expect(onFile.status == 2 && onFile.stderr.contains("is a file"), "\(onFile.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("keep".utf8))
    }

    /// The sample's files appear together: when the last one cannot be written (here a directory
    /// stands in its way), none of the others is left behind either.
    @Test func aFailureAtTheLastFileLeavesNoneOfTheOthers() throws {
        let dir = try makeScratchDirectory()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("scene.json"), withIntermediateDirectories: false)
        let run = try runFxreplay(["sample", "-o", dir.path, "--seconds", "1", "--size", "128x72", "--overwrite"])
        #expect(run.status == 2 && run.stderr.contains("scene.json: is a directory"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["scene.json"])
    }

    /// Timing as the truth says: first frame at 1.0 s, whole milliseconds, jitter, and a gap of
    /// about two frame intervals at each dropped frame; the audio starts with the first frame.
    @Test func callHasVariableTimingWithDropsAndAStartTime() throws {
        let sample = try GeneratedSample.get()
        let truth = try sample.truth()
        let frames = try decodeFrames(sample.path("call.mp4"), measure: false)
        #expect(frames.count == truth.frames)
        #expect(frames.first?.seconds == 1.0)
        #expect(frames.allSatisfy { $0.pts % 90 == 0 && $0.timeBase == Rational(1, 90000) }, "times are whole milliseconds")
        let intervals = zip(frames.dropFirst(), frames).map { $0.seconds - $1.seconds }
        #expect(intervals.filter { $0 > 0.05 }.count == truth.droppedSlots.count)
        #expect(Set(intervals.map { ($0 * 1000).rounded() }).count > 5, "jittered, not a constant rate")
        let audio = try AudioReader(url: sample.path("call.mp4"))
        // AAC's 1024 samples of encoder priming come first, and the sound starts at most 1 ms
        // before the first frame so that they fall on a whole millisecond (MP4 edit lists count those).
        let first = try #require(try audio.next()).seconds + 1024.0 / 48000
        #expect(first <= 1.0 && first > 0.999, "sound starts at \(first) s")
    }

    /// The poses in the SEI, the pose32 sidecar, the JSON Lines and the CSV are the same values,
    /// one per frame at that frame's time.
    @Test func posesAgreeAcrossSEIAndSidecars() throws {
        let sample = try GeneratedSample.get()
        let truth = try sample.truth()
        let extracted = try makeScratchDirectory().appendingPathComponent("sei.pose32").path
        let run = try runFxreplay(["poses", "extract", sample.path("call.mp4"), "-o", extracted])
        try #require(run.status == 0, "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: extracted)) == Data(contentsOf: URL(fileURLWithPath: sample.path("call.poses.pose32"))))

        let records = try float32Values(sample.path("call.poses.pose32"))
        #expect(records.count == truth.frames * 8)
        let frameTimes = try decodeFrames(sample.path("call.mp4"), measure: false).map { $0.seconds - truth.firstFrameTime }
        let cameras = try sample.cameras()
        let csvLines = try String(contentsOfFile: sample.path("call.poses.csv"), encoding: .utf8).split(separator: "\n")
        let header = csvLines[0].split(separator: ",").map(String.init)
        #expect(cameras.count == truth.frames && csvLines.count == truth.frames + 1)
        for (index, camera) in cameras.enumerated() {
            let record = Array(records[index * 8..<index * 8 + 8])
            #expect(abs(camera.t - frameTimes[index]) < 1e-9, "pose \(index) at t = \(camera.t), frame at \(frameTimes[index])")
            let cells = Dictionary(uniqueKeysWithValues: zip(header, csvLines[index + 1].split(separator: ",").map { Double($0)! }))
            let csv = ["px", "py", "pz", "pitch", "yaw", "roll", "znear", "fovy"].map { Float(cells[$0]!) }
            let jsonl = (camera.position + camera.euler + [camera.zNear, camera.fovY]).map(Float.init)
            #expect(csv == record && jsonl == record, "pose \(index): pose32 \(record), CSV \(csv), JSON Lines \(jsonl)")
            #expect(cells["t"] == camera.t)
        }
    }

    /// The flash square and the beep start together in the generated call itself.
    @Test func flashAndBeepStartTogether() throws {
        let sample = try GeneratedSample.get()
        let truth = try sample.truth()
        let flashes = try flashFrames(sample.path("call.mp4"), square: truth.flashSquare)
        #expect(flashes.map(\.index) == truth.flashes.map(\.frame))
        #expect(flashes.map(\.seconds) == truth.flashes.map(\.streamTime))
        let beeps = try beepOnsets(sample.path("call.mp4"))
        #expect(beeps.count == flashes.count)
        for (flash, beep) in zip(flashes, beeps) { #expect(abs(beep - flash.seconds) <= 0.001, "flash \(flash.seconds) s, beep \(beep) s") }
    }

    /// The mask video is lossless full-range grey paired frame for frame with the call: 255 on the
    /// person (whose colours the call shows there) and on the flash square, 0 elsewhere, and a
    /// soft edge only a few pixels wide.
    @Test func maskIsPairedExactAndSoftEdged() throws {
        let sample = try GeneratedSample.get()
        let truth = try sample.truth()
        let video = try VideoFrameReader(url: sample.path("call.mp4")), masks = try VideoFrameReader(url: sample.path("call.mask.mkv"))
        // The person's colours (shirt, neck, hair, face) as BT.601 limited-range luma.
        func luma(_ red: Double, _ green: Double, _ blue: Double) -> Double {
            16 + 219 * (0.299 * red + 0.587 * green + 0.114 * blue) / 255
        }
        let personLuma = [luma(38, 96, 112), luma(198, 146, 116), luma(58, 40, 30), luma(226, 174, 142)]
        let square = truth.flashSquare
        var index = 0, interior = 0, interiorMatching = 0
        while let frame = try video.next() {
            let maskFrame = try #require(try masks.next(), "mask \(index) missing")
            #expect(masks.stream.timeBase.seconds(maskFrame.pts) == video.stream.timeBase.seconds(frame.pts), "mask \(index) time")
            #expect(maskFrame.colorSpace.fullRange, "mask \(index) is not tagged full range")
            let mask = try masks.image(of: maskFrame), picture = try video.image(of: frame)
            #expect(mask.cb[0, 0] == 128 && mask.cr[mask.cb.width - 1, mask.cb.height - 1] == 128)
            let flash = truth.flashes.contains { $0.frame == index }
            var sawPerson = false
            for y in 0..<mask.height {
                for x in 0..<mask.width {
                    let m = mask.luma[x, y]
                    let inSquare = x >= square[0] && x < square[0] + square[2] && y >= square[1] && y < square[1] + square[3]
                    if inSquare && flash { #expect(m == 255); continue }
                    if m == 255 { sawPerson = true }
                    guard m != 0 && m != 255 else { continue }
                    // A soft edge pixel: full person and clear background both within 5 pixels (a 2.5 px ramp,
                    // wider where two parts meet at a corner).
                    var near: Set<UInt8> = []
                    for dy in -5...5 { for dx in -5...5 {
                        let nx = x + dx, ny = y + dy
                        if nx >= 0, ny >= 0, nx < mask.width, ny < mask.height { near.insert(mask.luma[nx, ny]) }
                    } }
                    #expect(near.contains(0) && near.contains(255), "frame \(index): value \(m) at (\(x), \(y)) is not on a thin edge")
                }
            }
            #expect(sawPerson, "frame \(index): no person in the mask")
            // Deep inside the person (5×5 all 255) the call shows one of the person's colours.
            for y in stride(from: 2, to: mask.height - 2, by: 3) {
                for x in stride(from: 2, to: mask.width - 2, by: 3) {
                    guard (-2...2).allSatisfy({ dy in (-2...2).allSatisfy { mask.luma[x + $0, y + dy] == 255 } }),
                          !(flash && x < square[0] + square[2] + 2 && y < square[1] + square[3] + 2) else { continue }
                    interior += 1
                    if personLuma.contains(where: { abs($0 - Double(picture.luma[x, y])) <= 8 }) { interiorMatching += 1 }
                }
            }
            index += 1
        }
        #expect(try masks.next() == nil)
        #expect(index == truth.frames)
        #expect(interior > 1000 && Double(interiorMatching) >= 0.98 * Double(interior), "\(interiorMatching) of \(interior)")
    }

    /// The scene and job name files that exist, and the annotations load (track reads them).
    @Test func annotationsAndJobFitTheCall() throws {
        let sample = try GeneratedSample.get()
        let job = try String(contentsOfFile: sample.path("job.yaml"), encoding: .utf8)
        for name in ["annotations.json", "call.mask.mkv", "background.png"] {
            // Relative to the job file (its own directory), whatever directory sample was given.
            #expect(job.contains("\"\(name)\"") || job.contains("\"image:\(name)\""), "job.yaml lacks \(name)")
        }
        #expect(job.contains("poses-from-sei: true"))
        let track = try makeScratchDirectory().appendingPathComponent("track.csv").path
        let run = try runFxreplay(["track", sample.path("call.mp4"), "--poses", sample.path("call.poses.csv"),
                                   "--annotations", sample.path("annotations.json"), "-o", track])
        #expect(run.status == 0, "\(run.stderr)")
        let ids = Set(try String(contentsOfFile: track, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",")[2] })
        #expect(ids == ["red-corner", "orange-corner", "green-corner", "tap-blue"])
    }
}
