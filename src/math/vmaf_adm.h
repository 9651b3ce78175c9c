/*
 * libvmaf's integer ADM, part 2 (spec vmaf-integer-features 3.5-3.8): the
 * decouple into restored and additive bands, the CSF weighting and fine
 * mask, and the contrast-masking numerator of one scale. Pooling, the
 * denominator and the published scores are math/vmaf_adm_pool.h.
 *
 * What the host computes (the only parts that need libm: log10, pow, cos,
 * and the per-scale powf(x, 1/3)), per scale s and orientation th = h, v, d:
 *   SqVaScale.ir[th]   the fixed-point CSF factor: scale 0 the u16 IR
 *                      ((u16)trunc(rf * 2^21) for h, v, (u16)trunc(rf * 2^23)
 *                      for d, or 36453/36453/49417 for Watson at 3H/1080),
 *                      scales 1..3 (u32)trunc(rf * 2^32);
 *   SqVaScale.rf3[th]  pow(rf, 3) in double, rf the f32 factor of th;
 * and, after a frame's SqVaRaw, the cube roots that sq_va_scale_sum adds.
 * rf is 1.0f / Watson's Q (adm_csf_mode 0: glibc log10/pow on the spec's
 * f32 constants) or the f32 entry of the blend tables (modes 2 and 3),
 * for (scale, h/v) and (scale, d). The host also refuses what libvmaf
 * refuses (nvd * rdh < 3 * 1080) and blend modes without a table.
 * tests/vmafint/adm_check.c (params) builds all of it for now; Barten
 * (mode 1) is not covered (libvmaf's C and SIMD disagree there).
 */
#ifndef SQ_MATH_VMAF_ADM_H
#define SQ_MATH_VMAF_ADM_H

#include "math/vmaf_adm_dwt.h"

/* Orientation order of r, e, A, F and of every per-orientation value: h, v, d. */
SQ_FN int sq_va_band_of(int th)
{
    return th == 0 ? SQ_VA_H : th == 1 ? SQ_VA_V : SQ_VA_D;
}

typedef struct SqVaScale {
    uint32_t ir[3];
    sq_f64 rf3[3];
} SqVaScale;

/* Magnitude of an int64 (the values are far from INT64_MIN). */
SQ_FN int64_t sq_va_abs(int64_t v)
{
    return v < 0 ? -v : v;
}

/*
 * Gain k (Q15) of a restored coefficient, clamped to [0, 32768]: t/o through
 * the reciprocal table; scales 1..3 first round |o| >= 2^15 to 15 bits.
 */
SQ_FN int64_t sq_va_gain(int scale, int64_t o, int64_t t)
{
    int64_t k;
    /* o == 0 takes the quotient of 1 and is then replaced: no branch on data */
    const int64_t o1 = o ? o : 1;
    if (scale == 0) {
        k = (sq_va_div(o1) * t + 16384) >> 15;
    } else {
        const int64_t s = o1 < 0 ? -1 : 1, m = sq_va_abs(o1);
        int sh = 0;
        int64_t q = m;
        if (m >= 32768) {
            sh = sq_msb64((uint64_t)m) - 14;
            q = (m + ((int64_t)1 << (sh - 1))) >> sh;
        }
        k = ((sq_va_div(q) * t) * s + ((int64_t)1 << (14 + sh))) >> (15 + sh);
    }
    k = k < 0 ? 0 : k > 32768 ? 32768 : k;
    return o ? k : 32768;
}

/*
 * libvmaf's angle test: the reference and distorted (h, v) vectors within one
 * degree. The i64 sums are rounded to float, divided by 4096 in double, and
 * dp^2 >= cos^2(1 deg) * |o|^2 * |t|^2 is evaluated left to right in double
 * (cos^2 rounded to float: 0x1.ffd814p-1).
 */
