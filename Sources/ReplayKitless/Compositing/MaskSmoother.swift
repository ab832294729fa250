/// Temporal smoothing of a mask sequence (`--mask-smooth N`), to calm segmentation flicker.
///
/// A sliding mean: each mask is replaced, sample by sample, by the mean of itself and the
/// masks before it, at most `frames` in all,
///
///     out_t = round( (m_t + m_{t−1} + … + m_{t−c+1}) / c ),   c = min(t + 1, frames)
///
/// rounded half up. Unlike an exponential average it forgets a mask completely after `frames`
/// frames, so a brief mis-segmentation never lingers. A mask of a different size from the
/// previous one (the stream changed resolution) starts the window afresh, as does ``reset()``.
package final class MaskSmoother {
    /// Largest window (``BackgroundSettings/maximumSmoothFrames``).
    package static let maximumFrames = BackgroundSettings.maximumSmoothFrames

    /// How many masks the mean spans.
    package let frames: Int

    private var history = ScratchBuffer<UInt8>()
    private var sums = ScratchBuffer<UInt32>()
    private var width = 0, height = 0
    private var stored = 0, nextSlot = 0

    /// A smoother over `frames` masks (1 leaves masks unchanged).
    /// - Throws: `ReplayError.usage` naming `BackgroundSettings.smoothFrames` when `frames` is not in 1…``maximumFrames``.
    package init(frames: Int) throws(ReplayError) {
        guard (1...Self.maximumFrames).contains(frames) else {
            throw ReplayError.usage("`BackgroundSettings.smoothFrames`: \(frames) is not a frame count from 1 to \(Self.maximumFrames)",
                                    options: ["BackgroundSettings.smoothFrames"])
        }
        self.frames = frames
    }

    /// Forgets the masks seen so far (after a seek or a cut).
    package func reset() { stored = 0; nextSlot = 0 }

    /// Replaces `mask` in place by the mean over the window, and remembers it.
    package func smooth(_ mask: Plane) {
        if mask.width != width || mask.height != height {
            width = mask.width
            height = mask.height
            reset()
        }
        let pixels = width * height
        let slots = history.reserve(pixels * frames)
        let total = sums.reserve(pixels)
        if stored == 0 { total.update(repeating: 0, count: pixels) }
        let slot = slots + nextSlot * pixels
        let evicting = stored == frames
        stored = min(stored + 1, frames)
        nextSlot = (nextSlot + 1) % frames
        let mean = RoundingDivider(stored)
        for y in 0..<height {
            let row = mask.base + y * mask.stride
            let saved = slot + y * width, sum = total + y * width
            for x in 0..<width {
                let leaving: UInt32 = evicting ? UInt32(saved[x]) : 0
                sum[x] = sum[x] &+ UInt32(row[x]) &- leaving
                saved[x] = row[x]
                row[x] = UInt8(truncatingIfNeeded: mean(sum[x]))
            }
        }
    }
}
