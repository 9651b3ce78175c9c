/*
 * libvmaf's integer ADM, part 1 (spec vmaf-integer-features 3.3, 3.4): the
 * integer helpers, the one-level Daubechies-2 DWT of each scale and the
 * decouple/pooling regions. All integer: any split of rows or columns
 * between threads gives the same bands.
 *
 * Bands are int32 planes whatever the scale; at scale 0 libvmaf stores
 * int16, so every scale-0 result goes through sq_va_i16 here exactly where
 * libvmaf stores it (the values normally fit; where they do not, the wrap is
 * libvmaf's too).
 */
#ifndef SQ_MATH_VMAF_ADM_DWT_H
#define SQ_MATH_VMAF_ADM_DWT_H

#include "math/f64.h"
#include "math/filter.h"

/* Band order of the DWT output. */
#define SQ_VA_A 0
#define SQ_VA_V 1 /* vertical low-pass, horizontal high-pass */
#define SQ_VA_H 2 /* vertical high-pass, horizontal low-pass */
#define SQ_VA_D 3

/* v stored into an int16 (wrapping), written without int16_t, which OpenCL C lacks. */
SQ_FN int32_t sq_va_i16(int64_t v)
{
    return (int32_t)(((v & 0xffff) ^ 0x8000) - 0x8000);
}

/* smallest c with 2^c >= n (libvmaf's ceil(log2(n)), exact for every int n >= 1) */
SQ_FN int sq_va_ceil_log2(int64_t n)
{
    int c = 0;
    while (((int64_t)1 << c) < n)
        c++;
    return c;
}

/* (u32)pow(2, c - 1): 0 when c <= 0, as libvmaf's rounding constants are. */
SQ_FN int64_t sq_va_half(int c)
{
    return c > 0 ? (int64_t)1 << (c - 1) : 0;
}

/* a + b modulo 2^64, as libvmaf's i64 sums wrap on x86 (spec 1): extreme masking terms
 * (CSF factors and coefficients far past real data) add up past 2^63 */
