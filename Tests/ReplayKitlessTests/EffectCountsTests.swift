import Foundation
import Testing
@testable import ReplayKitless

/// A report's `effects` object: typed members for the library's effects, the rest by name, and
/// the JSON the reports have always written.
@Suite struct EffectCountsTests {
    private let json = """
    {"background": {"framesMasked": 10, "framesReplaced": 9, "masksHeld": 1, "framesKeptOriginal": 0, "maskDecodeErrors": 2},
     "annotations": {"annotations": 3, "framesDrawn": 8, "framesWithoutPose": 2},
     "poses": {"matched": 7, "interpolated": 1, "held": 1, "hidden": 1, "unusedSamples": 4, "framesWithPoseSEI": 9},
     "cornerBox": {"framesPainted": 10}}
    """

    @Test func readsTheReportsObjectIntoTypes() throws {
        let counts = try JSONDecoder().decode(EffectCounts.self, from: Data(json.utf8))
        #expect(counts.background == BackgroundCounts(framesMasked: 10, framesReplaced: 9, masksHeld: 1, framesKeptOriginal: 0, maskDecodeErrors: 2))
        #expect(counts.annotations == AnnotationCounts(annotations: 3, framesDrawn: 8, framesWithoutPose: 2))
        #expect(counts.poses?.framesWithPoseSEI == 9 && counts.poses?.report == PoseMatchReport(matched: 7, interpolated: 1, held: 1, hidden: 1, unusedSamples: 4))
        #expect(counts.custom == ["cornerBox": ["framesPainted": 10]])
    }

    @Test func writesTheSameObjectBack() throws {
        let counts = try JSONDecoder().decode(EffectCounts.self, from: Data(json.utf8))
        let written = try JSONSerialization.jsonObject(with: JSONEncoder().encode(counts)) as? NSDictionary
        let original = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary
        #expect(written == original)
        // Members absent are not written: no `backgroundLoops` without a background video, no empty effects.
        #expect(String(decoding: try JSONEncoder().encode(EffectCounts()), as: UTF8.self) == "{}")
    }

    @Test func aParticipantsTracksAddUp() {
        var first = EffectCounts(), second = EffectCounts()
        first.background = BackgroundCounts(framesMasked: 5, framesReplaced: 5, backgroundLoops: 1)
        second.background = BackgroundCounts(framesMasked: 3, framesReplaced: 2)
        second.annotations = AnnotationCounts(annotations: 3, framesDrawn: 4, framesWithoutPose: 1)
        first.custom = ["cornerBox": ["framesPainted": 5]]
        second.custom = ["cornerBox": ["framesPainted": 3, "other": 1]]
        first.add(second)
        #expect(first.background == BackgroundCounts(framesMasked: 8, framesReplaced: 7, backgroundLoops: 1))
        #expect(first.annotations == second.annotations)
        #expect(first.custom == ["cornerBox": ["framesPainted": 8, "other": 1]])
    }
}
