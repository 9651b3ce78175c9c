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
}

static void vcase_free(VCase *v)
{
    for (int i = 0; i < 3; i++)
        free(v->mem[i]);
}

static void vrun(const SqDsp *d, int kind, const VCase *v, float *dst)
{
    if (kind == 0)
        d->vfilt_8bpc(dst, v->cur, v->cs, v->prev, v->ps, v->h, v->row, v->g, v->taps, v->spans,
                      v->nspans, v->w);
    else if (kind == 1)
        d->vfilt_16bpc(dst, v->cur, v->cs, v->prev, v->ps, v->scale, v->h, v->row, v->g, v->taps,
                       v->spans, v->nspans, v->w);
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
        vrun(&c->ref, kind, &v, a + GUARD);
        vrun(&l->dsp, kind, &v, b + GUARD);
        int bad = 0;
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

/*
 * or_16bpc: the OR of every sample of a row, from any starting value, for
 * widths around the vector sizes (tails), rows at any even offset, samples
 * in range, above the depth or MSB-aligned; past w the buffer holds all
 * ones, which must not leak in.
 */
static void check_or16(const CkCtx *c, const CkLevel *l)
{
    ck_begin("or_16bpc", l->name);
    uint16_t *buf = malloc(sizeof(uint16_t) * (2048 + 64));
    for (int n = 0; n < NCASES; n++) {
        const int w = ck_chance(40) ? ck_irand(1, 70) : ck_irand(70, 2048);
        const int off = ck_irand(0, 31);
        const int bpc = (int[]){ 9, 10, 12, 15 }[ck_irand(0, 3)];
        const int mode = ck_irand(0, 3); /* in range, one sample above, many above, MSB-aligned */
        for (int i = 0; i < 2048 + 64; i++)
            buf[i] = 0xffff;
        uint32_t want = ck_chance(50) ? 0 : ck_rand() & ((1u << bpc) - 1);
        const uint32_t start = want;
        for (int x = 0; x < w; x++) {
            uint32_t v = ck_rand() & ((1u << bpc) - 1);
            if (mode == 2 && ck_chance(30))
                v = ck_rand() & 0xffffu;
            if (mode == 3)
                v = (v << (16 - bpc)) & 0xffffu;
            buf[off + x] = (uint16_t)v;
        }
        if (mode == 1)
            buf[off + ck_irand(0, w - 1)] = (uint16_t)(1u << bpc);
        for (int x = 0; x < w; x++)
            want |= buf[off + x];
        uint32_t a = start, b = start;
        c->ref.or_16bpc(&a, (const uint8_t *)(buf + off), w);
        l->dsp.or_16bpc(&b, (const uint8_t *)(buf + off), w);
        if (a != want || b != want)
            ck_fail("w %d offset %d bpc %d mode %d: C %#x, %s %#x, want %#x", w, off, bpc, mode, a,
                    l->name, b, want);
    }
    free(buf);
    ck_end();
}

/*
 * vhfilt_8bpc: one operating row, both passes, against the C vfilt_8bpc
 * over every column followed by the C hfilt_dec (what the CPU backend runs
 * where the slot is NULL or declines). Widths around the 16-output blocks
 * and the row end, taps 9..15 mostly, rows at the plane's edges, bottom-up
 * planes; a version that declines must write nothing, and one that exists
 * must take the default-sized cases.
 */
static void check_vhfilt(const CkCtx *c, const CkLevel *l)
{
    if (!l->dsp.vhfilt_8bpc)
        return;
    ck_begin("vhfilt_8bpc", l->name);
    int taken = 0, wanted = 0;
    for (int n = 0; n < NCASES; n++) {
        VCase v;
        memset(&v, 0, sizeof(v));
        v.w = ck_chance(20) ? ck_irand(1, 300) : ck_chance(50) ? ck_irand(272, 420) : ck_irand(420, 2100);
        v.h = ck_chance(20) ? ck_irand(1, 16) : ck_irand(17, 120);
        v.taps = ck_chance(70) ? 2 * ck_irand(4, 7) + 1 : rand_taps(v.h);
        while ((v.taps >> 1) >= v.h || (v.taps >> 1) >= v.w)
            v.taps -= 2;
        v.row = ck_chance(50) ? ck_irand(0, v.h - 1) : (ck_irand(0, v.h - 1) >> 4) << 4;
        v.temporal = ck_chance(50);
        v.bpc = 8;
        v.scale = 1.0f;
        rand_g(v.g, v.taps);
        v.cur = alloc_plane(v.w, v.h, 1, &v.cs, &v.mem[0], 0, 255);
        v.prev = v.temporal ? alloc_plane(v.w, v.h, 1, &v.ps, &v.mem[1], 0, 255) : NULL;
        const int nmax = (v.w + 15) >> 4;
        const int nout = ck_chance(70) && v.w >= 16 ? v.w >> 4 : ck_irand(1, nmax);
        float *vrow = malloc(sizeof(float) * (size_t)v.w);
        float *a = malloc(sizeof(float) * (size_t)(nmax + 2 * GUARD));
        float *b = malloc(sizeof(float) * (size_t)(nmax + 2 * GUARD));
        for (int i = 0; i < nmax + 2 * GUARD; i++)
            a[i] = b[i] = NAN;
        const int32_t all[2] = { 0, v.w };
        c->ref.vfilt_8bpc(vrow, v.cur, v.cs, v.prev, v.ps, v.h, v.row, v.g, v.taps, all, 1, v.w);
        c->ref.hfilt_dec(a + GUARD, vrow, v.w, v.g, v.taps, nout);
        const int ret = l->dsp.vhfilt_8bpc(b + GUARD, v.cur, v.cs, v.prev, v.ps, v.h, v.row, v.g,
                                           v.taps, v.w, nout);
        /* 17 interior outputs of taps 9..15 (the default plane sizes) */
        const int must = v.taps >= 9 && v.taps <= 15 && nout >= 18 && 16 * 17 + 7 < v.w;
        wanted += must;
        int bad = 0;
        if (ret == 0) {
            taken += must;
            bad = ck_cmp_f32("dst", a + GUARD, b + GUARD, (size_t)nout);
            for (int i = 0; i < GUARD && !bad; i++)
                bad = !isnan(b[i]) || !isnan(b[GUARD + nout + i]) ? ck_fail("write outside [0, nout)") : 0;
        } else {
            for (int i = 0; i < nmax + 2 * GUARD && !bad; i++)
                bad = !isnan(b[i]) ? ck_fail("declined (%d) but wrote dst[%d]", ret, i - GUARD) : 0;
            if (!bad && must)
                bad = ck_fail("declined a default-sized case");
        }
        if (bad)
            ck_fail("w %d h %d taps %d row %d nout %d temporal %d stride %td", v.w, v.h, v.taps,
                    v.row, nout, v.temporal, v.cs);
        free(vrow);
        free(a);
        free(b);
        vcase_free(&v);
    }
    if (wanted && !taken)
        ck_fail("no case taken");
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
    vrun(a->d, a->kind, a->v, a->dst);
}

/* One operating row as the backend runs it: vhfilt_8bpc where the table
 * has it and it takes the row, else vfilt_8bpc and hfilt_dec. */
static void bench_vh(void *p)
{
    BArgs *a = p;
    const VCase *v = a->v;
    if (!a->kind && a->d->vhfilt_8bpc &&
        a->d->vhfilt_8bpc(a->dst, v->cur, v->cs, v->prev, v->ps, v->h, v->row, v->g, v->taps,
                          v->w, v->w >> 4) == 0)
        return;
    vrun(a->d, 0, v, a->src);
    a->d->hfilt_dec(a->dst, a->src, v->w, v->g, v->taps, v->w >> 4);
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
            if (kind == 0) {
                /* the operating row: the two passes (kind 1 here: never the slot) | as run */
                float *vrow = calloc(2048, sizeof(float));
                BArgs pc = { &c->ref, 1, &v, dst, vrow }, po = { &l->dsp, 1, &v, dst, vrow };
                BArgs rc = { &c->ref, 0, &v, dst, vrow }, ro = { &l->dsp, 0, &v, dst, vrow };
                snprintf(name, sizeof(name), "  op row, 2 passes%s", temporal ? " diff" : "");
                ck_bench_row(name, ck_time(bench_vh, &pc), l->name, ck_time(bench_vh, &po));
                snprintf(name, sizeof(name), "  op row, vhfilt_8bpc%s%s", temporal ? " diff" : "",
                         l->dsp.vhfilt_8bpc ? "" : " (none)");
                ck_bench_row(name, ck_time(bench_vh, &rc), l->name, ck_time(bench_vh, &ro));
                free(vrow);
            }
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
        if (ck_wanted(c, "or_16bpc"))
            check_or16(c, l);
        if (ck_wanted(c, "hfilt_dec"))
            check_hfilt(c, l);
        if (ck_wanted(c, "vhfilt_8bpc"))
            check_vhfilt(c, l);
        if (ck_wanted(c, "local_mean"))
            check_local_mean(c, l);
    }
}
