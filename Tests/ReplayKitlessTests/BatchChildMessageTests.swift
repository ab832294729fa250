import Testing
@testable import ReplayKitless

/// The error column of a batch report quotes what the failed render said, not the hint after it.
@Suite struct BatchChildMessageTests {
    func error(of lines: [String]) -> String? {
        var messages = ChildMessages()
        lines.forEach { messages.note($0) }
        return messages.error
    }

    @Test func theErrorLineIsQuotedNotTheHelpHint() {
        // The argument parser's report of a bad option: error, usage summary, help hint.
        #expect(error(of: ["Error: --crf must be between 0 and 63", "Usage: fxreplay render [<options>] <input> --output <output>",
                           "See 'fxreplay render --help' for more information."]) == "--crf must be between 0 and 63")
        // fxreplay's own error after warnings.
        #expect(error(of: ["fxreplay: warning: the input's yuv444p pictures are processed as 8-bit 4:2:0",
                           "fxreplay: in.mp4: frame 12: cannot decode"]) == "in.mp4: frame 12: cannot decode")
        // Warnings alone, then something else (a crash): the last line.
        #expect(error(of: ["fxreplay: warning: something", "Fatal error: Index out of range"]) == "Fatal error: Index out of range")
        #expect(error(of: []) == nil)
    }
}
