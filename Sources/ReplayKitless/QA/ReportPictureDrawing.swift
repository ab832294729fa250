import Foundation

/// Text and boxes on the R'G'B' pictures of QA reports (worst-frame crops, the `compare --diff`
/// picture). Text is the project's FreeType renderer's (``GlyphCache``, the font annotation labels
/// use), blended by glyph coverage onto whole pixels, so it stays crisp at small sizes.
struct ReportPictureText {
    let glyphs: GlyphCache
    /// Pixels per em.
    let size: Int

    /// DejaVu Sans (Debian's fonts-dejavu-core, as annotation labels); `nil` when the font cannot be
    /// opened: the pictures are then drawn without their captions rather than not at all.
    init?(size: Int, fontPath: String = AnnotationRenderer.Options.defaultFontPath) {
        guard let glyphs = try? GlyphCache(path: fontPath) else { return nil }
        self.glyphs = glyphs
        self.size = size
    }

    /// Ascender minus descender: the height a line of text needs.
    var lineHeight: Int { Int((glyphs.metrics(size: size).ascender - glyphs.metrics(size: size).descender).rounded(.up)) }

    /// The width `text` takes, in pixels.
    func width(_ text: String) -> Int {
        Int(text.unicodeScalars.reduce(0.0) { $0 + glyphs.glyph($1.value, size: size).advance }.rounded(.up))
    }

    /// Draws `text` with its top-left corner at (`x`, `top`) in `color`, clipped to the picture and
    /// to `maxWidth` pixels; returns the width drawn.
    @discardableResult
    func draw(_ text: String, x: Int, top: Int, color: RGBAColor, maxWidth: Int = .max, in picture: inout RGBPicture) -> Int {
        let baseline = top + Int(glyphs.metrics(size: size).ascender.rounded())
        let limit = maxWidth >= picture.width - x ? picture.width : x + maxWidth
        var pen = Double(x)
        for scalar in text.unicodeScalars where scalar.value >= 0x20 {
            let glyph = glyphs.glyph(scalar.value, size: size)
            guard pen + glyph.advance <= Double(limit) else { break }
            stamp(glyph, x: Int(pen.rounded()) + glyph.left, y: baseline - glyph.top, color: color, limit: limit, in: &picture)
            pen += glyph.advance
        }
        return Int(pen.rounded(.up)) - x
    }

    private func stamp(_ glyph: Glyph, x: Int, y: Int, color: RGBAColor, limit: Int, in picture: inout RGBPicture) {
        let colour = [Int(color.red), Int(color.green), Int(color.blue)]
        guard let columns = clampedRange(x, x + glyph.width, to: limit), let rows = clampedRange(y, y + glyph.rows, to: picture.height) else { return }
        let width = picture.width
        picture.pixels.withUnsafeMutableBufferPointer { pixels in
            for row in rows {
                for column in columns {
                    let g = Int(glyph.coverage[(row - y) * glyph.width + (column - x)])
                    guard g > 0 else { continue }
                    let offset = (row * width + column) * 3
                    for channel in 0..<3 {
                        pixels[offset + channel] = UInt8((colour[channel] * g + Int(pixels[offset + channel]) * (255 - g) + 127) / 255)
                    }
                }
            }
        }
    }
}

extension RGBPicture {
    /// Fills the rectangle (clipped to the picture) with `color`.
    mutating func fill(x: Int, y: Int, width: Int, height: Int, color: RGBAColor) {
        guard let columns = clampedRange(x, x + width, to: self.width), let rows = clampedRange(y, y + height, to: self.height) else { return }
        let stride = self.width
        pixels.withUnsafeMutableBufferPointer { pixels in
            for row in rows {
                for column in columns {
                    let offset = (row * stride + column) * 3
                    pixels[offset] = color.red
                    pixels[offset + 1] = color.green
                    pixels[offset + 2] = color.blue
                }
            }
        }
    }

    /// The `width`×`height` region with its top-left corner at (`x`, `y`) (inside the picture),
    /// enlarged `zoom` times by repeating pixels: one source pixel becomes a `zoom`×`zoom` block, so
    /// the pixel grid stays visible for judging errors of a pixel or two.
    func zoomedCrop(x: Int, y: Int, width: Int, height: Int, zoom: Int) -> RGBPicture {
        var out = RGBPicture(width: width * zoom, height: height * zoom)
        let sourceStride = self.width, outWidth = out.width
        pixels.withUnsafeBufferPointer { source in
            out.pixels.withUnsafeMutableBufferPointer { target in
                for row in 0..<out.height {
                    let sourceRow = ((y + row / zoom) * sourceStride + x) * 3
                    var offset = row * outWidth * 3
                    for column in 0..<outWidth {
                        let from = sourceRow + (column / zoom) * 3
                        target[offset] = source[from]
                        target[offset + 1] = source[from + 1]
                        target[offset + 2] = source[from + 2]
                        offset += 3
                    }
                }
            }
        }
        return out
    }
}

/// `start..<end` within `0..<limit`; `nil` when nothing of it is.
private func clampedRange(_ start: Int, _ end: Int, to limit: Int) -> Range<Int>? {
    let low = max(0, start), high = min(limit, end)
    return low < high ? low..<high : nil
}

extension RGBAColor {
    /// The report pictures' plain colours.
    static let reportBlack = RGBAColor(red: 0, green: 0, blue: 0)
    static let reportWhite = RGBAColor(red: 255, green: 255, blue: 255)
    static let reportBand = RGBAColor(red: 32, green: 32, blue: 36)
}
