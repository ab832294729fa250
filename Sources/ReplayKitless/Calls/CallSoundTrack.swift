/// The sound of a composed call: ``CallAudioMix`` encoded into an output's ``Muxer`` (AAC in
/// MP4, MOV and Matroska, Opus in WebM), 48 kHz stereo, written in step with the pictures so
/// the container interleaves them closely. Use:
///
///     let sound = try CallSoundTrack(call: call, from: from, to: to, muxer: muxer)  // before muxer.writeHeader()
///     try muxer.writeHeader()
///     for k in frames { …write video frame k…; try sound.write(upTo: Double(k + 1) / fps) }
///     try sound.finish()                                                           // before muxer.finish()
///
/// The first sample has presentation time 0 (call time `from`); the stream holds
/// `(to − from) × 48000` samples, ending with the encoder's last frame.
final class CallSoundTrack {
    let mix: CallAudioMix
    /// The output stream the sound is written to.
    var stream: Int { encoder.stream }
    private let encoder: AudioEncoder
    private static let chunk = 1024
    private let left = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
    private let right = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
    private let planes: [UnsafePointer<Float>]
    /// Mix samples not encoded: the codec's priming plays in their place (see `init`).
    private var primingSkip = 0

    /// Adds the sound stream to `muxer`, whose header must not be written yet.
    /// - Parameters:
    ///   - codec: `nil` picks Opus for WebM, AAC otherwise.
    ///   - bitRate: bits per second of the encoded sound.
    init(call: Call, from: Double = 0, to: Double? = nil, muxer: Muxer, codec: AudioCodec? = nil,
         bitRate: Int = 128_000) throws(ReplayError) {
        mix = try CallAudioMix(call: call, from: from, to: to)
        let chosen = codec ?? (muxer.formatName == "webm" ? .opus : .aac)
        encoder = try AudioEncoder(codec: chosen, sampleRate: CallAudioMix.sampleRate, channels: 2, bitRate: bitRate,
                                   bitexact: false, muxer: muxer)
        planes = [UnsafePointer(left), UnsafePointer(right)]
        // MP4/MOV (edit list) and WebM/Matroska with Opus (CodecDelay) tell players to drop the
        // codec's priming; Matroska with AAC cannot, and the muxer would shift every stream to
        // make room for it. There the priming takes the place of the mix's first samples
        // instead, so that every sample plays at its own time and the pictures keep theirs.
        if muxer.formatName == "matroska" && chosen == .aac {
            primingSkip = encoder.initialPadding
            encoder.nextPTS = Int64(primingSkip)
        }
    }

    deinit {
        left.deallocate()
        right.deallocate()
    }

    /// Mixes and encodes the sound up to output time `seconds` (0 is `from`); a time past the end
    /// writes up to the end.
    func write(upTo seconds: Double) throws(ReplayError) {
        let target = min(mix.frameCount, Int64((seconds * Double(CallAudioMix.sampleRate)).rounded()))
        while mix.position < target {
            let n = try mix.read(frames: Int(min(Int64(Self.chunk), target - mix.position)), left: left, right: right)
            guard n > 0 else { break }
            let skipped = min(n, primingSkip)
            primingSkip -= skipped
            guard n > skipped else { continue }
            try encoder.add(planes: skipped == 0 ? planes : planes.map { $0 + skipped }, count: n - skipped)
        }
    }

    /// Writes the rest of the sound and drains the encoder.
    func finish() throws(ReplayError) {
        try write(upTo: mix.to - mix.from + 1)
        try encoder.finish()
    }
}
