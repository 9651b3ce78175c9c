/*
 * libvmaf's integer VIF (extractor "vif", spec vmaf-integer-features 4),
 * bit-identical to libvmaf 3.2.0: four scales, each the local statistics of
 * the reference x and the distorted y through a Q16 filter (17, 9, 5, 3
 * taps), the per-pixel information terms through a 2048 * log2 table, then
 * a low-pass and a 2:1 decimation into the next scale's 8.8 planes.
 *
 * Planes are u16 (the raw samples at scale 0, 8.8 values after it). Every
 * sum is an integer whose value does not depend on the order, so rows,
 * columns and lanes may be split at will; the few doubles of a pixel (the
 * gain g) and of a scale's num/den go through math/f64.h in the spec's
 * order. The log2 table needs libm: the host builds it (lt[i - 32768] for
 * i in [32768, 65535], SQ_VI_LT_N entries) and passes it down.
 *
 * A statistics row is two passes: sq_vi_vrow (vertical, into five u32
 * rows of w + 2R with the mirror written around them by sq_vi_pad) and
 * sq_vi_hrow (horizontal, the terms summed into SqViAcc). A decimation row
 * is sq_vi_sub_vrow then sq_vi_sub_hrow.
 */
#ifndef SQ_MATH_VMAF_VIF_H
#define SQ_MATH_VMAF_VIF_H

#include "math/f64.h"
#include "math/filter.h"
#include "math/vmaf_adm_dwt.h"

#define SQ_VI_LT_N 32768
/* u16 to allocate for the table: one past it for the SIMD rows' 32-bit gathers at an entry */
#define SQ_VI_LT_ALLOC (SQ_VI_LT_N + 1)
/* sigma_n^2 in the statistics' units (8-bit pixel^2 * 2^16): 2 */
#define SQ_VI_NSQ (1 << 17)
/* the widest filter's half-width: the padding of every row buffer */
#define SQ_VI_PAD 8

/* Half-width of scale s's filter (8, 4, 2, 1). */
SQ_FN int sq_vi_half(int s)
{
    return 8 >> s;
}

/* Tap k (0 .. 2R) of scale s's Q16 filter (each sums to 65536). */
SQ_FN uint32_t sq_vi_tap(int s, int k)
{
    const int r = sq_vi_half(s), m = k <= r ? k : 2 * r - k; /* symmetric */
    if (s == 0) {
        const uint32_t t0 = m < 4 ? (m < 2 ? (m ? 935u : 489u) : (m == 2 ? 1640u : 2640u))
                                  : m < 6 ? (m == 4 ? 3896u : 5274u)
                                  : m == 6 ? 6547u : m == 7 ? 7455u : 7784u;
        return t0;
    }
    if (s == 1)
        return m == 0 ? 1244u : m == 1 ? 3663u : m == 2 ? 7925u : m == 3 ? 12590u : 14692u;
    if (s == 2)
        return m == 0 ? 3571u : m == 1 ? 16004u : 26386u;
    return m == 0 ? 10904u : 43728u;
}

/* Scale s's taps into ft[0 .. 2R]. */
SQ_FN void sq_vi_taps(int s, uint32_t *ft)
{
    for (int k = 0; k <= 2 * sq_vi_half(s); k++)
        ft[k] = sq_vi_tap(s, k);
}

/* Scale s's taps summed (2^16 at every scale): the int16 pair kernels add back 2^15 times it. */
SQ_FN uint32_t sq_vi_tap_sum(int s)
{
    uint32_t t = 0;
    for (int k = 0; k <= 2 * sq_vi_half(s); k++)
        t += sq_vi_tap(s, k);
    return t;
}

/* The vertical shift of the means (scale 0: the depth, then 16) and of the
 * second moments (scale 0: 2 (bpc - 8), 0 at 8 bits; then 16). */
SQ_FN int sq_vi_mu_shift(int s, int bpc) { return s ? 16 : bpc; }
SQ_FN int sq_vi_sq_shift(int s, int bpc) { return s ? 16 : 2 * (bpc - 8); }
SQ_FN uint64_t sq_vi_rnd(int sh) { return sh ? (uint64_t)1 << (sh - 1) : 0; }

