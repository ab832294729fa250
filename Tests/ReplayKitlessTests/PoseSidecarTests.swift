import Foundation
import Testing
@testable import ReplayKitless

/// A fresh temporary folder for one test.
func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("poses-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The error `body` throws, or a recorded issue when it does not throw a ``ReplayError``.
func replayError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> ReplayError? {
    do {
        try body()
        Issue.record("expected an error", sourceLocation: sourceLocation)
    } catch let error as ReplayError {
        return error
    } catch {
        Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

@Suite struct Pose32Tests {
    /// 1, −2, 0.5, 0, 0.25, −1, 0.001, 60 as little-endian float32, written out by hand from their IEEE-754 bit patterns.
    static let recordBytes: [UInt8] = [
        0x00, 0x00, 0x80, 0x3F,  0x00, 0x00, 0x00, 0xC0,  0x00, 0x00, 0x00, 0x3F,  0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x80, 0x3E,  0x00, 0x00, 0x80, 0xBF,  0x6F, 0x12, 0x83, 0x3A,  0x00, 0x00, 0x70, 0x42,
    ]

    @Test func decodesTheDocumentedLayout() throws {
        let record = try #require(Pose32(bytes: Self.recordBytes))
        #expect(record.position == SIMD3<Float>(1, -2, 0.5))
        #expect(record.euler == SIMD3<Float>(0, 0.25, -1))
        #expect(record.zNear == Float(0.001) && record.fovY == 60)
        #expect(record.bytes == Self.recordBytes)
        #expect(Pose32(bytes: Self.recordBytes.dropLast()) == nil)
    }

    @Test func encodingIsBitExactIncludingNaNPayloadsAndNegativeZero() throws {
        var bytes = Self.recordBytes
        bytes.replaceSubrange(0..<4, with: [0x01, 0x00, 0xC0, 0x7F])  // quiet NaN with payload 1
        bytes.replaceSubrange(4..<8, with: [0x00, 0x00, 0x00, 0x80])  // −0.0
        let record = try #require(Pose32(bytes: bytes))
        #expect(record.position.x.bitPattern == 0x7FC0_0001 && record.position.y.bitPattern == 0x8000_0000)
        #expect(record.bytes == bytes)
    }
}

@Suite struct PoseSidecarTests {
    // The same two poses in every format; values exact in float32 so pose32 agrees too.
    static let jsonl = """
        {"frame": 0, "position": [0.5, 1.5, -0.25], "euler": [-0.125, 0.5, 0], "zNear": 0.015625, "fovY": 60, "note": "ignored"}

        {"frame": 1, "position": [1, 2, 3], "euler": [0.25, -0.75, 1.5], "zNear": 0.5, "fovY": 45.5}
        """
    static let csv = """
        fovy,znear,roll,yaw,pitch,pz,py,px,frame,comment
        60,0.015625,0,0.5,-0.125,-0.25,1.5,0.5,0,x
        45.5,0.5,1.5,-0.75,0.25,3,2,1,1,"quoted, with comma"
        """
    static let expected = [
        PoseSample(key: .frame(0), position: [0.5, 1.5, -0.25], euler: [-0.125, 0.5, 0], zNear: 0.015625, fovY: 60),
        PoseSample(key: .frame(1), position: [1, 2, 3], euler: [0.25, -0.75, 1.5], zNear: 0.5, fovY: 45.5),
    ]

    static func pose32Bytes() -> [UInt8] {
        // Hand-packed: each value's float32 bit pattern, little-endian.
        let values: [Float] = [0.5, 1.5, -0.25, -0.125, 0.5, 0, 0.015625, 60, 1, 2, 3, 0.25, -0.75, 1.5, 0.5, 45.5]
        return values.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v.bitPattern >> (8 * $0)) } }
    }

    @Test func everyFormatReadsTheSamePoses() throws {
        let fromJSON = try PoseSidecar.parse(Array(Self.jsonl.utf8), format: .jsonl, file: "p.jsonl")
        let fromCSV = try PoseSidecar.parse(Array(Self.csv.utf8), format: .csv, file: "p.csv")
        let fromPose32 = try PoseSidecar.parse(Self.pose32Bytes(), format: .pose32, file: "p.pose32")
        #expect(fromJSON == Self.expected)
        #expect(fromCSV == Self.expected)
        #expect(fromPose32 == Self.expected)
        #expect(fromJSON.map(\.line) == [1, 3] && fromCSV.map(\.line) == [2, 3])
        #expect(fromPose32.allSatisfy(\.isFloat32) && !fromJSON.contains(where: \.isFloat32))
    }

    @Test func timesIntrinsicsAndWindowsLineEndings() throws {
        let jsonl = "{\"t\": 0.1, \"frame\": 9, \"position\": [0,0,0], \"euler\": [0,0,0], \"zNear\": 0.01, "
            + "\"intrinsics\": {\"fx\": 500, \"fy\": 510, \"cx\": 320, \"cy\": 240}}\r\n"
        let sample = try #require(try PoseSidecar.parse(Array(jsonl.utf8), format: .jsonl, file: "p.jsonl").first)
        #expect(sample.key == .time(0.1))  // t wins over frame
        #expect(sample.fovY == nil && sample.intrinsics == Intrinsics(fx: 500, fy: 510, cx: 320, cy: 240))
        #expect(sample.pose.intrinsics == sample.intrinsics)

        let csv = "T,PX,PY,PZ,Pitch,Yaw,Roll,zNear,fovY,fx,fy,cx,cy\r\n0.1,0,0,0,0,0,0,0.01,,500,510,320,240\r\n"
            + "0.2,0,0,0,0,0,0,0.01,50,,,,\r\n"
        let rows = try PoseSidecar.parse(Array(csv.utf8), format: .csv, file: "p.csv")
        #expect(rows.count == 2 && rows[0] == sample)
        #expect(rows[1].key == .time(0.2) && rows[1].fovY == 50 && rows[1].intrinsics == nil)
    }

    @Test func transformGivesTheSamePoseAsEuler() throws {
        // yaw 30°: R = Ry(30°) has columns (cos, 0, −sin), (0, 1, 0), (sin, 0, cos); translation (1, 2, 3).
        let c = 3.0.squareRoot() / 2, s = 0.5
        let line = "{\"t\": 0, \"transform\": [\(c), 0, \(-s), 0, 0, 1, 0, 0, \(s), 0, \(c), 0, 1, 2, 3, 1], "
            + "\"zNear\": 0.01, \"fovY\": 60}"
        let sample = try #require(try PoseSidecar.parse(Array(line.utf8), format: .jsonl, file: "p.jsonl").first)
        #expect(sample.position == [1, 2, 3])
        #expect(abs(sample.euler.x) < 1e-12 && abs(sample.euler.y - .pi / 6) < 1e-12 && abs(sample.euler.z) < 1e-12)

        // A general rotation: the transform built from the euler matrix gives back the same angles.
        let euler = SIMD3(0.3, -0.4, 1.1)
        let r = Pose.rotation(euler: euler)
        let columns: [SIMD3<Double>] = [r.columns.0, r.columns.1, r.columns.2]
        let m: [Double] = columns.flatMap { column -> [Double] in [column.x, column.y, column.z, 0] } + [-1, 0.5, 2, 1]
        let general = "{\"t\": 0, \"transform\": [\(m.map { "\($0)" }.joined(separator: ","))], \"zNear\": 0.01, \"fovY\": 60}"
        let parsed = try #require(try PoseSidecar.parse(Array(general.utf8), format: .jsonl, file: "p.jsonl").first)
        #expect(parsed.position == [-1, 0.5, 2])
        #expect(abs(parsed.euler.x - 0.3) < 1e-12 && abs(parsed.euler.y + 0.4) < 1e-12 && abs(parsed.euler.z - 1.1) < 1e-12)
    }

    @Test func numbersAreReadAsTheNearestDouble() throws {
        let line = "{\"t\": 0.1, \"position\": [0.3, 1e-7, -2.5E+3], \"euler\": [0.7, 0, 0], \"zNear\": 0.001, \"fovY\": 59.99}"
        let sample = try #require(try PoseSidecar.parse(Array(line.utf8), format: .jsonl, file: "p.jsonl").first)
        #expect(sample.key == .time(0.1) && sample.position == [0.3, 1e-7, -2500] && sample.euler.x == 0.7)
        #expect(sample.zNear == 0.001 && sample.fovY == 59.99)
    }

    /// Every malformed input names the file, the line and the field.
    @Test(arguments: [
        ("{\"t\": 0, \"position\": [0,0,0], \"euler\": [0,0,0], \"zNear\": 0.1, \"fovY\": 60}\n{\"t\": 1,", 2, "not valid JSON"),
        ("\n\n[1, 2]", 3, "(record)"),
        ("{\"euler\": [0,0,0], \"position\": [0,0,0], \"zNear\": 0.1, \"fovY\": 60}", 1, "(t)"),
        ("{\"frame\": -1, \"position\": [0,0,0], \"euler\": [0,0,0], \"zNear\": 0.1, \"fovY\": 60}", 1, "(frame)"),
        ("{\"frame\": 1.5, \"position\": [0,0,0], \"euler\": [0,0,0], \"zNear\": 0.1, \"fovY\": 60}", 1, "(frame)"),
        ("{\"t\": \"0\", \"position\": [0,0,0], \"euler\": [0,0,0], \"zNear\": 0.1, \"fovY\": 60}", 1, "(t)"),
        ("{\"t\": 0, \"position\": [0,0], \"euler\": [0,0,0], \"zNear\": 0.1, \"fovY\": 60}", 1, "(position)"),
        ("{\"t\": 0, \"position\": [0,0,0], \"zNear\": 0.1, \"fovY\": 60}", 1, "(euler)"),
        ("{\"t\": 0, \"euler\": [0,0,0], \"zNear\": 0.1, \"fovY\": 60}", 1, "(position)"),
        ("{\"t\": 0, \"position\": [0,0,0], \"euler\": [0,\"a\",0], \"zNear\": 0.1, \"fovY\": 60}", 1, "(euler)"),
        ("{\"t\": 0, \"transform\": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0], \"zNear\": 0.1, \"fovY\": 60}", 1, "(transform)"),
        ("{\"t\": 0, \"transform\": [2,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1], \"zNear\": 0.1, \"fovY\": 60}", 1, "(transform)"),
        ("{\"t\": 0, \"transform\": [-1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1], \"zNear\": 0.1, \"fovY\": 60}", 1, "(transform)"),
        ("{\"t\": 0, \"position\": [0,0,0], \"euler\": [0,0,0], \"fovY\": 60}", 1, "(zNear)"),
        ("{\"t\": 0, \"position\": [0,0,0], \"euler\": [0,0,0], \"zNear\": 0.1}", 1, "(fovY)"),
        ("{\"t\": 0, \"position\": [0,0,0], \"euler\": [0,0,0], \"zNear\": 0.1, \"intrinsics\": {\"fx\": 1, \"fy\": 1, \"cx\": 1}}",
         1, "(intrinsics.cy)"),
        ("{\"t\": 0, \"position\": [0,0,0], \"euler\": [0,0,0], \"zNear\": 0.1, \"fovY\": 60, \"fovY\": 61}", 1, "duplicate key"),
        ("{\"t\": 1e999, \"position\": [0,0,0], \"euler\": [0,0,0], \"zNear\": 0.1, \"fovY\": 60}", 1, "out of range"),
        ("{\"t\": NaN, \"position\": [0,0,0], \"euler\": [0,0,0], \"zNear\": 0.1, \"fovY\": 60}", 1, "not valid JSON"),
    ])
    func malformedJSONLinesNameLineAndField(text: String, line: Int, field: String) {
        let error = replayError { _ = try PoseSidecar.parse(Array(text.utf8), format: .jsonl, file: "cam.jsonl") }
        #expect(error?.kind == .badInput)
        #expect(error?.message.hasPrefix("cam.jsonl:\(line)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(field) == true, "\(error?.message ?? "")")
    }

    @Test(arguments: [
        ("0,0,0,0,0,0,0,0.1,60\n", 1, "(t)"),  // no header row: the numbers are taken as column names
        ("t,px,py,pz,pitch,yaw,roll,fovy\n", 1, "(znear)"),
        ("t,px,py,pz,pitch,yaw,roll,znear\n", 1, "(fovy)"),
        ("t,px,py,pz,pitch,yaw,roll,znear,fovy,fx,fy\n", 1, "(cx)"),
        ("t,px,py,pz,pitch,yaw,roll,znear,fovy,PX\n", 1, "(px)"),
        ("t,px,py,pz,pitch,yaw,roll,znear,fovy\n0,0,0,0,0,0,0,0.1,60\n\n1,0,0,0,0,abc,0,0.1,60\n", 4, "(yaw)"),
        ("t,px,py,pz,pitch,yaw,roll,znear,fovy\n0,0,0,0,0,0,0,0.1,60\n1,0,0,0,0,0,0,0.1\n", 3, "expected 9 fields"),
        ("t,px,py,pz,pitch,yaw,roll,znear,fovy\n0,,0,0,0,0,0,0.1,60\n", 2, "(px)"),
        ("t,px,py,pz,pitch,yaw,roll,znear,fovy\n,0,0,0,0,0,0,0.1,60\n", 2, "(t)"),
        ("frame,px,py,pz,pitch,yaw,roll,znear,fovy\n2.5,0,0,0,0,0,0,0.1,60\n", 2, "(frame)"),
        ("t,px,py,pz,pitch,yaw,roll,znear,fovy\n0,0,0,0,0,0,0,0.1,\n", 2, "(fovy)"),
        ("t,px,py,pz,pitch,yaw,roll,znear,fovy\n0,0,0,0,0,0,0,inf,60\n", 2, "(znear)"),
        ("t,px,py,pz,pitch,yaw,roll,znear,fovy,fx,fy,cx,cy\n0,0,0,0,0,0,0,0.1,60,1,1,,1\n", 2, "(cx)"),
        ("t,px,py,pz,pitch,yaw,roll,znear,fovy\n\"0,0,0,0,0,0,0,0.1,60\n", 2, "unbalanced quotes"),
        ("", 1, "header row is required"),
    ])
    func malformedCSVNamesLineAndField(text: String, line: Int, field: String) {
        let error = replayError { _ = try PoseSidecar.parse(Array(text.utf8), format: .csv, file: "cam.csv") }
        #expect(error?.kind == .badInput)
        #expect(error?.message.hasPrefix("cam.csv:\(line)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(field) == true, "\(error?.message ?? "")")
    }

    @Test func malformedPose32NamesTheRecordAndField() {
        var bytes = Self.pose32Bytes()
        let truncated = replayError { _ = try PoseSidecar.parse(bytes + [0, 0, 0], format: .pose32, file: "cam.pose32") }
        #expect(truncated?.message.hasPrefix("cam.pose32 (record 2)") == true, "\(truncated?.message ?? "")")
        bytes.replaceSubrange(32 + 16..<32 + 20, with: [0x00, 0x00, 0xC0, 0x7F])  // record 1 yaw = NaN
        let nan = replayError { _ = try PoseSidecar.parse(bytes, format: .pose32, file: "cam.pose32") }
        #expect(nan?.message.hasPrefix("cam.pose32 (record 1, yaw)") == true, "\(nan?.message ?? "")")
    }

    @Test func formatComesFromTheExtension() throws {
        #expect(try PoseSidecarFormat(path: "/a/b.JSONL") == .jsonl)
        #expect(try PoseSidecarFormat(path: "b.csv") == .csv)
        #expect(try PoseSidecarFormat(path: "b.pose32") == .pose32)
        #expect(replayError { _ = try PoseSidecarFormat(path: "b.txt") }?.kind == .usage)
        let missing = replayError { _ = try PoseSidecar.read(path: "/nonexistent/poses.csv") }
        #expect(missing?.kind == .badInput && missing?.message.contains("/nonexistent/poses.csv") == true)
    }

    @Test func writersReadBackTheSameSamples() throws {
        let samples = [
            PoseSample(key: .time(0.1), position: [0.1, -2.7, 1e-7], euler: [0.3, -0.2, 3.1], zNear: 0.001, fovY: 61.3),
            PoseSample(key: .frame(4), position: [1, 2, 3], euler: [0, 0, 0], zNear: 0.01, fovY: nil,
                       intrinsics: Intrinsics(fx: 500.5, fy: 501, cx: 320, cy: 239.75)),
        ]
        for format in [PoseSidecarFormat.jsonl, .csv] {
            let back = try PoseSidecar.parse(try PoseSidecar.encode(samples, format: format), format: format, file: "x")
            #expect(back == samples, "\(format)")
        }
        // pose32 needs fovY; the first sample alone goes through (rounded to float32).
        #expect(replayError { _ = try PoseSidecar.encode(samples, format: .pose32) } != nil)
        let record = try PoseSidecar.parse(try PoseSidecar.encode([samples[0]], format: .pose32), format: .pose32, file: "x")
        #expect(record.first?.position.x == Double(Float(0.1)) && record.first?.fovY == Double(Float(61.3)))
    }

    @Test func pose32ThroughTextIsBitExact() throws {
        // Values whose float32 shortest digits are awkward to read back through a Double.
        let awkward: [Float] = [0.1, 1.0 / 3, 1e-7, -0.0, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
                                .leastNormalMagnitude, 16_777_215, 0.2, 123.456]
        let records = stride(from: 0, to: awkward.count, by: 2).map { i in
            Pose32(position: [awkward[i], awkward[i + 1], 1], euler: [awkward[(i + 2) % awkward.count], 0.7, -3],
                   zNear: awkward[(i + 3) % awkward.count], fovY: 60.5)
        }
        let original = records.flatMap(\.bytes)
        let samples = try PoseSidecar.parse(original, format: .pose32, file: "in.pose32")
        for format in [PoseSidecarFormat.jsonl, .csv] {
            let text = try PoseSidecar.encode(samples, format: format)
            let again = try PoseSidecar.parse(text, format: format, file: "mid")
            #expect(try PoseSidecar.encode(again, format: .pose32) == original, "\(format)")
        }
        // Float-origin values print with float32's short digits, not the widened double's.
        let text = String(decoding: try PoseSidecar.encode(samples, format: .jsonl), as: UTF8.self)
        #expect(text.hasPrefix("{\"frame\": 0, \"position\": [0.1, 0.33333334, 1.0], \"euler\": [1e-07, 0.7, -3.0]"))
    }

    @Test func writeIsAtomicAndReadable() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.csv"
        try PoseSidecar.write(Self.expected, to: FilePath(path))
        #expect(try PoseSidecar.read(path: FilePath(path)) == Self.expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.csv"])
    }
}

