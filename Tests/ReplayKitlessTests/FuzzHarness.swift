// What each fuzz target does with one input. This file is compiled twice: here, for
// FuzzRegressionTests, and in the fuzz package (Fuzz/Sources/FuzzHarness/FuzzHarness.swift is a
// symlink to it), so a saved input replays in the test suite exactly as the fuzzer ran it.
// It uses ReplayKitless's public API only (the fuzz build has no @testable access).
import Foundation
import FxreplayBatch
import ReplayKitless

/// One fuzz target: a parser of outside input, plus properties its result must have.
///
/// The rule for every input: the parser returns a value or throws a ``ReplayError``. A crash, another
/// error type, or a broken property (a sidecar written back that reads differently, a pose SEI inserted
/// that does not read back, a mesh index out of range) is a finding.
public struct FuzzTarget: Sendable {
    /// The executable's name in Fuzz/, and the folder of its seeds (Fuzz/corpus/NAME) and kept
    /// crash inputs (Tests/Fuzz/NAME).
    public let name: String
    private let body: @Sendable ([UInt8]) throws -> Void

    init(_ name: String, _ body: @escaping @Sendable ([UInt8]) throws -> Void) {
        self.name = name
        self.body = body
    }

    /// Runs the target on `input`: `nil` when the input was accepted or refused with a ``ReplayError``,
    /// else what went wrong.
    public func run(_ input: [UInt8]) -> String? {
        do {
            try body(input)
            return nil
        } catch is ReplayError {
            return nil
        } catch let finding as FuzzFinding {
            return "\(name): \(finding.message)"
        } catch {
            return "\(name): threw \(type(of: error)) instead of a ReplayError: \(error)"
        }
    }

