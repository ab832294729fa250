import Foundation
import ReplayKitless

/// The overall view of a running batch on stderr, in ``ProgressReporter``'s styles: a bar on a
/// terminal, plain lines otherwise, JSON lines on request. Each finished recording gets a line.
final class BatchProgress: @unchecked Sendable {
    private let style: ProgressStyle
    private let interval: TimeInterval
    private var toRender: Int
    private var skipped: Int
    private let start = Date()
    private let lock = NSLock()
    private var lastPrint = Date.distantPast
    private var done = 0
    private var failed = 0
    private var finishedFrames = 0
    /// Running recordings: frames so far and expected frames.
    private var running: [String: (frames: Int, total: Int?)] = [:]

    init(style: ProgressStyle, toRender: Int, skipped: Int) {
        self.style = style == .auto ? (isatty(STDERR_FILENO) != 0 ? .auto : .plain) : style
        interval = self.style == .auto ? 0.25 : 2
        self.toRender = toRender
        self.skipped = skipped
    }

    /// A render began: after any wait for another batch's lock on it, and only for a recording
    /// that was not found up to date, so each `started` JSON event has one `recording` event after it.
    func started(_ name: String) {
        lock.withLock {
            running[name] = (0, nil)
            if style == .json { writeJSON(["event": "started", "name": name]) }
        }
    }

    /// A progress line from a child.
    func progress(_ name: String, frames: Int, total: Int?) {
        lock.withLock { if running[name] != nil { running[name] = (frames, total) } }
    }

    /// A child ended: counts it and prints a line about it.
    func finished(_ entry: BatchReport.Entry) {
        lock.withLock {
            running[entry.name] = nil
            switch entry.status {
            case .done: done += 1
            case .failed: failed += 1
            // Made meanwhile by another batch on the same directory.
            case .skipped: skipped += 1; toRender -= 1
            case .pending, .interrupted: break
            }
            finishedFrames += entry.frames ?? 0
            switch style {
            case .none:
                return
            case .json:
                var object: [String: Any] = ["event": "recording", "name": entry.name, "status": entry.status.rawValue]
                object["exitCode"] = entry.exitCode
                object["error"] = entry.error
                object["seconds"] = entry.seconds.map { ($0 * 1000).rounded() / 1000 }
                object["fps"] = entry.fps.map { ($0 * 10).rounded() / 10 }
                writeJSON(object)
            case .plain, .auto:
                // The recording's name and error come from files: escaped, so they cannot forge a line.
                var text = "batch: \(entry.status.rawValue) \(TerminalText.escaped(entry.name))"
                if let seconds = entry.seconds { text += String(format: " (%.1f s", seconds) + (entry.fps.map { String(format: ", %.1f fps)", $0) } ?? ")") }
                if let error = entry.error { text += ": " + TerminalText.escaped(error) }
                write(style == .auto ? "\r\u{1B}[K" + text + "\n" : text + "\n")
                if style == .auto { lastPrint = .distantPast }  // redraw the bar under the line
            }
        }
        tick()
    }

    /// Prints the overall state if it is time to.
    func tick() {
        lock.withLock {
            let now = Date()
            guard now.timeIntervalSince(lastPrint) >= interval else { return }
            lastPrint = now
            emit(final: false)
        }
    }

    func finish() {
        lock.withLock { emit(final: true) }
    }

    private func emit(final: Bool) {
        let elapsed = Date().timeIntervalSince(start)
        let frames = finishedFrames + running.values.reduce(0) { $0 + $1.frames }
        let rate = elapsed > 0 ? Double(frames) / elapsed : 0
        // Share of the work done: finished recordings, plus each running one's share of its frames.
        let partial = running.values.reduce(0.0) { sum, state in
            sum + (state.total.map { $0 > 0 ? min(1, Double(state.frames) / Double($0)) : 0 } ?? 0)
        }
        let fraction = toRender > 0 ? (Double(done + failed) + partial) / Double(toRender) : 1
        let eta = fraction > 0 && !final ? elapsed * (1 - fraction) / fraction : nil
        switch style {
        case .none:
            return
        case .json:
            var object: [String: Any] = [
                "event": final ? "done" : "progress", "label": "batch", "recordings": toRender + skipped,
                "done": done, "failed": failed, "skipped": skipped, "running": running.count, "frames": frames,
                "elapsed": (elapsed * 1000).rounded() / 1000, "rate": (rate * 10).rounded() / 10,
            ]
            if let eta { object["eta"] = (eta * 10).rounded() / 10 }
            writeJSON(object)
        case .plain:
            write(line(frames: frames, rate: rate, eta: eta, final: final) + "\n")
        case .auto:
            let width = 30
            // `fraction` is finite (counts over a count > 0), so the conversion cannot trap.
            let filled = min(width, max(0, Int((fraction * Double(width)).rounded(.down))))
            let bar = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
            write("\r\u{1B}[K" + bar + line(frames: frames, rate: rate, eta: eta, final: final) + (final ? "\n" : ""))
        }
    }

    private func line(frames: Int, rate: Double, eta: Double?, final: Bool) -> String {
        var text = "batch: \(done + failed)/\(toRender) finished (\(failed) failed)"
        if !final { text += ", \(running.count) running" }
        if skipped > 0 { text += ", \(skipped) skipped" }
        text += ", \(frames) frames, " + String(format: "%.1f", rate) + " frames/s"
        if final { text += ", done in " + ProgressReporter.clock(Date().timeIntervalSince(start)) }
        else if let eta { text += ", ETA " + ProgressReporter.clock(eta) }
        return text
    }

    private func writeJSON(_ object: [String: Any]) {
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
            Console.write(String(decoding: data, as: UTF8.self) + "\n")
        }
    }

    private func write(_ text: String) {
        Console.write(text)
    }
}