/* A scale's four integer sums (spec 4.4). */
typedef struct SqViAcc {
    int64_t num_log, den_log, num_nonlog, den_nonlog;
} SqViAcc;

/* The rows of one statistics row: the means and second moments, u32. */
typedef struct SqViRows {
    SQ_GLOBAL uint32_t *m1, *m2, *xx, *yy, *xy; /* each at its column 0, padded by R */
} SqViRows;

/* A column's vertical sums, before their shifts: Sum f a < 2^16 2^16 fits u32. */
typedef struct SqViV {
    uint32_t m1, m2;
    uint64_t xx, yy, xy;
} SqViV;

/* A column's statistics: the means and moments, shifted (u32). */
typedef struct SqViCol {
    uint32_t m1, m2, xx, yy, xy;
} SqViCol;

/* Tap f of samples a (reference) and b (distorted) into v: f a, f b < 2^32
 * (taps below 2^16, samples below 2^16), so each product widens once. */
SQ_FN void sq_vi_vtap(SqViV *v, uint32_t f, uint32_t a, uint32_t b)
{
    const uint32_t fa = f * a, fb = f * b;
    v->m1 += fa;
    v->m2 += fb;
    v->xx += (uint64_t)fa * a;
    v->yy += (uint64_t)fb * b;
    v->xy += (uint64_t)fa * b;
}

/* The column's statistics from its sums at scale s, depth bpc. */
SQ_FN SqViCol sq_vi_vend(const SqViV *v, int s, int bpc)
{
    const int smu = sq_vi_mu_shift(s, bpc), ssq = sq_vi_sq_shift(s, bpc);
    const uint64_t rmu = sq_vi_rnd(smu), rsq = sq_vi_rnd(ssq);
    SqViCol c;
    c.m1 = (uint32_t)(((uint64_t)v->m1 + rmu) >> smu);
    c.m2 = (uint32_t)(((uint64_t)v->m2 + rmu) >> smu);
    c.xx = (uint32_t)((v->xx + rsq) >> ssq);
    c.yy = (uint32_t)((v->yy + rsq) >> ssq);
    c.xy = (uint32_t)((v->xy + rsq) >> ssq);
    return c;
}

/*
 * Vertical pass of statistics row i at columns [j0, j1) of a w x h scale
 * (rows mirrored): the means and moments, shifted as the scale says.
 */
SQ_FN void sq_vi_vrow(const SQ_GLOBAL uint16_t *x, int64_t xs, const SQ_GLOBAL uint16_t *y,
                      int64_t ys, int h, int s, int bpc, int i, int j0, int j1, SqViRows t)
{
    const int r = sq_vi_half(s);
    /* the rows' mirror and the taps once per row */
    int64_t xo[17], yo[17];
    uint32_t ft[17];
    for (int k = 0; k <= 2 * r; k++) {
        xo[k] = (int64_t)sq_mirror(i - r + k, h) * xs;
        yo[k] = (int64_t)sq_mirror(i - r + k, h) * ys;
        ft[k] = sq_vi_tap(s, k);
    }
    for (int j = j0; j < j1; j++) {
        SqViV v = { 0, 0, 0, 0, 0 };
        for (int k = 0; k <= 2 * r; k++)
            sq_vi_vtap(&v, ft[k], x[xo[k] + j], y[yo[k] + j]);
        const SqViCol c = sq_vi_vend(&v, s, bpc);
        t.m1[j] = c.m1;
        t.m2[j] = c.m2;
        t.xx[j] = c.xx;
        t.yy[j] = c.yy;
        t.xy[j] = c.xy;
    }
}

/* The mirror around a row of w values: [-r, 0) and [w, w + r) (sq_mirror's). */
SQ_FN void sq_vi_pad(SQ_GLOBAL uint32_t *t, int w, int r)
{
    for (int k = 1; k <= r; k++) {
        t[-k] = t[sq_mirror(-k, w)];
        t[w - 1 + k] = t[sq_mirror(w - 1 + k, w)];
    }
}

/* The same around a row of u16 values (the SIMD decimation's vertical row). */
SQ_FN void sq_vi_pad16(SQ_GLOBAL uint16_t *t, int w, int r)
{
    for (int k = 1; k <= r; k++) {
        t[-k] = t[sq_mirror(-k, w)];
        t[w - 1 + k] = t[sq_mirror(w - 1 + k, w)];
    }
}

