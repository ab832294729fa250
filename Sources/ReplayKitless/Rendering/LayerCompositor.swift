import CKernels

/// Blends a ``RenderLayer`` over a frame ("over" with straight alpha), touching only the samples
/// it covers.
///
/// Per luma sample, `a` = coverage × `opacity` × (255 − occlusion)/255 and `b` the frame's alpha
/// (1 without an alpha plane): `αout = a + b·(1 − a)`, `Y'out = (a·Y' + b·(1 − a)·Y'bg) / αout`,
/// which is `Y'bg + a·(Y' − Y'bg)` on an opaque frame. Per chroma sample, over the luma samples it
/// covers: `Cout = (Σ a·C + Cbg·Σ b·(1 − a)) / Σ αout`, so a chroma sample whose luma samples are
/// half covered blends half way.
enum LayerCompositor {
    static func composite(_ layer: some CompositeSource, opacity: Float, into image: YUVImage, occlusion: Plane?) {
        let rect = layer.touched
        guard !rect.isEmpty, opacity > 0 else { return }
        let shiftX = image.subsampling.shiftX, shiftY = image.subsampling.shiftY
        let width = min(image.width, layer.bounds.maxX), height = min(image.height, layer.bounds.maxY)
        let chromaMaxX = min((rect.maxX - 1) >> shiftX, image.cb.width - 1)
        let chromaMaxY = min((rect.maxY - 1) >> shiftY, image.cb.height - 1)
        guard rect.minX >> shiftX <= chromaMaxX, rect.minY >> shiftY <= chromaMaxY else { return }
        // The usual case: 4:2:0, an opaque frame, nothing in front.
        let plain420 = shiftX == 1 && shiftY == 1 && image.alpha == nil && occlusion == nil
        for chromaY in (rect.minY >> shiftY)...chromaMaxY {
            let lumaRows = (chromaY << shiftY)..<min((chromaY + 1) << shiftY, height)
            // Only the chroma columns over the touched runs of these luma rows.
            var start = Int.max, end = 0
            for y in lumaRows {
                let columns = layer.touchedColumns(row: y)
                if !columns.isEmpty { start = min(start, columns.lowerBound); end = max(end, columns.upperBound) }
            }
            guard start < end else { continue }
            var chromaX = start >> shiftX
            let last = min((end - 1) >> shiftX, chromaMaxX)
            if plain420 && lumaRows.count == 2 {
                // Whole 2×2 blocks (all but an odd width's last column) in one go.
                let blocks = min(last, (width >> 1) - 1)
                if chromaX <= blocks { blendBlocks(layer, opacity: opacity, into: image, chromaY: chromaY, from: chromaX, through: blocks) }
                chromaX = max(chromaX, blocks + 1)
            }
            while chromaX <= last {
                blendSample(layer, opacity: opacity, into: image, occlusion: occlusion, chromaX: chromaX, chromaY: chromaY,
                            lumaRows: lumaRows, lumaColumns: (chromaX << shiftX)..<min((chromaX + 1) << shiftX, width))
                chromaX += 1
            }
        }
    }

    /// Asks for the cache lines of `image` under `bounds` (``ck_prefetch_420``), where
    /// `compositeAndClear` will blend in C; nothing for other frames.
    static func prefetch(_ bounds: PixelBounds, of image: YUVImage) {
        guard image.subsampling.shiftX == 1, image.subsampling.shiftY == 1, !bounds.isEmpty, bounds.minX >= 0, bounds.minY >= 0,
              bounds.maxX <= image.width, bounds.maxY <= image.height else { return }
        let left = bounds.minX & ~1, top = bounds.minY & ~1
        ck_prefetch_420(image.luma.base + top * image.luma.stride + left, image.luma.stride,
                        image.cb.base + (top >> 1) * image.cb.stride + (left >> 1), image.cb.stride,
                        image.cr.base + (top >> 1) * image.cr.stride + (left >> 1), image.cr.stride,
                        Int32(bounds.maxX - left), Int32(bounds.maxY - top))
    }

    /// `composite`, then `layer.clear()`. In the usual case (4:2:0, an opaque frame, nothing in
    /// front, every touched pixel in a whole 2×2 block of the frame, the window's corner on even
    /// pixels) one pass in C (`ck_blend_and_clear_420`) does both, zeroing texels as it reads them.
    static func compositeAndClear(_ layer: RenderLayer, opacity: Float, into image: YUVImage, occlusion: Plane?) {
        let rect = layer.touched, window = layer.bounds
        let blocksWidth = min(image.width, window.maxX) & ~1, blocksHeight = min(image.height, window.maxY) & ~1
        guard image.subsampling.shiftX == 1, image.subsampling.shiftY == 1, image.alpha == nil, occlusion == nil, opacity > 0,
              window.minX & 1 == 0, window.minY & 1 == 0, rect.minX >= 0, rect.minY >= 0, rect.maxX <= blocksWidth,
              rect.maxY <= blocksHeight else {
            composite(layer, opacity: opacity, into: image, occlusion: occlusion)
            layer.clear()
            return
        }
        let top = rect.minY & ~1
        layer.clear(fromRow: top) { rows in
            ck_blend_and_clear_420(rows, image.luma.base + top * image.luma.stride, image.luma.stride,
                                   image.cb.base + (top >> 1) * image.cb.stride, image.cb.stride,
                                   image.cr.base + (top >> 1) * image.cr.stride, image.cr.stride, Int32((rect.maxY - top + 1) >> 1), opacity)
        }
    }

