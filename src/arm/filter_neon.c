/*
 * NEON filters: 8 columns (two float32x4) or 4 outputs per step, each lane
 * doing the scalar sequence of math/filter.h: taps in increasing k, product
 * rounded to float, then added (vmulq_f32, then vaddq_f32; never vfmaq /
 * fmla: the library is built with -ffp-contract=off). Sample conversion is
 * exact in float for every bit depth, as in x86/filter_avx2.c.
 */
#include <arm_neon.h>
#include <string.h>

#include "arm/dsp_arm.h"
#include "cpu/dsp.h"
#include "math/filter.h"

#define AI static inline __attribute__((always_inline))

enum { SRC_U8, SRC_U8_DIFF, SRC_U16, SRC_U16_DIFF, SRC_F32 };

typedef struct F8 {
    float32x4_t lo, hi;
} F8;

AI F8 f8_s32(int32x4_t lo, int32x4_t hi)
{
    F8 r = { vcvtq_f32_s32(lo), vcvtq_f32_s32(hi) };
    return r;
}

/* 8 converted samples at column c. */
AI F8 load8(int mode, const void *cur, const void *prev, int c, float32x4_t scale)
{
    const uint8_t *cb = (const uint8_t *)cur, *pb = (const uint8_t *)prev;
    switch (mode) {
    case SRC_U8: {
        const int16x8_t v = vsubq_s16(vreinterpretq_s16_u16(vmovl_u8(vld1_u8(cb + c))),
                                      vdupq_n_s16(128));
        return f8_s32(vmovl_s16(vget_low_s16(v)), vmovl_high_s16(v));
    }
    case SRC_U8_DIFF: {
        const int16x8_t v = vreinterpretq_s16_u16(vsubl_u8(vld1_u8(pb + c), vld1_u8(cb + c)));
        return f8_s32(vmovl_s16(vget_low_s16(v)), vmovl_high_s16(v));
    }
    case SRC_U16: {
        uint16x8_t v;
        memcpy(&v, cb + 2 * (ptrdiff_t)c, sizeof(v));
        const float32x4_t m128 = vdupq_n_f32(-128.0f);
        F8 r = { vaddq_f32(vmulq_f32(vcvtq_f32_u32(vmovl_u16(vget_low_u16(v))), scale), m128),
                 vaddq_f32(vmulq_f32(vcvtq_f32_u32(vmovl_high_u16(v)), scale), m128) };
        return r;
    }
    case SRC_U16_DIFF: {
        uint16x8_t v, p;
        memcpy(&v, cb + 2 * (ptrdiff_t)c, sizeof(v));
        memcpy(&p, pb + 2 * (ptrdiff_t)c, sizeof(p));
        const int32x4_t lo = vreinterpretq_s32_u32(vsubl_u16(vget_low_u16(p), vget_low_u16(v)));
        const int32x4_t hi = vreinterpretq_s32_u32(vsubl_high_u16(p, v));
        F8 r = { vmulq_f32(vcvtq_f32_s32(lo), scale), vmulq_f32(vcvtq_f32_s32(hi), scale) };
        return r;
    }
    default: {
        const float *f = (const float *)cur + c;
        F8 r = { vld1q_f32(f), vld1q_f32(f + 4) };
        return r;
    }
    }
}

AI uint32_t u16_at(const void *row, int c)
{
    uint16_t v;
    memcpy(&v, (const uint8_t *)row + 2 * (ptrdiff_t)c, sizeof(v));
    return v;
}

AI float load1(int mode, const void *cur, const void *prev, int c, float scale)
{
    switch (mode) {
    case SRC_U8:
        return sq_sample_to_float(((const uint8_t *)cur)[c], 1.0f);
    case SRC_U8_DIFF:
        return sq_sample_to_float(((const uint8_t *)prev)[c], 1.0f) -
               sq_sample_to_float(((const uint8_t *)cur)[c], 1.0f);
    case SRC_U16:
        return sq_sample_to_float(u16_at(cur, c), scale);
    case SRC_U16_DIFF:
        return sq_sample_to_float(u16_at(prev, c), scale) - sq_sample_to_float(u16_at(cur, c), scale);
    default:
        return ((const float *)cur)[c];
    }
}

AI F8 madd8(F8 acc, float32x4_t gk, F8 x)
{
    acc.lo = vaddq_f32(acc.lo, vmulq_f32(gk, x.lo));
    acc.hi = vaddq_f32(acc.hi, vmulq_f32(gk, x.hi));
    return acc;
}

AI void store8(float *d, F8 v)
{
    vst1q_f32(d, v.lo);
    vst1q_f32(d + 4, v.hi);
}

