import Foundation
import Testing
@testable import FxreplayBatch
@testable import ReplayKitless

/// Inputs the fuzzers found (Tests/Fuzz/TARGET/) and the fuzzers' seeds (Fuzz/corpus/TARGET/), replayed
/// through the same ``FuzzTarget`` code the fuzzers run: each must be accepted or refused with a
/// ``ReplayError``, never crash or break a property.
@Suite struct FuzzRegressionTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `TARGET/FILE` for every file under `folder` (relative to the repository).
    static func inputs(under folder: String) -> [String] {
        let root = repository.appendingPathComponent(folder)
        let targets = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return targets.sorted().flatMap { target in
            let files = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(target).path)) ?? []
            return files.sorted().map { "\(target)/\($0)" }
        }
    }

    static let crashInputs = inputs(under: "Tests/Fuzz")
    static let seeds = inputs(under: "Fuzz/corpus")

    static func replay(_ folder: String, _ input: String) throws {
        let target = try #require(FuzzTarget.all[String(input.prefix { $0 != "/" })], "no fuzz target named like \(input)'s folder")
        let bytes = try [UInt8](Data(contentsOf: repository.appendingPathComponent(folder).appendingPathComponent(input)))
        #expect(target.run(bytes) == nil)
    }

    @Test(arguments: crashInputs) func keptFindingsNeitherCrashNorBreakAProperty(input: String) throws {
        try Self.replay("Tests/Fuzz", input)
    }

    @Test(arguments: seeds) func seedsNeitherCrashNorBreakAProperty(input: String) throws {
        try Self.replay("Fuzz/corpus", input)
    }

    @Test func everyTargetHasSeedsAndAnExecutable() throws {
        let fuzzPackage = try String(contentsOf: Self.repository.appendingPathComponent("Fuzz/Package.swift"), encoding: .utf8)
        for name in FuzzTarget.all.keys {
            #expect(Self.seeds.contains { $0.hasPrefix(name + "/") }, "no seeds in Fuzz/corpus/\(name)")
            #expect(fuzzPackage.contains("\"\(name)\""), "Fuzz/Package.swift has no executable \(name)")
        }
    }
}

/// The limits that keep hostile input from exhausting memory or time (docs/limits.md).
@Suite struct InputLimitTests {
    /// A sparse file of `size` bytes (no disk space used), with `name`.
    static func sparseFile(_ name: String, size: Int) throws -> String {
        let path = try temporaryDirectory() + "/" + name
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        return path
    }

    static func message(_ body: () throws -> Void) -> String {
        replayError(body)?.message ?? ""
    }

    @Test func a2GiBPose32FileIsRefusedBeforeItIsRead() throws {
        let path = try Self.sparseFile("huge.pose32", size: 2 << 30)
        let error = replayError { _ = try PoseSidecar.read(path: FilePath(path)) }
        #expect(error?.kind == .badInput)
        // 5 000 000 records of 32 bytes.
        #expect(error?.message == "\(path): the pose sidecar is larger than 160000000 bytes, the most fxreplay reads (see docs/poses.md, Limits)")
    }

    @Test func oversizedTextFilesAreRefusedBeforeTheyAreRead() throws {
        let sidecar = try Self.sparseFile("huge.jsonl", size: (1 << 30) + 1)
        #expect(Self.message { _ = try PoseSidecar.read(path: FilePath(sidecar)) }.contains("larger than 1073741824 bytes"))
        let track = try Self.sparseFile("huge.csv", size: (1 << 30) + 1)
        #expect(Self.message { _ = try PlacementTrack.load(path: FilePath(track)) }.contains("larger than 1073741824 bytes"))
        let scene = try Self.sparseFile("huge.json", size: (16 << 20) + 1)
        #expect(Self.message { _ = try AnnotationScene.load(path: FilePath(scene)) }.contains("larger than 16777216 bytes"))
        let mesh = try Self.sparseFile("huge.obj", size: (64 << 20) + 1)
        #expect(Self.message { _ = try OBJLoader.load(path: mesh) }.contains("larger than 67108864 bytes"))
        let job = try Self.sparseFile("huge.yaml", size: (1 << 20) + 1)
        #expect(Self.message { _ = try JobSpec(contentsOf: job) }.contains("larger than 1048576 bytes"))
        let manifest = try Self.sparseFile("huge-manifest.csv", size: (64 << 20) + 1)
        #expect(Self.message { _ = try Manifest.load(manifest) }.contains("larger than 67108864 bytes"))
    }

