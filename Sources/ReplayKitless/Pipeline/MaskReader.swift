import CFFmpeg
import Foundation

/// Where per-frame masks come from (formats.md §5).
public enum MaskSource: Sendable, Equatable, Codable {
    /// A video (or a single image, used for every frame): its alpha plane when it has one, else its
    /// luma. `path` is a local path or a URL that ``InputPolicy`` allows.
    case video(path: String)
    /// Numbered images such as `masks/mask_%05d.png`, numbered from 0: image N belongs to the
    /// video frame with presentation index N.
    case imageSequence(pattern: String)
    /// The input's own alpha plane.
    case inputAlpha

    /// Parses the `--mask` argument: `alpha`, a printf-style image pattern, or a video path.
    public init(argument: String) {
        if argument == "alpha" { self = .inputAlpha }
        else if argument.range(of: #"%0?\d*d"#, options: .regularExpression) != nil { self = .imageSequence(pattern: argument) }
        else { self = .video(path: argument) }
    }

    /// The files the masks are read from: the video as spelled (a URL, perhaps), or every image of
    /// the sequence (by every spelling of the pattern: `file:///masks/m_%03d.png` reads the same images).
    public var files: [String] {
        switch self {
        case .video(let path): [path]
        case .imageSequence(let pattern): LocalFiles.paths(pattern).flatMap { Demuxer.imageFiles(pattern: $0.string) }
        case .inputAlpha: []
        }
    }
}

/// What to do with a video frame that has no mask (the mask stream ended early or has a gap).
public enum MissingMaskPolicy: String, Sendable, Codable, CaseIterable {
    /// Reuse the last mask seen.
    case hold
    /// Leave the frame as it is (no background replacement on it).
    case keepOriginal = "keep-original"
    /// Stop with an error naming the frame.
    case fail
}

/// Reads masks from a video or an image sequence, pairs them with the frames being rendered and
/// writes each as a frame-sized, full-range 8-bit plane (255 = foreground), in display orientation.
///
/// Pairing (formats.md §5, by presentation time): times are seconds from each stream's first
/// frame. A mask picture is shown from its time until the next one's, no longer than its own
/// duration (see ``TimedFrames``); a video frame at time t lasting d takes the mask shown at
/// t + min(d, mask frame interval) / 2, so timing jitter below half a frame does not matter.
/// With a 10 fps mask and a 30 fps video, frames 0–2 take mask 0, frames 3–5 mask 1. A mask source
/// holding one picture is a still mask for every frame. Image sequences pair by number instead:
/// image N belongs to frame N, and a missing file is a missing mask.
///
/// Masks of another size are scaled with ``BilinearPlaneScaler``.
final class MaskReader {
    private enum Input {
        case video(TimedFrames)
        case images(pattern: String)
    }

    private let input: Input
    private let source: String
    private let policy: MissingMaskPolicy
    /// The frames are mirrored (`--mirror`): masks, made from the recording, are mirrored with them.
    private let mirror: Bool
    private let extractor: MaskExtractor
    private let scaler = BilinearPlaneScaler()
    /// Threads that scale a mask of another size (row bands).
    var workers: Int {
        get { scaler.workers }
        set { scaler.workers = newValue }
    }
    /// The last mask read, at its own size, in display orientation: in `latestMemory`, or a mask
    /// video's upright picture itself (its frame stays until the next is read), which is then
    /// written straight into each frame's mask, without a frame-sized copy kept here.
    private var latestMemory = ScratchBuffer<UInt8>()
    private var latest: Plane?
    /// `latest` is still limited-range luma, expanded as it is written out.
    private var latestIsLimited = false
    /// Frames that reused the last mask (`hold`) or kept their picture (`keep-original`).
    private(set) var held = 0
    private(set) var kept = 0
    /// Damaged packets of a mask video, skipped (a frame then pairs with the mask before).
    var decodeErrors: Int {
        if case .video(let frames) = input { frames.decodeErrors } else { 0 }
    }
    /// Why the mask video looks cut short, once its last picture has been read.
    var cutShort: String? {
        if case .video(let frames) = input { frames.cutShort } else { nil }
    }