SQ_FN void sq_vi_pad_rows(SqViRows t, int w, int r)
{
    sq_vi_pad(t.m1, w, r);
    sq_vi_pad(t.m2, w, r);
    sq_vi_pad(t.xx, w, r);
    sq_vi_pad(t.yy, w, r);
    sq_vi_pad(t.xy, w, r);
}

/* 2048 log2(v) of v >= 2^16 through the table (the shift truncates). */
SQ_FN int64_t sq_vi_log(const SQ_GLOBAL uint16_t *lt, uint64_t v)
{
    const int k = sq_msb64(v) - 15;
    return (int64_t)lt[(v >> k) - 32768] + 2048 * (int64_t)k;
}

/* The sigmas of one pixel, sigma2 clamped at 0 (spec 4.4). */
typedef struct SqViSig {
    int32_t s1, s2, s12;
} SqViSig;

/* A pixel's horizontal sums: the means' wrap in u32 as the scalar code's. */
typedef struct SqViH {
    uint32_t m1, m2;
    uint64_t xx, yy, xy;
} SqViH;

SQ_FN void sq_vi_htap(SqViH *a, uint32_t f, SqViCol c)
{
    a->m1 += f * c.m1;
    a->m2 += f * c.m2;
    a->xx += (uint64_t)f * c.xx;
    a->yy += (uint64_t)f * c.yy;
    a->xy += (uint64_t)f * c.xy;
}

/* The pixel's sigmas from its horizontal sums. */
SQ_FN SqViSig sq_vi_hend(const SqViH *a)
{
    const uint64_t h = (uint64_t)1 << 31;
    const uint32_t m11 = (uint32_t)(((uint64_t)a->m1 * a->m1 + h) >> 32);
    const uint32_t m22 = (uint32_t)(((uint64_t)a->m2 * a->m2 + h) >> 32);
    const uint32_t m12 = (uint32_t)(((uint64_t)a->m1 * a->m2 + h) >> 32);
    SqViSig g;
    g.s1 = (int32_t)((uint32_t)((a->xx + 32768) >> 16) - m11);
    g.s2 = (int32_t)((uint32_t)((a->yy + 32768) >> 16) - m22);
    g.s12 = (int32_t)((uint32_t)((a->xy + 32768) >> 16) - m12);
    g.s2 = g.s2 < 0 ? 0 : g.s2;
    return g;
}

/* The horizontal pass at column j of padded rows t (scale s, its taps ft: sq_vi_taps). */
SQ_FN SqViSig sq_vi_sig_at(SqViRows t, int s, const uint32_t *ft, int j)
{
    const int r = sq_vi_half(s);
    SqViH a = { 0, 0, 0, 0, 0 };
    for (int k = 0; k <= 2 * r; k++) {
        const int c = j - r + k;
        SqViCol v;
        v.m1 = t.m1[c];
        v.m2 = t.m2[c];
        v.xx = t.xx[c];
        v.yy = t.yy[c];
        v.xy = t.xy[c];
        sq_vi_htap(&a, ft[k], v);
    }
    return sq_vi_hend(&a);
}

/* The log terms of a pixel with sigma1 >= SQ_VI_NSQ, sigma12 > 0, sigma2 > 0: the
 * numerator's 2048 log2 ratio, the gain limited to egl. */
SQ_FN int64_t sq_vi_num_term(SqViSig g, sq_f64 egl, const SQ_GLOBAL uint16_t *lt)
{
    const sq_f64 eps = sq_d_mul(SQ_D(0x40f0000000000000ull, 65536.0),
                                SQ_D(0x3ddb7cdfd9d7bdbbull, 1e-10));
    const sq_f64 s1 = sq_d_from_int(g.s1), s12 = sq_d_from_int(g.s12);
    sq_f64 gain = sq_d_div(s12, sq_d_add(s1, eps));
    /* libvmaf converts to int32, then clamps at 0: below 2^31 (the value is at most
     * sigma2), and any negative value, of range or not (x86 gives INT_MIN), ends 0 */
    int64_t sv = sq_va_trunc(sq_d_sub(sq_d_from_int(g.s2), sq_d_mul(gain, s12)));
    sv = sv < 0 ? 0 : sv;
    gain = sq_d_lt(gain, egl) ? gain : egl;
    const uint32_t n1 = (uint32_t)sv + SQ_VI_NSQ;
    const int64_t n2 = sq_va_trunc(sq_d_mul(sq_d_mul(gain, gain), s1)) + (int64_t)n1;
    return sq_vi_log(lt, (uint64_t)n2) - sq_vi_log(lt, n1);
}

