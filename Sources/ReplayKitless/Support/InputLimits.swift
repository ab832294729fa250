import Foundation

/// Upper bounds on files that come from outside, so a broken or hostile file is refused with a
/// ``ReplayError`` instead of exhausting memory or time. Each is far above what a real recording
/// needs; they are listed for users in docs/poses.md ("Limits").
enum InputLimits {
    /// Poses in one sidecar: 23 hours at 60 fps.
    static let poseSamples = 5_000_000
    /// Bytes of a text file that grows with the recording's length: JSON Lines and CSV pose sidecars,
    /// placement tracks. (A `.pose32` file is limited to `poseSamples` records.)
    static let textFileBytes = 1 << 30
    /// Bytes in one line of those files: one record, however many unknown keys or columns it carries.
    static let lineBytes = 1 << 20
    /// The largest frame index a pose sidecar may name (JSON numbers are Doubles, exact to 2⁵³).
    static let frameIndex = 999_999_999_999_999
    /// Columns in a pose CSV header.
    static let csvColumns = 1_000
    /// Rows of a placement track: 10 annotations on every frame of 4.6 hours at 60 fps.
    static let trackRows = 10_000_000
    /// Bytes of an annotation scene (`annotations.json`).
    static let sceneBytes = 16 << 20
    /// Bytes of a Wavefront OBJ mesh.
    static let meshBytes = 64 << 20
    /// Triangles of an OBJ mesh after its polygons are split into triangles.
    static let meshTriangles = 2_000_000
}

/// Reads a whole input file, naming it (`kind`, e.g. "mesh file") when that fails. A file larger than
/// `limit` bytes is refused (before reading it when its size is known), so a huge file cannot exhaust memory.
func readInputFile(_ path: String, limit: Int, kind: String) throws(ReplayError) -> [UInt8] {
    func tooLarge() -> ReplayError {
        .badInput(file: path, "the \(kind) is larger than \(limit) bytes, the most fxreplay reads (see docs/poses.md, Limits)")
    }
    if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > limit {
        throw tooLarge()
    }
    guard let handle = FileHandle(forReadingAtPath: path) else {
        throw .badInput(file: path, "cannot read the \(kind)")
    }
    defer { try? handle.close() }
    let data: Data?
    do {
        data = try handle.read(upToCount: limit + 1)  // + 1: a file that grew or a pipe still ends up refused
    } catch {
        throw .badInput(file: path, "cannot read the \(kind) (\(error.localizedDescription))")
    }
    guard let data else { return [] }
    guard data.count <= limit else { throw tooLarge() }
    return [UInt8](data)
}

/// Calls `body` with each line of `bytes` (split at "\n", which is not included) and its 1-based
/// number, without collecting the lines first: a file of a billion empty lines costs no memory.
/// A line longer than ``InputLimits/lineBytes`` is an error naming `file` and the line.
func forEachLine(of bytes: [UInt8], file: String,
                 _ body: (_ line: ArraySlice<UInt8>, _ number: Int) throws -> Void) throws {
    var start = 0, number = 1
    while start <= bytes.count {
        let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
        guard end - start <= InputLimits.lineBytes else {
            throw ReplayError.badInput(file: file, line: number,
                                       "line longer than \(InputLimits.lineBytes) bytes (see docs/poses.md, Limits)")
        }
        try body(bytes[start..<end], number)
        start = end + 1
        number += 1
    }
}
