// Blending a layer's whole 2×2 blocks into a 4:2:0 opaque frame: a row of blocks, or a layer's rows
// blended and cleared in one pass (see CKernels.h and LayerCompositor.swift).
//
// Both paths do, per lane, the float operations LayerCompositor documents in the same order, so
// they give the same bytes as each other and as the per-sample Swift path: a = coverage·opacity;
// a texel's share is (Y', Cb, Cr)·a; the block's sums and its background weight Σ(1 − a) add up
// top left, top right, bottom left, bottom right; a luma sample is share + (1 − a)·Y'bg; a chroma
// sample is (Σ share + Cbg·Σ(1 − a)) / 4; and every result is rounded halves up and clamped to
// 0…255. No multiply–add may be fused (that rounds once instead of twice and changes bytes).
#pragma STDC FP_CONTRACT OFF

#include "CKernels.h"

#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

// MARK: Portable

/// To the nearest 8-bit value (halves up), clamped: `rounded` of LayerCompositor.
static inline uint8_t rounded(float value) {
    float half = value + 0.5f;
    half = half < 255.0f ? half : 255.0f;
    half = half > 0.0f ? half : 0.0f;
    return (uint8_t)half;
}

void ck_blend_blocks_420_portable(const float *top, const float *bottom, uint8_t *luma_top, uint8_t *luma_bottom,
                                  uint8_t *cb, uint8_t *cr, int32_t blocks, float opacity) {
    for (int32_t i = 0; i < blocks; i++) {
        const float *texels[4] = {top + 8 * i, top + 8 * i + 4, bottom + 8 * i, bottom + 8 * i + 4};
        uint8_t *luma[4] = {luma_top + 2 * i, luma_top + 2 * i + 1, luma_bottom + 2 * i, luma_bottom + 2 * i + 1};
        float sum_cb = 0, sum_cr = 0, weight = 0, blended[4];
        for (int k = 0; k < 4; k++) {
            const float a = texels[k][3] * opacity;
            sum_cb += texels[k][1] * a;
            sum_cr += texels[k][2] * a;
            weight += 1.0f - a;
            blended[k] = texels[k][0] * a + (1.0f - a) * (float)*luma[k];
        }
        for (int k = 0; k < 4; k++) *luma[k] = rounded(blended[k]);
        cb[i] = rounded((sum_cb + (float)cb[i] * weight) / 4.0f);
        cr[i] = rounded((sum_cr + (float)cr[i] * weight) / 4.0f);
    }
}

/// A row of blocks blended, their texels then zeroed.
typedef void (*blend_and_clear_row)(float *top, float *bottom, uint8_t *luma_top, uint8_t *luma_bottom, uint8_t *cb,
                                    uint8_t *cr, int32_t blocks, float opacity);

/// The chroma rows of a layer, each row's whole blocks over its two luma rows' touched columns;
/// inlined with each path's `blend`, so that the row's blend is inlined too.
__attribute__((always_inline))
static inline void blend_and_clear_layer(const ck_layer *layer, uint8_t *luma, ptrdiff_t luma_stride, uint8_t *cb,
                                         ptrdiff_t cb_stride, uint8_t *cr, ptrdiff_t cr_stride, int32_t chroma_rows, float opacity,
                                         blend_and_clear_row blend) {
    // In locals: the stores to the rows' columns could alias the struct's fields.
    float *const texels = layer->texels;
    const intptr_t width = layer->width, origin_x = layer->origin_x;
    intptr_t *const row_start = layer->row_start, *const row_end = layer->row_end;
    for (int32_t row = 0; row < chroma_rows; row++) {
        // The columns its two luma rows touch.
        intptr_t *start = row_start + 2 * row, *end = row_end + 2 * row;
        const intptr_t first = start[0] < start[1] ? start[0] : start[1], last = end[0] > end[1] ? end[0] : end[1];
        start[0] = start[1] = INTPTR_MAX;
        end[0] = end[1] = INTPTR_MIN;
        if (first >= last) continue;
        const intptr_t block = first >> 1;
        float *top = texels + 4 * (2 * row * width + 2 * block - origin_x);
        uint8_t *luma_top = luma + 2 * row * luma_stride + 2 * block;
        blend(top, top + 4 * width, luma_top, luma_top + luma_stride, cb + row * cb_stride + block, cr + row * cr_stride + block,
              (int32_t)(((last - 1) >> 1) - block + 1), opacity);
    }
}

