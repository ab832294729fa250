/// The decoded frames of one stream in order: the demux/send/receive/drain loop in one place,
/// for every reader of pictures (``VideoFrameReader``) and of sound (the call mix's tracks).
/// Packets the decoder rejects as corrupt are skipped and counted, as `render` conceals them.
final class StreamFrames {
    let demuxer: Demuxer
    let stream: StreamInfo
    let decoder: Decoder
    /// A read error ends the stream (counted) instead of being thrown: for a file that may be cut
    /// short (an archive's last stream) and is worth hearing up to the cut.
    private let readErrorEndsStream: Bool
    private let packet: Packet
    private let frame: Frame
    private var draining = false
    private var finished = false
    /// Packets the decoder rejected as corrupt (skipped), and read errors that ended the stream.
    private(set) var decodeErrors = 0

    init(demuxer: Demuxer, stream: StreamInfo, decoder: Decoder, readErrorEndsStream: Bool = false) throws(ReplayError) {
        packet = try Packet()
        frame = try Frame()
        self.demuxer = demuxer
        self.stream = stream
        self.decoder = decoder
        self.readErrorEndsStream = readErrorEndsStream
        demuxer.keepOnly(streams: [stream.index])
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
                if try read() {
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

    /// Moves to the last keyframe at or before `seconds` (the file's clock) and starts decoding
    /// afresh from there.
    func seek(toSeconds seconds: Double) {
        decoder.flush()
        draining = false
        finished = false
        demuxer.seek(toSeconds: seconds)
    }

    /// Counts a damaged packet or picture and goes on; a failure that is not the input's (out of memory) stops.
    private func skip(_ error: ReplayError) throws(ReplayError) {
        guard error.kind == .badInput else { throw error }
        decodeErrors += 1
    }

    private func read() throws(ReplayError) -> Bool {
        guard readErrorEndsStream else { return try demuxer.read(into: packet) }
        do { return try demuxer.read(into: packet) } catch {
            decodeErrors += 1
            return false
        }
    }
}
