/*
 * CAMBI's slots against the C table's (math/vmaf_cambi_scale.h): the
 * window histograms moving down a row (vc_hist_move) and a row's c-values
 * (vc_cvalue_row), bit for bit. Scales 1..300 wide, a tenth 300..1200
 * (odd and even, tails at every level) and 1..40 high; images of 10-bit
 * codes (0..1024) in flat blocks (the mask's areas, where the c-value
 * kernel loads instead of gathering), in noise, at the range's ends, or in
 * long bands of near values (a gradient's contours: runs of one histogram
 * row, hist_move's trapezoids); masks dense, sparse, in blocks, and of any
 * byte; windows of 1 to 63; contrasts 1 to 32 with thresholds in any
 * order, as in vmafint's table selftest. The histograms of the c-value
 * cases are built by the C slot from the image, so every
 * count is one a window can hold (p0 + pm within R[]), or random below
 * half of R[] for the unmasked and mixed cases.
 *
 * The preprocessing's and mask's rows (vc_dither_row, vc_zero_row,
 * vc_mask_row), the mode filter's (vc_mode_h, vc_mode_v: rows of the
 * same images) and high_res_speedup's decimation (vc_decimate_row, row 0
 * in place too) on the same images and on column sums 0..7 with any mask
 * index; the pooling passes (vc_count_hi, vc_sum_hi) on c-value arrays
 * mostly zero, with normal, subnormal, repeated and (pass 1) non-finite
 * values, and every digit hi and exponent emin.
 *
 * Each slot's comparison also runs on a wrong kernel (the band one value
 * short, a contrast's term lost) and must find it: the cases reach what
 * they check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkkernel.h"
#include "math/vmaf_cambi_pool.h"

#define NCASES 300

typedef struct VcCase {
    SqVcParams p;
    int w, h, pad, lo, hi, add, rem, i;
    uint16_t *img, *hist;
    uint8_t *mask, first[1025];
    size_t nhist;
} VcCase;

static float recip[SQ_VC_RECIP_N];

/* R[] as the host builds it, up to the printed digits: any finite table with R[0] = 0 tests the lanes. */
static void make_recip(void)
{
    recip[0] = 0.0f;
    for (int n = 1; n < SQ_VC_RECIP_N; n++)
        recip[n] = 1.0f / (float)n;
}

static int img_value(int mode, int x, int y, int seed)
{
    switch (mode) {
    case 0: /* flat blocks of a few values */
        return (((x / 7) * 31 + (y / 5) * 17 + seed) % 9) * 113 % 1025;
    case 1:
        return ck_irand(0, 1024);
    case 2: /* the range's ends */
        return ck_chance(50) ? 1024 : ck_irand(0, 2);
    case 3: /* flat blocks with some noise */
        return ck_chance(10) ? ck_irand(0, 1024) : ((x / 16 + y / 3 + seed) % 4) * 40 + 200;
    default: /* long bands of near values (a gradient's contours: long runs of one bin) */
        return ((x / 45 + y / 6 + seed) % 5) + 500;
    }
}

static uint8_t mask_value(int mode, int x, int y)
{
    switch (mode) {
    case 0:
        return 1;
    case 1:
        return (uint8_t)ck_chance(15);
    case 2:
        return (uint8_t)(((x / 9) + (y / 4)) & 1);
    default: /* any byte counts as set */
        return (uint8_t)(ck_chance(50) ? ck_irand(1, 255) : 0);
    }
}

/* n counters with the slack hist_move may rewrite (cpu/dsp.h), random there. */
static uint16_t *hist_new(size_t n)
{
    uint16_t *h = malloc((n + 2 * SQ_VC_HIST_SLACK) * sizeof(*h));
    for (size_t k = 0; k < n + 2 * SQ_VC_HIST_SLACK; k++)
        h[k] = (uint16_t)ck_rand();
    return h + SQ_VC_HIST_SLACK;
}

