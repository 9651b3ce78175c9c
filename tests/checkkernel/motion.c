/*
 * motion_sad against the C table's (sq_vm_rows_sad2, the scalar definition)
 * on random plane pairs: widths from 1 (the kernels hand planes under 3 x 3
 * and tails to the scalar code) to ~300, odd and even, and multiples of 32
 * (rows that are vectors only, so that a row's range check rests on its
 * lanes alone), heights 1..40, row
 * ranges [y0, y1) anywhere, bytes and 16-bit containers at every bpc 8..16,
 * and fills that reach the bounds the kernels' 32-bit splits rely on: 0
 * against the depth's maximum, against the container's maximum (samples
 * above the declared depth), and stripes that alternate them every row and
 * column (the largest vertical and horizontal sums of either sign).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkkernel.h"
#include "math/filter.h"

#define NCASES 400
/* rows around a plane: the scalar code's mirror leaves planes under 3 rows by up to 2 */
#define MARGIN 2

typedef struct MPlane {
    uint8_t *buf, *data;
    ptrdiff_t stride;
} MPlane;

static void mplane_new(MPlane *p, int w, int h, int bytes)
{
    p->stride = (ptrdiff_t)(w + MARGIN * 2 + ck_irand(0, 40)) * bytes;
    p->buf = calloc((size_t)p->stride * (h + 2 * MARGIN), 1);
    p->data = p->buf + p->stride * MARGIN + MARGIN * bytes;
}

static void put(MPlane *p, int x, int y, int bytes, uint32_t v)
{
    uint8_t *at = p->data + (ptrdiff_t)y * p->stride + (ptrdiff_t)x * bytes;
    if (bytes == 1) {
        *at = (uint8_t)v;
    } else {
        const uint16_t s = (uint16_t)v;
        memcpy(at, &s, 2);
    }
}

/* Sample (x, y) of one plane under fill mode `mode` (side 0: prev, 1: cur). */
static uint32_t fill_at(int mode, int side, int x, int y, uint32_t max)
{
    switch (mode) {
    case 0:
        return ck_rand() % (max + 1);
    case 1:
        return side ? 0 : max;
    case 2:
        return side ? max : 0;
    case 3:
        return ck_chance(50) ? max : 0;
    case 4: /* stripes: prev - cur flips sign every row and column */
        return ((x ^ y ^ side) & 1) ? max : 0;
    default: /* random with the edges of the range far more often */
        return ck_chance(30) ? max : ck_chance(30) ? 0 : ck_rand() % (max + 1);
    }
}

static void check_level(const CkCtx *c, const CkLevel *l)
{
    ck_begin("motion_sad", l->name);
    for (int n = 0; n < NCASES; n++) {
        /* multiples of 32: rows with no scalar tail at any level */
        const int w = ck_chance(25)   ? ck_irand(1, 8)
                      : ck_chance(30) ? 32 * ck_irand(1, 9)
                                      : ck_irand(9, 300);
        const int h = ck_irand(1, 40);
        const int hbd = n % 3 != 0, bytes = hbd ? 2 : 1;
        const int bpc = hbd ? ck_irand(8, 16) : ck_chance(90) ? 8 : ck_irand(9, 16);
        const uint32_t depth_max = (1u << (hbd ? bpc : 8)) - 1;
        const uint32_t max = hbd && ck_chance(25) ? 65535u : depth_max;
        const int mode = ck_irand(0, 5);
        MPlane p[2];
        for (int s = 0; s < 2; s++) {
            mplane_new(&p[s], w, h, bytes);
            for (int y = -MARGIN; y < h + MARGIN; y++)
                for (int x = -MARGIN; x < w + MARGIN; x++)
                    put(&p[s], x, y, bytes, fill_at(mode, s, x, y, max));
        }
        int y0 = 0, y1 = h;
        if (ck_chance(40)) {
            y0 = ck_irand(0, h);
            y1 = ck_irand(y0, h);
        }
        /* the scalar code's mirror reads up to 2 entries each side of its
         * row under 3 columns: both calls get the same zeroed margins */
        const size_t nws = SQ_MOTION_WS(w) + 16;
        int32_t *wa = calloc(nws, sizeof(int32_t)), *wb = calloc(nws, sizeof(int32_t));
        const int acc = hbd ? SQ_ACC_16 : 0;
        const uint64_t a = c->ref.motion_sad(p[0].data, p[0].stride, p[1].data, p[1].stride, acc, w,
                                             h, bpc, y0, y1, wa + 8);
        const uint64_t b = l->dsp.motion_sad(p[0].data, p[0].stride, p[1].data, p[1].stride, acc, w,
                                             h, bpc, y0, y1, wb + 8);
        if (a != b)
            ck_fail("%dx%d rows [%d, %d) bpc %d %s max %u fill %d: sad %llu, want %llu", w, h, y0,
                    y1, bpc, hbd ? "16-bit" : "bytes", max, mode, (unsigned long long)b,
                    (unsigned long long)a);
        free(wa);
        free(wb);
        free(p[0].buf);
        free(p[1].buf);
    }
    ck_end();
}

typedef struct MArgs {
    const SqDsp *d;
    MPlane p[2];
    int w, h, bpc, acc;
    int32_t *ws;
} MArgs;

static void bench_sad(void *arg)
{
    MArgs *a = arg;
    a->d->motion_sad(a->p[0].data, a->p[0].stride, a->p[1].data, a->p[1].stride, a->acc, a->w,
                     a->h, a->bpc, 0, a->h, a->ws);
}

/* A 1920 x 1080 luma pair, random samples, 8-bit and 10-bit. */
static void bench_level(const CkCtx *c, const CkLevel *l)
{
    for (int hbd = 0; hbd < 2; hbd++) {
        MArgs a = { .w = 1920, .h = 1080, .bpc = hbd ? 10 : 8, .acc = hbd ? SQ_ACC_16 : 0 };
        for (int s = 0; s < 2; s++) {
            mplane_new(&a.p[s], a.w, a.h, hbd + 1);
            for (int y = 0; y < a.h; y++)
                for (int x = 0; x < a.w; x++)
                    put(&a.p[s], x, y, hbd + 1, ck_rand() % (1u << a.bpc));
        }
        a.ws = calloc(SQ_MOTION_WS(a.w), sizeof(int32_t));
        MArgs ac = a, ao = a;
        ac.d = &c->ref;
        ao.d = &l->dsp;
        ck_bench_row(hbd ? "motion_sad (1920x1080, 10-bit)" : "motion_sad (1920x1080, 8-bit)",
                     ck_time(bench_sad, &ac), l->name, ck_time(bench_sad, &ao));
        free(a.ws);
        free(a.p[0].buf);
        free(a.p[1].buf);
    }
}

void ck_motion(const CkCtx *c)
{
    for (int i = 0; i < c->nlvl; i++) {
        if (ck_wanted(c, "motion_sad"))
            check_level(c, &c->lvl[i]);
        if (c->bench && ck_wanted(c, "motion_sad"))
            bench_level(c, &c->lvl[i]);
    }
}