SQ_FN int sq_va_angle(int64_t oh, int64_t ov, int64_t th, int64_t tv)
{
    const sq_f64 q = SQ_D(0x40b0000000000000ull, 4096.0);
    const sq_f64 dp = sq_d_div(sq_d_from_float((float)(oh * th + ov * tv)), q);
    const sq_f64 om = sq_d_div(sq_d_from_float((float)(oh * oh + ov * ov)), q);
    const sq_f64 tm = sq_d_div(sq_d_from_float((float)(th * th + tv * tv)), q);
    const sq_f64 rhs = sq_d_mul(sq_d_mul(sq_d_from_float(sq_bits_f32(0x3f7fec0au)), om), tm);
    return !sq_d_lt(dp, SQ_D_ZERO) && !sq_d_lt(sq_d_mul(dp, dp), rhs);
}

/*
 * Restored value of one coefficient o (reference) against t (distorted):
 * k * o in Q15, then, inside the angle, the enhancement limit
 * min(rst * egl, t) (o > 0) or max(rst * egl, t) (o < 0) in double,
 * truncated. Scale 0 stores int16.
 */
SQ_FN int64_t sq_va_restore(int scale, int64_t o, int64_t t, int angle, sq_f64 egl)
{
    const int64_t k = sq_va_gain(scale, o, t);
    int64_t rst = (k * o + 16384) >> 15;
    if (scale == 0)
        rst = sq_va_i16(rst);
    if (angle && k > 0 && o != 0) {
        const sq_f64 g = sq_d_mul(sq_d_from_int(rst), egl), td = sq_d_from_int(t);
        const int keep = o > 0 ? sq_d_lt(g, td) : sq_d_lt(td, g);
        rst = keep ? sq_va_trunc(g) : t;
    }
    return scale == 0 ? sq_va_i16(rst) : (int32_t)rst;
}

/*
 * Decouple at band index x: r = restored, e = t - r, per orientation, from
 * the reference (ob) and distorted (tb) bands (SQ_VA_* order).
 */
SQ_FN void sq_va_decouple_at(int scale, const SQ_GLOBAL int32_t *const *ob,
                             const SQ_GLOBAL int32_t *const *tb, int64_t x, sq_f64 egl,
                             SQ_GLOBAL int32_t *const *r, SQ_GLOBAL int32_t *const *e)
{
    const int angle = sq_va_angle(ob[SQ_VA_H][x], ob[SQ_VA_V][x], tb[SQ_VA_H][x], tb[SQ_VA_V][x]);
    for (int th = 0; th < 3; th++) {
        const int b = sq_va_band_of(th);
        const int64_t o = ob[b][x], t = tb[b][x];
        const int64_t rst = sq_va_restore(scale, o, t, angle, egl);
        r[th][x] = (int32_t)rst;
        e[th][x] = scale == 0 ? sq_va_i16(t - rst) : (int32_t)(t - rst);
    }
}

/*
 * CSF weighting of one coefficient (A) and its fine mask (F = |A| / 30 in
 * fixed point). Scale 0: h, v (IR * s + 2^14) >> 15, d (IR * s + 65535) >> 17
 * (libvmaf's constant, not 2^16), int16; scales 1..3 in Q28, int32.
 */
SQ_FN int32_t sq_va_csf(int scale, int th, uint32_t ir, int64_t src)
{
    if (scale == 0)
        return th < 2 ? sq_va_i16(((int64_t)ir * src + 16384) >> 15)
                      : sq_va_i16(((int64_t)ir * src + 65535) >> 17);
    return (int32_t)(((int64_t)ir * src + ((int64_t)1 << 27)) >> 28);
}

/*
 * The rounding term of the scale 1..3 masks: libvmaf keeps 1u << 31 in an
 * int32, where it becomes -2^31, so (p + rnd) >> 32 subtracts half instead
 * of adding it (its issue 955; a zero coefficient gives -1, not 0). The
 * spec text says +2^31; libvmaf 3.2.0's numbers say -2^31.
 */
#define SQ_VA_RND32 (-((int64_t)1 << 31))

SQ_FN int32_t sq_va_fine(int scale, int32_t a)
{
    if (scale == 0)
        return sq_va_i16((4369 * sq_va_abs(a) + 2048) >> 12);
    return (int32_t)((143165577 * sq_va_abs(a) + SQ_VA_RND32) >> 32);
}

