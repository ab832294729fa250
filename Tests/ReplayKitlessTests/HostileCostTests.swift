import Foundation
import Testing
@testable import ReplayKitless

/// Issue #24, class 3: every dimension of a scene has a cap far below what exhausts memory or time,
/// and crossing it is bad input naming the file, line and key (or, for drawing, the annotation).
@Suite struct HostileSceneCostTests {
    func parse(_ json: String) throws -> AnnotationScene {
        try AnnotationScene(json: Array(json.utf8), file: "s.json", baseDirectory: "/")
    }

    func scene(annotations count: Int, _ extra: String = "") -> String {
        let items = (0..<count).map { #"{"id": "a\#($0)", "anchor": {"world": [0, 0, -1]}\#(extra)}"# }
        return #"{"version": 1, "annotations": ["# + items.joined(separator: ",\n") + "]}"
    }

    func refusal(_ json: String) -> ReplayError? {
        do { _ = try parse(json); return nil } catch let error as ReplayError { return error } catch { return nil }
    }

    @Test func aSceneHoldsAtMostTheCappedNumberOfAnnotations() throws {
        #expect(try parse(scene(annotations: InputLimits.annotations)).annotations.count == 10_000)
        let error = try #require(refusal(scene(annotations: InputLimits.annotations + 1)))
        #expect(error.kind == .badInput && error.message.hasPrefix("s.json:1 (key \"annotations\")") && error.message.contains("10001 annotations"),
                "\(error)")
    }

    @Test func labelsAreCappedInLengthAndSize() throws {
        let longest = String(repeating: "é", count: InputLimits.labelCharacters)
        #expect(try parse(scene(annotations: 1, #", "label": "\#(longest)", "labelSize": 512"#)).annotations[0].labelSize == 512)
        let long = try #require(refusal(scene(annotations: 1, #", "label": "\#(longest)x""#)))
        #expect(long.kind == .badInput && long.message.contains("annotation \"a0\", key \"label\"") && long.message.contains("1001 characters"), "\(long)")
        let large = try #require(refusal(scene(annotations: 1, #", "labelSize": 513"#)))
        #expect(large.kind == .badInput && large.message.contains("key \"labelSize\"") && large.message.contains("at most 512"), "\(large)")
    }