    /// The libFuzzer entry point's body: runs the input and traps on a finding, which libFuzzer
    /// reports as a crash and saves.
    public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        if let finding = run(input) { fatalError(finding) }
        return 0
    }

    /// Every target, by name.
    public static let all: [String: FuzzTarget] = Dictionary(
        uniqueKeysWithValues: [poseJSONL, poseCSV, pose32, poseSEI, annotationScene, annotationCost, objMesh, placementTrack, jobSpecYAML,
                                 jobSpecJSON, manifest, frameHashGolden, batchPlan,
                                 encoderOptions, layout].map { ($0.name, $0) })

    /// JSON Lines pose sidecars, then writing them back and matching them to frames.
    public static let poseJSONL = FuzzTarget("FuzzPoseJSONL") { try PoseFuzzing.sidecar($0, format: .jsonl) }
    /// CSV pose sidecars, then writing them back and matching them to frames.
    public static let poseCSV = FuzzTarget("FuzzPoseCSV") { try PoseFuzzing.sidecar($0, format: .csv) }
    /// Binary pose32 sidecars: writing them back must give the same bytes.
    public static let pose32 = FuzzTarget("FuzzPose32") { try PoseFuzzing.sidecar($0, format: .pose32) }
    /// Pose SEI in H.264/HEVC access units; see ``PoseFuzzing/sei(_:)`` for the input layout.
    public static let poseSEI = FuzzTarget("FuzzPoseSEI") { try PoseFuzzing.sei($0) }
    /// `annotations.json` scenes, then settling their anchors and placing them on a few frames.
    public static let annotationScene = FuzzTarget("FuzzAnnotationScene") { input in
        let scene = try AnnotationScene(json: input, file: "fuzz.json", baseDirectory: "/nonexistent-fuzz-folder")
        let frames = PoseFuzzing.frames.map { TrackFrame(time: $0.time, width: 640, height: 360, pose: PoseFuzzing.pose) }
        for placed in try scene.placed(frames: frames, file: "fuzz.json") {
            for frame in frames { _ = placed.placement(on: frame) }
        }
    }
    /// `annotations.json` scenes drawn: a scene the parser accepts is drawn (every annotation, whatever
    /// its times) into a 160×90 frame, or refused with a ``ReplayError``, within ``AnnotationCost/frameSeconds``.
    public static let annotationCost = FuzzTarget("FuzzAnnotationCost") { try AnnotationCost.drawOneFrame($0) }
    /// Wavefront OBJ meshes: every triangle must index existing vertices.
    public static let objMesh = FuzzTarget("FuzzOBJ") { input in
        let mesh = try OBJLoader.parse(input, file: "fuzz.obj")
        let vertexIndices = 0..<Int32(clamping: mesh.positions.count)
        guard mesh.normals.count == mesh.positions.count,
              mesh.triangles.allSatisfy({ t in vertexIndices.contains(t.x) && vertexIndices.contains(t.y) && vertexIndices.contains(t.z) })
        else {
            throw FuzzFinding("the mesh has a triangle index out of range or a vertex without a normal")
        }
        _ = mesh.scaledToUnitExtent()
    }
    /// Placement track CSV (`fxreplay track` output, read by `qa compare`): a track compared with itself passes.
    public static let placementTrack = FuzzTarget("FuzzPlacementTrack") { input in
        guard let text = String(validating: input, as: UTF8.self) else { return }  // as load(path:): not UTF-8 is refused
        let track = try PlacementTrack.parse(text, file: "fuzz.csv")
        guard TrackComparisonReport(comparing: track, with: track).passed else {
            throw FuzzFinding("a track compared with itself does not pass")
        }
    }
    /// YAML job specs (`render --job`, `batch --job`), read as `JobSpec(contentsOf:)` reads them.
    public static let jobSpecYAML = FuzzTarget("FuzzJobSpecYAML") { input in
        _ = try JobSpec(parsing: String(decoding: input, as: UTF8.self), path: "fuzz.yaml").arguments
    }
    /// JSON job specs.
    public static let jobSpecJSON = FuzzTarget("FuzzJobSpecJSON") { input in
        _ = try JobSpec(parsing: String(decoding: input, as: UTF8.self), path: "fuzz.json", json: true).arguments
    }
    /// Batch manifests: JSON Lines when the first character is `{`, else CSV, as `Manifest.load` decides.
    public static let manifest = FuzzTarget("FuzzManifest") { input in
        let text = String(decoding: input, as: UTF8.self)
        let rows = text.first(where: { !$0.isWhitespace }) == "{"
            ? try Manifest.parseJSONLines(text, file: "fuzz.jsonl") : try Manifest.parseCSV(text, file: "fuzz.csv")
        for row in rows { _ = row.options.flatMap(\.arguments) }
    }
    /// `--encoder-opt KEY=VALUE` lines checked against the allow-list; see ``EncoderOptionFuzzing``.
    public static let encoderOptions = FuzzTarget("FuzzEncoderOptions") { try EncoderOptionFuzzing.check($0) }
    /// Golden framemd5 files (`framehash --check`): a golden file compared with its own lines matches.
    public static let frameHashGolden = FuzzTarget("FuzzFrameHashGolden") { input in
        guard let text = String(validating: input, as: UTF8.self) else { return }  // as load(path:): not UTF-8 is refused
        let golden = try FrameHashGolden(text, file: "fuzz.framemd5")
        guard golden.compare(golden.lines) == nil else { throw FuzzFinding("a golden file differs from its own lines") }
    }
}