/* The centre term of the masking threshold (|A| / 15 in fixed point). */
SQ_FN int32_t sq_va_centre(int scale, int32_t a)
{
    if (scale == 0)
        return sq_va_i16((8738 * sq_va_abs(a) + 2048) >> 12);
    return (int32_t)((286331153 * sq_va_abs(a) + SQ_VA_RND32) >> 32);
}

/* A and F of the three orientations at band index x from the source bands src. */
SQ_FN void sq_va_csf_at(int scale, const SqVaScale *p, const SQ_GLOBAL int32_t *const *src,
                        int64_t x, SQ_GLOBAL int32_t *const *A, SQ_GLOBAL int32_t *const *F)
{
    for (int th = 0; th < 3; th++) {
        const int32_t a = sq_va_csf(scale, th, p->ir[th], src[th][x]);
        A[th][x] = a;
        F[th][x] = sq_va_fine(scale, a);
    }
}

/*
 * sq_va_csf_at with F's sum over the orientations at x in place of F (u32,
 * wrapping as the thresholds' own sums of F do): all that the CPU's masking
 * rows read of F (sq_va_cm_rows_sum).
 */
SQ_FN void sq_va_csf_sum_at(int scale, const SqVaScale *p, const SQ_GLOBAL int32_t *const *src,
                            int64_t x, SQ_GLOBAL int32_t *const *A, SQ_GLOBAL uint32_t *S)
{
    uint32_t s = 0;
    for (int th = 0; th < 3; th++) {
        const int32_t a = sq_va_csf(scale, th, p->ir[th], src[th][x]);
        A[th][x] = a;
        s += (uint32_t)sq_va_fine(scale, a);
    }
    S[x] = s;
}

/*
 * Decouple over the extended region of a w x h band: r and e, and the CSF
 * image A and fine mask F of e (the DLM pass).
 */
SQ_FN void sq_va_decouple_csf(int scale, const SqVaScale *p, sq_f64 egl, int w, int h,
                              const SQ_GLOBAL int32_t *const *ob,
                              const SQ_GLOBAL int32_t *const *tb,
                              SQ_GLOBAL int32_t *const *r, SQ_GLOBAL int32_t *const *e,
                              SQ_GLOBAL int32_t *const *A, SQ_GLOBAL int32_t *const *F)
{
    const int L = sq_va_ext_lo(w), R = sq_va_ext_hi(w), T = sq_va_ext_lo(h), B = sq_va_ext_hi(h);
    for (int i = T; i < B; i++)
        for (int j = L; j < R; j++) {
            const int64_t x = (int64_t)i * w + j;
            sq_va_decouple_at(scale, ob, tb, x, egl, r, e);
            sq_va_csf_at(scale, p, (const SQ_GLOBAL int32_t *const *)e, x, A, F);
        }
}

/* A and F of src over the extended region (the AIM pass: src = r). */
SQ_FN void sq_va_csf_plane(int scale, const SqVaScale *p, int w, int h,
                           const SQ_GLOBAL int32_t *const *src, SQ_GLOBAL int32_t *const *A,
                           SQ_GLOBAL int32_t *const *F)
{
    const int L = sq_va_ext_lo(w), R = sq_va_ext_hi(w), T = sq_va_ext_lo(h), B = sq_va_ext_hi(h);
    for (int i = T; i < B; i++)
        for (int j = L; j < R; j++)
            sq_va_csf_at(scale, p, src, (int64_t)i * w + j, A, F);
}

/*
 * Masking threshold at (i, j) of a w x h band: over the orientations, the
 * fine masks of the 8 neighbours plus the centre term, int32. Neighbours off
 * the band take row/column 1 at the top/left and the edge itself at the
 * bottom/right (sq_va_mirror).
 */
SQ_FN int32_t sq_va_thr(int scale, const SQ_GLOBAL int32_t *const *A,
                        const SQ_GLOBAL int32_t *const *F, int w, int h, int i, int j)
{
    uint32_t thr = 0;
    for (int th = 0; th < 3; th++) {
        for (int di = -1; di <= 1; di++)
            for (int dj = -1; dj <= 1; dj++)
                if (di || dj)
                    thr += (uint32_t)F[th][(int64_t)sq_va_mirror(i + di, h) * w +
                                          sq_va_mirror(j + dj, w)];
        thr += (uint32_t)sq_va_centre(scale, A[th][(int64_t)i * w + j]);
    }
    return (int32_t)thr;
}

