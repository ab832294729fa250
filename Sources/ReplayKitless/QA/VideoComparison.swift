import CFFmpeg
import Foundation

/// Decoded pictures as 8-bit planar Y'CbCr, turned upright the way `ffmpeg`'s autorotate turns them
/// (clockwise quarter turns, then un-mirrored). Reuses its buffers: no allocation per frame.
final class UprightPictures {
    private let quarterTurns: Int
    /// Whether turning upright mirrors too.
    let mirror: Bool
    private let convertOtherFormats: Bool
    private let scaler = Scaler()
    private let converted: Frame
    private var upright: PlanarBuffer?
    /// The pixel format of the first picture that had to be converted to 4:2:0, if one had.
    private(set) var convertedFormat: String?

    /// `convertOtherFormats`: pictures in other pixel formats are converted to 4:2:0 (else they are refused).
    init(stream: StreamInfo, convertOtherFormats: Bool) throws(ReplayError) {
        converted = try Frame()
        quarterTurns = stream.rotation / 90
        mirror = stream.mirrored
        self.convertOtherFormats = convertOtherFormats
    }

    var isTurning: Bool { quarterTurns % 4 != 0 || mirror }

    /// The upright picture of `frame`, valid until the next call.
    func picture(_ frame: Frame, index: Int) throws(ReplayError) -> YUVImage {
        var image = frame.yuvImage
        if image == nil, convertOtherFormats {
            try scaler.convert(frame, into: converted, format: AV_PIX_FMT_YUV420P)
            image = converted.yuvImage
            if convertedFormat == nil { convertedFormat = Scaler.name(frame.pointer.pointee.format) }
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
}


/// How `fxreplay compare` pairs the frames of its two videos.
public enum FrameAlignment: String, Sendable, Codable, CaseIterable {
    /// By presentation time, measured from each stream's first frame: a frame pairs with the other
    /// video's frame at the same time, within the time tolerance (half a frame by default).
    case time
    /// In presentation order: first with first, second with second.
    case index
}

/// What `fxreplay compare` checks, besides the pictures themselves.
public struct VideoComparisonOptions: Sendable, Equatable {
    /// How frames of the two videos are paired; by presentation time unless set to `.index`.
    public var alignment = FrameAlignment.time
    /// Smallest allowed average PSNR (dB, from the MSE over all pairs).
    public var minPSNR: Double?
    /// Smallest allowed SSIM `All` (mean over all pairs).
    public var minSSIM: Double?
    /// Largest allowed |Δt| of a pair, seconds; also the pairing window of time alignment.
    /// `nil`: half the shorter nominal frame interval of the two videos.
    public var maxTimeDelta: Double?
    /// Fail when one video has audio and the other has not.
    public var checkAudio = true
    /// Keep every pair's figures (``VideoComparisonResult/perFrame``).
    public var perFrame = false
    /// Keep the worst pair's pictures side by side with their difference (`fxreplay compare --diff`).
    public var diffPicture = false

    /// Options as `fxreplay compare` has them without flags: time alignment, no PSNR/SSIM thresholds,
    /// the time tolerance of half a frame, audio presence checked.
    public init() {}
}

/// `fxreplay compare A B`: both videos decoded side by side on two threads, turned upright as `ffmpeg`
/// autorotates, other pixel formats converted to 4:2:0, B's pictures converted to A's 8-bit Y'CbCr
/// format when it differs (range and subsampling, as ffmpeg converts its filter's second input),
/// frames paired (``FrameAlignment``) and each pair measured; pictures must have the same size.
public struct VideoComparison {
    /// The figures and the verdict (formats.md's `compare` report, as JSON through `Codable`).
    public let result: VideoComparisonResult
    /// The worst pair side by side, A | B | heat map of |A − B| in luma (with ``VideoComparisonOptions/diffPicture``),
    /// each panel labelled, with the frame and the heat map's colour scale under them.
    package let diff: RGBPicture?
    /// ``diff`` as PNG bytes (what `fxreplay compare --diff` writes); `nil` without
    /// ``VideoComparisonOptions/diffPicture`` or without a pair.
    public func diffPNG() throws(ReplayError) -> Data? {
        try diff.map { picture throws(ReplayError) in try ImageWriter.png(picture) }
    }
    /// Where the figures part from FFmpeg's: a video measured after conversion to 8-bit 4:2:0.
    public let warnings: [String]

    /// Compares `a` with `b` on the calling thread, blocking it until both are decoded (what
    /// `fxreplay compare` does); from async code use ``compare(_:with:options:onProgress:)``.
    /// A failed threshold is not thrown: read ``result``.
    /// `a` and `b` are each a local path or a URL that ``InputPolicy`` allows.
    /// - Parameter observe: called with the pairs measured so far after each pair; throwing from it
    ///   stops the comparison with that error (how cancellation reaches it).
    public init(comparing a: String, with b: String, options: VideoComparisonOptions = VideoComparisonOptions(),
                 observe: (_ pairsMeasured: Int) throws(ReplayError) -> Void = { _ in }) throws(ReplayError) {
        let streamA = try PictureStream(url: a), streamB = try PictureStream(url: b)
        streamA.start()
        streamB.start()
        defer {
            streamA.cancel()
            streamB.cancel()
        }
        let tolerance = options.maxTimeDelta ?? min(streamA.nominalInterval, streamB.nominalInterval) / 2
        var run = try ComparisonRun(a: streamA, b: streamB, keepPictures: options.diffPicture, perFrame: options.perFrame)
        var itemA = try streamA.next(), itemB = try streamB.next()
        while let x = itemA, let y = itemB {
            let delta = x.time - y.time
            if options.alignment == .index || abs(delta) <= tolerance + 1e-9 {
                try run.pair(x, y)
                try observe(run.pairs)
                itemA = try streamA.next()
                itemB = try streamB.next()
            } else if delta < 0 {
                run.unmatched(x, in: streamA)
                itemA = try streamA.next()
            } else {
                run.unmatched(y, in: streamB)
                itemB = try streamB.next()
            }
        }
        while let x = itemA {
            run.unmatched(x, in: streamA)
            itemA = try streamA.next()
        }
        while let y = itemB {
            run.unmatched(y, in: streamB)
            itemB = try streamB.next()
        }
        let timestamps = TimestampCheck(alignment: options.alignment, tolerance: tolerance, maxDelta: run.maxDelta,
                                        unmatchedA: run.unmatchedA.count, firstUnmatchedA: run.unmatchedA.first,
                                        unmatchedB: run.unmatchedB.count, firstUnmatchedB: run.unmatchedB.first)
        result = VideoComparisonResult(a: run.factsA, b: run.factsB, frames: run.pairs, summary: run.comparison.summary,
                                       lowestPSNR: run.lowestPSNR, lowestSSIM: run.lowestSSIM, timestamps: timestamps,
                                       options: options, perFrame: options.perFrame ? run.perFrame : nil)
        warnings = [(a, run.uprightA), (b, run.uprightB)].compactMap { path, upright in
            upright.convertedFormat.map { "\(path) is \($0): measured after conversion to 8-bit 4:2:0, where FFmpeg's psnr and ssim "
                + "filters measure its own samples (other figures)" }
        }
        if let kept = run.worstPictures {
            diff = DiffPicture.labelled(try DiffPicture.sideBySide(kept.a.image, kept.b.image), panelWidth: kept.a.image.width,
                                            frame: result.worst.map { "worst frame \($0.index), \(String(format: "%.3f", $0.t)) s" } ?? "")
        } else {
            diff = nil
        }
    }
}

/// The state of one comparison while frames arrive.
private struct ComparisonRun {
    let streamA: PictureStream
    let streamB: PictureStream
    let uprightA: UprightPictures
    let uprightB: UprightPictures
    let comparison = QualityComparison()
    let keepPictures: Bool
    let keepFrames: Bool
    var factsA: VideoFacts
    var factsB: VideoFacts
    var pairs = 0
    var maxDelta = 0.0
    var unmatchedA: [FrameReference] = []
    var unmatchedB: [FrameReference] = []
    var lowestPSNR: PairQuality?
    var lowestSSIM: PairQuality?
    var perFrame: [PairQuality] = []
    var worstPictures: (a: PlanarBuffer, b: PlanarBuffer)?
    /// B's picture in A's pixel format, when the two differ and A's is measured as it is: ffmpeg's
    /// filter graph converts its second input to the first's format (bicubic libswscale).
    let convertedB: Frame
    let converterB = Scaler(flags: SWS_BICUBIC)

    init(a: PictureStream, b: PictureStream, keepPictures: Bool, perFrame: Bool) throws(ReplayError) {
        streamA = a
        streamB = b
        convertedB = try Frame()
        uprightA = try UprightPictures(stream: a.stream, convertOtherFormats: true)
        uprightB = try UprightPictures(stream: b.stream, convertOtherFormats: true)
        self.keepPictures = keepPictures
        keepFrames = perFrame
        factsA = VideoFacts(path: a.url, frames: 0, duration: 0, hasAudio: a.hasAudio, frameInterval: a.nominalInterval)
        factsB = VideoFacts(path: b.url, frames: 0, duration: 0, hasAudio: b.hasAudio, frameInterval: b.nominalInterval)
    }

    /// Measures a pair (`x` of A, `y` of B), then gives both pictures back.
    mutating func pair(_ x: PictureStream.Item, _ y: PictureStream.Item) throws(ReplayError) {
        defer {
            streamA.recycle(x)
            streamB.recycle(y)
        }
        count(x, in: &factsA)
        count(y, in: &factsB)
        let pictureA: YUVImage, pictureB: YUVImage, measured: FrameQuality
        do throws(ReplayError) {
            pictureA = try uprightA.picture(x.frame, index: x.index)
            pictureB = try uprightB.picture(inFormat(of: x.frame, y.frame), index: y.index)
            // Videos of different sizes fail the comparison (exit 1), as different frame counts do.
            guard pictureA.width == pictureB.width, pictureA.height == pictureB.height else {
                throw .checkFailed("the pictures differ in size: \(pictureA.width)×\(pictureA.height) and \(pictureB.width)×\(pictureB.height)")
            }
            measured = try comparison.add(pictureA, pictureB)
        } catch {
            throw ReplayError(error.kind, "\(streamA.url) frame \(x.index) vs \(streamB.url) frame \(y.index): \(error.message)")
        }
        pairs += 1
        maxDelta = max(maxDelta, abs(x.time - y.time))
        let quality = PairQuality(pair: FramePair(index: x.index, t: x.time, frameB: y.index, tB: y.time),
                                  psnr: measured.psnr, ssim: measured.ssim)
        if keepFrames { perFrame.append(quality) }
        if lowestSSIM.map({ quality.ssim.all < $0.ssim.all }) ?? true { lowestSSIM = quality }
        if lowestPSNR.map({ quality.psnr.mseAverage > $0.psnr.mseAverage }) ?? true {
            lowestPSNR = quality
            if keepPictures { keep(pictureA, pictureB) }
        }
    }

    /// `frame` of B converted to the pixel format of `reference` (A's) when they differ and A's is
    /// 8-bit planar Y'CbCr; else `frame` itself.
    private func inFormat(of reference: Frame, _ frame: Frame) throws(ReplayError) -> Frame {
        guard frame.pixelFormat != reference.pixelFormat, reference.yuvImage != nil else { return frame }
        try converterB.convert(frame, into: convertedB, format: reference.pixelFormat)
        return convertedB
    }

    /// A frame without a partner: counted, then given back.
    mutating func unmatched(_ item: PictureStream.Item, in stream: PictureStream) {
        if stream === streamA {
            count(item, in: &factsA)
            unmatchedA.append(FrameReference(frame: item.index, t: item.time))
        } else {
            count(item, in: &factsB)
            unmatchedB.append(FrameReference(frame: item.index, t: item.time))
        }
        stream.recycle(item)
    }

    private func count(_ item: PictureStream.Item, in facts: inout VideoFacts) {
        facts.frames += 1
        facts.duration = max(facts.duration, item.time + item.duration)
    }

    /// Copies the worst pair so far (buffers allocated once).
    private mutating func keep(_ a: YUVImage, _ b: YUVImage) {
        func buffer(_ existing: PlanarBuffer?, like image: YUVImage) -> PlanarBuffer {
            if let existing, existing.image.matches(image) { return existing }
            return PlanarBuffer(width: image.width, height: image.height, subsampling: image.subsampling, colorSpace: image.colorSpace)
        }
        let kept = (a: buffer(worstPictures?.a, like: a), b: buffer(worstPictures?.b, like: b))
        kept.a.image.copy(from: a)
        kept.b.image.copy(from: b)
        worstPictures = kept
    }
}

/// The `--diff` picture of `fxreplay compare`.
enum DiffPicture {
    /// A | B | heat map, each converted to R'G'B' with its own colour space. The heat map shows
    /// d = |Y_A − Y_B| per pixel: s = min(8·d, 510), red = min(s, 255), green = s − red, blue 0; so
    /// black where equal, pure red at d = 32, yellow from d = 64 on.
    static func sideBySide(_ a: YUVImage, _ b: YUVImage) throws(ReplayError) -> RGBPicture {
        let width = a.width, height = a.height
        var picture = RGBPicture(width: 3 * width, height: height)
        picture.paste(try ImageWriter.rgb(a), x: 0, y: 0)
        picture.paste(try ImageWriter.rgb(b), x: width, y: 0)
        picture.pixels.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<height {
                let rowA = a.luma.row(y), rowB = b.luma.row(y)
                var out = (y * 3 * width + 2 * width) * 3
                for x in 0..<width {
                    let (red, green) = heat(abs(Int(rowA[x]) - Int(rowB[x])))
                    pixels[out] = red
                    pixels[out + 1] = green
                    pixels[out + 2] = 0
                    out += 3
                }
            }
        }
        return picture
    }

    /// The heat map's colour of a luma difference `d`: red and green (blue is 0).
    static func heat(_ d: Int) -> (red: UInt8, green: UInt8) {
        let s = min(8 * d, 510)
        return (UInt8(min(s, 255)), UInt8(s - min(s, 255)))
    }

    /// `picture` (three panels `panelWidth` wide) between a band naming the panels (A, B, |A − B|)
    /// and a band with `frame` (which frame it is) and the heat map's colour scale under the third
    /// panel: d = 0 at its left end to d = 64 (yellow, where the colours stop changing) at its right,
    /// ticks at 0, 32 and 64. Text is FreeType's (``ReportPictureText``); without the font, the bands stay plain.
    static func labelled(_ picture: RGBPicture, panelWidth: Int, frame: String) -> RGBPicture {
        // Text about 1/30 of the picture's height: legible on a 1080p picture, fitting a tiny one.
        let text = ReportPictureText(size: max(11, min(32, picture.height / 30)))
        let line = text?.lineHeight ?? 13
        let header = line + 6, footer = 2 * line + 14
        var out = RGBPicture(width: picture.width, height: header + picture.height + footer)
        out.fill(x: 0, y: 0, width: out.width, height: out.height, color: .reportBand)
        out.paste(picture, x: 0, y: header)
        // The scale: one column per step of d, spread over the third panel (4 px margins).
        let barLeft = 2 * panelWidth + 4, barWidth = max(1, panelWidth - 8), barTop = header + picture.height + 4
        for column in 0..<barWidth {
            let (red, green) = heat(Int((Double(column) / Double(max(1, barWidth - 1)) * 64).rounded()))
            out.fill(x: barLeft + column, y: barTop, width: 1, height: line, color: RGBAColor(red: red, green: green, blue: 0))
        }
        guard let text else { return out }
        for (index, name) in ["A", "B", "|A − B| luma"].enumerated() {
            let width = min(text.width(name), panelWidth - 4)
            text.draw(name, x: index * panelWidth + (panelWidth - width) / 2, top: 3, color: .reportWhite, maxWidth: panelWidth - 4, in: &out)
        }
        text.draw(frame, x: 4, top: barTop, color: .reportWhite, maxWidth: 2 * panelWidth - 8, in: &out)
        for (value, position) in [("0", 0.0), ("32", 0.5), ("64", 1.0)] {
            let width = text.width(value)
            let x = barLeft + Int(position * Double(barWidth - 1)) - Int(position * Double(width))
            out.fill(x: barLeft + Int(position * Double(barWidth - 1)), y: barTop + line, width: 1, height: 3, color: .reportWhite)
            text.draw(value, x: x, top: barTop + line + 3, color: .reportWhite, in: &out)
        }
        return out
    }
}
