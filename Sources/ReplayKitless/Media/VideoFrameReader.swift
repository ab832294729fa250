import CFFmpeg

/// Decodes the frames of one video stream in presentation order: the demux/send/receive/drain
/// loop in one place, for every tool that reads pictures (compare, framehash, probe, masks).
final class VideoFrameReader {
    let demuxer: Demuxer
    let stream: StreamInfo
    private let decoder: Decoder
    private let packet = Packet()
    private let frame = Frame()
    private let converted = Frame()
    private let scaler = Scaler()
    private var draining = false
    private var finished = false
    /// Packets the decoder rejected as corrupt (skipped).
    private(set) var decodeErrors = 0

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
        decoder = try Decoder(demuxer: demuxer, stream: chosen.index, threads: threads, keyframesOnly: keyframesOnly, alpha: alpha)
        demuxer.keepOnly(streams: [chosen.index])
    }

    /// The next decoded frame, valid until the next call; `nil` at the end of the stream.
    func next() throws(ReplayError) -> Frame? {
        while !finished {
            let result: CodecOutput
            do { result = try decoder.receive(into: frame) } catch {
                try skip(error)
                continue
            }
            switch result {
            case .produced:
                try decoder.checkSize(of: frame)
                return frame
            case .endOfStream: finished = true
            case .needsInput:
                if draining { finished = true; break }
                if try demuxer.read(into: packet) {
                    if packet.streamIndex == stream.index {
                        do { try decoder.send(packet) } catch { try skip(error) }
                    }
                    packet.unref()
                } else {
                    draining = true
                    do { try decoder.send(nil) } catch { try skip(error) }
                }
            }
        }
        return nil
    }

    /// Counts a damaged packet or picture and goes on; a failure that is not the input's (out of memory) stops.
    private func skip(_ error: ReplayError) throws(ReplayError) {
        guard error.kind == .badInput else { throw error }
        decodeErrors += 1
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
