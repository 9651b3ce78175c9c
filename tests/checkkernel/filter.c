/* Filters: vertical passes on raw 8/16-bit (and temporal differences) and
 * float images, the decimated horizontal pass and the local mean. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkkernel.h"
#include "math/filter.h"
#include "math/prelude.h"

#define NCASES 300
#define GUARD 64

enum { FILL_RANDOM, FILL_ZERO, FILL_MAX, FILL_CONST, FILL_STRIPES, FILL_N };

static uint32_t sample(int mode, uint32_t maxv, size_t i, uint32_t cst)
{
    switch (mode) {
    case FILL_ZERO: return 0;
    case FILL_MAX: return maxv;
    case FILL_CONST: return cst;
    case FILL_STRIPES: return (i / 3) & 1 ? maxv : 0;
    default: return ck_rand() % (maxv + 1);
    }
}

/* h rows of stride bytes (each w samples then padding); 16-bit samples are
 * written with memcpy as rows may start at odd addresses. */
static void fill_plane(uint8_t *buf, int w, int h, ptrdiff_t stride, int hbd, uint32_t maxv)
{
    const int mode = ck_irand(0, FILL_N - 1);
    const uint32_t cst = ck_rand() % (maxv + 1);
    for (int y = 0; y < h; y++) {
        uint8_t *row = buf + (size_t)stride * y;
        for (int x = 0; x < (int)stride / (hbd ? 2 : 1); x++) {
            /* Padding past w holds large values: the range check must not read it. */
            const uint32_t v = x < w ? sample(mode, maxv, (size_t)y * w + x, cst)
                                     : hbd ? 0xff00u | ck_rand() : ck_rand() & maxv;
            if (hbd) {
                const uint16_t v16 = (uint16_t)v;
                memcpy(row + 2 * (size_t)x, &v16, 2);
            } else {
                row[x] = (uint8_t)v;
            }
        }
    }
}

static void fill_float(float *f, size_t n)
{
    const int mode = ck_irand(0, 3);
    const float cst = ck_frand(-200.0f, 200.0f);
    for (size_t i = 0; i < n; i++)
        f[i] = mode == 0 ? 0.0f : mode == 1 ? cst : ck_frand(-300.0f, 300.0f);
}

static int rand_taps(int limit)
{
    int r = ck_chance(50) ? ck_irand(1, 5) : ck_irand(0, 17);
    if (r >= limit)
        r = limit - 1;
    return 2 * r + 1;
}

static void rand_g(float *g, int taps)
{
    for (int k = 0; k < taps; k++)
        g[k] = ck_chance(5) ? 0.0f : ck_frand(-0.2f, 1.0f);
}

/* Random disjoint sorted spans inside [0, w); returns their count. */
static int rand_spans(int32_t *sp, int w)
{
    const int kind = ck_irand(0, 2);
    if (kind == 0 || w < 3) {
        sp[0] = 0;
        sp[1] = w;
        return 1;
    }
    int n = 0;
    if (kind == 1) { /* decimated pattern: radius r around multiples of 16 */
        const int r = ck_irand(0, 9);
        for (int c = 0; c < w; c += 16) {
            const int a = c - r < 0 ? 0 : c - r, e = c + r + 1 > w ? w : c + r + 1;
            if (n && a <= sp[2 * n - 1])
                sp[2 * n - 1] = e;
            else {
                sp[2 * n] = a;
                sp[2 * n + 1] = e;
                n++;
            }
        }
        return n;
    }
    for (int c = ck_irand(0, 10); c < w;) {
        int e = c + ck_irand(1, 20);
        e = e > w ? w : e;
        sp[2 * n] = c;
        sp[2 * n + 1] = e;
        n++;
        c = e + ck_irand(1, 20);
    }
    return n;
}