static void vc_case_new(VcCase *c)
{
    memset(c, 0, sizeof(*c));
    c->w = ck_chance(20) ? ck_irand(1, 20) : ck_chance(10) ? ck_irand(300, 1200) : ck_irand(1, 300);
    c->h = ck_irand(1, 40);
    c->pad = ck_chance(50) ? ck_irand(0, 31) : ck_irand(0, 8);
    SqVcParams *p = &c->p;
    p->nd = 1 << ck_irand(0, 5);
    p->ws = 2 * c->pad + 1;
    p->vlt_luma = ck_chance(30) ? 0 : ck_irand(0, 300);
    const int increasing = ck_chance(70);
    for (int d = 0; d < p->nd; d++) {
        p->tvi[d] = increasing ? 300 + 20 * d + ck_irand(0, 400) : ck_irand(0, 1100);
        p->weight[d] = ck_irand(1, 9);
    }
    sq_vc_band(p, &c->lo, &c->hi);
    if (ck_chance(30)) { /* any band, the whole range included */
        c->lo = ck_irand(0, 1024);
        c->hi = ck_irand(c->lo, 1024);
    }
    sq_vc_first_table(p, c->first);
    const int n = c->w * c->h, im = ck_irand(0, 4), mm = ck_irand(0, 3), seed = ck_irand(0, 99);
    c->img = malloc((size_t)n * sizeof(*c->img));
    c->mask = malloc((size_t)n);
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < c->w; x++) {
            c->img[y * c->w + x] = (uint16_t)img_value(im, x, y, seed);
            c->mask[y * c->w + x] = mask_value(mm, x, y);
        }
    c->nhist = (size_t)sq_vc_sizes(c->w, c->h, p->nd).hist;
    c->hist = hist_new(c->nhist);
    c->add = ck_irand(-2, c->h + 1);
    c->rem = ck_chance(80) ? c->add - 2 * c->pad - 1 : ck_irand(-2, c->h + 1);
    c->i = ck_irand(0, c->h - 1);
}

static void vc_case_free(VcCase *c)
{
    free(c->img);
    free(c->mask);
    free(c->hist - SQ_VC_HIST_SLACK);
}

/* Random counters (below half of R[]: p0 + pm stays inside it). */
static void hist_random(VcCase *c, uint16_t *hist)
{
    for (size_t k = 0; k < c->nhist; k++)
        hist[k] = (uint16_t)(ck_chance(60) ? 0 : ck_irand(0, SQ_VC_RECIP_N / 2 - 1));
}

/* The histograms of row c->i's window, as the frame builds them (C slot). */
static void hist_window(const SqDsp *ref, VcCase *c)
{
    memset(c->hist, 0, c->nhist * sizeof(*c->hist));
    for (int r = c->i - c->pad; r <= c->i + c->pad; r++)
        ref->vc_hist_move(c->img, c->mask, c->w, c->h, r, -1, c->pad, c->p.nd, c->lo, c->hi,
                          c->hist);
}

typedef void (*HistFn)(const uint16_t *, const uint8_t *, int, int, int, int, int, int, int, int,
                       uint16_t *);
typedef void (*CvalFn)(const uint16_t *, const uint8_t *, const uint16_t *, int, int,
                       const uint8_t *, const SqVcParams *, const float *, float *);

/* One hist_move case through f and g: 1 where the counters differ. */
static int hist_case(HistFn f, HistFn g, VcCase *c)
{
    const size_t all = c->nhist + 2 * SQ_VC_HIST_SLACK;
    uint16_t *a = hist_new(c->nhist), *b = hist_new(c->nhist);
    hist_random(c, a);
    memcpy(b - SQ_VC_HIST_SLACK, a - SQ_VC_HIST_SLACK, all * sizeof(*a));
    f(c->img, c->mask, c->w, c->h, c->add, c->rem, c->pad, c->p.nd, c->lo, c->hi, a);
    g(c->img, c->mask, c->w, c->h, c->add, c->rem, c->pad, c->p.nd, c->lo, c->hi, b);
    /* the slack too: it must come back unchanged */
    const int bad = memcmp(a - SQ_VC_HIST_SLACK, b - SQ_VC_HIST_SLACK, all * sizeof(*a)) != 0;
    free(a - SQ_VC_HIST_SLACK);
    free(b - SQ_VC_HIST_SLACK);
    return bad;
}

/* One cvalue_row case through f and g: 1 where the c-values differ. */
static int cval_case(const SqDsp *ref, CvalFn f, CvalFn g, VcCase *c)
{
    if (ck_chance(70))
        hist_window(ref, c);
    else
        hist_random(c, c->hist);
    const size_t n = (size_t)c->w * c->h;
    float *a = calloc(n, sizeof(float)), *b = calloc(n, sizeof(float));
    f(c->img, c->mask, c->hist, c->w, c->i, c->first, &c->p, recip, a);
    g(c->img, c->mask, c->hist, c->w, c->i, c->first, &c->p, recip, b);
    const int bad = memcmp(a, b, n * sizeof(float)) != 0;
    free(a);
    free(b);
    return bad;
}