/*
 * Masked contrast of one coefficient X (r for DLM, e for AIM) of orientation
 * th, before the per-row sum: x = X weighted by the CSF, minus the threshold,
 * then x^3 in fixed point. c: the shift of the last step (scale 0: band
 * ceil_log2(w) - 4 for h, v and - 3 for d; scales 1..3: ceil_log2(w)).
 */
SQ_FN int64_t sq_va_cm_val(int scale, int th, uint32_t ir, int64_t X, int32_t thr, int c)
{
    int64_t x;
    if (scale == 0) {
        const int32_t xw = (int32_t)((int64_t)X * ir);
        const uint32_t t = (uint32_t)thr << (th < 2 ? 10 : 12);
        const int32_t d = (int32_t)((uint32_t)(xw < 0 ? -xw : xw) - t);
        x = d > 0 ? d : 0;
        const int q = th < 2 ? 29 : 30;
        const int32_t xsq = (int32_t)((x * x + ((int64_t)1 << (q - 1))) >> q);
        return ((int64_t)xsq * x + sq_va_half(c)) >> c;
    }
    const int32_t xw = (int32_t)((X * (int64_t)ir + ((int64_t)1 << 27)) >> 28);
    const int32_t d = (int32_t)((uint32_t)(xw < 0 ? -xw : xw) - (uint32_t)thr);
    x = d > 0 ? d : 0;
    const int32_t xsq = (int32_t)((x * x + ((int64_t)1 << 29)) >> 30);
    return ((int64_t)xsq * x + sq_va_half(c)) >> c;
}

/* The shift c of sq_va_cm_val for orientation th of a band of width w. */
SQ_FN int sq_va_cm_shift(int scale, int th, int w)
{
    return scale ? sq_va_ceil_log2(w) : sq_va_ceil_log2(w) - (th < 2 ? 4 : 3);
}

/* A row's sum of sq_va_cm_val rounded by rho = ceil_log2(h), as the numerator adds it. */
SQ_FN int64_t sq_va_cm_round(int64_t inner, int rho)
{
    return sq_va_wadd(inner, sq_va_half(rho)) >> rho;
}

/*
 * The three orientations' sq_va_cm_val at (i, j), for callers that split a
 * row between threads: the threshold straight from sq_va_thr, whose u32
 * sum wraps to sq_va_cm_rows' box sums (the same terms, mirrored alike).
 */
SQ_FN void sq_va_cm_at(int scale, const uint32_t *ir, const SQ_GLOBAL int32_t *const *X,
                       const SQ_GLOBAL int32_t *const *A, const SQ_GLOBAL int32_t *const *F,
                       int w, int h, int i, int j, int64_t *v)
{
    const int32_t t = sq_va_thr(scale, A, F, w, h, i, j);
    for (int th = 0; th < 3; th++)
        v[th] = sq_va_cm_val(scale, th, ir[th], X[th][(int64_t)i * w + j], t,
                             sq_va_cm_shift(scale, th, w));
}

/*
 * One pooling row of the masking numerator: acc[th] += (row sum + 2^(rho-1))
 * >> rho, rho = ceil_log2(h), columns [l, r) left to right (the order is
 * immaterial: integer sums). up, mid, dn: the offsets in X, A, F of the row
 * and of its neighbours above and below (sq_va_cm_row's mirror; a caller
 * may keep the rows anywhere, e.g. a ring). The thresholds are sq_va_thr's,
 * from box sums: vs[j] holds the column sums of the three rows over every
 * orientation (u32, so any order of the additions wraps alike), and the
 * window's centre F is taken back out. vs: a row of w u32.
 */
