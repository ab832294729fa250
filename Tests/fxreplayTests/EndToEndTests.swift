import Foundation
@testable import ReplayKitless
import Testing

// MARK: - The generated sample and an independent reading of it

/// `scene.json` as the tests read it.
struct SampleTruth: Decodable {
    struct Box: Decodable {
        var id: String
        var center: [Double]
        var size: [Double]
        var topCorners: [[Double]]
    }
    struct Flash: Decodable {
        var frame: Int
        var t: Double
        var streamTime: Double
    }
    struct Tap: Decodable {
        var annotation: String
        var box: String
        var point: [Double]
        var frame: Int
        var t: Double
        var x: Double
        var y: Double
        var depth: Double
    }
    var width: Int
    var height: Int
    var frames: Int
    var firstFrameTime: Double
    var droppedSlots: [Int]
    var boxes: [Box]
    var flashes: [Flash]
    var flashSquare: [Int]
    var tap: Tap

    func box(_ id: String) -> Box? { boxes.first { $0.id == id } }
}

/// A camera pose read from a JSON Lines sidecar, projecting as formats.md §2 says, written out
/// here again so the tests do not lean on the library's own camera code.
struct TestCamera {
    var t: Double
    var position: [Double]
    /// (pitch, yaw, roll), radians.
    var euler: [Double]
    /// Camera-to-world rotation, row-major: R = Rz(roll)·Ry(yaw)·Rx(pitch).
    var rotation: [[Double]]
    var zNear: Double
    var fovY: Double

    init(t: Double, position: [Double], euler: [Double], zNear: Double, fovY: Double) {
        self.t = t
        self.position = position
        self.euler = euler
        self.zNear = zNear
        self.fovY = fovY
        let (p, y, r) = (euler[0], euler[1], euler[2])
        let rx = [[1, 0, 0], [0, cos(p), -sin(p)], [0, sin(p), cos(p)]]
        let ry = [[cos(y), 0, sin(y)], [0, 1, 0], [-sin(y), 0, cos(y)]]
        let rz = [[cos(r), -sin(r), 0], [sin(r), cos(r), 0], [0, 0, 1]]
        func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
            (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
        }
        rotation = multiply(rz, multiply(ry, rx))
    }

    /// Pixel position and view depth of world point `w` in a `width` × `height` frame.
    func project(_ w: [Double], width: Int, height: Int) -> (x: Double, y: Double, depth: Double) {
        let d = (0..<3).map { w[$0] - position[$0] }
        // Xc = Rᵀ·(Xw − t): component i is column i of R dotted with d.
        let c = (0..<3).map { i in (0..<3).reduce(0) { $0 + rotation[$1][i] * d[$1] } }
        let depth = -c[2]
        let sy = 1 / tan(fovY * .pi / 360), sx = sy * Double(height) / Double(width)
        return ((sx * c[0] / depth + 1) * Double(width) / 2, (1 - sy * c[1] / depth) * Double(height) / 2, depth)
    }

    /// The world point at view depth `depth` on the ray through pixel (`x`, `y`).
    func unproject(x: Double, y: Double, depth: Double, width: Int, height: Int) -> [Double] {
        let sy = 1 / tan(fovY * .pi / 360), sx = sy * Double(height) / Double(width)
        let c = [depth * (2 * x / Double(width) - 1) / sx, depth * (1 - 2 * y / Double(height)) / sy, -depth]
        return (0..<3).map { i in (0..<3).reduce(position[i]) { $0 + rotation[i][$1] * c[$1] } }
    }

    /// Every pose of a JSON Lines sidecar, in file order.
    static func load(jsonl path: String) throws -> [TestCamera] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return TestCamera(t: try #require(object["t"] as? Double), position: try #require(object["position"] as? [Double]),
                              euler: try #require(object["euler"] as? [Double]), zNear: try #require(object["zNear"] as? Double),
                              fovY: try #require(object["fovY"] as? Double))
        }
    }
}

/// A sample call made once per test run with the real `fxreplay sample` (2 s, 320×180), with
/// its truth and poses read independently.
struct GeneratedSample: Sendable {
    let directory: String
    func path(_ name: String) -> String { directory + "/" + name }