typedef struct VCase {
    int w, h, hbd, bpc, taps, row, nspans, temporal;
    float g[SQ_MAX_TAPS], scale;
    int32_t spans[2 * 1024];
    uint8_t *cur, *prev;       /* base of row 0 (stride may be negative) */
    ptrdiff_t cs, ps;
    float *img;                /* float variant */
    ptrdiff_t fstride;
    uint8_t *mem[3];
    int msb_shift;             /* 16-bit samples shifted up by this */
    uint32_t range0[4];        /* vfilt_16bpc's range accumulators on entry */
} VCase;

static uint8_t *alloc_plane(int w, int h, int bps, ptrdiff_t *stride, uint8_t **mem, int hbd,
                            uint32_t maxv)
{
    /* 16-bit planes are 2-byte aligned (speedqa_send refuses others). */
    const int odd = 0;
    const ptrdiff_t row = (ptrdiff_t)w * bps + bps * ck_irand(0, 8) + odd;
    const size_t bytes = (size_t)row * h;
    *mem = malloc(bytes + 2 * GUARD);
    fill_plane(*mem + GUARD + odd, w, h, row, hbd, maxv);
    if (ck_chance(20)) { /* bottom-up picture */
        *stride = -row;
        return *mem + GUARD + odd + (size_t)row * (h - 1);
    }
    *stride = row;
    return *mem + GUARD + odd;
}

static void vcase_new(VCase *v, int kind)
{
    memset(v->mem, 0, sizeof(v->mem));
    v->w = ck_chance(30) ? ck_irand(1, 16) : ck_chance(50) ? ck_irand(17, 130) : ck_irand(130, 700);
    v->h = ck_chance(20) ? ck_irand(1, 8) : ck_irand(9, 120);
    v->taps = rand_taps(v->h);
    v->row = ck_chance(50) ? ck_irand(0, v->h - 1) : (ck_irand(0, v->h - 1) >> 4) << 4;
    rand_g(v->g, v->taps);
    v->nspans = rand_spans(v->spans, v->w);
    v->temporal = ck_chance(50);
    v->hbd = kind == 1;
    v->bpc = kind == 1 ? (int[]){ 9, 10, 12, 16, 16, 10 }[ck_irand(0, 5)] : 8;
    v->scale = sq_bpc_scale(v->bpc);
    /* Some 16-bit planes hold samples above the declared depth, or only
     * MSB-aligned ones: what the range outputs of vfilt_16bpc report. */
    const int wide = kind == 1 && ck_chance(30), msb = kind == 1 && !wide && ck_chance(15);
    const uint32_t maxv = wide ? 0xffffu : (1u << v->bpc) - 1;
    v->msb_shift = msb ? 16 - v->bpc : 0;
    if (kind == 2) {
        v->fstride = v->w + ck_irand(0, 5);
        v->img = malloc(sizeof(float) * (size_t)v->fstride * v->h);
        fill_float(v->img, (size_t)v->fstride * v->h);
        v->mem[2] = (uint8_t *)v->img;
        return;
    }
    const int bps = v->hbd ? 2 : 1;
    v->cur = alloc_plane(v->w, v->h, bps, &v->cs, &v->mem[0], v->hbd, maxv);
    v->prev = v->temporal ? alloc_plane(v->w, v->h, bps, &v->ps, &v->mem[1], v->hbd, maxv) : NULL;
    if (!v->temporal)
        v->ps = 0;
    for (int p = 0; p < 2 && v->msb_shift; p++)
        for (int y = 0; y < v->h && (p ? v->prev : v->cur); y++) {
            uint8_t *row = (p ? v->prev : v->cur) + (p ? v->ps : v->cs) * y;
            for (int x = 0; x < v->w; x++) {
                uint16_t s16;
                memcpy(&s16, row + 2 * x, 2);
                s16 = (uint16_t)(s16 << v->msb_shift);
                memcpy(row + 2 * x, &s16, 2);
            }
        }
    /* Accumulators start from earlier values (rows of other calls). */
    for (int i = 0; i < 4; i++)
        v->range0[i] = ck_chance(50) ? 0 : ck_chance(50) ? ck_rand() & 0xffffu : ck_rand() & 0x3ffu;
}

