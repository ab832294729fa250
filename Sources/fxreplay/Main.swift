import ArgumentParser
import Foundation
import ReplayKitless

/// The root command: subcommands only; `main` maps every error to the documented exit status.
@main
struct Fxreplay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fxreplay",
        abstract: "Re-render recorded video calls: poses, background replacement, 3D annotations, QA.",
        version: "0.1.0",
        subcommands: [Render.self, Probe.self, Track.self, Poses.self, Compare.self, Framehash.self, QA.self, Batch.self,
                      Sample.self, Compose.self]
    )

    static func main() {
        StderrLog.install()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments == ["--version"] { printVersion() }
        if let hint = CommandLineHints.problem(in: arguments) {
            printError("fxreplay: error: \(hint)")
            Foundation.exit(2)
        }
        // Everything the command reads, from its --job file on, is kept from its outputs (ReadFiles).
        let status = ReadFiles.scope { () -> Int32 in
            do {
                var command = try parseAsRoot(RenderJob.expand(arguments))
                MessageStyle.json = (command as? ReportsProgress)?.progress.progress == .json
                // Every command that may write a file removes it on a signal; batch forwards its signals instead.
                if command is Batch { InterruptCleanup.ignoreFileSizeSignal() } else { InterruptCleanup.shared.install { SignalExit.stop($0) } }
                if let reader = command as? ReadsInputs { InputPolicy.current = reader.inputAccess.policy }
                try command.run()
                return 0
            } catch let error as ReplayError {
                printError("fxreplay: error: \(OptionFlags.message(of: error))")
                return error.exitCode
            } catch {
                let code = exitCode(for: error)
                let message = fullMessage(for: error)
                if code == .success {
                    print(message)
                    return 0
                } else {
                    if !message.isEmpty { printErrorLines(CommandLineHints.styled(message)) }
                    // Argument errors are bad usage (formats.md §8), whatever ArgumentParser's own code.
                    return error is ExitCode ? code.rawValue : 2
                }
            }
        }
        Foundation.exit(status)
    }
}
