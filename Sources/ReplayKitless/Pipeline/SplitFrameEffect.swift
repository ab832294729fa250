/// An effect whose work on a frame splits in two, so that several frames can be processed at once
/// (`RenderOptions.processThreads`):
///
/// - ``sequence(_:)`` sees the frames one at a time in presentation order: whatever depends on the
///   frames before (reading the mask video, smoothing masks over time, advancing a background
///   video) happens there, and leaves what the frame needs in its ``EffectFrame`` slot;
/// - ``process(_:_:lane:)`` depends on that frame alone and runs on several frames at once, each on
///   a *lane* (a thread's scratch memory: blur buffers, the rasterizer's caches).
///
/// Both steps together compute exactly what one thread would, so the output is the same bytes
/// whatever the number of threads. ``FrameEffect/apply(to:at:)`` runs both on slot and lane 0.
protocol SplitFrameEffect: FrameEffect {
    /// Makes room for `slots` frames in flight and `lanes` threads working at once; kernels inside
    /// one frame may cut their rows into up to `bands` bands (``RowBands``). Called before the
    /// first frame; the effect is made with one slot, one lane and one band.
    func reserve(slots: Int, lanes: Int, bands: Int) throws(ReplayError)
    /// The in-order step for `frame` (one frame at a time, in presentation order).
    func sequence(_ frame: EffectFrame) throws(ReplayError)
    /// The per-frame step: `image` is `frame`'s picture. Different frames run at once on different
    /// lanes; a lane and a slot only ever hold one frame at a time.
    func process(_ image: YUVImage, _ frame: EffectFrame, lane: Int) throws(ReplayError)
    /// Whether ``process(_:_:lane:)`` may run on several frames at once with these settings.
    var processesFramesAtOnce: Bool { get }
}

extension SplitFrameEffect {
    var processesFramesAtOnce: Bool { true }
}

/// An effect that only draws over the picture (annotations and their labels): its in-order step
/// does nothing, and its per-frame step needs only the frame's time (and mask), so it may run on a
/// picture already scaled and cropped for its place, told where that picture lies in the whole
/// (``EffectFrame/window``). A composed call draws these on each tile's picture at its final
/// size, on the composing thread (``TrackEffects``).
protocol DrawingEffect: SplitFrameEffect {
    /// Whether it reads the frame's mask (``EffectFrame/mask``), which must then travel with the picture.
    var needsMask: Bool { get }
}

/// How many lanes the process stage starts with; ``FramesInFlight`` adds more only while the lanes
/// hold the render back.
enum StartingLanes {
    /// For masks, backgrounds and blur. One lane leaves the cores idle between frames: a blurred
    /// background at ultrafast on 2 cores ran 3 % slower on one lane than on two (7 interleaved
    /// pairs, medians 4.18 vs 4.05 s), though that lane worked only two thirds of the time, too
    /// little for lanes to be added.
    static let heavyEffects = 2

    /// For `effects`, of at most `lanes`: one when they all only draw (annotations: under a
    /// millisecond a 720p frame, less than decoding or encoding it), else ``heavyEffects``.
    static func `for`(_ effects: [any SplitFrameEffect], of lanes: Int) -> Int {
        min(lanes, effects.allSatisfy { $0 is any DrawingEffect } ? 1 : heavyEffects)
    }
}

/// The part of a whole picture that a picture shows, scaled to its own size: a call's tile shows
/// the crop of the participant's picture that its fit keeps (display orientation).
struct PictureWindow: Sendable, Equatable {
    /// The whole picture's size, display orientation.
    var whole: PictureSize
    /// The part shown, in the whole picture's pixels.
    var shown: PixelRect
}

/// One frame on its way through the split effects: when it is shown, which slot of the effects'
/// per-frame memory it uses, and what an earlier effect left for later ones.
final class EffectFrame: @unchecked Sendable {
    /// Which of the effects' per-frame memories this frame uses, until it is handed on.
    let slot: Int
    var time: FrameTime
    /// The size of the pictures the effects see.
    var size: PictureSize
    /// The frame's shaped mask (background replacement), which annotations may be drawn behind;
    /// in slot memory that stays the frame's until it is handed on.
    var mask: Plane?
    /// The part of the whole picture the effects' picture shows, when it is not the whole at the
    /// effects' size (a call's tile, ``DrawingEffect``).
    var window: PictureWindow?

    init(slot: Int, time: FrameTime, size: PictureSize) {
        self.slot = slot
        self.time = time
        self.size = size
    }
}

/// Per-lane (or per-slot) state of an effect: one element per lane, made as lanes are reserved.
/// The pipeline guarantees a lane is used by one thread at a time, so each element needs no lock.
struct LaneStates<State>: @unchecked Sendable {
    private(set) var states: [State]
    private let make: () throws(ReplayError) -> State

    /// States made by `make`, one made now.
    init(_ make: @escaping () -> State) {
        self.make = make
        states = [make()]
    }

    /// The same with states whose making may fail (loading a font, say).
    init(throwing make: @escaping () throws(ReplayError) -> State) throws(ReplayError) {
        self.make = make
        states = [try make()]
    }

    /// Grows to at least `count` states (never shrinks: the states already made stay valid).
    mutating func reserve(_ count: Int) throws(ReplayError) {
        while states.count < count { states.append(try make()) }
    }

    subscript(lane: Int) -> State { states[lane] }
}