/* Wrong kernels: the band one value short; the last contrast's term never counting. */
static void hist_mutant(const uint16_t *img, const uint8_t *mask, int w, int h, int add, int rem,
                        int pad, int nd, int lo, int hi, uint16_t *hist)
{
    sq_vc_hist_move(img, mask, w, h, add, rem, pad, nd, lo, hi - 1, hist);
}

static void cval_mutant(const uint16_t *img, const uint8_t *mask, const uint16_t *hist, int w,
                        int i, const uint8_t *first, const SqVcParams *p, const float *r, float *c)
{
    SqVcParams q = *p;
    uint8_t f2[1025];
    q.tvi[q.nd - 1] = -1;
    sq_vc_first_table(&q, f2);
    (void)first;
    sq_vc_cvalue_row(img, mask, hist, w, i, f2, &q, r, c);
}

static void check_level(const CkCtx *ctx, const CkLevel *l)
{
    ck_begin("vc_hist_move", l->name);
    for (int n = 0; n < NCASES; n++) {
        VcCase c;
        vc_case_new(&c);
        if (hist_case(ctx->ref.vc_hist_move, l->dsp.vc_hist_move, &c))
            ck_fail("%dx%d pad %d nd %d band [%d, %d] rows +%d -%d", c.w, c.h, c.pad, c.p.nd,
                    c.lo, c.hi, c.add, c.rem);
        vc_case_free(&c);
    }
    ck_end();
    ck_begin("vc_cvalue_row", l->name);
    for (int n = 0; n < NCASES; n++) {
        VcCase c;
        vc_case_new(&c);
        if (cval_case(&ctx->ref, ctx->ref.vc_cvalue_row, l->dsp.vc_cvalue_row, &c))
            ck_fail("%dx%d row %d pad %d nd %d vlt %d", c.w, c.h, c.i, c.pad, c.p.nd,
                    c.p.vlt_luma);
        vc_case_free(&c);
    }
    ck_end();
}

/* The comparisons must catch a wrong kernel in some of their cases. */
static void check_mutants(const CkCtx *ctx)
{
    ck_begin("vc_mutants", "c");
    int hist_found = 0, cval_found = 0;
    for (int n = 0; n < NCASES; n++) {
        VcCase c;
        vc_case_new(&c);
        hist_found += hist_case(ctx->ref.vc_hist_move, hist_mutant, &c);
        vc_case_free(&c);
        vc_case_new(&c);
        cval_found += cval_case(&ctx->ref, ctx->ref.vc_cvalue_row, cval_mutant, &c);
        vc_case_free(&c);
    }
    if (!hist_found)
        ck_fail("a hist_move with the band one short passed all %d cases", NCASES);
    if (!cval_found)
        ck_fail("a cvalue_row without its last term passed all %d cases", NCASES);
    ck_end();
}

typedef struct RowFns {
    void (*dither)(uint16_t *, int, int, int);
    void (*zero)(const uint16_t *, int, int, int, uint8_t *);
    void (*mask)(const uint16_t *, int, int, int, uint8_t *);
    void (*colsum)(const uint8_t *, const uint8_t *, int, uint16_t *);
    int (*count)(const float *, int, uint32_t *, uint32_t *);
    int (*sum)(const float *, int, int, int, int64_t *, uint32_t *);
    void (*mode_h)(const uint16_t *, int, uint16_t *);
    void (*mode_v)(const uint16_t *, const uint16_t *, const uint16_t *, int, uint16_t *);
    void (*decimate)(uint16_t *, uint8_t *, int, int, int);
} RowFns;

/* The mode filter's two row slots on rows of the case's image: a bit per slot that differs. */
static int mode_case(const RowFns *f, const RowFns *g, const VcCase *c)
{
    const int w = c->w, i = c->i;
    const uint16_t *b = c->img + (int64_t)i * w;
    const uint16_t *a = i > 0 ? b - w : b, *d = i + 1 < c->h ? b + w : b;
    uint16_t *x = malloc((size_t)w * 2), *y = malloc((size_t)w * 2);
    f->mode_h(b, w, x);
    g->mode_h(b, w, y);
    int bad = memcmp(x, y, (size_t)w * 2) != 0;
    f->mode_v(a, b, d, w, x);
    g->mode_v(a, b, d, w, y);
    bad |= (memcmp(x, y, (size_t)w * 2) != 0) << 1;
    free(x);
    free(y);
    return bad;
}