    static let shared: Result<GeneratedSample, any Error> = Result(catching: {
        let directory = try makeScratchDirectory().appendingPathComponent("sample").path
        let run = try runFxreplay(["sample", "-o", directory, "--seconds", "2", "--size", "320x180", "--seed", "7"])
        guard run.status == 0 else { throw ReplayError.processing("fxreplay sample failed: \(run.stderr)") }
        return GeneratedSample(directory: directory)
    })

    static func get() throws -> GeneratedSample { try shared.get() }

    func truth() throws -> SampleTruth {
        try JSONDecoder().decode(SampleTruth.self, from: Data(contentsOf: URL(fileURLWithPath: path("scene.json"))))
    }

    func cameras() throws -> [TestCamera] { try TestCamera.load(jsonl: path("call.poses.jsonl")) }
}

/// Frames whose flash square is bright (mean luma nearer white than the wall behind it).
func flashFrames(_ video: String, square: [Int]) throws -> [(index: Int, seconds: Double)] {
    let reader = try VideoFrameReader(url: video)
    var result: [(Int, Double)] = []
    var index = 0
    while let frame = try reader.next() {
        let image = try reader.image(of: frame)
        var sum = 0
        // The inner part of the square, clear of chroma and compression smear at its edge.
        for y in square[1] + 2..<square[1] + square[3] - 2 {
            for x in square[0] + 2..<square[0] + square[2] - 2 { sum += Int(image.luma[x, y]) }
        }
        let mean = Double(sum) / Double((square[2] - 4) * (square[3] - 4))
        if mean > 215 { result.append((index, reader.stream.timeBase.seconds(frame.pts))) }
        index += 1
    }
    return result
}

/// Start times of the beeps: the first sample above 0.2 (the beep is 0.5, the room tone under
/// 0.02) after at least 50 ms of quiet.
func beepOnsets(_ path: String) throws -> [Double] {
    let reader = try AudioReader(url: path)
    let rate = Double(reader.stream.sampleRate)
    var onsets: [Double] = [], lastLoud = -Double.infinity
    while let chunk = try reader.next() {
        for (offset, sample) in chunk.samples.enumerated() where abs(sample) > 0.2 {
            let time = chunk.seconds + Double(offset) / rate
            if time - lastLoud > 0.05 { onsets.append(time) }
            lastLoud = time
        }
    }
    return onsets
}

/// The repository's root, from this file's place in it.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

// MARK: - End-to-end tests

@Suite struct EndToEndTests {
    /// The sample's demo render keeps every frame at its time and the flash and beep together.
    @Test func renderKeepsEveryFrameTimeAndTheSyncProbe() throws {
        let sample = try GeneratedSample.get()
        let truth = try sample.truth()
        let output = try makeScratchDirectory().appendingPathComponent("rendered.mp4").path
        // The sample's own job: poses from SEI, its annotations, background replaced by its mask.
        let run = try runFxreplay(["render", "--job", sample.path("job.yaml"), sample.path("call.mp4"), "-o", output,
                                   "--progress", "none", "--report", output + ".json"])
        try #require(run.status == 0, "\(run.stderr)")

        let input = try decodeFrames(sample.path("call.mp4"), measure: false).map(\.seconds)
        let rendered = try decodeFrames(output, measure: false).map(\.seconds)
        #expect(input.count == truth.frames)
        #expect(rendered == input, "every frame keeps its own presentation time")
        #expect(rendered.first == truth.firstFrameTime)

        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output + ".json"))) as? [String: Any])
        let effects = try #require(report["effects"] as? [String: [String: Int]])
        #expect(effects["annotations"]?["framesDrawn"] == truth.frames)
        #expect(effects["background"]?["framesReplaced"] == truth.frames, "background replacement: \(effects["background"] ?? [:])")

        // The flash square is part of the mask, so it survives background replacement.
        let flashes = try flashFrames(output, square: truth.flashSquare)
        #expect(flashes.map(\.index) == truth.flashes.map(\.frame))
        let beeps = try beepOnsets(output)
        try #require(beeps.count == flashes.count, "beeps at \(beeps), flashes at \(flashes.map(\.seconds))")
        for (flash, beep) in zip(flashes, beeps) {
            #expect(abs(beep - flash.seconds) <= 0.001, "flash at \(flash.seconds) s, beep at \(beep) s")
        }
    }
}

// MARK: - Where the marks land

/// A set of changed pixels: its centroid (pixel centres) with holes filled, and its size.
struct Blob {
    var x: Double
    var y: Double
    var pixels: Int
}

