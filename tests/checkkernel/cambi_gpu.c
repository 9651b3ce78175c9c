/*
 * The GPU's CAMBI entry points (gpu/kernels_cambi.h: an item a pixel or a
 * column) against the CPU's C path, which works in place row after row
 * (math/vmaf_cambi*.h), bit for bit: sq_vc_mask_at against sq_vc_mask's
 * sliding column sums, sq_vc_decimate_at out of place against
 * sq_vc_decimate in place, sq_vc_mode_at against sq_vc_mode_filter's ring
 * and sq_vc_cvalues_col column by column against sq_vc_cvalues' rows. Sizes
 * 1..90 wide and 1..40 high (the 1- and 2-row images the mode filter
 * keeps, windows wider than the image), flat blocks and noise, any
 * thresholds. A window one narrower must change some case's c-values: the
 * cases reach what they check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkkernel.h"
#include "math/vmaf_cambi_pool.h"

#define NCASES 200

static float recip[SQ_VC_RECIP_N];

typedef struct GCase {
    SqVcParams p;
    int w, h;
    uint16_t *img;
    uint8_t *mask, first[1025];
} GCase;

static void case_new(GCase *c)
{
    memset(c, 0, sizeof(*c));
    c->w = ck_irand(1, 90);
    c->h = ck_irand(1, 40);
    SqVcParams *p = &c->p;
    p->w = c->w;
    p->h = c->h;
    p->nd = 1 << ck_irand(0, 5);
    p->ws = 2 * (ck_chance(50) ? ck_irand(0, 31) : ck_irand(0, 8)) + 1;
    p->vlt_luma = ck_chance(30) ? 0 : ck_irand(0, 300);
    const int increasing = ck_chance(70);
    for (int d = 0; d < p->nd; d++) {
        p->tvi[d] = increasing ? 300 + 20 * d + ck_irand(0, 400) : ck_irand(0, 1100);
        p->weight[d] = ck_irand(1, 9);
    }
    sq_vc_first_table(p, c->first);
    const int n = c->w * c->h, flat = ck_chance(70), seed = ck_irand(0, 99);
    const int bw = ck_irand(1, 9), bh = ck_irand(1, 9);
    c->img = malloc((size_t)n * sizeof(*c->img));
    c->mask = malloc((size_t)n);
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < c->w; x++) {
            const int v = flat ? ((x / bw) * 31 + (y / bh) * 17 + seed) % 5 * 97 + 200
                               : ck_irand(0, 1024);
            c->img[y * c->w + x] = (uint16_t)(ck_chance(5) ? ck_irand(0, 1024) : v);
            c->mask[y * c->w + x] = (uint8_t)(ck_chance(85) ? 1 : 0);
        }
}

static void case_free(GCase *c)
{
    free(c->img);
    free(c->mask);
}

/* The mask, the decimation, the mode filter: 0, or 1 (reported). */
static int check_image(const GCase *c)
{
    const int w = c->w, h = c->h, n = w * h;
    uint8_t *zero = malloc((size_t)n), *m = malloc((size_t)n), *m2 = malloc((size_t)n);
    uint16_t *colsum = malloc((size_t)w * sizeof(*colsum)), *a = malloc((size_t)n * 2);
    uint16_t *b = malloc((size_t)n * 2), *ring = malloc((size_t)3 * w * 2);
    SqVcBufs bf;
    memset(&bf, 0, sizeof(bf));
    bf.img = c->img;
    bf.zero = zero;
    bf.mask = m;
    bf.colsum = colsum;
    sq_vc_mask(&c->p, &bf);
    const int mi = sq_vc_mask_index(w, h);
    int bad = 0;
    for (int t = 0; t < n && !bad; t++)
        if (sq_vc_mask_at(zero, w, h, t / w, t % w, mi) != m[t])
            bad = ck_fail("mask_at %dx%d pixel %d", w, h, t);
    /* the decimation: in place against out of place */
    const int cw = (w + 1) >> 1, ch = (h + 1) >> 1;
    memcpy(a, c->img, (size_t)n * 2);
    memcpy(m2, c->mask, (size_t)n);
    sq_vc_decimate(a, m2, w, h);
    for (int t = 0; t < cw * ch; t++)
        sq_vc_decimate_at(c->img, c->mask, w, cw, t / cw, t % cw, b, m);
    if (!bad && (memcmp(a, b, (size_t)cw * ch * 2) || memcmp(m, m2, (size_t)cw * ch)))
        bad = ck_fail("decimate_at %dx%d", w, h);
    memcpy(a, c->img, (size_t)n * 2);
    sq_vc_mode_filter(a, w, h, ring);
    for (int t = 0; t < n; t++)
        b[t] = sq_vc_mode_at(c->img, w, h, t / w, t % w);
    if (!bad && memcmp(a, b, (size_t)n * 2))
        bad = ck_fail("mode_at %dx%d", w, h);
    free(zero);
    free(m);
    free(m2);
    free(colsum);
    free(a);
    free(b);
    free(ring);
    return bad;
}