    /// Opens the mask source and reads its first mask, so a missing or unreadable source fails
    /// before any output is written.
    /// - Throws: `ReplayError.badInput` naming the file; `.usage` for a malformed pattern.
    init(source: MaskSource, policy: MissingMaskPolicy, mirror: Bool = false) throws(ReplayError) {
        self.policy = policy
        self.mirror = mirror
        extractor = try MaskExtractor()
        switch source {
        case .video(let path):
            self.source = path
            input = .video(try TimedFrames(url: path))
        case .imageSequence(let pattern):
            self.source = pattern
            guard let first = Demuxer.imagePath(pattern: pattern, number: 0) else {
                throw .usage("`BackgroundSettings.mask` \(pattern): an image pattern needs exactly one %d (e.g. mask_%05d.png)", options: ["BackgroundSettings.mask"])
            }
            guard FileManager.default.fileExists(atPath: first) else {
                throw .badInput("\(first): no such file (mask images are numbered from 0: image N belongs to frame N)")
            }
            input = .images(pattern: pattern)
            try readImage(first)
        case .inputAlpha:
            throw .usage("`BackgroundSettings.mask` alpha is read from the input's frames, not by a mask reader", options: ["BackgroundSettings.mask"])
        }
    }

    /// Writes the mask for the frame shown at `time` into `destination` (the frame's size).
    /// Returns `false` when the frame has no mask and is to be left as it is (`keep-original`).
    /// - Throws: `ReplayError.badInput` when the frame has no mask under `fail`, or a mask image is unreadable.
    func mask(for time: FrameTime, into destination: Plane) throws(ReplayError) -> Bool {
        if try readMask(for: time), latest != nil {
            writeLatest(into: destination)
            return true
        }
        switch policy {
        case .fail:
            throw .badInput("\(source): no mask for video frame \(time.index) (t = \(String(format: "%.3f", time.seconds)) s); "
                            + "`BackgroundSettings.missingMask` hold or keep-original would carry on", options: ["BackgroundSettings.missingMask"])
        case .keepOriginal:
            kept += 1
            return false
        case .hold:
            guard latest != nil else { throw .badInput("\(source): no mask at or before video frame \(time.index) to hold") }
            held += 1
            writeLatest(into: destination)
            return true
        }
    }

    /// Brings `latest` up to the mask for `time`; `false` when that frame has none.
    private func readMask(for time: FrameTime) throws(ReplayError) -> Bool {
        switch input {
        case .images(let pattern):
            guard let path = Demuxer.imagePath(pattern: pattern, number: time.index),
                  FileManager.default.fileExists(atPath: path) else { return false }
            if time.index > 0 { try readImage(path) }
            return true
        case .video(let frames):
            if frames.isStill { return true }
            let point = frames.pairingTime(for: time)
            if try frames.advance(to: point) {
                let orientation = frames.orientation
                try store(frames.current, rotation: orientation.rotation, mirrored: orientation.mirrored, source: frames.url, stays: true)
            }
            return frames.isStill || point < frames.currentEnd
        }
    }

    /// Decodes one mask image into `latest`.
    private func readImage(_ path: String) throws(ReplayError) {
        let reader = try VideoFrameReader(url: path)
        guard let frame = try reader.next() else { throw .badInput("\(path): no picture could be decoded") }
        let orientation = frame.displayOrientation(in: reader.stream)
        try store(frame, rotation: orientation.rotation, mirrored: orientation.mirrored, source: path)
    }

