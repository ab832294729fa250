import Foundation

/// Upper bounds on files that come from outside, so a broken or hostile file is refused with a
/// ``ReplayError`` instead of exhausting memory or time. Each is far above what a real recording
/// needs; they are listed for users, each with its value, in docs/limits.md (scripts/check-docs.sh checks that).
/// Public so that a program reading such a file itself (with ``readInputText(_:limit:kind:)``) can hold
/// it to the same bound; the job spec and manifest limits are the `fxreplay` command's.
public enum InputLimits {
    /// Poses in one sidecar: 23 hours at 60 fps.
    public static let poseSamples = 5_000_000
    /// Bytes of a text file that grows with the recording's length: JSON Lines and CSV pose sidecars,
    /// placement tracks. (A `.pose32` file is limited to `poseSamples` records.)
    public static let textFileBytes = 1 << 30
    /// Bytes in one line of those files: one record, however many unknown keys or columns it carries.
    public static let lineBytes = 1 << 20
    /// The largest frame index a pose sidecar may name (JSON numbers are Doubles, exact to 2⁵³).
    public static let frameIndex = 999_999_999_999_999
    /// Columns in a pose CSV header.
    public static let csvColumns = 1_000
    /// Rows of a placement track: 10 annotations on every frame of 4.6 hours at 60 fps.
    public static let trackRows = 10_000_000
    /// Bytes of an annotation scene (`annotations.json`).
    public static let sceneBytes = 16 << 20
    /// Bytes of a job spec (`--job`).
    public static let jobSpecBytes = 1 << 20
    /// Values (scalars, lists, mappings) in a YAML job spec, counted after aliases are expanded.
    public static let jobSpecValues = 100_000
    /// Bytes of a batch manifest (`--manifest`): about half a million recordings.
    public static let manifestBytes = 64 << 20
    /// Bytes of a call's manifest (an archive's or a call manifest, formats.md §9).
    public static let callManifestBytes = 16 << 20
    /// Streams of an archive, or participants of a call manifest (formats.md §9): a real call has
    /// tens; each stream costs a decoder and its pictures while it is shown.
    public static let callStreams = 256
    /// Tracks (media files) of one participant of a call manifest: a reconnect or a recording cut
    /// into pieces adds one; 1 000 one-minute pieces are 16 hours.
    public static let callTracksPerStream = 1_000
    /// Tracks of a whole call, every participant's counted: each is opened and read when the call is.
    public static let callTracks = 2_000
    /// A call time in a manifest (`startTimeOffset`, `stopTimeOffset`, `start`, `end`), seconds:
    /// from 0 up to a year, so no sum or conversion of one can overflow.
    public static let callTime = 366.0 * 86_400
    /// A call's epoch (an archive's `createdAt / 1000`, a call manifest's `epoch`), Unix seconds:
    /// from 1970 to 2096 (about 1.7e9 today).
    public static let callEpoch = 0.0...4e9
    /// Bytes of a Wavefront OBJ mesh.
    public static let meshBytes = 64 << 20
    /// Triangles of an OBJ mesh after its polygons are split into triangles.
    public static let meshTriangles = 2_000_000
    /// Triangles of a whole scene: every annotation's mesh counted (an OBJ file used by ten
    /// annotations counts ten times, as it is drawn ten times), built-in shapes at their finest.
    public static let sceneTriangles = 4_000_000
    /// The largest distance from the world origin in metres (a million kilometres), for pose
    /// positions, scene anchors and sizes: beyond it projections lose all precision or overflow to infinity.
    public static let worldExtent = 1e9
    /// The largest time in seconds, either way, in a scene (`from`, `until`, a tap's `t`) or a
    /// placement track: it admits Unix times (about 1.8e9 today, formats.md §6 `"time": "epoch"`)
    /// until the year 2286, and stays exact to a microsecond in a Double.
    public static let timeSeconds = 1e10
    /// Focal lengths in pixels (`intrinsics`); with ``principalPoint`` and ``fieldOfView``, a lens
    /// outside these projects to infinity or to nothing.
    public static let focalLengths = 1e-3...1e9
    /// The principal point's coordinates in pixels (`intrinsics`), either way.
    public static let principalPoint = 1e9
    /// The field of view in degrees (`fovY`).
    public static let fieldOfView = 1e-3...(180 - 1e-3)
    /// Annotations in one scene.
    public static let annotations = 10_000
    /// Characters (Unicode scalars) of one annotation's label.
    public static let labelCharacters = 1_000
    /// A label's text height in pixels (`labelSize`): FreeType renders each glyph at this size.
    public static let labelSize = 512.0
    /// Bytes of glyph bitmaps the renderer keeps between frames; beyond, the cache starts over.
    public static let glyphCacheBytes = 32 << 20
    /// How many times over the annotations drawn on one frame may cover it (shapes' triangles and
    /// label plates summed): a few frames' worth is plenty for any real scene; beyond, drawing time
    /// has no bound. The floor keeps tiny frames from refusing ordinary scenes.
    public static let frameOverdraw = 64.0
    /// The drawing budget of any frame, however small, in pixel tests (the floor above).
    public static let frameWorkFloor = 4_000_000.0
    /// The largest picture (video frame, mask, background) in pixels a side and in total. FFmpeg's
    /// own limit (`av_image_check_size`: (width + 128) × (height + 128) < 2³¹ / 8) lets through
    /// pictures of 268 million pixels, whose float planes would take gigabytes; 8K video is 33 million.
    public static let pictureSide = 16_384
    /// Pixels of such a picture in total.
    public static let picturePixels = 1 << 26
    /// The largest time a time option (`--from`, `--to`) may give, seconds (about 31 years): every time
    /// is checked against it before it becomes a frame or sample count, so no count can overflow.
    public static let optionSeconds = 1e9
    /// Call seconds one composition (or `render CALL --stream`) may span without `--allow-long-call`:
    /// a manifest or a stray timestamp can claim a year, which would compose for days.
    public static let callSeconds = 12.0 * 3600
    /// Tiles in a layout file (`compose --layout FILE.json`).
    public static let layoutTiles = 256
    /// How many times over a layout file's tiles may cover the picture (their areas summed): painting
    /// costs time in proportion, on every frame.
    public static let layoutCoverage = 16
}

