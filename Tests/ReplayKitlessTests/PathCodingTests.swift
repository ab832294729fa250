import Foundation
import ReplayKitless
import Testing

/// Paths are `FilePath`s in the API and plain strings in the JSON (options, reports, fingerprints),
/// as they were when the properties were strings: `FilePath`'s own coding would write its storage.
@Suite struct PathCodingTests {
    func object(_ data: Data) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func optionPathsAreWrittenAsPlainStringsAndReadBack() throws {
        var options = RenderOptions(input: "https://host/in.mp4", output: "out/a.mp4")
        options.otherInputs = ["job.yaml", "tracks/a.csv"]
        options.poses = PoseSettings(source: .sidecar(path: "call.poses.jsonl"))
        options.annotations = AnnotationSettings(scene: "annotations.json")
        let json = try JSONEncoder().encode(options)
        let root = try object(json)
        #expect(root["input"] as? String == "https://host/in.mp4")
        #expect(root["output"] as? String == "out/a.mp4")
        #expect(root["otherInputs"] as? [String] == ["job.yaml", "tracks/a.csv"])
        let annotations = try #require(root["annotations"] as? [String: Any])
        #expect(annotations["scene"] as? String == "annotations.json")
        #expect(annotations["font"] == nil, "an absent optional path leaves its key out, as a nil String did")
        let source = try #require((root["poses"] as? [String: Any])?["source"] as? [String: Any])
        #expect((source["sidecar"] as? [String: Any])?["path"] as? String == "call.poses.jsonl")
        #expect(try JSONDecoder().decode(RenderOptions.self, from: json) == options)

        options.annotations?.font = "fonts/Label.ttf"
        options.poses = PoseSettings(source: .sei)
        let withFont = try JSONEncoder().encode(options)
        let reread = try object(withFont)
        #expect((reread["annotations"] as? [String: Any])?["font"] as? String == "fonts/Label.ttf")
        #expect(((reread["poses"] as? [String: Any])?["source"] as? [String: Any])?["sei"] as? [String: Any] != nil)
        #expect(try JSONDecoder().decode(RenderOptions.self, from: withFont) == options)
    }

    /// JSON written before the paths were `FilePath`s (a batch's options, a saved report) still reads.
    @Test func jsonWithStringPathsReads() throws {
        let text = #"{"source":{"sidecar":{"path":"p.csv"}},"absoluteTime":false,"offset":0,"clockOffset":0,"missingPose":"interpolate"}"#
        let settings = try JSONDecoder().decode(PoseSettings.self, from: Data(text.utf8))
        #expect(settings.source == .sidecar(path: "p.csv"))
        let scene = #"{"scene":"a.json","occludeWithMask":true}"#
        let annotations = try JSONDecoder().decode(AnnotationSettings.self, from: Data(scene.utf8))
        #expect(annotations.scene == "a.json" && annotations.font == nil && annotations.occludeWithMask)
    }

    @Test func reportPathsAreWrittenAsPlainStrings() throws {
        let a = PlacementTrack(file: "runs/a.csv", rows: []), b = PlacementTrack(file: "runs/b.csv", rows: [])
        let comparison = try object(JSONEncoder().encode(TrackComparisonReport(comparing: a, with: b)))
        #expect(comparison["fileA"] as? String == "runs/a.csv" && comparison["fileB"] as? String == "runs/b.csv")
        // A report's output as `--report` has always written it reads and is written back byte for byte.
        let written = #"{"bytes":1,"codec":"libx264","container":"mp4","copiedStreams":0,"height":2,"path":"out/a b.mp4","pixelFormat":"yuv420p","width":2}"#
        let output = try JSONDecoder().decode(RenderReport.OutputProperties.self, from: Data(written.utf8))
        #expect(output.path == "out/a b.mp4")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(String(decoding: try encoder.encode(output), as: UTF8.self) == written)
    }
}
