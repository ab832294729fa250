import Foundation
import Testing
@testable import ReplayKitless

@Suite struct RenderOBJTests {
    let square = """
    v 0 0 0
    v 1 0 0
    v 1 1 0
    v 0 1 0

    """

    @Test func polygonsAreFanTriangulatedWithFlatNormals() throws {
        let pentagon = "v 0 0 0\nv 2 0 0\nv 3 1 0\nv 1 2 0\nv -1 1 0\nf 1 2 3 4 5\n"
        let mesh = try OBJLoader.parse(pentagon, file: "p.obj")
        #expect(mesh.triangles == [[0, 1, 2], [0, 2, 3], [0, 3, 4]])
        // Counter-clockwise seen from +Z: the face normal is +Z.
        #expect(mesh.normals.allSatisfy { $0 == [0, 0, 1] })
        #expect(!mesh.isClosed)
    }

    /// A concave polygon (an L, and an arrowhead with its notch) is split into triangles that tile
    /// exactly it, whichever corner it is listed from and whichever way it faces: their areas add up
    /// to its own (shoelace formula) and each lies inside it. A fan from a corner next to the notch
    /// would cover the notch too.
    @Test(arguments: [
        [[0, 0], [3, 0], [3, 1], [1, 1], [1, 3], [0, 3]],
        [[0, 0], [2, 1], [4, 0], [2, 4]],
    ] as [[[Double]]])
    func concavePolygonsAreSplitInsideTheirOutline(_ outline: [[Double]]) throws {
        let n = outline.count
        let shoelace = abs((0..<n).reduce(0.0) { $0 + outline[$1][0] * outline[($1 + 1) % n][1] - outline[($1 + 1) % n][0] * outline[$1][1] }) / 2
        func contains(_ x: Double, _ y: Double) -> Bool {   // even-odd rule
            var inside = false
            for i in 0..<n {
                let a = outline[i], b = outline[(i + 1) % n]
                if (a[1] > y) != (b[1] > y), x < a[0] + (y - a[1]) / (b[1] - a[1]) * (b[0] - a[0]) { inside.toggle() }
            }
            return inside
        }
        // In the XY plane facing +Z, and in the XZ plane facing −Y (x, z) = (a, b).
        for (plane, expectedNormal) in [(0, SIMD3<Double>(0, 0, 1)), (1, SIMD3<Double>(0, -1, 0))] {
            for start in 0..<n {
                let order = (0..<n).map { (start + $0) % n }
                let vertices = order.map { i in plane == 0 ? "v \(outline[i][0]) \(outline[i][1]) 0" : "v \(outline[i][0]) 0 \(outline[i][1])" }
                let mesh = try OBJLoader.parse(vertices.joined(separator: "\n") + "\nf " + (1...n).map(String.init).joined(separator: " ") + "\n", file: "c.obj")
                #expect(mesh.triangles.count == n - 2)
                var area = 0.0
                for t in mesh.triangles {
                    let a = mesh.positions[Int(t.x)], b = mesh.positions[Int(t.y)], c = mesh.positions[Int(t.z)]
                    let cross = (b - a).crossProduct(c - a)
                    // Wound the polygon's way round: its normal points where the polygon faces.
                    #expect(cross.dotProduct(expectedNormal) > 0, "start \(start): \(t)")
                    area += cross.dotProduct(cross).squareRoot() / 2
                    let centroid = (a + b + c) / 3
                    let (x, y) = plane == 0 ? (centroid.x, centroid.y) : (centroid.x, centroid.z)
                    #expect(contains(x, y), "start \(start): triangle \(t) lies outside the outline")
                }
                #expect(abs(area - shoelace) < 1e-9, "start \(start): triangles cover \(area), the polygon \(shoelace)")
            }
        }
    }

