import Foundation
@testable import ReplayKitless
import Testing

@Suite struct AnnotationRenderTests {
    let width = 320, height = 240

    /// A flat black recording whose camera pans right: yaw −0.01 rad per frame (turning right).
    func makeInput(in dir: URL, frames: Int = 10) throws -> (video: String, poses: String) {
        let video = dir.appendingPathComponent("flat.mp4").path
        var settings = EncoderSettings()
        settings.preset = "ultrafast"
        let writer = try MediaWriter(path: video, video: .init(size: PictureSize(width: width, height: height),
                                                               timeBase: Rational(1, 30), encoder: settings))
        for index in 0..<frames {
            try writer.addVideoFrame(pts: Int64(index), duration: 1) { $0.fill(YUVColor(y: 16, cb: 128, cr: 128)) }
        }
        try writer.finish()
        let poses = dir.appendingPathComponent("poses.jsonl").path
        let lines = (0..<frames).map { index in
            "{\"frame\": \(index), \"position\": [0, 0, 0], \"euler\": [0, \(-0.01 * Double(index)), 0], \"zNear\": 0.01, \"fovY\": 60}"
        }
        try lines.joined(separator: "\n").write(toFile: poses, atomically: true, encoding: .utf8)
        return (video, poses)
    }

    /// Centroid of the pixels drawn over the black background (the shaded sphere is at least ambient-bright).
    func centroid(_ image: YUVImage) -> (x: Double, y: Double, count: Int) {
        var sx = 0.0, sy = 0.0, n = 0
        for y in 0..<image.height { for x in 0..<image.width where image.luma[x, y] > 40 {
            sx += Double(x) + 0.5; sy += Double(y) + 0.5; n += 1
        } }
        return (sx / Double(max(n, 1)), sy / Double(max(n, 1)), n)
    }

    /// With --mirror the picture is flipped and the sphere with it, staying on its world point as
    /// the camera saw it: at x = width − u (it used to be drawn unflipped onto the flipped picture).
    @Test(arguments: [false, true]) func sphereStaysOnItsWorldPointAsTheCameraPans(mirror: Bool) throws {
        let dir = try makeScratchDirectory()
        let (video, poses) = try makeInput(in: dir)
        let scene = dir.appendingPathComponent("annotations.json").path
        let json = ##"{"version": 1, "annotations": [{"id": "ball", "anchor": {"world": [0.3, 0.2, -3]}, "shape": "sphere", "size": 0.2, "color": "#FFFFFF"}]}"##
        try json.write(toFile: scene, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("out.mkv").path
        let run = try runFxreplay(["render", video, "--poses", poses, "--annotations", scene, "-o", output,
                                   "--codec", "ffv1", "--progress", "none"] + (mirror ? ["--mirror"] : []))
        #expect(run.status == 0, "\(run.stderr)")
        let reader = try VideoFrameReader(url: output)
        var index = 0
        while let frame = try reader.next() {
            let image = try reader.image(of: frame)
            // Independent projection (formats.md §2): camera at the origin turned by yaw θ = −0.01·i.
            let yaw = -0.01 * Double(index)
            let world = SIMD3<Double>(0.3, 0.2, -3)
            // Xc = Rᵀ·Xw with R = Ry(yaw): x' = cos·x − sin·z, z' = sin·x + cos·z.
            let xc = cos(yaw) * world.x - sin(yaw) * world.z, zc = sin(yaw) * world.x + cos(yaw) * world.z
            let d = -zc, sy = 1 / tan(Double.pi / 6), sx = sy * Double(height) / Double(width)
            let projectedU = (sx * xc / d + 1) * Double(width) / 2, v = (1 - sy * world.y / d) * Double(height) / 2
            let u = mirror ? Double(width) - projectedU : projectedU
            let c = centroid(image)
            #expect(c.count > 50, "frame \(index): sphere not drawn")
            #expect(abs(c.x - u) < 0.5 && abs(c.y - v) < 0.5, "frame \(index): centroid (\(c.x), \(c.y)) vs (\(u), \(v))")
            index += 1
        }
        #expect(index == 10)
    }

    @Test func annotationsWithoutPosesAreBadUsage() throws {
        let dir = try makeScratchDirectory()
        let (video, _) = try makeInput(in: dir, frames: 2)
        let run = try runFxreplay(["render", video, "--annotations", "a.json", "-o", dir.appendingPathComponent("o.mp4").path])
        #expect(run.status == 2)
    }

    @Test func badSceneIsBadInputWithNoOutput() throws {
        let dir = try makeScratchDirectory()
        let (video, poses) = try makeInput(in: dir, frames: 2)
        let scene = dir.appendingPathComponent("bad.json").path
        let json = ##"{"version": 1, "annotations": [{"id": "x", "anchor": {"world": [0, 0, -1]}, "colour": "#FF0000"}]}"##
        try json.write(toFile: scene, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("o.mp4").path
        let run = try runFxreplay(["render", video, "--poses", poses, "--annotations", scene, "-o", output])
        #expect(run.status == 3)
        #expect(run.stderr.contains("bad.json") && run.stderr.contains("colour"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}

@Suite struct AnnotationJobTests {
    /// A job may hold poses and annotations together (each key alone would be an incomplete render).
    @Test func jobWithPosesAndAnnotationsRenders() throws {
        let dir = try makeScratchDirectory()
        let (video, poses) = try AnnotationRenderTests().makeInput(in: dir, frames: 3)
        let scene = dir.appendingPathComponent("annotations.json").path
        let json = ##"{"version": 1, "annotations": [{"id": "ball", "anchor": {"world": [0, 0, -2]}, "shape": "sphere", "size": 0.2}]}"##
        try json.write(toFile: scene, atomically: true, encoding: .utf8)
        let job = dir.appendingPathComponent("job.yaml").path
        try "poses: \(poses)\nannotations: \(scene)\ncodec: ffv1\n".write(toFile: job, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("out.mkv").path
        let run = try runFxreplay(["render", video, "--job", job, "-o", output, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try decodeFrames(output, measure: false).count == 3)
    }
}
