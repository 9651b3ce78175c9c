/*
 * libvmaf's integer ADM, part 3 (spec vmaf-integer-features 3.2, 3.8-3.10):
 * the normalised masking numerators, the CSF denominator, one frame's scales
 * and the published scores (adm2, aim, adm3, adm_scale0..3).
 *
 * A frame gives per scale an SqVaRaw: for h, v, d the numerator (DLM), the
 * AIM numerator and the denominator before their cube roots. The host takes
 * powf(x, 1/3f) of each (glibc's powf: libvmaf's numbers depend on it) and
 * of the noise term f32(area * nw) (sq_va_noise; AIM's noise weight is 0),
 * adds them with sq_va_scale_sum, then calls sq_va_scores.
 */
#ifndef SQ_MATH_VMAF_ADM_POOL_H
#define SQ_MATH_VMAF_ADM_POOL_H

#include "math/vmaf_adm.h"

typedef struct SqVaRaw {
    float num[3], aim[3], den[3]; /* h, v, d */
    int area;                     /* the pooling region's samples */
} SqVaRaw;

/* Band planes of one frame: ((W + 1) / 2) x ((H + 1) / 2) int32 each; lo, hi: W int32. */
typedef struct SqVaBufs {
    SQ_GLOBAL int32_t *ob[4], *tb[4]; /* current scale's bands (SQ_VA_*), reference, distorted */
    SQ_GLOBAL int32_t *oa, *ta;       /* the previous scale's band a */
    SQ_GLOBAL int32_t *r[3], *e[3], *A[3], *F[3];
    SQ_GLOBAL int32_t *lo, *hi;
} SqVaBufs;

typedef struct SqVaParams {
    SqVaScale s[4];
    sq_f64 egl;      /* adm_enhn_gain_limit */
    int skip_scale0; /* adm_skip_scale0 */
    int skip_aim;    /* adm_skip_aim */
} SqVaParams;

/*
 * Normalised numerator of orientation th from its pooled accumulator: scale 0
 * in double, f32(acc / 2^(52 or 57 - c - rho)); scales 1..3 in float, the
 * accumulator rounded to float first, over f32(2^(E - c - rho)).
 */
SQ_FN float sq_va_num_norm(int scale, int th, int64_t acc, int w, int h)
{
    const int c = sq_va_cm_shift(scale, th, w), rho = sq_va_ceil_log2(h);
    if (scale == 0)
        return sq_d_to_float(sq_d_div(sq_d_from_int(acc), sq_va_pow2((th < 2 ? 52 : 57) - c - rho)));
    const int E = scale == 1 ? 45 : scale == 2 ? 39 : 36;
    return (float)acc / sq_va_pow2f(E - c - rho);
}

/* The masking numerator of one scale (X: r for DLM, e for AIM; A, F: its pass's CSF; vs: a row of w u32). */
SQ_FN void sq_va_cm(int scale, const SqVaScale *p, const SQ_GLOBAL int32_t *const *X,
                    const SQ_GLOBAL int32_t *const *A, const SQ_GLOBAL int32_t *const *F,
                    int w, int h, SQ_GLOBAL uint32_t *vs, float *out)
{
    int64_t acc[3] = { 0, 0, 0 };
    const int t = sq_va_pool_lo(h), b = sq_va_pool_hi(h);
    for (int i = t; i < b; i++)
        sq_va_cm_row(scale, p, X, A, F, w, h, i, acc, vs);
    for (int th = 0; th < 3; th++)
        out[th] = sq_va_num_norm(scale, th, acc[th], w, h);
}

/* One coefficient's term of the denominator before the row rounding. */
SQ_FN uint64_t sq_va_den_val(int scale, int64_t o, int c)
{
    const uint64_t u = (uint64_t)sq_va_abs(o);
    if (scale == 0)
        return u * u * u;
    const int q = scale == 2 ? 30 : 31;
    /* libvmaf rounds the square with 2^q, not 2^(q-1) */
    const uint64_t sq = (u * u + ((uint64_t)1 << q)) >> q;
    return (sq * u + (uint64_t)sq_va_half(c)) >> c;
}

