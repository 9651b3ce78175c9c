/*
 * libvmaf's integer motion (extractor "motion", spec vmaf-integer-features 2),
 * bit-identical to libvmaf 3.2.0. Only the reference pictures are read: the
 * SAD of a blurred difference between the current luma plane and the one
 * submitted before it (or the one before that with motion_five_frame_window),
 * then, once the sequence is complete, motion2/motion3 from the SAD scores.
 *
 * The blur and the SAD are integer arithmetic, so any split of rows between
 * threads or lanes gives the same sum; the score and the flush are a handful
 * of doubles through math/f64.h in the spec's order. Planes are read through
 * sq_sample (math/filter.h) with an access code (0: bytes, SQ_ACC_16: 16-bit
 * containers), so a layout change stays in filter.h.
 */
#ifndef SQ_MATH_VMAF_MOTION_H
#define SQ_MATH_VMAF_MOTION_H

#include "math/f64.h"
#include "math/filter.h"

/* The 5-tap blur [3571 16004 26386 16004 3571] (sum 2^16), symmetric. */
SQ_FN int64_t sq_vm_tap(int k)
{
    return k == 2 ? 26386 : (k == 1 || k == 3) ? 16004 : 3571;
}

/* The offsets of the five rows (mirrored at the edges) that row i's vertical pass reads. */
SQ_FN void sq_vm_row_offs(int i, int h, int64_t stride, int64_t o[5])
{
    for (int k = 0; k < 5; k++)
        o[k] = (int64_t)sq_mirror(i - 2 + k, h) * stride;
}

/*
 * Vertical pass of the difference prev - cur at column j of the rows at
 * offsets po (prev) and co (cur), rounded to bpc bits less:
 * (acc + 2^(bpc-1)) >> bpc. The spec writes 8-bit with (acc + 128) >> 8,
 * which is the same expression at bpc = 8; i64 holds the exact sum at every
 * depth and the shift is arithmetic (rounds toward -inf). Samples are at
 * most 16 bits, so each difference is an i32 and each product one widening
 * multiply.
 */
SQ_FN int32_t sq_vm_vert_px(const SQ_GLOBAL uint8_t *prev, const int64_t po[5], int pacc,
                            const SQ_GLOBAL uint8_t *cur, const int64_t co[5], int cacc, int bpc,
                            int64_t j)
{
    int64_t s = 0;
    for (int k = 0; k < 5; k++) {
        const int32_t d = (int32_t)sq_sample(prev + po[k], j, pacc) -
                          (int32_t)sq_sample(cur + co[k], j, cacc);
        s += (int64_t)(int32_t)sq_vm_tap(k) * (int64_t)d;
    }
    return (int32_t)((s + ((int64_t)1 << (bpc - 1))) >> bpc);
}

/* The same at (row i, column j) of planes h rows high. */
SQ_FN int32_t sq_vm_vert2(const SQ_GLOBAL uint8_t *prev, int64_t pstride, int pacc,
                          const SQ_GLOBAL uint8_t *cur, int64_t cstride, int cacc, int h,
                          int bpc, int i, int j)
{
    int64_t po[5], co[5];
    sq_vm_row_offs(i, h, pstride, po);
    sq_vm_row_offs(i, h, cstride, co);
    return sq_vm_vert_px(prev, po, pacc, cur, co, cacc, bpc, j);
}

/* The same with both planes in one layout. */
SQ_FN int32_t sq_vm_vert(const SQ_GLOBAL uint8_t *prev, const SQ_GLOBAL uint8_t *cur,
                         int64_t stride, int acc, int h, int bpc, int i, int j)
{
    return sq_vm_vert2(prev, stride, acc, cur, stride, acc, h, bpc, i, j);
}

/* One row of the vertical pass into y[0..w). */
SQ_FN void sq_vm_vert_row(const SQ_GLOBAL uint8_t *prev, const SQ_GLOBAL uint8_t *cur,
                          int64_t stride, int acc, int w, int h, int bpc, int i,
                          SQ_GLOBAL int32_t *y)
{
    for (int j = 0; j < w; j++)
        y[j] = sq_vm_vert(prev, cur, stride, acc, h, bpc, i, j);
}

/* Absolute horizontal-pass output at column j of a vertical-pass row y. */
SQ_FN uint32_t sq_vm_abs_h(const SQ_GLOBAL int32_t *y, int w, int j)
{
    int64_t s = 0;
    for (int k = 0; k < 5; k++)
        s += sq_vm_tap(k) * (int64_t)y[sq_mirror(j - 2 + k, w)];
    const int64_t v = (s + 32768) >> 16;
    return (uint32_t)(v < 0 ? -v : v);
}

/* The u32 SAD of one row (libvmaf's row accumulator; no overflow below w = 65000). */
SQ_FN uint32_t sq_vm_row_sad(const SQ_GLOBAL int32_t *y, int w)
{
    uint32_t s = 0;
    for (int j = 0; j < w; j++)
        s += sq_vm_abs_h(y, w, j);
    return s;
}