/// Refuses a picture larger than ``InputLimits/pictureSide`` or ``InputLimits/picturePixels``,
/// naming `source` (the file) and the size.
func checkPictureSize(width: Int, height: Int, source: String) throws(ReplayError) {
    // Each side at most 16384, so the product cannot overflow.
    guard (0...InputLimits.pictureSide).contains(width), (0...InputLimits.pictureSide).contains(height),
          width * height <= InputLimits.picturePixels else {
        throw .badInput(file: source, "the picture is \(width)×\(height); fxreplay reads pictures of at most "
                        + "\(InputLimits.pictureSide) pixels a side and \(InputLimits.picturePixels) pixels in all "
                        + "(FFmpeg's own limit, av_image_check_size, is (width + 128) × (height + 128) < 268435456; "
                        + "see docs/limits.md)")
    }
}

/// Reads a whole input file, naming it (`kind`, e.g. "mesh file") when that fails. A file larger than
/// `limit` bytes is refused (before reading it when its size is known), so a huge file cannot exhaust memory.
/// A text file (`isText`) loses the UTF-8 byte order mark some editors put first.
package func readInputFile(_ path: String, limit: Int, kind: String, isText: Bool = false) throws(ReplayError) -> [UInt8] {
    func tooLarge() -> ReplayError {
        .badInput(file: path, "the \(kind) is larger than \(limit) bytes, the most fxreplay reads (see docs/poses.md, Limits)")
    }
    if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > limit {
        throw tooLarge()
    }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
        throw .badInput(file: path, "is a directory; expected the \(kind)")
    }
    guard let handle = FileHandle(forReadingAtPath: path) else {
        throw .badInput(file: path, "cannot read the \(kind) (\(FileManager.default.fileExists(atPath: path) ? "not readable" : "no such file"))")
    }
    ReadFiles.note(path)
    defer { try? handle.close() }
    let data: Data?
    do {
        data = try handle.read(upToCount: limit + 1)  // + 1: a file that grew or a pipe still ends up refused
    } catch {
        throw .badInput(file: path, "cannot read the \(kind) (\(error.localizedDescription))")
    }
    guard let data else { return [] }
    guard data.count <= limit else { throw tooLarge() }
    let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    return isText && data.starts(with: byteOrderMark) ? [UInt8](data.dropFirst(3)) : [UInt8](data)
}

/// Reads a whole input file as UTF-8 text (without a leading byte order mark), refusing it when it is
/// larger than `limit` bytes (one of ``InputLimits``; checked before reading when the size is known, so a
/// huge file cannot exhaust memory) or not UTF-8. Inside a job, the file counts as one the job reads, so
/// no output of the job may write over it.
/// - Throws: `ReplayError.badInput` naming the file and `kind` (e.g. "job spec"): missing, a folder,
///   unreadable, too large, or not UTF-8.
public func readInputText(_ path: FilePath, limit: Int, kind: String) throws(ReplayError) -> String {
    guard let text = String(validating: try readInputFile(path.string, limit: limit, kind: kind, isText: true), as: UTF8.self) else {
        throw .badInput(file: path.string, "cannot read the \(kind) (not UTF-8 text)")
    }
    return text
}

/// The lines of `bytes` (a text input, as ``readInputText(_:limit:kind:)`` returns it, in UTF-8), split at
/// "\n" (not included), with their 1-based numbers, produced one at a time: a file of a billion empty
/// lines costs no memory. Splitting bytes rather than a String keeps
/// "\r\n" apart (in a String it is one Character, which is not "\n").
public func lines(of bytes: [UInt8]) -> some Sequence<(line: ArraySlice<UInt8>, number: Int)> {
    sequence(state: (start: 0, number: 1)) { state in
        let (start, number) = state
        guard start <= bytes.count else { return nil }
        let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
        state = (end + 1, number + 1)
        return (bytes[start..<end], number)
    }
}

/// The lines of `text`, split at any newline Character ("\r\n" is one), with their 1-based numbers,
/// produced one at a time like ``lines(of:)``.
package func lines(of text: String) -> some Sequence<(line: Substring, number: Int)> {
    sequence(state: (rest: text[...], number: 1)) { state in
        let (rest, number) = state
        guard !rest.isEmpty else { return nil }
        let end = rest.firstIndex(where: \.isNewline) ?? rest.endIndex
        state = (end < rest.endIndex ? rest[rest.index(after: end)...] : "", number + 1)
        return (rest[..<end], number)
    }
}

/// Refuses a line longer than ``InputLimits/lineBytes``, naming `file` and the line.
func checkLineLength(_ line: some Collection, file: String, number: Int) throws(ReplayError) {
    guard line.count <= InputLimits.lineBytes else {
        throw .badInput(file: file, line: number, "line longer than \(InputLimits.lineBytes) bytes (see docs/poses.md, Limits)")
    }
}
