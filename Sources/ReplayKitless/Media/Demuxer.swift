import CFFmpeg
import Foundation

/// What a stream holds.
public enum MediaKind: String, Sendable, Codable {
    case video, audio, subtitle, data, attachment, unknown
}

/// A stream of an opened input, as the container describes it.
package struct StreamInfo: Sendable {
    package let index: Int
    package let kind: MediaKind
    package let codecName: String
    /// Numerator and denominator of the stream's time base.
    package let timeBase: Rational
    package let startTime: Int64?
    package let duration: Int64?
    /// Frame count declared by the container (0 when unknown).
    package let declaredFrames: Int64
    package let width: Int
    package let height: Int
    package let sampleRate: Int
    package let channels: Int
    /// Display rotation in degrees clockwise (0, 90, 180, 270) from the container's display matrix.
    package let rotation: Int
    /// The display matrix mirrors the picture horizontally.
    package let mirrored: Bool
    /// The clockwise angle, in whole degrees, of a display matrix that turns the picture by other
    /// than a quarter turn (`nil` for none or a quarter turn). `ffmpeg` (5.1) turns such a picture
    /// with its `rotate` filter, black corners and all; fxreplay refuses it (exit 3) rather than
    /// show frames that differ from ffmpeg's, see ``requireQuarterTurns(of:)``.
    package let oddRotation: Int?
    package let averageFrameRate: Rational

    /// Refuses a stream whose display matrix turns by other than a quarter turn: its frames are
    /// shown turned, as ffmpeg shows them, or not at all.
    func requireQuarterTurns(of url: String) throws(ReplayError) {
        guard let oddRotation else { return }
        throw .badInput("\(url): stream #\(index)'s display matrix turns the picture by \(oddRotation)° clockwise, not a quarter turn; "
            + "fxreplay applies quarter turns only (ffmpeg would turn it with its rotate filter); re-encode it upright first")
    }
}

/// An exact rational number, as FFmpeg's `AVRational`.
package struct Rational: Sendable, Equatable, Codable, CustomStringConvertible {
    package var numerator: Int32
    package var denominator: Int32
    package init(_ numerator: Int32, _ denominator: Int32) { self.numerator = numerator; self.denominator = denominator }
    init(_ value: AVRational) { self.init(value.num, value.den) }
    var av: AVRational { AVRational(num: numerator, den: denominator) }
    package var doubleValue: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }
    package var description: String { "\(numerator)/\(denominator)" }

    /// `value` in this time base, in seconds, rounded once from the exact fraction (so a frame at
    /// 2.4 s compares equal to 2.4 written in a file).
    package func seconds(_ value: Int64) -> Double {
        guard denominator != 0 else { return 0 }
        let (product, overflow) = value.multipliedReportingOverflow(by: Int64(numerator))
        return overflow ? Double(value) * Double(numerator) / Double(denominator) : Double(product) / Double(denominator)
    }
}

/// An opened input file or URL; owns its `AVFormatContext`.
final class Demuxer: @unchecked Sendable {
    let context: UnsafeMutablePointer<AVFormatContext>
    /// The input as the probe opened it, which the demuxer reads on (libavformat leaves it to us to
    /// close): one open, so a pipe's or a server's first bytes are not spent on the probe.
    private let input: UnsafeMutablePointer<AVIOContext>?
    /// The path or URL the demuxer was opened with, for messages.
    let url: String
    let streams: [StreamInfo]
    /// Error lines the demuxer logged on this input (damaged or lost data it skipped or resynced past).
    private let errorCounter: UnsafeMutablePointer<Int>?