/* A row sum of sq_va_den_val rounded by rho, as the denominator adds it. */
SQ_FN uint64_t sq_va_den_round(uint64_t row, int rho)
{
    return (row + (uint64_t)sq_va_half(rho)) >> rho;
}

/*
 * The denominator's shifts over a w x h band's pooling region: c per sample
 * (sq_va_den_val), rho per row (sq_va_den_round). Scale 0 has no c and
 * takes rho (sigma) from the area; scales 1..3 from the region's sides.
 */
SQ_FN void sq_va_den_shifts(int scale, int w, int h, int *c, int *rho)
{
    const int l = sq_va_pool_lo(w), r = sq_va_pool_hi(w), t = sq_va_pool_lo(h),
              b = sq_va_pool_hi(h);
    const int64_t area = (int64_t)(b - t) * (r - l);
    const int sig = sq_imax(0, sq_va_ceil_log2(area) - 20);
    *c = scale ? sq_va_ceil_log2(r - l) : 0;
    *rho = scale ? sq_va_ceil_log2(b - t) : sig;
}

/* One orientation's denominator from the sum acc of its rounded rows: f32(acc / 2^K' * pow(rf, 3)). */
SQ_FN float sq_va_den_norm(int scale, sq_f64 rf3, uint64_t acc, int c, int rho)
{
    const int K = scale == 0 ? 18 : scale == 1 ? 32 : scale == 2 ? 27 : 23;
    const sq_f64 v = sq_d_div(sq_va_u64_to_d(acc), sq_va_pow2(K - rho - c));
    return sq_d_to_float(sq_d_mul(v, rf3));
}

/*
 * One band row of the denominator: acc[th] += the row's sum of
 * sq_va_den_val over columns [l, r), rounded by rho (sq_va_den_round); row:
 * the row's start in each band (SQ_VA_* order). The rows add in any order.
 */
SQ_FN void sq_va_den_row(int scale, const SQ_GLOBAL int32_t *const *row, int l, int r, int c,
                         int rho, uint64_t *acc)
{
    for (int th = 0; th < 3; th++) {
        const SQ_GLOBAL int32_t *o = row[sq_va_band_of(th)];
        uint64_t sum = 0;
        for (int j = l; j < r; j++)
            sum += sq_va_den_val(scale, o[j], c);
        acc[th] += sq_va_den_round(sum, rho);
    }
}

/*
 * The CSF denominator of one scale over the pooling region of the reference
 * bands ob, per orientation (sq_va_den_shifts, sq_va_den_row,
 * sq_va_den_norm).
 */
SQ_FN void sq_va_den(int scale, const SqVaScale *p, const SQ_GLOBAL int32_t *const *ob, int w,
                     int h, float *out)
{
    const int l = sq_va_pool_lo(w), r = sq_va_pool_hi(w), t = sq_va_pool_lo(h),
              b = sq_va_pool_hi(h);
    int c, rho;
    uint64_t acc[3] = { 0, 0, 0 };
    sq_va_den_shifts(scale, w, h, &c, &rho);
    for (int i = t; i < b; i++) {
        const SQ_GLOBAL int32_t *row[4];
        for (int k = 0; k < 4; k++)
            row[k] = ob[k] + (int64_t)i * w;
        sq_va_den_row(scale, row, l, r, c, rho, acc);
    }
    for (int th = 0; th < 3; th++)
        out[th] = sq_va_den_norm(scale, p->rf3[th], acc[th], c, rho);
}

/* The pooling region's sample count of a w x h band. */
SQ_FN int sq_va_area(int w, int h)
{
    return (sq_va_pool_hi(h) - sq_va_pool_lo(h)) * (sq_va_pool_hi(w) - sq_va_pool_lo(w));
}

/* f32(area * nw): the noise term whose cube root each orientation adds. */
SQ_FN float sq_va_noise(int area, sq_f64 nw)
{
    return sq_d_to_float(sq_d_mul(sq_d_from_int(area), nw));
}

/* (n_h + n_v) + n_d with n = cube root + noise cube root, in float. */
SQ_FN float sq_va_scale_sum(const float *cbrt3, float cbrt_noise)
{
    const float nh = cbrt3[0] + cbrt_noise, nv = cbrt3[1] + cbrt_noise, nd = cbrt3[2] + cbrt_noise;
    return (nh + nv) + nd;
}

