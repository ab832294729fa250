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
        let width = min(image.width, layer.width), height = min(image.height, layer.height)
        let chromaMaxX = min((rect.maxX - 1) >> shiftX, image.cb.width - 1)
        let chromaMaxY = min((rect.maxY - 1) >> shiftY, image.cb.height - 1)
        guard rect.minX >> shiftX <= chromaMaxX, rect.minY >> shiftY <= chromaMaxY else { return }
        for chromaY in (rect.minY >> shiftY)...chromaMaxY {
            let lumaRows = (chromaY << shiftY)..<min((chromaY + 1) << shiftY, height)
            for chromaX in (rect.minX >> shiftX)...chromaMaxX {
                let lumaColumns = (chromaX << shiftX)..<min((chromaX + 1) << shiftX, width)
                var covered = false
                var sumCb: Float = 0, sumCr: Float = 0, backgroundWeight: Float = 0, outAlpha: Float = 0
                for y in lumaRows {
                    for x in lumaColumns {
                        let texel = layer.texels[y * layer.width + x]
                        var a = texel.w * opacity
                        if let occlusion, a > 0 { a *= Float(255 - occlusion[x, y]) / 255 }
                        let b = image.alpha.map { Float($0[x, y]) / 255 } ?? 1
                        backgroundWeight += b * (1 - a)
                        outAlpha += a + b * (1 - a)
                        guard a > 0 else { continue }
                        covered = true
                        sumCb += a * texel.y
                        sumCr += a * texel.z
                        let alpha = a + b * (1 - a)
                        image.luma[x, y] = rounded((a * texel.x + b * (1 - a) * Float(image.luma[x, y])) / alpha)
                        image.alpha?[x, y] = rounded(alpha * 255)
                    }
                }
                guard covered else { continue }
                image.cb[chromaX, chromaY] = rounded((sumCb + Float(image.cb[chromaX, chromaY]) * backgroundWeight) / outAlpha)
                image.cr[chromaX, chromaY] = rounded((sumCr + Float(image.cr[chromaX, chromaY]) * backgroundWeight) / outAlpha)
            }
        }
    }

    /// To the nearest 8-bit value (halves up), clamped.
    @inline(__always) private static func rounded(_ value: Float) -> UInt8 {
        UInt8(max(0, min(255, value + 0.5)))
    }
}
