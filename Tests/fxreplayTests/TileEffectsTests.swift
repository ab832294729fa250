import Foundation
import Testing
import FxTestSupport
@testable import ReplayKitless

/// Issue #34 item 4 and #36 item 2: a stream's drawing effects (annotations and their labels) are
/// drawn on its tile's picture at the tile's final size, not at the stream's size before the
/// picture is scaled into the tile. A one-participant call whose 320 × 180 stream (10 fps, 1 s)
/// has a pose file (a still camera at the origin looking down −Z, 60° vertical field of view) and
/// a scene of one red sphere, its label beside it.
@Suite(.serialized) struct TileEffectsTests {
    static let stream = PictureSize(width: 320, height: 180)

    /// The call, its poses and its scene (the sphere at `world`, 8 cm across, labelled when `label`).
    static func call(in folder: URL, world: SIMD3<Double>, label: String?) throws -> (manifest: String, poses: String, scene: String) {
        let video = FixtureVideo.constant(size: stream, fps: 10, duration: 1.0, tag: 5)
        let manifest = try CallFixtures.writeCallManifest(
            [FixtureStream(id: "cam", name: "Camera", tracks: [FixtureTrack(file: "cam.mp4", video: video)])], in: folder)
        let poses = folder.appendingPathComponent("cam.poses.jsonl").path
        try (0..<10).map { "{\"t\": \(Double($0) / 10), \"position\": [0, 0, 0], \"euler\": [0, 0, 0], \"zNear\": 0.01, \"fovY\": 60}" }
            .joined(separator: "\n").write(toFile: poses, atomically: true, encoding: .utf8)
        let scene = folder.appendingPathComponent("cam.annotations.json").path
        let labelled = label.map { ", \"label\": \"\($0)\"" } ?? ""
        try """
            {"version": 1, "annotations": [{"id": "ball", "anchor": {"world": [\(world.x), \(world.y), \(world.z)]}, "shape": "sphere", \
            "size": 0.08, "color": "#FF0000"\(labelled)}]}
            """.write(toFile: scene, atomically: true, encoding: .utf8)
        return (manifest, poses, scene)
    }

    /// A compose job giving the stream its poses and scene, and `extra` lines of its entry.
    static func job(in folder: URL, poses: String, scene: String, extra: [String] = []) throws -> String {
        let job = folder.appendingPathComponent("job-\(UUID().uuidString).yaml").path
        try (["streams:", "  cam:", "    poses: \"\(poses)\"", "    annotations: \"\(scene)\""] + extra.map { "    " + $0 })
            .joined(separator: "\n").appending("\n").write(toFile: job, atomically: true, encoding: .utf8)
        return job
    }

    /// The red pixels (the sphere: the frame code is grey, black and white) of an rgb24 picture `width` wide.
    static func redPixels(_ picture: [UInt8], width: Int) -> [(x: Int, y: Int)] {
        stride(from: 0, to: picture.count, by: 3).compactMap { at in
            Int(picture[at]) - max(Int(picture[at + 1]), Int(picture[at + 2])) > 60 ? (at / 3 % width, at / 3 / width) : nil
        }
    }

    static func run(_ arguments: [String]) throws {
        let run = try runFxreplay(arguments + ["--codec", "ffv1", "--progress", "none"])
        try #require(run.status == 0, "\(arguments): \(run.stderr)")
    }

    /// Mean absolute luma difference of `a` and `b` over the pixels of `area`.
    static func meanDifference(_ a: GrayFrame, _ b: GrayFrame, over area: [Int]) -> Double {
        Double(area.reduce(0) { $0 + abs(Int(a.pixels[$1]) - Int(b.pixels[$1])) }) / Double(max(1, area.count))
    }

    /// The largest luma step between horizontal neighbours inside `area`: how sharp its edges are.
    static func sharpestEdge(_ frame: GrayFrame, over area: [Int]) -> Int {
        area.reduce(0) { best, at in at % frame.width == 0 ? best : max(best, abs(Int(frame.pixels[at]) - Int(frame.pixels[at - 1]))) }
    }

