/*
 * prescale_row against C: random source images and tables of every
 * method, random widths (tails), indices anywhere in the source, weights
 * of both signs and extreme magnitudes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkkernel.h"
#include "math/prescale.h"

#define NCASES 200

static void bench_ps(void *p);

typedef struct PCase {
    float *src, *wy, *wx;
    int32_t *iy, *ix;
    int sw, sh, w, method;
} PCase;

static void pcase_new(PCase *c, int w, int method)
{
    c->sw = ck_irand(1, 300);
    c->sh = ck_irand(1, 20);
    c->w = w;
    c->method = method;
    c->src = malloc(sizeof(float) * (size_t)c->sw * c->sh);
    c->iy = malloc(sizeof(int32_t) * SQ_PS_TAPS);
    c->wy = malloc(sizeof(float) * SQ_PS_TAPS);
    c->ix = malloc(sizeof(int32_t) * SQ_PS_TAPS * (size_t)w);
    c->wx = malloc(sizeof(float) * SQ_PS_TAPS * (size_t)w);
    for (int i = 0; i < c->sw * c->sh; i++)
        c->src[i] = ck_chance(2) ? ck_frand(-1e30f, 1e30f) : ck_frand(-128.0f, 128.0f);
    for (int t = 0; t < SQ_PS_TAPS; t++) {
        c->iy[t] = ck_irand(0, c->sh - 1);
        c->wy[t] = ck_chance(5) ? 0.0f : ck_frand(-0.3f, 1.2f);
    }
    for (int i = 0; i < SQ_PS_TAPS * w; i++) {
        c->ix[i] = ck_irand(0, c->sw - 1);
        c->wx[i] = ck_chance(5) ? 0.0f : ck_frand(-0.3f, 1.2f);
    }
}

static void pcase_free(PCase *c)
{
    free(c->src);
    free(c->iy);
    free(c->wy);
    free(c->ix);
    free(c->wx);
}

static void check_prescale(const CkCtx *c, const CkLevel *l)
{
    ck_begin("prescale_row", l->name);
    for (int n = 0; n < NCASES; n++) {
        const int w = ck_chance(30) ? ck_irand(1, 20) : ck_irand(20, 400), method = n % 4;
        PCase p;
        pcase_new(&p, w, method);
        float *a = malloc(sizeof(float) * (size_t)(w + 8)), *b = malloc(sizeof(float) * (size_t)(w + 8));
        for (int i = 0; i < w + 8; i++)
            a[i] = b[i] = NAN;
        c->ref.prescale_row(a, p.src, p.sw, method, p.iy, p.wy, p.ix, p.wx, w);
        l->dsp.prescale_row(b, p.src, p.sw, method, p.iy, p.wy, p.ix, p.wx, w);
        if (ck_cmp_f32("dst", a, b, (size_t)w + 8))
            ck_fail("w %d method %d src %dx%d", w, method, p.sw, p.sh);
        free(a);
        free(b);
        pcase_free(&p);
    }
    ck_end();
}

typedef struct PArgs {
    const SqDsp *d;
    PCase *p;
    float *dst;
} PArgs;

static void bench_ps(void *arg)
{
    PArgs *a = arg;
    a->d->prescale_row(a->dst, a->p->src, a->p->sw, a->p->method, a->p->iy, a->p->wy, a->p->ix,
                       a->p->wx, a->p->w);
}

void ck_prescale(const CkCtx *c)
{
    static const char *const names[4] = { "prescale_row (480, nearest)", "prescale_row (480, bilinear)",
                                          "prescale_row (480, bicubic)", "prescale_row (480, lanczos4)" };
    for (int i = 0; i < c->nlvl; i++) {
        const CkLevel *l = &c->lvl[i];
        if (ck_wanted(c, "prescale_row"))
            check_prescale(c, l);
        if (!c->bench)
            continue;
        for (int m = 0; m < 4; m++) {
            PCase p;
            pcase_new(&p, 480, m);
            float *dst = malloc(sizeof(float) * 480);
            PArgs ac = { &c->ref, &p, dst }, ao = { &l->dsp, &p, dst };
            ck_bench_row(names[m], ck_time(bench_ps, &ac), l->name, ck_time(bench_ps, &ao));
            free(dst);
            pcase_free(&p);
        }
    }
}
