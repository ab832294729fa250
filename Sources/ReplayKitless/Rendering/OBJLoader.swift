import Foundation

/// Reads Wavefront OBJ meshes: `v`, `vn` and `f` (triangles or polygons: a convex one is split
/// as a fan, a concave one by ear clipping in the plane it faces;
/// `v`, `v/vt`, `v//vn`, `v/vt/vn`; negative indices count back from the latest vertex).
/// Texture coordinates, groups and materials are ignored. Faces without normals get flat
/// normals, or smooth ones inside a smoothing group (`s 1`).
package enum OBJLoader {
    /// Loads the mesh in the file at `path`.
    package static func load(path: String) throws(ReplayError) -> Mesh {
        try parse(try readInputFile(path, limit: InputLimits.meshBytes, kind: "mesh file", isText: true), file: path)
    }

    /// Parses OBJ text; `file` names the source in error messages.
    package static func parse(_ text: String, file: String) throws(ReplayError) -> Mesh {
        var text = text
        return try throwingReplayError { try text.withUTF8 { try parse(bytes: $0, file: file) } }
    }

    /// Parses the bytes of an OBJ file; `file` names the source in error messages.
    package static func parse(_ bytes: [UInt8], file: String) throws(ReplayError) -> Mesh {
        try throwingReplayError { try bytes.withUnsafeBufferPointer { try parse(bytes: $0, file: file) } }
    }

    private struct Corner {
        var position: Int
        var normal: Int?
    }

    private struct Face {
        var corners: [Corner]
        var smooth: Bool
    }

    /// Works on the UTF-8 bytes: models run to megabytes, and this is several times faster
    /// than splitting Swift strings into characters.
    private static func parse(bytes: UnsafeBufferPointer<UInt8>, file: String) throws(ReplayError) -> Mesh {
        var positions: [SIMD3<Double>] = []
        var normals: [SIMD3<Double>] = []
        var faces: [Face] = []
        var triangles = 0
        var smooth = false
        var lineNumber = 0
        var tokens: [Range<Int>] = []
        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n"), bytes[lineEnd] != UInt8(ascii: "\r") { lineEnd += 1 }
            lineNumber += 1
            tokenize(bytes, lineStart..<lineEnd, into: &tokens)
            // The next line starts after "\n", "\r" or "\r\n".
            lineStart = lineEnd + 1
            if lineEnd < bytes.count, bytes[lineEnd] == UInt8(ascii: "\r"), lineStart < bytes.count,
               bytes[lineStart] == UInt8(ascii: "\n") { lineStart += 1 }
            guard let keyword = tokens.first else { continue }
            let arguments = tokens.dropFirst()
            func fail(_ message: String) -> ReplayError {
                ReplayError.badInput(file: file, line: lineNumber, message)
            }
            func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
            switch text(keyword) {
            case "v":
                positions.append(try vector(arguments, keyword: "v", text: text, fail: fail))
            case "vn":
                normals.append(try vector(arguments, keyword: "vn", text: text, fail: fail).unitOrZero)
            case "f":
                guard arguments.count >= 3 else { throw fail("a face needs at least 3 vertices, found \(arguments.count)") }
                triangles += arguments.count - 2
                guard triangles <= InputLimits.meshTriangles else {
                    throw fail("more than \(InputLimits.meshTriangles) triangles (see docs/poses.md, Limits)")
                }
                let corners = try arguments.map { (token) throws(ReplayError) -> Corner in
                    try corner(text(token), positionCount: positions.count, normalCount: normals.count, fail: fail)
                }
                faces.append(Face(corners: corners, smooth: smooth))
            case "s":
                let group = arguments.first.map(text)
                smooth = !(group == "off" || group == "0")
            default:
                continue   // vt, o, g, usemtl, mtllib, l, p…: not needed to draw a solid
            }
        }
        guard !faces.isEmpty else { throw ReplayError.badInput(file: file, "the mesh has no faces (f lines)") }
        return build(positions: positions, normals: normals, faces: faces)
    }

    /// The space- or tab-separated words of a line, up to any `#` comment.
    private static func tokenize(_ bytes: UnsafeBufferPointer<UInt8>, _ line: Range<Int>, into tokens: inout [Range<Int>]) {
        tokens.removeAll(keepingCapacity: true)
        var i = line.lowerBound
        while i < line.upperBound, bytes[i] != UInt8(ascii: "#") {
            if bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "\t") {
                i += 1
                continue
            }
            let start = i
            while i < line.upperBound, bytes[i] != UInt8(ascii: " "), bytes[i] != UInt8(ascii: "\t"),
                  bytes[i] != UInt8(ascii: "#") { i += 1 }
            tokens.append(start..<i)
        }
    }

    private static func vector(_ arguments: ArraySlice<Range<Int>>, keyword: String, text: (Range<Int>) -> String,
                               fail: (String) -> ReplayError) throws(ReplayError) -> SIMD3<Double> {
        guard arguments.count >= 3 else { throw fail("'\(keyword)' needs 3 numbers, found \(arguments.count)") }
        var result = SIMD3<Double>.zero
        for (i, token) in arguments.prefix(3).enumerated() {
            let word = text(token)
            guard let value = Double(word), value.isFinite else { throw fail("'\(word)' is not a number") }
            result[i] = value
        }
        return result
    }

    /// One `v[/vt][/vn]` reference, resolved to 0-based indices.
    private static func corner(_ token: String, positionCount: Int, normalCount: Int,
                               fail: (String) -> ReplayError) throws(ReplayError) -> Corner {
        let parts = token.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 3 else { throw fail("bad face vertex '\(token)'") }
        let position = try index(parts[0], count: positionCount, kind: "vertex", fail: fail)
        var normal: Int?
        if parts.count == 3, !parts[2].isEmpty {
            normal = try index(parts[2], count: normalCount, kind: "normal", fail: fail)
        }
        return Corner(position: position, normal: normal)
    }

    private static func index(_ token: Substring, count: Int, kind: String,
                              fail: (String) -> ReplayError) throws(ReplayError) -> Int {
        guard let value = Int(token), value != 0 else { throw fail("bad \(kind) index '\(token)'") }
        let resolved = value > 0 ? value - 1 : count + value
        guard resolved >= 0, resolved < count else {
            throw fail("\(kind) index \(value) out of range (\(count) defined so far)")
        }
        return resolved
    }

    /// Triangulates the faces and gives every corner a normal: its own, the smoothing group's
    /// average at that position, or the face's.
    private static func build(positions: [SIMD3<Double>], normals: [SIMD3<Double>], faces: [Face]) -> Mesh {
        // Newell's method: area-weighted normal of a possibly non-planar polygon.
        func faceNormal(_ face: Face) -> SIMD3<Double> {
            var n = SIMD3<Double>.zero
            for (i, c) in face.corners.enumerated() {
                let a = positions[c.position], b = positions[face.corners[(i + 1) % face.corners.count].position]
                n += a.crossProduct(b)
            }
            return n
        }
        var smoothNormals = [SIMD3<Double>](repeating: .zero, count: positions.count)
        for face in faces where face.smooth {
            let n = faceNormal(face)
            for c in face.corners where c.normal == nil { smoothNormals[c.position] += n }
        }

        var builder = MeshBuilder(isClosed: false)
        var shared: [SIMD2<Int>: Int32] = [:]   // (position, normal or −1 for smooth) → vertex
        for face in faces {
            let flat = faceNormal(face)
            let indices = face.corners.map { c -> Int32 in
                if !face.smooth, c.normal == nil {
                    return builder.vertex(positions[c.position], normal: flat)
                }
                let key = SIMD2(c.position, c.normal ?? -1)
                if let existing = shared[key] { return existing }
                let vertex = builder.vertex(positions[c.position], normal: c.normal.map { normals[$0] } ?? smoothNormals[c.position])
                shared[key] = vertex
                return vertex
            }
            // A polygon is one surface; neighbouring polygons stay apart even when smooth.
            builder.nextSurface()
            for (a, b, c) in triangulate(face.corners.map { positions[$0.position] }, normal: flat) {
                builder.triangleAsWound(indices[a], indices[b], indices[c])
            }
        }
        return builder.mesh
    }

    /// The largest concave polygon clipped ear by ear (cubic time at worst, so a hostile file with
    /// many huge polygons stays quick); a larger one is split as a fan.
    static let maximumEarClippedCorners = 64

    /// A polygon's triangles as corner numbers, wound as the polygon: a fan when it is convex (or
    /// too large), else ear clipping in the plane it mostly faces, where a fan would fill in notches.
    static func triangulate(_ corners: [SIMD3<Double>], normal: SIMD3<Double>) -> [(Int, Int, Int)] {
        let n = corners.count
        let fan = (1..<max(1, n - 1)).map { (0, $0, $0 + 1) }
        guard n > 3, n <= maximumEarClippedCorners else { return fan }
        // Drop the axis the normal leans on most; the sign keeps the polygon anticlockwise.
        let magnitude = SIMD3(abs(normal.x), abs(normal.y), abs(normal.z))
        let (u, v, sign): (Int, Int, Double) = magnitude.z >= magnitude.x && magnitude.z >= magnitude.y ? (0, 1, normal.z < 0 ? -1 : 1)
            : magnitude.x >= magnitude.y ? (1, 2, normal.x < 0 ? -1 : 1) : (2, 0, normal.y < 0 ? -1 : 1)
        let points = corners.map { SIMD2($0[u], $0[v]) }
        func turn(_ a: Int, _ b: Int, _ c: Int) -> Double {
            let ab = points[b] - points[a], bc = points[c] - points[b]
            return sign * (ab.x * bc.y - ab.y * bc.x)
        }
        guard (0..<n).contains(where: { turn($0, ($0 + 1) % n, ($0 + 2) % n) < 0 }) else { return fan }
        func inside(_ p: Int, _ a: Int, _ b: Int, _ c: Int) -> Bool {
            turn(a, b, p) >= 0 && turn(b, c, p) >= 0 && turn(c, a, p) >= 0
        }
        var remaining = Array(0..<n)
        var triangles: [(Int, Int, Int)] = []
        var from = 0
        while remaining.count > 3 {
            let count = remaining.count
            // Look on from the last ear: its neighbours are the likeliest next ones.
            let ear = (0..<count).lazy.map { (from + $0) % count }.first { i in
                let a = remaining[(i + count - 1) % count], b = remaining[i], c = remaining[(i + 1) % count]
                return turn(a, b, c) > 0 && !remaining.contains { $0 != a && $0 != b && $0 != c && inside($0, a, b, c) }
            }
            // None (a self-crossing or degenerate outline): the rest as a fan.
            guard let ear else { break }
            triangles.append((remaining[(ear + count - 1) % count], remaining[ear], remaining[(ear + 1) % count]))
            remaining.remove(at: ear)
            from = ear % remaining.count
        }
        triangles += (1..<(remaining.count - 1)).map { (remaining[0], remaining[$0], remaining[$0 + 1]) }
        return triangles
    }
}
