import Foundation

/// What `fxreplay sample` is asked to make.
public struct SampleSettings: Sendable, Equatable {
    /// Picture size (even width and height, at least 64×64).
    public var size: PictureSize
    /// Length of the call in seconds.
    public var seconds: Double
    /// Seeds the timing jitter, the dropped frames, the hand shake and the room tone.
    public var seed: UInt64

    /// The settings of `fxreplay sample` without options: 640×360, 4 seconds, seed 1.
    public init(size: PictureSize = PictureSize(width: 640, height: 360), seconds: Double = 4, seed: UInt64 = 1) {
        self.size = size
        self.seconds = seconds
        self.seed = seed
    }

    /// Throws `usage` for settings the generator cannot honour.
    public func validate() throws(ReplayError) {
        guard size.width >= 64, size.height >= 64, size.width.isMultiple(of: 2), size.height.isMultiple(of: 2),
              size.width <= 3840, size.height <= 2160 else {
            throw .usage("`SampleSettings.size` \(size): needs even dimensions from 64x64 to 3840x2160", options: ["SampleSettings.size"])
        }
        guard seconds.isFinite, seconds >= 1, seconds <= 600 else {
            throw .usage("`SampleSettings.seconds` \(seconds): must be between 1 and 600", options: ["SampleSettings.seconds"])
        }
    }
}

/// The truth behind a synthetic recorded call: a room (floor grid, back wall, coloured boxes on
/// the floor) filmed by a hand-held camera, a person in front of it, and an A/V sync probe.
///
/// Everything is a pure function of the settings. Times are whole milliseconds so that MP4
/// (1/90000), Matroska (1/1000) and 48 kHz audio all hold them exactly. Poses are rounded to
/// float32 first and the picture is rendered from the rounded values, so the pose32 records in
/// the SEI and the sidecars describe exactly the camera that drew each frame.
package struct SampleScene: Sendable {
    /// An axis-aligned box standing on the floor.
    package struct Box: Sendable, Equatable {
        package var id: String
        package var center: SIMD3<Double>
        /// Edge lengths along x, y and z, metres.
        package var size: SIMD3<Double>
        package var color: RGBAColor

        /// The four top corners: front-left, front-right, back-right, back-left (front = +z, towards the camera).
        package var topCorners: [SIMD3<Double>] {
            let h = size / 2
            let top = center.y + h.y
            return [SIMD3(center.x - h.x, top, center.z + h.z), SIMD3(center.x + h.x, top, center.z + h.z),
                    SIMD3(center.x + h.x, top, center.z - h.z), SIMD3(center.x - h.x, top, center.z - h.z)]
        }

        /// The centre of the face towards +z.
        package var frontFaceCenter: SIMD3<Double> { SIMD3(center.x, center.y, center.z + size.z / 2) }
    }

    /// One video frame of the call.
    package struct FrameInfo: Sendable, Equatable {
        /// 0-based presentation index.
        package var index: Int
        /// Presentation time in whole milliseconds of stream time (the first frame is at 1000).
        package var milliseconds: Int64
        /// How long it is shown, milliseconds.
        package var durationMilliseconds: Int64
        /// The camera that drew it (float32 values, as stored).
        package var pose32: Pose32
        /// The white square is shown and the beep starts at this frame's time.
        package var flash: Bool
    }

    /// Frames per second the phone aimed for (timestamps jitter around it and some frames are missing).
    package static let nominalRate = 30
    /// Stream time of the first frame, milliseconds (a recording that does not start at 0).
    package static let startMilliseconds: Int64 = 1000
    /// Lens of the phone camera.
    package static let fovY = 55.0
    package static let zNear = 0.01
    /// The A/V sync probe: a 1 kHz beep of 100 ms from each flash frame's presentation time.
    package static let beepFrequency = 1000.0
    package static let beepSeconds = 0.1
    /// The boxes on the floor, in metres (fixed: only timing, shake and noise depend on the seed).
    package static let boxes: [Box] = [
        Box(id: "red", center: [-0.55, 0.2, -0.35], size: [0.4, 0.4, 0.4], color: RGBAColor(red: 214, green: 64, blue: 48)),
        Box(id: "blue", center: [0.3, 0.25, -0.75], size: [0.6, 0.5, 0.4], color: RGBAColor(red: 46, green: 110, blue: 214)),
        Box(id: "green", center: [-0.05, 0.125, 0.25], size: [0.3, 0.25, 0.3], color: RGBAColor(red: 60, green: 170, blue: 85)),
        Box(id: "orange", center: [-1.15, 0.35, -1.25], size: [0.3, 0.7, 0.3], color: RGBAColor(red: 240, green: 150, blue: 40)),
    ]

    package let settings: SampleSettings
    package let frames: [FrameInfo]
    /// Nominal 30 fps slots that were dropped (no frame was recorded for them).
    package let droppedSlots: [Int]
    /// The flash square, pixels: its top-left corner and side (even numbers).
    package let flashSquare: (x: Int, y: Int, size: Int)

    /// The call these settings describe (its frames, drops, flashes and camera path).
    package init(settings: SampleSettings) {
        self.settings = settings
        var random = SampleRandom(seed: settings.seed)
        let slots = Int((settings.seconds * Double(Self.nominalRate)).rounded())
        // Flashes near 0.5 s, 1.5 s, …, at least 0.3 s before the end; those slots are never dropped.
        let flashSlots = Set(stride(from: 0.5, to: settings.seconds - 0.3, by: 1).map { Int(($0 * Double(Self.nominalRate)).rounded()) })
        var dropped: Set<Int> = []
        let dropCount = max(2, slots / 25)
        while dropped.count < dropCount {
            let slot = 2 + Int(random.next() % UInt64(max(1, slots - 4)))
            if !flashSlots.contains(slot), !dropped.contains(slot - 1), !dropped.contains(slot + 1) { dropped.insert(slot) }
        }
        droppedSlots = dropped.sorted()
        let path = CameraPath(random: &random)
        var times: [(slot: Int, ms: Int64)] = []
        for slot in 0..<slots where !dropped.contains(slot) {
            // ±4 ms of jitter around the nominal time, none on the first frame.
            let jitter = slot == 0 ? 0 : Int64(random.next() % 9) - 4
            times.append((slot, Self.startMilliseconds + Int64((Double(slot) * 1000 / Double(Self.nominalRate)).rounded()) + jitter))
        }
        let nominalMilliseconds = Int64((1000 / Double(Self.nominalRate)).rounded())
        frames = times.enumerated().map { index, entry in
            let next = index + 1 < times.count ? times[index + 1].ms : entry.ms + nominalMilliseconds
            let seconds = Double(entry.ms - Self.startMilliseconds) / 1000
            return FrameInfo(index: index, milliseconds: entry.ms, durationMilliseconds: next - entry.ms,
                             pose32: path.pose32(at: seconds), flash: flashSlots.contains(entry.slot))
        }
        // Even position and size: the square covers whole 4:2:0 chroma samples.
        let side = max(8, settings.size.height / 10) & ~1
        flashSquare = ((settings.size.width / 25) & ~1, (settings.size.height / 16) & ~1, side)
    }

    /// Seconds of frame `frame` relative to the first frame (the time base of sidecars and scenes).
    package func seconds(of frame: FrameInfo) -> Double {
        Double(frame.milliseconds - Self.startMilliseconds) / 1000
    }

    /// The camera of `frame` as the contract's maths sees it (formats.md §2).
    package func camera(of frame: FrameInfo) -> Camera {
        Camera(pose: PoseSample(key: .frame(frame.index), pose32: frame.pose32).pose,
               width: settings.size.width, height: settings.size.height)
    }

    /// The tap of the sample scene: the blue box's front face centre as the frame nearest 1 s
    /// (or the middle frame of a shorter call) saw it.
    package var tap: (frame: FrameInfo, x: Double, y: Double, depth: Double, point: SIMD3<Double>) {
        let target = min(1.0, settings.seconds / 2)
        let frame = frames.min { abs(seconds(of: $0) - target) < abs(seconds(of: $1) - target) } ?? frames[0]
        let point = Self.boxes[1].frontFaceCenter
        let projection = camera(of: frame).project(point)
        return (frame, projection.x, projection.y, projection.depth, point)
    }
}

