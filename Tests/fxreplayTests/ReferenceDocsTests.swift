import Foundation
import Testing

/// The documentation that can go stale against the binary (issue #36 item 8): the generated command
/// reference and the README's tour of the commands. The facts read from the sources (limits, exit
/// codes, links) are checked by scripts/check-docs.sh, which needs no build.
@Suite struct ReferenceDocsTests {
    /// The subcommand names `fxreplay help ARGS…` lists under SUBCOMMANDS (continuation lines are indented deeper).
    static func subcommands(of path: [String]) throws -> [String] {
        let run = try runFxreplay(["help"] + path)
        try #require(run.status == 0, "fxreplay help \(path.joined(separator: " ")): \(run.stderr)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "SUBCOMMANDS:") else { return [] }
        return lines[(start + 1)...].filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") && $0.dropFirst(2).first?.isLowercase == true }
            .map { String($0.dropFirst(2).prefix { $0 != " " }) }
    }

    /// The `fxreplay …` lines of the README's "## Commands" section's shell blocks.
    static func tourLines() throws -> [String] {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "\n## Commands\n"), "README has no \"## Commands\" section")
        let rest = readme[section.upperBound...]
        let body = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        var inShell = false
        var lines: [String] = []
        for line in body.split(separator: "\n") {
            if line.hasPrefix("```") { inShell = line == "```sh"; continue }
            if inShell, line.hasPrefix("fxreplay ") { lines.append(String(line)) }
        }
        return lines
    }

    @Test func commandReferenceIsWhatTheHelpSays() throws {
        let script = repositoryRoot.appendingPathComponent("scripts/gen-command-docs.sh").path
        let run = try runProcess("/usr/bin/env", ["FXREPLAY=\(fxreplayExecutable.path)", "bash", script, "--check"])
        #expect(run.status == 0, "docs/commands.md is stale (run scripts/gen-command-docs.sh):\n\(run.stdout)\(run.stderr)")
    }

    /// Every command of `fxreplay --help` (and of `poses`, `qa`) has an example in the tour, every example
    /// names a command that exists, and every option an example uses is in that command's help.
    @Test func tourShowsEveryCommandWithOptionsItHas() throws {
        let tour = try Self.tourLines()
        try #require(!tour.isEmpty, "no fxreplay lines in the README's Commands section")
        var paths: [[String]] = []
        for command in try Self.subcommands(of: []) {
            let children = try Self.subcommands(of: [command])
            paths += children.isEmpty ? [[command]] : children.map { [command, $0] }
        }
        var shown = Set<[String]>()
        for line in tour {
            let words = line.split(separator: " ").dropFirst().map(String.init)
            guard let path = paths.first(where: { words.starts(with: $0) }) else {
                Issue.record("the README's tour runs a command fxreplay does not have: \(line)")
                continue
            }
            shown.insert(path)
            let help = try runFxreplay(["help"] + path).stdout
            for word in words where word.hasPrefix("--") {
                let option = String(word.prefix { $0 != "=" })
                let listed = [" ", ",", "\n", "="].contains { help.contains(option + $0) }
                #expect(listed, "fxreplay \(path.joined(separator: " ")) has no \(option) (README tour: \(line))")
            }
        }
        for path in paths where !shown.contains(path) {
            Issue.record("the README's tour has no example of fxreplay \(path.joined(separator: " "))")
        }
    }
}
