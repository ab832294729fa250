// One 64×64 tile of MeshRasterizer (MeshRasterizer.swift documents the method): the per-pixel loops
// in C, where a pixel costs what its arithmetic costs (no overflow traps, no range-checked
// conversions, no copies of a triangle per pixel). Edge functions and depth in double, shading in
// single precision; where vectors take several pixels or sample rows at once, each lane does one's
// arithmetic, so the AVX2 copy and the portable one give the same bytes.
#include "CKernels.h"
#include <math.h>
#include <string.h>

// The same results whatever the compiler may fuse: a·b + c rounds twice, as in Swift.
#pragma clang fp contract(off)

enum { TILE = CK_RASTER_TILE };

/// Every helper is inlined into the entry point's two copies (`draw_avx2` and `draw_portable`), so
/// each is compiled for its own instruction set: the AVX2 one counts bits (coverage, centroids) and
/// finds them with one instruction each.
#define KERNEL static inline __attribute__((always_inline))

/// Vectors of two to eight doubles, floats or integers, in vector registers wherever the target has them.
typedef double double2 __attribute__((ext_vector_type(2)));
typedef double double4 __attribute__((ext_vector_type(4)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef int32_t int4 __attribute__((ext_vector_type(4)));
typedef int64_t long4 __attribute__((ext_vector_type(4)));
typedef float float8 __attribute__((ext_vector_type(8)));
typedef double double8 __attribute__((ext_vector_type(8)));
typedef int64_t long8 __attribute__((ext_vector_type(8)));
typedef int32_t int8 __attribute__((ext_vector_type(8)));
typedef int8_t char8 __attribute__((ext_vector_type(8)));
typedef uint8_t uchar8 __attribute__((ext_vector_type(8)));

// Helpers pass eight-lane vectors, which the portable copy keeps in pairs of SSE registers: no
// call is left to disagree about that (every helper is inlined).
#pragma clang diagnostic ignored "-Wpsabi"

KERNEL float4 load4(const float *p) {
    float4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

void ck_raster_tile_init(ck_raster_tile *tile) {
    memset(tile, 0, sizeof *tile);
    for (int i = 0; i < TILE * TILE; i++) {
        tile->centre_depth[i] = -INFINITY;
        tile->reach_depth[i] = -INFINITY;
    }
}

/// A pixel rectangle `min_x..<max_x` × `min_y..<max_y`.
typedef struct {
    int32_t min_x, min_y, max_x, max_y;
} rect;

KERNEL int32_t max32(int32_t a, int32_t b) { return a > b ? a : b; }
KERNEL int32_t min32(int32_t a, int32_t b) { return a < b ? a : b; }

/// Bits `first...last` of a tile row (0 ≤ first ≤ last < 64).
KERNEL uint64_t columns(int32_t first, int32_t last) {
    return (UINT64_MAX >> (63 - (last - first))) << first;
}

/// ⌊value⌋ clamped to `low...high` (low ≥ 0, so truncation floors; NaN gives low).
KERNEL int32_t clamped_floor(double value, int32_t low, int32_t high) {
    return value >= (double)low ? (value < (double)high ? (int32_t)value : high) : low;
}

/// The integer nearest `value` (0 ≤ value < 2²⁰, ties as the FPU rounds): adding 1.5·2⁵² leaves it
/// in the low mantissa bits.
KERNEL int32_t nearest_small(double value, uint64_t mask) {
    const double sum = value + 6755399441055744.0;
    uint64_t bits;
    memcpy(&bits, &sum, sizeof bits);
    return (int32_t)(bits & mask);
}

KERNEL double at(const ck_linear *e, double x, double y) { return e->a * x + e->b * y + e->c; }

/// The samples of the 8×8 grid where `e` is ≥ 0, for a pixel where it is `centre` at the centre:
/// sample (i, j), bit 8·j + i, lies ((2i − 7)/16, (2j − 7)/16) px from the centre. Row j holds a
/// run of bits, from or up to the column where the row crosses 0: from column ⌈tⱼ⌉ on,
/// tⱼ = 3.5 − 8·rⱼ/a (a > 0), or the ⌊tⱼ⌋ + 1 columns up to it (a < 0), rⱼ = centre + b·(2j − 7)/16,
/// clamped to 0…8 (a NaN to 0). ⌈c⌉ is the integer nearest c + ½ − 10⁻⁹, ⌊c⌋ the one nearest
/// c − ½ + 10⁻⁹ (wrong only for a sample within 10⁻¹⁰ px of the edge).
KERNEL uint64_t samples_inside(const ck_linear *e, double centre) {
    if (fabs(e->a) * 1e9 <= fabs(e->b)) {
        // (Nearly) level: whole rows.
        uint64_t mask = 0;
        double row = centre - e->b * (7.0 / 16);
        for (int j = 0; j < 8; j++) {
            if (row >= 0) mask |= (uint64_t)0xFF << (8 * j);
            row += e->b / 8;
        }
        return mask;
    }
    // tⱼ = t₀ + j·step (+ 1 when a < 0, for ⌊tⱼ⌋ + 1), all eight rows at once: clamped to 0…8 (a
    // NaN to 0: the maximum takes the number) and rounded in the low mantissa bits to the run's
    // first column (a > 0) or its length (a < 0).
    const double first_row = 3.5 - 8 * (centre - e->b * (7.0 / 16)) * e->inverse_a + (e->a > 0 ? 0 : 1);
    const double8 v = first_row + (-e->b * e->inverse_a) * (double8){0, 1, 2, 3, 4, 5, 6, 7};
    const double rounding = e->a > 0 ? 0.5 - 1e-9 : -(0.5 - 1e-9);
    const double8 clamped = __builtin_elementwise_min(__builtin_elementwise_max(v, (double8)0.0), (double8)8.0);
    const int8 bits = __builtin_convertvector((long8)((clamped + rounding) + 6755399441055744.0) & 0xF, int8);
    // The run's byte: (0xFF << first) & 0xFF, or ~(0xFF << length) & 0xFF; row j's at byte j.
    const uchar8 runs = __builtin_convertvector(((0xFF << bits) & 0xFF) ^ (e->a > 0 ? 0 : 0xFF), uchar8);
    uint64_t mask;
    memcpy(&mask, &runs, sizeof mask);
    return mask;
}

/// The samples of the pixel centred at (x, y) that `t` covers.
KERNEL uint64_t samples(const ck_raster_triangle *t, double x, double y) {
    const double b0 = at(&t->edge[0], x, y), b1 = at(&t->edge[1], x, y), b2 = at(&t->edge[2], x, y);
    if (b0 + t->edge[0].reach < 0 || b1 + t->edge[1].reach < 0 || b2 + t->edge[2].reach < 0) return 0;
    const double b3 = t->corners == 4 ? at(&t->edge[3], x, y) : INFINITY;
    if (b3 + t->edge[3].reach < 0) return 0;
    uint64_t mask = UINT64_MAX;
    if (b0 < t->edge[0].reach) mask &= samples_inside(&t->edge[0], b0);
    if (b1 < t->edge[1].reach) mask &= samples_inside(&t->edge[1], b1);
    if (b2 < t->edge[2].reach) mask &= samples_inside(&t->edge[2], b2);
    if (b3 < t->edge[3].reach) mask &= samples_inside(&t->edge[3], b3);
    return mask;
}

#define RECIPROCALS4(n) 1.0 / (n), 1.0 / ((n) + 1), 1.0 / ((n) + 2), 1.0 / ((n) + 3)
#define RECIPROCALS16(n) RECIPROCALS4(n), RECIPROCALS4((n) + 4), RECIPROCALS4((n) + 8), RECIPROCALS4((n) + 12)
/// 1/n for the sample counts n = 1…64 (entry 0 unused).
static const double reciprocal[65] = {0, RECIPROCALS16(1), RECIPROCALS16(17), RECIPROCALS16(33), RECIPROCALS16(49)};

/// Where the samples of `mask` (not 0) lie on average, from the pixel centre. (Multiplied by 1/count
/// from a table: a division's latency on every edge pixel cost more than the last bit it rounds.)
KERNEL void centroid(uint64_t mask, double *x, double *y) {
    const double inverse_count = reciprocal[__builtin_popcountll(mask)];
    const int columns = __builtin_popcountll(mask & 0xAAAAAAAAAAAAAAAAull) + 2 * __builtin_popcountll(mask & 0xCCCCCCCCCCCCCCCCull)
        + 4 * __builtin_popcountll(mask & 0xF0F0F0F0F0F0F0F0ull);
    const int rows = __builtin_popcountll(mask & 0xFF00FF00FF00FF00ull) + 2 * __builtin_popcountll(mask & 0xFFFF0000FFFF0000ull)
        + 4 * __builtin_popcountll(mask & 0xFFFFFFFF00000000ull);
    const double2 offsets = ((double2){(double)columns, (double)rows} * inverse_count - 3.5) / 8;
    *x = offsets.x;
    *y = offsets.y;
}

/// `clamped_floor` on four lanes.
KERNEL int4 clamped_floor4(double4 value, int32_t low, int32_t high) {
    return __builtin_convertvector(__builtin_elementwise_min(__builtin_elementwise_max(value, (double4)(double)low), (double4)(double)high), int4);
}

/// Marks the pixels of `part` whose square the segment p–q meets, widened by far more than
/// rounding could take away (the samples lie 1/16 px inside the square): row by row, the columns
/// between where the segment enters and leaves the row, found for four rows at once (each lane a
/// row's arithmetic).
KERNEL void mark_edge(ck_raster_tile *tile, const double *p, const double *q, uint32_t code, uint8_t group, rect part, rect area) {
    const double margin = 1e-3;
    const double *top = p[1] <= q[1] ? p : q, *bottom = p[1] <= q[1] ? q : p;
    if (!(top[1] - margin < (double)part.max_y && bottom[1] + margin >= (double)part.min_y)) return;
    const int32_t first_row = clamped_floor(top[1] - margin, part.min_y, part.max_y - 1);
    const int32_t last_row = clamped_floor(bottom[1] + margin, part.min_y, part.max_y - 1);
    const double dy = bottom[1] - top[1];
    const double slope = dy > 1e-12 ? (bottom[0] - top[0]) / dy : 0;
    for (int32_t rows = first_row; rows <= last_row; rows += 4) {
        const double4 py = (double)rows + (double4){0, 1, 2, 3};
        double4 x0 = top[0], x1 = bottom[0];
        if (dy > 1e-12) {
            x0 = top[0] + (__builtin_elementwise_max(py - margin, (double4)top[1]) - top[1]) * slope;
            x1 = top[0] + (__builtin_elementwise_min((py + 1) + margin, (double4)bottom[1]) - top[1]) * slope;
        }
        const double4 low = __builtin_elementwise_min(x0, x1), high = __builtin_elementwise_max(x0, x1);
        const long4 meets = (high + margin >= (double)part.min_x) & (low - margin < (double)part.max_x);
        const int4 first = clamped_floor4(low - margin, part.min_x, part.max_x - 1) - area.min_x;
        const int4 last = clamped_floor4(high + margin, part.min_x, part.max_x - 1) - area.min_x;
        for (int k = 0; k < 4 && rows + k <= last_row; k++) {
            if (!meets[k]) continue;
            const int32_t row = rows + k - area.min_y;
            const uint64_t span = columns(first[k], last[k]);
            tile->several_edge_columns[row] |= tile->edge_columns[row] & span;
            uint64_t fresh = span & ~tile->edge_columns[row];
            tile->edge_columns[row] |= span;
            if (group) tile->convex_edge_columns[group - 1][row] |= span;
            while (fresh != 0) {
                tile->silhouette_edge[row * TILE + __builtin_ctzll(fresh)] = code;
                fresh &= fresh - 1;
            }
        }
    }
}

/// Marks the pixels of `part` that a silhouette edge of triangle `index` passes through.
KERNEL void mark_silhouette(ck_raster_tile *tile, const ck_raster_triangle *triangles, int64_t index, rect part, rect area) {
    const ck_raster_triangle *t = &triangles[index];
    const int n = t->corners;
    for (int k = 0; k < n; k++) {
        if (t->silhouette & (1u << k))
            mark_edge(tile, t->corner[(k + 1) % n], t->corner[(k + 2) % n], (uint32_t)index * 4 + (uint32_t)k, t->convex_group, part, area);
    }
}

/// A pixel's `reach_depth` while it is left unsettled: see `cover_single_edge_pixels`.
#define UNSETTLED INFINITY

/// Gives an unsettled single-edge pixel (centre (x, y)) the depth and offset of its samples' centroid
/// on its edge's triangle.
KERNEL void settle(ck_raster_tile *tile, const ck_raster_triangle *triangles, int pixel, double x, double y) {
    double dx, dy;
    centroid(tile->coverage[pixel], &dx, &dy);
    tile->reach_depth[pixel] = (float)at(&triangles[tile->silhouette_edge[pixel] / 4].inverse_depth, x + dx, y + dy);
    tile->reach_offset[pixel][0] = (float)dx;
    tile->reach_offset[pixel][1] = (float)dy;
}

/// The pixels one silhouette edge alone crosses: its side is covered throughout the pixel, the
/// other side is not (unless another triangle reaches over it, added by `rasterize`). Covers them
/// with the samples on the edge's side, seen (until a triangle holds the centre) as its triangle.
/// Their depth and offset wait (`UNSETTLED`) until `rasterize` adds samples to the pixel (`settle`)
/// or `shade_pixels` shades a lit one: most pixels need neither.
KERNEL void cover_single_edge_pixels(ck_raster_tile *tile, const ck_raster_triangle *triangles, rect area) {
    for (int32_t row = 0; row < area.max_y - area.min_y; row++) {
        uint64_t single = tile->edge_columns[row] & ~tile->several_edge_columns[row];
        const double y = (double)(area.min_y + row) + 0.5;
        uint64_t touched = 0;
        while (single != 0) {
            const int column = __builtin_ctzll(single);
            single &= single - 1;
            const int pixel = row * TILE + column;
            const uint32_t code = tile->silhouette_edge[pixel];
            const ck_raster_triangle *t = &triangles[code / 4];
            const ck_linear *e = &t->edge[code % 4];
            const double x = (double)(area.min_x + column) + 0.5;
            const double value = at(e, x, y);
            const uint64_t mask = value >= e->reach ? UINT64_MAX : value + e->reach < 0 ? 0 : samples_inside(e, value);
            if (mask == 0) continue;
            tile->coverage[pixel] = mask;
            touched |= (uint64_t)1 << column;
            tile->reach_depth[pixel] = UNSETTLED;
            tile->owner[pixel] = t->shaded_as;
        }
        tile->touched_columns[row] |= touched;
    }
}

/// A triangle's (or quadrilateral's) pixels row by row down a part of the tile: where every edge
/// function can reach 0 at the pixel centre (the pixels whose centre it holds) or at some
/// sample. Where an edge crosses a row moves by a fixed step from row to row, so a row costs a few
/// additions. An edge with a > 0 bounds the first pixel, one with a < 0 the last; at most two
/// edges bound each side (a triangle's three a's sum to 0; a quadrilateral is made only so). Lanes
/// 0 and 1 of `bounds` hold the edges bounding the first pixel (−∞ when there are fewer), lanes 2
/// and 3 the edges bounding the last, negated (−∞ likewise): one vector maximum then bounds both
/// ends. Widened by far more than rounding could take away (2·10⁻⁶ px, while an edge crossing a
/// row within a frame has |x| < 10⁶): triangles sharing an edge both take a centre on it, never
/// neither.
typedef struct {
    double4 bounds, step;
    /// Added to the bounds to reach the pixels whose samples may meet the triangle.
    double4 reach;
    /// The part's first column, and its last negated, in the lanes of the ends they bound.
    double4 part;
    /// Bit k: edge k is level (a = 0), so it takes a row whole or not at all.
    unsigned level;
} row_spans;

/// Set for the row above `part`: `next_row` moves to its first row.
KERNEL void spans_init(row_spans *s, const ck_raster_triangle *t, rect part) {
    s->bounds = -INFINITY;
    s->step = s->reach = 0;
    s->part = (double4){(double)part.min_x, (double)part.min_x, -(double)(part.max_x - 1), -(double)(part.max_x - 1)};
    s->level = 0;
    const double y = (double)part.min_y - 0.5;
    int lowers = 0, uppers = 0;
    for (int k = 0; k < t->corners; k++) {
        const ck_linear *e = &t->edge[k];
        // a·(px + 0.5) + b·y + c ≥ 0: px ≥ x for a > 0, px ≤ x for a < 0.
        const double x = -(e->b * y + e->c) * e->inverse_a - 0.5;
        if (e->a > 0 && lowers < 2) {
            s->bounds[lowers] = x - 2e-6;
            s->step[lowers] = -e->b * e->inverse_a;
            s->reach[lowers++] = -e->reach * e->inverse_a;
        } else if (e->a < 0 && uppers < 2) {
            s->bounds[2 + uppers] = -(x + 2e-6);
            s->step[2 + uppers] = -(-e->b * e->inverse_a);
            s->reach[2 + uppers++] = -(-e->reach * e->inverse_a);
        } else {
            s->level |= 1u << k;
        }
    }
}

KERNEL void next_row(row_spans *s) { s->bounds += s->step; }

/// The current row's pixels (centre y) whose centre `t` may hold, or with `reach` whose samples it
/// may reach, in `*first...*last`; 0 when there are none.
KERNEL int row_pixels(const row_spans *s, const ck_raster_triangle *t, double y, int reach, int32_t *first, int32_t *last) {
    const double4 ends = __builtin_elementwise_max(reach ? s->bounds + s->reach : s->bounds, s->part);
    const double4 both = __builtin_elementwise_max(ends, __builtin_shufflevector(ends, ends, 1, 0, 3, 2));
    const double low = both[0], high = -both[2];
    if (!(low <= high)) return 0;
    if (s->level != 0) {
        const double margin = reach ? 1.0 : 0;
        for (int k = 0; k < t->corners; k++) {
            const ck_linear *e = &t->edge[k];
            if ((s->level & (1u << k)) && e->b * y + e->c + margin * e->reach < 0) return 0;
        }
    }
    // 0 ≤ low ≤ high < the frame's width (< 2²⁰): ⌈low⌉ and ⌊high⌋ within the slack.
    *first = nearest_small(low + (0.5 - 1e-9), 0xFFFFF);
    *last = nearest_small(high - (0.5 - 1e-9), 0xFFFFF);
    return *first <= *last;
}

/// Pixel `px` of a row takes `depth` and `me` where that is nearer than what it holds.
KERNEL void keep_nearer(float *centre_depth, uint32_t *owner, int32_t px, float depth, uint32_t me) {
    const int nearer = depth > centre_depth[px];
    centre_depth[px] = nearer ? depth : centre_depth[px];
    owner[px] = nearer ? me : owner[px];
}

/// Draws triangle `index` over the pixels of `part`: the pixels whose centre it holds, with a
/// depth test there, and in marked pixels the samples it covers (not those only its own convex
/// mesh's silhouette crosses, whose inner side it lies on).
KERNEL void rasterize(ck_raster_tile *tile, const ck_raster_triangle *triangles, int64_t index, rect part, rect area) {
    const ck_raster_triangle *t = &triangles[index];
    const uint32_t me = t->shaded_as;
    const double depth_x = t->inverse_depth.a;
    const uint64_t part_columns = columns(part.min_x - area.min_x, part.max_x - 1 - area.min_x);
    row_spans spans;
    spans_init(&spans, t, part);
    // Per row, the pixels only its own convex mesh's silhouette may cross (none asked of it).
    const uint64_t *own_edges = t->convex_group ? tile->convex_edge_columns[t->convex_group - 1] : NULL;
    // The last silhouette edge asked about, and whether the triangle lies wholly on its side.
    uint32_t asked_edge = UINT32_MAX;
    int on_its_side = 0;
    for (int32_t py = part.min_y; py < part.max_y; py++) {
        next_row(&spans);
        const int32_t row = py - area.min_y;
        const double y = (double)py + 0.5;
        const double depth_row = t->inverse_depth.b * y + t->inverse_depth.c;
        // Pixel px of this row is at `row_start + px` in the tile's buffers.
        const int32_t row_start = row * TILE - area.min_x;
        float *centre_depth = tile->centre_depth + row_start;
        uint32_t *owner = tile->owner + row_start;
        int32_t low = 1, high = 0;
        if (row_pixels(&spans, t, y, 0, &low, &high)) {
            int32_t px = low;
            // Four pixels at a time, each with the arithmetic of one.
            for (; px + 3 <= high; px += 4) {
                const float4 depth = __builtin_convertvector(depth_x * ((double)px + (double4){0.5, 1.5, 2.5, 3.5}) + depth_row, float4);
                float4 held;
                int4 owners;
                memcpy(&held, centre_depth + px, sizeof held);
                memcpy(&owners, owner + px, sizeof owners);
                const int4 nearer = depth > held;
                const int4 depths = ((int4)depth & nearer) | ((int4)held & ~nearer);
                owners = ((int4)(int32_t)me & nearer) | (owners & ~nearer);
                memcpy(centre_depth + px, &depths, sizeof depths);
                memcpy(owner + px, &owners, sizeof owners);
            }
            // Then two (most rows of a thin triangle hold one or two pixels), then one.
            if (px + 1 <= high) {
                const double2 pair = depth_x * ((double2){(double)px, (double)px} + (double2){0.5, 1.5}) + depth_row;
                keep_nearer(centre_depth, owner, px, (float)pair.x, me);
                keep_nearer(centre_depth, owner, px + 1, (float)pair.y, me);
                px += 2;
            }
            if (px <= high) keep_nearer(centre_depth, owner, px, (float)(depth_x * ((double)px + 0.5) + depth_row), me);
            tile->touched_columns[row] |= columns(low - area.min_x, high - area.min_x);
        } else {
            low = 1;
            high = 0;
        }
        uint64_t marked = tile->edge_columns[row] & part_columns;
        if (own_edges && marked) marked &= ~own_edges[row] | tile->several_edge_columns[row];
        int32_t reached_first, reached_last;
        if (marked == 0 || !row_pixels(&spans, t, y, 1, &reached_first, &reached_last)) continue;
        const uint64_t single = ~tile->several_edge_columns[row];
        uint64_t candidates = marked & columns(reached_first - area.min_x, reached_last - area.min_x);
        uint64_t touched = 0;
        while (candidates != 0) {
            const int column = __builtin_ctzll(candidates);
            candidates &= candidates - 1;
            const int32_t px = area.min_x + column, pixel = row_start + px;
            const int holds_centre = px >= low && px <= high;
            // Wholly covered already, its centre held: nothing left to learn here.
            if (tile->coverage[pixel] == UINT64_MAX && (holds_centre || tile->centre_depth[pixel] > -INFINITY)) continue;
            if (single & ((uint64_t)1 << column)) {
                // One silhouette edge crosses the pixel, its side already covered: a triangle
                // wholly on that side (its own, its neighbours) adds nothing.
                // (Asked once per edge: neighbouring pixels mostly share it.)
                const uint32_t code = tile->silhouette_edge[pixel];
                if (code != asked_edge) {
                    const ck_linear *e = &triangles[code / 4].edge[code % 4];
                    asked_edge = code;
                    on_its_side = 1;
                    for (int k = 0; k < t->corners; k++) on_its_side &= at(e, t->corner[k][0], t->corner[k][1]) >= -1e-9;
                }
                if (on_its_side) continue;
            }
            const double x = (double)px + 0.5;
            const uint64_t mask = samples(t, x, y);
            if (mask == 0) continue;
            if (tile->reach_depth[pixel] == UNSETTLED) settle(tile, triangles, pixel, x, y);
            tile->coverage[pixel] |= mask;
            touched |= (uint64_t)1 << column;
            if (holds_centre || tile->centre_depth[pixel] != -INFINITY) continue;
            // Seen here only while no triangle holds the centre: the nearest at its own samples.
            double dx, dy;
            centroid(mask, &dx, &dy);
            const float depth = (float)(depth_x * (x + dx) + t->inverse_depth.b * (y + dy) + t->inverse_depth.c);
            if (depth > tile->reach_depth[pixel]) {
                tile->reach_depth[pixel] = depth;
                tile->reach_offset[pixel][0] = (float)dx;
                tile->reach_offset[pixel][1] = (float)dy;
                tile->owner[pixel] = me;
            }
        }
        tile->touched_columns[row] |= touched;
    }
}

/// On a sphere's facet, the normal where the pixel's ray meets the sphere itself. The interpolated
/// normal `n / (1/depth)` = m (unit at the vertices) is that of the facet's point, inside the sphere
/// by up to the facet's sagitta, and the shade would follow the facets; the sphere lies a step s back
/// along the ray, where |m − s·ray| = 1 (the nearer root).
KERNEL float4 onto_sphere(const ck_raster_triangle *t, const ck_lighting *light, float4 n, float x, float y) {
    const float4 m = n / (float)(t->inverse_depth.a * x + t->inverse_depth.b * y + t->inverse_depth.c);
    const float4 ray = load4(light->ray_x) * x + load4(light->ray_y) * y + load4(light->ray_origin);
    const float4 along = m * ray, rays = ray * ray, ms = m * m;
    const float a = along.x + along.y + along.z, r = rays.x + rays.y + rays.z;
    const float inside = a * a + r * (1 - (ms.x + ms.y + ms.z));
    return m - ((a + sqrtf(inside > 0 ? inside : 0)) / r) * ray;
}

/// The triangle's colour at a pixel position (Y', Cb, Cr; the fourth lane undefined): Lambert with
/// the perspective-correct normal (a sphere's own on its facets).
KERNEL float4 shade(const ck_raster_triangle *t, const ck_lighting *light, float x, float y) {
    const float4 base = load4(t->base);
    if (t->flat) return base;
    float4 n = load4(t->normal_x) * x + load4(t->normal_y) * y + load4(t->normal_origin);
    if (t->spherical) n = onto_sphere(t, light, n, x, y);
    const float4 squares = n * n;
    const float squared = squares.x + squares.y + squares.z;
    float intensity = light->ambient;
    if (squared > 0) {
        const float4 products = n * load4(light->towards);
        const float cosine = (products.x + products.y + products.z) / sqrtf(squared);
        intensity = light->ambient + light->diffuse * (cosine >= 0 ? cosine : 0);
    }
    return base + intensity * load4(t->range);
}

/// `mask ? a : b` lane by lane (`mask` from a comparison: all bits or none).
KERNEL float8 select8(int8 mask, float8 a, float8 b) { return (float8)(((int8)a & mask) | ((int8)b & ~mask)); }

/// Component k of `along_x`·x + `along_y`·y + `origin` (a normal or a view ray) at eight pixels, in `shade`'s order.
KERNEL float8 linear8(const float *along_x, const float *along_y, const float *origin, int k, float8 x, float8 y) {
    return along_x[k] * x + along_y[k] * y + origin[k];
}

/// `count` pixels of a row (centres `x0`, `x0` + 1, …, at height `y`), wholly covered and all seen as
/// `t`, into `texels`: `shade`'s arithmetic lane by lane, eight pixels at a time (the same bytes).
KERNEL void shade_run(const ck_raster_triangle *t, const ck_lighting *light, float x0, float y, int count, float *texels) {
    float4 base = load4(t->base);
    base.w = 1;
    if (t->flat) {
        const float8 pair = __builtin_shufflevector(base, base, 0, 1, 2, 3, 0, 1, 2, 3);
        int i = 0;
        // Four stores a turn: a face's rows are long, and the loop's own count and jump cost as much as a store.
#pragma clang loop unroll_count(4)
        for (; i + 2 <= count; i += 2) memcpy(texels + 4 * i, &pair, sizeof pair);
        if (i < count) memcpy(texels + 4 * i, &base, sizeof base);
        return;
    }
    const float4 range = load4(t->range);
    const float8 bases = __builtin_shufflevector(base, base, 0, 1, 2, 3, 0, 1, 2, 3);
    const float8 ranges = __builtin_shufflevector(range, range, 0, 1, 2, 3, 0, 1, 2, 3);
    const float8 ys = y;
    for (int i = 0; i < count; i += 8) {
        const float8 x = x0 + ((float)i + (float8){0, 1, 2, 3, 4, 5, 6, 7});
        float8 n0 = linear8(t->normal_x, t->normal_y, t->normal_origin, 0, x, ys);
        float8 n1 = linear8(t->normal_x, t->normal_y, t->normal_origin, 1, x, ys);
        float8 n2 = linear8(t->normal_x, t->normal_y, t->normal_origin, 2, x, ys);
        if (t->spherical) {
            // `onto_sphere`, lane by lane.
            const double8 depth = t->inverse_depth.a * __builtin_convertvector(x, double8) + t->inverse_depth.b * (double)y
                + t->inverse_depth.c;
            const float8 inverse = __builtin_convertvector(depth, float8);
            const float8 m0 = n0 / inverse, m1 = n1 / inverse, m2 = n2 / inverse;
            const float8 r0 = linear8(light->ray_x, light->ray_y, light->ray_origin, 0, x, ys);
            const float8 r1 = linear8(light->ray_x, light->ray_y, light->ray_origin, 1, x, ys);
            const float8 r2 = linear8(light->ray_x, light->ray_y, light->ray_origin, 2, x, ys);
            const float8 a = m0 * r0 + m1 * r1 + m2 * r2, r = r0 * r0 + r1 * r1 + r2 * r2;
            const float8 inside = a * a + r * (1 - (m0 * m0 + m1 * m1 + m2 * m2));
            const float8 step = (a + __builtin_elementwise_sqrt(select8(inside > 0, inside, 0))) / r;
            n0 = m0 - step * r0;
            n1 = m1 - step * r1;
            n2 = m2 - step * r2;
        }
        const float8 squared = n0 * n0 + n1 * n1 + n2 * n2;
        const float8 cosine = (n0 * light->towards[0] + n1 * light->towards[1] + n2 * light->towards[2])
            / __builtin_elementwise_sqrt(squared);
        const float8 intensity =
            select8(squared > 0, light->ambient + light->diffuse * select8(cosine >= 0, cosine, 0), light->ambient);
        // Two texels a store: each lane's intensity spread over its pixel's four components.
        for (int lane = 0; lane < 8 && i + lane < count; lane += 2) {
            const float8 spread = {intensity[lane], intensity[lane], intensity[lane], intensity[lane],
                                   intensity[lane + 1], intensity[lane + 1], intensity[lane + 1], intensity[lane + 1]};
            float8 pair = bases + spread * ranges;
            pair[3] = pair[7] = 1;
            if (i + lane + 1 < count) memcpy(texels + 4 * (i + lane), &pair, sizeof pair);
            else memcpy(texels + 4 * (i + lane), &pair, sizeof(float4));
        }
    }
}

/// How many pixels of a tile row from column `first` on are in `ahead` (bit k: column first + k;
/// bit 0 set) and seen as the triangle seen at `first`: eight owners compared at a time, their
/// comparisons packed into the bytes of a `uint64_t`.
KERNEL int same_owner_run(const uint32_t *owner, int first, uint64_t ahead) {
    const int span = ahead == UINT64_MAX ? TILE : __builtin_ctzll(~ahead);
    const uint32_t seen = owner[first];
    int length = 1;
    while (length < span) {
        const int column = first + length;
        if (column + 8 > TILE) {
            if (owner[column] != seen) break;
            length++;
            continue;
        }
        int8 owners;
        memcpy(&owners, owner + column, sizeof owners);
        const char8 same = __builtin_convertvector(owners == (int32_t)seen, char8);
        uint64_t bytes;
        memcpy(&bytes, &same, sizeof bytes);
        if (bytes != UINT64_MAX) {
            length += __builtin_ctzll(~bytes) / 8;
            break;
        }
        length += 8;
    }
    return length < span ? length : span;
}

/// Shades each drawn pixel once, with the triangle seen there, writes its colour and coverage,
/// and empties the tile's buffers. Marked pixels one by one; the rest in runs seen as one triangle.
KERNEL void shade_pixels(ck_raster_tile *tile, const ck_raster_triangle *triangles, rect area, const ck_lighting *light,
                         float *texels, uint64_t *drawn) {
    for (int32_t row = 0; row < area.max_y - area.min_y; row++) {
        const uint64_t pixels = tile->touched_columns[row];
        const uint64_t marked = tile->edge_columns[row];
        tile->touched_columns[row] = 0;
        tile->edge_columns[row] = 0;
        tile->several_edge_columns[row] = 0;
        tile->convex_edge_columns[0][row] = tile->convex_edge_columns[1][row] = 0;
        drawn[row] = pixels;
        if (pixels == 0) continue;
        const float left = (float)area.min_x + 0.5f, centre_y = (float)(area.min_y + row) + 0.5f;
        uint32_t *owner = tile->owner + row * TILE;
        uint64_t edge_pixels = pixels & marked;
        while (edge_pixels != 0) {
            const int column = __builtin_ctzll(edge_pixels);
            edge_pixels &= edge_pixels - 1;
            const int pixel = row * TILE + column;
            const uint64_t mask = tile->coverage[pixel];
            const int unsettled = tile->reach_depth[pixel] == UNSETTLED;
            tile->coverage[pixel] = 0;
            tile->reach_depth[pixel] = -INFINITY;
            if (mask == 0) continue;
            float x = left + (float)column, y = centre_y;
            const ck_raster_triangle *seen = &triangles[owner[column]];
            // Shaded where its samples lie while no triangle holds the centre (a flat colour is the same anywhere).
            if (tile->centre_depth[pixel] == -INFINITY && !seen->flat) {
                if (unsettled) {
                    double dx, dy;
                    centroid(mask, &dx, &dy);
                    x += (float)dx;
                    y += (float)dy;
                } else {
                    x += tile->reach_offset[pixel][0];
                    y += tile->reach_offset[pixel][1];
                }
            }
            float4 texel = shade(seen, light, x, y);
            texel.w = mask == UINT64_MAX ? 1 : (float)__builtin_popcountll(mask) / 64;
            memcpy(texels + 4 * pixel, &texel, sizeof texel);
        }
        uint64_t whole = pixels & ~marked;
        while (whole != 0) {
            const int first = __builtin_ctzll(whole);
            const int length = same_owner_run(owner, first, whole >> first);
            whole &= ~columns(first, first + length - 1);
            shade_run(&triangles[owner[first]], light, left + (float)first, centre_y, length, texels + 4 * (row * TILE + first));
        }
        // The whole row: a few vector stores, fewer than one store per pixel drawn.
        memset(owner, 0, TILE * sizeof *owner);
        for (int column = 0; column < TILE; column++) tile->centre_depth[row * TILE + column] = -INFINITY;
    }
}

/// `ck_raster_tile_draw`, compiled once per instruction set.
KERNEL void draw(ck_raster_tile *tile, const ck_raster_triangle *triangles, const int64_t *order, int64_t count,
                         int32_t min_x, int32_t min_y, int32_t max_x, int32_t max_y, const ck_lighting *lighting,
                         float *texels, uint64_t *drawn) {
    const rect area = {min_x, min_y, max_x, max_y};
    for (int64_t slot = 0; slot < count; slot++) {
        const ck_raster_triangle *t = &triangles[order[slot]];
        const rect part = {max32(t->min_x, min_x), max32(t->min_y, min_y), min32(t->max_x, max_x), min32(t->max_y, max_y)};
        if (t->silhouette != 0 && part.min_x < part.max_x && part.min_y < part.max_y)
            mark_silhouette(tile, triangles, order[slot], part, area);
    }
    cover_single_edge_pixels(tile, triangles, area);
    for (int64_t slot = 0; slot < count; slot++) {
        const ck_raster_triangle *t = &triangles[order[slot]];
        const rect part = {max32(t->min_x, min_x), max32(t->min_y, min_y), min32(t->max_x, max_x), min32(t->max_y, max_y)};
        if (part.min_x < part.max_x && part.min_y < part.max_y) rasterize(tile, triangles, order[slot], part, area);
    }
    shade_pixels(tile, triangles, area, lighting, texels, drawn);
}

#if defined(__x86_64__)
__attribute__((target("avx2,popcnt,bmi,bmi2")))
static void draw_avx2(ck_raster_tile *tile, const ck_raster_triangle *triangles, const int64_t *order, int64_t count,
                      int32_t min_x, int32_t min_y, int32_t max_x, int32_t max_y, const ck_lighting *lighting,
                      float *texels, uint64_t *drawn) {
    draw(tile, triangles, order, count, min_x, min_y, max_x, max_y, lighting, texels, drawn);
}
#endif

static void draw_portable(ck_raster_tile *tile, const ck_raster_triangle *triangles, const int64_t *order, int64_t count,
                          int32_t min_x, int32_t min_y, int32_t max_x, int32_t max_y, const ck_lighting *lighting,
                          float *texels, uint64_t *drawn) {
    draw(tile, triangles, order, count, min_x, min_y, max_x, max_y, lighting, texels, drawn);
}

static int forced_portable = 0;

void ck_raster_force_portable(int portable) { forced_portable = portable; }

void ck_raster_tile_draw(ck_raster_tile *tile, const ck_raster_triangle *triangles, const int64_t *order, int64_t count,
                         int32_t min_x, int32_t min_y, int32_t max_x, int32_t max_y, const ck_lighting *lighting,
                         float *texels, uint64_t *drawn) {
#if defined(__x86_64__)
    if (!forced_portable && ck_cpu_has_avx2()) {
        draw_avx2(tile, triangles, order, count, min_x, min_y, max_x, max_y, lighting, texels, drawn);
        return;
    }
#endif
    draw_portable(tile, triangles, order, count, min_x, min_y, max_x, max_y, lighting, texels, drawn);
}
