/// Which triangle of a mesh lies across each edge of each triangle, found once per mesh (meshes
/// are cached; their poses change every frame, their topology never). The rasterizer
/// anti-aliases only the edges where the drawn surface ends (the silhouette: no neighbour, a
/// neighbour turned away or clipped off, a fold of a double-sided sheet); across every other edge
/// a neighbour continues the surface, so the pixels there are wholly covered.
///
/// Made for meshes of at most ``maximumTriangles`` triangles (about 150 bytes each while it is
/// made): a larger one (a loaded file) goes without, every edge a silhouette, which is right, only slower.
struct MeshEdges: Sendable {
    static let maximumTriangles = 250_000

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
        // Per edge, the first two triangles along it; a third makes it −2 (non-manifold).
        var sharing: [Key: SIMD2<Int32>] = [:]
        func key(_ triangle: SIMD3<Int32>, _ k: Int) -> Key? {
            let p = Int(triangle[(k + 1) % 3]), q = Int(triangle[(k + 2) % 3])
            guard p >= 0, q >= 0, p < count, q < count else { return nil }
            return Key(mesh.positions[p], mesh.positions[q])
        }
        for (index, triangle) in mesh.triangles.enumerated() {
            for k in 0..<3 {
                guard let key = key(triangle, k) else { continue }
                let pair = sharing[key, default: SIMD2(-1, -1)]
                sharing[key] = pair.x < 0 ? SIMD2(Int32(index), -1) : pair.y == -1 ? SIMD2(pair.x, Int32(index)) : SIMD2(pair.x, -2)
            }
        }
        neighbours = mesh.triangles.enumerated().map { index, triangle in
            var across = SIMD3<Int32>(repeating: -1)
            for k in 0..<3 {
                guard let key = key(triangle, k), let pair = sharing[key], pair.y >= 0 else { continue }
                across[k] = pair.x == Int32(index) ? pair.y : pair.x
            }
            return across
        }
    }
}
