/// How a background picture or video is fitted to the frame (`--background-fit`).
public enum BackgroundFit: String, Sendable, Equatable, CaseIterable {
    /// Scaled, keeping its aspect ratio, until it covers the frame, then centre-cropped (the default).
    case cover
    /// Scaled, keeping its aspect ratio, to fit inside the frame; the bars left over get a colour.
    case contain
    /// Scaled to the frame's size, aspect ratio ignored.
    case stretch

    /// Parses `cover`, `contain` or `stretch`.
    /// - Throws: `ReplayError.usage` naming `--background-fit` and the value.
    public init(parsing text: String) throws(ReplayError) {
        guard let fit = BackgroundFit(rawValue: text) else {
            throw ReplayError.usage("`BackgroundSettings.fit`: '\(text)' is not one of cover, contain, stretch", options: ["BackgroundSettings.fit"])
        }
        self = fit
    }
}

/// A rectangle of whole pixels: columns `x ..< x + width`, rows `y ..< y + height`.
public struct PixelRect: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Left column.
    public var x: Int
    /// Top row.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// The rectangle of `width`×`height` pixels whose top-left pixel is (`x`, `y`).
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public var description: String { "\(width)×\(height)+\(x)+\(y)" }
}

/// Where a background picture goes: scale its `source` rectangle to the frame's `destination`
/// rectangle; frame pixels outside `destination` (only with ``BackgroundFit/contain``) are bars.
package struct BackgroundPlacement: Sendable, Equatable {
    /// The part of the picture used, in picture pixels.
    package var source: PixelRect
    /// Where it lands, in frame pixels.
    package var destination: PixelRect

    package init(source: PixelRect, destination: PixelRect) {
        self.source = source
        self.destination = destination
    }

    /// The placement of a `pictureWidth × pictureHeight` picture on a `frameWidth × frameHeight` frame.
    ///
    /// Sizes are whole pixels: the scaled extent along the constrained axis is rounded to the
    /// nearest pixel (at least 1), and centring offsets round down when the leftover is odd.
    /// All sizes must be positive.
    package init(fit: BackgroundFit, pictureWidth: Int, pictureHeight: Int, frameWidth: Int, frameHeight: Int) {
        precondition(pictureWidth > 0 && pictureHeight > 0 && frameWidth > 0 && frameHeight > 0, "empty picture or frame")
        let picture = PixelRect(x: 0, y: 0, width: pictureWidth, height: pictureHeight)
        let frame = PixelRect(x: 0, y: 0, width: frameWidth, height: frameHeight)
        // Compare aspect ratios exactly: the picture is relatively wider when bw/bh > W/H.
        let pictureIsWider = pictureWidth * frameHeight > pictureHeight * frameWidth
        switch fit {
        case .stretch:
            self.init(source: picture, destination: frame)
        case .cover:
            // Scale by the larger ratio; the picture's other axis is cropped to the frame's shape.
            if pictureIsWider {
                let width = min(pictureWidth, Self.roundedRatio(pictureHeight * frameWidth, frameHeight))
                self.init(source: PixelRect(x: (pictureWidth - width) / 2, y: 0, width: width, height: pictureHeight),
                          destination: frame)
            } else {
                let height = min(pictureHeight, Self.roundedRatio(pictureWidth * frameHeight, frameWidth))
                self.init(source: PixelRect(x: 0, y: (pictureHeight - height) / 2, width: pictureWidth, height: height),
                          destination: frame)
            }
        case .contain:
            // Scale by the smaller ratio; the frame's other axis gets bars.
            if pictureIsWider {
                let height = min(frameHeight, Self.roundedRatio(pictureHeight * frameWidth, pictureWidth))
                self.init(source: picture,
                          destination: PixelRect(x: 0, y: (frameHeight - height) / 2, width: frameWidth, height: height))
            } else {
                let width = min(frameWidth, Self.roundedRatio(pictureWidth * frameHeight, pictureHeight))
                self.init(source: picture,
                          destination: PixelRect(x: (frameWidth - width) / 2, y: 0, width: width, height: frameHeight))
            }
        }
    }

    /// `round(numerator / denominator)`, at least 1, for positive operands.
    private static func roundedRatio(_ numerator: Int, _ denominator: Int) -> Int {
        max(1, (2 * numerator + denominator) / (2 * denominator))
    }
}
