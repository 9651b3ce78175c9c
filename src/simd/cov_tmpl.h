/*
 * Covariance row terms and window sums (math/cov.h steps 1 and 2) for b =
 * SQ_BLOCK, written once for every SIMD level: included by x86/cov_avx2.c,
 * x86/cov_avx512.c and arm/cov_neon.c after their simd/vec_*.h.
 *
 * Step 1 runs VD_N operating rows per vd: lane i runs the prefix sum of row
 * y0 + i in increasing x, so every lane keeps the canonical order. The
 * image is copied transposed and zero-padded in double: a term whose second
 * sample lies outside the truncated region becomes +-0, and adding +-0 to a
 * prefix sum that starts at +0 leaves it unchanged, exactly as skipping the
 * term does.
 */
#include <stdint.h>
#include <string.h>

#include "cpu/dsp.h"
#include "math/prelude.h"

/* Column t of the prefix sums: a = sample t of the rows, b its nl lags. */
V_AI void lag_step(vd *acc, const double *a0, const double *b, ptrdiff_t ldb, int nl, int plain)
{
    const vd a = vd_load(a0);
    for (int l = 0; l < nl; l++)
        acc[l] = vd_add(acc[l], vd_mul(a, vd_load(b + l * ldb)));
    if (plain)
        acc[nl] = vd_add(acc[nl], a);
}

/* Prefix sums of one lag group: nl lags (dc0 .. dc0 + nl - 1) of the rows
 * in tb (column stride ldb: the copy's rows moved by the lag's row offset),
 * plus (plain) the sum of the samples themselves as sequence nl. */
V_AI void lag_group(vd *dk, const double *t0, ptrdiff_t ld, const double *tb, ptrdiff_t ldb,
                    int dc0, int nl, int plain, int trunc_w)
{
    const int sub_w = trunc_w - SQ_BLOCK + 1;
    vd acc[10], lo[10][SQ_BLOCK];
    const int na = nl + plain;
    for (int l = 0; l < na; l++)
        acc[l] = vd_zero();
    const double *b0 = tb + dc0 * ldb;
    int t = 0;
    while (t <= trunc_w) {
        if (t >= SQ_BLOCK && t < sub_w) {
            for (; t < sub_w; t++)
                lag_step(acc, t0 + t * ld, b0 + t * ldb, ldb, nl, plain);
            continue;
        }
        if (t < SQ_BLOCK)
            for (int l = 0; l < na; l++)
                lo[l][t] = acc[l];
        if (t >= sub_w)
            for (int l = 0; l < na; l++)
                dk[l * SQ_BLOCK + t - sub_w] = vd_sub(acc[l], lo[l][t - sub_w]);
        if (t == trunc_w)
            break;
        lag_step(acc, t0 + t * ld, b0 + t * ldb, ldb, nl, plain);
        t++;
    }
}

/* ws[(x + 4) * ld + y] = img(y, x), zero outside [0, trunc_w) x [0, trunc_h):
 * VD_N x VD_N blocks widened and transposed, the edges one by one. */
static void cov_copy(double *ws, ptrdiff_t ld, const float *img, ptrdiff_t stride, int trunc_w,
                     int trunc_h)
{
    memset(ws, 0, sizeof(double) * 4 * (size_t)ld);
    memset(ws + (size_t)(trunc_w + 4) * ld, 0, sizeof(double) * 4 * (size_t)ld);
    const int wb = trunc_w & ~(VD_N - 1), hb = trunc_h & ~(VD_N - 1);
    for (int x0 = 0; x0 < wb; x0 += VD_N)
        for (int y0 = 0; y0 < hb; y0 += VD_N) {
            vd v[VD_N];
            for (int i = 0; i < VD_N; i++)
                v[i] = vd_load_f32(img + (ptrdiff_t)(y0 + i) * stride + x0);
            vd_transpose(v);
            for (int j = 0; j < VD_N; j++)
                vd_store(ws + (size_t)(x0 + j + 4) * ld + y0, v[j]);
        }
    for (int x = 0; x < trunc_w; x++) {
        double *col = ws + (size_t)(x + 4) * ld;
        for (int y = x < wb ? hb : 0; y < trunc_h; y++)
            col[y] = (double)img[(ptrdiff_t)y * stride + x];
        memset(col + trunc_h, 0, sizeof(double) * (size_t)(ld - trunc_h));
    }
}