/* SAD of a whole plane pair, with a caller's row buffer of w int32. */
SQ_FN uint64_t sq_vm_plane_sad(const SQ_GLOBAL uint8_t *prev, const SQ_GLOBAL uint8_t *cur,
                               int64_t stride, int acc, int w, int h, int bpc,
                               SQ_GLOBAL int32_t *ybuf)
{
    uint64_t sad = 0;
    for (int i = 0; i < h; i++) {
        sq_vm_vert_row(prev, cur, stride, acc, w, h, bpc, i, ybuf);
        sad += sq_vm_row_sad(ybuf, w);
    }
    return sad;
}

/*
 * Row i of the vertical pass into y[0..w) with the five rows' mirror taken
 * once (the integers of sq_vm_vert2 at every j); planar bytes and planar
 * 16-bit samples get a loop of their own, the access known to the compiler.
 */
SQ_FN void sq_vm_vert_row2(const SQ_GLOBAL uint8_t *prev, int64_t pstride, int pacc,
                           const SQ_GLOBAL uint8_t *cur, int64_t cstride, int cacc, int w, int h,
                           int bpc, int i, SQ_GLOBAL int32_t *y)
{
    int64_t po[5], co[5];
    sq_vm_row_offs(i, h, pstride, po);
    sq_vm_row_offs(i, h, cstride, co);
    if (pacc == 0 && cacc == 0)
        for (int j = 0; j < w; j++)
            y[j] = sq_vm_vert_px(prev, po, 0, cur, co, 0, bpc, j);
    else if (pacc == SQ_ACC_16 && cacc == SQ_ACC_16)
        for (int j = 0; j < w; j++)
            y[j] = sq_vm_vert_px(prev, po, SQ_ACC_16, cur, co, SQ_ACC_16, bpc, j);
    else
        for (int j = 0; j < w; j++)
            y[j] = sq_vm_vert_px(prev, po, pacc, cur, co, cacc, bpc, j);
}

/* sq_vm_abs_h at a column two or more from either edge (no mirror). */
SQ_FN uint32_t sq_vm_abs_h_mid(const SQ_GLOBAL int32_t *y, int j)
{
    const int64_t a = 3571 * ((int64_t)y[j - 2] + y[j + 2]) +
                      16004 * ((int64_t)y[j - 1] + y[j + 1]) + 26386 * (int64_t)y[j];
    const int64_t v = (a + 32768) >> 16;
    return (uint32_t)(v < 0 ? -v : v);
}

/* sq_vm_row_sad with the mirror only at the two columns of each edge (u32
 * additions wrap alike in any order). */
SQ_FN uint32_t sq_vm_row_sad_fast(const SQ_GLOBAL int32_t *y, int w)
{
    if (w < 8)
        return sq_vm_row_sad(y, w);
    uint32_t s = sq_vm_abs_h(y, w, 0) + sq_vm_abs_h(y, w, 1) + sq_vm_abs_h(y, w, w - 2) +
                 sq_vm_abs_h(y, w, w - 1);
    for (int j = 2; j < w - 2; j++)
        s += sq_vm_abs_h_mid(y, j);
    return s;
}

/*
 * SAD of rows [y0, y1) of a plane pair that lie in two layouts (a caller's
 * picture against a copy of the previous one): each plane with its own
 * stride and access.
 */
SQ_FN uint64_t sq_vm_rows_sad2(const SQ_GLOBAL uint8_t *prev, int64_t pstride, int pacc,
                               const SQ_GLOBAL uint8_t *cur, int64_t cstride, int cacc,
                               int w, int h, int bpc, int y0, int y1, SQ_GLOBAL int32_t *ybuf)
{
    uint64_t sad = 0;
    for (int i = y0; i < y1; i++) {
        sq_vm_vert_row2(prev, pstride, pacc, cur, cstride, cacc, w, h, bpc, i, ybuf);
        sad += sq_vm_row_sad_fast(ybuf, w);
    }
    return sad;
}

/* The plane's SAD: the sum of the rows' sums, so any split of [0, h) into
 * row ranges (sq_vm_rows_sad2) adds up to the same u64. */
SQ_FN uint64_t sq_vm_plane_sad2(const SQ_GLOBAL uint8_t *prev, int64_t pstride, int pacc,
                                const SQ_GLOBAL uint8_t *cur, int64_t cstride, int cacc,
                                int w, int h, int bpc, SQ_GLOBAL int32_t *ybuf)
{
    return sq_vm_rows_sad2(prev, pstride, pacc, cur, cstride, cacc, w, h, bpc, 0, h, ybuf);
}

/* libvmaf's MIN(a, b) = a < b ? a : b (b on a tie or a NaN). */
SQ_FN sq_f64 sq_vm_min(sq_f64 a, sq_f64 b)
{
    return sq_d_lt(a, b) ? a : b;
}

