import ArgumentParser
import ReplayKitless

/// `--stream ID|NAME` for the commands that read one stream of a call as their recording (`track`,
/// `qa latency`, `qa overlay`; formats.md §8, §9): the stream's picture file, placed on the call's clock.
struct CallStreamOption: ParsableArguments {
    @Option(help: ArgumentHelp("With a call as INPUT (archive .zip, its folder or manifest, a call manifest): the stream to read, by id or name.",
                               valueName: "ID|NAME"))
    var stream: String?

    func validate() throws {
        if stream == "" { throw ValidationError("--stream: empty stream id") }
    }

    /// The chosen stream of the call `input`, or `nil` for a plain recording (see ``CallStreamChoice``).
    func choice(input: String, poseTime: PoseTimeChoice = .relative) throws -> CallStreamChoice? {
        try CallStreamChoice(input: input, stream: stream, poseTime: poseTime)
    }
}

extension CallStreamChoice {
    /// Where the chosen file sits on the call's clock: scenes in call or Unix time are placed by it.
    var placement: StreamPlacement { opened.call.placement(of: track) }
}
