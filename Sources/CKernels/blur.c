// The blur's extended-box cascade (see CKernels.h and GaussianBlur.swift).
//
// Both directions run the same kernel: 16 independent lines side by side ("lanes"), walked along
// their length in one sweep that feeds every pass of the cascade at once. Down columns the lanes are
// 16 neighbouring columns; along rows, 16 rows are first transposed into a block of 16-byte lines
// (and back afterwards). Each pass keeps the last 2·radius + 3 samples it was fed in a small ring
// and the running sum of its inner window, so the whole cascade stays in L1 and reads its input
// once. All arithmetic is exact integer arithmetic: the AVX2 path and the portable one give the
// same bytes, and so does any split of the lines between threads.
#include "CKernels.h"

#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

enum { LANES = 16, MAX_PASSES = 4 };

static int forced_portable = 0;

void ck_blur_force_portable(int portable) { forced_portable = portable; }

/// Ring entries per pass: a power of two holding a window of 2·radius + 3 samples.
static int32_t ring_length(ck_box_kernel kernel) {
    int32_t need = 2 * (kernel.radius + 1) + 1, length = 1;
    while (length < need) length <<= 1;
    return length;
}

size_t ck_box_scratch_bytes(ck_box_kernel kernel, int32_t width) {
    size_t rings = (size_t)MAX_PASSES * (size_t)ring_length(kernel) * LANES * sizeof(uint16_t);
    return rings + ((size_t)(width > 0 ? width : 1) + LANES) * LANES;
}

/// `lanes` (≤ 16) neighbouring lines of `length` samples, sample i of line j at src[i·stride + j].
typedef struct {
    const uint8_t *source;
    ptrdiff_t source_stride;
    uint8_t *destination;
    ptrdiff_t destination_stride;
    int32_t length;
    int32_t lanes;
} line_block;

static inline int32_t clamped(int32_t index, int32_t length) {
    return index < 0 ? 0 : index >= length ? length - 1 : index;
}

// MARK: Portable

/// The cascade on one block, lane by lane (compilers vectorise the inner loops where they can).
static void cascade_portable(line_block block, ck_box_kernel kernel, uint16_t *rings) {
    const int32_t span = 2 * (kernel.radius + 1), reach = kernel.passes * (kernel.radius + 1);
    const int32_t total = block.length + 2 * reach, mask = ring_length(kernel) - 1;
    const uint32_t half = 1u << (kernel.shift - 1);
    uint32_t sums[MAX_PASSES][LANES];
    int32_t counts[MAX_PASSES] = {0};
    memset(sums, 0, sizeof sums);
    for (int32_t t = 0; t < total; t++) {
        const uint8_t *input = block.source + (ptrdiff_t)clamped(t - reach, block.length) * block.source_stride;
        uint16_t value[LANES] = {0};
        for (int32_t i = 0; i < block.lanes; i++) value[i] = input[i];
        int emitted = 1;
        for (int32_t pass = 0; pass < kernel.passes; pass++) {
            uint16_t *ring = rings + (size_t)pass * (size_t)(mask + 1) * LANES;
            const int32_t count = counts[pass]++;
            memcpy(ring + (size_t)(count & mask) * LANES, value, sizeof value);
            if (count < span) {  // filling the window: the inner sum covers fed samples 1 … 2·radius + 1
                if (count > 0) for (int i = 0; i < LANES; i++) sums[pass][i] += value[i];
                emitted = 0;
                break;
            }
            const uint16_t *first = ring + (size_t)((count - span) & mask) * LANES;
            const uint16_t *leaving = ring + (size_t)((count - span + 1) & mask) * LANES;
            for (int i = 0; i < LANES; i++) {
                uint32_t out = (sums[pass][i] * kernel.inner + (uint32_t)(first[i] + value[i]) * kernel.outer + half) >> kernel.shift;
                sums[pass][i] += (uint32_t)value[i] - leaving[i];
                value[i] = (uint16_t)out;
            }
        }
        if (!emitted) continue;
        uint8_t *output = block.destination + (ptrdiff_t)(t - 2 * reach) * block.destination_stride;
        for (int32_t i = 0; i < block.lanes; i++) output[i] = (uint8_t)value[i];
    }
}