/* What vfilt_16bpc must fold into range: every sample of the taps rows, all w columns. */
static void range_oracle(const VCase *v, uint32_t *out)
{
    memcpy(out, v->range0, sizeof(v->range0));
    const int r = v->taps >> 1;
    for (int p = 0; p < (v->prev ? 2 : 1); p++)
        for (int k = 0; k < v->taps; k++) {
            const uint8_t *row = (p ? v->prev : v->cur) +
                                 (p ? v->ps : v->cs) * sq_mirror(v->row - r + k, v->h);
            for (int x = 0; x < v->w; x++) {
                uint16_t s16;
                memcpy(&s16, row + 2 * x, 2);
                out[2 * p] = s16 > out[2 * p] ? s16 : out[2 * p];
                out[2 * p + 1] |= s16;
            }
        }
}

static void vcase_free(VCase *v)
{
    for (int i = 0; i < 3; i++)
        free(v->mem[i]);
}

/* range: NULL, or 4 accumulators that start as v->range0. */
static void vrun(const SqDsp *d, int kind, const VCase *v, float *dst, uint32_t *range)
{
    if (range)
        memcpy(range, v->range0, sizeof(v->range0));
    if (kind == 0)
        d->vfilt_8bpc(dst, v->cur, v->cs, v->prev, v->ps, v->h, v->row, v->g, v->taps, v->spans,
                      v->nspans, v->w);
    else if (kind == 1)
        d->vfilt_16bpc(dst, v->cur, v->cs, v->prev, v->ps, v->scale, v->h, v->row, v->g, v->taps,
                       v->spans, v->nspans, v->w, range);
    else
        d->vfilt_f32(dst, v->img, v->fstride, v->h, v->row, v->g, v->taps, v->spans, v->nspans,
                     v->w);
}

static void check_vfilt(const CkCtx *c, const CkLevel *l, int kind, const char *name)
{
    ck_begin(name, l->name);
    float *a = malloc(sizeof(float) * (700 + 2 * GUARD)), *b = malloc(sizeof(float) * (700 + 2 * GUARD));
    for (int n = 0; n < NCASES; n++) {
        VCase v;
        vcase_new(&v, kind);
        for (int i = 0; i < 700 + 2 * GUARD; i++)
            a[i] = b[i] = NAN;
        /* Every other case without the range outputs: the filter must not depend on them. */
        uint32_t ra[4], rb[4], want[4];
        const int with_range = kind == 1 && n % 2 == 0;
        vrun(&c->ref, kind, &v, a + GUARD, with_range ? ra : NULL);
        vrun(&l->dsp, kind, &v, b + GUARD, with_range ? rb : NULL);
        int bad = 0;
        if (with_range) {
            range_oracle(&v, want);
            if (!v.prev) /* prev accumulators are left alone */
                want[2] = v.range0[2], want[3] = v.range0[3];
            if (memcmp(ra, want, sizeof(want)))
                bad = ck_fail("C range %u %u %u %u, want %u %u %u %u", ra[0], ra[1], ra[2], ra[3],
                              want[0], want[1], want[2], want[3]);
            else if (memcmp(rb, want, sizeof(want)))
                bad = ck_fail("range %u %u %u %u, want %u %u %u %u", rb[0], rb[1], rb[2], rb[3],
                              want[0], want[1], want[2], want[3]);
        }
        for (int s = 0; s < v.nspans && !bad; s++)
            bad = ck_cmp_f32("dst", a + GUARD + v.spans[2 * s], b + GUARD + v.spans[2 * s],
                             (size_t)(v.spans[2 * s + 1] - v.spans[2 * s]));
        if (!bad)
            bad = memcmp(b, a, GUARD * sizeof(float)) ||
                  memcmp(b + GUARD + v.w, a + GUARD + v.w, GUARD * sizeof(float))
                      ? ck_fail("write outside [0, w)") : 0;
        if (bad)
            ck_fail("w %d h %d bpc %d taps %d row %d spans %d temporal %d stride %td",
                    v.w, v.h, v.bpc, v.taps, v.row, v.nspans, v.temporal, kind == 2 ? v.fstride : v.cs);
        vcase_free(&v);
    }
    free(a);
    free(b);
    ck_end();
}