/* The three row slots on one case: a bit per slot whose outputs differ. */
static int rows_case(const RowFns *f, const RowFns *g, VcCase *c)
{
    const size_t n = (size_t)c->w * c->h;
    uint16_t *ia = malloc(n * 2), *ib = malloc(n * 2), *cs = malloc((size_t)c->w * 2);
    uint8_t *za = calloc(n, 1), *zb = calloc(n, 1);
    memcpy(ia, c->img, n * 2);
    memcpy(ib, c->img, n * 2);
    f->dither(ia, c->w, c->h, c->i);
    g->dither(ib, c->w, c->h, c->i);
    int bad = memcmp(ia, ib, n * 2) != 0;
    f->zero(c->img, c->w, c->h, c->i, za);
    g->zero(c->img, c->w, c->h, c->i, zb);
    bad |= (memcmp(za, zb, n) != 0) << 1;
    for (int j = 0; j < c->w; j++)
        cs[j] = (uint16_t)(ck_chance(50) ? 7 * ck_chance(50) : ck_irand(0, 7));
    const int mi = ck_chance(50) ? ck_irand(-3, 52) : sq_vc_mask_index(c->w * 64, c->h * 64);
    f->mask(cs, c->w, c->i, mi, za);
    g->mask(cs, c->w, c->i, mi, zb);
    bad |= (memcmp(za, zb, n) != 0) << 2;
    /* column sums 0..7 and their wrap, rows of Z (0 or 1) */
    uint16_t *cs2 = malloc((size_t)c->w * 2);
    for (int j = 0; j < c->w; j++) {
        za[j] = (uint8_t)ck_chance(50);
        zb[j] = (uint8_t)ck_chance(50);
    }
    memcpy(cs2, cs, (size_t)c->w * 2);
    f->colsum(za, zb, c->w, cs);
    g->colsum(za, zb, c->w, cs2);
    bad |= (memcmp(cs, cs2, (size_t)c->w * 2) != 0) << 5;
    free(cs2);
    /* high_res_speedup's decimation of a row in place: row 0 overlaps what it reads */
    uint8_t *ma = malloc(n), *mb = malloc(n);
    memcpy(ia, c->img, n * 2);
    memcpy(ib, c->img, n * 2);
    memcpy(ma, c->mask, n);
    memcpy(mb, c->mask, n);
    const int di = ck_chance(30) ? 0 : ck_irand(0, (c->h - 1) / 2);
    f->decimate(ia, ma, c->w, (c->w + 1) >> 1, di);
    g->decimate(ib, mb, c->w, (c->w + 1) >> 1, di);
    bad |= (memcmp(ia, ib, n * 2) != 0 || memcmp(ma, mb, n) != 0) << 6;
    free(ma);
    free(mb);
    free(ia);
    free(ib);
    free(cs);
    free(za);
    free(zb);
    return bad;
}

/* c-values: mostly 0, runs of one value, normal and subnormal values, a non-finite one. */
static void pool_values(float *v, int n)
{
    const int zeros = ck_irand(0, 100), sub = ck_chance(20), inf = ck_chance(10);
    uint32_t prev = 0x3f800000u;
    for (int i = 0; i < n; i++) {
        uint32_t b = 0;
        if (!ck_chance(zeros))
            b = ck_chance(30) ? prev
                : sub      ? (uint32_t)ck_irand(1, 0x7fffff)
                           : (uint32_t)ck_irand(0x30000000, 0x46000000);
        if (inf && ck_chance(2))
            b = ck_chance(50) ? 0x7f800000u : 0x7fc00000u;
        prev = b ? b : prev;
        memcpy(&v[i], &b, 4);
    }
}