static void blend_and_clear_row_portable(float *top, float *bottom, uint8_t *luma_top, uint8_t *luma_bottom, uint8_t *cb,
                                         uint8_t *cr, int32_t blocks, float opacity) {
    ck_blend_blocks_420_portable(top, bottom, luma_top, luma_bottom, cb, cr, blocks, opacity);
    memset(top, 0, 8 * sizeof(float) * (size_t)blocks);
    memset(bottom, 0, 8 * sizeof(float) * (size_t)blocks);
}

// MARK: x86-64

#if defined(__x86_64__)
/// `rounded` on eight lanes, to 32-bit integers.
__attribute__((target("avx2"), always_inline))
static inline __m256i rounded_avx2(__m256 values) {
    const __m256 half = _mm256_add_ps(values, _mm256_set1_ps(0.5f));
    return _mm256_cvttps_epi32(_mm256_max_ps(_mm256_min_ps(half, _mm256_set1_ps(255.0f)), _mm256_setzero_ps()));
}

/// One row of four blocks (eight texels, two per register) turned into lanes: per component, lanes
/// 0–3 hold the blocks' left texels and lanes 4–7 their right ones.
typedef struct {
    __m256 y, cb, cr, coverage;
} texel_lanes;

__attribute__((target("avx2"), always_inline))
static inline texel_lanes transposed(const __m256 row[4]) {
    const __m256 t0 = _mm256_unpacklo_ps(row[0], row[1]), t1 = _mm256_unpackhi_ps(row[0], row[1]);
    const __m256 t2 = _mm256_unpacklo_ps(row[2], row[3]), t3 = _mm256_unpackhi_ps(row[2], row[3]);
    texel_lanes lanes = {_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xEE),
                         _mm256_shuffle_ps(t1, t3, 0x44), _mm256_shuffle_ps(t1, t3, 0xEE)};
    return lanes;
}

/// The eight luma samples under four blocks' row, as floats in the lane order of `texel_lanes`.
__attribute__((target("avx2"), always_inline))
static inline __m256 luma_lanes(const uint8_t *luma) {
    long long bytes;
    memcpy(&bytes, luma, 8);
    const __m128i evenOdd = _mm_shuffle_epi8(_mm_cvtsi64_si128(bytes), _mm_setr_epi8(0, 2, 4, 6, 1, 3, 5, 7, -1, -1, -1, -1, -1, -1, -1, -1));
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(evenOdd));
}

/// Per row: each texel's a, its share of Cb and Cr, 1 − a, and its blended luma (not yet rounded).
typedef struct {
    __m256 cb, cr, background, luma;
} row_blend;

__attribute__((target("avx2"), always_inline))
static inline row_blend blended_row(const __m256 row[4], const uint8_t *luma, __m256 opacity) {
    const texel_lanes texels = transposed(row);
    const __m256 a = _mm256_mul_ps(texels.coverage, opacity);
    const __m256 background = _mm256_sub_ps(_mm256_set1_ps(1.0f), a);
    row_blend blend = {_mm256_mul_ps(texels.cb, a), _mm256_mul_ps(texels.cr, a), background,
                       _mm256_add_ps(_mm256_mul_ps(texels.y, a), _mm256_mul_ps(background, luma_lanes(luma)))};
    return blend;
}

