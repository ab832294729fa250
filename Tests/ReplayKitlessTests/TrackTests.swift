import Foundation
import Testing
@testable import ReplayKitless

/// Anchor resolution (formats.md §6) and the placement track (§7). Frames 640×480; with fovY 90°,
/// u = (0.75·x/d + 1)·320 and v = (1 − y/d)·240 in camera space.
@Suite struct TrackTests {
    func pose(_ position: SIMD3<Double> = .zero, euler: SIMD3<Double> = .zero, fovY: Double = 90) -> Pose {
        Pose(position: position, euler: euler, zNear: 0.01, fovY: fovY)
    }

    func frame(_ time: Double, _ pose: Pose?) -> TrackFrame { TrackFrame(time: time, width: 640, height: 480, pose: pose) }

    func tapScene(x: Double, y: Double, depth: Double, t: Double = 0, mode: TapAnchor.Mode) -> AnnotationScene {
        AnnotationScene(annotations: [Annotation(id: "tap", anchor: .tap(TapAnchor(t: t, x: x, y: y, depth: depth, mode: mode)))])
    }

    func anchor(_ scene: AnnotationScene, _ frames: [TrackFrame]) throws -> SIMD3<Double> {
        try #require(try scene.placed(frames: frames, file: "scene.json").first).world
    }

    func expectNear(_ a: SIMD3<Double>, _ b: SIMD3<Double>, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(((a - b) * (a - b)).sum().squareRoot() < 1e-9, "got \(a), expected \(b)", sourceLocation: sourceLocation)
    }

    @Test func cameraDepthTapIsOnThePixelsRay() throws {
        // At the origin looking down −Z: the centre at depth 2 is (0, 0, −2), for any fov.
        expectNear(try anchor(tapScene(x: 320, y: 240, depth: 2, mode: .cameraDepth), [frame(0, pose(fovY: 60))]), [0, 0, -2])
        // Pixel (440, 180) at depth 2: x = 2·(440/320 − 1)/0.75 = 1, y = 2·(1 − 180/240) = 0.5.
        expectNear(try anchor(tapScene(x: 440, y: 180, depth: 2, mode: .cameraDepth), [frame(0, pose())]), [1, 0.5, -2])
        // From (0, 0, 1): the camera offset carries over.
        expectNear(try anchor(tapScene(x: 440, y: 180, depth: 2, mode: .cameraDepth), [frame(0, pose([0, 0, 1]))]), [1, 0.5, -1])
    }

    @Test func opentokSampleTapUsesTheDepthOfWorldFrontFromTheOrigin() throws {
        // Camera at (0, 0, 1): P = (0, 0, −2) is 3 m in front, so the centre tap lands on P itself.
        let camera = [frame(0, pose([0, 0, 1]))]
        expectNear(try anchor(tapScene(x: 320, y: 240, depth: 2, mode: .opentokSample), camera), [0, 0, -2])
        // Off centre at view depth 3: x = 3·0.375/0.75 = 1.5, y = 3·0.25 = 0.75, z = 1 − 3 = −2.
        expectNear(try anchor(tapScene(x: 440, y: 180, depth: 2, mode: .opentokSample), camera), [1.5, 0.75, -2])
        // Turned left 90° at (0, 0, 1): forward (−1, 0, 0), P = (−2, 0, 0); P − t = (−2, 0, −1) is 2 m ahead,
        // so the centre tap is 2 m along the view axis from the camera: (−2, 0, 1), not P.
        let turned = [frame(0, pose([0, 0, 1], euler: [0, .pi / 2, 0]))]
        expectNear(try anchor(tapScene(x: 320, y: 240, depth: 2, mode: .opentokSample), turned), [-2, 0, 1])
    }

    @Test func opentokSampleReferenceBehindTheCameraIsAnError() {
        // Camera at (0, 0, −5) looking down −Z: P = (0, 0, −2) is 3 m behind it.
        let scene = tapScene(x: 320, y: 240, depth: 2, mode: .opentokSample)
        let error = replayError { _ = try scene.placed(frames: [frame(0, pose([0, 0, -5]))], file: "scene.json") }
        #expect(error?.kind == .badInput && error?.message.contains("annotation \"tap\"") == true, "\(error?.message ?? "")")
    }

