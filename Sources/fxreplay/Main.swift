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
        let status: Int32
        do {
            var command = try parseAsRoot(RenderJob.expand(Array(CommandLine.arguments.dropFirst())))
            try command.run()
            status = 0
        } catch let error as ReplayError {
            FileHandle.standardError.write(Data("fxreplay: \(error.message)\n".utf8))
            status = error.exitCode
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                print(message)
                status = 0
            } else {
                FileHandle.standardError.write(Data("\(message)\n".utf8))
                // Argument errors are bad usage (formats.md §8), whatever ArgumentParser's own code.
                status = error is ExitCode ? code.rawValue : 2
            }
        }
        Foundation.exit(status)
    }
}
