import CFreeType

/// An `FT_Library`, released when the last face using it goes.
final class FreeTypeLibrary {
    let handle: FT_Library

    init() throws(ReplayError) {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else {
            throw ReplayError.processing("cannot initialise FreeType")
        }
        handle = library
    }

    deinit { FT_Done_FreeType(handle) }
}

/// A glyph rendered to an 8-bit coverage bitmap, placed relative to the pen on the baseline.
struct Glyph {
    var width: Int
    var rows: Int
    /// Offset of the bitmap's left column from the pen, and of its top row above the baseline.
    var left: Int
    var top: Int
    /// How far the pen moves after this glyph, in pixels.
    var advance: Double
    /// `rows` rows of `width` coverage values, 0…255.
    var coverage: [UInt8]
}

/// Vertical metrics of a font at one pixel size, in pixels.
struct FontMetrics {
    var ascender: Double
    var descender: Double   // negative: below the baseline
}

/// One font file opened with FreeType, with the glyphs it has rendered kept per (size, code point)
/// so a label drawn on every frame is rasterized once. The bitmaps kept add up to at most
/// ``InputLimits/glyphCacheBytes``: a scene of many distinct characters at large sizes makes the
/// cache start over rather than grow without bound.
final class GlyphCache {
    let path: String
    private let library: FreeTypeLibrary
    private let face: FT_Face
    private var selectedSize = 0
    private var glyphs: [GlyphKey: Glyph] = [:]
    private var metrics: [Int: FontMetrics] = [:]
    /// How many glyphs FreeType has rendered (each (size, code point) once).
    private(set) var rasterizedCount = 0
    /// Bytes of the bitmaps in `glyphs`.
    private(set) var cachedBytes = 0

    private struct GlyphKey: Hashable {
        var size: Int
        var codePoint: UInt32
    }

    /// Opens the font at `path`; throws `badInput` naming the file when FreeType cannot read it.
    init(path: String) throws(ReplayError) {
        library = try FreeTypeLibrary()
        var opened: FT_Face?
        ReadFiles.note(path)
        guard FT_New_Face(library.handle, path, 0, &opened) == 0, let opened else {
            throw ReplayError.badInput(file: path, "cannot open the font (install fonts-dejavu-core or pass another font file)")
        }
        face = opened
        self.path = path
    }

    deinit { FT_Done_Face(face) }

    /// Ascender and descender at `size` pixels per em.
    func metrics(size: Int) -> FontMetrics {
        if let known = metrics[size] { return known }
        select(size: size)
        let m = face.pointee.size.pointee.metrics
        let result = FontMetrics(ascender: Double(m.ascender) / 64, descender: Double(m.descender) / 64)
        metrics[size] = result
        return result
    }

    /// The glyph for `codePoint` at `size` pixels per em (the font's missing-glyph box if it has none).
    func glyph(_ codePoint: UInt32, size: Int) -> Glyph {
        let key = GlyphKey(size: size, codePoint: codePoint)
        if let known = glyphs[key] { return known }
        select(size: size)
        rasterizedCount += 1
        var glyph = Glyph(width: 0, rows: 0, left: 0, top: 0, advance: 0, coverage: [])
        if FT_Load_Char(face, FT_ULong(codePoint), FT_Int32(FT_LOAD_RENDER)) == 0, let slot = face.pointee.glyph {
            let bitmap = slot.pointee.bitmap
            glyph.advance = Double(slot.pointee.advance.x) / 64
            if bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue), let buffer = bitmap.buffer {
                glyph.width = Int(bitmap.width)
                glyph.rows = Int(bitmap.rows)
                glyph.left = Int(slot.pointee.bitmap_left)
                glyph.top = Int(slot.pointee.bitmap_top)
                glyph.coverage.reserveCapacity(glyph.width * glyph.rows)
                let stride = abs(Int(bitmap.pitch))   // negative pitch: rows stored bottom-up
                for row in 0..<glyph.rows {
                    let start = buffer + stride * (bitmap.pitch >= 0 ? row : glyph.rows - 1 - row)
                    glyph.coverage.append(contentsOf: UnsafeBufferPointer(start: start, count: glyph.width))
                }
            }
        }
        if cachedBytes + glyph.coverage.count > InputLimits.glyphCacheBytes {
            glyphs.removeAll(keepingCapacity: true)
            cachedBytes = 0
        }
        cachedBytes += glyph.coverage.count
        glyphs[key] = glyph
        return glyph
    }

    private func select(size: Int) {
        guard size != selectedSize else { return }
        FT_Set_Pixel_Sizes(face, 0, FT_UInt(size))
        selectedSize = size
    }
}