static void check_hfilt(const CkCtx *c, const CkLevel *l)
{
    ck_begin("hfilt_dec", l->name);
    for (int n = 0; n < NCASES; n++) {
        const int w = ck_chance(30) ? ck_irand(16, 200) : ck_irand(200, 2000);
        const int taps = rand_taps(w), nmax = (w + 15) >> 4;
        const int nout = ck_chance(70) ? w >> 4 : ck_irand(1, nmax);
        float g[SQ_MAX_TAPS], *src = malloc(sizeof(float) * (size_t)w);
        float *a = malloc(sizeof(float) * (size_t)(nmax + 8)), *b = malloc(sizeof(float) * (size_t)(nmax + 8));
        rand_g(g, taps);
        fill_float(src, (size_t)w);
        for (int i = 0; i < nmax + 8; i++)
            a[i] = b[i] = NAN;
        c->ref.hfilt_dec(a, src, w, g, taps, nout);
        l->dsp.hfilt_dec(b, src, w, g, taps, nout);
        if (ck_cmp_f32("dst", a, b, (size_t)nmax + 8))
            ck_fail("w %d taps %d nout %d", w, taps, nout);
        free(src);
        free(a);
        free(b);
    }
    ck_end();
}

static void check_local_mean(const CkCtx *c, const CkLevel *l)
{
    ck_begin("local_mean", l->name);
    for (int n = 0; n < NCASES; n++) {
        const int w = ck_chance(40) ? ck_irand(1, 20) : ck_irand(20, 300);
        const int taps = ck_chance(70) ? 2 * ck_irand(1, 4) + 1 : rand_taps(w);
        const int tp = 2 * (taps >> 1) < w ? taps : 1;
        float g[SQ_MAX_TAPS], *op = malloc(sizeof(float) * (size_t)w), *m = malloc(sizeof(float) * (size_t)w);
        float *a = malloc(sizeof(float) * (size_t)(w + 8)), *b = malloc(sizeof(float) * (size_t)(w + 8));
        rand_g(g, tp);
        fill_float(op, (size_t)w);
        fill_float(m, (size_t)w);
        for (int i = 0; i < w + 8; i++)
            a[i] = b[i] = NAN;
        c->ref.local_mean(a, op, m, w, g, tp);
        l->dsp.local_mean(b, op, m, w, g, tp);
        if (ck_cmp_f32("dst", a, b, (size_t)w + 8))
            ck_fail("w %d taps %d", w, tp);
        free(op);
        free(m);
        free(a);
        free(b);
    }
    ck_end();
}

/* --bench: one output row of a 1920x1080 plane, taps 9 (ks = 1). */
typedef struct BArgs {
    const SqDsp *d;
    int kind;
    VCase *v;
    float *dst, *src;
} BArgs;

static void bench_v(void *p)
{
    BArgs *a = p;
    uint32_t range[4] = { 0 };
    vrun(a->d, a->kind, a->v, a->dst, a->kind == 1 ? range : NULL);
}

static void bench_h(void *p)
{
    BArgs *a = p;
    a->d->hfilt_dec(a->dst, a->src, 1920, a->v->g, 9, 120);
}

static void bench_m(void *p)
{
    BArgs *a = p;
    a->d->local_mean(a->dst, a->src, a->src + 120, 120, a->v->g, 3);
}

