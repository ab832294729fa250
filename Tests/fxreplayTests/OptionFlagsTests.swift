import Foundation
import Testing

/// The library's errors name option properties (`ReplayError.options`); the command line shows
/// its flags instead through `OptionFlags`. Every property the library's sources name in an
/// error must have its flag there, or a person at the command line would read a Swift name.
@Suite struct OptionFlagsTests {
    /// Each quoted name in an `options: [...]` list of the library's sources.
    private func propertiesNamedByTheLibrary() throws -> Set<String> {
        let sources = repositoryRoot.appendingPathComponent("Sources/ReplayKitless")
        var names: Set<String> = []
        let lists = try Regex(#"options: \[([^\]]*)\]"#)
        let quoted = try Regex(#""([A-Za-z.]+)""#)
        for case let file as URL in FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)! where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for list in text.matches(of: lists) {
                for name in String(text[list.range]).matches(of: quoted) { names.insert(String(name.output[1].substring!)) }
            }
        }
        return names
    }

    @Test func everyPropertyAnErrorNamesHasItsFlag() throws {
        let names = try propertiesNamedByTheLibrary()
        // The scan finds the lists (a broken pattern would find nothing and pass).
        #expect(names.contains("EncoderSettings.crf") && names.contains("PoseOverrides.fovY") && names.count > 30, "\(names.sorted())")
        let table = try String(contentsOf: repositoryRoot.appendingPathComponent("Sources/fxreplay/OptionFlags.swift"), encoding: .utf8)
        for name in names.sorted() {
            #expect(table.contains("\"\(name)\": \"--"), "\(name) has no flag in OptionFlags")
        }
    }

    @Test func theCommandLineShowsTheFlagsItWasGiven() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fxreplay-flags-\(UUID().uuidString)").path
        let run = try runFxreplay(["sample", "-o", directory, "--seconds", "0"])
        #expect(run.status == 2 && run.stderr.contains("--seconds 0.0: must be between 1 and 600") && !run.stderr.contains("SampleSettings"),
                "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory))
    }
}
