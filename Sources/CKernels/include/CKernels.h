// CKernels: small hot loops of fxreplay in C, SIMD where the CPU allows it (chosen at run time,
// with a portable fallback that gives the same bytes). One header for every kernel; one .c file
// per kernel.
#ifndef CKERNELS_H
#define CKERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: cpu.c — what the CPU offers

/// Whether this CPU has AVX2, which every kernel's SIMD path needs (also for benchmarks and tests
/// that compare paths).
int ck_cpu_has_avx2(void);

// MARK: blur.c — cascade of extended box filters on 8-bit planes

/// One direction of the Gaussian blur as `passes` extended box filters (GaussianBlur.swift): weight
/// `inner` on offsets -radius…radius and `outer` on ±(radius + 1), in fixed point with `shift`
/// fraction bits, where (2·radius + 1)·inner + 2·outer = 1 << shift exactly (so a constant stays
/// constant). Every pass rounds to 8 bits, to nearest; the edge sample is repeated (clamp to edge)
/// once for the whole cascade.
typedef struct {
    int32_t radius;
    int32_t passes;
    uint32_t inner;
    uint32_t outer;
    int32_t shift;
} ck_box_kernel;

/// Bytes of scratch memory `ck_box_blur_rows` / `ck_box_blur_columns` need for lines of `width`
/// samples (rows) with `kernel`. One scratch per thread.
size_t ck_box_scratch_bytes(ck_box_kernel kernel, int32_t width);

/// Blurs `height` rows of `width` samples along the rows. `source` may equal `destination`.
void ck_box_blur_rows(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                      ptrdiff_t destination_stride, int32_t width, int32_t height, ck_box_kernel kernel,
                      void *scratch);

/// Blurs `width` columns of `height` samples down the columns. `source` may equal `destination`.
/// Columns are independent: any split of a plane into column ranges gives the same bytes.
void ck_box_blur_columns(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                         ptrdiff_t destination_stride, int32_t width, int32_t height, ck_box_kernel kernel,
                         void *scratch);

/// Forces the portable path (nonzero) or lets the CPU decide (0); for tests only.
void ck_blur_force_portable(int portable);

// MARK: composite.c — a layer's whole 2×2 blocks over a 4:2:0 opaque frame

/// Blends `blocks` whole 2×2 blocks of a layer into one chroma row of an opaque 4:2:0 frame with
/// nothing in front, as LayerCompositor documents it: per luma sample Y'bg + a·(Y' − Y'bg) as
/// `share + (1 − a)·Y'bg`, per chroma sample `(Σ a·C + Cbg·Σ(1 − a)) / 4`, a = coverage·`opacity`,
/// rounded halves up and clamped. `top` and `bottom` point at the layer's texels (Y', Cb, Cr,
/// coverage: four floats each) of the blocks' first luma column in the two rows, `luma_top` and
/// `luma_bottom` at the frame's luma samples there, `cb` and `cr` at the first block's chroma
/// samples. The same bytes on every path.
void ck_blend_blocks_420(const float *top, const float *bottom, uint8_t *luma_top, uint8_t *luma_bottom, uint8_t *cb,
                         uint8_t *cr, int32_t blocks, float opacity);

/// `ck_blend_blocks_420` without SIMD, whatever the CPU (for tests that compare paths).
void ck_blend_blocks_420_portable(const float *top, const float *bottom, uint8_t *luma_top, uint8_t *luma_bottom,
                                  uint8_t *cb, uint8_t *cr, int32_t blocks, float opacity);

#ifdef __cplusplus
}
#endif

#endif
