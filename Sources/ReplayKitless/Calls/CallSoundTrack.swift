/// The sound of a composed call: ``CallAudioMix`` encoded into an output's ``Muxer`` (AAC in
/// MP4, MOV and Matroska, Opus in WebM), 48 kHz stereo, written in step with the pictures so
/// the container interleaves them closely. Use:
///
///     let sound = try CallSoundTrack(call: call, from: from, to: to, muxer: muxer)  // before muxer.writeHeader()
///     try muxer.writeHeader()
///     for k in frames { …write video frame k…; try sound.write(upTo: Double(k + 1) / fps) }
///     try sound.finish()                                                           // before muxer.finish()
///
/// Sample `n` has presentation time `n / 48000` (call time `from + n / 48000`), in step with
/// pictures whose frame `k` has time `k / fps`; the stream holds `(to − from) × 48000` samples,
/// ending with the encoder's last frame. (In Matroska, AAC's priming, 21 ms, plays in place of
/// the first samples: see ``AudioEncoder``.)
final class CallSoundTrack {
    let mix: CallAudioMix
    /// The output stream the sound is written to.
    var stream: Int { encoder.stream }
    private let encoder: AudioEncoder
    private static let chunk = 1024
    private let left = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
    private let right = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
    private let planes: [UnsafePointer<Float>]

    /// Adds the sound stream to `muxer`, whose header must not be written yet.
    /// - Parameters:
    ///   - codec: `nil` picks Opus for WebM, AAC otherwise.
    ///   - bitRate: bits per second of the encoded sound.
    ///   - startSample: the output timestamp of sample 0, in samples (a render keeps the input's clock).
    init(call: Call, from: Double = 0, to: Double? = nil, muxer: Muxer, codec: AudioCodec? = nil,
         bitRate: Int = 128_000, startSample: Int64 = 0) throws(ReplayError) {
        mix = try CallAudioMix(call: call, from: from, to: to)
        let chosen = codec ?? (muxer.formatName == "webm" ? .opus : .aac)
        encoder = try AudioEncoder(codec: chosen, sampleRate: CallAudioMix.sampleRate, channels: 2, startSample: startSample,
                                   bitRate: bitRate, bitexact: false, muxer: muxer)
        planes = [UnsafePointer(left), UnsafePointer(right)]
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
            try encoder.add(planes: planes, count: n)
        }
    }

    /// Writes the rest of the sound and drains the encoder.
    func finish() throws(ReplayError) {
        try write(upTo: mix.to - mix.from + 1)
        try encoder.finish()
    }
}
