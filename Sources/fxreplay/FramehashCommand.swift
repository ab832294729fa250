import ArgumentParser
import Foundation
import ReplayKitless

/// `fxreplay framehash INPUT [--check GOLDEN [--update]]`: ffmpeg's framemd5 lines for the first video stream.
struct Framehash: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "MD5 of every decoded frame, as `ffmpeg -f framemd5` prints them; or check against a golden file.")

    @Argument(help: "The recording to hash.", completion: .file(extensions: ["mp4", "mov", "mkv", "webm", "m4v", "avi", "h264", "hevc"]))
    var input: String

    @Option(help: "Compare with this framemd5 file instead of printing; exit 1 at the first difference, naming the frame.", completion: .file(extensions: ["framemd5", "txt"]))
    var check: String?

    @Flag(help: "With --check: rewrite the golden file from INPUT when it differs (a deliberate golden update).")
    var update = false

    @OptionGroup var inputAccess: InputAccessOptions

    func validate() throws {
        try requireFileNames(["INPUT": [input], "--check": [check]])
        if update && check == nil { throw ValidationError("--update needs --check GOLDEN, the file to rewrite") }
    }

    func run() throws {
        FFmpegLogging.configure(verbose: false)
        let hasher = try VideoFrameHasher(url: input)
        guard let check else {
            for line in hasher.headerLines { print(line) }
            while let line = try hasher.nextLine() { print(line) }
            return
        }
        if update { return try rewrite(check, from: hasher) }
        let golden = try FrameHashGolden.load(path: PathArgument.input(check))
        let frames = try golden.check(hasher)
        print("\(input): all \(frames) frames match \(golden.file)")
    }

    /// `--update`: the whole listing replaces the golden file, unless it already matches.
    private func rewrite(_ path: String, from hasher: VideoFrameHasher) throws {
        var lines: [String] = []
        while let line = try hasher.nextLine() { lines.append(line) }
        // A golden file that is missing or unreadable is simply written anew.
        let existing = try? FrameHashGolden.load(path: PathArgument.output(path))
        let difference = existing?.compare(lines)
        if existing != nil, difference == nil {
            print("\(input): all \(lines.count) frames match \(path); left unchanged")
            return
        }
        let text = (hasher.headerLines + lines).joined(separator: "\n") + "\n"
        try AtomicOutput.write(Data(text.utf8), to: PathArgument.output(path), inputs: [input], rewritesReadFile: true)
        let was = difference.map { " (before: \($0.description.prefix { $0 != "\n" && $0 != ":" }))" } ?? ""
        print("\(input): wrote \(path) with \(lines.count) frames\(was)")
    }
}
