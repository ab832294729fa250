import CFFmpeg
import Foundation

/// An MD5 digest computed by libavutil (`av_md5_*`), the hash FFmpeg's `framemd5` muxer uses.
/// Reusable: ``finalize()`` returns the digest and starts over.
package final class MD5 {
    private let context: OpaquePointer

    package init() throws(ReplayError) {
        guard let context = av_md5_alloc() else { throw .processing("out of memory allocating an MD5 context") }
        self.context = context
        av_md5_init(context)
    }

    deinit { av_free(UnsafeMutableRawPointer(context)) }

    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        av_md5_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    package func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }

    /// The plane's samples row by row without padding: how rawvideo packs an 8-bit planar frame.
    package func update(plane: Plane) {
        for y in 0..<plane.height { update(UnsafeRawBufferPointer(plane.row(y))) }
    }

    /// The digest in lower-case hex (as `av_hash_final_hex`); the context is reset for the next message.
    package func finalize() -> String {
        var digest = [UInt8](repeating: 0, count: 16)
        digest.withUnsafeMutableBufferPointer { av_md5_final(context, $0.baseAddress) }
        av_md5_init(context)
        let hex: [Character] = Array("0123456789abcdef")
        return String(digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0x0F)]] })
    }
}

/// The text of FFmpeg's `framemd5` muxer (libavformat/hashenc.c, format version 2).
package enum FrameMD5 {
    /// A data line: `"%d, %10"PRId64", %10"PRId64", %8"PRId64", %8d, %s"` of stream index, dts, pts,
    /// duration, size and hash (no newline).
    package static func dataLine(stream: Int, dts: Int64, pts: Int64, duration: Int64, size: Int, hash: String) -> String {
        "\(stream), \(padded(dts, 10)), \(padded(pts, 10)), \(padded(duration, 8)), \(padded(Int64(size), 8)), \(hash)"
    }

    /// The header `ffmpeg -fflags +bitexact -f framemd5` writes for one rawvideo stream (no `#software`
    /// line under bitexact): format, version, hash, then the stream's time base, type, codec, size and
    /// sample aspect ratio, then the column titles.
    package static func headerLines(timeBase: (num: Int32, den: Int32), width: Int, height: Int,
                                   sampleAspectRatio: (num: Int32, den: Int32)) -> [String] {
        ["#format: frame checksums", "#version: 2", "#hash: MD5",
         "#tb 0: \(timeBase.num)/\(timeBase.den)", "#media_type 0: video", "#codec_id 0: rawvideo",
         "#dimensions 0: \(width)x\(height)", "#sar 0: \(sampleAspectRatio.num)/\(sampleAspectRatio.den)",
         "#stream#, dts,        pts, duration,     size, hash"]
    }

    /// `printf("%*lld")`: right-aligned in `width` characters, never truncated.
    private static func padded(_ value: Int64, _ width: Int) -> String {
        String(value).leftPadded(to: width, with: " ")
    }
}

/// The first way a frame hash listing differs from its golden file.
public enum FrameHashDifference: Sendable, Equatable, CustomStringConvertible {
    /// Frame `frame` (0-based data line) has another line than the golden file.
    case differs(frame: Int, expected: String, actual: String)
    /// The input ended after `actual` frames; the golden file has `expected`.
    case missing(expected: Int, actual: Int)
    /// The input goes on past the golden file's `frame` frames; `actual` is its first extra line.
    case extra(frame: Int, actual: String)

    public var description: String {
        switch self {
        case .differs(let frame, let expected, let actual):
            "frame \(frame) differs from the golden file:\n  expected: \(expected)\n  actual:   \(actual)"
        case .missing(let expected, let actual):
            "the input has \(actual) frames but the golden file has \(expected)"
        case .extra(let frame, let actual):
            "frame \(frame) is not in the golden file, which has \(frame) frames:\n  actual:   \(actual)"
        }
    }