/* A scale's raw values zeroed and its pooling area set (bands w x h). */
SQ_FN void sq_va_scale_raw(int w, int h, SqVaRaw *raw)
{
    raw->area = sq_va_area(w, h);
    for (int th = 0; th < 3; th++)
        raw->num[th] = raw->aim[th] = raw->den[th] = 0.0f;
}

/*
 * A frame is four scales of three steps: sq_va_scale_dwt (both sides' bands
 * from the planes or from the previous scale's a), the decouple with its CSF
 * (sq_va_decouple_csf, which a CPU kernel may replace row by row), and
 * sq_va_scale_pool (denominator, DLM and AIM numerators, and a kept for the
 * next scale). sq_va_frame2 runs them in order.
 *
 * Scale s's DWT: w, h become the bands' size; raw is zeroed and its area
 * set. Returns 0 for skip_scale0's scale 0 (only a is computed: nothing
 * else of the scale is).
 */
SQ_FN int sq_va_scale_dwt(const SQ_GLOBAL uint8_t *ref, int64_t ref_stride, int ref_acc,
                          const SQ_GLOBAL uint8_t *dis, int64_t dis_stride, int dis_acc, int bpc,
                          int s, int *w, int *h, const SqVaParams *p, const SqVaBufs *bf,
                          SqVaRaw *raw)
{
    const int only_a = s == 0 && p->skip_scale0;
    sq_va_dwt_plane(ref, ref_stride, ref_acc, bpc, bf->oa, *w, *h, s, only_a, bf->lo, bf->hi, bf->ob);
    sq_va_dwt_plane(dis, dis_stride, dis_acc, bpc, bf->ta, *w, *h, s, only_a, bf->lo, bf->hi, bf->tb);
    *w = (*w + 1) / 2;
    *h = (*h + 1) / 2;
    sq_va_scale_raw(*w, *h, raw);
    return !only_a;
}

/* Scale s's pooled values after its decouple (sq_va_scale_dwt's w, h). */
SQ_FN void sq_va_scale_score(int s, int w, int h, const SqVaParams *p, const SqVaBufs *bf,
                             SqVaRaw *raw)
{
    const SqVaScale *sc = &p->s[s];
    const SQ_GLOBAL int32_t *const *cob = (const SQ_GLOBAL int32_t *const *)bf->ob;
    const SQ_GLOBAL int32_t *const *cr = (const SQ_GLOBAL int32_t *const *)bf->r;
    const SQ_GLOBAL int32_t *const *ce = (const SQ_GLOBAL int32_t *const *)bf->e;
    const SQ_GLOBAL int32_t *const *cA = (const SQ_GLOBAL int32_t *const *)bf->A;
    const SQ_GLOBAL int32_t *const *cF = (const SQ_GLOBAL int32_t *const *)bf->F;
    sq_va_den(s, sc, cob, w, h, raw->den);
    sq_va_cm(s, sc, cr, cA, cF, w, h, (SQ_GLOBAL uint32_t *)bf->lo, raw->num);
    if (!p->skip_aim) {
        sq_va_csf_plane(s, sc, w, h, cr, bf->A, bf->F);
        sq_va_cm(s, sc, ce, cA, cF, w, h, (SQ_GLOBAL uint32_t *)bf->lo, raw->aim);
    }
}

/* Scale s's pooled values after its decouple (scored: sq_va_scale_dwt's answer), and its a kept. */
SQ_FN void sq_va_scale_pool(int s, int scored, int w, int h, const SqVaParams *p,
                            const SqVaBufs *bf, SqVaRaw *raw)
{
    if (scored)
        sq_va_scale_score(s, w, h, p, bf, raw);
    /* the next scale reads this one's a */
    const int64_t n = (int64_t)w * h;
    for (int64_t k = 0; k < n; k++) {
        bf->oa[k] = bf->ob[SQ_VA_A][k];
        bf->ta[k] = bf->tb[SQ_VA_A][k];
    }
}

/*
 * One frame's raw scale values from the luma planes ref and dis (W x H,
 * stride in bytes, acc: math/filter.h access, bpc), each with its own
 * stride and access. raw[0] is unused with skip_scale0; aim values are 0
 * with skip_aim.
 */
