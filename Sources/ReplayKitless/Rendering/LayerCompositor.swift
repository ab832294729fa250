/// Blends a ``RenderLayer`` over a frame ("over" with straight alpha), touching only the samples
/// it covers.
///
/// Per luma sample, `a` = coverage × `opacity` × (255 − occlusion)/255 and `b` the frame's alpha
/// (1 without an alpha plane): `αout = a + b·(1 − a)`, `Y'out = (a·Y' + b·(1 − a)·Y'bg) / αout`,
/// which is `Y'bg + a·(Y' − Y'bg)` on an opaque frame. Per chroma sample, over the luma samples it
/// covers: `Cout = (Σ a·C + Cbg·Σ b·(1 − a)) / Σ αout`, so a chroma sample whose luma samples are
/// half covered blends half way.
enum LayerCompositor {
    static func composite(_ layer: RenderLayer, opacity: Float, into image: YUVImage, occlusion: Plane?) {
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

    /// Blends the luma samples under one chroma sample, and the chroma sample, in any case.
    @inline(__always) private static func blendSample(_ layer: RenderLayer, opacity: Float, into image: YUVImage, occlusion: Plane?,
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
    /// opaque frame with nothing in front: the same arithmetic in the same order, a texel's
    /// (Y', Cb, Cr) scaled by its `a` in one vector product, and the block's four luma samples
    /// rounded together. Uncovered samples (a = 0) work out to the values they had, so need no test.
    private static func blendBlocks(_ layer: RenderLayer, opacity: Float, into image: YUVImage, chromaY: Int, from first: Int,
                                    through last: Int) {
        let y = chromaY << 1
        let top = layer.row(y), bottom = layer.row(y + 1)
        let lumaTop = image.luma.base + y * image.luma.stride, lumaBottom = lumaTop + image.luma.stride
        let cbRow = image.cb.base + chromaY * image.cb.stride, crRow = image.cr.base + chromaY * image.cr.stride
        for chromaX in first...last {
            let x = chromaX << 1
            var sums = SIMD4<Float>.zero, backgroundWeight: Float = 0
            /// Sample `texel` over background `luma`: its blended luma; adds its share to the sums.
            @inline(__always) func blend(_ texel: SIMD4<Float>, over luma: UInt8) -> Float {
                let a = texel.w * opacity
                let share = texel * a
                sums += share
                backgroundWeight += 1 - a
                return share.x + (1 - a) * Float(luma)
            }
            let blended = SIMD4(blend(top[x], over: lumaTop[x]), blend(top[x + 1], over: lumaTop[x + 1]),
                                blend(bottom[x], over: lumaBottom[x]), blend(bottom[x + 1], over: lumaBottom[x + 1]))
            let luma = rounded(blended)
            lumaTop[x] = luma[0]; lumaTop[x + 1] = luma[1]; lumaBottom[x] = luma[2]; lumaBottom[x + 1] = luma[3]
            let background = SIMD4<Float>(0, Float(cbRow[chromaX]), Float(crRow[chromaX]), 0)
            let chroma = rounded((sums + background * backgroundWeight) / 4)
            cbRow[chromaX] = chroma[1]
            crRow[chromaX] = chroma[2]
        }
    }

    /// Lane by lane what `rounded` gives for one value, in vector registers without a branch:
    /// adding 1.5·2²³ rounds to the nearest integer, which is then stepped down where that went
    /// up, and clamped. Exact for values within ±2²² (checked against `rounded` for every Float
    /// from −3 to 260); a blend's values stay between 8-bit samples and converted colours.
    @inline(__always) private static func rounded(_ values: SIMD4<Float>) -> SIMD4<UInt8> {
        let half = values + 0.5
        let magic = SIMD4<Float>(repeating: 12_582_912)
        let biased = half + magic
        let nearest = (unsafeBitCast(biased, to: SIMD4<Int32>.self) & 0x7F_FFFF) &- 0x40_0000
        // The sign of half − nearest: −1 where rounding went up.
        let down = nearest &+ (unsafeBitCast(half - (biased - magic), to: SIMD4<Int32>.self) &>> 31)
        let nonNegative = down & ~(down &>> 31)
        let over = (255 &- nonNegative) &>> 31
        return SIMD4<UInt8>(truncatingIfNeeded: (nonNegative & ~over) | (255 & over))
    }

    /// To the nearest 8-bit value (halves up), clamped.
    @inline(__always) private static func rounded(_ value: Float) -> UInt8 {
        UInt8(max(0, min(255, value + 0.5)))
    }
}