/// The 8-connected blobs of pixels whose luma differs between two pictures of the same size.
func changedBlobs(_ a: YUVImage, _ b: YUVImage) -> [Blob] {
    let width = a.width, height = a.height
    var changed = [Bool](repeating: false, count: width * height)
    for y in 0..<height { for x in 0..<width where a.luma[x, y] != b.luma[x, y] { changed[y * width + x] = true } }
    var seen = [Bool](repeating: false, count: width * height)
    var blobs: [Blob] = []
    for start in changed.indices where changed[start] && !seen[start] {
        var members: [Int] = [], stack = [start]
        seen[start] = true
        while let index = stack.popLast() {
            members.append(index)
            let x = index % width, y = index / width
            for dy in -1...1 { for dx in -1...1 {
                let nx = x + dx, ny = y + dy
                guard nx >= 0, ny >= 0, nx < width, ny < height else { continue }
                let next = ny * width + nx
                if changed[next] && !seen[next] { seen[next] = true; stack.append(next) }
            } }
        }
        // Fill holes: inside the bounding box (plus a border), whatever the outside cannot reach.
        let xs = members.map { $0 % width }, ys = members.map { $0 / width }
        let left = xs.min()! - 1, top = ys.min()! - 1, boxWidth = xs.max()! - left + 2, boxHeight = ys.max()! - top + 2
        var inside = [Bool](repeating: true, count: boxWidth * boxHeight)
        let memberSet = Set(members)
        var outside = [(0, 0)]
        inside[0] = false
        while let (bx, by) = outside.popLast() {
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let nx = bx + dx, ny = by + dy
                guard nx >= 0, ny >= 0, nx < boxWidth, ny < boxHeight, inside[ny * boxWidth + nx],
                      !memberSet.contains((top + ny) * width + left + nx) else { continue }
                inside[ny * boxWidth + nx] = false
                outside.append((nx, ny))
            }
        }
        var sx = 0.0, sy = 0.0, count = 0
        for by in 0..<boxHeight { for bx in 0..<boxWidth where inside[by * boxWidth + bx] {
            sx += Double(left + bx) + 0.5
            sy += Double(top + by) + 0.5
            count += 1
        } }
        blobs.append(Blob(x: sx / Double(count), y: sy / Double(count), pixels: count))
    }
    return blobs
}

/// Whether (`x`, `y`) lies inside the convex polygon `corners` (in order around it).
func isInside(_ x: Double, _ y: Double, polygon corners: [(x: Double, y: Double)]) -> Bool {
    let signs = corners.indices.map { i -> Double in
        let a = corners[i], b = corners[(i + 1) % corners.count]
        return (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x)
    }
    return signs.allSatisfy { $0 > 0 } || signs.allSatisfy { $0 < 0 }
}

/// The front (+z) face of a box, corners in order around it.
func frontFace(_ box: SampleTruth.Box) -> [[Double]] {
    let (c, h) = (box.center, box.size.map { $0 / 2 })
    let z = c[2] + h[2]
    return [[c[0] - h[0], c[1] - h[1], z], [c[0] + h[0], c[1] - h[1], z], [c[0] + h[0], c[1] + h[1], z], [c[0] - h[0], c[1] + h[1], z]]
}

