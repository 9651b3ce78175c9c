/*
 * AVX2 covariance row terms (math/cov.h step 1) across 4 operating rows per
 * __m256d: lane i runs the prefix sum of row y0 + i, in increasing x, so
 * every lane keeps the canonical order. The image is copied transposed and
 * zero-padded in double: a term whose second sample lies outside the
 * truncated region becomes +-0, and adding +-0 to a prefix sum that starts
 * at +0 leaves it unchanged, exactly as skipping the term does.
 */
#include <immintrin.h>
#include <string.h>

#include "cpu/dsp.h"
#include "math/prelude.h"
#include "x86/dsp_x86.h"

#define AI static inline __attribute__((always_inline))

/* Prefix sums of one lag group: nl lags (dc0 .. dc0 + nl - 1) at row offset
 * dr, plus (plain) the sum of the samples themselves as sequence nl. */
AI void lag_group(__m256d *dk, const double *t0, ptrdiff_t ld, int dr, int dc0, int nl,
                  int plain, int trunc_w)
{
    const int sub_w = trunc_w - SQ_BLOCK + 1;
    __m256d acc[10], lo[10][SQ_BLOCK];
    const int na = nl + plain;
    for (int l = 0; l < na; l++)
        acc[l] = _mm256_setzero_pd();
    const double *b0 = t0 + dc0 * ld + dr;
    int t = 0;
    while (t <= trunc_w) {
        if (t >= SQ_BLOCK && t < sub_w) {
            for (; t < sub_w; t++) {
                const __m256d a = _mm256_loadu_pd(t0 + t * ld);
                const double *b = b0 + t * ld;
                for (int l = 0; l < nl; l++)
                    acc[l] = _mm256_add_pd(acc[l], _mm256_mul_pd(a, _mm256_loadu_pd(b + l * ld)));
                if (plain)
                    acc[nl] = _mm256_add_pd(acc[nl], a);
            }
            continue;
        }
        if (t < SQ_BLOCK)
            for (int l = 0; l < na; l++)
                lo[l][t] = acc[l];
        if (t >= sub_w)
            for (int l = 0; l < na; l++)
                dk[l * SQ_BLOCK + t - sub_w] = _mm256_sub_pd(acc[l], lo[l][t - sub_w]);
        if (t == trunc_w)
            break;
        const __m256d a = _mm256_loadu_pd(t0 + t * ld);
        const double *b = b0 + t * ld;
        for (int l = 0; l < nl; l++)
            acc[l] = _mm256_add_pd(acc[l], _mm256_mul_pd(a, _mm256_loadu_pd(b + l * ld)));
        if (plain)
            acc[nl] = _mm256_add_pd(acc[nl], a);
        t++;
    }
}

void sq_cov_rows_avx2(double *dl, const float *img, ptrdiff_t stride, int trunc_w, int trunc_h,
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
    __m256d dk[SQ_COV_LD];
    for (int k = SQ_COV_K; k < SQ_COV_LD; k++) /* padding: stored, never read */
        dk[k] = _mm256_setzero_pd();
    for (int y0 = 0; y0 < rows; y0 += 4) {
        const double *t0 = ws + 4 * ld + y0;
        /* dr = 0: lags dc = 0..4 (sequences 0..4) and the plain sum (41). */
        __m256d d0[6 * SQ_BLOCK];
        lag_group(d0, t0, ld, 0, 0, 5, 1, trunc_w);
        memcpy(dk, d0, sizeof(__m256d) * 5 * SQ_BLOCK);
        memcpy(dk + (SQ_COV_SEQS - 1) * SQ_BLOCK, d0 + 5 * SQ_BLOCK, sizeof(__m256d) * SQ_BLOCK);
        /* dr = 1..4: lags dc = -4..4, sequences 5 + (dr - 1) * 9 + (dc + 4). */
        for (int dr = 1; dr < SQ_BLOCK; dr++)
            lag_group(dk + (5 + (dr - 1) * 9) * SQ_BLOCK, t0, ld, dr, -4, 9, 0, trunc_w);
        /* 4x4 transposes: lanes (rows) back to dl rows. */
        for (int k = 0; k < SQ_COV_LD; k += 4) {
            const __m256d t0v = _mm256_unpacklo_pd(dk[k], dk[k + 1]);
            const __m256d t1v = _mm256_unpackhi_pd(dk[k], dk[k + 1]);
            const __m256d t2v = _mm256_unpacklo_pd(dk[k + 2], dk[k + 3]);
            const __m256d t3v = _mm256_unpackhi_pd(dk[k + 2], dk[k + 3]);
            double *o = dl + (size_t)y0 * SQ_COV_LD + k;
            _mm256_storeu_pd(o, _mm256_permute2f128_pd(t0v, t2v, 0x20));
            _mm256_storeu_pd(o + SQ_COV_LD, _mm256_permute2f128_pd(t1v, t3v, 0x20));
            _mm256_storeu_pd(o + 2 * SQ_COV_LD, _mm256_permute2f128_pd(t0v, t2v, 0x31));
            _mm256_storeu_pd(o + 3 * SQ_COV_LD, _mm256_permute2f128_pd(t1v, t3v, 0x31));
        }
    }
}

void sq_cov_sums_avx2(double *sums, const double *dl, int sub_h)
{
    for (int r0 = 0; r0 < SQ_BLOCK; r0++) {
        for (int k = 0; k < SQ_COV_LD; k += 16) {
            __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
            const int k4 = k + 16 <= SQ_COV_LD ? 4 : (SQ_COV_LD - k) / 4;
            for (int i = 0; i < sub_h; i++) {
                const double *p = dl + (size_t)(r0 + i) * SQ_COV_LD + k;
                a0 = _mm256_add_pd(a0, _mm256_loadu_pd(p));
                if (k4 > 1)
                    a1 = _mm256_add_pd(a1, _mm256_loadu_pd(p + 4));
                if (k4 > 2)
                    a2 = _mm256_add_pd(a2, _mm256_loadu_pd(p + 8));
                if (k4 > 3)
                    a3 = _mm256_add_pd(a3, _mm256_loadu_pd(p + 12));
            }
            double *o = sums + r0 * SQ_COV_LD + k;
            _mm256_storeu_pd(o, a0);
            if (k4 > 1)
                _mm256_storeu_pd(o + 4, a1);
            if (k4 > 2)
                _mm256_storeu_pd(o + 8, a2);
            if (k4 > 3)
                _mm256_storeu_pd(o + 12, a3);
        }
    }
}
