import CFFmpeg

/// Decodes the frames of one video stream in presentation order (``FrameSource``, with the
/// decoder's own timestamps), for every tool that reads pictures (compare, framehash, probe, masks).
final class VideoFrameReader {
    let demuxer: Demuxer
    let stream: StreamInfo
    private let source: FrameSource
    /// The frame ``next()`` gave last, recycled at the next call.
    private var lent: Frame?
    private let converted: Frame
    private let scaler = Scaler()
    /// Packets the decoder rejected as corrupt (skipped).
    var decodeErrors: Int { source.counters.counts.decodeErrors }

    /// Opens the best video stream of `url` (or stream `index`).
    /// - Parameters:
    ///   - imageSequence: `url` is a printf-style pattern of numbered images (`mask_%05d.png`).
    ///   - alpha: decode an alpha channel the codec's default decoder would drop (VP9's).
    init(url: String, stream index: Int? = nil, threads: Int = 0, keyframesOnly: Bool = false,
         imageSequence: Bool = false, alpha: Bool = true) throws(ReplayError) {
        let demuxer = try Demuxer(url: url, format: imageSequence ? "image2" : nil)
        self.demuxer = demuxer
        let requested = index.flatMap { demuxer.streams.indices.contains($0) ? demuxer.streams[$0] : nil }
        guard let chosen = requested ?? demuxer.bestVideoStream, chosen.kind == .video else {
            throw .badInput("\(url): no video stream")
        }
        if !imageSequence { try chosen.requireQuarterTurns(of: url) }
        stream = chosen
        let decoder = try Decoder(demuxer: demuxer, stream: chosen.index, threads: threads, keyframesOnly: keyframesOnly, alpha: alpha)
        source = try FrameSource(demuxer: demuxer, stream: chosen, decoder: decoder, repairs: false)
        converted = try Frame()
    }

    /// The next decoded frame, valid until the next call; `nil` at the end of the stream.
    func next() throws(ReplayError) -> Frame? {
        lent?.recycle()
        lent = try source.next()
        return lent
    }

    /// An 8-bit planar view of `frame` (a frame from ``next()``): the frame itself when it is
    /// 8-bit planar Y'CbCr, else a 4:2:0 conversion in a buffer reused between calls.
    func image(of frame: Frame) throws(ReplayError) -> YUVImage {
        if let image = frame.yuvImage { return image }
        do {
            try converted.allocate(width: frame.width, height: frame.height, format: AV_PIX_FMT_YUV420P)
        } catch { throw .processing("\(demuxer.url): \(error)") }
        try scaler.convert(frame, into: converted)
        guard var image = converted.yuvImage else { throw .processing("\(demuxer.url): cannot convert the picture") }
        image.colorSpace = frame.colorSpace
        return image
    }
}
