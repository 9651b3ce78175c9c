/*
 * AVX-512 covariance row terms (math/cov.h step 1) across 8 operating rows
 * per __m512d, as cov_avx2.c does with 4: lane i runs the prefix sum of row
 * y0 + i in increasing x, over the same transposed, zero-padded copy (its
 * column length, rows rounded up to 8 plus 8, holds the 8 + 4 rows an 8-row
 * group reads). dl is written only up to rows rounded up to 4.
 */
#include <stdint.h>
#include <string.h>

#include "cpu/dsp.h"
#include "math/prelude.h"
#include "x86/dsp_x86.h"
#include "x86/simd512.h"

/* Prefix sums of one lag group: nl lags (dc0 .. dc0 + nl - 1) of the rows
 * in tb (column stride ldb: the copy's rows moved by the lag's row offset),
 * plus (plain) the sum of the samples themselves as sequence nl. */
AI void lag_group(__m512d *dk, const double *t0, ptrdiff_t ld, const double *tb, ptrdiff_t ldb,
                  int dc0, int nl, int plain, int trunc_w)
{
    const int sub_w = trunc_w - SQ_BLOCK + 1;
    __m512d acc[10], lo[10][SQ_BLOCK];
    const int na = nl + plain;
    for (int l = 0; l < na; l++)
        acc[l] = _mm512_setzero_pd();
    const double *b0 = tb + dc0 * ldb;
    int t = 0;
    while (t <= trunc_w) {
        if (t >= SQ_BLOCK && t < sub_w) {
            for (; t < sub_w; t++) {
                const __m512d a = _mm512_loadu_pd(t0 + t * ld);
                const double *b = b0 + t * ldb;
                for (int l = 0; l < nl; l++)
                    acc[l] = _mm512_add_pd(acc[l], _mm512_mul_pd(a, _mm512_loadu_pd(b + l * ldb)));
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
        const double *b = b0 + t * ldb;
        for (int l = 0; l < nl; l++)
            acc[l] = _mm512_add_pd(acc[l], _mm512_mul_pd(a, _mm512_loadu_pd(b + l * ldb)));
        if (plain)
            acc[nl] = _mm512_add_pd(acc[nl], a);
        t++;
    }
}

/* Lanes 128-bit blocks of a and b (imm as vshuff64x2), through the i32x4 form. */
#define SHUF128(a, b, imm)                                                                   \
    _mm512_castsi512_pd(_mm512_shuffle_i32x4(_mm512_castpd_si512(a), _mm512_castpd_si512(b), \
                                             (imm)))

/* 8x8 transpose: v[j] lane i becomes v[i] lane j. */
AI void transpose8x8(__m512d *v)
{
    __m512d t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_pd(v[2 * i], v[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_pd(v[2 * i], v[2 * i + 1]);
    }
    /* t0 [00 10 02 12 ..], t1 [01 11 03 13 ..], t2 [20 30 22 32 ..], ... */
    u[0] = SHUF128(t[0], t[2], 0x88); /* 00 10 04 14 20 30 24 34 */
    u[1] = SHUF128(t[0], t[2], 0xdd); /* 02 12 06 16 22 32 26 36 */
    u[2] = SHUF128(t[1], t[3], 0x88); /* 01 11 05 15 21 31 25 35 */
    u[3] = SHUF128(t[1], t[3], 0xdd); /* 03 13 07 17 23 33 27 37 */
    u[4] = SHUF128(t[4], t[6], 0x88);
    u[5] = SHUF128(t[4], t[6], 0xdd);
    u[6] = SHUF128(t[5], t[7], 0x88);
    u[7] = SHUF128(t[5], t[7], 0xdd);
    v[0] = SHUF128(u[0], u[4], 0x88);
    v[4] = SHUF128(u[0], u[4], 0xdd);
    v[2] = SHUF128(u[1], u[5], 0x88);
    v[6] = SHUF128(u[1], u[5], 0xdd);
    v[1] = SHUF128(u[2], u[6], 0x88);
    v[5] = SHUF128(u[2], u[6], 0xdd);
    v[3] = SHUF128(u[3], u[7], 0x88);
    v[7] = SHUF128(u[3], u[7], 0xdd);
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
                          int trunc_h, int rows, double *ws)
{
    const int rows4 = (rows + 3) & ~3;
    /* doubles per column of the transposed copy: whole lines, and the copy
     * on a line (sq_cov_ws_doubles leaves room), so loads at y0 are aligned */
    const ptrdiff_t ld = ((trunc_h + 7) & ~7) + 8;
    ws = (double *)(((uintptr_t)ws + 63) & ~(uintptr_t)63);
    /* rows y0 + dr .. y0 + dr + 7 of every column, aligned (band[c * 8 + i]):
     * lag groups of row offset dr read these instead of loads that split a
     * line at y0 + dr (a band is built in L1 and read at once) */
    double *band = ws + (size_t)(trunc_w + 8) * ld;
    /* ws[(x + 4) * ld + y] = img(y, x), zero outside [0, trunc_w) x [0, trunc_h). */
    memset(ws, 0, sizeof(double) * 4 * (size_t)ld);
    memset(ws + (size_t)(trunc_w + 4) * ld, 0, sizeof(double) * 4 * (size_t)ld);
    const int w8 = trunc_w & ~7, h8 = trunc_h & ~7;
    /* 8 x 8 blocks: 8 rows of 8 floats as doubles, transposed into columns */
    for (int x0 = 0; x0 < w8; x0 += 8)
        for (int y0 = 0; y0 < h8; y0 += 8) {
            __m512d v[8];
            for (int i = 0; i < 8; i++)
                v[i] = _mm512_cvtps_pd(_mm256_loadu_ps(img + (ptrdiff_t)(y0 + i) * stride + x0));
            transpose8x8(v);
            for (int j = 0; j < 8; j++)
                _mm512_storeu_pd(ws + (size_t)(x0 + j + 4) * ld + y0, v[j]);
        }
    for (int x = 0; x < trunc_w; x++) {
        double *col = ws + (size_t)(x + 4) * ld;
        for (int y = x < w8 ? h8 : 0; y < trunc_h; y++)
            col[y] = (double)img[(ptrdiff_t)y * stride + x];
        memset(col + trunc_h, 0, sizeof(double) * (size_t)(ld - trunc_h));
    }
    __m512d dk[SQ_COV_LD];
    for (int k = SQ_COV_K; k < SQ_COV_LD; k++) /* padding: stored, never read */
        dk[k] = _mm512_setzero_pd();
    for (int y0 = 0; y0 < rows; y0 += 8) {
        const double *t0 = ws + 4 * ld + y0;
        /* dr = 0: lags dc = 0..4 (sequences 0..4) and the plain sum (41). */
        __m512d d0[6 * SQ_BLOCK];
        lag_group(d0, t0, ld, t0, ld, 0, 5, 1, trunc_w);
        memcpy(dk, d0, sizeof(__m512d) * 5 * SQ_BLOCK);
        memcpy(dk + (SQ_COV_SEQS - 1) * SQ_BLOCK, d0 + 5 * SQ_BLOCK, sizeof(__m512d) * SQ_BLOCK);
        /* dr = 1..4: lags dc = -4..4, sequences 5 + (dr - 1) * 9 + (dc + 4). */
        for (int dr = 1; dr < SQ_BLOCK; dr++) {
            for (int c = 0; c < trunc_w + 8; c++)
                _mm512_store_pd(band + 8 * c, _mm512_loadu_pd(ws + c * ld + y0 + dr));
            lag_group(dk + (5 + (dr - 1) * 9) * SQ_BLOCK, t0, ld, band + 4 * 8, 8, -4, 9, 0,
                      trunc_w);
        }
        /* Lanes (rows) back to dl rows: rows y0 .. y0 + 3, then y0 + 4 ..
         * y0 + 7 when they are below rows4. */
        const int upper = y0 + 4 < rows4;
        int k = 0;
        if (upper) /* 8 rows: 8 x 8 transposes, then the last 4 columns */
            for (; k + 8 <= SQ_COV_LD; k += 8) {
                __m512d v[8];
                memcpy(v, dk + k, sizeof(v));
                transpose8x8(v);
                for (int i = 0; i < 8; i++)
                    _mm512_storeu_pd(dl + (size_t)(y0 + i) * SQ_COV_LD + k, v[i]);
            }
        for (; k < SQ_COV_LD; k += 4) {
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


/*
 * Step 2 (sq_cov_window_sum, the window sums of the row terms): the five
 * sums of a column chunk (r0 = 0 .. 4) at once. Row j of dl is term
 * i = j - r0 of the sum of r0, so one pass down the rows adds it to each
 * sum it belongs to, every sum still in increasing i from +0: 15
 * independent chains instead of 4, which the add latency held back (the
 * AVX2 version, which this level kept, ran at half the add throughput).
 */
_Static_assert(SQ_COV_LD % 24 == 0, "cov_sums takes columns 24 at a time");
_Static_assert(SQ_BLOCK == 5, "cov_sums adds to five sums");

#define SUMS_ADD(r0)                                                      \
    if (j >= (r0) && j - (r0) < sub_h) {                                  \
        acc[r0][0] = _mm512_add_pd(acc[r0][0], x0);                       \
        acc[r0][1] = _mm512_add_pd(acc[r0][1], x1);                       \
        acc[r0][2] = _mm512_add_pd(acc[r0][2], x2);                       \
    }

void SQ_X512(sq_cov_sums)(double *sums, const double *dl, int sub_h)
{
    for (int k = 0; k < SQ_COV_LD; k += 24) {
        __m512d acc[SQ_BLOCK][3];
        for (int r0 = 0; r0 < SQ_BLOCK; r0++)
            acc[r0][0] = acc[r0][1] = acc[r0][2] = _mm512_setzero_pd();
        for (int j = 0; j < sub_h + SQ_BLOCK - 1; j++) {
            const double *p = dl + (size_t)j * SQ_COV_LD + k;
            const __m512d x0 = _mm512_loadu_pd(p), x1 = _mm512_loadu_pd(p + 8);
            const __m512d x2 = _mm512_loadu_pd(p + 16);
            SUMS_ADD(0)
            SUMS_ADD(1)
            SUMS_ADD(2)
            SUMS_ADD(3)
            SUMS_ADD(4)
        }
        for (int r0 = 0; r0 < SQ_BLOCK; r0++)
            for (int v = 0; v < 3; v++)
                _mm512_storeu_pd(sums + r0 * SQ_COV_LD + k + 8 * v, acc[r0][v]);
    }
}
#undef SUMS_ADD