/// Four blocks: `top` and `bottom` hold their texels two per register, `luma_*` their eight luma
/// samples per row, `cb` and `cr` their four chroma samples each.
__attribute__((target("avx2"), always_inline))
static inline void blend4_avx2(const __m256 top[4], const __m256 bottom[4], uint8_t *luma_top, uint8_t *luma_bottom,
                               uint8_t *cb, uint8_t *cr, __m256 opacity) {
    const row_blend upper = blended_row(top, luma_top, opacity), lower = blended_row(bottom, luma_bottom, opacity);
    // Luma: rounded, packed to bytes (left texels then right ones, per row) and interleaved back.
    const __m256i words = _mm256_packus_epi32(rounded_avx2(upper.luma), rounded_avx2(lower.luma));
    const __m128i bytes = _mm_shuffle_epi8(_mm_packus_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1)),
                                           _mm_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15));
    const long long topBytes = _mm_cvtsi128_si64(bytes), bottomBytes = _mm_extract_epi64(bytes, 1);
    memcpy(luma_top, &topBytes, 8);
    memcpy(luma_bottom, &bottomBytes, 8);
    // Chroma: Cb in lanes 0–3 and Cr in lanes 4–7, summed top left, top right, bottom left, bottom right.
    __m256 sums = _mm256_add_ps(_mm256_permute2f128_ps(upper.cb, upper.cr, 0x20), _mm256_permute2f128_ps(upper.cb, upper.cr, 0x31));
    sums = _mm256_add_ps(sums, _mm256_permute2f128_ps(lower.cb, lower.cr, 0x20));
    sums = _mm256_add_ps(sums, _mm256_permute2f128_ps(lower.cb, lower.cr, 0x31));
    __m128 weight = _mm_add_ps(_mm256_castps256_ps128(upper.background), _mm256_extractf128_ps(upper.background, 1));
    weight = _mm_add_ps(weight, _mm256_castps256_ps128(lower.background));
    weight = _mm_add_ps(weight, _mm256_extractf128_ps(lower.background, 1));
    int32_t cbBytes, crBytes;
    memcpy(&cbBytes, cb, 4);
    memcpy(&crBytes, cr, 4);
    const __m256 chromaBackground = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_insert_epi32(_mm_cvtsi32_si128(cbBytes), crBytes, 1)));
    const __m256 chroma = _mm256_mul_ps(_mm256_add_ps(sums, _mm256_mul_ps(chromaBackground, _mm256_set_m128(weight, weight))),
                                        _mm256_set1_ps(0.25f));  // exactly / 4
    const __m256i chromaWords = rounded_avx2(chroma);
    const __m128i chromaBytes = _mm_packus_epi16(_mm_packus_epi32(_mm256_castsi256_si128(chromaWords), _mm256_extracti128_si256(chromaWords, 1)),
                                                 _mm_setzero_si128());
    cbBytes = _mm_cvtsi128_si32(chromaBytes);
    crBytes = _mm_extract_epi32(chromaBytes, 1);
    memcpy(cb, &cbBytes, 4);
    memcpy(cr, &crBytes, 4);
}

/// `rounded` on four lanes, to 32-bit integers.
__attribute__((target("avx2"), always_inline))
static inline __m128i rounded4_avx2(__m128 values) {
    const __m128 half = _mm_add_ps(values, _mm_set1_ps(0.5f));
    return _mm_cvttps_epi32(_mm_max_ps(_mm_min_ps(half, _mm_set1_ps(255.0f)), _mm_setzero_ps()));
}

