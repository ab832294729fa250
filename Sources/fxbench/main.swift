// fxbench: throughput of the per-frame kernels alone, release build:
//
//     swift build -c release --product fxbench && .build/release/fxbench [WIDTHxHEIGHT] [FRAMES]
//     .build/release/fxbench annotations [WIDTHxHEIGHT] [FRAMES] SCENE.json
//     .build/release/fxbench gblur CLIP [FRAMES] [WIDTHxHEIGHT of the clip, 1280x720]
//
// The first prints megapixels (luma samples) per second for the mask blend, the transparent-alpha
// path and the σ = 15 blur background, on random 8-bit 4:2:0 frames (1280×720 and 300 frames by
// default). The second draws the scene's annotations (world anchors) into a 4:2:0 frame from a
// slowly panning camera, one frame per 1/30 s of its path (the pose sidecar benchmarks/annotations.sh
// writes), and prints annotations per second and milliseconds per frame.
//
//     .build/release/fxbench process CLIP MASK PICTURE POSES SCENE [FRAMES] [THREADS…]
//
// The process stage alone (benchmarks/process.sh makes the inputs): the first FRAMES (60, and at
// least 8 per thread of the most threads measured, so every lane gets enough frames to measure) frames
// of CLIP decoded beforehand, then blurred background (σ = 12), picture background and the
// scene's annotations applied to each, as a render applies them, with 1 and 2 process threads
// (or those given): frames per second, the ratio to 1 thread, and CPU seconds with the load average.
import Foundation
import ReplayKitless

var arguments = CommandLine.arguments.dropFirst()
if arguments.first == "gblur" { compareBlurWithGblur(Array(arguments.dropFirst())) }
if arguments.first == "process" { measureProcessStage(Array(arguments.dropFirst())) }
let annotationSection = arguments.first == "annotations"
if annotationSection { arguments = arguments.dropFirst() }
let size = arguments.first.flatMap(PictureSize.init(parsing:)) ?? PictureSize(width: 1280, height: 720)
let frames = arguments.dropFirst().first.flatMap(Int.init) ?? 300

func randomFill(_ plane: Plane, seed: UInt64) {
    var state = seed
    for y in 0..<plane.height {
        let row = plane.row(y)
        for x in 0..<row.count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            row[x] = UInt8(truncatingIfNeeded: state >> 56)
        }
    }
}

let frame = PlanarBuffer(width: size.width, height: size.height, alpha: true)
let background = PlanarBuffer(width: size.width, height: size.height)
let mask = PlanarBuffer(width: size.width, height: size.height, subsampling: .yuv444)
for (index, plane) in [frame.image.luma, frame.image.cb, frame.image.cr, background.image.luma, background.image.cb,
                       background.image.cr, mask.image.luma].enumerated() {
    randomFill(plane, seed: UInt64(index + 1))
}

/// Seconds taken by `body`.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let elapsed = try ContinuousClock().measure(body)
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
}

/// Runs `body` `frames` times and prints the rate in luma megapixels per second.
func measure(_ name: String, _ body: () -> Void) {
    body()  // warm-up: scratch memory allocated once
    let time = seconds { for _ in 0..<frames { body() } }
    let megapixels = Double(size.width * size.height * frames) / 1e6
    let label = name.padding(toLength: 28, withPad: " ", startingAt: 0)
    print(label + String(format: "%9.1f MP/s %8.3f ms/frame", megapixels / time, time * 1000 / Double(frames)))
}

/// The camera of frame `index` at 30 fps: at eye height, drifting sideways and forwards while it
/// pans and nods a little (the same path as benchmarks/annotations.sh's pose sidecar).
func benchCamera(frame index: Int) -> Camera {
    let s = Double(index) / 30
    let position = SIMD3(0.25 * sin(0.21 * s), 1.4 + 0.05 * sin(0.5 * s), -0.01 * s)
    let euler = SIMD3(0.06 * sin(0.33 * s), 0.18 * sin(0.17 * s), 0.02 * sin(0.4 * s))
    return Camera(pose: Pose(position: position, euler: euler, zNear: 0.01, fovY: 60), width: size.width, height: size.height)
}

