/*
 * The VIF rows (vif_vrow, vif_hrow, vif_sub_row) and logs (vif_log, every
 * table index) against the C table's (the
 * math's sq_vi_* rows) on random planes: widths 1..300 (tails of every
 * length, multiples of 64 with none), every scale, depths 8..16 at scale 0
 * and 8.8 values after it, fills at the range's edges (0 against the
 * maximum, checkerboards: the largest second moments and sigmas) and
 * random statistics rows with any u32 values for the horizontal pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkkernel.h"
#include "feature/vif.h"
#include "math/vmaf_vif.h"

#define NCASES 300
/* columns around a row buffer: the padding and a vector's overread */
#define RPAD (SQ_VI_PAD + 64)

static int rand_w(void)
{
    return ck_chance(25) ? ck_irand(1, 16) : ck_chance(25) ? 64 * ck_irand(1, 4) : ck_irand(17, 300);
}

static uint16_t fill(int mode, int side, int x, int y, uint32_t max)
{
    switch (mode) {
    case 0:
        return (uint16_t)(ck_rand() % (max + 1));
    case 1:
        return (uint16_t)(side ? 0 : max);
    case 2:
        return (uint16_t)(((x ^ y ^ side) & 1) ? max : 0);
    case 3:
        return (uint16_t)(((x ^ y) & 1) ? max : 0);
    default:
        return (uint16_t)(ck_chance(30) ? max : ck_chance(30) ? 0 : ck_rand() % (max + 1));
    }
}

/* Two planes of w x h u16 (stride w + a random margin), filled by one mode. */
static uint16_t *planes(int w, int h, uint32_t max, ptrdiff_t *stride, uint16_t **y)
{
    const int mode = ck_irand(0, 4);
    *stride = w + ck_irand(0, 20);
    uint16_t *x = calloc((size_t)*stride * (size_t)h * 2 + 64, sizeof(uint16_t));
    *y = x + (size_t)*stride * (size_t)h;
    for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++) {
            x[(size_t)r * *stride + c] = fill(mode, 0, c, r, max);
            (*y)[(size_t)r * *stride + c] = fill(mode, 1, c, r, max);
        }
    return x;
}

static void rows_new(uint32_t *buf, uint32_t *t[5], int w)
{
    for (int k = 0; k < 5; k++)
        t[k] = buf + (size_t)k * (w + 2 * RPAD) + RPAD;
}

static void check_vrow(const CkCtx *c, const CkLevel *l)
{
    ck_begin("vif_vrow", l->name);
    for (int n = 0; n < NCASES; n++) {
        const int s = ck_irand(0, 3), r = sq_vi_half(s), w = rand_w(), h = ck_irand(r + 1, 40);
        const int bpc = ck_chance(40) ? 8 : ck_irand(9, 16);
        /* now and then samples above the depth (not checked: libvmaf computes with them) */
        const uint32_t max = s || (bpc > 8 && ck_chance(15)) ? 65535u : (1u << bpc) - 1;
        ptrdiff_t st;
        uint16_t *y, *x = planes(w, h, max, &st, &y);
        const int i = ck_irand(0, h - 1);
        uint32_t *ba = calloc((size_t)5 * (w + 2 * RPAD), 4), *bb = calloc((size_t)5 * (w + 2 * RPAD), 4);
        uint32_t *ta[5], *tb[5];
        rows_new(ba, ta, w);
        rows_new(bb, tb, w);
        c->ref.vif_vrow(x, st, y, st, w, h, s, bpc, i, ta);
        l->dsp.vif_vrow(x, st, y, st, w, h, s, bpc, i, tb);
        for (int k = 0; k < 5; k++)
            if (memcmp(ta[k], tb[k], (size_t)w * 4)) {
                ck_fail("%dx%d scale %d bpc %d row %d: statistics row %d differs", w, h, s, bpc, i, k);
                break;
            }
        free(ba);
        free(bb);
        free(x);
    }
    ck_end();
}

static uint16_t *real_table(void)
{
    uint16_t *lt = calloc(SQ_VI_LT_ALLOC, sizeof *lt);
    sq_vif_log_table(lt);
    return lt;
}

/*
 * vif_log against the table for every index (the top 15 bits below the
 * leading one) at every exponent the terms reach (2^16 .. 2^52), the bits
 * below the index random, in a random order of lanes.
 */