    /// Blends the luma samples under one chroma sample, and the chroma sample, in any case.
    @inline(__always) private static func blendSample(_ layer: some CompositeSource, opacity: Float, into image: YUVImage, occlusion: Plane?,
                                                      chromaX: Int, chromaY: Int, lumaRows: Range<Int>, lumaColumns: Range<Int>) {
        var covered = false
        var sumCb: Float = 0, sumCr: Float = 0, backgroundWeight: Float = 0, outAlpha: Float = 0
        for y in lumaRows {
            let texels = layer.row(y), luma = image.luma.base + y * image.luma.stride
            let alphaRow = image.alpha.map { $0.base + y * $0.stride }
            let occlusionRow = occlusion.map { $0.base + y * $0.stride }
            for x in lumaColumns {
                let texel = texels[x]
                var a = texel.w * opacity
                if let occlusionRow, a > 0 { a *= Float(255 - occlusionRow[x]) / 255 }
                let b = alphaRow.map { Float($0[x]) / 255 } ?? 1
                // On an opaque frame αout is 1 exactly (computed, it could miss by an ulp).
                let alpha = alphaRow == nil ? 1 : a + b * (1 - a)
                backgroundWeight += b * (1 - a)
                outAlpha += alpha
                guard a > 0 else { continue }
                covered = true
                sumCb += a * texel.y
                sumCr += a * texel.z
                let blended = a * texel.x + b * (1 - a) * Float(luma[x])
                luma[x] = rounded(alphaRow == nil ? blended : blended / alpha)
                alphaRow?[x] = rounded(alpha * 255)
            }
        }
        guard covered else { return }
        let cb = image.cb.base + chromaY * image.cb.stride + chromaX, cr = image.cr.base + chromaY * image.cr.stride + chromaX
        cb.pointee = rounded((sumCb + Float(cb.pointee) * backgroundWeight) / outAlpha)
        cr.pointee = rounded((sumCr + Float(cr.pointee) * backgroundWeight) / outAlpha)
    }

    /// `blendSample` for whole 2×2 blocks `first...last` of chroma row `chromaY` on a 4:2:0
    /// opaque frame with nothing in front: the same arithmetic in the same order, several blocks
    /// at once in C (`ck_blend_blocks_420`, CKernels/composite.c).
    private static func blendBlocks(_ layer: some CompositeSource, opacity: Float, into image: YUVImage, chromaY: Int, from first: Int,
                                    through last: Int) {
        let y = chromaY << 1, x = first << 1
        let lumaTop = image.luma.base + y * image.luma.stride + x
        func floats(_ texels: UnsafeMutablePointer<SIMD4<Float>>) -> UnsafePointer<Float> {
            UnsafeRawPointer(texels).assumingMemoryBound(to: Float.self)
        }
        ck_blend_blocks_420(floats(layer.row(y) + x), floats(layer.row(y + 1) + x), lumaTop, lumaTop + image.luma.stride,
                            image.cb.base + chromaY * image.cb.stride + first, image.cr.base + chromaY * image.cr.stride + first,
                            Int32(last - first + 1), opacity)
    }

    /// To the nearest 8-bit value (halves up), clamped.
    @inline(__always) private static func rounded(_ value: Float) -> UInt8 {
        UInt8(max(0, min(255, value + 0.5)))
    }
}

/// What ``LayerCompositor`` blends: texels addressed by frame pixel, and the runs of them drawn. A
/// ``RenderLayer``, or a kept label placed in the frame (``PlacedLabel``), composited without a copy.
protocol CompositeSource {
    /// The frame pixels it holds texels for; texels outside the touched runs are uncovered (zero).
    var bounds: PixelBounds { get }
    /// The rectangle around every touched pixel.
    var touched: PixelBounds { get }
    /// Row `y` of the frame: element `x` is the texel of frame pixel (`x`, `y`), inside `bounds`.
    func row(_ y: Int) -> UnsafeMutablePointer<SIMD4<Float>>
    /// The touched columns of row `y` (empty outside `touched`).
    func touchedColumns(row y: Int) -> Range<Int>
}

extension RenderLayer: CompositeSource {}