void V_NAME(sq_cov_rows)(double *dl, const float *img, ptrdiff_t stride, int trunc_w,
                         int trunc_h, int rows, double *ws)
{
    const int rows4 = (rows + 3) & ~3;
    /* doubles per column of the copy: whole lines (the rows a group of VD_N
     * <= 8 reads, and 4 more), the copy on a line (sq_cov_ws_doubles leaves
     * room), so loads at y0 are aligned */
    const ptrdiff_t ld = ((trunc_h + 7) & ~7) + 8;
    ws = (double *)(((uintptr_t)ws + 63) & ~(uintptr_t)63);
    /* V_COV_BAND: rows y0 + dr .. y0 + dr + VD_N - 1 of every column, aligned
     * (band[c * VD_N + i]): lag groups of row offset dr read these instead of
     * loads that split a line at y0 + dr (a band is built in L1 and read at once) */
    double *band = ws + (size_t)(trunc_w + 8) * ld;
    cov_copy(ws, ld, img, stride, trunc_w, trunc_h);
    vd dk[SQ_COV_LD];
    for (int k = SQ_COV_K; k < SQ_COV_LD; k++) /* padding: stored, never read */
        dk[k] = vd_zero();
    for (int y0 = 0; y0 < rows; y0 += VD_N) {
        const double *t0 = ws + 4 * ld + y0;
        /* dr = 0: lags dc = 0..4 (sequences 0..4) and the plain sum (41). */
        vd d0[6 * SQ_BLOCK];
        lag_group(d0, t0, ld, t0, ld, 0, 5, 1, trunc_w);
        memcpy(dk, d0, sizeof(vd) * 5 * SQ_BLOCK);
        memcpy(dk + (SQ_COV_SEQS - 1) * SQ_BLOCK, d0 + 5 * SQ_BLOCK, sizeof(vd) * SQ_BLOCK);
        /* dr = 1..4: lags dc = -4..4, sequences 5 + (dr - 1) * 9 + (dc + 4). */
        for (int dr = 1; dr < SQ_BLOCK; dr++) {
            vd *dg = dk + (5 + (dr - 1) * 9) * SQ_BLOCK;
            if (V_COV_BAND) {
                for (int c = 0; c < trunc_w + 8; c++)
                    vd_store(band + VD_N * c, vd_load(ws + c * ld + y0 + dr));
                lag_group(dg, t0, ld, band + 4 * VD_N, VD_N, -4, 9, 0, trunc_w);
            } else {
                lag_group(dg, t0, ld, t0 + dr, ld, -4, 9, 0, trunc_w);
            }
        }
        /* Lanes (rows) back to dl rows, those below rows4 only. */
        const int nr = rows4 - y0 < VD_N ? rows4 - y0 : VD_N;
        for (int k = 0; k < SQ_COV_LD; k += VD_N) {
            vd v[VD_N];
            for (int i = 0; i < VD_N; i++)
                v[i] = dk[k + i];
            vd_transpose(v);
            for (int i = 0; i < VD_N; i++)
                if (i < nr)
                    vd_store(dl + (size_t)(y0 + i) * SQ_COV_LD + k, v[i]);
        }
    }
}

/*
 * Step 2 (sq_cov_window_sum, the window sums of the row terms): the five
 * sums of a chunk of V_COV_SUMS_NV vectors of columns (r0 = 0 .. 4) at
 * once. Row j of dl is term i = j - r0 of the sum of r0, so one pass down
 * the rows adds it to each sum it belongs to, every sum still in
 * increasing i from +0: 5 x V_COV_SUMS_NV independent chains, which the add
 * latency needs (AVX-512, one sum at a time, ran at half the add throughput;
 * AVX2 with 2 vectors a chunk, `checkkernel --bench`, sub_h 61: 3960 ns one
 * sum at a time -> 2330 ns).
 */
_Static_assert(SQ_COV_LD % (V_COV_SUMS_NV * VD_N) == 0, "cov_sums takes whole chunks");
_Static_assert(SQ_BLOCK == 5, "cov_sums adds to five sums");

void V_NAME(sq_cov_sums)(double *sums, const double *dl, int sub_h)
{
    enum { NV = V_COV_SUMS_NV };
    for (int k = 0; k < SQ_COV_LD; k += NV * VD_N) {
        vd acc[SQ_BLOCK][NV];
        for (int r0 = 0; r0 < SQ_BLOCK; r0++)
            for (int v = 0; v < NV; v++)
                acc[r0][v] = vd_zero();
        for (int j = 0; j < sub_h + SQ_BLOCK - 1; j++) {
            const double *p = dl + (size_t)j * SQ_COV_LD + k;
            vd x[NV];
            for (int v = 0; v < NV; v++)
                x[v] = vd_load(p + VD_N * v);
            for (int r0 = 0; r0 < SQ_BLOCK; r0++)
                if (j >= r0 && j - r0 < sub_h)
                    for (int v = 0; v < NV; v++)
                        acc[r0][v] = vd_add(acc[r0][v], x[v]);
        }
        for (int r0 = 0; r0 < SQ_BLOCK; r0++)
            for (int v = 0; v < NV; v++)
                vd_store(sums + r0 * SQ_COV_LD + k + VD_N * v, acc[r0][v]);
    }
}
