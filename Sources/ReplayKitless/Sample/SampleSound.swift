import Foundation

/// The sample call's sound: a quiet room tone (a 120 Hz hum and a little noise) and the A/V sync
/// probe, a 1 kHz beep starting at phase 0 exactly at each flash frame's presentation time.
enum SampleSound {
    static let sampleRate = 48000
    static let beepAmplitude = 0.5
    /// The beep ends with a 2 ms fade (its start stays sharp: that is what a test measures).
    static let fadeSeconds = 0.002

    /// Encoder priming of FFmpeg's AAC encoder: its first packet starts this many samples early.
    static let priming: Int64 = 1024

    /// Where the sound starts, in samples of stream time: at or just before the first frame, such
    /// that the first AAC packet (priming included) starts on a whole millisecond. MP4 edit lists
    /// count milliseconds here, so any other start would move the whole sound by a fraction of one.
    static var startSample: Int64 {
        let perMillisecond = Int64(sampleRate / 1000)
        let firstFrame = SampleScene.startMilliseconds * perMillisecond
        return priming + (firstFrame - priming) / perMillisecond * perMillisecond
    }

    /// Mono samples from ``startSample`` to `endMilliseconds` (stream time).
    static func samples(for scene: SampleScene, endMilliseconds: Int64) -> [Float] {
        let perMillisecond = Int64(sampleRate / 1000)
        let count = Int(endMilliseconds * perMillisecond - startSample)
        var random = SampleRandom(seed: scene.settings.seed ^ 0x5EED_50D5)
        var samples = (0..<count).map { n -> Float in
            let hum = 0.01 * sin(2 * Double.pi * 120 * Double(n) / Double(sampleRate))
            return Float(hum + 0.006 * (2 * random.unit() - 1))
        }
        let length = Int(SampleScene.beepSeconds * Double(sampleRate))
        let fade = Int(fadeSeconds * Double(sampleRate))
        for frame in scene.frames where frame.flash {
            let first = Int(frame.milliseconds * perMillisecond - startSample)
            for k in 0..<min(length, count - first) {
                let envelope = min(1, Double(length - k) / Double(fade))
                let tone = beepAmplitude * envelope * sin(2 * Double.pi * SampleScene.beepFrequency * Double(k) / Double(sampleRate))
                samples[first + k] += Float(tone)
            }
        }
        return samples
    }
}