static void check_log(const CkCtx *c, const CkLevel *l)
{
    ck_begin("vif_log", l->name);
    uint16_t *lt = real_table();
    enum { N = SQ_VI_LT_N };
    uint64_t *v = malloc(N * sizeof *v);
    int64_t *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    for (int e = 16; e <= 52; e++) {
        for (int i = 0; i < N; i++) {
            const uint64_t low = ((uint64_t)ck_rand() << 32 | ck_rand()) & ((1ull << (e - 15)) - 1);
            v[i] = ((uint64_t)(N + i) << (e - 15)) | low;
        }
        for (int i = N - 1; i > 0; i--) {
            const int j = (int)(ck_rand() % (uint32_t)(i + 1));
            const uint64_t t = v[i];
            v[i] = v[j];
            v[j] = t;
        }
        const int n = N - ck_irand(0, 7); /* a tail the vectors leave */
        c->ref.vif_log(v, n, lt, a);
        l->dsp.vif_log(v, n, lt, b);
        for (int i = 0; i < n; i++)
            if (a[i] != b[i]) {
                ck_fail("log of %llu: %lld, want %lld", (unsigned long long)v[i], (long long)b[i],
                        (long long)a[i]);
                break;
            }
    }
    free(v);
    free(a);
    free(b);
    free(lt);
    ck_end();
}

static void check_hrow(const CkCtx *c, const CkLevel *l)
{
    ck_begin("vif_hrow", l->name);
    /* the real table: a level may compute its entries instead of reading them (vif_log) */
    uint16_t *lt = real_table();
    for (int n = 0; n < NCASES; n++) {
        const int s = ck_irand(0, 3), r = sq_vi_half(s), w = rand_w();
        const int bpc = ck_chance(40) ? 8 : ck_irand(9, 16);
        uint32_t *buf = calloc((size_t)5 * (w + 2 * RPAD), 4), *t[5];
        rows_new(buf, t, w);
        if (ck_chance(50) && w > r) {
            /* realistic rows: a statistics row of random planes */
            const int h = ck_irand(r + 1, 20);
            const uint32_t max = s ? 65535u : (1u << bpc) - 1;
            ptrdiff_t st;
            uint16_t *y, *x = planes(w, h, max, &st, &y);
            c->ref.vif_vrow(x, st, y, st, w, h, s, bpc, ck_irand(0, h - 1), t);
            for (int k = 0; k < 5; k++)
                sq_vi_pad(t[k], w, r);
            free(x);
        } else {
            /* any values: means up to 2^16 - 1, moments any u32 */
            for (int k = 0; k < 5; k++)
                for (int j = -r; j < w + r; j++)
                    t[k][j] = k < 2 ? ck_rand() % 65536u : ck_chance(20) ? 0xffffffffu : ck_rand();
        }
        const double egl = ck_chance(50) ? 100.0 : (double)ck_frand(1.0f, 100.0f);
        int64_t a[4] = { 5, -7, 11, 13 }, b[4] = { 5, -7, 11, 13 };
        c->ref.vif_hrow((const uint32_t *const *)t, w, s, egl, lt, a);
        l->dsp.vif_hrow((const uint32_t *const *)t, w, s, egl, lt, b);
        if (memcmp(a, b, sizeof a))
            ck_fail("w %d scale %d egl %g: sums %lld %lld %lld %lld, want %lld %lld %lld %lld", w,
                    s, egl, (long long)b[0], (long long)b[1], (long long)b[2], (long long)b[3],
                    (long long)a[0], (long long)a[1], (long long)a[2], (long long)a[3]);
        free(buf);
    }
    free(lt);
    ck_end();
}

static void check_sub(const CkCtx *c, const CkLevel *l)
{
    ck_begin("vif_sub_row", l->name);
    for (int n = 0; n < NCASES; n++) {
        const int s = ck_irand(1, 3), r = sq_vi_half(s), w = rand_w(), h = ck_irand(r + 1, 40);
        const int bpc = ck_chance(40) ? 8 : ck_irand(9, 16);
        const uint32_t max = s == 1 && (bpc == 8 || ck_chance(85)) ? (1u << bpc) - 1 : 65535u;
        ptrdiff_t st;
        uint16_t *y, *x = planes(w, h, max, &st, &y);
        const int i = ck_irand(0, h / 2 > 0 ? h / 2 - 1 : 0);
        uint32_t *ta = calloc((size_t)w + 2 * RPAD, 4), *tb = calloc((size_t)w + 2 * RPAD, 4);
        uint16_t *oa = calloc((size_t)w / 2 + 64, 2), *ob = calloc((size_t)w / 2 + 64, 2);
        c->ref.vif_sub_row(x, st, w, h, s, bpc, i, ta + RPAD, oa);
        l->dsp.vif_sub_row(x, st, w, h, s, bpc, i, tb + RPAD, ob);
        if (memcmp(oa, ob, (size_t)(w / 2) * 2))
            ck_fail("%dx%d scale %d bpc %d row %d: the decimated row differs", w, h, s, bpc, i);
        free(ta);
        free(tb);
        free(oa);
        free(ob);
        free(x);
    }
    ck_end();
}

