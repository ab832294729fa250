import Foundation

/// A pair of frames, by each video's presentation index and relative time (seconds).
public struct FramePair: Sendable, Equatable, Codable {
    /// Frame of A (FFmpeg's main input).
    public var index: Int
    /// A's frame's presentation time, seconds from A's first frame.
    public var t: Double
    /// Frame of B (the reference).
    public var frameB: Int
    /// B's frame's presentation time, seconds from B's first frame.
    public var tB: Double
}

/// Whole-comparison PSNR: per plane and average from the MSE summed over pairs, as FFmpeg logs it;
/// `min`/`max` are the lowest and highest per-pair average PSNR. `inf` in JSON for identical pictures.
public struct PSNRFigures: Sendable, Equatable, Codable {
    /// PSNR in dB of each plane and their weighted average over the whole comparison, then the
    /// lowest and highest per-pair average; `+infinity` where the pictures are identical.
    public var y: Double, u: Double, v: Double, average: Double, min: Double, max: Double
    /// The pair with the lowest average PSNR.
    public var minFrame: FramePair
}

/// Whole-comparison SSIM: per plane and `All`, the mean over pairs, as FFmpeg logs it; `min` is the lowest per-pair `All`.
public struct SSIMFigures: Sendable, Equatable, Codable {
    /// Mean SSIM of each plane and `All` (planes weighted by their sample counts) over all pairs,
    /// each in 0…1 (1: identical), then the lowest per-pair `All`.
    public var y: Double, u: Double, v: Double, all: Double, min: Double
    /// `All` in decibels.
    public var db: Double
    /// The pair with the lowest `All`.
    public var minFrame: FramePair
}

/// The worst pair: lowest average PSNR (largest mean squared error), the first on ties.
public struct WorstFrame: Sendable, Equatable, Codable {
    /// A's frame, by presentation index from 0.
    public var index: Int
    /// A's frame's time, seconds from A's first frame.
    public var t: Double
    /// B's frame paired with it, by presentation index.
    public var frameB: Int
    /// B's frame's time, seconds from B's first frame.
    public var tB: Double
    /// Average PSNR (dB) and SSIM `All` of that pair.
    public var psnr: Double
    /// SSIM `All` of the pair, 0…1.
    public var ssim: Double
}

/// One pair's figures (with ``VideoComparisonOptions/perFrame``).
public struct PairQuality: Sendable, Equatable, Codable {
    /// Which frames were paired.
    public var pair: FramePair
    /// The pair's PSNR per plane and on average.
    public var psnr: PSNRFrame
    /// The pair's SSIM per plane and `All`.
    public var ssim: SSIMFrame
}

/// What the two videos are, besides their pictures.
public struct VideoFacts: Sendable, Equatable, Codable {
    /// The video as it was given: a local path or a URL that ``InputPolicy`` allows.
    public var path: String
    /// Decoded frames.
    public var frames: Int
    /// From the first frame's start to the last frame's end, seconds.
    public var duration: Double
    /// Whether the file has an audio stream (only presence is compared, not the sound).
    public var hasAudio: Bool
    /// One frame at the stream's nominal rate, seconds.
    public var frameInterval: Double
}

/// How the frames lined up.
public struct TimestampCheck: Sendable, Equatable, Codable {
    /// How the frames were paired.
    public var alignment: FrameAlignment
    /// The largest allowed |Δt| of a pair (and the pairing window of time alignment), seconds.
    public var tolerance: Double
    /// The largest |Δt| of a pair, seconds (0 without pairs).
    public var maxDelta: Double
    /// Frames of A without a partner in B, and the first of them.
    public var unmatchedA: Int
    /// The first of A's frames without a partner; `nil` when every frame has one.
    public var firstUnmatchedA: FrameReference?
    /// Frames of B without a partner in A, and the first of them.
    public var unmatchedB: Int
    /// The first of B's frames without a partner; `nil` when every frame has one.
    public var firstUnmatchedB: FrameReference?
}