/* Both passes on one array: a bit per slot whose results differ. */
static int pool_case(const RowFns *f, const RowFns *g, int n)
{
    float *v = malloc(((size_t)n + 1) * sizeof(float));
    uint32_t *ca = calloc(65536, 4), *cb = calloc(65536, 4), za = 3, zb = 3;
    pool_values(v, n);
    const int ra = f->count(v, n, ca, &za), rb = g->count(v, n, cb, &zb);
    int bad = ra != rb || (ra && (za != zb || memcmp(ca, cb, 65536 * 4)));
    uint32_t b = 0;
    if (n)
        memcpy(&b, &v[ck_irand(0, n - 1)], 4);
    int hi = ck_chance(30) ? 0 : (int)(b >> 16) & 0x7fff;
    int emin = ck_chance(50) ? -149 : ((hi >> 7) ? (hi >> 7) : 1) - 150;
    if (ck_chance(30)) {
        /* every shift in range and a few values near 2^52 units: the exact sum near 2^53, and
         * whether it stays below decides */
        const int be0 = ck_irand(1, 200), big = ck_irand(0, 3);
        for (int i = 0; i < n; i++) {
            const uint32_t e = (uint32_t)(be0 + ck_irand(0, 12));
            const uint32_t nb = ck_chance(40) ? 0 : e << 23 | (uint32_t)ck_irand(0, 0x7fffff);
            memcpy(&v[i], &nb, 4);
        }
        for (int k = 0; n && k < big; k++) {
            const uint32_t nb = (uint32_t)(be0 + 29) << 23 | (uint32_t)ck_irand(0, 0x7fffff);
            memcpy(&v[ck_irand(0, n - 1)], &nb, 4);
        }
        hi = 0;
        emin = be0 - 150;
    }
    int64_t sa = ck_irand(0, 1000), sb = sa;
    memset(ca, 0, 65536 * 4);
    memset(cb, 0, 65536 * 4);
    const int qa = f->sum(v, n, hi, emin, &sa, ca), qb = g->sum(v, n, hi, emin, &sb, cb);
    bad |= (qa != qb || (qa && (sa != sb || memcmp(ca, cb, 65536 * 4)))) << 1;
    free(v);
    free(ca);
    free(cb);
    return bad;
}

static RowFns row_fns(const SqDsp *d)
{
    const RowFns r = { d->vc_dither_row, d->vc_zero_row, d->vc_mask_row, d->vc_colsum_move, d->vc_count_hi,
                       d->vc_sum_hi, d->vc_mode_h, d->vc_mode_v, d->vc_decimate_row };
    return r;
}

/* Wrong rows: a dithered tail, the last row's rule everywhere, the mask index one up; pass 1
 * missing the last value, pass 2 a digit up. */
static void dither_mutant(uint16_t *img, int w, int h, int i)
{
    sq_vc_dither_row(img, w, h, i);
    if (w > 2)
        img[(int64_t)i * w + w - 2] = img[(int64_t)i * w + w - 1];
}

static void zero_mutant(const uint16_t *img, int w, int h, int i, uint8_t *zero)
{
    (void)h;
    sq_vc_zero_row(img, w, i + 1, i, zero);
}

static void mask_mutant(const uint16_t *colsum, int w, int i, int mi, uint8_t *mask)
{
    sq_vc_mask_row(colsum, w, i, mi + 1, mask);
}

static void colsum_mutant(const uint8_t *add, const uint8_t *rem, int w, uint16_t *colsum)
{
    for (int j = 0; j < w - 1; j++)
        colsum[j] = (uint16_t)(colsum[j] + add[j] - rem[j]);
}

static int count_mutant(const float *c, int n, uint32_t *cnt, uint32_t *zeros)
{
    return sq_vc_count_hi(c, 0, n > 0 ? n - 1 : 0, cnt, zeros);
}

static int sum_mutant(const float *c, int n, int hi, int emin, int64_t *sum, uint32_t *cnt)
{
    return sq_vc_sum_hi(c, 0, n, hi + 1, emin, sum, cnt);
}

/* Wrong mode rows: the next to last column, the last column unfiltered. */
static void mode_h_mutant(const uint16_t *src, int w, uint16_t *dst)
{
    sq_vc_mode_h(src, w, dst);
    if (w > 2)
        dst[w - 2] = src[w - 2];
}

static void mode_v_mutant(const uint16_t *a, const uint16_t *b, const uint16_t *c, int w,
                          uint16_t *out)
{
    for (int j = 0; j < w; j++)
        out[j] = j == w - 1 ? b[j] : sq_vc_mode3(a[j], b[j], c[j]);
}

/* A wrong decimation: the row's last sample left where it was. */
static void decimate_mutant(uint16_t *img, uint8_t *mask, int pw, int cw, int i)
{
    for (int j = 0; j < cw - 1; j++)
        sq_vc_decimate_at(img, mask, pw, cw, i, j, img, mask);
}

static int pool_n(void)
{
    return ck_chance(20) ? ck_irand(0, 20) : ck_irand(0, 600);
}