extension UInt32 {
    init(littleEndianBytes bytes: ArraySlice<UInt8>) {
        self = bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// A broken property: the input was handled without a crash, but the result is wrong.
struct FuzzFinding: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// The annotation renderer's cost: one frame's drawing time is bounded whatever the scene.
enum AnnotationCost {
    /// The most one 160×90 frame may take. The renderer's own budget (4 million pixel tests on a frame
    /// this small, 4 million triangles a scene, labels cut at the frame's edge) bounds it: scenes at that
    /// budget (270 frame-filling shapes, or 300 labels of 30 letters up to 320 pixels high; larger than
    /// the fuzzer's 4 KB inputs) took 1.3 s with AddressSanitizer and coverage on a loaded 2-core
    /// machine, the fuzzer's own inputs at most 0.2 s. A debug build (the regression tests) is slower.
    #if DEBUG
    static let frameSeconds = 20.0
    #else
    static let frameSeconds = 2.0
    #endif

    static func drawOneFrame(_ input: [UInt8]) throws {
        let scene = try AnnotationScene(json: input, file: "fuzz.json", baseDirectory: "/nonexistent-fuzz-folder")
        let frame = TrackFrame(time: 0, width: 160, height: 90, pose: PoseFuzzing.pose)
        let placed = try scene.placed(frames: [frame], file: "fuzz.json")
        let renderer = AnnotationRenderer()
        try renderer.prepare(scene.annotations)
        let buffer = PlanarBuffer(width: 160, height: 90)
        let camera = Camera(pose: PoseFuzzing.pose, width: 160, height: 90)
        let clock = ContinuousClock()
        let start = clock.now
        var refusal: (any Error)?
        do { try renderer.render(placed, camera: camera, time: 0.5, into: buffer.image) } catch { refusal = error }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        guard seconds <= frameSeconds else {
            throw FuzzFinding("one frame of \(placed.count) annotations took \(seconds) s (at most \(frameSeconds))")
        }
        if let refusal { throw refusal }
    }
}

/// The pose targets' bodies.
enum PoseFuzzing {
    /// Eight frames at 30 fps, to match samples against.
    static let frames = FrameTiming.timings(presentationTimes: (0..<8).map { Double($0) / 30 })
    /// A camera 1.5 m up, looking slightly down.
    static let pose = Pose(position: [0, 1.5, 0], euler: [-0.2, 0, 0], zNear: 0.01, fovY: 60)

    /// Parses a sidecar; every sample it accepts must survive writing in each format and reading back
    /// (pose32 bit for bit), and matching to frames may only fail with a ``ReplayError``.
    static func sidecar(_ input: [UInt8], format: PoseSidecarFormat) throws {
        let samples = try PoseSidecar.parse(input, format: format, file: "fuzz")
        if format == .pose32 {
            // Bit for bit, except that a signalling NaN comes back quiet: samples hold Doubles, and widening
            // a float32 NaN to a Double sets its quiet bit.
            let written = try PoseSidecar.encode(samples, format: .pose32)
            let same = written.count == input.count && stride(from: 0, to: input.count, by: 4).allSatisfy { i in
                let a = Float(bitPattern: UInt32(littleEndianBytes: input[i..<i + 4]))
                let b = Float(bitPattern: UInt32(littleEndianBytes: written[i..<i + 4]))
                return a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
            }
            guard same else { throw FuzzFinding("pose32 written back differs from the bytes read") }
        }
        for written in [PoseSidecarFormat.jsonl, .csv] {
            try roundTrip(samples, through: written)
        }
        for policy in [MissingPosePolicy.interpolate, .hold] {
            let timeline = try PoseTimeline(samples: samples, frames: frames, options: PoseMatchOptions(policy: policy),
                                            source: "fuzz")
            for case let pose? in timeline.poses {
                let camera = Camera(pose: pose, width: 640, height: 360)
                _ = camera.isOnScreen(camera.project([0.2, 0, -1.5]))
            }
        }
    }

    /// Writes `samples` as `format` and reads them back: the same samples (float32 ones the same after
    /// rounding to float32 again: pose32 → text → pose32 is bit-exact), or a ``ReplayError`` from the
    /// writer when a value cannot be written as text (NaN or infinite, which only pose32 can hold).
    private static func roundTrip(_ samples: [PoseSample], through format: PoseSidecarFormat) throws {
        // (A `Result`, not do/catch: throwing another error type from the catch of a typed-throws
        // `do` crashes Swift 6.3's SIL ownership verifier, or hangs it.)
        let bytes: [UInt8]
        switch Result(catching: { () throws(ReplayError) in try PoseSidecar.encode(samples, format: format) }) {
        case .success(let written): bytes = written
        case .failure(let error):
            if samples.allSatisfy(isFinite) { throw FuzzFinding("writing \(format) failed: \(error)") }
            return
        }
        do {
            let back = try PoseSidecar.parse(bytes, format: format, file: "written")
            // Text holds float32 values as the shortest digits that read back as the same float32.
            let same = back.count == samples.count && zip(back, samples).allSatisfy { read, original in
                original.isFloat32 ? read.key == original.key && read.pose32 == original.pose32 : read == original
            }
            guard same else {
                throw FuzzFinding("\(format) written back reads differently:\n\(String(decoding: bytes, as: UTF8.self))")
            }
        } catch let error as ReplayError {
            throw FuzzFinding("\(format) written back does not read: \(error)\n\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    private static func isFinite(_ s: PoseSample) -> Bool {
        let k = s.intrinsics
        let values: [Double] = [s.position.x, s.position.y, s.position.z, s.euler.x, s.euler.y, s.euler.z, s.zNear,
                                s.fovY ?? 0, k?.fx ?? 0, k?.fy ?? 0, k?.cx ?? 0, k?.cy ?? 0]
        return values.allSatisfy(\.isFinite)
    }

    /// The SEI target's input: byte 0 picks the codec (bit 0: H.264 or HEVC) and the framing (bits 1–3:
    /// 0 Annex B, 1–4 that many length bytes, 5–7 codec extradata follows: byte 1 is its length).
    /// The rest is one access unit. Reading it may only fail with a ``ReplayError``; when it has a slice
    /// and no pose of ours, a pose inserted into it must read back.
    static func sei(_ input: [UInt8]) throws {
        guard let selector = input.first else { return }
        let codec: NALCodec = selector & 1 == 0 ? .h264 : .hevc
        let mode = Int(selector >> 1 & 7)
        var rest = input.dropFirst()
        let framing: NALFraming
        switch mode {
        case 0: framing = .annexB
        case 1...4: framing = .lengthPrefixed(mode)
        default:
            guard let length = rest.popFirst() else { return }
            let extradata = Array(rest.prefix(Int(length)))
            rest = rest.dropFirst(Int(length))
            framing = try NALFraming(extradata: extradata, codec: codec)
        }
        let accessUnit = Array(rest)
        let sei = PoseSEI()
        let found = try sei.pose(inAccessUnit: accessUnit, codec: codec, framing: framing)
        let pose = Pose32(position: [1, -2, 0.5], euler: [0, 0.25, -1], zNear: 0.001, fovY: 60)
        let embedded: [UInt8]
        switch Result(catching: { () throws(ReplayError) in try sei.inserting(pose, into: accessUnit, codec: codec, framing: framing) }) {
        case .success(let inserted): embedded = inserted
        case .failure(let error) where error.kind == .badInput: return  // no slice to put it in front of
        case .failure(let error): throw error
        }
        guard found == nil else { return }  // replacing a pose is not checked: it depends on what else the SEI held
        do {
            let readBack = try sei.pose(inAccessUnit: embedded, codec: codec, framing: framing)
            guard readBack == pose else { throw FuzzFinding("an inserted pose SEI reads back as \(String(describing: readBack))") }
        } catch let error as ReplayError {
            throw FuzzFinding("an access unit with an inserted pose SEI does not read: \(error)")
        }
    }
}

/// `--encoder-opt` parsing (issue #33). Input: byte 0 picks the codec (modulo their number), the rest
/// is lines of `KEY=VALUE`, split at the first `=` as the command line splits them. Besides "no
/// crash": an accepted key-value list written back escaped reads as the same entries; a user's
/// accepted `x265-params` merged with fxreplay's keeps fxreplay's log level last and no other; an
/// accepted `flags` value never names a pass.
enum EncoderOptionFuzzing {
    static func check(_ input: [UInt8]) throws {
        guard let first = input.first else { return }
        let codec = VideoCodec.allCases[Int(first) % VideoCodec.allCases.count]
        for line in String(decoding: input.dropFirst(), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex else { continue }
            let key = String(line[..<equals]), value = String(line[line.index(after: equals)...])
            let entries = EncoderOptionPolicy.dictionaryEntries(value)
            if let entries {
                let back = EncoderOptionPolicy.dictionaryEntries(EncoderOptionPolicy.dictionaryText(entries))
                guard let back, back.map(\.key) == entries.map(\.key), back.map(\.value) == entries.map(\.value) else {
                    throw FuzzFinding("\(value): written back escaped, the list reads differently")
                }
            }
            do { try EncoderOptionPolicy.check(key: key, value: value, codec: codec) } catch { continue }
            if key == "x265-params" {
                let merged = EncoderOptionPolicy.mergedX265Params(user: value, own: "log-level=error")
                let read = EncoderOptionPolicy.dictionaryEntries(merged) ?? []
                guard read.filter({ x265Name($0.key) == "log-level" }).count == 1, read.last?.key == "log-level", read.last?.value == "error" else {
                    throw FuzzFinding("x265-params \(value) accepted, merged as \(merged): the log level is not fxreplay's")
                }
            }
            if key.hasPrefix("flags"), value.contains("pass") { throw FuzzFinding("flags \(value) accepted") }
        }
    }

    /// The name x265_param_parse looks a parameter up by (`_` as `-`, a `no`/`no-` prefix dropped),
    /// written here apart from the policy's own.
    private static func x265Name(_ key: String) -> String {
        var name = Substring(key.map { $0 == "_" ? "-" : $0 })
        if name.hasPrefix("no") { name = name.dropFirst(2) }
        if name.hasPrefix("-") && key.hasPrefix("no") { name = name.dropFirst() }
        return String(name)
    }
}