/// `fxreplay compare A B`: PSNR and SSIM of two videos pair by pair (as FFmpeg's `psnr` and `ssim`
/// filters compute them), plus frame counts, timestamps, duration and audio presence. JSON keys:
/// `psnr`, `ssim`, `frames` (pairs compared), `worst`, `pass`, then `failures`, `a`, `b`, `timestamps`,
/// `audio`, `duration` and `perFrame` when asked for.
public struct VideoComparisonResult: Sendable, Equatable, Codable {
    /// Facts of A, the first video (FFmpeg's main input).
    public var a: VideoFacts
    /// Facts of B, the reference.
    public var b: VideoFacts
    /// Pairs compared.
    public var frames: Int
    /// `nil` without pairs.
    public var psnr: PSNRFigures?
    /// Whole-comparison SSIM; `nil` without pairs.
    public var ssim: SSIMFigures?
    /// The pair with the lowest average PSNR; `nil` without pairs.
    public var worst: WorstFrame?
    /// How the timestamps of the two videos lined up.
    public var timestamps: TimestampCheck
    /// The PSNR threshold checked, dB (`VideoComparisonOptions/minPSNR`); `nil`: none.
    public var minPSNR: Double?
    /// The SSIM threshold checked (`VideoComparisonOptions/minSSIM`); `nil`: none.
    public var minSSIM: Double?
    /// Why the comparison fails; empty when it passes.
    public var failures: [String]
    /// Whether every check passed (`failures` is empty); `fxreplay compare` exits 1 otherwise.
    public var pass: Bool
    /// Every pair's figures, with `VideoComparisonOptions/perFrame`; else `nil`.
    public var perFrame: [PairQuality]?
    /// FFmpeg's closing log lines (`PSNR y:… ` and `SSIM Y:…`), for the text report.
    public var ffmpegLines: [String]

    /// Audio presence as JSON shows it: `{"a": true, "b": false}`.
    public var audio: [String: Bool] { ["a": a.hasAudio, "b": b.hasAudio] }
    /// Durations as JSON shows them, seconds.
    public var duration: [String: Double] { ["a": a.duration, "b": b.duration] }