SQ_FN int64_t sq_va_wadd(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* 2^e as a double, exact (|e| < 1000), with no libm. */
SQ_FN sq_f64 sq_va_pow2(int e)
{
    return sq_d_from_bits((uint64_t)(1023 + e) << 52);
}

/* 2^e as a float, exact (|e| < 127). */
SQ_FN float sq_va_pow2f(int e)
{
    return sq_bits_f32((uint32_t)(127 + e) << 23);
}

/* A double truncated toward zero (C's cast to an integer), |x| < 2^62. */
SQ_FN int64_t sq_va_trunc(sq_f64 x)
{
#if defined(SQ_SOFT_F64)
    const uint64_t u = sq_d_bits(x);
    const int e = (int)((u >> 52) & 0x7ff) - 1023;
    if (e < 0)
        return 0;
    const uint64_t m = (u & 0xfffffffffffffull) | 0x10000000000000ull;
    const uint64_t v = e >= 52 ? m << (e - 52) : m >> (52 - e);
    return (u >> 63) ? -(int64_t)v : (int64_t)v;
#else
    return (int64_t)x;
#endif
}

/* An unsigned 64-bit integer as a double, correctly rounded also above 2^63. */
SQ_FN sq_f64 sq_va_u64_to_d(uint64_t u)
{
    if (!(u >> 63))
        return sq_d_from_int((int64_t)u);
    /* halve keeping a sticky bit: one rounding, then the exact doubling */
    const sq_f64 h = sq_d_from_int((int64_t)((u >> 1) | (u & 1)));
    return sq_d_add(h, h);
}

/*
 * libvmaf's reciprocal table, DIV[32768 + v] = 2^30 / v truncated toward
 * zero (DIV[32768] = 0), for -32768 <= v <= 32768: C's division is that
 * table, so no table is needed.
 */
SQ_FN int64_t sq_va_div(int64_t v)
{
    /*
     * |v| <= 2^15 (scales 1..3 round |o| to 15 bits first), so the double
     * quotient truncates to the integer one: a quotient that is not an
     * integer lies at least 1/|v| >= 2^-15 from one, and rounding moves it
     * by at most half an ulp, 2^-23 below 2^30. A double division costs a
     * fraction of an integer one on every target.
     */
    return v ? sq_va_trunc(sq_d_div(SQ_D(0x41d0000000000000ull, 1073741824.0), sq_d_from_int(v))) : 0;
}
/* DWT index rule: -1 -> 1 (no edge repeat), n + k -> n - 1 - k (edge repeated). */
SQ_FN int sq_va_mirror(int t, int n)
{
    return t < 0 ? -t : t >= n ? 2 * n - t - 1 : t;
}

/* Taps LO = [15826 27411 7345 -4240] and HI = [-4240 -7345 27411 -15826]. */
SQ_FN int64_t sq_va_lo(int k)
{
    return k == 0 ? 15826 : k == 1 ? 27411 : k == 2 ? 7345 : -4240;
}

SQ_FN int64_t sq_va_hi(int k)
{
    return k == 0 ? -4240 : k == 1 ? -7345 : k == 2 ? 27411 : -15826;
}

/* Vertical/horizontal rounding of scales 1..3 (spec 3.3's table): add = 2^(shift-1). */
SQ_FN int sq_va_vshift(int scale)
{
    return scale == 1 ? 0 : 16;
}

SQ_FN int sq_va_hshift(int scale)
{
    return scale == 2 ? 16 : 15;
}

/*
 * Vertical pass of scale 0 at output row i, input column j, from a raw plane
 * (acc: math/filter.h sample access) of height h: the low-pass with the mean
 * offset 46342 * 2^(bpc-1) removed and the high-pass, each
 * (sum + 2^(bpc-1)) >> bpc stored as int16 (bpc = 8 is libvmaf's 8-bit path): the
 * low-pass into *lo, the high-pass returned.
 */
SQ_FN int32_t sq_va_dwt_v0_at(const SQ_GLOBAL uint8_t *src, int64_t stride, int acc, int h,
                              int bpc, int i, int j, int32_t *lo)
{
    int64_t sl = 0, sh = 0;
    for (int k = 0; k < 4; k++) {
        const int64_t x = sq_sample(src + (int64_t)sq_va_mirror(2 * i - 1 + k, h) * stride, j, acc);
        sl += sq_va_lo(k) * x;
        sh += sq_va_hi(k) * x;
    }
    const int64_t rnd = (int64_t)1 << (bpc - 1);
    *lo = sq_va_i16((sl - 46342 * rnd + rnd) >> bpc);
    return sq_va_i16((sh + rnd) >> bpc);
}

SQ_FN void sq_va_dwt_v0(const SQ_GLOBAL uint8_t *src, int64_t stride, int acc, int h, int bpc,
                        int i, int j, SQ_GLOBAL int32_t *lo, SQ_GLOBAL int32_t *hi)
{
    int32_t l;
    hi[j] = sq_va_dwt_v0_at(src, stride, acc, h, bpc, i, j, &l);
    lo[j] = l;
}

/* Vertical pass of scale 1..3 at (i, j) over the previous scale's band a (int32, width w). */
SQ_FN void sq_va_dwt_vs(const SQ_GLOBAL int32_t *src, int w, int h, int scale, int i, int j,
                        SQ_GLOBAL int32_t *lo, SQ_GLOBAL int32_t *hi)
{
    int64_t sl = 0, sh = 0;
    for (int k = 0; k < 4; k++) {
        const int64_t x = src[(int64_t)sq_va_mirror(2 * i - 1 + k, h) * w + j];
        sl += sq_va_lo(k) * x;
        sh += sq_va_hi(k) * x;
    }
    const int s = sq_va_vshift(scale);
    const int64_t add = sq_va_half(s);
    lo[j] = (int32_t)((sl + add) >> s);
    hi[j] = (int32_t)((sh + add) >> s);
}

/*
 * Horizontal pass at output column c of the vertical rows lo/hi (input width
 * w): band[SQ_VA_A..D][c]. Scale 0 rounds by 2^16 into int16; scales 1..3 by
 * their shift into int32. only_a: skip_scale0's scale 0, where only a is kept.
 */
SQ_FN void sq_va_dwt_h(const SQ_GLOBAL int32_t *lo, const SQ_GLOBAL int32_t *hi, int w, int scale,
                       int c, int only_a, SQ_GLOBAL int32_t *const *band, int64_t at)
{
    int64_t a = 0, v = 0, hh = 0, d = 0;
    for (int k = 0; k < 4; k++) {
        const int m = sq_va_mirror(2 * c - 1 + k, w);
        a += sq_va_lo(k) * lo[m];
        v += sq_va_hi(k) * lo[m];
        hh += sq_va_lo(k) * hi[m];
        d += sq_va_hi(k) * hi[m];
    }
    const int s = scale ? sq_va_hshift(scale) : 16;
    const int64_t add = sq_va_half(s);
    if (!scale) {
        band[SQ_VA_A][at] = sq_va_i16((a + add) >> s);
        if (only_a)
            return;
        band[SQ_VA_V][at] = sq_va_i16((v + add) >> s);
        band[SQ_VA_H][at] = sq_va_i16((hh + add) >> s);
        band[SQ_VA_D][at] = sq_va_i16((d + add) >> s);
        return;
    }
    band[SQ_VA_A][at] = (int32_t)((a + add) >> s);
    band[SQ_VA_V][at] = (int32_t)((v + add) >> s);
    band[SQ_VA_H][at] = (int32_t)((hh + add) >> s);
    band[SQ_VA_D][at] = (int32_t)((d + add) >> s);
}

/* Row pointers of the four vertical taps of output row i (rows 2i-1 .. 2i+2, mirrored). */
SQ_FN void sq_va_taprows(const SQ_GLOBAL uint8_t *src, int64_t stride, int h, int i,
                         const SQ_GLOBAL uint8_t **r)
{
    for (int k = 0; k < 4; k++)
        r[k] = src + (int64_t)sq_va_mirror(2 * i - 1 + k, h) * stride;
}

/*
 * sq_va_dwt_v0 over a whole output row, 8-bit planes in int32 (|sum| <=
 * 54822 * 255) and 16-bit containers in int64; other layouts per sample.
 */
SQ_FN void sq_va_dwt_v0_row(const SQ_GLOBAL uint8_t *src, int64_t stride, int acc, int h, int bpc,
                            int i, int w, SQ_GLOBAL int32_t *lo, SQ_GLOBAL int32_t *hi)
{
    const SQ_GLOBAL uint8_t *r[4];
    sq_va_taprows(src, stride, h, i, r);
    const int64_t rnd = (int64_t)1 << (bpc - 1);
    if (acc == 0 && bpc == 8) {
        const SQ_GLOBAL uint8_t *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3];
        for (int j = 0; j < w; j++) {
            const int32_t x0 = r0[j], x1 = r1[j], x2 = r2[j], x3 = r3[j];
            const int32_t sl = 15826 * x0 + 27411 * x1 + 7345 * x2 - 4240 * x3;
            const int32_t sh = -4240 * x0 - 7345 * x1 + 27411 * x2 - 15826 * x3;
            lo[j] = sq_va_i16((sl - 46342 * 128 + 128) >> 8);
            hi[j] = sq_va_i16((sh + 128) >> 8);
        }
        return;
    }
    for (int j = 0; j < w; j++) {
        int64_t x[4];
        for (int k = 0; k < 4; k++)
            x[k] = sq_sample(r[k], j, acc);
        const int64_t sl = 15826 * x[0] + 27411 * x[1] + 7345 * x[2] - 4240 * x[3];
        const int64_t sh = -4240 * x[0] - 7345 * x[1] + 27411 * x[2] - 15826 * x[3];
        lo[j] = sq_va_i16((sl - 46342 * rnd + rnd) >> bpc);
        hi[j] = sq_va_i16((sh + rnd) >> bpc);
    }
}

