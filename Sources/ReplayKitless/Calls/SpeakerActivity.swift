import Foundation

/// Who speaks when in a call (formats.md §9, `speaker`): each stream's level, the RMS of its own
/// sound over consecutive 100 ms windows of call time in dBFS, and per window the *loudest*
/// stream, the one with the highest level above ``floor`` (none when all are below).
///
/// Windows lie on a grid from call time 0: window `i` is call time `[i / 10, (i + 1) / 10)`, so a
/// window means the same span whatever `--from` is; measuring starts at the window holding the
/// composition's start. A level is `20 · log10(rms)` with full scale 1.0, the RMS taken over both
/// channels of the stream's sound as the mix places it (a full-scale sine is −3 dBFS).
/// Each stream's sound is decoded once more, alone, by ``CallAudioMix`` (the placement the
/// composed sound uses), in a pass before the pictures.
public struct SpeakerActivity: Sendable, Equatable {
    /// The length of a window, seconds.
    public static let window = 0.1
    /// A stream quieter than this (dBFS) in a window is not speaking in it.
    public static let floor = -45.0
    /// Call samples per window at the mix's rate.
    static let windowSamples = CallAudioMix.sampleRate / 10

    /// The index of the first window measured (its call time is `firstWindow / 10`).
    public let firstWindow: Int
    /// Per window from ``firstWindow`` on, the id of its loudest stream; `nil`: nobody above the floor.
    public let loudest: [String?]

    /// Activity made of known windows (tests, and callers that measured otherwise).
    public init(firstWindow: Int, loudest: [String?]) {
        self.firstWindow = firstWindow
        self.loudest = loudest
    }

    /// Measures every stream of `call` with sound over the windows covering call time `from..<to`.
    public static func measure(_ call: Call, from: Double, to: Double) throws(ReplayError) -> SpeakerActivity {
        let first = windowIndex(of: from)
        let end = max(first + 1, Int((to / window - 1e-9).rounded(.up)))
        var best = [(level: Double, stream: String?)](repeating: (floor, nil), count: end - first)
        for stream in call.streams where stream.hasAudio {
            let alone = Call(source: call.source, manifest: call.manifest, epoch: call.epoch, streams: [stream])
            let mix = try CallAudioMix(call: alone, from: Double(first) * window, to: Double(end) * window)
            for index in best.indices {
                let (left, right) = try mix.read(frames: windowSamples)
                let level = decibels(meanSquare: (sumOfSquares(left) + sumOfSquares(right)) / Double(2 * windowSamples))
                if level > best[index].level { best[index] = (level, stream.id) }
            }
        }
        return SpeakerActivity(firstWindow: first, loudest: best.map(\.stream))
    }

    /// The window holding call time `t` (a hair of rounding error does not move it back a window).
    public static func windowIndex(of t: Double) -> Int { Int((t / window + 1e-9).rounded(.down)) }

    /// `10 · log10(meanSquare)`, i.e. `20 · log10(rms)`: full scale is 0 dBFS; silence is −∞.
    static func decibels(meanSquare: Double) -> Double { meanSquare > 0 ? 10 * log10(meanSquare) : -.infinity }

    private static func sumOfSquares(_ samples: [Float]) -> Double { samples.reduce(0) { $0 + Double($1) * Double($1) } }

    /// The loudest stream of the window holding call time `t`; `nil` outside the measured windows.
    public func loudest(at t: Double) -> String? {
        let index = Self.windowIndex(of: t) - firstWindow
        return loudest.indices.contains(index) ? loudest[index] : nil
    }

    /// One span in which a stream is the loudest: consecutive windows with the same loudest stream.
    public struct Span: Sendable, Equatable {
        /// The loudest stream's id.
        public var stream: String
        /// The first window of the span and the window just after it.
        public var windows: Range<Int>
        /// Call time the span starts at, seconds.
        public var start: Double { Double(windows.lowerBound) * SpeakerActivity.window }
        /// Call time the span ends at, seconds.
        public var end: Double { Double(windows.upperBound) * SpeakerActivity.window }
    }

    /// The spans in which someone is the loudest, in time order.
    public var spans: [Span] {
        var spans: [Span] = []
        for (offset, stream) in loudest.enumerated() {
            guard let stream else { continue }
            let index = firstWindow + offset
            if let last = spans.last, last.stream == stream, last.windows.upperBound == index {
                spans[spans.count - 1].windows = last.windows.lowerBound..<index + 1
            } else {
                spans.append(Span(stream: stream, windows: index..<index + 1))
            }
        }
        return spans
    }

    /// A WebVTT file with one cue per span (`--speakers`), the cue text the stream's name in
    /// `call`; cue times are output times, call time minus `from` (the composition's start),
    /// within the composition (`from` to `to`, call seconds) where a window reaches outside it.
    public func webVTT(for call: Call, from: Double, to: Double) -> String {
        var text = "WEBVTT\n"
        for span in spans {
            let name = call.streams.first { $0.id == span.stream }?.name ?? span.stream
            text += "\n\(Self.cueTime(max(0, span.start - from))) --> \(Self.cueTime(min(span.end, to) - from))\n\(Self.cueText(name))\n"
        }
        return text
    }

    /// `hh:mm:ss.ttt`, as WebVTT writes a cue's time.
    static func cueTime(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", milliseconds / 3_600_000, milliseconds / 60000 % 60, milliseconds / 1000 % 60,
                      milliseconds % 1000)
    }

    /// A name as cue text: one line, with WebVTT's markup characters escaped.
    static func cueText(_ name: String) -> String {
        name.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