/// A phone held by someone walking slowly around the boxes: a smooth path looking at the middle
/// of the boxes, plus a few small fast wobbles of the hand and a slow roll.
struct CameraPath {
    /// Phases (radians) of the slow motions and (amplitude, frequency, phase) of the shake terms.
    private let phases: [Double]
    private let shake: [(amplitude: Double, frequency: Double, phase: Double)]

    init(random: inout SampleRandom) {
        phases = (0..<6).map { _ in random.unit() * 2 * .pi }
        shake = [(0.0030, 2.1), (0.0020, 4.7), (0.0012, 8.3), (0.0025, 1.3), (0.0015, 5.9), (0.0010, 9.7)].map {
            ($0.0, $0.1, random.unit() * 2 * .pi)
        }
    }

    private func wave(_ seconds: Double, period: Double, phase: Int) -> Double {
        sin(2 * .pi * seconds / period + phases[phase])
    }

    private func shake(_ seconds: Double, terms: Range<Int>) -> Double {
        terms.reduce(0) { sum, k in sum + shake[k].amplitude * sin(2 * .pi * shake[k].frequency * seconds + shake[k].phase) }
    }

    /// The pose at `seconds` after the first frame, rounded to float32 as a phone would send it.
    func pose32(at seconds: Double) -> Pose32 {
        let position = SIMD3(0.3 * wave(seconds, period: 9, phase: 0),
                             1.2 + 0.04 * wave(seconds, period: 4.3, phase: 1),
                             1.75 + 0.12 * wave(seconds, period: 11, phase: 2))
        let target = SIMD3(0.3 + 0.25 * wave(seconds, period: 5, phase: 3), 0.15 + 0.05 * wave(seconds, period: 3.7, phase: 5), -0.45)
        let direction = target - position
        let forward = direction / (direction * direction).sum().squareRoot()
        // The camera looks down −Z: R·(0, 0, −1) = (−cos p·sin y, sin p, −cos p·cos y) for roll 0.
        let pitch = asin(forward.y) + shake(seconds, terms: 0..<3)
        let yaw = atan2(-forward.x, -forward.z) + shake(seconds, terms: 3..<6)
        let roll = 0.02 * wave(seconds, period: 5, phase: 4) + 0.5 * shake(seconds, terms: 0..<2)
        return Pose32(position: SIMD3(Float(position.x), Float(position.y), Float(position.z)),
                      euler: SIMD3(Float(pitch), Float(yaw), Float(roll)),
                      zNear: Float(SampleScene.zNear), fovY: Float(SampleScene.fovY))
    }
}

/// SplitMix64: a small, fast generator whose sequence is fixed by its seed on every platform.
struct SampleRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
