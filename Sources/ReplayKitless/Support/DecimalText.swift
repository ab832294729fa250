extension Double {
    /// A decimal number as text files write it (`-1.5`, `2e-3`): digits, sign, point and exponent
    /// only. `Double(String)` also takes hexadecimal (`0x10`) and, reading through C, stops at a NUL
    /// byte (`0.5\0` 1234 reads as 0.5): neither belongs in a CSV cell.
    init?(decimalText text: some StringProtocol) {
        let allowed = text.utf8.allSatisfy { (0x30...0x39).contains($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E || $0 == 0x45 || $0 == 0x65 }
        guard !text.isEmpty, allowed, let value = Double(String(text)) else { return nil }
        self = value
    }
}
