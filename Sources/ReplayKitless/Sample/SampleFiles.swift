import Foundation

/// The text files of a sample call: the annotation scene, the render job and the truth for tests.
enum SampleFiles {
    /// `annotations.json` (formats.md §6): marks on the boxes' top corners (a labelled sphere on the
    /// red box, a star spinning once every 3 s with a stem on the orange one, a labelled pin whose
    /// tip is the green box's corner) and a tap on the blue box's front face at the pixel where its
    /// centre was seen, at that point's view depth.
    ///
    /// With `epochOfTap` the scene's times are Unix times (`"time": "epoch"`, formats.md §6) and the
    /// tap happens then: the same scene for a stream of the sample's call, whose poses are logged
    /// in Unix time.
    static func annotations(_ scene: SampleScene, epochOfTap: Double? = nil) -> String {
        let boxes = SampleScene.boxes
        let tap = scene.tap
        func point(_ p: SIMD3<Double>) -> String { "[\(number(p.x)), \(number(p.y)), \(number(p.z))]" }
        let items = [
            ##"{"id": "red-corner", "anchor": {"world": \##(point(boxes[0].topCorners[0]))}, "shape": "sphere", "size": 0.08, "##
                + ##""color": "#FFD60A", "label": "Dent"}"##,
            ##"{"id": "orange-corner", "anchor": {"world": \##(point(boxes[3].topCorners[1]))}, "shape": "star", "size": 0.16, "##
                + ##""color": "#FF2D55", "spin": 0.3333333333333333, "stem": true}"##,
            ##"{"id": "green-corner", "anchor": {"world": \##(point(boxes[2].topCorners[0]))}, "shape": "pin", "size": 0.2, "##
                + ##""color": "#BF5AF2", "label": "Check here"}"##,
            ##"{"id": "tap-blue", "anchor": {"tap": {"t": \##(number(epochOfTap ?? scene.seconds(of: tap.frame))), "x": \##(number(tap.x)), "##
                + ##""y": \##(number(tap.y)), "depth": \##(number(tap.depth))}}, "shape": "sphere", "size": 0.08, "##
                + ##""color": "#34C759", "label": "Tapped"}"##,
        ]
        let clock = epochOfTap == nil ? "" : "\n  \"time\": \"epoch\","
        return "{\n  \"version\": 1,\(clock)\n  \"annotations\": [\n    " + items.joined(separator: ",\n    ") + "\n  ]\n}\n"
    }

    /// `job.yaml`: render's long options for the demo render. Its paths are the sample's file names:
    /// a job's paths are relative to the job file, so it works from any directory (`directory`, as
    /// given, only spells the example command in its comment).
    static func job(directory: FilePath) -> String {
        func path(_ name: String) -> String { TextNumber.jsonString(name) }
        return """
            # The demo render of this sample call (keys are fxreplay render's long options):
            #   fxreplay render --job \(SampleGenerator.path("job.yaml", in: directory)) \(SampleGenerator.path("call.mp4", in: directory)) -o call-rendered.mp4
            poses-from-sei: true
            annotations: \(path("annotations.json"))
            mask: \(path("call.mask.mkv"))
            background: \(path("image:background.png"))

            """
    }

    /// `scene.json`: what the sample shows, for tests and for people checking placement by hand.
    static func truth(_ scene: SampleScene, command: String) throws(ReplayError) -> Data {
        let settings = scene.settings
        let tap = scene.tap
        let truth = SceneTruth(
            version: 1, command: command, width: settings.size.width, height: settings.size.height,
            seconds: settings.seconds, seed: settings.seed,
            firstFrameTime: Double(SampleScene.startMilliseconds) / 1000, frames: scene.frames.count,
            nominalFrameRate: SampleScene.nominalRate, droppedSlots: scene.droppedSlots,
            camera: .init(fovY: SampleScene.fovY, zNear: SampleScene.zNear),
            boxes: SampleScene.boxes.map {
                .init(id: $0.id, center: $0.center.array, size: $0.size.array, color: $0.color.description,
                      topCorners: $0.topCorners.map(\.array))
            },
            flashes: scene.frames.filter(\.flash).map {
                .init(frame: $0.index, t: scene.seconds(of: $0), streamTime: Double($0.milliseconds) / 1000)
            },
            flashSquare: [scene.flashSquare.x, scene.flashSquare.y, scene.flashSquare.size, scene.flashSquare.size],
            beep: .init(frequency: SampleScene.beepFrequency, seconds: SampleScene.beepSeconds, amplitude: SampleSound.beepAmplitude),
            tap: .init(annotation: "tap-blue", box: SampleScene.boxes[1].id, face: "+z", point: tap.point.array,
                       frame: tap.frame.index, t: scene.seconds(of: tap.frame), x: tap.x, y: tap.y, depth: tap.depth),
            personEdgeRamp: SamplePersonPainter.edgeRamp)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(truth) + Data("\n".utf8)
        } catch {
            throw .processing("scene.json: \(error)")
        }
    }

    private static func number(_ value: Double) -> String { TextNumber.exact(value) }
}

/// The layout of `scene.json`.
private struct SceneTruth: Encodable {
    struct Lens: Encodable {
        var fovY: Double
        var zNear: Double
    }
    struct Box: Encodable {
        var id: String
        var center: [Double]
        var size: [Double]
        var color: String
        var topCorners: [[Double]]
    }
    struct Flash: Encodable {
        var frame: Int
        /// Seconds from the first frame.
        var t: Double
        /// Stream time, seconds: where the beep starts.
        var streamTime: Double
    }
    struct Beep: Encodable {
        var frequency: Double
        var seconds: Double
        var amplitude: Double
    }
    struct Tap: Encodable {
        var annotation: String
        var box: String
        var face: String
        var point: [Double]
        var frame: Int
        var t: Double
        var x: Double
        var y: Double
        var depth: Double
    }

    var version: Int
    var command: String
    var width: Int
    var height: Int
    var seconds: Double
    var seed: UInt64
    var firstFrameTime: Double
    var frames: Int
    var nominalFrameRate: Int
    var droppedSlots: [Int]
    var camera: Lens
    var boxes: [Box]
    var flashes: [Flash]
    /// x, y, width, height in pixels; part of the mask's foreground so it survives background replacement.
    var flashSquare: [Int]
    var beep: Beep
    var tap: Tap
    var personEdgeRamp: Double
}

private extension SIMD3 where Scalar == Double {
    var array: [Double] { [x, y, z] }
}
