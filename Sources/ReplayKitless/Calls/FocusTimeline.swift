/// Which participant the `focus` and `speaker` layouts show large at each call time
/// (formats.md §9): a screen share while one is active (unless the focus was named), else, in
/// `speaker`, the participant the speech rule last moved to, else the fixed focus.
///
/// The speech rule, over ``SpeakerActivity``'s windows: the focus moves, at the end of a window,
/// to a participant with video shown then whose stream has been the loudest for ``holdWindows``
/// windows without a break, and never within ``gapWindows`` windows of the previous move (a
/// participant kept waiting by that moves as soon as the gap has passed, if still the loudest).
/// At the start (the composition's `from`) the focus is the first participant shown, in grid order.
package struct FocusTimeline: Sendable {
    /// Windows (1.0 s) a stream must be the loudest for before the focus moves to it.
    static let holdWindows = 10
    /// Windows (2.0 s) that must pass between two moves.
    static let gapWindows = 20

    /// Each move: from window `window` on, participant `participant` (an index into the
    /// composition's participants) has the focus; the first entry is the start.
    package let moves: [(window: Int, participant: Int)]
    /// Participants that share a screen take the focus while active.
    private let screensFirst: Bool

    /// A fixed focus (`focus` layout): `participant` throughout, screen shares first when `screensFirst`.
    package init(fixed participant: Int, screensFirst: Bool) {
        moves = [(Int.min, participant)]
        self.screensFirst = screensFirst
    }

    /// The `speaker` layout's focus from `activity`, starting at call time `from`.
    package init(speaker activity: SpeakerActivity, participants: [CallParticipant], from: Double) {
        let initial = participants.firstIndex { $0.isShown(at: from) } ?? 0
        var moves = [(window: Int.min, participant: initial)]
        var lastMove: Int?
        var streak: (stream: String?, windows: Int) = (nil, 0)
        for (offset, stream) in activity.loudest.enumerated() {
            streak = stream != nil && stream == streak.stream ? (stream, streak.windows + 1) : (stream, 1)
            let end = activity.firstWindow + offset + 1
            guard let stream, streak.windows >= Self.holdWindows,
                  let speaker = participants.firstIndex(where: { $0.streams.contains { $0.id == stream } }),
                  speaker != moves[moves.count - 1].participant,
                  participants[speaker].isShown(at: Double(end) * SpeakerActivity.window),
                  lastMove.map({ end - $0 >= Self.gapWindows }) ?? true else { continue }
            moves.append((end, speaker))
            lastMove = end
        }
        self.moves = moves
        screensFirst = true
    }

    /// The participant shown large at call time `t`, given those shown then (`shown`, indices in
    /// grid order): an active screen share first, else the timeline's, else (it is not shown)
    /// the first shown; `nil` when nobody is shown.
    package func focus(at t: Double, shown: [Int], participants: [CallParticipant]) -> Int? {
        if screensFirst, let screen = shown.first(where: { participants[$0].isSharingScreen(at: t) }) { return screen }
        let window = SpeakerActivity.windowIndex(of: t)
        let planned = moves.last { $0.window <= window }?.participant ?? moves[0].participant
        return shown.contains(planned) ? planned : shown.first
    }
}

extension CallParticipant {
    /// One of its streams is a screen share (`videoType` `screen`) with video, active at call time `t`.
    func isSharingScreen(at t: Double) -> Bool {
        streams.contains { $0.videoType == "screen" && $0.hasVideo && $0.isActive(at: t) }
    }
}
