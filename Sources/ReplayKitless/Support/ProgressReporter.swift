import Foundation

/// Shows how far a long job is on stderr: a live bar on a terminal, plain periodic lines
/// otherwise, or JSON lines for machines. Call ``update(done:)`` as often as convenient;
/// it prints only at its own pace.
public final class ProgressReporter: @unchecked Sendable {
    private let style: ProgressStyle
    private let label: String
    /// Expected units: an estimate for some inputs (a duration times a frame rate), so the final
    /// report gives the count actually done.
    private var total: Int?
    private let start = Date()
    private var lastPrint = Date.distantPast
    private let interval: TimeInterval
    private let isTerminal: Bool
    private let unit: String
    /// Media seconds the expected units stand for (the input's or the composition's duration):
    /// with it, the output time reached and the speed in × realtime, as ffmpeg reports them.
    private let seconds: Double?
    private static let barOpen = Locked(false)
    /// Whether a terminal bar is on screen without its line ended, so a message must start a new line.
    public static var isBarOpen: Bool { barOpen.withLock { $0 } }

    /// A reporter for one job.
    /// - Parameters:
    ///   - style: how it shows (``ProgressStyle/auto``: a bar on a terminal, plain lines otherwise).
    ///   - label: what the lines call the job.
    ///   - total: units expected, when known.
    ///   - unit: what is counted.
    ///   - seconds: media seconds the expected units stand for, for the time reached and the speed.
    public init(style: ProgressStyle, label: String, total: Int?, unit: String = "frames", seconds: Double? = nil) {
        let terminal = isatty(STDERR_FILENO) != 0
        self.style = style == .auto ? (terminal ? .auto : .plain) : style
        self.label = label
        self.total = total.flatMap { $0 > 0 ? $0 : nil }
        self.isTerminal = terminal
        self.unit = unit
        self.seconds = seconds.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        interval = self.style == .auto ? 0.25 : 2
    }

    /// Reports that `done` units are finished.
    public func update(done: Int) {
        let now = Date()
        guard now.timeIntervalSince(lastPrint) >= interval else { return }
        lastPrint = now
        emit(done: done, final: false)
    }

    /// Prints the final state.
    public func finish(done: Int) {
        if total != nil { total = done }
        emit(done: done, final: true)
    }

    private func emit(done: Int, final: Bool) {
        let elapsed = Date().timeIntervalSince(start)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let eta = total.map { rate > 0 ? Double(max(0, $0 - done)) / rate : nil } ?? nil
        switch style {
        case .none:
            return
        case .json:
            var object: [String: Any] = ["event": final ? "done" : "progress", "label": label, unit: done,
                                         "elapsed": (elapsed * 1000).rounded() / 1000, "rate": (rate * 10).rounded() / 10]
            if let total {
                object["total"] = total
                object["percent"] = (Double(min(done, total)) * 1000 / Double(total)).rounded() / 10
            }
            if let time = outputTime(done: done) {
                object["time"] = (time * 1000).rounded() / 1000
                if elapsed > 0 { object["speed"] = (time / elapsed * 100).rounded() / 100 }
            }
            if let eta, !final { object["eta"] = (eta * 10).rounded() / 10 }
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                Console.write(String(decoding: data, as: UTF8.self) + "\n")
            }
        case .plain:
            Console.write(line(done: done, rate: rate, eta: eta, final: final) + "\n")
        case .auto:
            let text = bar(done: done) + " " + line(done: done, rate: rate, eta: eta, final: final)
            Console.write("\r\u{1B}[K\(text)\(final ? "\n" : "")")
            Self.barOpen.withLock { $0 = !final }
        }
    }

    /// Media seconds done: the share of the expected units done of the expected seconds.
    private func outputTime(done: Int) -> Double? {
        guard let seconds, let total else { return nil }
        return seconds * Double(min(done, total)) / Double(total)
    }

    private func line(done: Int, rate: Double, eta: Double?, final: Bool) -> String {
        var text = "\(label): \(done)"
        if let total { text += "/\(total)" }
        text += " \(unit), " + String(format: "%.1f", rate) + " \(unit)/s"
        if final { text += ", done in " + Self.clock(Date().timeIntervalSince(start)) }
        else if let eta { text += ", ETA " + Self.clock(eta) }
        return text
    }

    private func bar(done: Int) -> String {
        let width = 30
        guard let total else { return "[" + String(repeating: "·", count: width) + "]" }
        let filled = min(width, done * width / total)
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
    }

    /// `seconds` as `M:SS`, or `H:MM:SS` from an hour on.
    public static func clock(_ seconds: Double) -> String {
        let s = Int(clamping: seconds, rounding: .toNearestOrAwayFromZero, to: 0...Int(Int32.max))
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
