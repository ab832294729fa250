import Foundation

extension BatchRecording {
    /// Whether a batch input is a whole call (formats.md §9), composed rather than rendered: an
    /// individual-stream archive's `.zip`, or a manifest `.json` (an archive's or a call manifest).
    /// A glob of `*.zip` or a manifest row naming one gets `fxreplay compose`.
    public static func isCall(_ input: String) -> Bool {
        guard !BatchPaths.isURL(input) else { return false }
        return ["zip", "json"].contains(URL(fileURLWithPath: input).pathExtension.lowercased())
    }
}
