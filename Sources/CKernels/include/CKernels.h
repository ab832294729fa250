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

/// Rows of a layer (RenderLayer): `texels` (Y', Cb, Cr, coverage: four floats each) `width` per
/// row, from the first row's texel of frame column `origin_x`, and per row its touched frame
/// columns `row_start[j]..<row_end[j]` (none when start ≥ end).
typedef struct {
    float *texels;
    intptr_t width, origin_x;
    intptr_t *row_start, *row_end;
} ck_layer;

/// Blends `chroma_rows` chroma rows of `layer`, from its first row (even) on, into an opaque 4:2:0
/// frame with nothing in front, as `ck_blend_blocks_420` does, each row the whole blocks over its two
/// luma rows' touched columns; then zeroes those blocks' texels and empties every row's columns. The
/// touched columns must lie in whole blocks of the frame. `luma` points at the frame's first luma
/// row (column 0), `cb` and `cr` at its chroma row. The same bytes on every path.
void ck_blend_and_clear_420(ck_layer layer, uint8_t *luma, ptrdiff_t luma_stride, uint8_t *cb, ptrdiff_t cb_stride,
                            uint8_t *cr, ptrdiff_t cr_stride, int32_t chroma_rows, float opacity);

/// Asks for the cache lines of a rectangle of a 4:2:0 frame, `width` luma samples by `rows` luma
/// rows, before it is blended into (for writing): `luma` points at its first luma sample, `cb` and
/// `cr` at its first chroma samples (the rectangle starts on an even row and column). A frame is
/// decoded, drawn on and encoded by different threads, so its samples are seldom in this core's
/// caches: asked for before a tile is drawn, they arrive while it is.
void ck_prefetch_420(const uint8_t *luma, ptrdiff_t luma_stride, const uint8_t *cb, ptrdiff_t cb_stride, const uint8_t *cr,
                     ptrdiff_t cr_stride, int32_t width, int32_t rows);

/// `ck_blend_and_clear_420` without SIMD, whatever the CPU (for tests that compare paths).
void ck_blend_and_clear_420_portable(ck_layer layer, uint8_t *luma, ptrdiff_t luma_stride, uint8_t *cb,
                                     ptrdiff_t cb_stride, uint8_t *cr, ptrdiff_t cr_stride, int32_t chroma_rows, float opacity);

// MARK: raster.c — one 64×64 tile of MeshRasterizer's triangles: silhouettes, coverage, depth, shading

/// A linear function of the pixel position, `a·x + b·y + c`; `reach` is how much it can change from
/// a pixel centre to its samples (±7/16 px: (|a| + |b|)·7/16), `inverse_a` 1/a (0 when a is 0).
typedef struct {
    double a, b, c, reach, inverse_a;
} ck_linear;

/// A projected triangle, or a convex quadrilateral made of two triangles in one plane
/// (MeshRasterizer+Setup.swift), with `corners` 3 or 4 corners in winding order: `edge[k]` is ≥ 0
/// inside and 0 along edge k, from `corner[k + 1]` to `corner[k + 2]` (indices modulo `corners`;
/// for a triangle barycentric coordinate k, 1 at `corner[k]`), `inverse_depth` 1/depth, the normal
/// Σ nᵢ·bᵢ/depthᵢ as `normal_x`·x + `normal_y`·y + `normal_origin` (x, y, z; the fourth lane
/// unused), the colour `base + intensity·range` (`base` alone when `flat`), `silhouette` bit k set
/// when edge k is on the silhouette, `spherical` when it is a facet of a sphere; the pixels of
/// `min_x..<max_x` × `min_y..<max_y` reach it and it covers `area` pixels (for the caller's cost
/// estimate). At most two edges have a > 0 and at most two a < 0 (a row's span is bounded by two
/// on each side). `shaded_as` is the triangle whose shading it shares (itself, or an earlier flat
/// one of the same colour): pixels are shaded by it, so a flat face or an unshaded mesh is shaded in
/// runs across its triangles. `convex_group` is 1 or 2 for a triangle of the first or second convex
/// mesh drawn together (whole, its silhouette known; ``Mesh/isConvex``), 0 otherwise: it lies on
/// the inner side of every silhouette edge of its mesh, so a pixel one of those alone crosses needs
/// no samples from it.
typedef struct {
    ck_linear edge[4];
    ck_linear inverse_depth;
    double corner[4][2];
    double area;
    float normal_x[4], normal_y[4], normal_origin[4];
    float base[4], range[4];
    int32_t min_x, min_y, max_x, max_y;
    uint32_t shaded_as;
    uint8_t silhouette;
    uint8_t flat;
    uint8_t spherical;
    uint8_t corners;
    uint8_t convex_group;
} ck_raster_triangle;

/// Lambert lighting in single precision: `ambient + diffuse·max(0, n·towards/|n|)`; the view ray
/// through a pixel, in camera space, `ray_x`·x + `ray_y`·y + `ray_origin` (for spherical triangles).
typedef struct {
    float ambient, diffuse;
    float towards[4];
    float ray_x[4], ray_y[4], ray_origin[4];
} ck_lighting;

/// A tile's side in pixels: a tile row's pixels are the bits of a `uint64_t`.
#define CK_RASTER_TILE 64

/// The per-pixel scratch of one tile (MeshRasterizer.swift documents each), emptied by every
/// `ck_raster_tile_draw`; set up once with `ck_raster_tile_init`.
typedef struct {
    uint64_t coverage[CK_RASTER_TILE * CK_RASTER_TILE];
    float centre_depth[CK_RASTER_TILE * CK_RASTER_TILE];
    float reach_depth[CK_RASTER_TILE * CK_RASTER_TILE];
    float reach_offset[CK_RASTER_TILE * CK_RASTER_TILE][2];
    uint32_t owner[CK_RASTER_TILE * CK_RASTER_TILE];
    uint32_t silhouette_edge[CK_RASTER_TILE * CK_RASTER_TILE];
    uint64_t touched_columns[CK_RASTER_TILE];
    uint64_t edge_columns[CK_RASTER_TILE];
    uint64_t several_edge_columns[CK_RASTER_TILE];
    /// Per row, the pixels marked by the silhouette of convex group 1 and of group 2.
    uint64_t convex_edge_columns[2][CK_RASTER_TILE];
} ck_raster_tile;

/// Empties a tile's scratch (depths −∞, everything else 0).
void ck_raster_tile_init(ck_raster_tile *tile);

/// Draws triangles `order[0..<count]` of `triangles` over the pixels `min_x..<max_x` ×
/// `min_y..<max_y` (at most 64 × 64): marks their silhouette edges' pixels, covers the pixels one
/// silhouette edge alone crosses, rasterizes each triangle (centres with a depth test, the 8×8
/// samples of marked pixels), then shades each drawn pixel once by the triangle seen there into
/// `texels` (Y', Cb, Cr, coverage per pixel; pixel (min_x + i, min_y + j) at `texels + 4·(64·j + i)`)
/// and sets `drawn[j]` bit i for each pixel written. Leaves the tile's scratch empty. With AVX2 where
/// the CPU has it (bit counts in one instruction), the same pixels either way.
void ck_raster_tile_draw(ck_raster_tile *tile, const ck_raster_triangle *triangles, const int64_t *order, int64_t count,
                         int32_t min_x, int32_t min_y, int32_t max_x, int32_t max_y, const ck_lighting *lighting,
                         float *texels, uint64_t *drawn);

/// Forces the portable path of `ck_raster_tile_draw` (nonzero) or lets the CPU decide (0); for tests only.
void ck_raster_force_portable(int portable);

#ifdef __cplusplus
}
#endif

#endif
