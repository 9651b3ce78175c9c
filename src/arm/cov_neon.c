/*
 * NEON covariance row terms (math/cov.h step 1) across 2 operating rows per
 * float64x2 (x86/cov_avx2.c does 4): lane i runs the prefix sum of row
 * y0 + i in increasing x, over the same transposed, zero-padded double copy
 * (a term reaching outside the truncated region adds +-0 to a prefix sum
 * that starts at +0, exactly as skipping it does).
 */
#include <arm_neon.h>
#include <string.h>

#include "arm/dsp_arm.h"
#include "cpu/dsp.h"
#include "math/prelude.h"

#define AI static inline __attribute__((always_inline))

/* Prefix sums of one lag group: nl lags (dc0 .. dc0 + nl - 1) at row offset
 * dr, plus (plain) the sum of the samples themselves as sequence nl. */
AI void lag_group(float64x2_t *dk, const double *t0, ptrdiff_t ld, int dr, int dc0, int nl,
                  int plain, int trunc_w)
{
    const int sub_w = trunc_w - SQ_BLOCK + 1;
    float64x2_t acc[10], lo[10][SQ_BLOCK];
    const int na = nl + plain;
    for (int l = 0; l < na; l++)
        acc[l] = vdupq_n_f64(0.0);
    const double *b0 = t0 + dc0 * ld + dr;
    int t = 0;
    while (t <= trunc_w) {
        if (t >= SQ_BLOCK && t < sub_w) {
            for (; t < sub_w; t++) {
                const float64x2_t a = vld1q_f64(t0 + t * ld);
                const double *b = b0 + t * ld;
                for (int l = 0; l < nl; l++)
                    acc[l] = vaddq_f64(acc[l], vmulq_f64(a, vld1q_f64(b + l * ld)));
                if (plain)
                    acc[nl] = vaddq_f64(acc[nl], a);
            }
            continue;
        }
        if (t < SQ_BLOCK)
            for (int l = 0; l < na; l++)
                lo[l][t] = acc[l];
        if (t >= sub_w)
            for (int l = 0; l < na; l++)
                dk[l * SQ_BLOCK + t - sub_w] = vsubq_f64(acc[l], lo[l][t - sub_w]);
        if (t == trunc_w)
            break;
        const float64x2_t a = vld1q_f64(t0 + t * ld);
        const double *b = b0 + t * ld;
        for (int l = 0; l < nl; l++)
            acc[l] = vaddq_f64(acc[l], vmulq_f64(a, vld1q_f64(b + l * ld)));
        if (plain)
            acc[nl] = vaddq_f64(acc[nl], a);
        t++;
    }
}

void sq_cov_rows_neon(double *dl, const float *img, ptrdiff_t stride, int trunc_w, int trunc_h,
                      int rows, double *ws)
{
    /* doubles per column of the transposed copy: the rows read, rounded up to 4, plus 8 */
    const ptrdiff_t ld = ((trunc_h + 3) & ~3) + 8;
    /* ws[(x + 4) * ld + y] = img(y, x), zero outside [0, trunc_w) x [0, trunc_h). */
    memset(ws, 0, sizeof(double) * 4 * (size_t)ld);
    memset(ws + (size_t)(trunc_w + 4) * ld, 0, sizeof(double) * 4 * (size_t)ld);
    for (int x = 0; x < trunc_w; x++) {
        double *col = ws + (size_t)(x + 4) * ld;
        for (int y = 0; y < trunc_h; y++)
            col[y] = (double)img[(ptrdiff_t)y * stride + x];
        memset(col + trunc_h, 0, sizeof(double) * (size_t)(ld - trunc_h));
    }
    float64x2_t dk[SQ_COV_K];
    for (int y0 = 0; y0 < rows; y0 += 2) {
        const double *t0 = ws + 4 * ld + y0;
        /* dr = 0: lags dc = 0..4 (sequences 0..4) and the plain sum (41). */
        float64x2_t d0[6 * SQ_BLOCK];
        lag_group(d0, t0, ld, 0, 0, 5, 1, trunc_w);
        memcpy(dk, d0, sizeof(float64x2_t) * 5 * SQ_BLOCK);
        memcpy(dk + (SQ_COV_SEQS - 1) * SQ_BLOCK, d0 + 5 * SQ_BLOCK, sizeof(float64x2_t) * SQ_BLOCK);
        /* dr = 1..4: lags dc = -4..4, sequences 5 + (dr - 1) * 9 + (dc + 4). */
        for (int dr = 1; dr < SQ_BLOCK; dr++)
            lag_group(dk + (5 + (dr - 1) * 9) * SQ_BLOCK, t0, ld, dr, -4, 9, 0, trunc_w);
        /* 2x2 transposes: lanes (rows y0, y0 + 1) back to dl rows. */
        double *o = dl + (size_t)y0 * SQ_COV_LD;
        for (int k = 0; k < SQ_COV_K; k += 2) {
            vst1q_f64(o + k, vzip1q_f64(dk[k], dk[k + 1]));
            vst1q_f64(o + SQ_COV_LD + k, vzip2q_f64(dk[k], dk[k + 1]));
        }
    }
}

void sq_cov_sums_neon(double *sums, const double *dl, int sub_h)
{
    /* SQ_COV_K = 210 = 13 x 16 + 2: blocks of 8 vectors, then one. */
    for (int r0 = 0; r0 < SQ_BLOCK; r0++) {
        int k = 0;
        for (; k + 16 <= SQ_COV_K; k += 16) {
            float64x2_t a[8];
            for (int q = 0; q < 8; q++)
                a[q] = vdupq_n_f64(0.0);
            for (int i = 0; i < sub_h; i++) {
                const double *p = dl + (size_t)(r0 + i) * SQ_COV_LD + k;
                for (int q = 0; q < 8; q++)
                    a[q] = vaddq_f64(a[q], vld1q_f64(p + 2 * q));
            }
            for (int q = 0; q < 8; q++)
                vst1q_f64(sums + r0 * SQ_COV_LD + k + 2 * q, a[q]);
        }
        for (; k < SQ_COV_K; k += 2) {
            float64x2_t a = vdupq_n_f64(0.0);
            for (int i = 0; i < sub_h; i++)
                a = vaddq_f64(a, vld1q_f64(dl + (size_t)(r0 + i) * SQ_COV_LD + k));
            vst1q_f64(sums + r0 * SQ_COV_LD + k, a);
        }
    }
}