/// The rasterizer alone: every annotation of the scene at `path` (world anchors only) drawn into
/// one frame per camera position.
func measureAnnotations(scenePath path: String) throws {
    let scene = try AnnotationScene.load(path: FilePath(path))
    let placed = scene.annotations.compactMap { annotation -> PlacedAnnotation? in
        guard case .world(let point) = annotation.anchor else { return nil }
        return PlacedAnnotation(annotation: annotation, world: point)
    }
    let renderer = AnnotationRenderer()
    try renderer.prepare(scene.annotations)
    let cameras = (0..<max(frames, 1)).map { benchCamera(frame: $0) }
    let target = PlanarBuffer(width: size.width, height: size.height)   // opaque, like a render's frames
    for (index, plane) in [target.image.luma, target.image.cb, target.image.cr].enumerated() {
        randomFill(plane, seed: UInt64(index + 1))
    }
    print("fxbench: \(placed.count) annotations from \(path) into \(size) 4:2:0, \(frames) frames")
    try renderer.render(placed, camera: cameras[0], time: 0, into: target.image)   // warm-up: glyphs, buffers
    let time = try seconds {
        for (index, camera) in cameras.enumerated() {
            try renderer.render(placed, camera: camera, time: Double(index) / 30, into: target.image)
        }
    }
    let drawn = Double(placed.count * frames)
    print("annotations".padding(toLength: 28, withPad: " ", startingAt: 0)
          + String(format: "%9.0f annotations/s %8.3f ms/frame", drawn / time, time * 1000 / Double(frames)))
}

