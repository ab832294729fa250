/// Text for a terminal: names that come from files and manifests (a participant's name, a track's
/// file, a recording's error) may hold a line feed or an escape sequence, which would forge a line
/// of output, break a table's rows, or move the cursor and recolour the user's terminal.
public enum TerminalText {
    /// `text` with every control character (C0, DEL and C1) written as a Swift escape: `\n`, `\t`,
    /// `\u{1B}`, `\u{9B}`. Everything else, accented letters and symbols included, is kept.
    public static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control { result += scalar.escaped(asASCII: true) } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }
}
