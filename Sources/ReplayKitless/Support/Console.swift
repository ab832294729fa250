import Synchronization

/// The terminal text a command-line front end shows (progress bars, the interrupt notice). The
/// library writes none of it itself: it hands the text to the sink the front end installed
/// (fxreplay writes it to stderr), and drops it when none is installed.
public enum Console {
    private static let sink = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Sends later terminal text to `write`.
    public static func install(_ write: @escaping @Sendable (String) -> Void) {
        sink.withLock { $0 = write }
    }

    /// Hands `text` to the installed sink as it is (no line end added); drops it when none is installed.
    public static func write(_ text: String) {
        sink.withLock { $0 }?(text)
    }
}