    @Test func csvHeadersWithTooManyColumnsAreRefused() {
        func header(columns: Int) -> [UInt8] {
            Array(("t,px,py,pz,pitch,yaw,roll,znear,fovy" + String(repeating: ",x", count: columns - 9) + "\n").utf8)
        }
        // A million columns do not fit in a line; a hundred thousand do.
        #expect(Self.message { _ = try PoseSidecar.parse(header(columns: 1_000_000), format: .csv, file: "wide.csv") }
                == "wide.csv:1: line longer than 1048576 bytes (see docs/poses.md, Limits)")
        #expect(Self.message { _ = try PoseSidecar.parse(header(columns: 100_000), format: .csv, file: "wide.csv") }
                == "wide.csv:1: more than 1000 columns (see docs/poses.md, Limits)")
        #expect((try? PoseSidecar.parse(header(columns: 1000), format: .csv, file: "wide.csv")) == [])
    }

    @Test func aLineLongerThanAMebibyteIsRefusedNamingIt() {
        let long = Array(("\n\n{\"t\": 0, \"note\": \"" + String(repeating: "x", count: 1 << 20) + "\"}\n").utf8)
        #expect(Self.message { _ = try PoseSidecar.parse(long, format: .jsonl, file: "long.jsonl") }
                == "long.jsonl:3: line longer than 1048576 bytes (see docs/poses.md, Limits)")
    }

    @Test func deeplyNestedJSONIsAnErrorNotAStackOverflow() {
        let depth = 100_000
        let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let line = Array("{\"t\": 0, \"x\": \(nested)}".utf8)
        #expect(Self.message { _ = try PoseSidecar.parse(line, format: .jsonl, file: "deep.jsonl") }
                == "deep.jsonl:1: not valid JSON: nested too deeply")
        let scene = Array("{\"version\": 1, \"annotations\": \(nested)}".utf8)
        #expect(Self.message { _ = try AnnotationScene(json: scene, file: "deep.json", baseDirectory: "/") }
                == "deep.json:1: not valid JSON: nested too deeply")
    }

    /// 100 000 keys: comparing each with the ones before it (5·10⁹ comparisons) would take minutes.
    @Test(.timeLimit(.minutes(1))) func aJSONObjectWithManyKeysReadsInLinearTime() throws {
        let keys = (0..<100_000).map { "\"k\($0)\": 0" }.joined(separator: ", ")
        // Read completely, then refused for its first unknown key.
        let scene = Array("{\"version\": 1, \"annotations\": [], \(keys)}".utf8)
        #expect(Self.message { _ = try AnnotationScene(json: scene, file: "wide.json", baseDirectory: "/") }
                .hasPrefix("wide.json:1 (key \"k0\"): unknown key"))
        let duplicate = Array("{\(keys), \"k99999\": 1}".utf8)
        #expect(Self.message { _ = try AnnotationScene(json: duplicate, file: "wide.json", baseDirectory: "/") }
                == "wide.json:1: not valid JSON: duplicate key \"k99999\"")
    }

    @Test(.timeLimit(.minutes(1))) func aManifestWithManyColumnsReadsInLinearTime() throws {
        let names = (0..<100_000).map { "c\($0)" }
        let csv = "input," + names.joined(separator: ",") + "\ncall.mp4" + String(repeating: ",", count: names.count) + "\n"
        let rows = try Manifest.parseCSV(csv, file: "wide.csv")
        #expect(rows.count == 1 && rows[0].input == "call.mp4" && rows[0].options.isEmpty)
        #expect(Self.message { _ = try Manifest.parseCSV("input,a,b,a\n", file: "m.csv") }
                == "m.csv:1 (a): column named twice")
    }

    @Test func aMeshOfMoreThanTwoMillionTrianglesIsRefused() {
        // One polygon of 2 000 003 corners makes 2 000 001 triangles.
        let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf" + String(repeating: " 1", count: 2_000_003) + "\n"
        #expect(Self.message { _ = try OBJLoader.parse(obj, file: "big.obj") }
                == "big.obj:4: more than 2000000 triangles (see docs/poses.md, Limits)")
    }

    @Test func frameIndicesAreBoundedAlikeInCSVAndJSONLines() throws {
        let header = "frame,px,py,pz,pitch,yaw,roll,znear,fovy\n"
        let largest = try PoseSidecar.parse(Array((header + "999999999999999,0,0,0,0,0,0,0.1,60\n").utf8), format: .csv, file: "f.csv")
        #expect(largest.map(\.key) == [.frame(999_999_999_999_999)])
        // What CSV accepts, JSON Lines written from it reads back.
        let jsonl = try PoseSidecar.encode(largest, format: .jsonl)
        #expect(try PoseSidecar.parse(jsonl, format: .jsonl, file: "f.jsonl").map(\.key) == [.frame(999_999_999_999_999)])
        #expect(Self.message { _ = try PoseSidecar.parse(Array((header + "1000000000000000,0,0,0,0,0,0,0.1,60\n").utf8), format: .csv, file: "f.csv") }
                == "f.csv:2 (frame): \"1000000000000000\" is not a frame index from 0 to 999999999999999")
    }

    @Test func textSidecarsRefuseToWriteNaN() throws {
        let sample = PoseSample(key: .frame(3), pose32: Pose32(position: [0, 0, 0], euler: [0, 0, 0], zNear: .nan, fovY: 60))
        for format in [PoseSidecarFormat.jsonl, .csv] {
            #expect(Self.message { _ = try PoseSidecar.encode([sample], format: format) }.hasPrefix("the pose at frame 3 has a value that is not a finite number"))
        }
        #expect(try PoseSidecar.encode([sample], format: .pose32).count == 32)
    }

    @Test func unicodeEscapesTakeExactlyFourHexDigits() {
        for escape in ["\\u+041", "\\u-041", "\\u 041", "\\u004"] {
            let line = Array("{\"t\": 0, \"s\": \"\(escape)\"}".utf8)
            #expect(Self.message { _ = try PoseSidecar.parse(line, format: .jsonl, file: "u.jsonl") }
                    == "u.jsonl:1: not valid JSON: invalid \\u escape in string")
        }
    }

    @Test func yamlAliasesCannotMultiplyAJobSpec() throws {
        // 9 levels of 9 aliases each: 9⁹ (387 million) values once expanded.
        let text = try String(contentsOf: FuzzRegressionTests.repository.appendingPathComponent("Tests/Fuzz/FuzzJobSpecYAML/billion-laughs.yaml"),
                              encoding: .utf8)
        #expect(Self.message { _ = try JobSpec(parsing: text, path: "laughs.yaml") }.hasPrefix("laughs.yaml:"))
        #expect(Self.message { _ = try JobSpec(parsing: text, path: "laughs.yaml") }.contains("more than 100000 values"))
        // A few aliases are fine.
        let spec = try JobSpec(parsing: "x: &list [a, b]\nannotation: *list\n", path: "ok.yaml")
        #expect(spec.arguments == ["--annotation=a", "--annotation=b", "--x=a", "--x=b"])
    }

    @Test func jsonLinesManifestsMayEndLinesWithCRLF() throws {
        let rows = try Manifest.parseJSONLines("{\"input\": \"a.mp4\"}\r\n{\"input\": \"b.mp4\", \"crf\": 20}\r\n", file: "m.jsonl")
        #expect(rows.map(\.input) == ["a.mp4", "b.mp4"] && rows.map(\.line) == [1, 2])
    }
}
