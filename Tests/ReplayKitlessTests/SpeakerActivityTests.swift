import Foundation
import Testing
@testable import ReplayKitless

/// The pieces of formats.md §9's `speaker` rule that the composed pictures cannot show alone:
/// the dBFS scale, how windows merge into cues and how a cue file spells them, and the focus
/// rule's edge cases on a made-up window sequence.
@Suite struct SpeakerActivityTests {
    static func stream(_ id: String, _ name: String, start: Double = 0, stop: Double = 60, video: Bool = true) -> CallStream {
        CallStream(id: id, name: name, videoType: "camera", order: 0, tracks: [
            CallTrack(path: FilePath("\(id).mkv"), name: "\(id).mkv", start: start, stop: stop, mediaStart: 0, mediaEnd: stop - start,
                      hasVideo: video, hasAudio: true),
        ])
    }

    @Test func aFullScaleSineIsMinusThreeDecibels() {
        // RMS of a full-scale sine is 1/√2: its mean square is 1/2.
        #expect(abs(SpeakerActivity.decibels(meanSquare: 0.5) - (-3.0103)) < 1e-4)
        #expect(SpeakerActivity.decibels(meanSquare: 1) == 0)
        #expect(SpeakerActivity.decibels(meanSquare: 0) == -.infinity)
    }

    @Test func consecutiveWindowsMergeIntoOneCueWithItsNameEscaped() {
        let call = Call(source: "call.json", manifest: "call.json", epoch: nil,
                        streams: [Self.stream("a", "Ann <host> & co"), Self.stream("b", "Bob")])
        let activity = SpeakerActivity(firstWindow: 36_000, loudest: ["a", "a", nil, "b", "b", "b", "a"])
        #expect(activity.spans.map(\.windows) == [36_000..<36_002, 36_003..<36_006, 36_006..<36_007])
        #expect(activity.webVTT(for: call, from: 3600, to: 3600.65) == """
            WEBVTT

            00:00:00.000 --> 00:00:00.200
            Ann &lt;host&gt; &amp; co

            00:00:00.300 --> 00:00:00.600
            Bob

            00:00:00.600 --> 00:00:00.650
            Ann &lt;host&gt; &amp; co

            """)
        #expect(SpeakerActivity.cueTime(3723.4) == "01:02:03.400")
    }

    /// A speaker whose video is not shown when they have spoken long enough does not take the
    /// focus; a stream that is only heard never does; the start is the first shown at `from`.
    @Test func onlyAShownParticipantTakesTheFocus() {
        let call = Call(source: "call.json", manifest: "call.json", epoch: nil, streams: [
            Self.stream("late", "Late", start: 5), Self.stream("cam", "Cam"), Self.stream("voice", "Voice", video: false),
        ])
        let participants = CallParticipant.withVideo(in: call)
        #expect(participants.map(\.name) == ["Cam", "Late"])
        // "late" speaks 0.0–1.5 s (not yet shown at 1.0 s), "voice" 1.5–3.0 s, "late" again from 5.0 s.
        let loudest: [String?] = Array(repeating: "late", count: 15) + Array(repeating: "voice", count: 15)
            + Array(repeating: nil, count: 20) + Array(repeating: "late", count: 10)
        let timeline = FocusTimeline(speaker: SpeakerActivity(firstWindow: 0, loudest: loudest), participants: participants, from: 0)
        #expect(timeline.moves.map { $0.participant } == [0, 1])
        #expect(timeline.moves.last?.window == 60)
    }
}
