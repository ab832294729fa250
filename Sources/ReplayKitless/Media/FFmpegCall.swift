import CFFmpeg

/// The text FFmpeg gives for an error code.
func ffmpegErrorText(_ code: Int32) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
        guard av_strerror(code, buffer.baseAddress, 256) == 0 else { return "error \(code)" }
        return String(cString: buffer.baseAddress!)
    }
}

/// An FFmpeg call that failed: which call, its code and FFmpeg's own text.
struct FFmpegFailure: Error, Sendable, CustomStringConvertible {
    let call: String
    let code: Int32
    /// "out of memory (CALL)" when FFmpeg could not allocate (exit 4 wherever it is reported), else the call and FFmpeg's text.
    var description: String { isOutOfMemory ? "out of memory (\(call))" : "\(call) failed: \(ffmpegErrorText(code))" }
    /// FFmpeg's allocation failed (`AVERROR(ENOMEM)`): a resource ran out, never a fault of the input.
    var isOutOfMemory: Bool { code == fx_averror(ENOMEM) }
    /// End of stream, which is not an error for the caller that asked.
    var isEndOfFile: Bool { code == fx_averror_eof() }
    var isTryAgain: Bool { code == fx_averror_eagain() }
}

extension FFmpegFailure {
    /// The failure as an error reading an input: bad input (exit 3) after `context`, unless FFmpeg ran
    /// out of memory, which is a processing failure (exit 4) whatever the input.
    func inputError(_ context: String) -> ReplayError {
        isOutOfMemory ? .processing("\(context): \(self)") : .badInput("\(context): \(self)")
    }
}

/// The one choke point every FFmpeg call that returns a status passes through.
@discardableResult
@inline(__always)
func ffmpeg(_ call: StaticString, _ status: Int32) throws(FFmpegFailure) -> Int32 {
    if status < 0 { throw FFmpegFailure(call: "\(call)", code: status) }
    return status
}

/// Allocation results: `nil` from an FFmpeg allocator is out of memory.
@inline(__always)
func ffmpegAlloc<T>(_ call: StaticString, _ pointer: T?) throws(FFmpegFailure) -> T {
    guard let pointer else { throw FFmpegFailure(call: "\(call)", code: fx_averror(ENOMEM)) }
    return pointer
}

let noPTS: Int64 = fx_nopts()

/// How much FFmpeg's own libraries say, through ``ReplayLog/logger`` (never straight to stderr).
public enum FFmpegLogging {
    /// Nothing by default (fxreplay reports problems itself); FFmpeg's messages up to its info level when `verbose`.
    /// The library sets the quiet default the first time it opens a file or an encoder; call this to choose.
    public static func configure(verbose: Bool) {
        _ = defaults
        av_log_set_level(verbose ? AV_LOG_INFO : AV_LOG_QUIET)
    }

    /// Quiet, and every ``Decoder`` counting the errors its codec reports while concealing them: set
    /// once, before the first file is opened (``configure(verbose:)`` may then change the level).
    static let defaults: Void = {
        av_log_set_level(AV_LOG_QUIET)
        fx_install_counting_log_callback { level, line in
            guard let line else { return }
            var text = String(cString: line)
            while text.last?.isNewline == true { text.removeLast() }
            ReplayLog.ffmpeg(level: level, line: text)
        }
    }()
}