SQ_FN void sq_va_frame2(const SQ_GLOBAL uint8_t *ref, int64_t ref_stride, int ref_acc,
                        const SQ_GLOBAL uint8_t *dis, int64_t dis_stride, int dis_acc, int bpc,
                        int W, int H, const SqVaParams *p, const SqVaBufs *bf, SqVaRaw *raw)
{
    int w = W, h = H;
    for (int s = 0; s < 4; s++) {
        const int scored = sq_va_scale_dwt(ref, ref_stride, ref_acc, dis, dis_stride, dis_acc, bpc,
                                           s, &w, &h, p, bf, &raw[s]);
        if (scored)
            sq_va_decouple_csf(s, &p->s[s], p->egl, w, h, (const SQ_GLOBAL int32_t *const *)bf->ob,
                               (const SQ_GLOBAL int32_t *const *)bf->tb, bf->r, bf->e, bf->A, bf->F);
        sq_va_scale_pool(s, scored, w, h, p, bf, &raw[s]);
    }
}

/* sq_va_frame2 with one stride and access for both planes. */
SQ_FN void sq_va_frame(const SQ_GLOBAL uint8_t *ref, const SQ_GLOBAL uint8_t *dis, int64_t stride,
                       int acc, int bpc, int W, int H, const SqVaParams *p, const SqVaBufs *bf,
                       SqVaRaw *raw)
{
    sq_va_frame2(ref, stride, acc, dis, stride, acc, bpc, W, H, p, bf, raw);
}

/* The published values of a frame (den_zero: aim is undefined in libvmaf, set 0 here). */
typedef struct SqVaScores {
    sq_f64 adm2, aim, adm3, scale[4];
    int den_zero;
} SqVaScores;

/*
 * num_s, den_s, aim_s: each scale's sums (sq_va_scale_sum; with skip_scale0
 * scale 0 is 0, f32(1e-10), 0). Sums in double from scale 0 up; totals
 * below 1e-10 * W * H / (1920 * 1080) count as 0; adm3 = max(adm2 * dlmw +
 * (1 - aim) * (1 - dlmw), min_val) in this order (libvmaf's MAX).
 */
SQ_FN SqVaScores sq_va_scores(const float *num_s, const float *den_s, const float *aim_s, int W,
                              int H, sq_f64 dlmw, sq_f64 min_val)
{
    SqVaScores o;
    sq_f64 num = SQ_D_ZERO, den = SQ_D_ZERO, aim = SQ_D_ZERO;
    for (int s = 0; s < 4; s++) {
        num = sq_d_add(num, sq_d_from_float(num_s[s]));
        den = sq_d_add(den, sq_d_from_float(den_s[s]));
        aim = sq_d_add(aim, sq_d_from_float(aim_s[s]));
        o.scale[s] = sq_d_div(sq_d_from_float(num_s[s]), sq_d_from_float(den_s[s]));
    }
    const sq_f64 lim = sq_d_div(sq_d_mul(SQ_D(0x3ddb7cdfd9d7bdbbull, 1e-10), sq_d_from_int(W * H)),
                                SQ_D(0x413fa40000000000ull, 2073600.0));
    num = sq_d_lt(num, lim) ? SQ_D_ZERO : num;
    den = sq_d_lt(den, lim) ? SQ_D_ZERO : den;
    o.den_zero = !sq_d_lt(SQ_D_ZERO, den) && !sq_d_lt(den, SQ_D_ZERO);
    o.adm2 = o.den_zero ? SQ_D_ONE : sq_d_div(num, den);
    o.aim = o.den_zero ? SQ_D_ZERO : sq_d_div(aim, den);
    const sq_f64 v = sq_d_add(sq_d_mul(o.adm2, dlmw),
                              sq_d_mul(sq_d_sub(SQ_D_ONE, o.aim), sq_d_sub(SQ_D_ONE, dlmw)));
    o.adm3 = sq_d_lt(min_val, v) ? v : min_val;
    return o;
}

/* skip_scale0's denominator at scale 0: (float)1e-10. */
SQ_FN float sq_va_skip_den(void)
{
    return sq_bits_f32(0x2edbe6ffu);
}

#endif