    /// Opens and probes `url` under the job's input policy (``JobEnvironment``). Missing, unreadable or unrecognisable
    /// input, or one the policy refuses, is a ``ReplayError/Kind/badInput``.
    /// - Parameter format: force a demuxer by name (`image2` for numbered image sequences).
    init(url: String, format: String? = nil) throws(ReplayError) {
        _ = FFmpegLogging.defaults
        self.url = url
        let policy = JobEnvironment.inputPolicy
        try policy.checkProtocol(of: url)
        if format == "image2" {
            let candidates = [0, 1].compactMap { Demuxer.imagePath(pattern: url, number: $0) }
            guard !candidates.isEmpty else { throw .usage("\(url): an image pattern needs exactly one %d (e.g. mask_%05d.png)") }
            guard candidates.contains(where: { FileManager.default.fileExists(atPath: $0) }) else {
                throw .badInput("\(url): no images match (looked for \(candidates[0]))")
            }
        } else if !url.contains("://") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url, isDirectory: &isDirectory) else {
                throw .badInput("\(url): no such file")
            }
            guard !isDirectory.boolValue else { throw .badInput("\(url): is a directory, expected a media file") }
            guard FileManager.default.isReadableFile(atPath: url) else { throw .badInput("\(url): not readable (permission denied)") }
        }
        // libavformat takes `name:` at the start for a protocol: a local file with a colon before
        // any slash (`call-10:00.mp4`) is opened through the file protocol.
        let isLocal = !url.contains("://")
        let opened = isLocal && url.prefix { $0 != "/" }.contains(":") ? "file:" + url : url
        var options = Self.openOptions(policy, local: isLocal)
        defer { av_dict_free(&options) }
        // The format is known before it opens anything its input names: a refused one opens nothing.
        let demuxer: UnsafePointer<AVInputFormat>?
        var input: UnsafeMutablePointer<AVIOContext>? = nil
        if let format {
            demuxer = av_find_input_format(format)
        } else {
            let probed = try Self.probeFormat(opened, url: url, options: options)
            input = probed.input
            do { try policy.checkFormat(String(cString: probed.format.pointee.name), of: url) } catch {
                avio_closep(&input)
                throw error
            }
            demuxer = probed.format
        }
        // A recording is one picture file even when its name looks like a pattern (`call%d.png`).
        if format != "image2" { av_dict_set(&options, "pattern_type", "none", 0) }
        var context = avformat_alloc_context()
        context?.pointee.pb = input
        let counter = fx_error_counter_new()
        context?.pointee.opaque = UnsafeMutableRawPointer(counter)
        ReadFiles.note(url)
        let status = avformat_open_input(&context, opened, demuxer, &options)
        guard status >= 0, let context else {
            avio_closep(&input)
            av_free(counter)
            throw Self.failure("\(url): cannot open as media", status)
        }
        self.context = context
        self.input = input
        errorCounter = counter
        let infoStatus = avformat_find_stream_info(context, nil)
        if infoStatus < 0 {
            var owned: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&owned)
            avio_closep(&input)
            av_free(counter)
            throw Self.failure("\(url): cannot read stream information", infoStatus)
        }
        streams = (0..<Int(context.pointee.nb_streams)).map { Demuxer.describe(context.pointee.streams[$0]!, index: $0) }
    }

    /// A libavformat failure reading `url`: bad input (exit 3), unless FFmpeg ran out of memory,
    /// which is no fault of the input (exit 4).
    static func failure(_ context: String, _ status: Int32) -> ReplayError {
        let failure = FFmpegFailure(call: "libavformat", code: status)
        return failure.isOutOfMemory ? failure.inputError(context) : .badInput("\(context): \(ffmpegErrorText(status))")
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&owned)
        var opened = input
        avio_closep(&opened)
        av_free(errorCounter)
    }

    /// How many error lines the demuxer has logged on this input so far: each is damage it skipped
    /// (bytes it could not parse, a resync to the next cluster, a block of an unknown track).
    var reportedErrors: Int { errorCounter.map { fx_error_counter_read($0) } ?? 0 }

    /// The options every open takes under `policy`: its protocols and, for a network input,
    /// its timeout on opening and on each read (so a stalled server cannot hold a batch slot).
    private static func openOptions(_ policy: InputPolicy, local: Bool) -> OpaquePointer? {
        var options: OpaquePointer? = nil
        av_dict_set(&options, "protocol_whitelist", policy.protocolWhitelist, 0)
        if !local {
            let microseconds = String(Int64(policy.ioTimeout * 1_000_000))
            av_dict_set(&options, "rw_timeout", microseconds, 0)
            av_dict_set(&options, "timeout", microseconds, 0)
        }
        return options
    }

    /// The demuxer FFmpeg would choose for `opened`, from its first bytes and its name, and the
    /// input opened for it, rewound (`nil` for a demuxer that opens its files itself, `image2`).
    private static func probeFormat(_ opened: String, url: String, options: OpaquePointer?)
        throws(ReplayError) -> (format: UnsafePointer<AVInputFormat>, input: UnsafeMutablePointer<AVIOContext>?) {
        var copy: OpaquePointer? = nil
        av_dict_copy(&copy, options, 0)
        defer { av_dict_free(&copy) }
        var io: UnsafeMutablePointer<AVIOContext>? = nil
        let status = avio_open2(&io, opened, AVIO_FLAG_READ, nil, &copy)
        guard status >= 0 else { throw Self.failure("\(url): cannot open as media", status) }
        var found: UnsafePointer<AVInputFormat>? = nil
        let score = av_probe_input_buffer2(io, &found, opened, nil, 0, 0)
        guard score >= 0, let found else {
            avio_closep(&io)
            throw Self.failure("\(url): cannot open as media", score)
        }
        if found.pointee.flags & AVFMT_NOFILE != 0 { avio_closep(&io) }
        return (found, io)
    }

    /// The file name an image pattern (`mask_%05d.png`) gives for `number`; `nil` unless the
    /// pattern holds exactly one `%d`/`%0Nd` and no other `%` directive.
    static func imagePath(pattern: String, number: Int) -> String? {
        guard let match = pattern.range(of: #"%(0?\d*)d"#, options: .regularExpression),
              pattern.replacingCharacters(in: match, with: "").replacingOccurrences(of: "%%", with: "").contains("%") == false
        else { return nil }
        let width = Int(pattern[match].dropFirst().dropLast()) ?? 0
        let digits = String(number).leftPadded(to: width)
        return pattern.replacingCharacters(in: match, with: digits).replacingOccurrences(of: "%%", with: "%")
    }

    /// The existing files of an image sequence, in number order: every file in the pattern's
    /// folder that is the pattern's name for some number (what a render may read).
    static func imageFiles(pattern: String) -> [String] {
        let slash = pattern.lastIndex(of: "/")
        let directory = slash.map { String(pattern[..<$0]) } ?? "."
        let folder = slash.map { String(pattern[...$0]) } ?? ""
        let name = slash.map { String(pattern[pattern.index(after: $0)...]) } ?? pattern
        guard !directory.contains("%"), imagePath(pattern: pattern, number: 0) != nil,
              let match = name.range(of: #"%(0?\d*)d"#, options: .regularExpression),
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "/" : directory) else { return [] }
        let before = name[..<match.lowerBound].replacingOccurrences(of: "%%", with: "%")
        let after = name[match.upperBound...].replacingOccurrences(of: "%%", with: "%")
        var numbered: [(Int, String)] = []
        for file in names where file.count > before.count + after.count && file.hasPrefix(before) && file.hasSuffix(after) {
            let digits = file.dropFirst(before.count).dropLast(after.count)
            guard digits.count <= 18, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(digits),
                  imagePath(pattern: pattern, number: number) == folder + file else { continue }
            numbered.append((number, folder + file))
        }
        return numbered.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The first video stream, if any (FFmpeg's choice of "best" stream).
    var bestVideoStream: StreamInfo? {
        let index = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        return index >= 0 ? streams[Int(index)] : nil
    }

    /// Container duration in seconds, when known.
    var durationSeconds: Double? {
        context.pointee.duration == noPTS ? nil : Double(context.pointee.duration) / Double(AV_TIME_BASE)
    }

    /// Container start time in seconds, when known.
    var startSeconds: Double? {
        context.pointee.start_time == noPTS ? nil : Double(context.pointee.start_time) / Double(AV_TIME_BASE)
    }

    var formatName: String { String(cString: context.pointee.iformat.pointee.name) }

    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[index]! }

    /// Reads the next packet into `packet`. Returns `false` at end of file; a read error is thrown,
    /// never mistaken for the end.
    func read(into packet: Packet) throws(ReplayError) -> Bool {
        let status = av_read_frame(context, packet.pointer)
        if status == fx_averror_eof() { return false }
        if status < 0 { throw Self.failure("\(url): read error", status) }
        return true
    }

    /// Moves to the last keyframe at or before `seconds` on the file's clock (all streams), so
    /// reading resumes there; `false` when the file cannot seek (then reading goes on from where it was).
    @discardableResult
    func seek(toSeconds seconds: Double) -> Bool {
        let target = Int64((seconds * Double(AV_TIME_BASE)).rounded(.down))
        return avformat_seek_file(context, -1, Int64.min, target, target, 0) >= 0
    }

    /// Tells the demuxer which streams the caller wants; the others are skipped cheaply.
    func keepOnly(streams wanted: Set<Int>) {
        for index in streams.indices where !wanted.contains(index) {
            stream(index).pointee.discard = AVDISCARD_ALL
        }
    }

    private static func describe(_ stream: UnsafeMutablePointer<AVStream>, index: Int) -> StreamInfo {
        let par = stream.pointee.codecpar.pointee
        let kind: MediaKind
        switch par.codec_type {
        case AVMEDIA_TYPE_VIDEO: kind = .video
        case AVMEDIA_TYPE_AUDIO: kind = .audio
        case AVMEDIA_TYPE_SUBTITLE: kind = .subtitle
        case AVMEDIA_TYPE_DATA: kind = .data
        case AVMEDIA_TYPE_ATTACHMENT: kind = .attachment
        default: kind = .unknown
        }
        var size = 0
        var rotation = 0
        var mirrored = false
        var oddRotation: Int?
        if let matrix = fx_stream_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 {
            matrix.withMemoryRebound(to: Int32.self, capacity: 9) { m in
                (rotation, mirrored) = DisplayMatrix.orientation(m)
                oddRotation = DisplayMatrix.oddRotation(m)
            }
        }
        return StreamInfo(
            index: index, kind: kind, codecName: String(cString: avcodec_get_name(par.codec_id)),
            timeBase: Rational(stream.pointee.time_base),
            startTime: stream.pointee.start_time == noPTS ? nil : stream.pointee.start_time,
            duration: stream.pointee.duration == noPTS ? nil : stream.pointee.duration,
            declaredFrames: stream.pointee.nb_frames,
            width: Int(par.width), height: Int(par.height),
            sampleRate: Int(par.sample_rate), channels: Int(fx_codecpar_channels(stream.pointee.codecpar)),
            rotation: rotation, mirrored: mirrored, oddRotation: oddRotation,
            averageFrameRate: Rational(stream.pointee.avg_frame_rate))
    }
}

/// Reading and writing the container's 3×3 display matrix (ISO/IEC 14496-12 `tkhd` matrix).
extension Frame {
    /// How the picture is to be shown: its stream's rotation and mirroring when the container has
    /// any, else the picture's own display matrix (a photo's EXIF orientation, which FFmpeg's image
    /// decoders put there).
    func displayOrientation(in stream: StreamInfo) -> (rotation: Int, mirrored: Bool) {
        guard stream.rotation == 0, !stream.mirrored, let data = av_frame_get_side_data(pointer, AV_FRAME_DATA_DISPLAYMATRIX),
              data.pointee.size >= 9 * MemoryLayout<Int32>.size else { return (stream.rotation, stream.mirrored) }
        return UnsafeRawPointer(data.pointee.data).withMemoryRebound(to: Int32.self, capacity: 9) { DisplayMatrix.orientation($0) }
    }
}

enum DisplayMatrix {
    /// Clockwise display rotation snapped to a quarter turn, and whether it mirrors.
    static func orientation(_ matrix: UnsafePointer<Int32>) -> (rotation: Int, mirrored: Bool) {
        // The determinant of the 2×2 part is negative for a mirrored picture; FFmpeg then
        // reports the rotation of the picture flipped horizontally first.
        let a = Double(matrix[0]), b = Double(matrix[1]), c = Double(matrix[3]), d = Double(matrix[4])
        let mirrored = a * d - b * c < 0
        var flipped = [Int32](UnsafeBufferPointer(start: matrix, count: 9))
        if mirrored {
            flipped.withUnsafeMutableBufferPointer { av_display_matrix_flip($0.baseAddress, 1, 0) }
        }
        let counterClockwise = flipped.withUnsafeBufferPointer { av_display_rotation_get($0.baseAddress) }
        guard counterClockwise.isFinite else { return (0, mirrored) }
        let clockwise = Int((-counterClockwise / 90).rounded()) * 90
        return (((clockwise % 360) + 360) % 360, mirrored)
    }

    /// The angle `ffmpeg` 5.1's autorotate turns by with its `rotate` filter, rather than a
    /// transpose or flips, or `nil` when it does not (fftools' `get_rotation`: the angle rounded
    /// to whole degrees clockwise, in 0..<360; 0, 1, 90, 180 and 270 are no `rotate`). A mirrored
    /// matrix is judged un-mirrored, as ``orientation(_:)`` reads it.
    static func oddRotation(_ matrix: UnsafePointer<Int32>) -> Int? {
        var flipped = [Int32](UnsafeBufferPointer(start: matrix, count: 9))
        if orientation(matrix).mirrored {
            flipped.withUnsafeMutableBufferPointer { av_display_matrix_flip($0.baseAddress, 1, 0) }
        }
        let counterClockwise = flipped.withUnsafeBufferPointer { av_display_rotation_get($0.baseAddress) }
        guard counterClockwise.isFinite else { return nil }
        var theta = -counterClockwise.rounded()
        theta -= 360 * (theta / 360 + 0.9 / 360).rounded(.down)
        return [0, 1, 90, 180, 270].contains(theta) ? nil : Int(theta)
    }

    /// A display matrix for a clockwise rotation (`av_display_rotation_set` takes clockwise degrees),
    /// mirrored as ``orientation(_:)`` reads it back: the rotation's matrix with its first column negated.
    static func matrix(rotation: Int, mirrored: Bool = false) -> [Int32] {
        var matrix = [Int32](repeating: 0, count: 9)
        matrix.withUnsafeMutableBufferPointer {
            av_display_rotation_set($0.baseAddress, Double(rotation))
            if mirrored { av_display_matrix_flip($0.baseAddress, 1, 0) }
        }
        return matrix
    }
}