if annotationSection {
    guard let path = arguments.dropFirst(2).first else {
        print("usage: fxbench annotations WIDTHxHEIGHT FRAMES SCENE.json")
        exit(2)
    }
    do {
        try measureAnnotations(scenePath: path)
    } catch {
        FileHandle.standardError.write(Data("fxbench: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

print("fxbench: \(size) 4:2:0, \(frames) frames per kernel")
let blender = MaskBlender()
measure("blend (mask, 4:2:0)") { blender.blend(frame.image, with: background.image, mask: mask.image.luma) }
measure("alpha (straight)") { blender.applyAlpha(mask.image.luma, to: frame.image, premultiplied: false) }
measure("alpha (premultiplied)") { blender.applyAlpha(mask.image.luma, to: frame.image, premultiplied: true) }
let blur = GaussianBlur()
measure("blur σ = 15 (background)") { blur.blur(frame.image, into: background.image, sigma: 15) }

/// `fxbench gblur CLIP [FRAMES] [WIDTHxHEIGHT]`: the σ = 12 background blur per frame on one thread against ffmpeg's
/// `gblur=sigma=12` per frame on one thread (its run minus a decode-only run of the same clip, both
/// with `-threads 1 -filter_threads 1`), in CPU time (user + sys, which the other load on a shared
/// machine does not inflate) and wall time. The blurred frame is random 4:2:0 at the clip's size.
func compareBlurWithGblur(_ arguments: [String]) -> Never {
    guard let clip = arguments.first else {
        print("usage: fxbench gblur CLIP [FRAMES] [WIDTHxHEIGHT]")
        exit(2)
    }
    let count = arguments.dropFirst().first.flatMap(Int.init) ?? 300
    func cpuSeconds(children: Bool) -> Double {
        var usage = rusage()
        #if os(Linux)
        _ = getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
        #else
        _ = getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6
    }
    /// (CPU, wall) seconds of one ffmpeg run over the first `count` frames.
    func ffmpeg(_ filter: [String]) -> (cpu: Double, wall: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-v", "error", "-threads", "1", "-filter_threads", "1", "-i", clip, "-an",
                             "-frames:v", "\(count)"] + filter + ["-f", "null", "-"]
        let before = cpuSeconds(children: true)
        let wall = seconds { try? process.run(); process.waitUntilExit() }
        return (cpuSeconds(children: true) - before, wall)
    }
    let decode = ffmpeg([]), gblur = ffmpeg(["-vf", "gblur=sigma=12"])
    let clipSize = arguments.dropFirst(2).first.flatMap(PictureSize.init(parsing:)) ?? PictureSize(width: 1280, height: 720)
    let width = clipSize.width, height = clipSize.height
    let source = PlanarBuffer(width: width, height: height), target = PlanarBuffer(width: width, height: height)
    for (index, plane) in [source.image.luma, source.image.cb, source.image.cr].enumerated() { randomFill(plane, seed: UInt64(index + 1)) }
    let blur = GaussianBlur(workers: 1)
    blur.blur(source.image, into: target.image, sigma: 12)
    let cpuBefore = cpuSeconds(children: false)
    let wall = seconds { for _ in 0..<count { blur.blur(source.image, into: target.image, sigma: 12) } }
    let cpu = cpuSeconds(children: false) - cpuBefore
    func perFrame(_ value: Double) -> String { String(format: "%7.3f ms/frame", value * 1000 / Double(count)) }
    print("blur σ = 12, \(width)x\(height) 4:2:0, one thread, \(count) frames")
    print("fxreplay blur   CPU " + perFrame(cpu) + "   wall " + perFrame(wall))
    print("ffmpeg gblur    CPU " + perFrame(gblur.cpu - decode.cpu) + "   wall " + perFrame(gblur.wall - decode.wall)
          + "   (gblur run minus decode-only run)")
    print(String(format: "ratio fxreplay/gblur: CPU %.2fx, wall %.2fx", cpu / (gblur.cpu - decode.cpu), wall / (gblur.wall - decode.wall)))
    exit(0)
}

/// `fxbench process`: see the top of the file. Exits.
func measureProcessStage(_ arguments: [String]) -> Never {
    guard arguments.count >= 5 else {
        print("usage: fxbench process CLIP MASK PICTURE POSES SCENE [FRAMES] [THREADS…]")
        exit(2)
    }
    let (clipPath, mask, picture, poses, scene) = (arguments[0], arguments[1], arguments[2], arguments[3], arguments[4])
    let threadCounts = arguments.count > 6 ? arguments[6...].compactMap(Int.init) : [1, 2]
    // Fewer than 8 frames a lane measure the start and the drain, not the lanes (issue #37).
    let frames = max(arguments.count > 5 ? Int(arguments[5]) ?? 60 : 60, 8 * (threadCounts.max() ?? 1))
    var blurred = RenderOptions(input: clipPath, output: "/dev/null")
    blurred.background = BackgroundSettings(mask: .video(path: mask), background: .blur(sigma: 12))
    var pictured = RenderOptions(input: clipPath, output: "/dev/null")
    pictured.background = BackgroundSettings(mask: .video(path: mask), background: .image(path: picture))
    pictured.poses = PoseSettings(source: .sidecar(path: FilePath(poses)))
    pictured.annotations = AnnotationSettings(scene: FilePath(scene))
    do {
        let clip = try ProcessStageBenchmark.Clip(path: clipPath, frames: frames)
        print("fxbench process: \(clip.count) frames of \(clipPath), blur σ = 12 + picture background + \(scene)")
        if clip.count < frames {
            print("fxbench process: warning: the clip has fewer than the \(frames) frames asked for (8 per lane): use a longer one")
        }
        _ = try ProcessStageBenchmark.measure([blurred, pictured], clip: clip, threads: 1)   // warm-up: caches, glyphs
        var base: Double?
        for threads in threadCounts {
            let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first ?? "?"
            let result = try ProcessStageBenchmark.measure([blurred, pictured], clip: clip, threads: threads)
            let fps = result.framesPerSecond
            base = base ?? fps
            print("process stage, \(threads) thread\(threads == 1 ? " " : "s")".padding(toLength: 28, withPad: " ", startingAt: 0)
                  + String(format: "%7.2f frames/s %6.2fx  wall %6.2f s  CPU %6.2f s (%.2f cores)  load %@",
                           fps, fps / base!, result.seconds, result.cpuSeconds, result.cpuSeconds / result.seconds, String(load)))
        }
    } catch {
        FileHandle.standardError.write(Data("fxbench: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}
