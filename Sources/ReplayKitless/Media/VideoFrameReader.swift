/// Decodes the frames of one video stream in presentation order: the demux/send/receive/drain
/// loop in one place, for every tool that reads pictures (compare, framehash, probe, masks).
public final class VideoFrameReader {
    public let demuxer: Demuxer
    public let stream: StreamInfo
    private let decoder: Decoder
    private let packet = Packet()
    private let frame = Frame()
    private var draining = false
    private var finished = false
    /// Packets the decoder rejected as corrupt (skipped).
    public private(set) var decodeErrors = 0

    /// Opens the best video stream of `url` (or stream `index`).
    public init(url: String, stream index: Int? = nil, threads: Int = 0, keyframesOnly: Bool = false) throws(ReplayError) {
        let demuxer = try Demuxer(url: url)
        self.demuxer = demuxer
        let requested = index.flatMap { demuxer.streams.indices.contains($0) ? demuxer.streams[$0] : nil }
        guard let chosen = requested ?? demuxer.bestVideoStream, chosen.kind == .video else {
            throw .badInput("\(url): no video stream")
        }
        stream = chosen
        decoder = try Decoder(demuxer: demuxer, stream: chosen.index, threads: threads, keyframesOnly: keyframesOnly)
        demuxer.keepOnly(streams: [chosen.index])
    }

    /// The next decoded frame, valid until the next call; `nil` at the end of the stream.
    public func next() throws(ReplayError) -> Frame? {
        while !finished {
            let result: CodecOutput
            do { result = try decoder.receive(into: frame) } catch {
                decodeErrors += 1
                continue
            }
            switch result {
            case .produced: return frame
            case .endOfStream: finished = true
            case .needsInput:
                if draining { finished = true; break }
                if try demuxer.read(into: packet) {
                    if packet.streamIndex == stream.index {
                        do { try decoder.send(packet) } catch { decodeErrors += 1 }
                    }
                    packet.unref()
                } else {
                    draining = true
                    try decoder.send(nil)
                }
            }
        }
        return nil
    }
}
