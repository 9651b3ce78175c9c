/* Covariance: row terms (step 1) and window sums (step 2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkkernel.h"
#include "math/prelude.h"

#define NCASES 200

static void fill_img(float *img, size_t n)
{
    const int mode = ck_irand(0, 4);
    const float cst = ck_frand(-50.0f, 50.0f);
    for (size_t i = 0; i < n; i++) {
        switch (mode) {
        case 0: img[i] = 0.0f; break;
        case 1: img[i] = cst; break;
        case 2: img[i] = (float)ck_irand(-128, 127); break; /* integer-valued */
        case 3: img[i] = ck_frand(-1e-3f, 1e-3f); break;
        default: img[i] = ck_frand(-80.0f, 80.0f); break;
        }
    }
}

static void check_cov_rows(const CkCtx *c, const CkLevel *l)
{
    ck_begin("cov_rows", l->name);
    for (int n = 0; n < NCASES; n++) {
        const int tw = SQ_BLOCK * (ck_chance(30) ? ck_irand(1, 3) : ck_irand(1, 50));
        const int th = SQ_BLOCK * (ck_chance(30) ? ck_irand(1, 3) : ck_irand(1, 30));
        /* columns and rows beyond the truncated region hold values the
         * kernels must ignore */
        const int stride = tw + ck_irand(0, 4), rows = th + ck_irand(0, 4);
        const int rows4 = (th + 3) & ~3;
        float *img = malloc(sizeof(float) * (size_t)stride * rows);
        fill_img(img, (size_t)stride * rows);
        for (int y = 0; y < rows; y++)
            for (int x = 0; x < stride; x++)
                if (y >= th || x >= tw)
                    img[y * stride + x] = 1e6f;
        double *a = calloc((size_t)rows4 * SQ_COV_LD, sizeof(double));
        double *b = calloc((size_t)rows4 * SQ_COV_LD, sizeof(double));
        double *ws = calloc(sq_cov_ws_doubles(tw, th), sizeof(double));
        c->ref.cov_rows(a, img, stride, tw, th, th, ws);
        l->dsp.cov_rows(b, img, stride, tw, th, th, ws);
        for (int y = 0; y < th; y++)
            if (ck_cmp_f64("dl", a + (size_t)y * SQ_COV_LD, b + (size_t)y * SQ_COV_LD, SQ_COV_K)) {
                ck_fail("trunc %dx%d stride %d, row %d", tw, th, stride, y);
                break;
            }
        /* In row bands (a lone frame's covariance split over threads): each
         * band an image of the rows it reads, the last band first, so that
         * a band writing past its rows would spoil the next one. */
        int cut[8], ncut = 0;
        cut[ncut++] = 0;
        for (int y = 8 * ck_irand(1, 3); y < th && ncut < 7; y += 8 * ck_irand(1, 3))
            cut[ncut++] = y;
        cut[ncut] = th;
        for (size_t i = 0; i < (size_t)rows4 * SQ_COV_LD; i++)
            b[i] = -1e300;
        for (int k = ncut - 1; k >= 0; k--) {
            const int y0 = cut[k], y1 = cut[k + 1], end = y1 + 4 < th ? y1 + 4 : th;
            l->dsp.cov_rows(b + (size_t)y0 * SQ_COV_LD, img + (size_t)y0 * stride, stride, tw,
                            end - y0, y1 - y0, ws);
        }
        for (int y = 0; y < th; y++)
            if (ck_cmp_f64("dl bands", a + (size_t)y * SQ_COV_LD, b + (size_t)y * SQ_COV_LD,
                           SQ_COV_K)) {
                ck_fail("trunc %dx%d stride %d, %d bands, row %d", tw, th, stride, ncut, y);
                break;
            }
        free(img);
        free(a);
        free(b);
        free(ws);
    }
    ck_end();
}

static void check_cov_sums(const CkCtx *c, const CkLevel *l)
{
    ck_begin("cov_sums", l->name);
    for (int n = 0; n < NCASES; n++) {
        const int sub_h = ck_chance(30) ? ck_irand(1, 4) : ck_irand(5, 140);
        const size_t cnt = (size_t)(sub_h + SQ_BLOCK - 1) * SQ_COV_LD;
        double *dl = malloc(sizeof(double) * cnt);
        for (size_t i = 0; i < cnt; i++)
            dl[i] = (double)ck_frand(-1e4f, 1e4f) * (double)ck_frand(-1.0f, 1.0f);
        double *a = calloc(SQ_BLOCK * SQ_COV_LD, sizeof(double));
        double *b = calloc(SQ_BLOCK * SQ_COV_LD, sizeof(double));
        c->ref.cov_sums(a, dl, sub_h);
        l->dsp.cov_sums(b, dl, sub_h);
        for (int r0 = 0; r0 < SQ_BLOCK; r0++)
            if (ck_cmp_f64("sums", a + r0 * SQ_COV_LD, b + r0 * SQ_COV_LD, SQ_COV_K)) {
                ck_fail("sub_h %d r0 %d", sub_h, r0);
                break;
            }
        free(dl);
        free(a);
        free(b);
    }
    ck_end();
}

typedef struct BArgs {
    const SqDsp *d;
    float *img;
    double *dl, *ws, *sums;
} BArgs;

static void bench_rows(void *p)
{
    BArgs *a = p;
    a->d->cov_rows(a->dl, a->img, 120, 120, 65, 65, a->ws);
}

static void bench_sums(void *p)
{
    BArgs *a = p;
    a->d->cov_sums(a->sums, a->dl, 61);
}

void ck_cov(const CkCtx *c)
{
    for (int i = 0; i < c->nlvl; i++) {
        const CkLevel *l = &c->lvl[i];
        if (c->bench) {
            float *img = malloc(sizeof(float) * 120 * 67);
            fill_img(img, 120 * 67);
            double *dl = calloc(68 * SQ_COV_LD, sizeof(double));
            double *ws = calloc(sq_cov_ws_doubles(120, 65), sizeof(double));
            double *sums = calloc(SQ_BLOCK * SQ_COV_LD, sizeof(double));
            BArgs ac = { &c->ref, img, dl, ws, sums }, ao = { &l->dsp, img, dl, ws, sums };
            ck_bench_row("cov_rows (120x65, 1080p luma)", ck_time(bench_rows, &ac), l->name,
                         ck_time(bench_rows, &ao));
            ck_bench_row("cov_sums (sub_h 61)", ck_time(bench_sums, &ac), l->name,
                         ck_time(bench_sums, &ao));
            free(img);
            free(dl);
            free(ws);
            free(sums);
            continue;
        }
        if (ck_wanted(c, "cov_rows"))
            check_cov_rows(c, l);
        if (ck_wanted(c, "cov_sums"))
            check_cov_sums(c, l);
    }
}
