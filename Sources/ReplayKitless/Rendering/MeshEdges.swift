/// Which triangle of a mesh lies across each edge of each triangle, found once per mesh (meshes
/// are cached; their poses change every frame, their topology never). The rasterizer
/// anti-aliases only the edges where the drawn surface ends (the silhouette: no neighbour, a
/// neighbour turned away or clipped off, a fold of a double-sided sheet); across every other edge
/// a neighbour continues the surface, so the pixels there are wholly covered.
struct MeshEdges: Sendable {
    /// Per triangle, the neighbour across edge k (the edge opposite vertex k), or −1 when there
    /// is none or more than one (an open border, a non-manifold edge).
    let neighbours: [SIMD3<Int32>]

    init(_ mesh: Mesh) {
        // Vertices are matched by position, not index: shapes repeat a vertex per face (hard edges)
        // or per seam. (+0 turns −0, which revolved poles produce, into the +0 it equals.)
        struct Key: Hashable {
            var low: SIMD3<UInt64>, high: SIMD3<UInt64>
            init(_ p: SIMD3<Double>, _ q: SIMD3<Double>) {
                let a = SIMD3((p.x + 0).bitPattern, (p.y + 0).bitPattern, (p.z + 0).bitPattern)
                let b = SIMD3((q.x + 0).bitPattern, (q.y + 0).bitPattern, (q.z + 0).bitPattern)
                let aFirst = a.x != b.x ? a.x < b.x : a.y != b.y ? a.y < b.y : a.z < b.z
                (low, high) = aFirst ? (a, b) : (b, a)
            }
        }
        let count = mesh.positions.count
        var sharing: [Key: [Int32]] = [:]
        func key(_ triangle: SIMD3<Int32>, _ k: Int) -> Key? {
            let p = Int(triangle[(k + 1) % 3]), q = Int(triangle[(k + 2) % 3])
            guard p >= 0, q >= 0, p < count, q < count else { return nil }
            return Key(mesh.positions[p], mesh.positions[q])
        }
        for (index, triangle) in mesh.triangles.enumerated() {
            for k in 0..<3 { if let key = key(triangle, k) { sharing[key, default: []].append(Int32(index)) } }
        }
        neighbours = mesh.triangles.enumerated().map { index, triangle in
            var across = SIMD3<Int32>(repeating: -1)
            for k in 0..<3 {
                guard let key = key(triangle, k), let pair = sharing[key], pair.count == 2 else { continue }
                across[k] = pair[0] == Int32(index) ? pair[1] : pair[0]
            }
            return across
        }
    }
}
