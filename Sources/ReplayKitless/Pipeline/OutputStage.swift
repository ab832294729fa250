import CFFmpeg

/// The last stage of `render` and `compose`: one thread encodes the pictures the stage before
/// hands over and writes everything the output holds (the encoded video, the packets copied
/// untouched from the input, the sound encoded anew), so the container has a single writer.
///
/// The source's thread hands copied packets over with ``copy(_:to:)``; they wait here (their
/// data moved, not copied) and are written after each picture, with the sound up to a little
/// past it, so the container's interleaving sees every stream advance together.
final class OutputStage: @unchecked Sendable {
    let encoder: Encoder
    let muxer: Muxer
    /// The output stream the encoded pictures go to.
    let videoStream: Int
    private let sound: CallSoundTrack?
    /// How far the sound is written once the picture with this timestamp (encoder time base) is.
    private let soundEnd: (Int64) -> Double
    /// Copied packets handed over and not yet written, in the order they came.
    private let waiting = Locked<[(packet: Packet, stream: Int)]>([])
    /// The batch being written: swapped with ``waiting``, so neither allocates once warm.
    private var writing: [(packet: Packet, stream: Int)] = []
    /// Packets written and ready for reuse by ``copy(_:to:)``: no allocation per copied packet.
    private let spare = Locked<[Packet]>([])

    /// - Parameters:
    ///   - sound: written in step with the pictures, up to `soundEnd(pts)` seconds after each.
    init(encoder: Encoder, muxer: Muxer, videoStream: Int, sound: CallSoundTrack? = nil, soundEnd: @escaping (Int64) -> Double = { _ in 0 }) {
        self.encoder = encoder
        self.muxer = muxer
        self.videoStream = videoStream
        self.sound = sound
        self.soundEnd = soundEnd
    }

    /// Hands `packet`'s data over to be written as output stream `stream` (from any thread);
    /// `packet` is left empty, ready for the next read.
    func copy(_ packet: Packet, to stream: Int) throws(ReplayError) {
        let held: Packet
        if let reused = spare.withLock({ $0.popLast() }) { held = reused } else { held = try Packet() }
        av_packet_move_ref(held.pointer, packet.pointer)
        waiting.withLock { $0.append((held, stream)) }
    }

    /// Encodes the frames `frames` hands over (recycling each) and writes their packets
    /// (calling `written` per packet), the copied packets and the sound, until `frames` closes;
    /// then drains the encoder and writes the rest, unless `failed` says another stage failed.
    /// A frame shown before `start` (the one on screen at a trim's cut) starts at `start` instead.
    func run(frames: BoundedQueue<Frame>, startingAt start: Int64? = nil, failed: () -> Bool, written: () -> Void) throws(ReplayError) {
        let packet = try Packet()
        func drain() throws(ReplayError) {
            while try encoder.receive(into: packet) == .produced {
                try muxer.write(packet, stream: videoStream)
                written()
            }
        }
        while let frame = frames.take() {
            if let start, frame.pts < start {
                frame.duration -= start - frame.pts
                frame.pts = start
            }
            let pts = frame.pts
            do { try encoder.send(frame) } catch {
                frame.recycle()
                throw error
            }
            frame.recycle()
            try drain()
            try writeCopied()
            try sound?.write(upTo: soundEnd(pts))
        }
        guard !failed() else { return }
        try encoder.send(nil)
        try drain()
        try writeCopied()
        try sound?.finish()
    }

    /// Writes the copied packets handed over so far.
    private func writeCopied() throws(ReplayError) {
        waiting.withLock { swap(&$0, &writing) }
        defer {
            for (packet, _) in writing { packet.unref() }
            spare.withLock { $0.append(contentsOf: writing.lazy.map(\.packet)) }
            writing.removeAll(keepingCapacity: true)
        }
        for (packet, stream) in writing { try muxer.write(packet, stream: stream) }
    }
}