/* nv (1 or 2) groups of 8 complete columns at c. */
AI void cols(int mode, int nv, float *dst, const void *const *cr, const void *const *pr,
             const float *g, int taps, int c, float32x4_t scale)
{
    const F8 z = { vdupq_n_f32(0.0f), vdupq_n_f32(0.0f) };
    F8 a0 = z, a1 = z;
    for (int k = 0; k < taps; k++) {
        const float32x4_t gk = vdupq_n_f32(g[k]);
        const void *p = pr ? pr[k] : NULL;
        a0 = madd8(a0, gk, load8(mode, cr[k], p, c, scale));
        if (nv > 1)
            a1 = madd8(a1, gk, load8(mode, cr[k], p, c + 8, scale));
    }
    store8(dst + c, a0);
    if (nv > 1)
        store8(dst + c + 8, a1);
}

/* Adds taps k0 .. k0 + nt - 1 to the partial sums dst[a .. e8) (k0 = 0: from +0). */
AI void rows_pass(int mode, int nt, float *dst, const void *const *cr, const void *const *pr,
                  const float *g, int k0, int a, int e8, float32x4_t scale)
{
    float32x4_t gk[4];
    const void *ck[4], *pk[4];
    for (int t = 0; t < nt; t++) {
        gk[t] = vdupq_n_f32(g[k0 + t]);
        ck[t] = cr[k0 + t];
        pk[t] = pr ? pr[k0 + t] : NULL;
    }
    for (int c = a; c < e8; c += 8) {
        F8 a0;
        if (k0) {
            a0.lo = vld1q_f32(dst + c);
            a0.hi = vld1q_f32(dst + c + 4);
        } else {
            a0.lo = a0.hi = vdupq_n_f32(0.0f);
        }
        for (int t = 0; t < nt; t++)
            a0 = madd8(a0, gk[t], load8(mode, ck[t], pk[t], c, scale));
        store8(dst + c, a0);
    }
}

AI void vfilt_run(int mode, float *dst, const void *const *cr, const void *const *pr,
                  const float *g, int taps, const int32_t *spans, int nspans, int w, float scale)
{
    const float32x4_t vs = vdupq_n_f32(scale);
    for (int s = 0; s < nspans;) {
        int a = spans[2 * s], e = spans[2 * s + 1];
        /* A gap narrower than a vector costs less computed than skipped. */
        for (s++; s < nspans && spans[2 * s] - e < 8; s++)
            e = spans[2 * s + 1];
        if (w < 8) {
            for (int c = a; c < e; c++) {
                float acc = 0.0f;
                for (int k = 0; k < taps; k++) {
                    float prod = g[k] * load1(mode, cr[k], pr ? pr[k] : NULL, c, scale);
                    acc = acc + prod;
                }
                dst[c] = acc;
            }
            continue;
        }
        int c = a;
        if (e - a >= 64) {
            /* Long span: a few source rows at a time, the partial sums in
             * dst (same per-column order), so rows stream sequentially. */
            const int e8 = a + ((e - a) & ~7), np = (taps + 3) / 4;
            for (int p = 0, k = 0; p < np; p++) {
                const int t = (taps - k) / (np - p); /* 1..4 taps this pass */
                switch (t) {
                case 1: rows_pass(mode, 1, dst, cr, pr, g, k, a, e8, vs); break;
                case 2: rows_pass(mode, 2, dst, cr, pr, g, k, a, e8, vs); break;
                case 3: rows_pass(mode, 3, dst, cr, pr, g, k, a, e8, vs); break;
                default: rows_pass(mode, 4, dst, cr, pr, g, k, a, e8, vs); break;
                }
                k += t;
            }
            if (e8 < e) /* complete columns, overwriting the partial ones */
                cols(mode, 1, dst, cr, pr, g, taps, e - 8, vs);
            continue;
        }
        for (; c + 16 <= e; c += 16)
            cols(mode, 2, dst, cr, pr, g, taps, c, vs);
        for (; c + 8 <= e; c += 8)
            cols(mode, 1, dst, cr, pr, g, taps, c, vs);
        if (c < e)
            cols(mode, 1, dst, cr, pr, g, taps, e >= 8 ? e - 8 : 0, vs);
    }
}

static void row_ptrs(const void **out, const uint8_t *base, ptrdiff_t stride, int h, int row,
                     int taps)
{
    const int r = taps >> 1;
    for (int k = 0; k < taps; k++)
        out[k] = base + (ptrdiff_t)sq_mirror(row - r + k, h) * stride;
}

void sq_vfilt_8bpc_neon(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                        const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,
                        const float *g, int taps, const int32_t *spans, int nspans, int w)
{
    const void *cr[SQ_MAX_TAPS], *pr[SQ_MAX_TAPS];
    row_ptrs(cr, cur, cur_stride, h, row, taps);
    if (prev) {
        row_ptrs(pr, prev, prev_stride, h, row, taps);
        vfilt_run(SRC_U8_DIFF, dst, cr, pr, g, taps, spans, nspans, w, 1.0f);
    } else {
        vfilt_run(SRC_U8, dst, cr, NULL, g, taps, spans, nspans, w, 1.0f);
    }
}

