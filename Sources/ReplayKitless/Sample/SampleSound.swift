import Foundation

/// The sample call's sound: a quiet room tone (a hum and a little noise) and the A/V sync
/// probes, beeps starting at phase 0 exactly at chosen times (the publisher's: 1 kHz at each flash
/// frame's presentation time). The call archive's other participants are made of the same parts
/// with their own hum, seed and tones, so each voice can be told apart in a mix.
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

    /// Mono samples from `startSample` to `endMilliseconds` (stream time): the publisher's room
    /// tone with a 1 kHz beep at each flash frame.
    static func samples(for scene: SampleScene, from startSample: Int64 = startSample, endMilliseconds: Int64) -> [Float] {
        let perMillisecond = Int64(sampleRate / 1000)
        var samples = roomTone(count: Int(endMilliseconds * perMillisecond - startSample), seed: scene.settings.seed ^ 0x5EED_50D5)
        for frame in scene.frames where frame.flash {
            addBeep(to: &samples, at: Int(frame.milliseconds * perMillisecond - startSample),
                    frequency: SampleScene.beepFrequency, seconds: SampleScene.beepSeconds)
        }
        return samples
    }

    /// `count` samples of a room: a hum at `hum` Hz (amplitude 0.01) and white noise (±0.006).
    static func roomTone(count: Int, seed: UInt64, hum humFrequency: Double = 120) -> [Float] {
        var random = SampleRandom(seed: seed)
        return (0..<count).map { n -> Float in
            let hum = 0.01 * sin(2 * Double.pi * humFrequency * Double(n) / Double(sampleRate))
            return Float(hum + 0.006 * (2 * random.unit() - 1))
        }
    }

    /// Adds a sine beep starting at phase 0 at sample `first`, `seconds` long with a ``fadeSeconds``
    /// fade-out, cut at the end of `samples`.
    static func addBeep(to samples: inout [Float], at first: Int, frequency: Double, seconds: Double,
                        amplitude: Double = beepAmplitude) {
        let length = Int(seconds * Double(sampleRate))
        let fade = Int(fadeSeconds * Double(sampleRate))
        guard first >= 0 else { return }
        for k in 0..<max(0, min(length, samples.count - first)) {
            let envelope = min(1, Double(length - k) / Double(fade))
            let tone = amplitude * envelope * sin(2 * Double.pi * frequency * Double(k) / Double(sampleRate))
            samples[first + k] += Float(tone)
        }
    }
}