    @Test func tapUsesTheFrameNearestTheTapTime() throws {
        let frames = [frame(0, pose([0, 0, 0])), frame(0.1, pose([5, 0, 0])), frame(0.2, pose([9, 0, 0]))]
        expectNear(try anchor(tapScene(x: 320, y: 240, depth: 1, t: 0.13, mode: .cameraDepth), frames), [5, 0, -1])
        expectNear(try anchor(tapScene(x: 320, y: 240, depth: 1, t: 7, mode: .cameraDepth), frames), [9, 0, -1])
        // Absolute scene times: frame times plus the first frame's stream time.
        let scene = tapScene(x: 320, y: 240, depth: 1, t: 100.21, mode: .cameraDepth)
        expectNear(try #require(try scene.placed(frames: frames, sceneTimeOrigin: 100, file: "s").first).world, [9, 0, -1])
        let hidden = [frame(0, pose()), frame(0.1, nil)]
        let error = replayError { _ = try tapScene(x: 0, y: 0, depth: 1, t: 0.1, mode: .cameraDepth).placed(frames: hidden, file: "s") }
        #expect(error?.message.contains("has no pose") == true)
    }

    @Test func tapAnnotationsAreActiveFromTheTapTimeUnlessFromSaysOtherwise() {
        let tap = Annotation(id: "t", anchor: .tap(TapAnchor(t: 2.4, x: 0, y: 0, depth: 1)))
        let placed = PlacedAnnotation(annotation: tap, world: .zero)
        #expect(!placed.isActive(at: 2.39) && placed.isActive(at: 2.4) && placed.isActive(at: 1e9))
        var early = tap
        early.from = 1
        #expect(PlacedAnnotation(annotation: early, world: .zero).isActive(at: 1.5))
        let world = PlacedAnnotation(annotation: Annotation(id: "w", anchor: .world(.zero), until: 3), world: .zero)
        #expect(world.isActive(at: -5) && world.isActive(at: 3) && !world.isActive(at: 3.001))
    }

    /// Three frames; the third has no pose (hidden). Annotations: "a" 1 m right and 0.5 up at 2 m, from 0.5 s;
    /// "b" behind the camera; "c" far right (u = (0.75·5 + 1)·320 = 1520); "d" until 0.5 s, at depth exactly zNear.
    func simpleTrack() throws -> [PlacementRow] {
        let scene = AnnotationScene(annotations: [
            Annotation(id: "a", anchor: .world([1, 0.5, -2]), from: 0.5),
            Annotation(id: "b", anchor: .world([0, 0, 2])),
            Annotation(id: "c, far", anchor: .world([10, 0, -2])),
            Annotation(id: "d", anchor: .world([0, 0, -0.01]), until: 0.5),
        ])
        let frames = [frame(0, pose()), frame(0.5, pose()), frame(1.0 / 3, nil)]
        return try PlacementTrack.rows(frames: frames, scene: scene, sceneFile: "scene.json")
    }

    /// Rows equal up to floating-point noise in x, y and depth (tan(45°) is not exactly 1 in binary).
    func expectRow(_ row: PlacementRow, _ expected: PlacementRow, sourceLocation: SourceLocation = #_sourceLocation) {
        func near(_ a: Double?, _ b: Double?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case let (a?, b?): abs(a - b) < 1e-9
            default: false
            }
        }
        #expect(row.frame == expected.frame && row.t == expected.t && row.id == expected.id && row.visible == expected.visible
                && near(row.x, expected.x) && near(row.y, expected.y) && near(row.depth, expected.depth),
                "got \(row), expected \(expected)", sourceLocation: sourceLocation)
    }

    @Test func trackRowsFollowTheContract() throws {
        let rows = try simpleTrack()
        #expect(rows.count == 12)
        expectRow(rows[0], PlacementRow(frame: 0, t: 0, id: "a", visible: false, x: 440, y: 180, depth: 2))  // not yet active
        expectRow(rows[1], PlacementRow(frame: 0, t: 0, id: "b", visible: false, x: nil, y: nil, depth: -2))
        expectRow(rows[2], PlacementRow(frame: 0, t: 0, id: "c, far", visible: false, x: 1520, y: 240, depth: 2))
        expectRow(rows[3], PlacementRow(frame: 0, t: 0, id: "d", visible: false, x: 320, y: 240, depth: 0.01))
        expectRow(rows[4], PlacementRow(frame: 1, t: 0.5, id: "a", visible: true, x: 440, y: 180, depth: 2))  // from is inclusive
        expectRow(rows[7], PlacementRow(frame: 1, t: 0.5, id: "d", visible: false, x: 320, y: 240, depth: 0.01))  // d = zNear
        expectRow(rows[8], PlacementRow(frame: 2, t: 1.0 / 3, id: "a", visible: false, x: nil, y: nil, depth: nil))
    }

    @Test func trackTextFormats() throws {
        let rows = try simpleTrack()
        let csv = PlacementTrack.text(rows, format: .csv)
        #expect(csv == """
            frame,t,id,visible,x,y,depth
            0,0.000000,a,0,440.0000,180.0000,2.000000
            0,0.000000,b,0,,,-2.000000
            0,0.000000,"c, far",0,1520.0000,240.0000,2.000000
            0,0.000000,d,0,320.0000,240.0000,0.010000
            1,0.500000,a,1,440.0000,180.0000,2.000000
            1,0.500000,b,0,,,-2.000000
            1,0.500000,"c, far",0,1520.0000,240.0000,2.000000
            1,0.500000,d,0,320.0000,240.0000,0.010000
            2,0.333333,a,0,,,
            2,0.333333,b,0,,,
            2,0.333333,"c, far",0,,,
            2,0.333333,d,0,,,

            """)
        let jsonl = PlacementTrack.text(Array(rows[4...5]), format: .jsonl)
        #expect(jsonl == """
            {"frame": 1, "t": 0.500000, "id": "a", "visible": true, "x": 440.0000, "y": 180.0000, "depth": 2.000000}
            {"frame": 1, "t": 0.500000, "id": "b", "visible": false, "x": null, "y": null, "depth": -2.000000}

            """)
        // Values that round to zero never print a minus sign.
        let tiny = PlacementRow(frame: 0, t: -0.0000001, id: "z", visible: false, x: -0.00001, y: 0, depth: -1e-9)
        #expect(PlacementTrack.text([tiny], format: .csv).hasSuffix("\n0,0.000000,z,0,0.0000,0.0000,0.000000\n"))
    }

    @Test func trackUsesEachFramesOwnSizeAndPose() throws {
        // A resolution change: the same camera-space point lands at the centre of a 1280×720 frame.
        let scene = AnnotationScene(annotations: [Annotation(id: "a", anchor: .world([0, 0, -3]))])
        let frames = [TrackFrame(time: 0, width: 640, height: 480, pose: pose()),
                      TrackFrame(time: 0.04, width: 1280, height: 720, pose: pose([0, 0, 1]))]
        let rows = try PlacementTrack.rows(frames: frames, scene: scene, sceneFile: "s")
        expectRow(rows[0], PlacementRow(frame: 0, t: 0, id: "a", visible: true, x: 320, y: 240, depth: 3))
        expectRow(rows[1], PlacementRow(frame: 1, t: 0.04, id: "a", visible: true, x: 640, y: 360, depth: 4))
    }

    @Test func writesTheFileAtomically() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rows = try simpleTrack()
        try PlacementTrack.write(rows, to: FilePath(folder + "/track.csv"), format: .csv)
        let text = try String(contentsOfFile: folder + "/track.csv", encoding: .utf8)
        #expect(text == PlacementTrack.text(rows, format: .csv))
        #expect(replayError { try PlacementTrack.write(rows, to: FilePath(folder + "/missing/track.csv"), format: .csv) }?.kind == .processing)
    }
}
