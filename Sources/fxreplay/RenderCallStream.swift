import Foundation
import ReplayKitless

/// `render CALL --stream ID`: the call opened, the stream's picture file chosen, and the clock
/// `--pose-time call|epoch` reads pose times on. `nil` for a plain recording.
struct CallStreamChoice {
    let opened: OpenedCall
    let stream: CallStream
    let track: CallTrack
    /// ``PoseSettings/clockOffset`` for `--pose-time call|epoch`; `nil` for the other choices.
    let poseClockOffset: Double?

    /// - Throws: `ReplayError.usage` for a call without `--stream`, `--stream` without a call, or
    ///   `--pose-time call|epoch` without a call (or `epoch` for a call without one).
    init?(input: String, stream key: String?, poseTime: PoseTimeChoice) throws {
        guard OpenedCall.isCall(input) else {
            if key != nil {
                throw ReplayError.usage("--stream goes with a call as INPUT (an archive .zip, its folder or manifest .json, or a call manifest); \(input) is a recording")
            }
            return nil
        }
        guard let key else {
            throw ReplayError.usage("\(input) is a call: name the stream to render with --stream ID|NAME (fxreplay probe \(input) lists them), or compose the whole call")
        }
        let opened = try OpenedCall.open(PathArgument.input(input))
        let (stream, track) = try opened.call.renderedTrack(ofStream: key)
        if let clock = CallPoseClock(rawValue: poseTime.rawValue) {
            poseClockOffset = try opened.call.poseClockOffset(clock, track: track)
        } else {
            poseClockOffset = nil
        }
        self.opened = opened
        self.stream = stream
        self.track = track
    }

    /// The input a render report names: the call, the stream and its file as the manifest names it.
    var reportedInput: String { "\(opened.call.source) --stream \(stream.id): \(track.name)" }

    /// Says on stderr which file is rendered, and where the stream's sound goes when it is in another file.
    func printChoice() {
        printError("fxreplay: stream \(stream.id) (\(stream.name)): rendering \(track.name), call time "
                   + String(format: "%.3f–%.3f s", track.start, track.stop))
        let elsewhere = stream.tracks.filter { $0.hasAudio && !$0.hasVideo }.map(\.name)
        if !elsewhere.isEmpty {
            printWarnings(["stream \(stream.id)'s sound in \(elsewhere.joined(separator: ", ")) is not in this render (render renders one file; compose mixes every track)"])
        }
    }
}