/// One block, its texels as they lie (two per register, a texel's a broadcast to its four
/// components): for the one to three blocks that end most rows, cheaper than a step of four
/// padded with uncovered texels.
__attribute__((target("avx2"), always_inline))
static inline void blend1_avx2(const float *top, const float *bottom, uint8_t *luma_top, uint8_t *luma_bottom, uint8_t *cb,
                               uint8_t *cr, __m256 opacity) {
    const __m256 upper = _mm256_loadu_ps(top), lower = _mm256_loadu_ps(bottom);
    const __m256 upperA = _mm256_mul_ps(_mm256_permute_ps(upper, 0xFF), opacity);
    const __m256 lowerA = _mm256_mul_ps(_mm256_permute_ps(lower, 0xFF), opacity);
    const __m256 upperShare = _mm256_mul_ps(upper, upperA), lowerShare = _mm256_mul_ps(lower, lowerA);
    const __m256 upperBackground = _mm256_sub_ps(_mm256_set1_ps(1.0f), upperA);
    const __m256 lowerBackground = _mm256_sub_ps(_mm256_set1_ps(1.0f), lowerA);
    // Luma: each sample broadcast over its texel's four lanes; lane 0 of each texel is its blend.
    uint16_t upperBytes, lowerBytes;
    memcpy(&upperBytes, luma_top, 2);
    memcpy(&lowerBytes, luma_bottom, 2);
    const __m128i bytes = _mm_cvtsi32_si128((int32_t)((uint32_t)upperBytes | ((uint32_t)lowerBytes << 16)));
    const __m256 upperLuma = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_shuffle_epi8(bytes, _mm_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1))));
    const __m256 lowerLuma = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_shuffle_epi8(bytes, _mm_setr_epi8(2, 2, 2, 2, 3, 3, 3, 3, -1, -1, -1, -1, -1, -1, -1, -1))));
    const __m256 blended = _mm256_shuffle_ps(_mm256_add_ps(upperShare, _mm256_mul_ps(upperBackground, upperLuma)),
                                             _mm256_add_ps(lowerShare, _mm256_mul_ps(lowerBackground, lowerLuma)), 0x00);
    // (top left, top left, bottom left, bottom left | top right, …) to (top left, top right, bottom left, bottom right).
    const __m128 left = _mm256_castps256_ps128(blended), right = _mm256_extractf128_ps(blended, 1);
    const __m128 samples = _mm_movelh_ps(_mm_unpacklo_ps(left, right), _mm_unpackhi_ps(left, right));
    const uint32_t luma = (uint32_t)_mm_cvtsi128_si32(_mm_shuffle_epi8(rounded4_avx2(samples), _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)));
    upperBytes = (uint16_t)luma;
    lowerBytes = (uint16_t)(luma >> 16);
    memcpy(luma_top, &upperBytes, 2);
    memcpy(luma_bottom, &lowerBytes, 2);
    // Chroma: per texel (·, Cb·a, Cr·a, 1 − a), summed top left, top right, bottom left, bottom right.
    const __m256 upperSums = _mm256_blend_ps(upperShare, upperBackground, 0x88), lowerSums = _mm256_blend_ps(lowerShare, lowerBackground, 0x88);
    __m128 sums = _mm_add_ps(_mm256_castps256_ps128(upperSums), _mm256_extractf128_ps(upperSums, 1));
    sums = _mm_add_ps(sums, _mm256_castps256_ps128(lowerSums));
    sums = _mm_add_ps(sums, _mm256_extractf128_ps(lowerSums, 1));
    const __m128 background = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_cvtsi32_si128((int32_t)(((uint32_t)*cb << 8) | ((uint32_t)*cr << 16)))));
    const __m128 chroma = _mm_mul_ps(_mm_add_ps(sums, _mm_mul_ps(background, _mm_permute_ps(sums, 0xFF))), _mm_set1_ps(0.25f));
    const uint32_t chromaBytes = (uint32_t)_mm_cvtsi128_si32(_mm_shuffle_epi8(rounded4_avx2(chroma), _mm_setr_epi8(4, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)));
    *cb = (uint8_t)chromaBytes;
    *cr = (uint8_t)(chromaBytes >> 8);
}

/// Four blocks per step, the last one to three one by one; with `clear` (a constant where inlined),
/// each texel zeroed once loaded, while it is in the cache.
__attribute__((target("avx2"), always_inline))
static inline void blend_row_avx2(float *top, float *bottom, uint8_t *luma_top, uint8_t *luma_bottom, uint8_t *cb, uint8_t *cr,
                                  int32_t blocks, float opacity, int clear) {
    const __m256 scale = _mm256_set1_ps(opacity);
    int32_t i = 0;
    for (; i + 4 <= blocks; i += 4) {
        const __m256 upper[4] = {_mm256_loadu_ps(top + 8 * i), _mm256_loadu_ps(top + 8 * i + 8), _mm256_loadu_ps(top + 8 * i + 16),
                                 _mm256_loadu_ps(top + 8 * i + 24)};
        const __m256 lower[4] = {_mm256_loadu_ps(bottom + 8 * i), _mm256_loadu_ps(bottom + 8 * i + 8),
                                 _mm256_loadu_ps(bottom + 8 * i + 16), _mm256_loadu_ps(bottom + 8 * i + 24)};
        if (clear) {
            for (int k = 0; k < 4; k++) {
                _mm256_storeu_ps(top + 8 * (i + k), _mm256_setzero_ps());
                _mm256_storeu_ps(bottom + 8 * (i + k), _mm256_setzero_ps());
            }
        }
        blend4_avx2(upper, lower, luma_top + 2 * i, luma_bottom + 2 * i, cb + i, cr + i, scale);
    }
    for (; i < blocks; i++) {
        blend1_avx2(top + 8 * i, bottom + 8 * i, luma_top + 2 * i, luma_bottom + 2 * i, cb + i, cr + i, scale);
        if (clear) {
            _mm256_storeu_ps(top + 8 * i, _mm256_setzero_ps());
            _mm256_storeu_ps(bottom + 8 * i, _mm256_setzero_ps());
        }
    }
}

