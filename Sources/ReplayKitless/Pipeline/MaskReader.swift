import CFFmpeg
import Foundation

/// Where per-frame masks come from (formats.md §5).
public enum MaskSource: Sendable, Equatable, Codable {
    /// A video: its alpha plane when it has one, else its luma.
    case video(path: String)
    /// Numbered images such as `masks/mask_%05d.png`; image k belongs to video frame k.
    case imageSequence(pattern: String)
    /// The input's own alpha plane.
    case inputAlpha

    /// Parses the `--mask` argument: `alpha`, a printf-style image pattern, or a video path.
    public init(argument: String) {
        if argument == "alpha" { self = .inputAlpha }
        else if argument.range(of: #"%0?\d*d"#, options: .regularExpression) != nil { self = .imageSequence(pattern: argument) }
        else { self = .video(path: argument) }
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

/// Reads masks from a video or image sequence and pairs them with video frames by presentation
/// time, scaled to the frame size, as full-range 8-bit grey (255 = foreground).
final class MaskReader {
    private let reader: VideoFrameReader
    private let source: String
    private let pairByIndex: Bool
    private let policy: MissingMaskPolicy
    /// The decoded mask currently paired, and the one after it (look-ahead for nearest-time pairing).
    private var current: MaskFrame?
    private var upcoming: MaskFrame?
    private var firstTime: Double?
    private var exhausted = false
    private let scaler = Scaler()
    private let gray = Frame()
    private let scaled = Frame()
    private(set) var held = 0
    private(set) var kept = 0

    private struct MaskFrame {
        var index: Int
        var seconds: Double
        var duration: Double
        var plane: PlanarBuffer
    }

    private var decodedCount = 0

    init(source: MaskSource, policy: MissingMaskPolicy) throws(ReplayError) {
        switch source {
        case .video(let path):
            reader = try VideoFrameReader(url: path)
            self.source = path
            pairByIndex = false
        case .imageSequence(let pattern):
            reader = try VideoFrameReader(url: pattern, imageSequence: true)
            self.source = pattern
            pairByIndex = true
        case .inputAlpha:
            throw .usage("--mask alpha is read from the input's frames, not by a mask reader")
        }
        self.policy = policy
    }

    /// The mask for the video frame shown at `time`, as a frame-sized plane; `nil` when the frame
    /// is to be left untouched (`keep-original`).
    func mask(for time: FrameTime, width: Int, height: Int) throws(ReplayError) -> Plane? {
        let target = pairByIndex ? Double(time.index) : time.seconds
        try advance(to: target, tolerance: pairByIndex ? 0.5 : max(time.duration, 1e-3) / 2)
        if let current, matches(current, target: target, tolerance: pairByIndex ? 0.5 : max(time.duration, 1e-3) / 2) {
            return try fitted(current.plane.image.luma, width: width, height: height)
        }
        switch policy {
        case .fail:
            throw .badInput("\(source): no mask for video frame \(time.index) (t = \(String(format: "%.3f", time.seconds)) s)")
        case .keepOriginal:
            kept += 1
            return nil
        case .hold:
            guard let current else {
                throw .badInput("\(source): no mask at or before video frame \(time.index); nothing to hold")
            }
            held += 1
            return try fitted(current.plane.image.luma, width: width, height: height)
        }
    }

    /// A mask frame covers its own display interval, widened by half the video frame's duration.
    private func matches(_ mask: MaskFrame, target: Double, tolerance: Double) -> Bool {
        target >= mask.seconds - tolerance && target < mask.seconds + max(mask.duration, 2 * tolerance)
    }

    private func advance(to target: Double, tolerance: Double) throws(ReplayError) {
        if upcoming == nil && !exhausted { upcoming = try decodeNext() }
        while let next = upcoming, next.seconds - tolerance <= target {
            current = next
            upcoming = exhausted ? nil : try decodeNext()
        }
    }

    private func decodeNext() throws(ReplayError) -> MaskFrame? {
        guard let frame = try reader.next() else {
            exhausted = true
            return nil
        }
        let seconds: Double
        if pairByIndex {
            seconds = Double(decodedCount)
        } else {
            let absolute = reader.stream.timeBase.seconds(frame.pts)
            let first = firstTime ?? absolute
            firstTime = first
            seconds = absolute - first
        }
        decodedCount += 1
        let plane = PlanarBuffer(width: frame.width, height: frame.height, subsampling: .yuv444)
        try extractMask(frame, into: plane.image.luma)
        let duration = pairByIndex ? 1 : reader.stream.timeBase.seconds(frame.duration)
        return MaskFrame(index: decodedCount - 1, seconds: seconds, duration: duration, plane: plane)
    }

    /// The mask values of a decoded picture: its alpha plane, else its luma expanded to full range.
    private func extractMask(_ frame: Frame, into destination: Plane) throws(ReplayError) {
        let descriptor = av_pix_fmt_desc_get(frame.pixelFormat)
        let hasAlpha = descriptor.map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 } ?? false
        if hasAlpha && frame.yuvImage?.alpha == nil {
            // Packed or high-depth alpha formats: let libswscale unpack the alpha into YUVA.
            try convert(frame, to: AV_PIX_FMT_YUVA444P)
            destination.copy(from: scaled.yuvImage!.alpha!)
            return
        }
        if let image = frame.yuvImage, hasAlpha, let alpha = image.alpha {
            destination.copy(from: alpha)
            return
        }
        if frame.pixelFormat == AV_PIX_FMT_GRAY8 {
            destination.copy(from: Plane(frame: frame))
            return
        }
        // Anything else: luma of an 8-bit conversion, expanded from limited range where tagged so.
        let image: YUVImage
        if let own = frame.yuvImage { image = own } else {
            try convert(frame, to: AV_PIX_FMT_YUV444P)
            image = scaled.yuvImage!
        }
        destination.copy(from: image.luma)
        if !image.colorSpace.fullRange {
            for y in 0..<destination.height {
                let row = destination.row(y)
                for x in 0..<row.count { row[x] = UInt8(clamping: (max(0, Int(row[x]) - 16) * 255 + 109) / 219) }
            }
        }
    }

    private func convert(_ frame: Frame, to format: AVPixelFormat) throws(ReplayError) {
        do { try scaled.allocate(width: frame.width, height: frame.height, format: format) }
        catch { throw .processing("\(source): \(error)") }
        try scaler.convert(frame, into: scaled)
    }

    /// The mask plane at the frame's size (scaled with libswscale when the sizes differ).
    private func fitted(_ mask: Plane, width: Int, height: Int) throws(ReplayError) -> Plane {
        if mask.width == width && mask.height == height { return mask }
        do {
            try gray.allocate(width: mask.width, height: mask.height, format: AV_PIX_FMT_GRAY8)
            try scaled.allocate(width: width, height: height, format: AV_PIX_FMT_GRAY8)
        } catch { throw .processing("\(source): \(error)") }
        Plane(frame: gray).copy(from: mask)
        try scaler.convert(gray, into: scaled)
        return Plane(frame: scaled)
    }
}

extension Plane {
    /// The first plane of a frame (grey pictures).
    init(frame: Frame) {
        let f = frame.pointer.pointee
        self.init(base: f.data.0!, stride: Int(f.linesize.0), width: frame.width, height: frame.height)
    }
}
