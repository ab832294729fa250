/// A Y'CbCr colour matrix and range: how RGB colours (annotation colours, background
/// pictures) map onto the samples of a video frame.
public struct ColorSpace: Sendable, Equatable, Hashable {
    /// The luma coefficients (Kr, Kb) of a colour matrix.
    public enum Matrix: Sendable, Equatable, Hashable {
        /// ITU-R BT.601 (standard definition).
        case bt601
        /// ITU-R BT.709 (HD).
        case bt709
        /// ITU-R BT.2020 (UHD), non-constant luminance.
        case bt2020

        var kr: Double { switch self { case .bt601: 0.299; case .bt709: 0.2126; case .bt2020: 0.2627 } }
        var kb: Double { switch self { case .bt601: 0.114; case .bt709: 0.0722; case .bt2020: 0.0593 } }
    }

    /// The colour matrix.
    public var matrix: Matrix
    /// `true` for full range (0…255), `false` for limited "TV" range (16…235 luma, 16…240 chroma).
    public var fullRange: Bool

    /// A colour space from its matrix and range.
    public init(matrix: Matrix, fullRange: Bool) {
        self.matrix = matrix
        self.fullRange = fullRange
    }

    /// BT.709, limited range: HD video.
    public static let bt709Limited = ColorSpace(matrix: .bt709, fullRange: false)
    /// BT.601, limited range: standard-definition video.
    public static let bt601Limited = ColorSpace(matrix: .bt601, fullRange: false)

    /// Converts 8-bit gamma-encoded R'G'B' to 8-bit Y'CbCr in this space (rounded, clamped).
    public func yuv(red: UInt8, green: UInt8, blue: UInt8) -> YUVColor {
        let (y, cb, cr) = yuvUnrounded(red: Double(red), green: Double(green), blue: Double(blue))
        return YUVColor(y: Self.clamp(y), cb: Self.clamp(cb), cr: Self.clamp(cr))
    }

    /// The same conversion without rounding, for callers that accumulate (antialiasing, scaling).
    package func yuvUnrounded(red: Double, green: Double, blue: Double) -> (y: Double, cb: Double, cr: Double) {
        let kr = matrix.kr, kb = matrix.kb, kg = 1 - kr - kb
        let r = red / 255, g = green / 255, b = blue / 255
        let y = kr * r + kg * g + kb * b
        let pb = (b - y) / (2 * (1 - kb))
        let pr = (r - y) / (2 * (1 - kr))
        if fullRange {
            return (y * 255, 128 + pb * 255, 128 + pr * 255)
        }
        return (16 + y * 219, 128 + pb * 224, 128 + pr * 224)
    }

    /// Converts 8-bit Y'CbCr in this space back to R'G'B' (rounded, clamped).
    public func rgb(_ color: YUVColor) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let kr = matrix.kr, kb = matrix.kb, kg = 1 - kr - kb
        let y: Double, pb: Double, pr: Double
        if fullRange {
            y = Double(color.y) / 255
            pb = (Double(color.cb) - 128) / 255
            pr = (Double(color.cr) - 128) / 255
        } else {
            y = (Double(color.y) - 16) / 219
            pb = (Double(color.cb) - 128) / 224
            pr = (Double(color.cr) - 128) / 224
        }
        let r = y + 2 * (1 - kr) * pr
        let b = y + 2 * (1 - kb) * pb
        let g = (y - kr * r - kb * b) / kg
        return (Self.clamp(r * 255), Self.clamp(g * 255), Self.clamp(b * 255))
    }

    @inline(__always) static func clamp(_ value: Double) -> UInt8 {
        UInt8(max(0, min(255, value.rounded())))
    }
}

/// One 8-bit Y'CbCr sample triple.
public struct YUVColor: Sendable, Equatable, Hashable {
    /// Luma.
    public var y: UInt8
    /// Blue-difference chroma.
    public var cb: UInt8
    /// Red-difference chroma.
    public var cr: UInt8
    /// A colour from its three samples.
    public init(y: UInt8, cb: UInt8, cr: UInt8) { self.y = y; self.cb = cb; self.cr = cr }
}

/// An sRGB colour with straight alpha, as written in scene files and on the command line
/// (`#RRGGBB` or `#RRGGBBAA`).
public struct RGBAColor: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Red, 0–255, gamma-encoded sRGB.
    public var red: UInt8
    /// Green, 0–255, gamma-encoded sRGB.
    public var green: UInt8
    /// Blue, 0–255, gamma-encoded sRGB.
    public var blue: UInt8
    /// Alpha, 0 (transparent) to 255 (opaque), straight (not premultiplied).
    public var alpha: UInt8

    /// A colour from its components; opaque unless `alpha` says.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }

    /// Parses `#RRGGBB` or `#RRGGBBAA` (the `#` optional); `nil` when malformed.
    public init?(hex: String) {
        var digits = Substring(hex)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isHexDigit),
              let value = UInt32(digits, radix: 16) else { return nil }
        if digits.count == 6 {
            self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
        } else {
            self.init(red: UInt8(value >> 24), green: UInt8(value >> 16 & 0xFF),
                      blue: UInt8(value >> 8 & 0xFF), alpha: UInt8(value & 0xFF))
        }
    }

    public var description: String {
        let parts = alpha == 255 ? [red, green, blue] : [red, green, blue, alpha]
        return "#" + parts.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined()
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