/* sq_va_dwt_vs over a whole output row. */
SQ_FN void sq_va_dwt_vs_row(const SQ_GLOBAL int32_t *src, int w, int h, int scale, int i,
                            SQ_GLOBAL int32_t *lo, SQ_GLOBAL int32_t *hi)
{
    const SQ_GLOBAL int32_t *r0 = src + (int64_t)sq_va_mirror(2 * i - 1, h) * w,
                            *r1 = src + (int64_t)sq_va_mirror(2 * i, h) * w,
                            *r2 = src + (int64_t)sq_va_mirror(2 * i + 1, h) * w,
                            *r3 = src + (int64_t)sq_va_mirror(2 * i + 2, h) * w;
    const int s = sq_va_vshift(scale);
    const int64_t add = sq_va_half(s);
    for (int j = 0; j < w; j++) {
        const int64_t x0 = r0[j], x1 = r1[j], x2 = r2[j], x3 = r3[j];
        lo[j] = (int32_t)((15826 * x0 + 27411 * x1 + 7345 * x2 - 4240 * x3 + add) >> s);
        hi[j] = (int32_t)((-4240 * x0 - 7345 * x1 + 27411 * x2 - 15826 * x3 + add) >> s);
    }
}

/*
 * sq_va_dwt_h over a whole output row (w2 columns): the columns whose taps
 * stay inside the row without mirroring in straight loops (scale 0's
 * int16-range inputs in int32: |sum| <= 54822 * 2^15), the edges through
 * sq_va_dwt_h.
 */