/// What text inputs look like on disk: byte order marks, empty files, missing files.
@Suite struct TextInputFileTests {
    static let jsonl = #"{"t": 0.5, "position": [1, 2, 3], "euler": [0.1, 0.2, 0.3], "zNear": 0.01, "fovY": 60}"# + "\n"
    static let csv = "t,px,py,pz,pitch,yaw,roll,znear,fovy\n0.5,1,2,3,0.1,0.2,0.3,0.01,60\n"

    func write(_ text: String, bom: Bool = false, named name: String, in dir: String) throws -> String {
        let path = dir + "/" + name
        try Data((bom ? [0xEF, 0xBB, 0xBF] : []) + Array(text.utf8)).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aByteOrderMarkIsSkippedInTextFiles() throws {
        let dir = try temporaryDirectory()
        for (text, name) in [(Self.jsonl, "p.jsonl"), (Self.csv, "p.csv")] {
            let plain = try PoseSidecar.read(path: try FilePath(write(text, named: name, in: dir)))
            let marked = try PoseSidecar.read(path: try FilePath(write(text, bom: true, named: "bom-" + name, in: dir)))
            #expect(marked == plain && marked.count == 1 && marked[0].position == [1, 2, 3], "\(name)")
        }
        let scene = try write(#"{"version": 1, "annotations": [{"id": "a", "anchor": {"world": [0, 0, -1]}}]}"#, bom: true,
                              named: "scene.json", in: dir)
        #expect(try AnnotationScene.load(path: FilePath(scene)).annotations.map(\.id) == ["a"])
        // pose32 is binary: the same three bytes there are part of a float (little-endian 0x3FBFBBEF).
        let record = [UInt8]([0xEF, 0xBB, 0xBF, 0x3F]) + Pose32Tests.recordBytes.dropFirst(4)
        let pose32 = dir + "/p.pose32"
        try Data(record).write(to: URL(fileURLWithPath: pose32))
        #expect(try PoseSidecar.read(path: FilePath(pose32)).first?.position.x == Double(Float(bitPattern: 0x3FBF_BBEF)))
    }

    /// Numbers in CSV cells are decimal: a hexadecimal one, or one with a NUL byte in it (which
    /// reading through C cut short), is an error naming the field.
    @Test func csvNumbersAreDecimalOnly() throws {
        let dir = try temporaryDirectory()
        for cell in ["0x10", "0.5\u{0}1234", "1e3x", "inf"] {
            let path = try write("t,px,py,pz,pitch,yaw,roll,znear,fovy\n0,\(cell),0,0,0,0,0,0.01,55\n", named: "p.csv", in: dir)
            let error = replayError { _ = try PoseSidecar.read(path: FilePath(path)) }
            #expect(error?.kind == .badInput && error?.message.contains("p.csv:2 (px)") == true, "\(cell.debugDescription): \(String(describing: error))")
        }
        #expect(try PoseSidecar.read(path: try FilePath(write(Self.csv.replacingOccurrences(of: ",1,2,3,", with: ",+1,2E0,3.,"), named: "ok.csv", in: dir)))
            .first?.position == [1, 2, 3])
        #expect(throws: ReplayError.self) { try LatencyQA.parseDelay("0x10") }
        #expect(try LatencyQA.parseDelay("200ms") == 0.2)
    }

    @Test func aSidecarWithoutPosesIsBadInput() throws {
        let dir = try temporaryDirectory()
        for (text, name) in [("", "empty.jsonl"), ("\n\n", "blank.jsonl"), ("t,px,py,pz,pitch,yaw,roll,znear,fovy\n", "header.csv"),
                             ("", "empty.pose32")] {
            let path = try write(text, named: name, in: dir)
            let error = replayError { _ = try PoseSidecar.read(path: FilePath(path)) }
            #expect(error?.kind == .badInput && error?.message.contains(name) == true, "\(name): \(String(describing: error))")
        }
        let missing = replayError { _ = try PoseSidecar.read(path: FilePath(dir + "/missing.jsonl")) }
        #expect(missing?.message == "\(dir)/missing.jsonl: cannot read the pose sidecar (no such file)")
    }
}
