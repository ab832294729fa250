import Dispatch
import Foundation

/// Splits per-row work of one picture over several threads.
///
/// The kernels that use it compute each output row from inputs no other band writes, so the
/// result is the same bytes whatever the number of workers: `workers: 1` is the reference
/// that the parallel runs are tested against.
enum RowBands {
    /// Calls `body` once per band of consecutive rows in `0..<rows`, on up to `workers` threads.
    /// Bands hold at least `minimumRows` rows so that small pictures are not split at a loss.
    static func forEach(rows: Int, workers: Int, minimumRows: Int = 16, _ body: (Range<Int>) -> Void) {
        forEachBand(rows: rows, workers: workers, minimumRows: minimumRows) { _, range in body(range) }
    }

    /// The same, also passing each band's number in `0..<count(…)`, for kernels that keep a
    /// scratch line per band.
    static func forEachBand(rows: Int, workers: Int, minimumRows: Int = 16, _ body: (_ band: Int, _ rows: Range<Int>) -> Void) {
        let bands = count(rows: rows, workers: workers, minimumRows: minimumRows)
        guard bands > 1 else {
            if rows > 0 { body(0, 0..<rows) }
            return
        }
        withoutActuallyEscaping(body) { body in
            // Bands write disjoint rows (the callers' contract), so sharing the closure is safe.
            nonisolated(unsafe) let work = body
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                work(band, rows * band / bands ..< rows * (band + 1) / bands)
            }
        }
    }

    /// How many bands `forEach` cuts `rows` into.
    static func count(rows: Int, workers: Int, minimumRows: Int = 16) -> Int {
        max(1, min(workers, rows / max(1, minimumRows)))
    }

    /// The number of cores this process may use, the default worker count.
    static var availableCores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
}