SQ_FN void sq_va_dwt_h_row(const SQ_GLOBAL int32_t *lo, const SQ_GLOBAL int32_t *hi, int w,
                           int scale, int only_a, SQ_GLOBAL int32_t *const *band, int64_t at)
{
    const int w2 = (w + 1) / 2, c1 = sq_imax(1, sq_imin((w - 1) / 2, w2));
    SQ_GLOBAL int32_t *ba = band[SQ_VA_A] + at, *bv = band[SQ_VA_V] + at,
                      *bh = band[SQ_VA_H] + at, *bd = band[SQ_VA_D] + at;
    sq_va_dwt_h(lo, hi, w, scale, 0, only_a, band, at);
    if (!scale) {
        for (int c = 1; c < c1; c++) {
            const SQ_GLOBAL int32_t *l = lo + 2 * c - 1;
            ba[c] = sq_va_i16((15826 * l[0] + 27411 * l[1] + 7345 * l[2] - 4240 * l[3] + 32768) >> 16);
        }
        if (!only_a)
            for (int c = 1; c < c1; c++) {
                const SQ_GLOBAL int32_t *l = lo + 2 * c - 1, *g = hi + 2 * c - 1;
                bv[c] = sq_va_i16((-4240 * l[0] - 7345 * l[1] + 27411 * l[2] - 15826 * l[3] + 32768) >> 16);
                bh[c] = sq_va_i16((15826 * g[0] + 27411 * g[1] + 7345 * g[2] - 4240 * g[3] + 32768) >> 16);
                bd[c] = sq_va_i16((-4240 * g[0] - 7345 * g[1] + 27411 * g[2] - 15826 * g[3] + 32768) >> 16);
            }
    } else {
        const int s = sq_va_hshift(scale);
        const int64_t add = sq_va_half(s);
        for (int c = 1; c < c1; c++) {
            const SQ_GLOBAL int32_t *l = lo + 2 * c - 1, *g = hi + 2 * c - 1;
            const int64_t l0 = l[0], l1 = l[1], l2 = l[2], l3 = l[3];
            const int64_t g0 = g[0], g1 = g[1], g2 = g[2], g3 = g[3];
            ba[c] = (int32_t)((15826 * l0 + 27411 * l1 + 7345 * l2 - 4240 * l3 + add) >> s);
            bv[c] = (int32_t)((-4240 * l0 - 7345 * l1 + 27411 * l2 - 15826 * l3 + add) >> s);
            bh[c] = (int32_t)((15826 * g0 + 27411 * g1 + 7345 * g2 - 4240 * g3 + add) >> s);
            bd[c] = (int32_t)((-4240 * g0 - 7345 * g1 + 27411 * g2 - 15826 * g3 + add) >> s);
        }
    }
    for (int c = c1; c < w2; c++)
        sq_va_dwt_h(lo, hi, w, scale, c, only_a, band, at + c);
}

/*
 * One DWT level over output rows [i0, i1): scale 0 from the raw plane
 * (src8, stride, acc, bpc), scales 1..3 from the int32 band src (width w).
 * Bands are ((w + 1) / 2) wide; output row i goes to band[b] + (i - i0) *
 * ((w + 1) / 2). lo/hi: caller rows of w int32.
 */
SQ_FN void sq_va_dwt_rows(const SQ_GLOBAL uint8_t *src8, int64_t stride, int acc, int bpc,
                          const SQ_GLOBAL int32_t *src, int w, int h, int scale, int only_a,
                          int i0, int i1, SQ_GLOBAL int32_t *lo, SQ_GLOBAL int32_t *hi,
                          SQ_GLOBAL int32_t *const *band)
{
    const int w2 = (w + 1) / 2;
    for (int i = i0; i < i1; i++) {
        if (scale)
            sq_va_dwt_vs_row(src, w, h, scale, i, lo, hi);
        else
            sq_va_dwt_v0_row(src8, stride, acc, h, bpc, i, w, lo, hi);
        sq_va_dwt_h_row(lo, hi, w, scale, only_a, band, (int64_t)(i - i0) * w2);
    }
}

/* sq_va_dwt_rows over the whole plane: ((w + 1) / 2) x ((h + 1) / 2) bands, rows packed. */
SQ_FN void sq_va_dwt_plane(const SQ_GLOBAL uint8_t *src8, int64_t stride, int acc, int bpc,
                           const SQ_GLOBAL int32_t *src, int w, int h, int scale, int only_a,
                           SQ_GLOBAL int32_t *lo, SQ_GLOBAL int32_t *hi,
                           SQ_GLOBAL int32_t *const *band)
{
    sq_va_dwt_rows(src8, stride, acc, bpc, src, w, h, scale, only_a, 0, (h + 1) / 2, lo, hi, band);
}

/*
 * The regions of a band of n samples (spec 3.4). libvmaf computes
 * trunc(n * 0.1 - 0.5 - 1) and trunc(n * 0.1 - 0.5) in double; since 0.1 as
 * a double exceeds 1/10 by less than any step that could move such a value
 * across an integer, they equal C's truncating divisions (n - 15) / 10 and
 * (n - 5) / 10, negative values included.
 */
SQ_FN int sq_va_ext_lo(int n)
{
    return sq_imax((n - 15) / 10, 0);
}

SQ_FN int sq_va_ext_hi(int n)
{
    return sq_imin(n - (n - 15) / 10 + 2, n);
}

SQ_FN int sq_va_pool_lo(int n)
{
    return (n - 5) / 10;
}

SQ_FN int sq_va_pool_hi(int n)
{
    return n - (n - 5) / 10;
}

#endif
