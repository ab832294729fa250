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
        // An empty name is left for `Render.validate()` to refuse as bad usage.
        guard !path.isEmpty else { return arguments }
        let job = try JobSpec(contentsOf: path)
        try check(job.options, origin: path)
        return [arguments[0]] + job.arguments + arguments.dropFirst()
    }

    /// Checks options as render parses them, all together; when they fail, each one alone, so
    /// that an error names the file, line and key responsible when one option is (a combination
    /// such as --crf with --bitrate is blamed on `origin` and `line`).
    static func check(_ options: [JobOption], origin: String, line: Int? = nil) throws(ReplayError) {
        var checker = OptionChecker()
        try checker.check(options, origin: origin, line: line)
    }

    /// `check` for many option lists, such as a manifest's rows: each distinct argument list is
    /// parsed once (a parse takes about a millisecond; rows mostly repeat the same options).
    struct OptionChecker {
        private var complaints: [[String]: String?] = [:]

        mutating func check(_ options: [JobOption], origin: String, line: Int? = nil) throws(ReplayError) {
            // What inputs may reach is the operator's to decide, never a file's that names them.
            if let opening = options.first(where: { $0.key == "allow-protocols" }) {
                throw opening.error("allow-protocols is taken from the command line only")
            }
            guard let together = complaint(options.flatMap(\.arguments)) else { return }
            for option in options {
                if let complaint = complaint(option.arguments) { throw option.error(complaint) }
            }
            throw .badInput(file: origin, line: line, together)
        }

        /// ArgumentParser's message when render would reject `options`, or `nil`.
        private mutating func complaint(_ options: [String]) -> String? {
            if let known = complaints[options] { return known }
            let complaint: String?
            do {
                _ = try Render.parse(["job-check-input.mp4", "-o", "job-check-output.mp4"] + options)
                complaint = nil
            } catch {
                complaint = Render.message(for: error)
            }
            complaints[options] = complaint
            return complaint
        }
    }
}