@Suite struct EndToEndPlacementTests {
    /// Spheres on two opposite top corners of every box and on the tap, rendered losslessly: in
    /// every frame each one's blob of changed pixels is centred within 1 px of the anchor's
    /// projection computed here from the sidecar poses, and nothing else changes.
    @Test func marksLandOnTheirCornersAndTheTapOnItsBoxOnEveryFrame() throws {
        let sample = try GeneratedSample.get()
        let truth = try sample.truth(), cameras = try sample.cameras()
        let blue = try #require(truth.box(truth.tap.box))
        // The tap's target is the centre of the blue box's front face.
        let faceCentre = [blue.center[0], blue.center[1], blue.center[2] + blue.size[2] / 2]
        #expect(zip(truth.tap.point, faceCentre).allSatisfy { abs($0 - $1) < 1e-12 })

        var marks: [(id: String, point: [Double], from: Int)] = []
        for box in truth.boxes {
            marks.append(("\(box.id)-front-left", box.topCorners[0], 0))
            marks.append(("\(box.id)-back-right", box.topCorners[2], 0))
        }
        marks.append(("tap", faceCentre, truth.tap.frame))
        let size = 0.1
        var items = marks.dropLast().map { ##"{"id": "\##($0.id)", "anchor": {"world": \##($0.point)}, "shape": "sphere", "size": \##(size), "color": "#FFFFFF"}"## }
        items.append(##"{"id": "tap", "anchor": {"tap": {"t": \##(truth.tap.t), "x": \##(truth.tap.x), "y": \##(truth.tap.y), "depth": \##(truth.tap.depth)}}, "shape": "sphere", "size": \##(size), "color": "#FFFFFF"}"##)
        let dir = try makeScratchDirectory()
        let scene = dir.appendingPathComponent("marks.json").path
        try ("{\"version\": 1, \"annotations\": [" + items.joined(separator: ",") + "]}").write(toFile: scene, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("marks.mkv").path
        let run = try runFxreplay(["render", sample.path("call.mp4"), "-o", output, "--codec", "ffv1", "--poses-from-sei",
                                   "--annotations", scene, "--progress", "none"])
        try #require(run.status == 0, "\(run.stderr)")

        let original = try VideoFrameReader(url: sample.path("call.mp4")), rendered = try VideoFrameReader(url: output)
        let fy = Double(truth.height) / 2 / tan(cameras[0].fovY * .pi / 360)
        var frame = 0, checked = 0, tapChecked = 0
        while let before = try original.next() {
            let after = try #require(try rendered.next(), "frame \(frame) missing from the render")
            let blobs = changedBlobs(try original.image(of: before), try rendered.image(of: after))
            let camera = cameras[frame]
            let expected = marks.filter { frame >= $0.from }.map { mark in
                let p = camera.project(mark.point, width: truth.width, height: truth.height)
                return (mark.id, p.x, p.y, radius: size / 2 * fy / p.depth)
            }
            // Every blob belongs to a mark shown on this frame.
            for blob in blobs {
                #expect(expected.contains { hypot(blob.x - $0.1, blob.y - $0.2) < 2 * $0.radius + 2 },
                        "frame \(frame): pixels changed around (\(blob.x), \(blob.y)) where no mark belongs")
            }
            for mark in expected {
                // Judged where the whole disc is on screen and no other mark is close enough to merge with it.
                let margin = mark.radius + 2
                guard mark.1 > margin, mark.2 > margin, mark.1 < Double(truth.width) - margin, mark.2 < Double(truth.height) - margin,
                      !expected.contains(where: { $0.0 != mark.0 && hypot($0.1 - mark.1, $0.2 - mark.2) < $0.radius + mark.radius + 4 })
                else { continue }
                let nearest = try #require(blobs.min { hypot($0.x - mark.1, $0.y - mark.2) < hypot($1.x - mark.1, $1.y - mark.2) },
                                           "frame \(frame): \(mark.0) not drawn")
                let error = hypot(nearest.x - mark.1, nearest.y - mark.2)
                #expect(error <= 1, "frame \(frame): \(mark.0) drawn at (\(nearest.x), \(nearest.y)), expected (\(mark.1), \(mark.2))")
                checked += 1
                if mark.0 == "tap" {
                    let face = frontFace(blue).map { camera.project($0, width: truth.width, height: truth.height) }
                    #expect(isInside(nearest.x, nearest.y, polygon: face.map { ($0.x, $0.y) }), "frame \(frame): the tap mark left the blue box")
                    tapChecked += 1
                }
            }
            frame += 1
        }
        #expect(try rendered.next() == nil, "the render has more frames than the input")
        #expect(frame == truth.frames)
        // Most marks are judged on most frames (a few merge or sit at the edge now and then).
        #expect(checked >= frame * 8, "only \(checked) placements judged over \(frame) frames")
        #expect(tapChecked >= (truth.frames - truth.tap.frame) * 9 / 10)
    }

    /// `fxreplay track` puts the tap anchor inside the blue box's projected front face on every
    /// frame from the tap on, and the anchor is the face centre the tap was made from.
    @Test func tapAnchorStaysOnTheTappedFace() throws {
        let sample = try GeneratedSample.get()
        let truth = try sample.truth(), cameras = try sample.cameras()
        let blue = try #require(truth.box(truth.tap.box))
        let tapCamera = cameras[truth.tap.frame]
        #expect(abs(tapCamera.t - truth.tap.t) < 1e-9)
        let anchor = tapCamera.unproject(x: truth.tap.x, y: truth.tap.y, depth: truth.tap.depth, width: truth.width, height: truth.height)
        #expect(zip(anchor, [blue.center[0], blue.center[1], blue.center[2] + blue.size[2] / 2]).allSatisfy { abs($0 - $1) < 1e-6 },
                "tap resolves to \(anchor)")

        let track = try makeScratchDirectory().appendingPathComponent("track.csv").path
        let run = try runFxreplay(["track", sample.path("call.mp4"), "--poses-from-sei", "--annotations", sample.path("annotations.json"),
                                   "-o", track])
        try #require(run.status == 0, "\(run.stderr)")
        let rows = try String(contentsOfFile: track, encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            .filter { $0[2] == truth.tap.annotation }
        #expect(rows.count == truth.frames)
        for row in rows {
            let frame = try #require(Int(row[0]))
            #expect((row[3] == "1") == (frame >= truth.tap.frame), "frame \(frame): visible \(row[3])")
            guard row[3] == "1", let x = Double(row[4]), let y = Double(row[5]) else { continue }
            let face = frontFace(blue).map { cameras[frame].project($0, width: truth.width, height: truth.height) }
            #expect(isInside(x, y, polygon: face.map { ($0.x, $0.y) }), "frame \(frame): tap at (\(x), \(y)) is off the blue face")
            let centre = cameras[frame].project(anchor, width: truth.width, height: truth.height)
            #expect(hypot(centre.x - x, centre.y - y) < 0.01, "frame \(frame): track (\(x), \(y)) vs (\(centre.x), \(centre.y))")
        }
    }
}

@Suite struct EndToEndLatencyTests {
    /// `qa latency` on the sample's tap: no error without delay; with 200 ms the anchor is resolved
    /// from a later pose and lands pixels away, by as much as the same resolution done here says.
    @Test func tapLatencyErrorIsZeroWithoutDelayAndMeasuredWithIt() throws {
        let sample = try GeneratedSample.get()
        let truth = try sample.truth(), cameras = try sample.cameras()
        let run = try runFxreplay(["qa", "latency", sample.path("call.mp4"), "--poses-from-sei", "--annotations", sample.path("annotations.json"),
                                   "--delay", "0,200ms", "--json"])
        try #require(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let results = try #require(report["results"] as? [[String: Any]])
        func error(_ delay: Double) throws -> [String: Double] {
            let result = try #require(results.first { ($0["delay"] as? Double) == delay && ($0["id"] as? String) == truth.tap.annotation })
            return try #require(result["error"] as? [String: Any]).compactMapValues { $0 as? Double }
        }
        #expect(try error(0)["max"] == 0)

        // The late anchor: the tapped pixel's ray at the same depth, from the frame nearest t + 0.2 s.
        let late = try #require(cameras.indices.min { abs(cameras[$0].t - truth.tap.t - 0.2) < abs(cameras[$1].t - truth.tap.t - 0.2) })
        let (w, h) = (truth.width, truth.height)
        let trueAnchor = cameras[truth.tap.frame].unproject(x: truth.tap.x, y: truth.tap.y, depth: truth.tap.depth, width: w, height: h)
        let lateAnchor = cameras[late].unproject(x: truth.tap.x, y: truth.tap.y, depth: truth.tap.depth, width: w, height: h)
        var errors: [Double] = []
        for camera in cameras[truth.tap.frame...] {
            let a = camera.project(trueAnchor, width: w, height: h), b = camera.project(lateAnchor, width: w, height: h)
            func onScreen(_ p: (x: Double, y: Double, depth: Double)) -> Bool {
                p.depth > camera.zNear && p.x >= 0 && p.x < Double(w) && p.y >= 0 && p.y < Double(h)
            }
            if onScreen(a) && onScreen(b) { errors.append(hypot(a.x - b.x, a.y - b.y)) }
        }
        let mean = errors.reduce(0, +) / Double(errors.count)
        let measured = try error(0.2)
        #expect(mean > 2, "200 ms of latency should move the tap by pixels here, not \(mean)")
        #expect(abs((measured["mean"] ?? 0) - mean) < 1e-3 && abs((measured["max"] ?? 0) - errors.max()!) < 1e-3,
                "qa latency says \(measured), expected mean \(mean), max \(errors.max()!)")
    }
}