static void check_rows(const CkCtx *ctx, const CkLevel *l)
{
    static const char *const names[] = { "vc_dither_row", "vc_zero_row", "vc_mask_row",
                                         "vc_mode_h", "vc_mode_v", "vc_colsum_move",
                                         "vc_decimate_row" };
    const RowFns f = row_fns(&ctx->ref), g = l ? row_fns(&l->dsp)
                                               : (RowFns){ dither_mutant, zero_mutant, mask_mutant, colsum_mutant,
                                                           count_mutant, sum_mutant,
                                                           mode_h_mutant, mode_v_mutant,
                                                           decimate_mutant };
    int found[9] = { 0 };
    for (int n = 0; n < NCASES; n++) {
        VcCase c;
        vc_case_new(&c);
        const int bad = rows_case(&f, &g, &c) | mode_case(&f, &g, &c) << 3;
        for (int k = 0; k < 7; k++)
            if (bad >> k & 1) {
                found[k]++;
                if (l)
                    ck_fail("%s: %dx%d row %d", names[k], c.w, c.h, c.i);
            }
        vc_case_free(&c);
        const int np = pool_n(), pb = pool_case(&f, &g, np);
        found[7] += pb & 1;
        found[8] += pb >> 1 & 1;
        if (l && pb)
            ck_fail("pooling passes (%d) on %d values", pb, np);
    }
    for (int k = 0; !l && k < 9; k++)
        if (!found[k])
            ck_fail("wrong row kernel %d passed all %d cases", k, NCASES);
}

typedef void (*ConvertFn)(const uint8_t *src, int64_t stride, int acc, int bpc, int w, int i,
                          uint16_t *img);

/* Wrong conversion: the last column left as it was. */
static void convert_mutant(const uint8_t *src, int64_t stride, int acc, int bpc, int w, int i,
                           uint16_t *img)
{
    const uint16_t keep = img[(int64_t)i * w + w - 1];
    sq_vc_convert_row(src, stride, acc, bpc, w, i, img);
    img[(int64_t)i * w + w - 1] = keep;
}

/*
 * vc_convert_row against the C slot on random rows: 8-bit and 16-bit
 * containers (plain, MSB-aligned), every depth, any width, the output
 * around the row left as it was. Returns how many cases differed.
 */
static int check_convert(ConvertFn f, ConvertFn g)
{
    int bad = 0;
    for (int n = 0; n < NCASES; n++) {
        const int w = ck_chance(30) ? ck_irand(1, 70) : ck_irand(71, 2000), h = 3,
                  i = ck_irand(0, h - 1), bpc = ck_chance(50) ? 8 : ck_irand(8, 16);
        const int b16 = bpc > 8 || ck_chance(10);
        const int acc = b16 ? SQ_ACC_16 | (ck_chance(30) ? SQ_ACC_SHIFT(16 - bpc) : 0) : 0;
        const int64_t stride = (int64_t)w * (b16 ? 2 : 1) + ck_irand(0, 64);
        uint8_t *src = malloc((size_t)(stride * h));
        uint16_t *a = malloc((size_t)w * h * 2), *b = malloc((size_t)w * h * 2);
        if (!src || !a || !b) {
            ck_fail("out of memory");
            free(src), free(a), free(b);
            return bad + 1;
        }
        for (int64_t k = 0; k < stride * h; k++)
            src[k] = (uint8_t)ck_rand();
        for (int k = 0; k < w * h; k++)
            a[k] = b[k] = (uint16_t)ck_rand();
        f(src, stride, acc, bpc, w, i, a);
        g(src, stride, acc, bpc, w, i, b);
        bad += memcmp(a, b, (size_t)w * h * 2) != 0;
        free(src);
        free(a);
        free(b);
    }
    return bad;
}

void ck_cambi(const CkCtx *c)
{
    make_recip();
    if (!ck_wanted(c, "vc_"))
        return;
    check_mutants(c);
    ck_begin("vc_row_mutants", "c");
    check_rows(c, NULL);
    if (!check_convert(c->ref.vc_convert_row, convert_mutant))
        ck_fail("wrong vc_convert_row passed all %d cases", NCASES);
    ck_end();
    for (int i = 0; i < c->nlvl; i++) {
        check_level(c, &c->lvl[i]);
        ck_begin("vc_rows_pool", c->lvl[i].name);
        check_rows(c, &c->lvl[i]);
        const int cb = check_convert(c->ref.vc_convert_row, c->lvl[i].dsp.vc_convert_row);
        if (cb)
            ck_fail("vc_convert_row: %d of %d cases differ", cb, NCASES);
        ck_end();
    }
}