    /// Extracts the mask from a decoded picture into `latest`, turned upright, in full range; an
    /// upright picture that `stays` (until the next call) is used as it is.
    private func store(_ frame: Frame, rotation: Int, mirrored ownMirror: Bool, source: String, stays: Bool = false) throws(ReplayError) {
        let (picture, limitedRange) = try extractor.extract(frame, source: source)
        let quarterTurns = rotation / 90
        let mirrored = ownMirror != mirror
        if stays && quarterTurns == 0 && !mirrored {
            (latest, latestIsLimited) = (picture, limitedRange)
            return
        }
        let width = quarterTurns % 2 == 1 ? picture.height : picture.width
        let height = quarterTurns % 2 == 1 ? picture.width : picture.height
        let mask = latestMemory.plane(width: width, height: height)
        if quarterTurns == 0 && !mirrored {
            if limitedRange { MaskExtractor.expandLimitedRange(picture, into: mask) } else { mask.copy(from: picture) }
        } else {
            reorient(picture, into: mask, quarterTurns: quarterTurns, mirror: mirrored)
            if limitedRange { MaskExtractor.expandLimitedRange(mask, into: mask) }
        }
        (latest, latestIsLimited) = (mask, false)
    }

    /// Writes `latest` into `destination`, scaled to its size. Limited range is expanded before
    /// scaling (as the mask is stored), so the samples are the same either way.
    private func writeLatest(into destination: Plane) {
        guard var mask = latest else { return }
        if latestIsLimited {
            if mask.hasSameSize(as: destination) { return MaskExtractor.expandLimitedRange(mask, into: destination) }
            let expanded = latestMemory.plane(width: mask.width, height: mask.height)
            MaskExtractor.expandLimitedRange(mask, into: expanded)
            (mask, latest, latestIsLimited) = (expanded, expanded, false)
        }
        scaler.scale(mask, into: destination)
    }
}

/// Takes the mask out of a decoded picture of any pixel format (formats.md §5): its alpha plane
/// when it has one, else its luma (which the caller expands to full range when it is limited).
final class MaskExtractor {
    private let scaler = Scaler()
    private let converted: Frame
    private var alphaMemory = ScratchBuffer<UInt8>()

    init() throws(ReplayError) { converted = try Frame() }

    /// The mask samples of `frame` at its own size and orientation, valid until the next call or
    /// until the frame changes, and whether they are limited-range luma (16…235).
    func extract(_ frame: Frame, source: String) throws(ReplayError) -> (plane: Plane, limitedRange: Bool) {
        let format = frame.pixelFormat
        guard let descriptor = av_pix_fmt_desc_get(format)?.pointee else {
            throw .badInput("\(source): unknown pixel format \(format.rawValue)")
        }
        let flags = descriptor.flags
        let hasAlpha = flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 && !(format == AV_PIX_FMT_PAL8 && Self.paletteIsOpaque(frame))
        if hasAlpha {
            if let alpha = frame.yuvImage?.alpha { return (alpha, false) }
            if let alpha = unpackAlpha(frame, descriptor) { return (alpha, false) }
            // Deeper alpha: libswscale reduces it to 8 bits (alpha is never range-scaled).
            try convert(frame, to: AV_PIX_FMT_YUVA444P, colorSpace: nil, source: source)
            return (converted.yuvImage!.alpha!, false)
        }
        if format == AV_PIX_FMT_GRAY8 { return (Plane(frame: frame), false) }
        if let image = frame.yuvImage { return (image.luma, !image.colorSpace.fullRange) }
        if flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 || flags & UInt64(AV_PIX_FMT_FLAG_PAL) != 0 || descriptor.nb_components < 3 {
            // RGB and grey pictures: full-range luma (a grey R = G = B gives the same value back).
            try convert(frame, to: AV_PIX_FMT_GRAY8, colorSpace: ColorSpace(matrix: .bt601, fullRange: true), source: source)
            return (Plane(frame: converted), false)
        }
        // Deeper or other Y'CbCr: 8-bit 4:4:4 at the picture's own range.
        let space = frame.colorSpace
        try convert(frame, to: AV_PIX_FMT_YUV444P, colorSpace: space, source: source)
        return (converted.yuvImage!.luma, !space.fullRange)
    }

