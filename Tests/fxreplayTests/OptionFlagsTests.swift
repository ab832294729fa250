import Foundation
import Testing

/// The library's errors name option properties (`ReplayError.options`); the command line shows
/// its flags instead through `OptionFlags`. Every property the library's sources name in an
/// error must have its flag there, or a person at the command line would read a Swift name.
@Suite struct OptionFlagsTests {
    /// Each quoted name in an `options: [...]` list of the library's sources, and each property
    /// named between backticks in the code's strings (warnings carry no option list).
    private func propertiesNamedByTheLibrary() throws -> (inLists: Set<String>, inWarnings: Set<String>) {
        let sources = repositoryRoot.appendingPathComponent("Sources/ReplayKitless")
        var names: Set<String> = [], named: Set<String> = []
        let lists = try Regex(#"options: \[([^\]]*)\]"#)
        let quoted = try Regex(#""([A-Za-z.]+)""#)
        let backticked = try Regex(#"`([A-Z][A-Za-z]+\.[a-z][A-Za-z.]*)`"#)
        for case let file as URL in FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)! where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for list in text.matches(of: lists) {
                for name in String(text[list.range]).matches(of: quoted) { names.insert(String(name.output[1].substring!)) }
            }
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains("\"") {
                for name in line.matches(of: backticked) { named.insert(String(name.output[1].substring!)) }
            }
        }
        return (names, named)
    }

    @Test func everyPropertyAnErrorNamesHasItsFlag() throws {
        let (names, named) = try propertiesNamedByTheLibrary()
        // The scan finds the lists and the warnings (a broken pattern would find nothing and pass).
        #expect(names.contains("EncoderSettings.crf") && names.contains("PoseOverrides.fovY") && names.count > 30, "\(names.sorted())")
        #expect(named.contains("EncoderSettings.bitrate") && named.contains("PoseSettings.absoluteTime"), "\(named.sorted())")
        let table = try String(contentsOf: repositoryRoot.appendingPathComponent("Sources/fxreplay/OptionFlags.swift"), encoding: .utf8)
        for name in names.union(named).sorted() {
            #expect(table.contains("\"\(name)\": \"--"), "\(name) has no flag in OptionFlags")
        }
    }

    /// A report's warning, written by the library in option properties, reaches the terminal and
    /// the JSON report in flags.
    @Test func warningsShowTheFlags() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fxreplay-flags-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let report = directory.appendingPathComponent("report.json").path
        let run = try runFxreplay(["render", repositoryRoot.appendingPathComponent("Samples/call.mp4").path, "-o", directory.appendingPathComponent("out.mov").path,
                                   "--codec", "prores", "--crf", "20", "--to", "0.2", "--report", report])
        let expected = "prores ignores --crf and --bitrate: its profile (--preset) sets the quality"
        #expect(run.status == 0 && run.stderr.contains("fxreplay: warning: " + expected) && !run.stderr.contains("EncoderSettings"), "\(run.stderr)")
        let json = try String(contentsOfFile: report, encoding: .utf8)
        #expect(json.contains(expected) && !json.contains("EncoderSettings"), "\(json)")
    }

    @Test func theCommandLineShowsTheFlagsItWasGiven() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fxreplay-flags-\(UUID().uuidString)").path
        let run = try runFxreplay(["sample", "-o", directory, "--seconds", "0"])
        #expect(run.status == 2 && run.stderr.contains("--seconds 0.0: must be between 1 and 600") && !run.stderr.contains("SampleSettings"),
                "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory))
    }
}