SQ_FN void sq_va_cm_rows(int scale, const SqVaScale *p, const SQ_GLOBAL int32_t *const *X,
                         const SQ_GLOBAL int32_t *const *A, const SQ_GLOBAL int32_t *const *F,
                         int w, int h, int64_t up, int64_t mid, int64_t dn, int64_t *acc,
                         SQ_GLOBAL uint32_t *vs)
{
    const int l = sq_va_pool_lo(w), r = sq_va_pool_hi(w), rho = sq_va_ceil_log2(h);
    const int c[3] = { sq_va_cm_shift(scale, 0, w), sq_va_cm_shift(scale, 1, w),
                       sq_va_cm_shift(scale, 2, w) };
    for (int j = sq_imax(l - 1, 0); j < sq_imin(r + 1, w); j++) {
        uint32_t v = 0;
        for (int th = 0; th < 3; th++)
            v += (uint32_t)F[th][up + j] + (uint32_t)F[th][mid + j] + (uint32_t)F[th][dn + j];
        vs[j] = v;
    }
    int64_t inner[3] = { 0, 0, 0 };
    for (int j = l; j < r; j++) {
        uint32_t t = vs[sq_va_mirror(j - 1, w)] + vs[j] + vs[sq_va_mirror(j + 1, w)];
        for (int th = 0; th < 3; th++)
            t += (uint32_t)sq_va_centre(scale, A[th][mid + j]) - (uint32_t)F[th][mid + j];
        for (int th = 0; th < 3; th++)
            inner[th] = sq_va_wadd(inner[th], sq_va_cm_val(scale, th, p->ir[th], X[th][mid + j],
                                                           (int32_t)t, c[th]));
    }
    for (int th = 0; th < 3; th++)
        acc[th] = sq_va_wadd(acc[th], sq_va_cm_round(inner[th], rho));
}

/*
 * sq_va_cm_rows from S, the per-position sums over the orientations of F
 * (u32) at the same offsets, in place of F: the box sums and the centre's
 * F taken back out are sums over the orientations of F, and u32 sums wrap
 * alike in any order, so the thresholds, and so the row sums, are the same
 * (the CPU keeps S as F's rows are written: 3 loads a column, not 12).
 */
SQ_FN void sq_va_cm_rows_sum(int scale, const SqVaScale *p, const SQ_GLOBAL int32_t *const *X,
                             const SQ_GLOBAL int32_t *const *A, const SQ_GLOBAL uint32_t *S,
                             int w, int h, int64_t up, int64_t mid, int64_t dn, int64_t *acc,
                             SQ_GLOBAL uint32_t *vs)
{
    const int l = sq_va_pool_lo(w), r = sq_va_pool_hi(w), rho = sq_va_ceil_log2(h);
    const int c[3] = { sq_va_cm_shift(scale, 0, w), sq_va_cm_shift(scale, 1, w),
                       sq_va_cm_shift(scale, 2, w) };
    for (int j = sq_imax(l - 1, 0); j < sq_imin(r + 1, w); j++)
        vs[j] = S[up + j] + S[mid + j] + S[dn + j];
    int64_t inner[3] = { 0, 0, 0 };
    for (int j = l; j < r; j++) {
        uint32_t t = vs[sq_va_mirror(j - 1, w)] + vs[j] + vs[sq_va_mirror(j + 1, w)] - S[mid + j];
        for (int th = 0; th < 3; th++)
            t += (uint32_t)sq_va_centre(scale, A[th][mid + j]);
        for (int th = 0; th < 3; th++)
            inner[th] = sq_va_wadd(inner[th], sq_va_cm_val(scale, th, p->ir[th], X[th][mid + j],
                                                           (int32_t)t, c[th]));
    }
    for (int th = 0; th < 3; th++)
        acc[th] = sq_va_wadd(acc[th], sq_va_cm_round(inner[th], rho));
}

/* Pooling row i of w x h planes: its neighbours mirrored (row 1 above row 0). */
SQ_FN void sq_va_cm_row(int scale, const SqVaScale *p, const SQ_GLOBAL int32_t *const *X,
                        const SQ_GLOBAL int32_t *const *A, const SQ_GLOBAL int32_t *const *F,
                        int w, int h, int i, int64_t *acc, SQ_GLOBAL uint32_t *vs)
{
    sq_va_cm_rows(scale, p, X, A, F, w, h, (int64_t)sq_va_mirror(i - 1, h) * w, (int64_t)i * w,
                  (int64_t)sq_va_mirror(i + 1, h) * w, acc, vs);
}

#endif
