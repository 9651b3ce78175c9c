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

typedef struct Scene {
    int base, gx, gy, shift;      /* gradient: base + ((gx * x + gy * y) >> shift) */
    int rx, ry, rw, rh, rv;       /* a flat rectangle */
    int dx, dy, dw, dh, damp;     /* a dithered patch */
    int ex, ev;                   /* a vertical edge at ex: ev to the right */
} Scene;

static void scene(Scene *c, uint64_t *st, int w, int h, int max)
{
    c->base = vi_urand(st, 0, max);
    c->gx = vi_urand(st, -8, 8);
    c->gy = vi_urand(st, -8, 8);
    c->shift = vi_urand(st, 3, 9);
    c->rx = vi_urand(st, 0, w - 1);
    c->ry = vi_urand(st, 0, h - 1);
    c->rw = vi_urand(st, 1, w);
    c->rh = vi_urand(st, 1, h);
    c->rv = vi_urand(st, 0, 3) ? vi_urand(st, 0, max) : vi_urand(st, 0, max / 16);
    c->dx = vi_urand(st, 0, w - 1);
    c->dy = vi_urand(st, 0, h - 1);
    c->dw = vi_urand(st, 1, w / 2 + 1);
    c->dh = vi_urand(st, 1, h / 2 + 1);
    c->damp = vi_urand(st, 0, 2);
    c->ex = vi_urand(st, 0, 2) ? w : vi_urand(st, 0, w - 1);
    c->ev = vi_urand(st, 0, max);
}

static int value(const Scene *c, int x, int y, int f, uint64_t *st)
{
    if (x >= c->ex)
        return c->ev;
    if (x >= c->rx + f && x < c->rx + f + c->rw && y >= c->ry && y < c->ry + c->rh)
        return c->rv;
    int v = c->base + ((c->gx * x + c->gy * y + 16 * f) >> c->shift);
    if (x >= c->dx && x < c->dx + c->dw && y >= c->dy && y < c->dy + c->dh && c->damp)
        v += (int)(vi_rnd(st) % (uint64_t)(2 * c->damp + 1)) - c->damp;
    return v;
}

void vi_seq_banding(ViSeq *s, uint64_t seed, int min_side, int max_side)
{
    uint64_t st = seed ^ 0x5eedcab1ull;
    static const enum VmafPixelFormat fmts[3] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                  VMAF_PIX_FMT_YUV444P };
    static const int depths[5] = { 8, 8, 10, 10, 12 };
    const int w = vi_urand(&st, min_side, max_side), h = vi_urand(&st, min_side, max_side);
    const int bpc = depths[vi_urand(&st, 0, 4)], n = vi_urand(&st, 2, 4);
    memset(s, 0, sizeof *s);
    vi_seq_alloc(s, w, h, bpc, n, fmts[vi_urand(&st, 0, 2)]);
    const int max = (1 << bpc) - 1;
    Scene c;
    scene(&c, &st, w, h, max);
    snprintf(s->name, sizeof s->name, "banding seed=%llu %dx%d bpc%d n%d",
             (unsigned long long)seed, w, h, bpc, n);
    for (int f = 0; f < n; f++) {
        const int q = vi_urand(&st, 0, 1) ? 1 : vi_urand(&st, 2, 16);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int v = value(&c, x, y, f, &st);
                vi_put(s, s->ref[f], x, y, v);
                vi_put(s, s->dis[f], x, y, (v < 0 ? 0 : v) / q * q);
            }
    }
}