/// Rows `rows[0…15]` from column `x` on, 16 wide, into `out` as 16 lines of 16 bytes `stride` apart.
static void transpose_portable(const uint8_t *const rows[LANES], int32_t x, int32_t columns, uint8_t *out, ptrdiff_t stride) {
    for (int32_t c = 0; c < columns; c++)
        for (int i = 0; i < LANES; i++) out[c * stride + i] = rows[i][x + c];
}

// MARK: x86-64

#if defined(__x86_64__)
/// One pass of the cascade on 16 lanes: stores `value` at `slot`, and returns the output it completes from
/// the window `first` … `slot`, moving the inner sum on by one. Needs weights and inner sums below
/// 2¹⁵ (`madd` multiplies signed 16-bit pairs) and shift 16.
__attribute__((target("avx2"), always_inline))
static inline __m256i box_pass_avx2(__m256i value, __m256i *sum, uint16_t *slot, const uint16_t *first,
                                    const uint16_t *leaving, __m256i weights, __m256i half) {
    _mm256_storeu_si256((__m256i *)slot, value);
    const __m256i outside = _mm256_add_epi16(_mm256_loadu_si256((const __m256i *)first), value);
    __m256i low = _mm256_madd_epi16(_mm256_unpacklo_epi16(*sum, outside), weights);
    __m256i high = _mm256_madd_epi16(_mm256_unpackhi_epi16(*sum, outside), weights);
    low = _mm256_srli_epi32(_mm256_add_epi32(low, half), 16);
    high = _mm256_srli_epi32(_mm256_add_epi32(high, half), 16);
    *sum = _mm256_sub_epi16(_mm256_add_epi16(*sum, value), _mm256_loadu_si256((const __m256i *)leaving));
    return _mm256_packus_epi32(low, high);  // in-lane unpack then pack: the lane order is kept
}