__attribute__((target("avx2")))
static void blend_blocks_avx2(const float *top, const float *bottom, uint8_t *luma_top, uint8_t *luma_bottom, uint8_t *cb,
                              uint8_t *cr, int32_t blocks, float opacity) {
    // Never written: `clear` is 0.
    blend_row_avx2((float *)top, (float *)bottom, luma_top, luma_bottom, cb, cr, blocks, opacity, 0);
}

__attribute__((target("avx2"), always_inline))
static inline void blend_and_clear_row_avx2(float *top, float *bottom, uint8_t *luma_top, uint8_t *luma_bottom, uint8_t *cb,
                                            uint8_t *cr, int32_t blocks, float opacity) {
    blend_row_avx2(top, bottom, luma_top, luma_bottom, cb, cr, blocks, opacity, 1);
}

__attribute__((target("avx2")))
static void blend_and_clear_layer_avx2(const ck_layer *layer, uint8_t *luma, ptrdiff_t luma_stride, uint8_t *cb,
                                       ptrdiff_t cb_stride, uint8_t *cr, ptrdiff_t cr_stride, int32_t chroma_rows, float opacity) {
    blend_and_clear_layer(layer, luma, luma_stride, cb, cb_stride, cr, cr_stride, chroma_rows, opacity, blend_and_clear_row_avx2);
}
#endif

// MARK: Entry points

/// Asks for each cache line of `count` bytes from `first`, once.
static inline void prefetch_span(const uint8_t *first, int32_t count) {
    const uintptr_t last = (uintptr_t)(first + count - 1);
    for (uintptr_t line = (uintptr_t)first & ~(uintptr_t)63; line <= last; line += 64) __builtin_prefetch((const void *)line, 1);
}

void ck_prefetch_420(const uint8_t *luma, ptrdiff_t luma_stride, const uint8_t *cb, ptrdiff_t cb_stride, const uint8_t *cr,
                     ptrdiff_t cr_stride, int32_t width, int32_t rows) {
    for (int32_t row = 0; row < rows; row++) {
        prefetch_span(luma + row * luma_stride, width);
        if (row & 1) continue;
        prefetch_span(cb + (row >> 1) * cb_stride, (width + 1) >> 1);
        prefetch_span(cr + (row >> 1) * cr_stride, (width + 1) >> 1);
    }
}

void ck_blend_blocks_420(const float *top, const float *bottom, uint8_t *luma_top, uint8_t *luma_bottom, uint8_t *cb,
                         uint8_t *cr, int32_t blocks, float opacity) {
#if defined(__x86_64__)
    if (ck_cpu_has_avx2()) {
        blend_blocks_avx2(top, bottom, luma_top, luma_bottom, cb, cr, blocks, opacity);
        return;
    }
#endif
    ck_blend_blocks_420_portable(top, bottom, luma_top, luma_bottom, cb, cr, blocks, opacity);
}

void ck_blend_and_clear_420(ck_layer layer, uint8_t *luma, ptrdiff_t luma_stride, uint8_t *cb, ptrdiff_t cb_stride,
                            uint8_t *cr, ptrdiff_t cr_stride, int32_t chroma_rows, float opacity) {
#if defined(__x86_64__)
    if (ck_cpu_has_avx2()) {
        blend_and_clear_layer_avx2(&layer, luma, luma_stride, cb, cb_stride, cr, cr_stride, chroma_rows, opacity);
        return;
    }
#endif
    ck_blend_and_clear_420_portable(layer, luma, luma_stride, cb, cb_stride, cr, cr_stride, chroma_rows, opacity);
}

void ck_blend_and_clear_420_portable(ck_layer layer, uint8_t *luma, ptrdiff_t luma_stride, uint8_t *cb, ptrdiff_t cb_stride,
                                     uint8_t *cr, ptrdiff_t cr_stride, int32_t chroma_rows, float opacity) {
    blend_and_clear_layer(&layer, luma, luma_stride, cb, cb_stride, cr, cr_stride, chroma_rows, opacity, blend_and_clear_row_portable);
}
