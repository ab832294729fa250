import Testing
@testable import FxreplayBatch
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

/// The batch table stays one line per recording whatever its name and message hold.
@Suite struct BatchReportTableTests {
    @Test func controlCharactersInNamesAndErrorsAreShownEscaped() {
        var entry = BatchReport.Entry(name: "call\n1\u{1B}[2J", input: "in.mp4", output: "out.mp4", status: .failed)
        entry.error = "in.mp4: frame 3:\tcannot decode\r\nnext"
        let report = BatchReport(version: "1", shard: nil, jobs: 1, wallSeconds: 2, interruptedBy: nil, recordings: [entry])
        let lines = report.table.split(separator: "\n", omittingEmptySubsequences: false)
        // Header, the one recording, the count: no line break or escape character got through.
        #expect(lines.count == 3)
        #expect(!report.table.unicodeScalars.contains { $0.value == 0x1B || $0 == "\r" || $0 == "\t" })
        #expect(lines[1].hasPrefix(#"call\n1\u{1B}[2J  failed"#))
        #expect(lines[1].hasSuffix(#"in.mp4: frame 3:\tcannot decode\r\nnext"#))
        // Plain text is left as it is.
        #expect(TerminalText.escaped("Zoë – call 2") == "Zoë – call 2")
    }
}
