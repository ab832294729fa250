import ArgumentParser
import FxreplayBatch
import ReplayKitless

/// Job specs on render's command line: `fxreplay render --job job.yaml INPUT -o OUT [options]`
/// becomes `fxreplay render <the job's options> --job job.yaml INPUT -o OUT [options]` before
/// anything is parsed, so the command line overrides the job (ArgumentParser keeps the last
/// value of a repeated option) and a job accepts exactly the options render has. `compose --job`
/// is expanded the same way with compose's options (its `streams:` section is read by compose).
enum RenderJob {
    /// The arguments with a render (or compose) job spec expanded in front of the user's own.
    static func expand(_ arguments: [String]) throws(ReplayError) -> [String] {
        guard let command = arguments.first, command == "render" || command == "compose" else { return arguments }
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
        if command == "render", let streams = job.streams.first {
            throw .badInput(file: path, line: streams.line, field: "streams", "per-stream options are for compose")
        }
        try check(job.options, origin: path, compose: command == "compose")
        return [arguments[0]] + job.arguments + arguments.dropFirst()
    }

    /// Checks options as render parses them, all together; when they fail, each one alone, so
    /// that an error names the file, line and key responsible when one option is (a combination
    /// such as --crf with --bitrate is blamed on `origin` and `line`).
    static func check(_ options: [JobOption], origin: String, line: Int? = nil, compose: Bool = false) throws(ReplayError) {
        var checker = OptionChecker(compose: compose)
        try checker.check(options, origin: origin, line: line)
    }

    /// `check` for many option lists, such as a manifest's rows: each distinct argument list is
    /// parsed once (a parse takes about a millisecond; rows mostly repeat the same options).
    struct OptionChecker {
        private var complaints: [[String]: String?] = [:]
        /// Checks compose's options rather than render's.
        private let compose: Bool

        init(compose: Bool = false) { self.compose = compose }

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
                let placeholders = ["job-check-input.mp4", "-o", "job-check-output.mp4"]
                if compose { _ = try Compose.parse(placeholders + options) } else { _ = try Render.parse(placeholders + options) }
                complaint = nil
            } catch {
                complaint = compose ? Compose.message(for: error) : Render.message(for: error)
            }
            complaints[options] = complaint
            return complaint
        }
    }
}