    /// The failure `fxreplay framehash --check` exits with (status 1), naming `golden` and, for a
    /// differing frame, the line of its golden line.
    package func error(in golden: FrameHashGolden) -> ReplayError {
        if case .differs(let frame, _, _) = self, frame < golden.lineNumbers.count {
            return .checkFailed("\(golden.file):\(golden.lineNumbers[frame]): \(description)")
        }
        return .checkFailed("\(golden.file): \(description)")
    }
}

/// A golden `framemd5` file for `fxreplay framehash --check`: its data lines (`#` lines and blank lines
/// ignored), checked one by one as the input's lines are produced. Padding spaces never count as a difference.
public struct FrameHashGolden: Sendable {
    /// The file the lines came from, as messages name it.
    public let file: FilePath
    package let lines: [String]
    /// Where each of `lines` is in the file (1-based).
    package let lineNumbers: [Int]

    /// Parses golden text. Data lines need at least six comma-separated fields, the first five integers.
    public init(_ text: String, file: FilePath) throws(ReplayError) {
        var lines: [String] = [], lineNumbers: [Int] = []
        for (raw, number) in ReplayKitless.lines(of: text) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = Self.fields(line)
            guard fields.count >= 6, fields.prefix(5).allSatisfy({ Int64($0) != nil }), !fields[5].isEmpty else {
                throw .badInput(file: file.string, line: number, "not a framemd5 data line (stream, dts, pts, duration, size, hash)")
            }
            lines.append(line)
            lineNumbers.append(number)
        }
        self.file = file
        self.lines = lines
        self.lineNumbers = lineNumbers
    }

    /// Reads and parses the golden file at `path`.
    public static func load(path: FilePath) throws(ReplayError) -> FrameHashGolden {
        let text = try readInputText(path, limit: InputLimits.textFileBytes, kind: "golden framemd5 file")
        return try FrameHashGolden(text, file: path)
    }

    /// Compares a whole listing (data lines, as ``VideoFrameHasher/nextLine()`` gives them); `nil` when it matches.
    public func compare(_ actual: [String]) -> FrameHashDifference? {
        var checker = FrameHashChecker(golden: self)
        for line in actual {
            if let difference = checker.check(line) { return difference }
        }
        return checker.finish()
    }

    /// Checks `hasher`'s frames against these lines as they are decoded, stopping at the first
    /// difference: `fxreplay framehash --check`. Returns the number of frames, all matching.
    /// - Throws: ``ReplayError/Kind/checkFailed`` (exit status 1) naming the golden file, the line of
    ///   a differing frame and both lines; other errors of reading the video.
    public func check(_ hasher: VideoFrameHasher) throws(ReplayError) -> Int {
        var checker = FrameHashChecker(golden: self)
        while let line = try hasher.nextLine() {
            if let difference = checker.check(line) { throw difference.error(in: self) }
        }
        if let difference = checker.finish() { throw difference.error(in: self) }
        return checker.frames
    }

    /// Fields with the padding spaces removed, so spacing alone never counts as a difference.
    static func fields(_ line: String) -> [String] {
        line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }
}

/// Checks data lines against a golden file as they are produced, so a check can stop at the first difference.
package struct FrameHashChecker: Sendable {
    package let golden: FrameHashGolden
    /// Lines checked so far.
    package private(set) var frames = 0

    package init(golden: FrameHashGolden) {
        self.golden = golden
    }

    /// Checks the next data line; returns the difference if it is the first one.
    package mutating func check(_ line: String) -> FrameHashDifference? {
        defer { frames += 1 }
        guard frames < golden.lines.count else { return .extra(frame: frames, actual: line) }
        let expected = golden.lines[frames]
        if FrameHashGolden.fields(expected) != FrameHashGolden.fields(line) {
            return .differs(frame: frames, expected: expected, actual: line)
        }
        return nil
    }

    /// After the last line: whether golden frames are left over.
    package func finish() -> FrameHashDifference? {
        frames >= golden.lines.count ? nil : .missing(expected: golden.lines.count, actual: frames)
    }
}
