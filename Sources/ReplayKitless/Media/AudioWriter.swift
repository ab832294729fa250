import Foundation

/// Writes a recording that holds only sound, with exact timestamps: an audio-only participant of
/// a call (the sample's call archive, test fixtures). Opus in WebM, AAC elsewhere, unless the
/// spec chooses (``MediaWriter/AudioSpec/opus``).
public final class AudioWriter {
    private let muxer: Muxer
    private let track: AudioTrack
    private let commitsOnFinish: Bool

    /// - Parameter group: write the file as one of the group's outputs, moved into place when the
    ///   group is committed rather than by ``finish()``.
    public init(path: String, audio: MediaWriter.AudioSpec, overwrite: Bool = true, group: OutputGroup? = nil) throws(ReplayError) {
        let output = if let group { try group.reserve(path, overwrite: overwrite) } else { try AtomicOutput(path: path, overwrite: overwrite) }
        commitsOnFinish = group == nil
        muxer = try Muxer(output: output, bitexact: true)
        track = try AudioTrack(spec: audio, muxer: muxer, opus: audio.usesOpus(path))
        try muxer.writeHeader()
    }

    /// Encodes interleaved float samples in −1…1 (channel count of the spec).
    public func addAudio(_ samples: [Float]) throws(ReplayError) { try track.add(samples) }

    /// Where the file is until it is moved into place.
    public var temporaryPath: String { muxer.output.temporaryPath }

    /// Drains the encoder, writes the trailer and (unless it belongs to a group) moves the file into place.
    public func finish() throws(ReplayError) {
        try track.finish()
        try muxer.finish(commit: commitsOnFinish)
    }
}