typedef struct VArgs {
    const SqDsp *d;
    const uint16_t *x, *y, *lt;
    uint32_t *t[5], *sub;
    uint16_t *out;
    int w, h, s, row;
} VArgs;

static void bench_vrow(void *arg)
{
    VArgs *a = arg;
    a->d->vif_vrow(a->x, a->w, a->y, a->w, a->w, a->h, a->s, 8, a->row, a->t);
    a->row = (a->row + 1) % a->h;
}

static void bench_hrow(void *arg)
{
    VArgs *a = arg;
    int64_t acc[4] = { 0, 0, 0, 0 };
    a->d->vif_hrow((const uint32_t *const *)a->t, a->w, a->s, 100.0, a->lt, acc);
}

static void bench_sub(void *arg)
{
    VArgs *a = arg;
    a->d->vif_sub_row(a->x, a->w, a->w, a->h, 1, 8, a->row, a->sub, a->out);
    a->row = (a->row + 1) % (a->h / 2);
}

/*
 * One 1920-column row a call at 8 bits: scale 0's vertical and horizontal
 * passes (a distorted side of the reference plus noise, so sigmas are
 * mixed: flat and textured vectors) and the decimation into scale 1.
 */
static void bench_level(const CkCtx *c, const CkLevel *l)
{
    const int w = 1920, h = 64;
    uint16_t *x = malloc((size_t)w * h * 2 * sizeof *x), *y = x + (size_t)w * h;
    for (int r = 0; r < h; r++)
        for (int q = 0; q < w; q++) {
            const int v = (q / 8 + r / 4) % 200 + (q > w / 2 ? (int)(ck_rand() % 40) : 0);
            x[(size_t)r * w + q] = (uint16_t)v;
            y[(size_t)r * w + q] = (uint16_t)(v + (int)(ck_rand() % 9) - 4 < 0 ? 0 : v + (int)(ck_rand() % 5));
        }
    uint16_t *lt = real_table(), *out = calloc((size_t)w, 2);
    uint32_t *buf = calloc((size_t)5 * (w + 2 * RPAD), 4), *sub = calloc((size_t)w + 2 * RPAD, 4);
    VArgs a = { .x = x, .y = y, .lt = lt, .sub = sub + RPAD, .out = out, .w = w, .h = h };
    rows_new(buf, a.t, w);
    c->ref.vif_vrow(x, w, y, w, w, h, 0, 8, h / 2, a.t);
    for (int k = 0; k < 5; k++)
        sq_vi_pad(a.t[k], w, sq_vi_half(0));
    VArgs ac = a, ao = a;
    ac.d = &c->ref;
    ao.d = &l->dsp;
    ck_bench_row("vif_vrow (1920, 8-bit, scale 0)", ck_time(bench_vrow, &ac), l->name,
                 ck_time(bench_vrow, &ao));
    ck_bench_row("vif_hrow (1920, scale 0)", ck_time(bench_hrow, &ac), l->name,
                 ck_time(bench_hrow, &ao));
    ck_bench_row("vif_sub_row (1920, 8-bit)", ck_time(bench_sub, &ac), l->name,
                 ck_time(bench_sub, &ao));
    free(buf);
    free(sub);
    free(out);
    free(lt);
    free(x);
}

void ck_vif(const CkCtx *c)
{
    for (int i = 0; i < c->nlvl; i++) {
        if (ck_wanted(c, "vif_vrow"))
            check_vrow(c, &c->lvl[i]);
        if (ck_wanted(c, "vif_log"))
            check_log(c, &c->lvl[i]);
        if (ck_wanted(c, "vif_hrow"))
            check_hrow(c, &c->lvl[i]);
        if (ck_wanted(c, "vif_sub_row"))
            check_sub(c, &c->lvl[i]);
        if (c->bench && (ck_wanted(c, "vif_vrow") || ck_wanted(c, "vif_hrow")))
            bench_level(c, &c->lvl[i]);
    }
}
