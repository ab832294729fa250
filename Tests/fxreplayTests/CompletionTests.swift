import Foundation
import Testing

/// Shell completion (#26 item 6), checked by running the scripts `fxreplay --generate-completion-script`
/// writes in each shell: subcommands, enum values and file names for path options.
@Suite struct CompletionTests {
    /// `setUp()`, when `shell` is installed (else an issue: scripts/install-deps.sh installs it).
    static func setUp(requiring shell: String) throws -> (dir: URL, scripts: [String: URL])? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/\(shell)") else {
            Issue.record("\(shell) is not installed (scripts/install-deps.sh installs it)")
            return nil
        }
        return try setUp()
    }

    /// A folder holding one JSON file among others, and each shell's script.
    static func setUp() throws -> (dir: URL, scripts: [String: URL]) {
        let dir = try makeScratchDirectory()
        for name in ["scene.json", "notes.txt", "clip.mp4"] { try Data().write(to: dir.appendingPathComponent(name)) }
        var scripts: [String: URL] = [:]
        for shell in ["bash", "zsh", "fish"] {
            let run = try runFxreplay(["--generate-completion-script", shell])
            try #require(run.status == 0, "\(run.stderr)")
            let script = dir.appendingPathComponent(shell == "zsh" ? "zfunctions/_fxreplay" : "fxreplay.\(shell)")
            try FileManager.default.createDirectory(at: script.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(run.stdout.utf8).write(to: script)
            scripts[shell] = script
        }
        return (dir, scripts)
    }

    static func shell(_ path: String, _ arguments: [String], in dir: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = dir
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = fxreplayExecutable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The cases every shell must complete: (command line, what it must offer, what it must not).
    static let cases: [(line: String, offered: [String], notOffered: [String])] = [
        ("fxreplay rend", ["render"], ["probe"]),
        ("fxreplay render --codec ", ["h264", "hevc", "vp9", "vp8", "prores", "ffv1"], []),
        ("fxreplay render in.mp4 --annotations ", ["scene.json"], ["notes.txt", "clip.mp4"]),
        ("fxreplay qa latency x --pose-time ", ["relative", "absolute", "call", "epoch"], []),
        ("fxreplay render in.mp4 --progress ", ["auto", "plain", "json", "none"], []),
    ]

    /// `words`, the completions a shell offered for `line`, hold every one of `offered` and none of `notOffered`.
    static func expect(_ words: Set<String>, _ offered: [String], _ notOffered: [String], _ line: String) {
        #expect(Set(offered).isSubset(of: words), "\(line): \(words.sorted())")
        #expect(words.isDisjoint(with: notOffered), "\(line): \(words.sorted())")
    }

    @Test func bashCompletes() throws {
        let (dir, scripts) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        // As bash-completion calls it: COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT, then the function.
        let driver = """
            shopt -s extglob
            source "$1"; shift
            for line in "$@"; do
              read -ra COMP_WORDS <<< "$line"
              [[ "$line" == *" " ]] && COMP_WORDS+=("")
              COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMP_LINE="$line"; COMP_POINT=${#line}; COMPREPLY=()
              _fxreplay fxreplay "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
              echo "[$line]"; printf '%s\\n' "${COMPREPLY[@]}"
            done
            """
        let output = try Self.shell("/bin/bash", ["-c", driver, "bash", scripts["bash"]!.path] + Self.cases.map(\.line), in: dir)
        for (line, offered, notOffered) in Self.cases {
            let block = try #require(output.components(separatedBy: "[\(line)]\n").dropFirst().first, "\(output)")
            Self.expect(Set(block.split(separator: "\n").prefix { !$0.hasPrefix("[") }.map(String.init)), offered, notOffered, line)
        }
    }

    @Test func fishCompletes() throws {
        guard let (dir, scripts) = try Self.setUp(requiring: "fish") else { return }
        defer { try? FileManager.default.removeItem(at: dir) }
        for (line, offered, notOffered) in Self.cases {
            let output = try Self.shell("/usr/bin/fish", ["--no-config", "-c", "source \(scripts["fish"]!.path); complete -C '\(line)'"], in: dir)
            Self.expect(Set(output.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }), offered, notOffered, line)
        }
    }

    /// zsh completes only in its line editor: a pseudo-terminal (zpty) runs an interactive zsh with
    /// compinit, the line is typed with a Tab, and what zsh lists or inserts is read back.
    @Test func zshCompletes() throws {
        guard let (dir, scripts) = try Self.setUp(requiring: "zsh") else { return }
        defer { try? FileManager.default.removeItem(at: dir) }
        let driver = """
            zmodload zsh/zpty
            zpty z zsh -f -i
            zpty -w z "PS1='%% '; fpath=(\(scripts["zsh"]!.deletingLastPathComponent().path) \\$fpath); autoload -U compinit; compinit -u -D; LISTMAX=1000"
            zpty -w -n z "$1"$'\\t'
            # Read until zsh has answered after the typed line and then gone quiet for a second (or
            # eight seconds of nothing): a fixed wait read nothing when the machine was busy.
            out=""; idle=0
            for i in {1..400}; do
              if zpty -r -t z chunk; then out+=$chunk; idle=0; continue; fi
              sleep 0.25; (( idle++ ))
              rest=${out#*"$1"}
              [[ $out == *"$1"* && -n ${rest//[[:space:]]/} ]] && (( idle >= 4 )) && break
              (( idle >= 32 )) && break
            done
            print -r -- "$out"
            zpty -d z
            """
        for (line, offered, notOffered) in Self.cases {
            let output = try Self.shell("/usr/bin/zsh", ["-f", "-c", driver, "zsh", line], in: dir)
            // What follows the typed line: the list zsh shows, or the one completion it inserted.
            let after = output.components(separatedBy: line).dropFirst().joined(separator: " ")
            var words = Set(after.components(separatedBy: CharacterSet(charactersIn: " \r\n\u{1B}[")).filter { !$0.isEmpty })
            // A single completion is inserted after the partial word typed ("rend" + "er").
            let partial = line.hasSuffix(" ") ? "" : String(line.split(separator: " ").last!)
            if let inserted = after.prefix(while: { $0 != "\u{1B}" && $0 != " " && $0 != "\r" && $0 != "\n" }).nilIfEmpty {
                words.insert(partial + inserted)
            }
            for word in offered {
                #expect(words.contains(word) || words.contains { $0.hasSuffix(word) }, "\(line): no \(word) in \(after.debugDescription)")
            }
            #expect(words.isDisjoint(with: notOffered), "\(line): \(after.debugDescription)")
        }
    }
}

private extension Substring {
    var nilIfEmpty: Substring? { isEmpty ? nil : self }
}
