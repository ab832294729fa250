/// What `render` does with the input's sound.
public enum AudioMode: String, Sendable, Codable, CaseIterable {
    /// Copy the packets untouched, encoding anew only when the output cannot hold the codec
    /// (AAC into WebM) or the render is trimmed (a cut falls inside a packet).
    case copy
    /// Encode anew (``AudioSettings/codec``, ``AudioSettings/bitRate``).
    case encode
    /// Write no sound.
    case none
}

/// The sound settings of a render.
public struct AudioSettings: Sendable, Codable, Equatable {
    /// Copy (the default), encode anew, or leave the sound out.
    public var mode: AudioMode = .copy
    /// The codec when encoding; `nil`: Opus for WebM, AAC otherwise.
    public var codec: AudioCodec?
    /// Bits per second when encoding.
    public var bitRate: Int = 128_000

    /// The defaults of `fxreplay render`: copy, AAC or Opus at 128 kb/s when encoding is needed.
    public init() {}
}

/// The input's first audio stream encoded anew for a render: the input read as a call of one
/// stream whose clock is the file's own, so the sound goes through compose's path (its own
/// demuxer, ``TrackSound``'s decode, gap handling and resampling, ``CallSoundTrack``'s encoder)
/// and every sample keeps its time: output sample `n` plays at file time `start + n / 48000`.
final class RenderSound {
    /// The encoded sound (48 kHz stereo).
    let track: CallSoundTrack
    /// File time, seconds, of the first sample written.
    let start: Double

    /// Adds the sound stream to `muxer` (before its header is written).
    /// - Parameters:
    ///   - from: file time the sound starts at (a trimmed render); `nil`: where the file starts, or 0 if that is earlier
    ///     (what lies before 0 is codec priming an edit list hides).
    ///   - to: file time the sound ends at; `nil`: the end of the file.
    init(input: String, from: Double?, to: Double?, settings: AudioSettings, muxer: Muxer) throws(ReplayError) {
        let media = try CallMedia(path: input)
        // Call time t is file time media.start + t.
        var track = CallTrack(path: FilePath(input), name: input, start: 0, stop: media.end - media.start, mediaStart: media.start,
                              mediaEnd: media.end, hasVideo: media.hasVideo, hasAudio: media.hasAudio)
        track.opened = input
        let call = Call(source: FilePath(input), manifest: input, epoch: nil,
                        streams: [CallStream(id: "input", name: input, videoType: nil, order: 0, tracks: [track])])
        start = max(from ?? max(0, media.start), media.start)
        let end = max(start, min(to ?? media.end, media.end))
        self.track = try CallSoundTrack(call: call, from: start - media.start, to: end - media.start, muxer: muxer,
                                        codec: settings.codec, bitRate: settings.bitRate,
                                        startSample: Int64((start * Double(CallAudioMix.sampleRate)).rounded()))
    }
}