    enum CodingKeys: String, CodingKey {
        case a, b, frames, psnr, ssim, worst, timestamps, minPSNR, minSSIM, failures, pass, perFrame, audio, duration
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(a, forKey: .a)
        try container.encode(b, forKey: .b)
        try container.encode(frames, forKey: .frames)
        try container.encodeIfPresent(psnr, forKey: .psnr)
        try container.encodeIfPresent(ssim, forKey: .ssim)
        try container.encodeIfPresent(worst, forKey: .worst)
        try container.encode(timestamps, forKey: .timestamps)
        try container.encodeIfPresent(minPSNR, forKey: .minPSNR)
        try container.encodeIfPresent(minSSIM, forKey: .minSSIM)
        try container.encode(failures, forKey: .failures)
        try container.encode(pass, forKey: .pass)
        try container.encodeIfPresent(perFrame, forKey: .perFrame)
        try container.encode(audio, forKey: .audio)
        try container.encode(duration, forKey: .duration)
    }

    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        a = try container.decode(VideoFacts.self, forKey: .a)
        b = try container.decode(VideoFacts.self, forKey: .b)
        frames = try container.decode(Int.self, forKey: .frames)
        psnr = try container.decodeIfPresent(PSNRFigures.self, forKey: .psnr)
        ssim = try container.decodeIfPresent(SSIMFigures.self, forKey: .ssim)
        worst = try container.decodeIfPresent(WorstFrame.self, forKey: .worst)
        timestamps = try container.decode(TimestampCheck.self, forKey: .timestamps)
        minPSNR = try container.decodeIfPresent(Double.self, forKey: .minPSNR)
        minSSIM = try container.decodeIfPresent(Double.self, forKey: .minSSIM)
        failures = try container.decode([String].self, forKey: .failures)
        pass = try container.decode(Bool.self, forKey: .pass)
        perFrame = try container.decodeIfPresent([PairQuality].self, forKey: .perFrame)
        ffmpegLines = []
    }

    init(a: VideoFacts, b: VideoFacts, frames: Int, summary: QualitySummary?, lowestPSNR: PairQuality?, lowestSSIM: PairQuality?,
         timestamps: TimestampCheck, options: VideoComparisonOptions, perFrame: [PairQuality]?) {
        self.a = a
        self.b = b
        self.frames = frames
        if let summary, let lowestPSNR, let lowestSSIM {
            psnr = PSNRFigures(y: summary.psnr.psnr.y, u: summary.psnr.psnr.u, v: summary.psnr.psnr.v, average: summary.psnr.average,
                               min: summary.psnr.min, max: summary.psnr.max, minFrame: lowestPSNR.pair)
            ssim = SSIMFigures(y: summary.ssim.ssim.y, u: summary.ssim.ssim.u, v: summary.ssim.ssim.v, all: summary.ssim.all,
                               min: lowestSSIM.ssim.all, db: summary.ssim.allDecibels, minFrame: lowestSSIM.pair)
            worst = WorstFrame(index: lowestPSNR.pair.index, t: lowestPSNR.pair.t, frameB: lowestPSNR.pair.frameB, tB: lowestPSNR.pair.tB,
                               psnr: lowestPSNR.psnr.psnrAverage, ssim: lowestPSNR.ssim.all)
            ffmpegLines = [summary.psnr.ffmpegLine, summary.ssim.ffmpegLine]
        } else {
            ffmpegLines = []
        }
        self.timestamps = timestamps
        minPSNR = options.minPSNR
        minSSIM = options.minSSIM
        self.perFrame = perFrame
        failures = []
        pass = true
        failures = checks(summary: summary, options: options)
        pass = failures.isEmpty
    }

    /// Every check that fails, in words naming files, frames and times.
    private func checks(summary: QualitySummary?, options: VideoComparisonOptions) -> [String] {
        var reasons: [String] = []
        let ms = { (seconds: Double) in String(format: "%.3f ms", seconds * 1000) }
        if frames == 0 { reasons.append("no frames to compare") }
        if let summary, let psnr, let ssim {
            // One reason per threshold (``QualitySummary/failures(minPSNR:minSSIM:)``), each naming its worst frame.
            if let reason = summary.failures(minPSNR: options.minPSNR, minSSIM: nil).first {
                reasons.append(reason + "; worst frame \(psnr.minFrame.index) at \(seconds(psnr.minFrame.t)): \(cFormat(psnr.min)) dB")
            }
            if let reason = summary.failures(minPSNR: nil, minSSIM: options.minSSIM).first {
                reasons.append(reason + "; worst frame \(ssim.minFrame.index) at \(seconds(ssim.minFrame.t)): \(cFormat(ssim.min))")
            }
        }
        if a.frames != b.frames { reasons.append("frame counts differ: \(a.path) has \(a.frames), \(b.path) has \(b.frames)") }
        if timestamps.alignment == .time {
            if let first = timestamps.firstUnmatchedA {
                reasons.append("\(timestamps.unmatchedA) frames of \(a.path) have no frame of \(b.path) within \(ms(timestamps.tolerance)) "
                               + "(first: frame \(first.frame) at \(seconds(first.t)))")
            }
            if let first = timestamps.firstUnmatchedB {
                reasons.append("\(timestamps.unmatchedB) frames of \(b.path) have no frame of \(a.path) within \(ms(timestamps.tolerance)) "
                               + "(first: frame \(first.frame) at \(seconds(first.t)))")
            }
        }
        if timestamps.maxDelta > timestamps.tolerance + 1e-9 {
            reasons.append("timestamps differ by up to \(ms(timestamps.maxDelta)), more than \(ms(timestamps.tolerance))")
        }
        let frameLength = max(a.frameInterval, b.frameInterval)
        if abs(a.duration - b.duration) > frameLength + 1e-9 {
            reasons.append("durations differ by more than a frame: \(a.path) \(seconds(a.duration)), \(b.path) \(seconds(b.duration))")
        }
        if options.checkAudio, a.hasAudio != b.hasAudio {
            reasons.append("\((a.hasAudio ? a : b).path) has audio, \((a.hasAudio ? b : a).path) has none")
        }
        return reasons
    }

    /// The report for a terminal: what was compared, FFmpeg's two closing lines, the other checks, the verdict.
    public var text: String {
        var text = "\(a.path) vs \(b.path): \(frames) frames compared"
        if a.frames != b.frames { text += " (\(a.path) has \(a.frames), \(b.path) has \(b.frames))" }
        text += "\n"
        for line in ffmpegLines { text += line + "\n" }
        let ms = { (seconds: Double) in String(format: "%.3f ms", seconds * 1000) }
        text += "frames aligned by \(timestamps.alignment.rawValue): max |Δt| \(ms(timestamps.maxDelta)) "
            + "(tolerance \(ms(timestamps.tolerance))), unmatched \(timestamps.unmatchedA) in A, \(timestamps.unmatchedB) in B\n"
        text += "duration: A \(seconds(a.duration)), B \(seconds(b.duration)); audio: A \(a.hasAudio ? "yes" : "no"), B \(b.hasAudio ? "yes" : "no")\n"
        if let worst {
            text += "worst frame: \(worst.index) at \(seconds(worst.t)) (B frame \(worst.frameB) at \(seconds(worst.tB))): "
                + "PSNR \(cFormat(worst.psnr)) dB, SSIM \(cFormat(worst.ssim))\n"
        }
        text += pass ? "PASS\n" : "FAIL: " + failures.joined(separator: "; ") + "\n"
        return text
    }

    /// The error `fxreplay compare` ends with when a check fails (exit status 1); `nil` on a pass.
    public var failure: ReplayError? {
        pass ? nil : .checkFailed(failures.joined(separator: "; "))
    }

    /// The report as JSON (formats.md's `compare` report; infinite PSNR as `"inf"`).
    public func json() throws(ReplayError) -> Data {
        try QAOutput.json(self)
    }

    private func seconds(_ value: Double) -> String { String(format: "%.3f s", value) }
}
