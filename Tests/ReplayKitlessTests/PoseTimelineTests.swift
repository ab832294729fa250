import Foundation
import Testing
@testable import ReplayKitless

@Suite struct PoseTimelineTests {
    func sample(_ key: PoseSample.Key, x: Double = 0, yaw: Double = 0, fovY: Double = 60, zNear: Double = 0.01,
                line: Int? = nil) -> PoseSample {
        PoseSample(key: key, position: [x, 0, 0], euler: [0, yaw, 0], zNear: zNear, fovY: fovY, line: line)
    }

    /// Frames at 0, 0.1, 0.2, … lasting 0.1 s each: a sample matches within ±0.05 s.
    func frames(_ count: Int, spacing: Double = 0.1) -> [FrameTiming] {
        (0..<count).map { FrameTiming(time: Double($0) * spacing, duration: spacing) }
    }

    @Test func samplesMatchTheNearestFrameWithinHalfItsDuration() throws {
        let samples = [sample(.time(0.04), x: 1), sample(.time(0.16), x: 2), sample(.time(0.251), x: 3)]
        let timeline = try PoseTimeline(samples: samples, frames: frames(3), options: PoseMatchOptions(policy: .hide),
                                        source: "p.jsonl")
        // 0.04 → frame 0 (0.04 away); 0.16 → frame 2 (0.04 away); 0.251 is 0.051 past frame 2: outside.
        #expect(timeline.poses.map { $0?.position.x } == [1, nil, 2])
        #expect(timeline.report == PoseMatchReport(matched: 2, hidden: 1, unusedSamples: 1, missedSamples: 1))
    }

    @Test func windowIsTheNearestFramesOwnDuration() throws {
        // Variable frame rate: frame 1 lasts only 0.02 s. 0.08 is nearest frame 1 (0.02 away) but outside its ±0.01.
        let vfr = [FrameTiming(time: 0, duration: 0.1), FrameTiming(time: 0.1, duration: 0.02), FrameTiming(time: 0.12, duration: 0.1)]
        let timeline = try PoseTimeline(samples: [sample(.time(0.08)), sample(.time(0.105), x: 5)], frames: vfr,
                                        options: PoseMatchOptions(policy: .hide), source: "p")
        #expect(timeline.poses.map { $0?.position.x } == [nil, 5, nil])
        #expect(timeline.report.unusedSamples == 1)
    }

    @Test func nearestSampleWinsAFrameAndEdgesAreInclusive() throws {
        let samples = [sample(.time(0.13), x: 1), sample(.time(0.09), x: 2), sample(.time(0.05), x: 3), sample(.frame(7), x: 4)]
        let timeline = try PoseTimeline(samples: samples, frames: frames(2), options: PoseMatchOptions(policy: .hide), source: "p")
        // 0.13 and 0.09 both go to frame 1; 0.09 is nearer. 0.05 is exactly halfway: the earlier frame 0 takes it.
        #expect(timeline.poses.map { $0?.position.x } == [3, 2])
        #expect(timeline.report == PoseMatchReport(matched: 2, unusedSamples: 2, missedSamples: 1))  // (frame 7 is past the end)
    }

    /// Samples that meet no frame at all (epoch times against a video timed from 0) are bad input
    /// naming the file and pointing at --pose-time / --pose-offset, unless the user chose `hide`.
    @Test(arguments: [MissingPosePolicy.interpolate, .hold, .fail])
    func samplesThatMissEveryFrameAreBadInput(_ policy: MissingPosePolicy) throws {
        let epoch = [sample(.time(1_732_190_000)), sample(.time(1_732_190_000.1)), sample(.frame(7))]
        let error = replayError {
            _ = try PoseTimeline(samples: epoch, frames: frames(3), options: PoseMatchOptions(policy: policy), source: "cam.csv")
        }
        #expect(error?.kind == .badInput)
        #expect(error?.message.hasPrefix("cam.csv: none of the 3 pose samples matches a frame") == true, "\(String(describing: error))")
        #expect(error?.message.contains("`PoseSettings.absoluteTime`") == true && error?.message.contains("`PoseSettings.offset`") == true)
        #expect(error?.options.contains("PoseSettings.absoluteTime") == true && error?.message.contains("--") == false)
        // Frames 0–0.2 s; samples from 1732190000 to 1732190000.1 s.
        #expect(error?.message.contains("frames from 0.000 to 0.200 s") == true)
        #expect(error?.message.contains("from 1732190000.000 to 1732190000.100 s") == true)

        // Chosen explicitly, hide goes on: every frame hidden, every sample unused.
        let hidden = try PoseTimeline(samples: epoch, frames: frames(3), options: PoseMatchOptions(policy: .hide), source: "cam.csv")
        #expect(hidden.report == PoseMatchReport(hidden: 3, unusedSamples: 3, missedSamples: 3))
        // The right time base matches them (to frames 0 and 1: two frames, so that `fail` has no gap).
        let absolute = try PoseTimeline(samples: epoch, frames: frames(2),
                                        options: PoseMatchOptions(timeBase: .absolute(firstFrameTime: 1_732_190_000), policy: policy),
                                        source: "cam.csv")
        #expect(absolute.report.matched == 2)
    }

