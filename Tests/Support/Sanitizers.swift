import Foundation

/// Whether the tests run under a sanitizer (`scripts/sanitizers.sh`): 5–15 times slower, beside the
/// other threaded suites, so checks that judge time (how many lanes paid) mean nothing there, and
/// with a runtime of its own that some process limits break (a file-size limit, `ulimit -v`).
public let runsUnderSanitizer = ProcessInfo.processInfo.environment["FXREPLAY_SANITIZED"] != nil