    /// The stream fills the 1280 × 720 canvas (its one tile, 4× its size). The tile must equal
    /// `render --stream cam --size 1280x720` (annotations drawn at 1280 × 720) where the sphere and
    /// its label are drawn, and be sharper there than the stream-size render scaled up 4×. On the
    /// code before this change (2e2f5ab) the tile was that scaled-up render (the scene drawn at
    /// 320 × 180 on the decoding thread, then the picture scaled into the tile), its label 4× as
    /// large and blurred: run there, the tile differed from the large render by 64 levels and its
    /// sharpest edge was 55 against the scaled-up render's 55, failing both checks.
    @Test func labelsAreDrawnAtTheTilesSize() throws {
        let folder = try ComposeCommandTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (manifest, poses, scene) = try Self.call(in: folder, world: SIMD3(0.1, 0.05, -2), label: "Check 42")
        let job = try Self.job(in: folder, poses: poses, scene: scene)
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        try Self.run(["compose", manifest, "--job", job, "-o", path("composed.mkv"), "--size", "1280x720", "--fps", "10"])
        let effects = ["--poses", poses, "--annotations", scene]
        try Self.run(["render", manifest, "--stream", "cam", "-o", path("large.mkv"), "--size", "1280x720"] + effects)
        try Self.run(["render", manifest, "--stream", "cam", "-o", path("plain.mkv"), "--size", "1280x720"])
        try Self.run(["render", manifest, "--stream", "cam", "-o", path("small.mkv")] + effects)
        try runFFmpegCLI(["-i", path("small.mkv"), "-vf", "scale=1280:720:flags=bicubic", "-c:v", "ffv1", path("upscaled.mkv")])
        let composed = try GrayVideo.read(path("composed.mkv")), large = try GrayVideo.read(path("large.mkv"))
        let plain = try GrayVideo.read(path("plain.mkv")), upscaled = try GrayVideo.read(path("upscaled.mkv"))
        try #require(composed.count == 10 && large.count == 10 && plain.count == 10 && upscaled.count == 10,
                     "\(composed.count), \(large.count), \(plain.count), \(upscaled.count)")
        for k in 0..<10 {
            // Where the large render draws the sphere and the label: it differs there from the plain picture.
            let area = large[k].pixels.indices.filter { abs(Int(large[k].pixels[$0]) - Int(plain[k].pixels[$0])) > 8 }
            try #require(area.count > 500, "frame \(k): only \(area.count) annotated pixels")
            let tile = Self.meanDifference(composed[k], large[k], over: area)
            let scaledUp = Self.meanDifference(upscaled[k], large[k], over: area)
            #expect(tile <= 2, "frame \(k): the tile differs from the render at its size by \(tile) levels")
            #expect(scaledUp > 10, "frame \(k): the scaled-up stream-size render differs by only \(scaledUp) levels")
            let sharp = Self.sharpestEdge(composed[k], over: area), blurred = Self.sharpestEdge(upscaled[k], over: area)
            #expect(Double(sharp) >= 1.5 * Double(blurred), "frame \(k): sharpest edge \(sharp) in the tile, \(blurred) scaled up")
        }
    }

    /// `--tile-fit cover` crops the 16:9 picture to the square 640 × 640 tile: the middle 180 × 180
    /// of the stream (x 70…250) scaled 32/9. The sphere's centre is projected here with the pose at
    /// the stream's size (formats.md §2: u = (sx·x/d + 1)·W/2, v = (1 − sy·y/d)·H/2 with sy =
    /// 1/tan 30°, sx = sy·H/W; mirrored, u becomes W − u), then cropped and scaled by hand; the red
    /// pixels' centroid must sit there.
    @Test(arguments: [false, true]) func aCoverCropMovesTheAnnotationsWithThePicture(mirror: Bool) throws {
        let folder = try ComposeCommandTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let world = SIMD3<Double>(0.25, 0.1, -2)
        let (manifest, poses, scene) = try Self.call(in: folder, world: world, label: nil)
        let job = try Self.job(in: folder, poses: poses, scene: scene, extra: mirror ? ["mirror: true"] : [])
        let output = folder.appendingPathComponent("cover.mkv").path
        try Self.run(["compose", manifest, "--job", job, "-o", output, "--size", "640x640", "--fps", "10", "--tile-fit", "cover"])
        let (w, h) = (Double(Self.stream.width), Double(Self.stream.height))
        let sy = 1 / tan(Double.pi / 6), sx = sy * h / w, d = -world.z
        let u = (sx * world.x / d + 1) * w / 2, v = (1 - sy * world.y / d) * h / 2
        let scale = 640.0 / 180.0
        let expected = (x: ((mirror ? w - u : u) - 70) * scale, y: v * scale)
        let frames = try SceneClockTests.rgbFrames(output, width: 640, height: 640)
        try #require(frames.count == 10)
        for (k, picture) in frames.enumerated() {
            let red = Self.redPixels(picture, width: 640)
            try #require(red.count > 100, "frame \(k): the sphere is not drawn (\(red.count) red pixels)")
            let centroid = (x: red.reduce(0.0) { $0 + Double($1.x) + 0.5 } / Double(red.count),
                            y: red.reduce(0.0) { $0 + Double($1.y) + 0.5 } / Double(red.count))
            #expect(abs(centroid.x - expected.x) <= 1.5 && abs(centroid.y - expected.y) <= 1.5,
                    "frame \(k): the sphere's centroid \(centroid) vs \(expected)")
        }
    }

    /// `--occlude-with-mask` in a cropped tile: the stream's mask (a still image: the person fills
    /// its left half, x < 160) travels with each picture, cropped and scaled as the picture is, so
    /// the sphere straight ahead (centred at stream x 160, tile x (160 − 70)·32/9 = 320) is hidden
    /// left of the tile's x 320 and drawn right of it; without occlusion it is drawn on both sides.
    @Test func theMaskHidesAnnotationsWhereThePersonIsInACroppedTile() throws {
        let folder = try ComposeCommandTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (manifest, poses, scene) = try Self.call(in: folder, world: SIMD3(0, 0, -2), label: nil)
        let mask = folder.appendingPathComponent("left.png").path
        try writeRawImage(mask, width: 320, height: 180, pixelFormat: "gray", bytes: (0..<(320 * 180)).map { $0 % 320 < 160 ? 255 : 0 })
        func sides(occluding: Bool) throws -> (left: Int, right: Int) {
            let job = try Self.job(in: folder, poses: poses, scene: scene, extra: ["mask: \"\(mask)\""] + (occluding ? ["occlude-with-mask: true"] : []))
            let output = folder.appendingPathComponent("mask-\(occluding).mkv").path
            try Self.run(["compose", manifest, "--job", job, "-o", output, "--size", "640x640", "--fps", "10", "--tile-fit", "cover"])
            let frames = try SceneClockTests.rgbFrames(output, width: 640, height: 640)
            try #require(frames.count == 10)
            let red = Self.redPixels(frames[5], width: 640)
            return (red.filter { $0.x < 316 }.count, red.filter { $0.x >= 324 }.count)
        }
        let plain = try sides(occluding: false), occluded = try sides(occluding: true)
        #expect(plain.left > 50 && plain.right > 50, "\(plain)")
        #expect(occluded.left == 0 && abs(occluded.right - plain.right) <= plain.right / 20, "\(occluded) vs \(plain)")
    }
}