    @Test func negativeIndicesCountBackFromTheLatestVertex() throws {
        let absolute = try OBJLoader.parse(square + "f 1 2 3 4\n", file: "a.obj")
        let relative = try OBJLoader.parse(square + "f -4 -3 -2 -1\n", file: "r.obj")
        #expect(absolute == relative)
        #expect(relative.triangles.count == 2)
    }

    @Test func explicitNormalsAreUsedInEveryForm() throws {
        let text = square + "vt 0 0\nvn 0 0 2\nvn 1 0 0\nf 1/1/1 2//1 3/1/2\nf 1 3/1 4\n"
        let mesh = try OBJLoader.parse(text, file: "n.obj")
        #expect(mesh.triangles.count == 2)
        // First face: its own normals, unit length; second: flat (+Z), texture indices ignored.
        let first = mesh.triangles[0]
        #expect(mesh.normals[Int(first.x)] == [0, 0, 1] && mesh.normals[Int(first.z)] == [1, 0, 0])
        let second = mesh.triangles[1]
        #expect(mesh.normals[Int(second.y)] == [0, 0, 1])
    }

    @Test func smoothingGroupsShareAveragedNormals() throws {
        // Two faces folded 90° along the edge 1–2: flat in the XY plane (+Z) and in the XZ plane (−Y).
        let text = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 1 0 1\ns 1\nf 1 2 3\nf 1 2 4\n"
        let mesh = try OBJLoader.parse(text, file: "s.obj")
        #expect(mesh.positions.count == 4, "shared vertices")
        let edge = mesh.normals[0]
        let half = 1 / 2.0.squareRoot()
        #expect(abs(edge.y + half) < 1e-12 && abs(edge.z - half) < 1e-12)
        let flat = try OBJLoader.parse(text.replacingOccurrences(of: "s 1", with: "s off"), file: "f.obj")
        #expect(flat.positions.count == 6, "one vertex per corner")
    }

    @Test func errorsNameTheFileAndLine() {
        let cases: [(String, String)] = [
            (square + "f 1 2 9\n", "bad.obj:5"),           // index past the vertices defined so far
            ("v 1 x 2\n", "bad.obj:1"),                    // not a number
            ("v 1 2\n", "bad.obj:1"),                      // too few coordinates
            (square + "\n\nf 1 2\n", "bad.obj:7"),         // a face needs 3 vertices
            (square + "f 0 1 2\n", "bad.obj:5"),           // OBJ indices start at 1
            (square + "f 1 2 -5\n", "bad.obj:5"),          // negative index before the first vertex
            (square, "bad.obj"),                           // no faces at all
        ]
        for (text, place) in cases {
            do {
                _ = try OBJLoader.parse(text, file: "bad.obj")
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.kind == .badInput)
                #expect(error.message.hasPrefix(place + ":") || error.message.hasPrefix(place + " "), "\(error.message)")
            }
        }
    }

    @Test func aMissingFileIsBadInputNamingIt() {
        #expect(throws: ReplayError.badInput(file: "/nonexistent/model.obj", "cannot read the mesh file (no such file)")) {
            _ = try OBJLoader.load(path: "/nonexistent/model.obj")
        }
    }

    @Test func windowsLineEndingsCountLinesOnce() throws {
        let text = "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 4\r\n"
        #expect(throws: ReplayError.badInput(file: "crlf.obj", line: 4, "vertex index 4 out of range (3 defined so far)")) {
            _ = try OBJLoader.parse(text, file: "crlf.obj")
        }
    }

    @Test func meshesAreScaledToUnitExtentAboutTheirOrigin() throws {
        let mesh = try OBJLoader.parse("v 0 0 0\nv 4 0 0\nv 0 2 0\nf 1 2 3\n", file: "t.obj")
        let unit = try #require(mesh.scaledToUnitExtent())
        #expect(unit.positions == [[0, 0, 0], [1, 0, 0], [0, 0.5, 0]])
        let point = try OBJLoader.parse("v 1 1 1\nf 1 1 1\n", file: "p.obj")
        #expect(point.scaledToUnitExtent() == nil)
    }
}