static void bench_filters(const CkCtx *c, const CkLevel *l)
{
    static const char *const names[3] = { "vfilt_8bpc (1920, 9 taps)", "vfilt_16bpc (1920, 10-bit)",
                                          "vfilt_f32 (120, 3 taps)" };
    for (int kind = 0; kind < 3; kind++)
        for (int temporal = 0; temporal < (kind < 2 ? 2 : 1); temporal++) {
            VCase v;
            memset(&v, 0, sizeof(v));
            v.w = kind == 2 ? 120 : 1920;
            v.h = kind == 2 ? 67 : 1080;
            v.taps = kind == 2 ? 3 : 9;
            v.row = kind == 2 ? 30 : 512;
            v.hbd = kind == 1;
            v.bpc = kind == 1 ? 10 : 8;
            v.scale = sq_bpc_scale(v.bpc);
            for (int k = 0; k < v.taps; k++)
                v.g[k] = 1.0f / (float)v.taps;
            const int bps = v.hbd ? 2 : 1;
            v.mem[0] = calloc((size_t)v.w * v.h, sizeof(float));
            v.mem[1] = calloc((size_t)v.w * v.h, sizeof(float));
            v.cur = v.mem[0];
            v.prev = temporal ? v.mem[1] : NULL;
            v.cs = v.ps = (ptrdiff_t)v.w * bps;
            v.img = (float *)v.mem[0];
            v.fstride = v.w;
            /* the spans the CPU backend passes: radius 4 around multiples of 16 */
            v.nspans = 0;
            for (int x = 0; x < v.w; x += kind == 2 ? v.w : 16) {
                v.spans[2 * v.nspans] = kind == 2 ? 0 : x < 4 ? 0 : x - 4;
                v.spans[2 * v.nspans + 1] = kind == 2 ? v.w : x + 5;
                v.nspans++;
            }
            float *dst = calloc(2048, sizeof(float));
            BArgs ac = { &c->ref, kind, &v, dst, NULL }, ao = { &l->dsp, kind, &v, dst, NULL };
            char name[64];
            snprintf(name, sizeof(name), "%s%s", names[kind], temporal ? " diff" : "");
            ck_bench_row(name, ck_time(bench_v, &ac), l->name, ck_time(bench_v, &ao));
            free(dst);
            free(v.mem[0]);
            free(v.mem[1]);
        }
    VCase v;
    memset(&v, 0, sizeof(v));
    for (int k = 0; k < 9; k++)
        v.g[k] = 1.0f / 9.0f;
    float *src = calloc(2048, sizeof(float)), *dst = calloc(2048, sizeof(float));
    BArgs ac = { &c->ref, 0, &v, dst, src }, ao = { &l->dsp, 0, &v, dst, src };
    ck_bench_row("hfilt_dec (1920 -> 120, 9 taps)", ck_time(bench_h, &ac), l->name, ck_time(bench_h, &ao));
    ck_bench_row("local_mean (120, 3 taps)", ck_time(bench_m, &ac), l->name, ck_time(bench_m, &ao));
    free(src);
    free(dst);
}

void ck_filter(const CkCtx *c)
{
    for (int i = 0; i < c->nlvl; i++) {
        const CkLevel *l = &c->lvl[i];
        if (c->bench) {
            bench_filters(c, l);
            continue;
        }
        if (ck_wanted(c, "vfilt_8bpc"))
            check_vfilt(c, l, 0, "vfilt_8bpc");
        if (ck_wanted(c, "vfilt_16bpc"))
            check_vfilt(c, l, 1, "vfilt_16bpc");
        if (ck_wanted(c, "vfilt_f32"))
            check_vfilt(c, l, 2, "vfilt_f32");
        if (ck_wanted(c, "hfilt_dec"))
            check_hfilt(c, l);
        if (ck_wanted(c, "local_mean"))
            check_local_mean(c, l);
    }
}
