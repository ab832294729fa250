/// What one ``FrameSource`` has read so far (pictures, size changes, pictures dropped for their
/// timestamps, every damage with its stream and time, whether it ends cut short) and how much
/// damage it tolerates. Shared: the decoding thread counts, the report reads.
final class SourceCounters: Sendable {
    /// A snapshot of the counts.
    struct Counts: Sendable {
        /// Pictures the decoder gave (before any was dropped for its timestamp).
        var decoded = 0
        var resolutionChanges = 0
        /// Pictures dropped because their timestamp did not increase.
        var badTimestamps = 0
        /// Each damage counted, in the order met.
        var damage: [RenderReport.Damage] = []
        /// Why the stream looks cut short (its pictures end well before its file says), once read to its end.
        var cutShort: String?
        fileprivate var lastSize: PictureSize?
        fileprivate var cutShortCounted = false

        /// Damaged packets, pictures and stretches: one per ``damage`` entry.
        var decodeErrors: Int { damage.count }
    }

    /// The damage tolerated before reading fails (`--max-decode-errors`; 0 with `--strict`); `nil`: any.
    let limit: Int?
    /// What a failure past the limit starts with, naming the stream where the damage messages do not
    /// (compose: the call's stream and participant); empty for render, whose input is the stream.
    let subject: String
    private let state = Locked(Counts())

    init(limit: Int? = nil, subject: String = "") {
        self.limit = limit
        self.subject = subject
    }

    var counts: Counts { state.withLock { $0 } }

    /// Counts one decoded picture and whether its size changed.
    func noteDecoded(width: Int, height: Int) {
        state.withLock { counts in
            counts.decoded += 1
            let size = PictureSize(width: width, height: height)
            if let last = counts.lastSize, last != size { counts.resolutionChanges += 1 }
            counts.lastSize = size
        }
    }

    func noteBadTimestamp() { state.withLock { $0.badTimestamps += 1 } }

    /// Counts one damage; past ``limit`` reading fails with it. With `warns` the first is said at
    /// once (the report lists them all later).
    func note(_ damage: RenderReport.Damage, warns: Bool) throws(ReplayError) {
        let (count, frames) = state.withLock { counts in
            counts.damage.append(damage)
            return (counts.damage.count, counts.decoded)
        }
        let place = "\(subject)\(damage.message) (after frame \(frames))"
        if let limit, count > limit { throw tooDamaged(place, limit: limit) }
        if warns && count == 1 { ReplayLog.warning("\(place), continuing") }
    }

    /// Notes that the stream, read to its end, looks cut short (`warning` says why).
    func noteCutShort(_ warning: String) { state.withLock { $0.cutShort = warning } }

    /// Counts the stream's being cut short (``Counts/cutShort``) as one more damage against
    /// ``limit``, once, and returns the damage counted: a file cut off mid-cluster, whose
    /// demuxer error at the end was counted already, is not counted twice. `file` names it.
    @discardableResult
    func countCutShort(of file: String) throws(ReplayError) -> Int {
        let (total, newlyCounted, cutShort) = state.withLock { counts in
            let cutOffCounted = counts.damage.last.map { $0.kind == .demuxer && $0.endSeconds == nil } ?? false
            let newlyCounted = counts.cutShort != nil && !cutOffCounted && !counts.cutShortCounted
            if newlyCounted { counts.cutShortCounted = true }
            return (counts.decodeErrors + (counts.cutShortCounted ? 1 : 0), newlyCounted, counts.cutShort)
        }
        if newlyCounted, let limit, total > limit, let cutShort { throw tooDamaged("\(subject)\(file): \(cutShort)", limit: limit) }
        return total
    }

    private func tooDamaged(_ place: String, limit: Int) -> ReplayError {
        .badInput(limit == 0 ? "\(place); stopping (`maxDecodeErrors` 0)" : "\(place); more than \(limit) decode errors (`maxDecodeErrors`)",
                  options: ["maxDecodeErrors"])
    }
}
