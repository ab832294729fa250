import ArgumentParser
import ReplayKitless

/// Job specs on render's command line: `fxreplay render --job job.yaml INPUT -o OUT [options]`
/// becomes `fxreplay render <the job's options> --job job.yaml INPUT -o OUT [options]` before
/// anything is parsed, so the command line overrides the job (ArgumentParser keeps the last
/// value of a repeated option) and a job accepts exactly the options render has.
enum RenderJob {
    /// The arguments with a render job spec expanded in front of the user's own.
    static func expand(_ arguments: [String]) throws(ReplayError) -> [String] {
        guard arguments.first == "render" else { return arguments }
        var jobPaths: [String] = []
        var index = 1
        while index < arguments.count, arguments[index] != "--" {
            let argument = arguments[index]
            if argument == "--job", index + 1 < arguments.count {
                jobPaths.append(arguments[index + 1])
                index += 1
            } else if argument.hasPrefix("--job=") {
                jobPaths.append(String(argument.dropFirst(6)))
            }
            index += 1
        }
        guard let path = jobPaths.first else { return arguments }
        guard jobPaths.count == 1 else { throw .usage("--job: give one job spec (got \(jobPaths.count))") }
        let job = try JobSpec(contentsOf: path)
        try check(job.options, origin: path)
        return [arguments[0]] + job.arguments + arguments.dropFirst()
    }

    /// Checks options as render parses them: each one alone (so an error names its file, line
    /// and key), then all together (combinations such as --crf with --bitrate).
    static func check(_ options: [JobOption], origin: String, line: Int? = nil) throws(ReplayError) {
        for option in options {
            if let complaint = complaint(option.arguments) { throw option.error(complaint) }
        }
        if let complaint = complaint(options.flatMap(\.arguments)) {
            throw .badInput(file: origin, line: line, complaint)
        }
    }

    /// ArgumentParser's message when render would reject `options`, or `nil`.
    private static func complaint(_ options: [String]) -> String? {
        do {
            _ = try Render.parse(["job-check-input.mp4", "-o", "job-check-output.mp4"] + options)
            return nil
        } catch {
            return Render.message(for: error)
        }
    }
}