    @Test func offsetAndAbsoluteTimeShiftSamples() throws {
        let shifted = try PoseTimeline(samples: [sample(.time(0.5), x: 1)], frames: frames(3),
                                       options: PoseMatchOptions(offset: -0.4, policy: .hide), source: "p")
        #expect(shifted.poses.map { $0?.position.x } == [nil, 1, nil])  // 0.5 − 0.4 = 0.1
        let absolute = try PoseTimeline(samples: [sample(.time(10.2), x: 1)], frames: frames(3),
                                        options: PoseMatchOptions(timeBase: .absolute(firstFrameTime: 10), policy: .hide),
                                        source: "p")
        #expect(absolute.poses.map { $0?.position.x } == [nil, nil, 1])
    }

    @Test func interpolatesADroppedFrame() throws {
        // Frames 0 and 2 have samples; frame 1 (midway) gets the midpoint: yaw 0 → 0.4 slerps to 0.2.
        let a = PoseSample(key: .frame(0), position: [0, 0, 0], euler: [0, 0, 0], zNear: 0.01, fovY: 60)
        let b = PoseSample(key: .frame(2), position: [1, 2, 3], euler: [0, 0.4, 0], zNear: 0.03, fovY: 70)
        let timeline = try PoseTimeline(samples: [a, b], frames: frames(3), source: "p")
        let mid = try #require(timeline.poses[1])
        #expect(abs(mid.position.x - 0.5) < 1e-12 && abs(mid.position.y - 1) < 1e-12 && abs(mid.position.z - 1.5) < 1e-12)
        #expect(abs(mid.zNear - 0.02) < 1e-12 && abs(mid.fovY - 65) < 1e-12)
        // Ry(0.2) by hand: columns (cos 0.2, 0, −sin 0.2), (0, 1, 0), (sin 0.2, 0, cos 0.2).
        let (c, s) = (cos(0.2), sin(0.2))
        let expected: [[Double]] = [[c, 0, s], [0, 1, 0], [-s, 0, c]]  // rows
        for row in 0..<3 {
            for column in 0..<3 { #expect(abs(mid.rotation[row, column] - expected[row][column]) < 1e-12) }
        }
        #expect(timeline.report == PoseMatchReport(matched: 2, interpolated: 1))
    }

    @Test func lensesOfDifferentKindsAreNotMixed() throws {
        // Frame 0 has intrinsics only, frame 3 a field of view only: frame 1 (a third of the way) keeps
        // frame 0's intrinsics, frame 2 takes frame 3's 60°; nothing gets a field of view of 20° (⅓ of 0…60).
        let k = Intrinsics(fx: 64, fy: 36, cx: 80, cy: 45)
        for (first, last) in [(0, 3), (3, 0)] {
            var samples = [PoseSample(key: .frame(first), position: .zero, euler: .zero, zNear: 0.01, fovY: nil, intrinsics: k),
                           PoseSample(key: .frame(last), position: .zero, euler: .zero, zNear: 0.01, fovY: 60)]
            if first > last { samples.reverse() }
            let timeline = try PoseTimeline(samples: samples, frames: frames(4), source: "p")
            let near0 = try #require(timeline.poses[first == 0 ? 1 : 2]), near3 = try #require(timeline.poses[first == 0 ? 2 : 1])
            #expect(near0.intrinsics == k, "\(near0)")
            #expect(near3.intrinsics == nil && near3.fovY == 60, "\(near3)")
        }
        // Two fields of view, or two sets of intrinsics, mix.
        let k2 = Intrinsics(fx: 94, fy: 66, cx: 50, cy: 15)
        let both = try PoseTimeline(samples: [PoseSample(key: .frame(0), position: .zero, euler: .zero, zNear: 0.01, fovY: nil, intrinsics: k),
                                              PoseSample(key: .frame(3), position: .zero, euler: .zero, zNear: 0.01, fovY: nil, intrinsics: k2)],
                                    frames: frames(4), source: "p")
        let mixed = try #require(both.poses[1]?.intrinsics)
        #expect(abs(mixed.fx - 74) < 1e-9 && abs(mixed.fy - 46) < 1e-9 && abs(mixed.cx - 70) < 1e-9 && abs(mixed.cy - 35) < 1e-9)
    }

    @Test func interpolationFollowsSampleTimesAndTakesTheShortArc() throws {
        // Samples at t = 0 and 0.4 (frames 0 and 4); frame 1 is a quarter of the way.
        // Yaw 3.0 → −3.0 crosses ±π: the short way is 0.283 rad through π, so a quarter is 3.0 + 0.0708.
        let samples = [sample(.time(0), x: 0, yaw: 3.0), sample(.time(0.4), x: 4, yaw: -3.0)]
        let timeline = try PoseTimeline(samples: samples, frames: frames(5), source: "p")
        let quarter = try #require(timeline.poses[1])
        #expect(abs(quarter.position.x - 1) < 1e-12)
        let expectedYaw = 3.0 + (2 * .pi - 6.0) / 4
        // Rotation about Y by expectedYaw: R[0,0] = cos, R[0,2] = sin.
        #expect(abs(quarter.rotation[0, 0] - cos(expectedYaw)) < 1e-12 && abs(quarter.rotation[0, 2] - sin(expectedYaw)) < 1e-12)
        #expect(timeline.report.interpolated == 3)
    }

    /// Frames 0–5, samples on frames 1 and 3 only.
    func policyRun(_ policy: MissingPosePolicy) throws -> PoseTimeline {
        try PoseTimeline(samples: [sample(.frame(1), x: 1), sample(.frame(3), x: 3)], frames: frames(6),
                         options: PoseMatchOptions(policy: policy), source: "p.csv")
    }

    @Test func policiesFillTheGapsAndCountThem() throws {
        let interpolate = try policyRun(.interpolate)
        #expect(interpolate.poses.map { $0?.position.x } == [1, 1, 2, 3, 3, 3])
        #expect(interpolate.report == PoseMatchReport(matched: 2, interpolated: 1, held: 3))

        let hold = try policyRun(.hold)
        #expect(hold.poses.map { $0?.position.x } == [1, 1, 1, 3, 3, 3])  // before the first sample: the first
        #expect(hold.report == PoseMatchReport(matched: 2, held: 4))

        let hide = try policyRun(.hide)
        #expect(hide.poses.map { $0?.position.x } == [nil, 1, nil, 3, nil, nil])
        #expect(hide.report == PoseMatchReport(matched: 2, hidden: 4))
    }

    @Test func failNamesTheFirstFrameWithoutAPose() {
        let error = replayError { _ = try policyRun(.fail) }
        #expect(error?.kind == .badInput)
        #expect(error?.message.contains("p.csv") == true && error?.message.contains("frame 0 at t=0.000000 s") == true,
                "\(error?.message ?? "")")
    }

