/// What a composition shows, worked out from the call, the options and who speaks when, before
/// any media file is opened: the picture's size, the frames, and for every stretch of frames who
/// is shown and in which tiles. ``Composer`` only carries it out, so the plan is tested without
/// FFmpeg (`ComposePlanTests`).
package struct ComposePlan: Sendable {
    /// The composed picture: the options' size rounded down to even sides (4:2:0).
    package let size: PictureSize
    /// Output frames: frame `k` shows call time `from + k / fps`.
    package let frameCount: Int
    /// The call's participants with video, in grid order: what ``Scene/shown`` indexes.
    package let participants: [CallParticipant]
    /// The stretches of frames that keep one arrangement, by first frame; the first starts at 0.
    package let scenes: [Scene]
    /// Times the set of participants shown changes (a new focus alone is no change).
    package let layoutChanges: Int
    /// What the user should know before the first frame (a size rounded).
    package let warnings: [String]
    /// Who speaks when, as measured for the plan.
    package let activity: SpeakerActivity?

    /// From ``firstFrame`` until the next scene: who is shown and where.
    package struct Scene: Sendable, Equatable {
        package var firstFrame: Int
        /// The participants shown (indices into ``ComposePlan/participants``, grid order).
        package var shown: [Int]
        /// The layout these tiles come from: the options' own, or `focus` on whoever the
        /// speech rule or a screen share puts first.
        package var arrangement: CallLayout
        /// Tiles in drawing order; each tile's `participant` indexes ``shown``.
        package var tiles: [CallLayout.Tile]
    }

    /// The plan of `options`; `activity` measures who speaks when, for the `speaker` layout
    /// (without it that layout keeps its first participant large), called once the options
    /// have passed their checks (its decoding is bounded by them).
    /// - Throws: usage for a rate or times out of range, or a `--focus` no participant answers to;
    ///   bad input for a layout file naming a stream the call lacks; what `activity` throws.
    package init(options: ComposeOptions, activity measure: () throws(ReplayError) -> SpeakerActivity?) throws(ReplayError) {
        guard options.fps > 0, options.fps <= 240 else { throw .usage("`ComposeOptions.fps` \(options.fps): must be 1 to 240", options: ["ComposeOptions.fps"]) }
        try options.checkTimes()
        size = PictureSize(width: max(2, options.size.width & ~1), height: max(2, options.size.height & ~1))
        frameCount = options.frameCount
        let participants = CallParticipant.withVideo(in: options.call)
        self.participants = participants
        try Self.check(layout: options.layout, participants: participants, call: options.call)
        warnings = size == options.size ? [] : ["\(options.size) is rounded to \(size): 4:2:0 needs an even width and height"]
        activity = try measure()
        let focus = Self.focusTimeline(options: options, activity: activity, participants: participants)
        var scenes: [Scene] = []
        var changes = 0
        for k in Self.framesWhereSomethingMayChange(options: options, focus: focus, frameCount: frameCount) {
            let t = options.callTime(ofFrame: k)
            let shown = participants.indices.filter { participants[$0].isShown(at: t) }
            let arrangement = focus?.focus(at: t, shown: shown, participants: participants)
                .map { CallLayout.focus(participants[$0].streams[0].id) } ?? options.layout
            if let last = scenes.last, last.shown == shown, last.arrangement == arrangement { continue }
            if let last = scenes.last, last.shown != shown { changes += 1 }
            let tiles = arrangement.tiles(for: shown.map { participants[$0].keys }, width: size.width, height: size.height,
                                          pictures: shown.map { participants[$0].shownSize(at: t) })
            scenes.append(Scene(firstFrame: k, shown: shown, arrangement: arrangement, tiles: tiles))
        }
        self.scenes = scenes
        layoutChanges = changes
    }

    /// The index into ``scenes`` of the scene frame `k` belongs to.
    package func sceneIndex(ofFrame k: Int) -> Int {
        var low = 0, high = scenes.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if scenes[middle].firstFrame <= k { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Frame 0 and the frames around each moment something shown can change (a track starting or
    /// stopping, the speech rule moving the focus), in order: between two of them every frame
    /// shows what the earlier one shows, so a call of hours is planned from a few frames.
    private static func framesWhereSomethingMayChange(options: ComposeOptions, focus: FocusTimeline?, frameCount: Int) -> [Int] {
        guard frameCount > 0 else { return [] }
        var moments = options.call.streams.flatMap { $0.tracks.flatMap { [$0.start, $0.stop] } }
        moments += focus?.moves.dropFirst().map { Double($0.window) * SpeakerActivity.window } ?? []
        var frames: Set<Int> = [0]
        let fps = Double(options.fps)
        for moment in moments where moment.isFinite {
            // The frames on either side of the moment, widened by one for rounding.
            let nearest = ((moment - options.from) * fps).rounded(.down)
            guard nearest > -2, nearest < Double(frameCount) + 1 else { continue }
            for k in Int(nearest) - 1...Int(nearest) + 2 where k >= 0 && k < frameCount { frames.insert(k) }
        }
        return frames.sorted()
    }

    /// `--focus` names a participant with video; a layout file's tiles name streams of the call.
    private static func check(layout: CallLayout, participants: [CallParticipant], call: Call) throws(ReplayError) {
        let known = call.streams.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
        switch layout {
        case .focus(let key), .pip(let key):
            guard participants.contains(where: { $0.keys.contains(key) }) else {
                throw .usage("`CallLayout.focus` \(key): no participant with video has that id or name; the call has \(known)", options: ["CallLayout.focus"])
            }
        case .custom(let custom):
            for (index, tile) in custom.tiles.enumerated() where !call.streams.contains(where: { $0.id == tile.stream || $0.name == tile.stream }) {
                throw .badInput(file: custom.file.string, line: tile.line, field: "tiles[\(index)].stream",
                                "no stream '\(tile.stream)'; the call has \(known)")
            }
        case .grid, .speaker:
            break
        }
    }

    /// `speaker`: the speech rule over `activity`; `focus`: its participant, but a screen share
    /// first while active, if the call has one and ``ComposeOptions/screenShareTakesFocus``.
    private static func focusTimeline(options: ComposeOptions, activity: SpeakerActivity?,
                                      participants: [CallParticipant]) -> FocusTimeline? {
        switch options.layout {
        case .speaker:
            return activity.map { FocusTimeline(speaker: $0, participants: participants, from: options.from) }
        case .focus(let key) where options.screenShareTakesFocus && options.call.streams.contains(where: { $0.videoType == "screen" }):
            return participants.firstIndex { $0.keys.contains(key) }.map { FocusTimeline(fixed: $0, screensFirst: true) }
        default:
            return nil
        }
    }
}