/// The same cascade with 16 lanes of 16 bits in one AVX2 register (radius ≤ 63, shift 16). Until
/// every pass has filled its window the passes are fed one by one; from then on (t ≥ 2·reach) every
/// step runs all four passes straight through.
__attribute__((target("avx2")))
static void cascade_avx2(line_block block, ck_box_kernel kernel, uint16_t *rings) {
    const int32_t span = 2 * (kernel.radius + 1), reach = kernel.passes * (kernel.radius + 1);
    const int32_t total = block.length + 2 * reach, mask = ring_length(kernel) - 1;
    const __m256i weights = _mm256_set1_epi32((int32_t)(kernel.inner | (kernel.outer << 16)));
    const __m256i half = _mm256_set1_epi32(1 << 15);
    __m256i sum0 = _mm256_setzero_si256(), sum1 = sum0, sum2 = sum0, sum3 = sum0;
    __m256i *sums[MAX_PASSES] = {&sum0, &sum1, &sum2, &sum3};
    const int whole = block.lanes == LANES;
    const int32_t steadyFrom = kernel.passes == MAX_PASSES ? 2 * reach : total;
    enum { ENTRY = MAX_PASSES * LANES };  // ring entry t holds every pass's sample of step t
    for (int32_t t = 0; t < total; t++) {
        const uint8_t *input = block.source + (ptrdiff_t)clamped(t - reach, block.length) * block.source_stride;
        __m128i bytes;
        if (whole) {
            bytes = _mm_loadu_si128((const __m128i *)input);
        } else {
            uint8_t partial[LANES] = {0};
            memcpy(partial, input, (size_t)block.lanes);
            bytes = _mm_loadu_si128((const __m128i *)partial);
        }
        __m256i value = _mm256_cvtepu8_epi16(bytes);
        uint16_t *slot = rings + (size_t)(t & mask) * ENTRY;
        const uint16_t *first = rings + (size_t)((t - span) & mask) * ENTRY;
        const uint16_t *leaving = rings + (size_t)((t - span + 1) & mask) * ENTRY;
        if (t >= steadyFrom) {
            value = box_pass_avx2(value, &sum0, slot, first, leaving, weights, half);
            value = box_pass_avx2(value, &sum1, slot + LANES, first + LANES, leaving + LANES, weights, half);
            value = box_pass_avx2(value, &sum2, slot + 2 * LANES, first + 2 * LANES, leaving + 2 * LANES, weights, half);
            value = box_pass_avx2(value, &sum3, slot + 3 * LANES, first + 3 * LANES, leaving + 3 * LANES, weights, half);
        } else {
            // Pass p has been fed t − p·span samples before this one.
            int emitted = 1;
            for (int32_t pass = 0; pass < kernel.passes; pass++) {
                const int32_t count = t - pass * span, offset = pass * LANES;
                if (count < span) {  // filling the window: the inner sum covers fed samples 1 … 2·radius + 1
                    _mm256_storeu_si256((__m256i *)(slot + offset), value);
                    if (count > 0) *sums[pass] = _mm256_add_epi16(*sums[pass], value);
                    emitted = 0;
                    break;
                }
                value = box_pass_avx2(value, sums[pass], slot + offset, first + offset, leaving + offset, weights, half);
            }
            if (!emitted) continue;
        }
        const __m128i packed = _mm_packus_epi16(_mm256_castsi256_si128(value), _mm256_extracti128_si256(value, 1));
        uint8_t *output = block.destination + (ptrdiff_t)(t - 2 * reach) * block.destination_stride;
        if (whole) {
            _mm_storeu_si128((__m128i *)output, packed);
        } else {
            uint8_t partial[LANES];
            _mm_storeu_si128((__m128i *)partial, packed);
            memcpy(output, partial, (size_t)block.lanes);
        }
    }
}

/// A 16 × 16 byte transpose with SSE2 (always there on x86-64): four rounds of interleaving row i
/// with row i + 8 turn rows into columns. Row i is read from `rows[i] + x`; column j goes to
/// `out + j·stride`.
#define CK_INTERLEAVE(a, b)                                                                               \
    b[0] = _mm_unpacklo_epi8(a[0], a[8]);   b[1] = _mm_unpackhi_epi8(a[0], a[8]);                           \
    b[2] = _mm_unpacklo_epi8(a[1], a[9]);   b[3] = _mm_unpackhi_epi8(a[1], a[9]);                           \
    b[4] = _mm_unpacklo_epi8(a[2], a[10]);  b[5] = _mm_unpackhi_epi8(a[2], a[10]);                          \
    b[6] = _mm_unpacklo_epi8(a[3], a[11]);  b[7] = _mm_unpackhi_epi8(a[3], a[11]);                          \
    b[8] = _mm_unpacklo_epi8(a[4], a[12]);  b[9] = _mm_unpackhi_epi8(a[4], a[12]);                          \
    b[10] = _mm_unpacklo_epi8(a[5], a[13]); b[11] = _mm_unpackhi_epi8(a[5], a[13]);                         \
    b[12] = _mm_unpacklo_epi8(a[6], a[14]); b[13] = _mm_unpackhi_epi8(a[6], a[14]);                         \
    b[14] = _mm_unpacklo_epi8(a[7], a[15]); b[15] = _mm_unpackhi_epi8(a[7], a[15]);

static void transpose_sse2(const uint8_t *const rows[LANES], int32_t x, uint8_t *out, ptrdiff_t stride) {
    __m128i a[LANES], b[LANES];
    for (int i = 0; i < LANES; i++) a[i] = _mm_loadu_si128((const __m128i *)(rows[i] + x));
    CK_INTERLEAVE(a, b)
    CK_INTERLEAVE(b, a)
    CK_INTERLEAVE(a, b)
    CK_INTERLEAVE(b, a)
    for (int i = 0; i < LANES; i++) _mm_storeu_si128((__m128i *)(out + i * stride), a[i]);
}
#undef CK_INTERLEAVE
#endif