    @Test func overridesApplyAndLensIsCheckedAfterThem() throws {
        let bad = sample(.time(0), fovY: 0, line: 7)
        let error = replayError { _ = try PoseTimeline(samples: [bad], frames: frames(1), source: "cam.jsonl") }
        #expect(error?.message.hasPrefix("cam.jsonl:7 (fovY)") == true, "\(error?.message ?? "")")
        let record = PoseSample(key: .frame(3), pose32: Pose32(position: .zero, euler: .zero, zNear: -1, fovY: 60))
        let zNear = replayError { _ = try PoseTimeline(samples: [record], frames: frames(1), source: "cam.pose32") }
        #expect(zNear?.message.hasPrefix("cam.pose32 (frame 3, zNear)") == true, "\(zNear?.message ?? "")")

        let overrides = try PoseOverrides(fovY: 50, zNear: 0.2)
        let fixed = try PoseTimeline(samples: [bad], frames: frames(2), options: PoseMatchOptions(overrides: overrides),
                                     source: "cam.jsonl")
        #expect(fixed.poses.allSatisfy { $0?.fovY == 50 && $0?.zNear == 0.2 })
    }

    @Test func timingsFromPresentationTimes() {
        #expect(FrameTiming.timings(presentationTimes: [0, 0.04, 0.1]) ==
                [FrameTiming(time: 0, duration: 0.04), FrameTiming(time: 0.04, duration: 0.1 - 0.04),
                 FrameTiming(time: 0.1, duration: 0.1 - 0.04)])
        #expect(FrameTiming.timings(presentationTimes: [2], lastDuration: 0.5) == [FrameTiming(time: 2, duration: 0.5)])
    }
}
