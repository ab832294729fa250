/// Background replacement in 8-bit planar Y'CbCr (formats.md §5), with no RGB round trip.
///
/// Every sample becomes `round((fg · a + bg · (255 − a)) / 255)` where `a` is the mask at that
/// sample. Chroma planes use the *chroma-resolution mask*: for each chroma sample, the mean of the
/// mask over the luma samples it covers (only those inside the frame at odd sizes), rounded half up.
/// The blender owns that mask's scratch memory, so steady-state blending allocates nothing; use one
/// blender per thread. Its own work is cut into row bands over `workers` threads (``RowBands``):
/// every output row depends only on the same rows of its inputs, so the bytes are the same
/// whatever the number.
package final class MaskBlender {
    private var chromaMaskMemory = ScratchBuffer<UInt8>()
    private var columnSums = ScratchBuffer<UInt16>()
    /// Threads one call may use (1: the calling thread only).
    package let workers: Int

    package init(workers: Int = 1) { self.workers = max(1, workers) }

    /// Replaces `frame`'s background with `background` where `mask` is low, in place.
    ///
    /// `background` must have the frame's size and subsampling and `mask` the frame's (luma) size.
    /// An alpha plane, if the frame has one, is left as it is.
    package func blend(_ frame: YUVImage, with background: YUVImage, mask: Plane) {
        precondition(frame.luma.hasSameSize(as: background.luma) && frame.subsampling == background.subsampling,
                     "background layout differs from the frame")
        precondition(frame.luma.hasSameSize(as: mask), "mask size differs from the frame")
        let chroma = chromaMask(mask, subsampling: frame.subsampling)
        // Luma rows y and chroma rows y >> shiftY together, so each band is one pass over its memory.
        let shiftY = frame.subsampling.shiftY
        RowBands.forEach(rows: chroma.height, workers: workers, minimumRows: 16 >> shiftY) { rows in
            let lumaRows = (rows.lowerBound << shiftY)..<min(rows.upperBound << shiftY, frame.height)
            Self.blend(frame.luma, with: background.luma, mask: mask, rows: lumaRows)
            Self.blend(frame.cb, with: background.cb, mask: chroma, rows: rows)
            Self.blend(frame.cr, with: background.cr, mask: chroma, rows: rows)
        }
    }

    /// Makes the background transparent instead: copies `mask` into `image`'s alpha plane.
    ///
    /// With `premultiplied == false` the colour samples are left as they are (straight alpha).
    /// With `premultiplied == true` every colour sample is also scaled towards "no colour" by its
    /// mask value, which for Y'CbCr means towards black and neutral chroma:
    ///
    ///     Y'  → black + (Y' − black) · a / 255        black = 16 (limited range) or 0 (full range)
    ///     C   → 128 + (C − 128) · a / 255
    ///
    /// rounded to nearest, symmetrically about `black` and 128; chroma uses the chroma-resolution mask.
    package func applyAlpha(_ mask: Plane, to image: YUVImage, premultiplied: Bool) {
        precondition(image.luma.hasSameSize(as: mask), "mask size differs from the frame")
        guard let alpha = image.alpha else { preconditionFailure("the image has no alpha plane") }
        if alpha.base != mask.base { alpha.copy(from: mask) }
        guard premultiplied else { return }
        let chroma = chromaMask(mask, subsampling: image.subsampling)
        let shiftY = image.subsampling.shiftY, black: UInt8 = image.colorSpace.fullRange ? 0 : 16
        RowBands.forEach(rows: chroma.height, workers: workers, minimumRows: 16 >> shiftY) { rows in
            let lumaRows = (rows.lowerBound << shiftY)..<min(rows.upperBound << shiftY, image.height)
            Self.premultiply(image.luma, by: mask, around: black, rows: lumaRows)
            Self.premultiply(image.cb, by: chroma, around: 128, rows: rows)
            Self.premultiply(image.cr, by: chroma, around: 128, rows: rows)
        }
    }

    /// The mask at chroma resolution (see the type's documentation), in scratch memory that the
    /// next call reuses. For 4:4:4 it is `mask` itself.
    func chromaMask(_ mask: Plane, subsampling: ChromaSubsampling) -> Plane {
        let shiftX = subsampling.shiftX, shiftY = subsampling.shiftY
        if shiftX == 0 && shiftY == 0 { return mask }
        let size = subsampling.chromaSize(width: mask.width, height: mask.height)
        let output = chromaMaskMemory.plane(width: size.width, height: size.height)
        let bands = RowBands.count(rows: size.height, workers: workers)
        let allSums = columnSums.reserve(mask.width * bands)
        let fullBlocks = mask.width >> shiftX
        RowBands.forEachBand(rows: size.height, workers: workers) { band, chromaRows in
            let sums = allSums + band * mask.width
            for cy in chromaRows {
                // Sum the covered luma rows column by column, then average blocks of columns.
                let firstRow = cy << shiftY
                let rows = min(1 << shiftY, mask.height - firstRow)
                let top = mask.base + firstRow * mask.stride
                for x in 0..<mask.width { sums[x] = UInt16(top[x]) }
                for y in (firstRow + 1)..<(firstRow + rows) {
                    let source = mask.base + y * mask.stride
                    for x in 0..<mask.width { sums[x] &+= UInt16(source[x]) }
                }
                let destination = output.base + cy * output.stride
                Self.blockMeans(sums, blocks: fullBlocks, width: 1 << shiftX, rows: rows, into: destination)
                if fullBlocks < size.width {
                    let first = fullBlocks << shiftX
                    Self.blockMeans(sums + first, blocks: 1, width: mask.width - first, rows: rows,
                                    into: destination + fullBlocks)
                }
            }
        }
        return output
    }

    /// The rounded mean of each of `blocks` consecutive groups of `width` column sums, each over `rows` rows.
    private static func blockMeans(_ sums: UnsafeMutablePointer<UInt16>, blocks: Int, width: Int, rows: Int,
                                   into output: UnsafeMutablePointer<UInt8>) {
        let count = width * rows
        if width == 2 && count & (count - 1) == 0 {
            // 4:2:0 and 4:2:2: pairs, and a power-of-two count, so a shift does the division.
            let shift = UInt16(count.trailingZeroBitCount), bias = UInt16(count / 2)
            for i in 0..<blocks {
                output[i] = UInt8(truncatingIfNeeded: (sums[2 * i] &+ sums[2 * i + 1] &+ bias) >> shift)
            }
            return
        }
        let divide = RoundingDivider(count)
        for i in 0..<blocks {
            var sum: UInt32 = 0
            for k in 0..<width { sum &+= UInt32(sums[i * width + k]) }
            output[i] = UInt8(truncatingIfNeeded: divide(sum))
        }
    }

    /// `target = round((target · a + source · (255 − a)) / 255)`, sample by sample, in `rows`; all three the same size.
    private static func blend(_ target: Plane, with source: Plane, mask: Plane, rows: Range<Int>) {
        for y in rows {
            let fg = target.base + y * target.stride
            let bg = source.base + y * source.stride
            let alpha = mask.base + y * mask.stride
            for x in 0..<target.width {
                let a = UInt16(alpha[x])
                let mixed = UInt16(fg[x]) &* a &+ UInt16(bg[x]) &* (255 &- a)
                fg[x] = UInt8(truncatingIfNeeded: divideBy255Rounded(mixed))
            }
        }
    }

    /// `target = centre ± round(|target − centre| · a / 255)`, sample by sample, in `rows`.
    private static func premultiply(_ target: Plane, by mask: Plane, around centre: UInt8, rows: Range<Int>) {
        let centre = Int16(centre)
        for y in rows {
            let samples = target.base + y * target.stride
            let alpha = mask.base + y * mask.stride
            for x in 0..<target.width {
                let offset = Int16(samples[x]) &- centre
                let scaled = Int16(divideBy255Rounded(UInt16(offset.magnitude) &* UInt16(alpha[x])))
                samples[x] = UInt8(truncatingIfNeeded: offset < 0 ? centre &- scaled : centre &+ scaled)
            }
        }
    }
}
