import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import ReplayKitless

@Suite struct QALatencyTests {
    static let width = 640, height = 480
    /// fovY 60°: focal length in pixels H / (2·tan 30°).
    static let focal = 480 / (2 * tan(Double.pi / 6))
    static let times = (0..<90).map { Double($0) / 30 }

    /// A tap on the centre pixel at depth `depth`: the point `depth` metres down the camera's forward
    /// axis (−Z, the rotation's third column negated).
    static func centreTap(id: String = "tap", t: Double, depth: Double = 2, until: Double? = nil) -> LatencyTap {
        LatencyTap(id: id, t: t, until: until) { pose in pose.position - pose.rotation.columns.2 * depth }
    }

    /// A camera sliding along +X at `speed` m/s, looking down −Z.
    static func sliding(speed: Double) throws -> LatencyQA {
        try LatencyQA(times: times, poses: times.map { Pose(position: [speed * $0, 0, 0], euler: .zero, zNear: 0.01, fovY: 60) },
                      width: width, height: height)
    }

    @Test func slidingCameraGivesConstantError() throws {
        let qa = try Self.sliding(speed: 2)
        let result = qa.evaluate(Self.centreTap(t: 1.0), delay: 0.2)
        #expect(result.tapFrame == FrameReference(frame: 30, t: 1.0))
        #expect(result.lateFrame.frame == 36)
        // Late anchor 2 m/s · 0.2 s = 0.4 m to the right at the same depth 2 m: focal · 0.4 / 2 px on every frame.
        let expected = Self.focal * 0.4 / 2
        let error = try #require(result.error)
        for value in [error.mean, error.median, error.p95, error.max] { #expect(abs(value - expected) < 1e-9) }
        // Both on screen while the true anchor (u = 320 + focal·(2 − 2t)/2) has not left the left edge.
        let onScreen = (30..<90).filter { k in
            let u = 320 + Self.focal * (2 - 2 * Self.times[k]) / 2
            return u >= 0 && u < 640
        }
        #expect(result.compared == onScreen.count && onScreen.count == 24)
        #expect(result.samples.map(\.frame) == onScreen)
    }

    /// A tap whose anchor is never on screen compares nothing: with a tolerance that is a failure,
    /// not a pass (nothing was checked); without one it is only reported.
    @Test func nothingComparedFailsATolerance() throws {
        let qa = try Self.sliding(speed: 2)
        let behind = LatencyTap(id: "behind", t: 1.0, until: nil) { pose in pose.position + pose.rotation.columns.2 * 2 }
        let checked = qa.evaluate(behind, delay: 0.2, tolerance: 5)
        #expect(checked.compared == 0 && checked.error == nil && !checked.passed)
        #expect(qa.evaluate(behind, delay: 0.2).passed)
    }

    @Test func turningCameraMatchesTangentFormula() throws {
        let omega = 0.3 // rad/s of yaw
        let poses = Self.times.map { Pose(position: .zero, euler: [0, omega * $0, 0], zNear: 0.01, fovY: 60) }
        let qa = try LatencyQA(times: Self.times, poses: poses, width: Self.width, height: Self.height)
        let result = qa.evaluate(Self.centreTap(t: 0.5), delay: 0.1)
        #expect(result.tapFrame.frame == 15 && result.lateFrame.frame == 18)
        // A point at yaw φ seen by a camera at yaw θ sits at u = W/2 − focal·tan(φ − θ), v = H/2.
        let tapYaw = omega * Self.times[15], lateYaw = omega * Self.times[18]
        var expected: [Double] = []
        for k in 15..<90 {
            let yaw = omega * Self.times[k]
            let u1 = 320 - Self.focal * tan(tapYaw - yaw), u2 = 320 - Self.focal * tan(lateYaw - yaw)
            if (0..<640).contains(u1), (0..<640).contains(u2) { expected.append(abs(u1 - u2)) }
        }
        #expect(result.samples.count == expected.count && expected.count > 20)
        for (sample, value) in zip(result.samples, expected) { #expect(abs(sample.error - value) < 1e-6) }
        #expect(abs((result.error?.max ?? 0) - (expected.max() ?? -1)) < 1e-6)
    }

    @Test func zeroDelayHasNoError() throws {
        let result = try Self.sliding(speed: 2).evaluate(Self.centreTap(t: 1.0), delay: 0)
        #expect(result.lateFrame == result.tapFrame && result.error?.max == 0 && result.compared > 0)
    }

    @Test func nearestFramesAndUntil() throws {
        let qa = try Self.sliding(speed: 0.1)
        // 1.01 s is nearest frame 30 (1.0 s); 1.21 s nearest frame 36 (1.2 s), not 37 (1.2333 s).
        let result = qa.evaluate(Self.centreTap(t: 1.01, until: 1.5), delay: 0.2)
        #expect(result.tapFrame.frame == 30 && result.lateFrame.frame == 36)
        // Frames 30 … 45 (1.5 s) only.
        #expect(result.samples.first?.frame == 30 && result.samples.last?.frame == 45 && result.compared == 16)
        // A delay beyond the end resolves with the last frame.
        #expect(qa.evaluate(Self.centreTap(t: 2.9), delay: 5).lateFrame.frame == 89)
    }

    @Test func reportTableJSONAndPlot() throws {
        let qa = try Self.sliding(speed: 2)
        let taps = [Self.centreTap(id: "a", t: 0.5), Self.centreTap(id: "b", t: 1.0, depth: 4)]
        // Errors: a and b at 100 ms are focal·0.2/2 = 41.6 px and focal·0.2/4 = 20.8 px.
        let report = qa.report(taps: taps, delays: [0, 0.1, 0.2], tolerance: 30)
        #expect(report.results.map(\.id) == ["a", "b", "a", "b", "a", "b"])
        #expect(report.results.map(\.passed) == [true, true, false, true, false, false])
        #expect(!report.passed)
        let text = report.text
        #expect(text.contains("FAIL: a at 100 ms, a at 200 ms, b at 200 ms"))
        #expect(report.table.rows.count == 6 && report.table.rows[2][0] == "100" && report.table.rows[2][1] == "a")
        var decoded = try QAOutput.decode(LatencyReport.self, from: try report.json())
        for index in decoded.results.indices { decoded.results[index].samples = report.results[index].samples }
        #expect(decoded == report)
        let xml = try #require(XMLCollector.parse(report.plot(delay: 0.1).svg()))
        #expect(xml.elements.filter { $0.name == "polyline" }.count == 2)
        #expect(report.html(directory: "/tmp").components(separatedBy: "<svg").count == 4)
    }

    /// Latency taps resolve exactly as the scene places tap anchors, in both modes; with no delay the
    /// late anchor is the true one, so the error is exactly 0.
    @Test func tapsResolveAsTheSceneDoes() throws {
        let poses = Self.times.map { Pose(position: [0.5 * $0, 0.1, 0], euler: [0.05, 0.3 * $0, 0], zNear: 0.01, fovY: 60) }
        let scene = AnnotationScene(annotations: [
            Annotation(id: "world", anchor: .world([0, 0, -1])),
            Annotation(id: "depth", anchor: .tap(TapAnchor(t: 0.5, x: 100, y: 200, depth: 2))),
            Annotation(id: "sample", anchor: .tap(TapAnchor(t: 1.0, x: 500, y: 90, depth: 1.5, mode: .opentokSample))),
        ])
        let frames = zip(Self.times, poses).map { TrackFrame(time: $0, width: Self.width, height: Self.height, pose: $1) }
        let placed = try scene.placed(frames: frames, file: "scene.json")
        let taps = LatencyTap.taps(in: scene, width: Self.width, height: Self.height)
        #expect(taps.map(\.id) == ["depth", "sample"])
        #expect(taps[0].resolve(poses[15]) == placed[1].world && taps[1].resolve(poses[30]) == placed[2].world)
        let qa = try LatencyQA(times: Self.times, poses: poses, width: Self.width, height: Self.height)
        for tap in taps {
            let result = qa.evaluate(tap, delay: 0)
            #expect(result.compared > 0 && result.error?.max == 0 && result.note == nil)
            #expect((qa.evaluate(tap, delay: 0.2).error?.max ?? 0) > 1)
        }
    }

    @Test func framesWithoutPoseAreSkipped() throws {
        let poses: [Pose?] = Self.times.indices.map { $0 % 10 == 5 ? nil : Pose(position: [2 * Self.times[$0], 0, 0], euler: .zero, zNear: 0.01, fovY: 60) }
        let qa = try LatencyQA(times: Self.times, poses: poses, width: Self.width, height: Self.height)
        let result = qa.evaluate(Self.centreTap(t: 1.0), delay: 0.2)
        // The 24 frames 30…53 on screen (see slidingCameraGivesConstantError), less 35, 45 without a pose.
        #expect(result.compared == 22 && !result.samples.contains { $0.frame % 10 == 5 })
        let lost = qa.evaluate(Self.centreTap(t: 0.5), delay: 0.2)
        #expect(lost.compared == 0 && lost.error == nil && lost.note == "frame 15 has no pose" && lost.passed)
        #expect(qa.report(taps: [Self.centreTap(t: 0.5)], delays: [0.2]).text.contains("tap at 200 ms: frame 15 has no pose"))
    }

    @Test func badFramesAreRejected() {
        let pose = Pose(position: .zero, euler: .zero, zNear: 0.01, fovY: 60)
        #expect(throws: ReplayError.self) { try LatencyQA(times: [0, 1], poses: [pose], width: 8, height: 8) }
        #expect(throws: ReplayError.self) { try LatencyQA(times: [1, 0], poses: [pose, pose], width: 8, height: 8) }
        #expect(throws: ReplayError.self) { try LatencyQA(times: [], poses: [], width: 8, height: 8) }
        #expect(throws: ReplayError.self) { try LatencyQA(times: [0], poses: [pose], width: 0, height: 8) }
    }

    @Test func delaysParse() throws {
        #expect(try LatencyQA.parseDelay("200ms") == 0.2)
        #expect(try LatencyQA.parseDelay("0.25s") == 0.25)
        #expect(try LatencyQA.parseDelay("1.5") == 1.5)
        for bad in ["", "ms", "-5ms", "fast", "1e999"] {
            #expect(throws: ReplayError.self) { try LatencyQA.parseDelay(bad) }
        }
    }
}
