import CFFmpeg
import Foundation

/// Decoded pictures as 8-bit planar Y'CbCr, turned upright the way `ffmpeg`'s autorotate turns them
/// (clockwise quarter turns, then un-mirrored). Reuses its buffers: no allocation per frame.
final class UprightPictures {
    private let quarterTurns: Int
    private let mirror: Bool
    private let convertOtherFormats: Bool
    private let scaler = Scaler()
    private var converted: Frame?
    private var upright: PlanarBuffer?

    /// `convertOtherFormats`: pictures in other pixel formats are converted to 4:2:0 (else they are refused).
    init(stream: StreamInfo, convertOtherFormats: Bool) {
        quarterTurns = stream.rotation / 90
        mirror = stream.mirrored
        self.convertOtherFormats = convertOtherFormats
    }

    var isTurning: Bool { quarterTurns % 4 != 0 || mirror }

    /// The upright picture of `frame`, valid until the next call.
    func picture(_ frame: Frame, index: Int) throws(ReplayError) -> YUVImage {
        var image = frame.yuvImage
        if image == nil, convertOtherFormats {
            let target = try allocatedConversion(width: frame.width, height: frame.height)
            try scaler.convert(frame, into: target)
            image = target.yuvImage
        }
        guard let image else {
            throw .processing("frame \(index): \(Scaler.name(frame.pointer.pointee.format)) pictures are not supported here")
        }
        guard isTurning else { return image }
        let turned = quarterTurns % 2 != 0
        guard !turned || image.subsampling.shiftX == image.subsampling.shiftY else {
            throw .processing("frame \(index): cannot turn a picture with 4:2:2 chroma a quarter turn")
        }
        let width = turned ? image.height : image.width, height = turned ? image.width : image.height
        if upright.map({ $0.image.width != width || $0.image.height != height || $0.image.subsampling != image.subsampling
                         || ($0.image.alpha != nil) != (image.alpha != nil) }) ?? true {
            upright = PlanarBuffer(width: width, height: height, subsampling: image.subsampling,
                                   colorSpace: image.colorSpace, alpha: image.alpha != nil)
        }
        guard let destination = upright?.image else { return image }
        reorient(image, into: destination, quarterTurns: quarterTurns, mirror: mirror)
        return destination
    }

    private func allocatedConversion(width: Int, height: Int) throws(ReplayError) -> Frame {
        if let converted, converted.width == width, converted.height == height { return converted }
        do {
            let frame = try Frame(width: width, height: height, format: AV_PIX_FMT_YUV420P)
            converted = frame
            return frame
        } catch {
            throw .processing("cannot allocate a \(width)x\(height) picture: \(error)")
        }
    }
}

/// `fxreplay compare A B`: PSNR and SSIM of two videos, frame by frame.
public struct VideoComparisonResult: Sendable, Codable {
    public var a: String
    public var b: String
    public var framesA: Int
    public var framesB: Int
    /// Whole-stream figures over the frames both videos have; `nil` when either has none.
    public var summary: QualitySummary?
    /// Per-frame figures (empty unless asked for).
    public var frames: [FrameQuality]

    /// The report for a terminal: frame counts and FFmpeg's two closing log lines.
    public var text: String {
        var text = "\(a) vs \(b): \(min(framesA, framesB)) frames compared"
        if framesA != framesB { text += " (\(a) has \(framesA), \(b) has \(framesB))" }
        text += "\n"
        if let summary { text += summary.psnr.ffmpegLine + "\n" + summary.ssim.ffmpegLine + "\n" }
        return text
    }

    /// Why the comparison fails, empty when it passes: thresholds (``QualitySummary/failures(minPSNR:minSSIM:)``),
    /// different frame counts, or nothing to compare.
    public func failures(minPSNR: Double?, minSSIM: Double?) -> [String] {
        var reasons: [String] = []
        if framesA != framesB { reasons.append("frame counts differ: \(a) has \(framesA), \(b) has \(framesB)") }
        if let summary { reasons += summary.failures(minPSNR: minPSNR, minSSIM: minSSIM) } else { reasons.append("no frames to compare") }
        return reasons
    }

    /// Decodes both videos' first video streams and compares them pair by pair in presentation order
    /// (`a` is FFmpeg's "main" input, `b` the reference), each turned upright as `ffmpeg` does; pictures
    /// that are not 8-bit planar Y'CbCr are converted to 4:2:0 first. Pictures must have the same size.
    public init(comparing a: String, with b: String, keepFrames: Bool = false) throws(ReplayError) {
        let readerA = try VideoFrameReader(url: a), readerB = try VideoFrameReader(url: b)
        let uprightA = UprightPictures(stream: readerA.stream, convertOtherFormats: true)
        let uprightB = UprightPictures(stream: readerB.stream, convertOtherFormats: true)
        let comparison = QualityComparison()
        var frames: [FrameQuality] = []
        var countA = 0, countB = 0
        while true {
            let frameA = try readerA.next(), frameB = try readerB.next()
            if frameA != nil { countA += 1 }
            if frameB != nil { countB += 1 }
            guard let frameA, let frameB else {
                // Count what is left of the longer one.
                while try readerA.next() != nil { countA += 1 }
                while try readerB.next() != nil { countB += 1 }
                break
            }
            let index = countA - 1
            do {
                let quality = try comparison.add(try uprightA.picture(frameA, index: index), try uprightB.picture(frameB, index: index))
                if keepFrames { frames.append(quality) }
            } catch {
                throw ReplayError(error.kind, "\(a) vs \(b), frame \(index): \(error.message)")
            }
        }
        self.a = a
        self.b = b
        framesA = countA
        framesB = countB
        summary = comparison.summary
        self.frames = frames
    }
}
