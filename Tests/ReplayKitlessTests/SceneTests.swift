import Foundation
import Testing
@testable import ReplayKitless

@Suite struct SceneTests {
    func parse(_ json: String, base: String = "/scenes") throws -> AnnotationScene {
        try AnnotationScene(json: Array(json.utf8), file: "scene.json", baseDirectory: FilePath(base))
    }

    func error(_ json: String) -> ReplayError? { replayError { _ = try parse(json) } }

    @Test func readsTheDocumentedExampleWithDefaults() throws {
        let scene = try parse("""
            {
              "version": 1,
              "annotations": [
                {"id": "valve", "anchor": {"world": [0.2, 0.0, -1.5]},
                 "shape": "sphere", "size": 0.05, "color": "#FF3B30",
                 "label": "Check valve", "from": 1.0, "until": 8.0},
                {"id": "tap-1", "anchor": {"tap": {"t": 2.4, "x": 320, "y": 180, "depth": 2.0}},
                 "shape": "pin", "size": 0.1, "color": "#34C759"}
              ]
            }
            """)
        #expect(scene.annotations.count == 2)
        let valve = scene.annotations[0]
        #expect(valve == Annotation(id: "valve", anchor: .world([0.2, 0, -1.5]), shape: .sphere, size: 0.05,
                                    color: RGBAColor(red: 0xFF, green: 0x3B, blue: 0x30), label: "Check valve",
                                    from: 1, until: 8))
        let tap = scene.annotations[1]
        #expect(tap.anchor == .tap(TapAnchor(t: 2.4, x: 320, y: 180, depth: 2, mode: .cameraDepth)))
        #expect(tap.shape == .pin && tap.size == 0.1 && tap.color == RGBAColor(red: 0x34, green: 0xC7, blue: 0x59))
        // Defaults: label none, 18 px labels, no times, no orientation, spin or stem.
        #expect(tap.label == nil && tap.labelSize == 18 && tap.from == nil && tap.until == nil)
        #expect(tap.orientation == .zero && !tap.billboard && tap.spin == 0 && !tap.stem)
    }

    @Test func readsEveryOptionalKey() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/models", withIntermediateDirectories: true)
        try Data("v 0 0 0\n".utf8).write(to: URL(fileURLWithPath: folder + "/models/star.obj"))
        let scene = try parse("""
            {"annotations": [{"id": "m", "anchor": {"tap": {"t": 1, "x": 2, "y": 3, "depth": 4, "mode": "opentok-sample"}},
              "shape": "mesh", "mesh": "models/star.obj", "size": 0.2, "color": "#11223344", "label": "",
              "labelSize": 24.5, "from": 0.5, "until": 0.5, "orientation": [0.1, -0.2, 0.3], "billboard": true,
              "spin": 0.333, "stem": true}], "version": 1}
            """, base: folder)
        let m = try #require(scene.annotations.first)
        #expect(m.anchor == .tap(TapAnchor(t: 1, x: 2, y: 3, depth: 4, mode: .opentokSample)))
        #expect(m.shape == .mesh(path: FilePath(folder + "/models/star.obj")))
        #expect(m.size == 0.2 && m.color == RGBAColor(red: 0x11, green: 0x22, blue: 0x33, alpha: 0x44))
        #expect(m.label == "" && m.labelSize == 24.5 && m.from == 0.5 && m.until == 0.5)
        #expect(m.orientation == [0.1, -0.2, 0.3] && m.billboard && m.spin == 0.333 && m.stem)
    }

    @Test func loadResolvesMeshesNextToTheSceneFile() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("v 0 0 0\n".utf8).write(to: URL(fileURLWithPath: folder + "/ball.obj"))
        let json = #"{"version": 1, "annotations": [{"id": "b", "anchor": {"world": [0, 0, -1]}, "shape": "mesh", "mesh": "ball.obj"}]}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: folder + "/annotations.json"))
        let scene = try AnnotationScene.load(path: FilePath(folder + "/annotations.json"))
        #expect(scene.annotations.first?.shape == .mesh(path: FilePath(folder + "/ball.obj")))
    }

    /// Unknown keys name the file, the line, the annotation (id, or index without one) and the key.
    @Test(arguments: [
        (#"{"version": 1, "annotations": [], "extra": 1}"#, "scene.json:1 (key \"extra\")"),
        ("{\"version\": 1, \"annotations\": [\n{\"id\": \"a\", \"anchor\": {\"world\": [0,0,0]},\n \"colour\": \"#FFFFFF\"}]}",
         "scene.json:3 (annotation \"a\", key \"colour\")"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}}, {"anchor": {"world": [0,0,0]}, "sise": 1}]}"#,
         "(annotations[1], key \"sise\")"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"tap": {"t": 0, "x": 0, "y": 0, "depth": 1, "dpth": 2}}}]}"#,
         "(annotation \"a\", key \"anchor.tap.dpth\")"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0], "wrold": [1,1,1]}}]}"#,
         "(annotation \"a\", key \"anchor.wrold\")"),
    ])
    func unknownKeysAreErrors(json: String, place: String) {
        let failure = error(json)
        #expect(failure?.kind == .badInput)
        #expect(failure?.message.contains(place) == true, "\(failure?.message ?? "")")
        #expect(failure?.message.contains("unknown key") == true)
    }

    /// Bad values name the annotation and key and say what is expected.
    @Test(arguments: [
        (#"{"annotations": []}"#, "key \"version\")", "missing"),
        (#"{"version": 2, "annotations": []}"#, "key \"version\")", "must be 1"),
        (#"{"version": 1}"#, "key \"annotations\")", "missing"),
        (#"{"version": 1, "annotations": {}}"#, "key \"annotations\")", "array"),
        (#"{"version": 1, "annotations": [{"anchor": {"world": [0,0,0]}}]}"#, "annotations[0], key \"id\")", "missing"),
        (#"{"version": 1, "annotations": [{"id": 7, "anchor": {"world": [0,0,0]}}]}"#, "annotations[0], key \"id\")", "string"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}}, {"id": "a", "anchor": {"world": [0,0,0]}}]}"#,
         "annotation \"a\", key \"id\")", "twice"),
        (#"{"version": 1, "annotations": [{"id": "a\nb", "anchor": {"world": [0,0,0]}}]}"#, "key \"id\")", "control characters"),
        (#"{"version": 1, "annotations": [{"id": "a"}]}"#, "annotation \"a\", key \"anchor\")", "missing"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,1e308,0]}}]}"#, "key \"anchor.world\")", "within ±1e9"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"tap": {"t": 0, "x": 0, "y": 0, "depth": 1e308}}}]}"#,
         "key \"anchor.tap.depth\")", "at most 1e9"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "size": 1e308}]}"#, "key \"size\")", "at most 1e9"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {}}]}"#, "annotation \"a\", key \"anchor\")", "expected"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0]}}]}"#, "key \"anchor.world\")", "[x, y, z]"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"tap": {"t": 0, "x": 0, "y": 0}}}]}"#,
         "key \"anchor.tap.depth\")", "missing"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"tap": {"t": 0, "x": 0, "y": 0, "depth": 0}}}]}"#,
         "key \"anchor.tap.depth\")", "greater than 0"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"tap": {"t": 0, "x": 0, "y": 0, "depth": 1, "mode": "x"}}}]}"#,
         "key \"anchor.tap.mode\")", "camera-depth"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "shape": "cube"}]}"#, "key \"shape\")", "sphere"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "shape": "mesh"}]}"#, "key \"mesh\")", "missing"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "mesh": "x.obj"}]}"#, "key \"mesh\")", "only allowed"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "shape": "mesh", "mesh": "none.obj"}]}"#,
         "key \"mesh\")", "/scenes/none.obj"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "shape": "mesh", "mesh": "/tmp"}]}"#,
         "key \"mesh\")", "/tmp (a directory)"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "size": -1}]}"#, "key \"size\")", "greater than 0"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "color": "FF0000"}]}"#, "key \"color\")", "#RRGGBB"),
        (##"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "color": "#FF00"}]}"##, "key \"color\")", "#RRGGBB"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "label": 3}]}"#, "key \"label\")", "string"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "labelSize": 0}]}"#, "key \"labelSize\")", "pixels"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "from": "1"}]}"#, "key \"from\")", "seconds"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "from": 2, "until": 1}]}"#, "key \"until\")", "before"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "orientation": [1]}]}"#, "key \"orientation\")", "pitch"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "billboard": 1}]}"#, "key \"billboard\")", "true or false"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "spin": null}]}"#, "key \"spin\")", "turns"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]}, "stem": "yes"}]}"#, "key \"stem\")", "true or false"),
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0,0,0]},}]}"#, "scene.json:1", "not valid JSON"),
        // A huge number is quoted by its start only.
        (#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [1"# + String(repeating: "0", count: 5000) + #",0,0]}}]}"#,
         "scene.json:1", "number 10000000000000000000000000000000… (5001 characters) is out of range"),
        ("[1]", "scene.json:1", "JSON object"),
    ])
    func badValuesNameKeyAndExpectation(json: String, place: String, expectation: String) {
        let failure = error(json)
        #expect(failure?.kind == .badInput)
        #expect(failure?.message.hasPrefix("scene.json:") == true)
        #expect(failure?.message.contains(place) == true, "\(failure?.message ?? "")")
        #expect(failure?.message.contains(expectation) == true, "\(failure?.message ?? "")")
    }

    /// `time` names the clock of the scene's times (formats.md §6): `poses` when absent; a value not
    /// among the four is an error naming the key; Unix times pass every range check, 1e10 is the bound.
    @Test func sceneTimeNamesItsClockAndAdmitsUnixTimes() throws {
        let tap = #"{"id": "t", "anchor": {"tap": {"t": 1767225601.008, "x": 1, "y": 2, "depth": 2}}, "from": 1767225600, "until": 1767225700}"#
        #expect(try parse(#"{"version": 1, "annotations": []}"#).clock == .poses)
        for clock in SceneClock.allCases {
            let scene = try parse(#"{"version": 1, "time": "\#(clock.rawValue)", "annotations": [\#(tap)]}"#)
            #expect(scene.clock == clock)
            guard case .tap(let anchor) = scene.annotations[0].anchor else { Issue.record("not a tap"); continue }
            #expect(anchor.t == 1767225601.008 && scene.annotations[0].from == 1767225600)
        }
        for bad in [#""time": "unix""#, #""time": 0"#] {
            #expect(throws: ReplayError.self) { try parse(#"{"version": 1, \#(bad), "annotations": []}"#) }
            do { _ = try parse(#"{"version": 1, \#(bad), "annotations": []}"#) } catch let error as ReplayError { #expect(error.message.contains(#"key "time""#), "\(error)") }
        }
        let tooLate = #"{"version": 1, "annotations": [{"id": "t", "anchor": {"world": [0, 0, 0]}, "until": 2e10}]}"#
        do { _ = try parse(tooLate); Issue.record("2e10 s accepted") } catch let error as ReplayError { #expect(error.message.contains("until") && error.message.contains("1e10"), "\(error)") }
    }

    @Test func aDirectoryIsNoScene() {
        do {
            _ = try AnnotationScene.load(path: "/tmp")
            Issue.record("loaded a directory")
        } catch {
            #expect(error.kind == .badInput && error.message == "/tmp: is a directory; expected the annotation scene", "\(error)")
        }
    }

    @Test func jsonReaderHandlesEscapesAndRejectsHostileNesting() throws {
        let scene = try parse(#"{"version": 1, "annotations": [{"id": "caf\u00e9 \"\ud83d\ude00\"", "label": "a\nb\t/\/", "anchor": {"world": [1e2, -0.5e-1, 0]}}]}"#)
        #expect(scene.annotations.first?.id == "café \"😀\"")
        #expect(scene.annotations.first?.label == "a\nb\t//")
        #expect(scene.annotations.first?.anchor == .world([100, -0.05, 0]))
        let deep = String(repeating: "[", count: 100_000)
        #expect(error(deep)?.message.contains("nested too deeply") == true)
        for bad in [#"{"version": 01, "annotations": []}"#, #"{"version": 1.}"#, #"{"a": "\ud800"}"#, "{\"a\": \"\u{01}\"}", "{} {}"] {
            #expect(error(bad)?.message.contains("not valid JSON") == true, "\(bad)")
        }
    }
}