    /// Maps limited-range luma (16…235) onto 0…255, rounded, clamping outside values; `destination`
    /// (the same size) may be `source`.
    static func expandLimitedRange(_ source: Plane, into destination: Plane) {
        limitedToFull.withUnsafeBufferPointer { lookup in
            for y in 0..<source.height {
                let input = source.base + y * source.stride, output = destination.base + y * destination.stride
                for x in 0..<source.width { output[x] = lookup[Int(input[x])] }
            }
        }
    }

    /// `round((v − 16) · 255 / 219)`, clamped to 0…255, for every byte v.
    static let limitedToFull: [UInt8] = (0..<256).map { (v: Int) -> UInt8 in
        let numerator: Int = max(0, (v - 16) * 510 + 219)
        return UInt8(min(255, numerator / 438))
    }

    private func convert(_ frame: Frame, to format: AVPixelFormat, colorSpace: ColorSpace?, source: String) throws(ReplayError) {
        do { try converted.allocate(width: frame.width, height: frame.height, format: format) }
        catch { throw .processing("\(source): \(error)") }
        try scaler.convert(frame, into: converted, colorSpace: colorSpace)
    }

    /// The 8-bit alpha of a packed (RGBA, YA8, …) or paletted picture, copied exactly (libswscale
    /// rounds packed alpha through a 15-bit path and can be off by one); `nil` for deeper alpha.
    private func unpackAlpha(_ frame: Frame, _ descriptor: AVPixFmtDescriptor) -> Plane? {
        let picture = frame.pointer.pointee
        let output = alphaMemory.plane(width: frame.width, height: frame.height)
        if frame.pixelFormat == AV_PIX_FMT_PAL8 {
            guard let indices = picture.data.0, let palette = picture.data.1 else { return nil }
            palette.withMemoryRebound(to: UInt32.self, capacity: 256) { entries in
                for y in 0..<output.height {
                    let row = indices + y * Int(picture.linesize.0), out = output.base + y * output.stride
                    for x in 0..<output.width { out[x] = UInt8(truncatingIfNeeded: entries[Int(row[x])] >> 24) }
                }
            }
            return output
        }
        // The alpha component is the last one: the second of grey + alpha, the fourth otherwise.
        guard descriptor.nb_components == 2 || descriptor.nb_components == 4 else { return nil }
        let component = descriptor.nb_components == 2 ? descriptor.comp.1 : descriptor.comp.3
        guard component.depth == 8, component.shift == 0 else { return nil }
        let plane = Int(component.plane)
        let base = withUnsafeBytes(of: picture.data) { $0.load(fromByteOffset: plane * 8, as: UnsafeMutablePointer<UInt8>?.self) }
        let stride = withUnsafeBytes(of: picture.linesize) { $0.load(fromByteOffset: plane * 4, as: Int32.self) }
        guard let base else { return nil }
        let step = Int(component.step), offset = Int(component.offset)
        for y in 0..<output.height {
            let row = base + y * Int(stride) + offset, out = output.base + y * output.stride
            for x in 0..<output.width { out[x] = row[x * step] }
        }
        return output
    }

    /// Whether every palette entry of a paletted picture is opaque (no tRNS: the mask is in the colours).
    private static func paletteIsOpaque(_ frame: Frame) -> Bool {
        guard let palette = frame.pointer.pointee.data.1 else { return true }
        return palette.withMemoryRebound(to: UInt32.self, capacity: 256) { entries in
            (0..<256).allSatisfy { entries[$0] >> 24 == 0xFF }
        }
    }
}

extension Plane {
    /// The first plane of a frame (grey pictures).
    init(frame: Frame) {
        let f = frame.pointer.pointee
        self.init(base: f.data.0!, stride: Int(f.linesize.0), width: frame.width, height: frame.height)
    }
}