/* One pixel's terms into a. */
SQ_FN void sq_vi_pixel(SqViSig g, sq_f64 egl, const SQ_GLOBAL uint16_t *lt, SqViAcc *a)
{
    if (g.s1 >= SQ_VI_NSQ) {
        a->den_log += sq_vi_log(lt, (uint32_t)g.s1 + SQ_VI_NSQ) - 2048 * 17;
        if (g.s12 > 0 && g.s2 > 0)
            a->num_log += sq_vi_num_term(g, egl, lt);
    } else {
        a->num_nonlog += g.s2;
        a->den_nonlog += 1;
    }
}

/* Horizontal pass of a statistics row at columns [j0, j1), its terms into a. */
SQ_FN void sq_vi_hrow(SqViRows t, int s, int j0, int j1, sq_f64 egl,
                      const SQ_GLOBAL uint16_t *lt, SqViAcc *a)
{
    uint32_t ft[17];
    sq_vi_taps(s, ft);
    for (int j = j0; j < j1; j++)
        sq_vi_pixel(sq_vi_sig_at(t, s, ft, j), egl, lt, a);
}

/* A scale's num and den (f32, computed in double: spec 4.4). */
SQ_FN void sq_vi_scale_nd(const SqViAcc *a, float *num, float *den)
{
    const sq_f64 q = SQ_D(0x40a0000000000000ull, 2048.0);
    const sq_f64 nl = sq_d_div(sq_d_from_int(a->num_log), q);
    const sq_f64 nn = sq_d_div(sq_d_div(sq_d_from_int(a->num_nonlog),
                                        SQ_D(0x40d0000000000000ull, 16384.0)),
                               SQ_D(0x40efc02000000000ull, 65025.0));
    const sq_f64 dn = sq_d_from_int(a->den_nonlog);
    *num = sq_d_to_float(sq_d_add(nl, sq_d_sub(dn, nn)));
    *den = sq_d_to_float(sq_d_add(sq_d_div(sq_d_from_int(a->den_log), q), dn));
}

/* The decimation's vertical value into scale s (s >= 1) from its tap sum m
 * (u32: every tap sum of a u16 plane is below 2^32): shifted by the depth
 * from scale 0, by 16 after it. */
SQ_FN uint32_t sq_vi_sub_vend(uint32_t m, int s, int bpc)
{
    const int sh = s == 1 ? bpc : 16;
    return (m + ((uint32_t)1 << (sh - 1))) >> sh;
}

/* Its horizontal value (an 8.8 sample of scale s) from the tap sum m. */
SQ_FN uint16_t sq_vi_sub_hend(uint32_t m)
{
    return (uint16_t)((m + 32768) >> 16);
}

/*
 * Decimation into scale s (s >= 1) from the previous scale's w x h plane:
 * the vertical pass of input row 2i (rows mirrored) at columns [j0, j1)
 * into t.
 */
SQ_FN void sq_vi_sub_vrow(const SQ_GLOBAL uint16_t *x, int64_t xs, int h, int s, int bpc, int i,
                          int j0, int j1, SQ_GLOBAL uint32_t *t)
{
    const int r = sq_vi_half(s);
    int64_t xo[9];
    uint32_t ft[9];
    for (int k = 0; k <= 2 * r; k++) {
        xo[k] = (int64_t)sq_mirror(2 * i - r + k, h) * xs;
        ft[k] = sq_vi_tap(s, k);
    }
    for (int j = j0; j < j1; j++) {
        uint32_t m = 0;
        for (int k = 0; k <= 2 * r; k++)
            m += ft[k] * (uint32_t)x[xo[k] + j];
        t[j] = sq_vi_sub_vend(m, s, bpc);
    }
}

