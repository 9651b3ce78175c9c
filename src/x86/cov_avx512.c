/*
 * AVX-512 covariance row terms (math/cov.h step 1) across 8 operating rows
 * per __m512d, as cov_avx2.c does with 4: lane i runs the prefix sum of row
 * y0 + i in increasing x, over the same transposed, zero-padded copy (its
 * column length, rows rounded up to 4 plus 8, holds the 8 + 4 rows an 8-row
 * group reads). dl is written only up to trunc_h rounded up to 4.
 */
#include <string.h>

#include "cpu/dsp.h"
#include "math/prelude.h"
#include "x86/dsp_x86.h"
#include "x86/simd512.h"

/* Prefix sums of one lag group: nl lags (dc0 .. dc0 + nl - 1) at row offset
 * dr, plus (plain) the sum of the samples themselves as sequence nl. */
AI void lag_group(__m512d *dk, const double *t0, ptrdiff_t ld, int dr, int dc0, int nl,
                  int plain, int trunc_w)
{
    const int sub_w = trunc_w - SQ_BLOCK + 1;
    __m512d acc[10], lo[10][SQ_BLOCK];
    const int na = nl + plain;
    for (int l = 0; l < na; l++)
        acc[l] = _mm512_setzero_pd();
    const double *b0 = t0 + dc0 * ld + dr;
    int t = 0;
    while (t <= trunc_w) {
        if (t >= SQ_BLOCK && t < sub_w) {
            for (; t < sub_w; t++) {
                const __m512d a = _mm512_loadu_pd(t0 + t * ld);
                const double *b = b0 + t * ld;
                for (int l = 0; l < nl; l++)
                    acc[l] = _mm512_add_pd(acc[l], _mm512_mul_pd(a, _mm512_loadu_pd(b + l * ld)));
                if (plain)
                    acc[nl] = _mm512_add_pd(acc[nl], a);
            }
            continue;
        }
        if (t < SQ_BLOCK)
            for (int l = 0; l < na; l++)
                lo[l][t] = acc[l];
        if (t >= sub_w)
            for (int l = 0; l < na; l++)
                dk[l * SQ_BLOCK + t - sub_w] = _mm512_sub_pd(acc[l], lo[l][t - sub_w]);
        if (t == trunc_w)
            break;
        const __m512d a = _mm512_loadu_pd(t0 + t * ld);
        const double *b = b0 + t * ld;
        for (int l = 0; l < nl; l++)
            acc[l] = _mm512_add_pd(acc[l], _mm512_mul_pd(a, _mm512_loadu_pd(b + l * ld)));
        if (plain)
            acc[nl] = _mm512_add_pd(acc[nl], a);
        t++;
    }
}

/* 4x4 transpose of one 256-bit half of dk[k .. k + 3] into 4 dl rows. */
AI void store4x4(double *o, __m256d v0, __m256d v1, __m256d v2, __m256d v3)
{
    const __m256d t0 = _mm256_unpacklo_pd(v0, v1), t1 = _mm256_unpackhi_pd(v0, v1);
    const __m256d t2 = _mm256_unpacklo_pd(v2, v3), t3 = _mm256_unpackhi_pd(v2, v3);
    _mm256_storeu_pd(o, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(o + SQ_COV_LD, _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(o + 2 * SQ_COV_LD, _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(o + 3 * SQ_COV_LD, _mm256_permute2f128_pd(t1, t3, 0x31));
}

void SQ_X512(sq_cov_rows)(double *dl, const float *img, ptrdiff_t stride, int trunc_w,
                          int trunc_h, double *ws)
{
    const int rows4 = (trunc_h + 3) & ~3;
    const ptrdiff_t ld = rows4 + 8; /* doubles per column of the transposed copy */
    /* ws[(x + 4) * ld + y] = img(y, x), zero outside [0, trunc_w) x [0, trunc_h). */
    memset(ws, 0, sizeof(double) * 4 * (size_t)ld);
    memset(ws + (size_t)(trunc_w + 4) * ld, 0, sizeof(double) * 4 * (size_t)ld);
    for (int x = 0; x < trunc_w; x++) {
        double *col = ws + (size_t)(x + 4) * ld;
        for (int y = 0; y < trunc_h; y++)
            col[y] = (double)img[(ptrdiff_t)y * stride + x];
        memset(col + trunc_h, 0, sizeof(double) * (size_t)(ld - trunc_h));
    }
    __m512d dk[SQ_COV_LD];
    dk[SQ_COV_K] = dk[SQ_COV_K + 1] = _mm512_setzero_pd();
    for (int y0 = 0; y0 < trunc_h; y0 += 8) {
        const double *t0 = ws + 4 * ld + y0;
        /* dr = 0: lags dc = 0..4 (sequences 0..4) and the plain sum (41). */
        __m512d d0[6 * SQ_BLOCK];
        lag_group(d0, t0, ld, 0, 0, 5, 1, trunc_w);
        memcpy(dk, d0, sizeof(__m512d) * 5 * SQ_BLOCK);
        memcpy(dk + (SQ_COV_SEQS - 1) * SQ_BLOCK, d0 + 5 * SQ_BLOCK, sizeof(__m512d) * SQ_BLOCK);
        /* dr = 1..4: lags dc = -4..4, sequences 5 + (dr - 1) * 9 + (dc + 4). */
        for (int dr = 1; dr < SQ_BLOCK; dr++)
            lag_group(dk + (5 + (dr - 1) * 9) * SQ_BLOCK, t0, ld, dr, -4, 9, 0, trunc_w);
        /* Lanes (rows) back to dl rows: rows y0 .. y0 + 3, then y0 + 4 ..
         * y0 + 7 when they are below rows4. */
        const int upper = y0 + 4 < rows4;
        for (int k = 0; k < SQ_COV_LD; k += 4) {
            double *o = dl + (size_t)y0 * SQ_COV_LD + k;
            store4x4(o, _mm512_castpd512_pd256(dk[k]), _mm512_castpd512_pd256(dk[k + 1]),
                     _mm512_castpd512_pd256(dk[k + 2]), _mm512_castpd512_pd256(dk[k + 3]));
            if (upper)
                store4x4(o + 4 * SQ_COV_LD, _mm512_extractf64x4_pd(dk[k], 1),
                         _mm512_extractf64x4_pd(dk[k + 1], 1), _mm512_extractf64x4_pd(dk[k + 2], 1),
                         _mm512_extractf64x4_pd(dk[k + 3], 1));
        }
    }
}

