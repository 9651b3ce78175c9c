/*
 * Random sequences for CAMBI: what banding detection looks at. Slow
 * gradients (steps of one code every few pixels, in any direction),
 * flat rectangles, dark and bright areas (the visibility threshold and the
 * TVI limits), dithered patches, a few sharp edges; the distorted side is the
 * reference quantised to 1..16 codes (wider bands) or left alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmafint.h"

static uint64_t rnd(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int urand(uint64_t *st, int lo, int hi)
{
    return lo + (int)(rnd(st) % (uint64_t)(hi - lo + 1));
}

static void put(const ViSeq *s, uint8_t *p, int x, int y, int v)
{
    const int max = (1 << s->bpc) - 1;
    v = v < 0 ? 0 : v > max ? max : v;
    if (s->bpc > 8) {
        uint16_t u = (uint16_t)v;
        memcpy(p + (size_t)y * (size_t)s->stride + 2 * (size_t)x, &u, 2);
    } else {
        p[(size_t)y * (size_t)s->stride + (size_t)x] = (uint8_t)v;
    }
}

typedef struct Scene {
    int base, gx, gy, shift;      /* gradient: base + ((gx * x + gy * y) >> shift) */
    int rx, ry, rw, rh, rv;       /* a flat rectangle */
    int dx, dy, dw, dh, damp;     /* a dithered patch */
    int ex, ev;                   /* a vertical edge at ex: ev to the right */
} Scene;

static void scene(Scene *c, uint64_t *st, int w, int h, int max)
{
    c->base = urand(st, 0, max);
    c->gx = urand(st, -8, 8);
    c->gy = urand(st, -8, 8);
    c->shift = urand(st, 3, 9);
    c->rx = urand(st, 0, w - 1);
    c->ry = urand(st, 0, h - 1);
    c->rw = urand(st, 1, w);
    c->rh = urand(st, 1, h);
    c->rv = urand(st, 0, 3) ? urand(st, 0, max) : urand(st, 0, max / 16);
    c->dx = urand(st, 0, w - 1);
    c->dy = urand(st, 0, h - 1);
    c->dw = urand(st, 1, w / 2 + 1);
    c->dh = urand(st, 1, h / 2 + 1);
    c->damp = urand(st, 0, 2);
    c->ex = urand(st, 0, 2) ? w : urand(st, 0, w - 1);
    c->ev = urand(st, 0, max);
}

static int value(const Scene *c, int x, int y, int f, uint64_t *st)
{
    if (x >= c->ex)
        return c->ev;
    if (x >= c->rx + f && x < c->rx + f + c->rw && y >= c->ry && y < c->ry + c->rh)
        return c->rv;
    int v = c->base + ((c->gx * x + c->gy * y + 16 * f) >> c->shift);
    if (x >= c->dx && x < c->dx + c->dw && y >= c->dy && y < c->dy + c->dh && c->damp)
        v += (int)(rnd(st) % (uint64_t)(2 * c->damp + 1)) - c->damp;
    return v;
}

void vi_seq_banding(ViSeq *s, uint64_t seed, int min_side, int max_side)
{
    uint64_t st = seed ^ 0x5eedcab1ull;
    static const enum VmafPixelFormat fmts[3] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                  VMAF_PIX_FMT_YUV444P };
    static const int depths[5] = { 8, 8, 10, 10, 12 };
    const int w = urand(&st, min_side, max_side), h = urand(&st, min_side, max_side);
    const int bpc = depths[urand(&st, 0, 4)], n = urand(&st, 2, 4);
    memset(s, 0, sizeof *s);
    vi_seq_alloc(s, w, h, bpc, n, fmts[urand(&st, 0, 2)]);
    const int max = (1 << bpc) - 1;
    Scene c;
    scene(&c, &st, w, h, max);
    snprintf(s->name, sizeof s->name, "banding seed=%llu %dx%d bpc%d n%d",
             (unsigned long long)seed, w, h, bpc, n);
    for (int f = 0; f < n; f++) {
        const int q = urand(&st, 0, 1) ? 1 : urand(&st, 2, 16);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int v = value(&c, x, y, f, &st);
                put(s, s->ref[f], x, y, v);
                put(s, s->dis[f], x, y, (v < 0 ? 0 : v) / q * q);
            }
    }
}