// MARK: Entry points

static int avx2_fits(ck_box_kernel kernel) {
#if defined(__x86_64__)
    return !forced_portable && kernel.shift == 16 && kernel.inner < 32768 && kernel.outer < 32768
        && (2 * kernel.radius + 1) * 255 < 32768 && ck_cpu_has_avx2();
#else
    (void)kernel;
    return 0;
#endif
}

static void cascade(line_block block, ck_box_kernel kernel, uint16_t *rings, int avx2) {
    if (kernel.passes < 1 || kernel.passes > MAX_PASSES || block.length < 1 || block.lanes < 1) return;
#if defined(__x86_64__)
    if (avx2) {
        cascade_avx2(block, kernel, rings);
        return;
    }
#endif
    (void)avx2;
    cascade_portable(block, kernel, rings);
}

/// Sixteen rows (some repeated when fewer are left) from column `x` on, `columns` wide, into lines.
static void transpose(const uint8_t *const rows[LANES], int32_t x, int32_t columns, uint8_t *out, ptrdiff_t stride) {
#if defined(__x86_64__)
    if (columns == LANES) {
        transpose_sse2(rows, x, out, stride);
        return;
    }
#endif
    transpose_portable(rows, x, columns, out, stride);
}

void ck_box_blur_columns(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                         ptrdiff_t destination_stride, int32_t width, int32_t height, ck_box_kernel kernel,
                         void *scratch) {
    const int avx2 = avx2_fits(kernel);
    for (int32_t x = 0; x < width; x += LANES) {
        line_block block = {source + x, source_stride, destination + x, destination_stride, height,
                            width - x < LANES ? width - x : LANES};
        cascade(block, kernel, (uint16_t *)scratch, avx2);
    }
}

void ck_box_blur_rows(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                      ptrdiff_t destination_stride, int32_t width, int32_t height, ck_box_kernel kernel,
                      void *scratch) {
    const int avx2 = avx2_fits(kernel);
    uint16_t *rings = (uint16_t *)scratch;
    uint8_t *lines = (uint8_t *)(rings + (size_t)MAX_PASSES * (size_t)ring_length(kernel) * LANES);
    for (int32_t y = 0; y < height; y += LANES) {
        const int32_t count = height - y < LANES ? height - y : LANES;
        const uint8_t *rows[LANES];
        // Missing rows of the last block repeat its last row; only the real rows are written back.
        for (int i = 0; i < LANES; i++) rows[i] = source + (ptrdiff_t)(y + (i < count ? i : count - 1)) * source_stride;
        for (int32_t x = 0; x < width; x += LANES) {
            transpose(rows, x, width - x < LANES ? width - x : LANES, lines + (ptrdiff_t)x * LANES, LANES);
        }
        line_block block = {lines, LANES, lines, LANES, width, LANES};
        cascade(block, kernel, rings, avx2);
        uint8_t transposed[LANES * LANES];
        for (int32_t x = 0; x < width; x += LANES) {
            const int32_t columns = width - x < LANES ? width - x : LANES;
            const uint8_t *lineRows[LANES];
            for (int i = 0; i < LANES; i++) lineRows[i] = lines + (ptrdiff_t)(x + i) * LANES;  // the line block has room
            if (count == LANES && columns == LANES) {
                transpose(lineRows, 0, LANES, destination + (ptrdiff_t)y * destination_stride + x, destination_stride);
                continue;
            }
            transpose(lineRows, 0, LANES, transposed, LANES);
            for (int i = 0; i < count; i++) {
                memcpy(destination + (ptrdiff_t)(y + i) * destination_stride + x, transposed + i * LANES, (size_t)columns);
            }
        }
    }
}