void sq_vfilt_16bpc_neon(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                         const uint8_t *prev, ptrdiff_t prev_stride, float scale, int h, int row,
                         const float *g, int taps, const int32_t *spans, int nspans, int w)
{
    const void *cr[SQ_MAX_TAPS], *pr[SQ_MAX_TAPS];
    row_ptrs(cr, cur, cur_stride, h, row, taps);
    if (prev) {
        row_ptrs(pr, prev, prev_stride, h, row, taps);
        vfilt_run(SRC_U16_DIFF, dst, cr, pr, g, taps, spans, nspans, w, scale);
    } else {
        vfilt_run(SRC_U16, dst, cr, NULL, g, taps, spans, nspans, w, scale);
    }
}

void sq_vfilt_f32_neon(float *dst, const float *img, ptrdiff_t stride, int h, int row,
                       const float *g, int taps, const int32_t *spans, int nspans, int w)
{
    const void *cr[SQ_MAX_TAPS];
    row_ptrs(cr, (const uint8_t *)img, stride * (ptrdiff_t)sizeof(float), h, row, taps);
    vfilt_run(SRC_F32, dst, cr, NULL, g, taps, spans, nspans, w, 1.0f);
}

void sq_or_16bpc_neon(uint32_t *acc, const uint8_t *row, int w)
{
    uint16x8_t b0 = vdupq_n_u16(0), b1 = b0;
    int x = 0;
    for (; x + 16 <= w; x += 16) {
        uint16x8_t v0, v1;
        memcpy(&v0, row + 2 * (ptrdiff_t)x, sizeof(v0));
        memcpy(&v1, row + 2 * (ptrdiff_t)x + 16, sizeof(v1));
        b0 = vorrq_u16(b0, v0);
        b1 = vorrq_u16(b1, v1);
    }
    uint32_t bits = *acc;
    for (; x < w; x++)
        bits |= u16_at(row, x);
    uint16_t lanes[8];
    vst1q_u16(lanes, vorrq_u16(b0, b1));
    for (int i = 0; i < 8; i++)
        bits |= lanes[i];
    *acc = bits;
}

/* 4x4 transpose: row i of the output is lane i of every input. */
AI void transpose4(float32x4_t *v)
{
    const float32x4_t t0 = vtrn1q_f32(v[0], v[1]), t1 = vtrn2q_f32(v[0], v[1]);
    const float32x4_t t2 = vtrn1q_f32(v[2], v[3]), t3 = vtrn2q_f32(v[2], v[3]);
    v[0] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    v[1] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
    v[2] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    v[3] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
}

/*
 * Decimated horizontal pass, 4 outputs j0..j0+3 at a time: they read
 * src[16 j + o], |o| <= 7; four 4x4 transposes of the 4 x 16 block
 * src[16 j - 8 + q] turn each tap offset into one vector over j (q = o + 8).
 */
void sq_hfilt_dec_neon(float *dst, const float *src, int w, const float *g, int taps, int nout)
{
    const int r = taps >> 1;
    int j = 0;
    if (r <= 7 && nout >= 5 && (nout << SQ_DECIM_SHIFT) <= w) {
        /* j = 0 mirrors at the left edge; 16 (nout - 1) + 7 < w needs no mirror. */
        dst[0] = sq_hfilter_f32(src, w, g, taps, 0);
        const int q0 = (8 - r) >> 2, q1 = (8 + r) >> 2; /* 4-sample groups in use */
        for (j = 1; j < nout; j += 4) {
            const int j0 = j + 4 <= nout ? j : nout - 4;
            float32x4_t v[16];
            for (int q = q0; q <= q1; q++) {
                for (int i = 0; i < 4; i++)
                    v[4 * q + i] = vld1q_f32(src + ((j0 + i) << SQ_DECIM_SHIFT) - 8 + 4 * q);
                transpose4(v + 4 * q);
            }
            float32x4_t acc = vdupq_n_f32(0.0f);
            for (int k = 0; k < taps; k++)
                acc = vaddq_f32(acc, vmulq_f32(vdupq_n_f32(g[k]), v[k - r + 8]));
            vst1q_f32(dst + j0, acc);
        }
        return;
    }
    for (; j < nout; j++)
        dst[j] = sq_hfilter_f32(src, w, g, taps, j << SQ_DECIM_SHIFT);
}

void sq_local_mean_neon(float *dst, const float *op, const float *mrow, int w,
                        const float *g, int taps)
{
    const int r = taps >> 1;
    int j = 0;
    /* Interior outputs [r, w - r) need no mirror. */
    if (w - 2 * r >= 4) {
        for (; j < r; j++)
            dst[j] = sq_local_mean_at(mrow, w, op, g, taps, j);
        for (; j < w - r; j += 4) {
            const int j0 = j + 4 <= w - r ? j : w - r - 4;
            float32x4_t acc = vdupq_n_f32(0.0f);
            for (int k = 0; k < taps; k++)
                acc = vaddq_f32(acc, vmulq_f32(vdupq_n_f32(g[k]), vld1q_f32(mrow + j0 - r + k)));
            vst1q_f32(dst + j0, vsubq_f32(vld1q_f32(op + j0), acc));
        }
        j = w - r;
    }
    for (; j < w; j++)
        dst[j] = sq_local_mean_at(mrow, w, op, g, taps, j);
}