/* Its horizontal pass at output columns [j0, j1) (input column 2j of the padded t). */
SQ_FN void sq_vi_sub_hrow(const SQ_GLOBAL uint32_t *t, int s, int j0, int j1,
                          SQ_GLOBAL uint16_t *out)
{
    const int r = sq_vi_half(s);
    uint32_t ft[9];
    sq_vi_taps(s, ft);
    for (int j = j0; j < j1; j++) {
        uint32_t m = 0;
        for (int k = 0; k <= 2 * r; k++)
            m += ft[k] * t[2 * j - r + k];
        out[j] = sq_vi_sub_hend(m);
    }
}

/* One scale's statistics over a w x h plane pair with the caller's padded rows. */
SQ_FN void sq_vi_scale(const SQ_GLOBAL uint16_t *x, int64_t xs, const SQ_GLOBAL uint16_t *y,
                       int64_t ys, int w, int h, int s, int bpc, sq_f64 egl,
                       const SQ_GLOBAL uint16_t *lt, SqViRows t, SqViAcc *a)
{
    a->num_log = a->den_log = a->num_nonlog = a->den_nonlog = 0;
    for (int i = 0; i < h; i++) {
        sq_vi_vrow(x, xs, y, ys, h, s, bpc, i, 0, w, t);
        sq_vi_pad_rows(t, w, sq_vi_half(s));
        sq_vi_hrow(t, s, 0, w, egl, lt, a);
    }
}

/* Scale s's plane (w / 2 x h / 2, stride os) from the previous scale's w x h, with a padded row t. */
SQ_FN void sq_vi_subsample(const SQ_GLOBAL uint16_t *x, int64_t xs, int w, int h, int s, int bpc,
                           SQ_GLOBAL uint32_t *t, SQ_GLOBAL uint16_t *out, int64_t os)
{
    for (int i = 0; i < h / 2; i++) {
        sq_vi_sub_vrow(x, xs, h, s, bpc, i, 0, w, t);
        sq_vi_pad(t, w, sq_vi_half(s));
        sq_vi_sub_hrow(t, s, 0, w / 2, out + (int64_t)i * os);
    }
}

/* A frame's raw values: each scale's num and den (skipped scale 0: 0 and -1). */
typedef struct SqViRaw {
    float num[4], den[4];
} SqViRaw;

/* The scratch of a frame: two plane pairs (scale 0 and 2, scale 1 and 3) and the rows. */
typedef struct SqViBufs {
    SQ_GLOBAL uint16_t *p[2][2]; /* [pair][0 ref, 1 dis]: pair 0 W x H (scales 0, 2),
                                  * pair 1 W/2 x H/2 (scales 1, 3) */
    SqViRows t;                  /* each W + 2 SQ_VI_PAD, pointers at column 0 */
    SQ_GLOBAL uint32_t *sub;     /* W + 2 SQ_VI_PAD, at column 0 */
} SqViBufs;

/*
 * The whole frame from two u16 planes at scale 0 (W x H, strides xs, ys):
 * the scales' num and den. skip0: scale 0's statistics are not computed.
 */
SQ_FN void sq_vi_frame(const SQ_GLOBAL uint16_t *x, int64_t xs, const SQ_GLOBAL uint16_t *y,
                       int64_t ys, int W, int H, int bpc, sq_f64 egl, int skip0,
                       const SQ_GLOBAL uint16_t *lt, const SqViBufs *bf, SqViRaw *raw)
{
    int w = W, h = H;
    for (int s = 0; s < 4; s++) {
        if (s > 0) {
            /* scales 1 and 3 into pair 1, 2 into pair 0 (scale 0's input may be there) */
            SQ_GLOBAL uint16_t *const *o = bf->p[s & 1];
            sq_vi_subsample(x, xs, w, h, s, bpc, bf->sub, o[0], w / 2);
            sq_vi_subsample(y, ys, w, h, s, bpc, bf->sub, o[1], w / 2);
            w /= 2;
            h /= 2;
            x = o[0];
            y = o[1];
            xs = ys = w;
        }
        if (s == 0 && skip0) {
            raw->num[0] = 0.0f;
            raw->den[0] = -1.0f;
            continue;
        }
        SqViAcc a;
        sq_vi_scale(x, xs, y, ys, w, h, s, bpc, egl, lt, bf->t, &a);
        sq_vi_scale_nd(&a, &raw->num[s], &raw->den[s]);
    }
}

#endif