    /// Finite but absurd numbers (JSON has no infinity) would overflow once multiplied: 2π·spin·t,
    /// a tap ray through pixel 1e300. Each is refused naming its key.
    @Test(arguments: [(#", "spin": 1e300"#, "\"spin\""), (#", "orientation": [0, 1e300, 0]"#, "\"orientation\""),
                      (#", "from": -1e300"#, "\"from\""), (#", "until": 1e300"#, "\"until\"")])
    func absurdNumbersAreRefused(extra: String, key: String) throws {
        let error = try #require(refusal(scene(annotations: 1, extra)))
        #expect(error.kind == .badInput && error.message.contains("key \(key)"), "\(error)")
    }

    @Test func anAbsurdTapIsRefused() throws {
        let json = #"{"version": 1, "annotations": [{"id": "t", "anchor": {"tap": {"t": 0, "x": 1e300, "y": 0, "depth": 1}}}]}"#
        let error = try #require(refusal(json))
        #expect(error.kind == .badInput && error.message.contains("anchor.tap.x"), "\(error)")
    }

    /// Triangles are counted per annotation, not per mesh file: 4000 finest spheres are 4000 times one.
    @Test func sceneTrianglesAreSummedOverItsAnnotations() throws {
        let perSphere = Mesh.sphere().triangles.count
        let fitting = InputLimits.sceneTriangles / perSphere
        func spheres(_ count: Int) -> [Annotation] { (0..<count).map { Annotation(id: "s\($0)", anchor: .world([0, 0, -1])) } }
        try AnnotationRenderer().prepare(spheres(fitting))
        do {
            try AnnotationRenderer().prepare(spheres(fitting + 1), scene: "s.json")
            Issue.record("\(fitting + 1) spheres of \(perSphere) triangles were accepted")
        } catch {
            #expect(error.kind == .badInput && error.message.hasPrefix("s.json (annotation \"s\(fitting)\")")
                    && error.message.contains("\(InputLimits.sceneTriangles) triangles"), "\(error)")
        }
    }

    /// A track holds frames × annotations rows: 10 000 annotations over 1 001 frames would be ten
    /// million and ten thousand rows (about a gigabyte in memory), refused before any row is made.
    @Test func aTrackOfMoreRowsThanTheCapIsRefused() throws {
        let scene = AnnotationScene(annotations: (0..<10_000).map { Annotation(id: "a\($0)", anchor: .world([0, 0, -1])) })
        let pose = Pose(position: [0, 0, 0], euler: [0, 0, 0], zNear: 0.01, fovY: 60)
        let frames = (0..<1001).map { TrackFrame(time: Double($0) / 30, width: 16, height: 16, pose: pose) }
        do {
            _ = try PlacementTrack.rows(frames: frames, scene: scene, sceneFile: "s.json")
            Issue.record("a track of \(frames.count * 10_000) rows was made")
        } catch {
            #expect(error.kind == .badInput && error.message.hasPrefix("s.json: 10000 annotations on 1001 frames"), "\(error)")
        }
        #expect(try PlacementTrack.rows(frames: Array(frames.prefix(2)), scene: scene, sceneFile: "s.json").count == 20_000)
    }

    /// One frame's shapes share one budget (64 frames' worth of pixel tests, at least 4 million):
    /// 300 spheres that each fill a 160×120 frame are refused before they are all drawn; 20 are drawn.
    /// (Each used to be checked alone, so any number of them was drawn, in time without bound.)
    @Test func theShapesOfOneFrameShareOneDrawingBudget() throws {
        let eye = HandCamera(position: [0, 1, 0], pitch: 0, yaw: 0, roll: 0, width: 160, height: 120)
        for (count, refused) in [(300, true), (20, false)] {
            let frame = TestFrame(width: 160, height: 120)
            // 1.8 m across, 1 m in front: wider than the 1.15 m the view spans there.
            let annotations = (0..<count).map { i in
                var one = placed(.sphere, size: 1.8, at: eye.world([0, 0, -1 - 0.001 * Double(i)]))
                one.annotation.id = "s\(i)"
                return one
            }
            do {
                try render(annotations, eye, into: frame)
                #expect(!refused, "\(count) frame-filling spheres were drawn")
            } catch let error as ReplayError {
                #expect(refused, "\(error)")
                #expect(error.kind == .badInput && error.message.contains("64 times over"), "\(error)")
            }
        }
    }

    /// Labels spend the same budget: a thousand large plates over one small frame are refused.
    @Test func labelsShareTheDrawingBudget() throws {
        let eye = HandCamera(position: [0, 1, 0], pitch: 0, yaw: 0, roll: 0, width: 160, height: 120)
        for (count, refused) in [(1000, true), (10, false)] {
            let frame = TestFrame(width: 160, height: 120)
            let annotations = (0..<count).map { i in
                var one = placed(.sphere, size: 0.001, at: eye.world([-0.5, -0.4, -1]), label: "WWWW")
                one.annotation.id = "l\(i)"
                one.annotation.labelSize = 512
                return one
            }
            do {
                try render(annotations, eye, into: frame)
                #expect(!refused, "\(count) frame-sized labels were drawn")
            } catch let error as ReplayError {
                #expect(refused && error.kind == .badInput && error.message.contains("64 times over"), "\(error)")
            }
        }
    }

    /// A label costs what shows of it: of a thousand distinct characters at 512 pixels per em only
    /// the one or two that reach into a 160-pixel-wide frame are rasterized (each glyph is about 300
    /// pixels wide), not all thousand.
    @Test func glyphsPastTheFramesEdgeAreNotRasterized() throws {
        let glyphs = try GlyphCache(path: AnnotationRenderer.Options.defaultFontPath)
        let layer = RenderLayer(width: 160, height: 120)
        let label = String(String.UnicodeScalarView((0x400..<0x400 + 1000).compactMap(Unicode.Scalar.init)))
        let renderer = LabelRenderer(glyphs: glyphs, colorSpace: .bt709Limited)
        renderer.draw(label, size: 512, anchorX: 10, anchorY: 110, clearance: 0, into: layer)
        #expect(glyphs.rasterizedCount <= 3, "\(glyphs.rasterizedCount) glyphs rasterized")
        #expect(!layer.touched.isEmpty)
    }

    /// The glyph cache keeps at most 32 MiB of bitmaps: 600 distinct glyphs at 512 pixels per em
    /// (about 61 MiB, summed independently here) make it start over, so the first is rasterized again.
    @Test func theGlyphCacheIsBounded() throws {
        let glyphs = try GlyphCache(path: AnnotationRenderer.Options.defaultFontPath)
        var bytes = 0
        for codePoint in UInt32(0x400)..<0x400 + 600 { bytes += glyphs.glyph(codePoint, size: 512).coverage.count }
        #expect(bytes > InputLimits.glyphCacheBytes + (1 << 20))
        let before = glyphs.rasterizedCount
        _ = glyphs.glyph(0x400, size: 512)
        #expect(glyphs.rasterizedCount == before + 1, "the first glyph was still cached after \(bytes) bytes of glyphs")
    }
}

/// Issue #24, class 5: numbers stay numbers, and no conversion to an integer can trap.
@Suite struct HostileNumberTests {
    @Test func clampingConversionsNeverTrap() {
        #expect(Int(clamping: .nan, to: 0...10) == 0)
        #expect(Int(clamping: .infinity) == .max && Int(clamping: -.infinity) == .min)
        #expect(Int(clamping: 1e300, to: -5...5) == 5 && Int(clamping: -1e300, to: -5...5) == -5)
        #expect(Int(clamping: 9.223372036854775807e18) == .max)   // 2⁶³: one past Int.max
        #expect(Int(clamping: 2.5, rounding: .toNearestOrAwayFromZero) == 3 && Int(clamping: -2.7) == -2)
        #expect(Int(clamping: 2.1, rounding: .up, to: 0...100) == 3)
    }

    /// Values computed from inputs reach these conversions: a progress estimate of infinite or NaN
    /// seconds, a marker far off (or NaN on) the picture. They used to trap.
    @Test func conversionsOfComputedValuesAreClamped() throws {
        #expect(ProgressReporter.clock(.infinity) == ProgressReporter.clock(Double(Int32.max)))
        #expect(ProgressReporter.clock(.nan) == "0:00")
        // The frame (which owns the pixels) is kept alive while its image is drawn into.
        let frame = TestFrame(width: 32, height: 32)
        let style = MarkerStyle(color: RGBAColor(red: 255, green: 0, blue: 0), radius: 4, thickness: 1)
        for x in [1e300, -1e300, .nan, .infinity] { style.draw(at: x, 16, in: frame.image) }
        #expect(frame.changed.isEmpty, "a marker off the picture drew \(frame.changed.count) pixels")
        style.draw(at: 16, 16, in: frame.image)
        #expect(!frame.changed.isEmpty)
        withExtendedLifetime(frame) {}
    }

    /// A camera a thousand times farther out than the Sun, or a lens of 1e-300 pixels, projects to
    /// infinity: refused as bad input naming the file, line and field.
    @Test(arguments: [
        (#""position": [1e300, 0, 0], "euler": [0, 0.5, 0], "zNear": 0.01, "fovY": 60"#, "(position)"),
        (#""position": [0, 0, 0], "euler": [0, 0, 0], "zNear": 0.01, "intrinsics": {"fx": 1e-300, "fy": 500, "cx": 80, "cy": 60}"#, "(intrinsics)"),
        (#""position": [0, 0, 0], "euler": [0, 0, 0], "zNear": 1e300, "fovY": 60"#, "(zNear)"),
        (#""position": [0, 0, 0], "euler": [0, 0, 0], "zNear": 0.01, "fovY": 1e-300"#, "(fovY)"),
    ])
    func absurdPosesAreBadInput(fields: String, field: String) throws {
        let line2 = "{\"frame\": 1, \(fields)}"
        let text = "{\"frame\": 0, \"position\": [0, 0, 0], \"euler\": [0, 0, 0], \"zNear\": 0.01, \"fovY\": 60}\n" + line2
        let samples = try PoseSidecar.parse(Array(text.utf8), format: .jsonl, file: "p.jsonl")
        let frames = FrameTiming.timings(presentationTimes: [0, 1 / 30.0])
        do {
            _ = try PoseTimeline(samples: samples, frames: frames, source: "p.jsonl")
            Issue.record("accepted \(line2)")
        } catch {
            #expect(error.kind == .badInput && error.message.hasPrefix("p.jsonl:2 \(field)"), "\(error)")
        }
    }

    /// An anchor a hair in front of the camera's plane projects to infinity: its track row leaves x
    /// and y empty (the contract's value for "not on the picture") instead of writing "inf".
    @Test func tracksNeverHoldInfinityOrNaN() throws {
        let pose = Pose(position: [0, 0, 0], euler: [0, 0, 0], zNear: 0, fovY: 60)
        let frame = TrackFrame(time: 0, width: 160, height: 120, pose: pose)
        let anchor = PlacedAnnotation(annotation: Annotation(id: "edge", anchor: .world([1e9, 0, -1e-300])), world: [1e9, 0, -1e-300])
        let rows = PlacementTrack.rows(frames: [frame], annotations: [anchor])
        #expect(rows.count == 1 && rows[0].x == nil && rows[0].y == nil && rows[0].visible == false)
        for format in PlacementTrack.Format.allCases {
            let text = PlacementTrack.text(rows, format: format).lowercased()
            #expect(!text.contains("inf") && !text.contains("nan"), "\(text)")
        }
    }

    /// Out of memory in FFmpeg is a resource failure (exit 4) naming the call, even where the same
    /// call failing otherwise means a bad input (exit 3).
    @Test func ffmpegOutOfMemoryIsExit4NamingTheCall() {
        let enomem = FFmpegFailure(call: "av_frame_get_buffer", code: -ENOMEM)
        let error = enomem.inputError("in.mp4: cannot open decoder")
        #expect(error.exitCode == 4 && error.message == "in.mp4: cannot open decoder: out of memory (av_frame_get_buffer)")
        #expect(FFmpegFailure(call: "avcodec_open2", code: -EINVAL).inputError("in.mp4").exitCode == 3)
    }
}