/* c-values of the case with window ws, rows (sq_vc_cvalues) or columns, into c. */
static void cvalues(const GCase *k, int ws, int cols, float *c)
{
    SqVcParams p = k->p;
    p.ws = ws;
    const size_t nh = (size_t)sq_vc_sizes(k->w, k->h, p.nd).hist;
    uint16_t *hist = malloc(nh * sizeof(*hist));
    for (size_t t = 0; t < nh; t++)
        hist[t] = (uint16_t)ck_rand(); /* what is not cleared must not be read */
    SqVcBufs bf;
    memset(&bf, 0, sizeof(bf));
    bf.img = k->img;
    bf.mask = k->mask;
    bf.hist = hist;
    bf.c = c;
    bf.first = (uint8_t *)k->first;
    bf.recip = recip;
    /* columns in 1 to 4 bands of rows (any heights, empty ones too), each band's histograms
     * its own, written over the last band's */
    const int nb = cols ? ck_irand(1, 4) : 0;
    int cut[5] = { 0, 0, 0, 0, k->h };
    for (int b = 1; b < nb; b++)
        cut[b] = ck_irand(cut[b - 1], k->h);
    cut[nb] = k->h;
    for (int b = 0; b < nb; b++)
        for (int j = 0; j < k->w; j++)
            sq_vc_cvalues_col(&p, &bf, hist, k->w, k->h, j, cut[b], cut[b + 1]);
    if (!cols)
        sq_vc_cvalues(&p, &bf, k->w, k->h);
    free(hist);
}

void ck_cambi_gpu(const CkCtx *ctx)
{
    if (!ck_wanted(ctx, "vc_gpu"))
        return;
    recip[0] = 0.0f;
    for (int n = 1; n < SQ_VC_RECIP_N; n++)
        recip[n] = 1.0f / (float)n;
    ck_begin("vc_gpu_steps", "c");
    int bad = 0, caught = 0;
    for (int t = 0; t < NCASES && !bad; t++) {
        GCase k;
        case_new(&k);
        const size_t n = (size_t)k.w * k.h;
        float *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
        bad += check_image(&k);
        cvalues(&k, k.p.ws, 0, a);
        cvalues(&k, k.p.ws, 1, b);
        if (!bad && memcmp(a, b, n * sizeof(*a)))
            bad = ck_fail("cvalues_col %dx%d ws %d nd %d", k.w, k.h, k.p.ws, k.p.nd);
        if (k.p.ws > 1) {
            cvalues(&k, k.p.ws - 2, 1, b);
            caught += memcmp(a, b, n * sizeof(*a)) != 0;
        }
        free(a);
        free(b);
        case_free(&k);
    }
    if (!bad && !caught)
        ck_fail("a window two narrower gave the same c-values in all %d cases", NCASES);
    ck_end();
}