/* The motion options as libvmaf holds them (defaults: sq_vm_opts_default). */
typedef struct SqVmOpts {
    sq_f64 blend_factor;  /* motion_blend_factor, 1.0 */
    sq_f64 blend_offset;  /* motion_blend_offset, 40.0 */
    sq_f64 fps_weight;    /* motion_fps_weight, 1.0 */
    sq_f64 max_val;       /* motion_max_val, 10000.0 */
    int five_frame_window; /* motion_five_frame_window */
    int moving_average;   /* motion_moving_average */
    int force_zero;       /* motion_force_zero */
} SqVmOpts;

SQ_FN SqVmOpts sq_vm_opts_default(void)
{
    SqVmOpts o;
    o.blend_factor = SQ_D(0x3ff0000000000000ull, 1.0);
    o.blend_offset = SQ_D(0x4044000000000000ull, 40.0);
    o.fps_weight = SQ_D(0x3ff0000000000000ull, 1.0);
    o.max_val = SQ_D(0x40c3880000000000ull, 10000.0);
    o.five_frame_window = 0;
    o.moving_average = 0;
    o.force_zero = 0;
    return o;
}

/* First index with a SAD of its own (earlier ones score 0): 1, or 2 with the five-frame window. */
SQ_FN int sq_vm_min_idx(const SqVmOpts *o)
{
    return o->five_frame_window ? 2 : 1;
}

/*
 * The per-frame score (VMAF_integer_feature_motion_sad_score) of a plane SAD:
 * min(sad / 256 / (w*h) * fps_weight, max_val), left to right; w*h is libvmaf's
 * unsigned 32-bit product. Frames before sq_vm_min_idx, and every frame with
 * force_zero, score 0 without a SAD.
 */
SQ_FN sq_f64 sq_vm_sad_score(uint64_t sad, int w, int h, const SqVmOpts *o)
{
    const uint32_t area = (uint32_t)w * (uint32_t)h;
    sq_f64 s = sq_d_div(sq_d_from_int((int64_t)sad), SQ_D(0x4070000000000000ull, 256.0));
    s = sq_d_div(s, sq_d_from_int((int64_t)area));
    s = sq_d_mul(s, o->fps_weight);
    return sq_vm_min(s, o->max_val);
}

/* m * bf + (1 - bf) * min(bo, m), in this order (m itself when bf = 1). */
SQ_FN sq_f64 sq_vm_blend(sq_f64 m, const SqVmOpts *o)
{
    const sq_f64 a = sq_d_mul(m, o->blend_factor);
    const sq_f64 b = sq_d_mul(sq_d_sub(SQ_D_ONE, o->blend_factor), sq_vm_min(o->blend_offset, m));
    return sq_d_add(a, b);
}

/* motion2 of index i over the n SAD scores s[0..n) (the flush's first rule). */
SQ_FN sq_f64 sq_vm_motion2(const SQ_GLOBAL sq_f64 *s, int n, int i, const SqVmOpts *o)
{
    const int min_idx = sq_vm_min_idx(o);
    const int lo = i - (o->five_frame_window ? 1 : 0);
    if (i < min_idx)
        return SQ_D_ZERO;
    if (i + 1 >= n)
        return s[i];
    if (lo >= min_idx)
        return sq_vm_min(s[lo], s[i + 1]);
    return s[i + 1];
}

/* min(blend(m), max_val): the clipped term motion3 is made of. */
SQ_FN sq_f64 sq_vm_clip3(sq_f64 m, const SqVmOpts *o)
{
    return sq_vm_min(sq_vm_blend(m, o), o->max_val);
}

/* motion3 of a clipped term p after the previous frame's term prev (the moving average's pair). */
SQ_FN sq_f64 sq_vm_motion3(sq_f64 p, sq_f64 prev, const SqVmOpts *o)
{
    return o->moving_average ? sq_d_div(sq_d_add(p, prev), SQ_D_TWO) : p;
}

/*
 * The flush: motion2[i] and motion3[i] for i in 0..n) from the SAD scores
 * s[0..n) (n: the indices from 0 that have one). Frames before min_idx take
 * motion3 = the clipped SAD of min_idx (0 when there is none); the moving
 * average pairs each clipped term with the previous frame's.
 */
SQ_FN void sq_vm_flush(const SQ_GLOBAL sq_f64 *s, int n, const SqVmOpts *o,
                       SQ_GLOBAL sq_f64 *motion2, SQ_GLOBAL sq_f64 *motion3)
{
    const int min_idx = sq_vm_min_idx(o);
    const sq_f64 stamp = n > min_idx ? sq_vm_clip3(s[min_idx], o) : SQ_D_ZERO;
    sq_f64 prev = stamp;
    for (int i = 0; i < n; i++) {
        const sq_f64 m2 = sq_vm_motion2(s, n, i, o);
        motion2[i] = m2;
        if (i < min_idx) {
            motion3[i] = stamp;
            prev = stamp;
            continue;
        }
        const sq_f64 p = sq_vm_clip3(m2, o);
        motion3[i] = sq_vm_motion3(p, prev, o);
        prev = p;
    }
}

#endif
