#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"

uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

int rng_int(uint64_t *s, int lo, int hi)
{
    return lo + (int)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

static void plane_dims(const SpeedqaFormat *f, int p, int *w, int *h)
{
    *w = f->width;
    *h = f->height;
    if (p > 0) {
        if (f->fmt == SPEEDQA_PIX_400) {
            *w = *h = 0;
            return;
        }
        if (f->fmt != SPEEDQA_PIX_444)
            *w = f->width >> 1;
        if (f->fmt == SPEEDQA_PIX_420)
            *h = f->height >> 1;
    }
}

/* Textures, in [0, 255] before scaling to the bit depth. */
enum { TEX_SYNTH, TEX_WAVES, TEX_FLAT, TEX_NOISE, TEX_PATCH, TEX_COUNT };
/* How dis derives from ref. */
enum { DIS_QUANT, DIS_NOISE, DIS_SAME, DIS_FLAT, DIS_BLUR, DIS_COUNT };

typedef struct PlaneGen {
    int tex, dis;
    double fx[3], fy[3], amp[3], noise;
    int flat, qshift;
    uint64_t seed;
} PlaneGen;

static uint32_t hash3(uint64_t seed, uint32_t a, uint32_t b)
{
    uint64_t s = seed ^ ((uint64_t)a << 32 | b);
    return (uint32_t)(rng_next(&s) >> 32);
}

static double ref_value(const PlaneGen *g, int x, int y, int t)
{
    const int mx = x + 3 * t, my = y + 2 * t; /* motion for speed_temporal */
    const double n = (double)(hash3(g->seed + (uint64_t)t * 7919u, (uint32_t)x, (uint32_t)y) >> 24);
    switch (g->tex) {
    case TEX_SYNTH: {
        uint32_t pat = (((uint32_t)mx * mx + 2u * my * my + (uint32_t)mx * my) >> 4);
        return 48 + (pat & 127) + (n / 8.0);
    }
    case TEX_WAVES: {
        double v = 128;
        for (int k = 0; k < 3; k++)
            v += g->amp[k] * sin(g->fx[k] * mx + g->fy[k] * my + k);
        return v + g->noise * (n / 255.0 - 0.5);
    }
    case TEX_FLAT:
        return g->flat;
    case TEX_NOISE:
        return n;
    default: /* flat with a busy patch in the middle third */
        if (x % 97 > 32 && x % 97 < 64 && y % 89 > 30 && y % 89 < 60)
            return 40 + n * 0.7;
        return g->flat;
    }
}

static void fill_rows(const PlaneGen *g, int w, int h, int bd, int t, uint8_t *ref, uint8_t *dis,
                      ptrdiff_t stride, int y0, int y1)
{
    const int maxv = (1 << bd) - 1;
    const double scale = (double)(1 << (bd - 8));
    (void)h;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < w; x++) {
            double rv = ref_value(g, x, y, t);
            int r = (int)lrint(rv * scale);
            if (bd > 8)
                r += (int)(hash3(g->seed ^ 0x55u, (uint32_t)x, (uint32_t)y + (uint32_t)t * 65536u) % (uint32_t)scale);
            r = r < 0 ? 0 : r > maxv ? maxv : r;
            int d;
            switch (g->dis) {
            case DIS_QUANT: d = ((r >> (g->qshift + bd - 8)) << (g->qshift + bd - 8)) +
                                (int)(hash3(g->seed ^ 0xd15u, (uint32_t)x, (uint32_t)y + (uint32_t)t * 65536u) % (uint32_t)(scale * 16)); break;
            case DIS_NOISE: d = r + (int)((double)(hash3(g->seed ^ 0xa1u, (uint32_t)x, (uint32_t)y) >> 24) - 128) * (int)scale / 16; break;
            case DIS_SAME: d = r; break;
            case DIS_FLAT: d = (int)(g->flat * scale); break;
            default: d = (int)lrint((ref_value(g, x > 0 ? x - 1 : x, y, t) + rv +
                                     ref_value(g, x + 1 < w ? x + 1 : x, y, t)) / 3.0 * scale); break;
            }
            d = d < 0 ? 0 : d > maxv ? maxv : d;
            if (bd > 8) {
                ((uint16_t *)(ref + y * stride))[x] = (uint16_t)r;
                ((uint16_t *)(dis + y * stride))[x] = (uint16_t)d;
            } else {
                ref[y * stride + x] = (uint8_t)r;
                dis[y * stride + x] = (uint8_t)d;
            }
        }
}

typedef struct FillJob {
    const PlaneGen *g;
    int w, h, bd, t, y0, y1;
    uint8_t *ref, *dis;
    ptrdiff_t stride;
} FillJob;

static void *fill_main(void *arg)
{
    const FillJob *j = arg;
    fill_rows(j->g, j->w, j->h, j->bd, j->t, j->ref, j->dis, j->stride, j->y0, j->y1);
    return NULL;
}

/* Big planes are filled by several threads (4K frames take a while otherwise). */
static void fill_plane(const PlaneGen *g, int w, int h, int bd, int t, uint8_t *ref, uint8_t *dis,
                       ptrdiff_t stride)
{
    enum { NT = 8 };
    FillJob job[NT];
    pthread_t th[NT];
    int started[NT] = { 0 };
    const int n = (int64_t)w * h > 1 << 18 ? NT : 1;
    for (int k = 0; k < n; k++) {
        job[k] = (FillJob){ g, w, h, bd, t, h * k / n, h * (k + 1) / n, ref, dis, stride };
        if (k > 0)
            started[k] = !pthread_create(&th[k], NULL, fill_main, &job[k]);
    }
    fill_main(&job[0]);
    for (int k = 1; k < n; k++) {
        if (started[k])
            pthread_join(th[k], NULL);
        else
            fill_main(&job[k]);
    }
}

static const char *const kernelscales[] = {
    "1", "0.5", "1.5", "2", "0.666667", "2.4", "3.71134", "1.33333", "1.16667", "1.41667",
    "1.66667", "3", "0.444444", "1.4746", "1.54", "1.6", "1.06667", "0.711111", "0.74074",
    "1.11111", "1.0009", "1.25",
};
static const char *const methods[] = { "nearest", "bilinear", "bicubic", "lanczos4" };

static void random_feature(char *buf, size_t len, uint64_t *rng, int chroma, double area)
{
    size_t n = (size_t)snprintf(buf, len, "%s", chroma ? "speed_chroma" : "speed_temporal");
    char sep = '=';
#define OPT(...)                                                                       \
    do {                                                                               \
        n += (size_t)snprintf(buf + n, len - n, "%c", sep);                            \
        n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__);                          \
        sep = ':';                                                                     \
    } while (0)
    if (rng_unit(rng) < 0.35)
        OPT("speed_kernelscale=%s", kernelscales[rng_int(rng, 0, (int)(sizeof(kernelscales) / sizeof(kernelscales[0])) - 1)]);
    /* Prescale: keep the resampled plane moderate (CPU reference time). */
    if (rng_unit(rng) < 0.25) {
        double ps = rng_unit(rng) < 0.5 ? (double[]){ 0.5, 0.75, 1.5, 2.0 }[rng_int(rng, 0, 3)]
                                        : 0.3 + 2.0 * rng_unit(rng);
        if (area * ps * ps > 2.5e6)
            ps = sqrt(2.5e6 / area);
        if (ps < 0.1)
            ps = 0.1;
        OPT("speed_prescale=%.4g", ps);
        if (rng_unit(rng) < 0.8)
            OPT("speed_prescale_method=%s", methods[rng_int(rng, 0, 3)]);
    }
    if (rng_unit(rng) < 0.2)
        OPT("speed_sigma_nn=%.3g", 0.1 + 1.9 * rng_unit(rng));
    if (rng_unit(rng) < 0.2)
        OPT("speed_nn_floor=%.3g", rng_unit(rng));
    if (rng_unit(rng) < 0.15)
        OPT("speed_max_val=%.3g", 1.0 + 20.0 * rng_unit(rng));
    if (chroma && rng_unit(rng) < 0.3)
        OPT("speed_weight_var_mode=%d", rng_int(rng, 0, 6));
    if (!chroma && rng_unit(rng) < 0.3)
        OPT("speed_use_ref_diff=true");
#undef OPT
}

static int sq_min(int a, int b)
{
    return a < b ? a : b;
}

static int log_uniform(uint64_t *rng, int lo, int hi)
{
    if (hi <= lo)
        return lo;
    return (int)exp(log((double)lo) + (log((double)hi + 1) - log((double)lo)) * rng_unit(rng));
}

static int alloc_frames(Case *c, uint64_t *rng)
{
    const size_t bps = c->fmt.bpc > 8 ? 2 : 1;
    size_t off[3], total = 0;
    ptrdiff_t stride[3];
    for (int p = 0; p < 3; p++) {
        int w, h;
        plane_dims(&c->fmt, p, &w, &h);
        const size_t pad = rng ? (size_t)rng_int(rng, 0, 3) * 16 * bps : 0;
        stride[p] = (ptrdiff_t)(w * bps + pad);
        off[p] = total;
        total += (size_t)stride[p] * (size_t)h;
    }
    c->frame_bytes = total;
    for (int s = 0; s < 2; s++) {
        c->buf[s] = malloc(total * (size_t)c->nframes + 1);
        if (!c->buf[s])
            return -ENOMEM;
        for (int t = 0; t < c->nframes; t++) {
            SpeedqaPicture *pic = s ? &c->dis[t] : &c->ref[t];
            memset(pic, 0, sizeof(*pic));
            pic->format = c->fmt;
            for (int p = 0; p < 3; p++) {
                int w, h;
                plane_dims(&c->fmt, p, &w, &h);
                uint8_t *base = c->buf[s] + (size_t)t * total + off[p];
                if (!h) {
                    pic->data[p] = base;
                    continue;
                }
                pic->data[p] = c->neg_stride ? base + (size_t)(h - 1) * (size_t)stride[p] : base;
                pic->stride[p] = c->neg_stride ? -stride[p] : stride[p];
            }
        }
    }
    return 0;
}

int case_random(Case *c, uint64_t *rng, int index, int max_w, int max_h)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->name, sizeof(c->name), "random-%d", index);
    static const int bds[] = { 8, 10, 12, 16 };
    c->fmt.bpc = bds[rng_int(rng, 0, 3)];
    const int f = rng_int(rng, 0, 9);
    c->fmt.fmt = f < 4 ? SPEEDQA_PIX_420 : f < 6 ? SPEEDQA_PIX_422 : f < 9 ? SPEEDQA_PIX_444 : SPEEDQA_PIX_400;
    const int minw = c->fmt.fmt == SPEEDQA_PIX_420 || c->fmt.fmt == SPEEDQA_PIX_422 ? 160 : 80;
    const int minh = c->fmt.fmt == SPEEDQA_PIX_420 ? 160 : 80;
    const int pick = rng_int(rng, 0, 19);
    if (pick == 0 && max_w >= 3840 && max_h >= 2160) {
        c->fmt.width = 3840;
        c->fmt.height = 2160;
    } else if (pick == 1 && max_w >= 1920 && max_h >= 1080) {
        c->fmt.width = 1920;
        c->fmt.height = 1080;
    } else if (pick == 2) {
        c->fmt.width = minw + rng_int(rng, 0, 15);
        c->fmt.height = minh + rng_int(rng, 0, 15);
    } else if (pick <= 4) {
        c->fmt.width = log_uniform(rng, minw, max_w);
        c->fmt.height = log_uniform(rng, minh, max_h);
    } else {
        /* mostly planes big enough for many blocks (style: >= ~960 px chroma) */
        c->fmt.width = log_uniform(rng, sq_min(max_w, 3 * minw), max_w);
        c->fmt.height = log_uniform(rng, sq_min(max_h, 2 * minh), max_h);
    }
    c->nframes = rng_int(rng, 2, 4);
    if (rng_unit(rng) < 0.2)
        c->new_seq[rng_int(rng, 1, c->nframes - 1)] = 1;
    const double area = (double)c->fmt.width * c->fmt.height;
    const int kinds = c->fmt.fmt == SPEEDQA_PIX_400 ? 1 : rng_int(rng, 0, 3);
    /* 0: temporal, 1: chroma, 2: both, 3: two chroma instances + temporal */
    if (kinds != 1)
        random_feature(c->feat[c->nfeat++], sizeof(c->feat[0]), rng, 0, area);
    if (kinds >= 1)
        random_feature(c->feat[c->nfeat++], sizeof(c->feat[0]), rng, 1, area);
    if (kinds == 3)
        random_feature(c->feat[c->nfeat++], sizeof(c->feat[0]), rng, 1, area);
    if (kinds == 3 && !strcmp(c->feat[1], c->feat[2]))
        snprintf(c->feat[2], sizeof(c->feat[2]), "speed_chroma=speed_kernelscale=0.5");
    for (int i = 0; i < c->nfeat; i++)
        c->featp[i] = c->feat[i];
    c->featp[c->nfeat] = NULL;
    c->neg_stride = rng_unit(rng) < 0.15;
    c->device = rng_unit(rng) < 0.35;
    if (alloc_frames(c, rng) < 0) {
        case_free(c);
        return -ENOMEM;
    }
    PlaneGen g[3];
    for (int p = 0; p < 3; p++) {
        PlaneGen *q = &g[p];
        memset(q, 0, sizeof(*q));
        const double r = rng_unit(rng);
        q->tex = r < 0.35 ? TEX_SYNTH : r < 0.65 ? TEX_WAVES : r < 0.75 ? TEX_FLAT : r < 0.9 ? TEX_NOISE : TEX_PATCH;
        const double dr = rng_unit(rng);
        q->dis = dr < 0.4 ? DIS_QUANT : dr < 0.6 ? DIS_NOISE : dr < 0.7 ? DIS_SAME : dr < 0.8 ? DIS_FLAT : DIS_BLUR;
        for (int k = 0; k < 3; k++) {
            q->fx[k] = 0.002 + 0.3 * rng_unit(rng);
            q->fy[k] = 0.002 + 0.3 * rng_unit(rng);
            q->amp[k] = 60 * rng_unit(rng);
        }
        q->noise = 120 * rng_unit(rng);
        q->flat = rng_int(rng, 0, 255);
        q->qshift = rng_int(rng, 1, 5);
        q->seed = rng_next(rng);
    }
    for (int t = 0; t < c->nframes; t++)
        for (int p = 0; p < (c->fmt.fmt == SPEEDQA_PIX_400 ? 1 : 3); p++) {
            int w, h;
            plane_dims(&c->fmt, p, &w, &h);
            uint8_t *rb = (uint8_t *)c->ref[t].data[p], *db = (uint8_t *)c->dis[t].data[p];
            fill_plane(&g[p], w, h, c->fmt.bpc, t, rb, db, c->ref[t].stride[p]);
        }
    return 0;
}

int case_fixed(Case *c, const SpeedqaFormat *fmt, int nframes, uint64_t seed)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->name, sizeof(c->name), "fixed-%dx%d", fmt->width, fmt->height);
    c->fmt = *fmt;
    c->nframes = nframes;
    if (alloc_frames(c, NULL) < 0) {
        case_free(c);
        return -ENOMEM;
    }
    uint64_t rng = seed;
    for (int p = 0; p < 3; p++) {
        PlaneGen g;
        memset(&g, 0, sizeof(g));
        g.tex = p ? TEX_WAVES : TEX_SYNTH;
        g.dis = DIS_QUANT;
        for (int k = 0; k < 3; k++) {
            g.fx[k] = 0.01 + 0.2 * rng_unit(&rng);
            g.fy[k] = 0.01 + 0.2 * rng_unit(&rng);
            g.amp[k] = 20 + 30 * rng_unit(&rng);
        }
        g.noise = 40;
        g.qshift = 3;
        g.seed = rng_next(&rng);
        for (int t = 0; t < nframes; t++) {
            int w, h;
            plane_dims(&c->fmt, p, &w, &h);
            if (h)
                fill_plane(&g, w, h, c->fmt.bpc, t, (uint8_t *)c->ref[t].data[p],
                           (uint8_t *)c->dis[t].data[p], c->ref[t].stride[p]);
        }
    }
    return 0;
}

int case_from_file(Case *c, const char *name, const SpeedqaFormat *fmt, const char *ref_path,
                   const char *dis_path, int nframes, const char *feature)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->name, sizeof(c->name), "%s", name);
    c->fmt = *fmt;
    c->nframes = nframes;
    snprintf(c->feat[0], sizeof(c->feat[0]), "%s", feature);
    c->featp[0] = c->feat[0];
    c->nfeat = 1;
    if (alloc_frames(c, NULL) < 0) {
        case_free(c);
        return -ENOMEM;
    }
    const char *paths[2] = { ref_path, dis_path };
    for (int s = 0; s < 2; s++) {
        FILE *f = fopen(paths[s], "rb");
        size_t got = f ? fread(c->buf[s], 1, c->frame_bytes * (size_t)nframes, f) : 0;
        if (f)
            fclose(f);
        if (got != c->frame_bytes * (size_t)nframes) {
            case_free(c);
            return -EIO;
        }
    }
    return 0;
}

void case_free(Case *c)
{
    free(c->buf[0]);
    free(c->buf[1]);
    c->buf[0] = c->buf[1] = NULL;
}

void case_describe(const Case *c, char *buf, size_t len)
{
    static const char *const fmts[] = { "400", "420", "422", "444" };
    size_t n = (size_t)snprintf(buf, len, "%s %dx%d %s %d-bit %d fr%s%s", c->name, c->fmt.width,
                                c->fmt.height, fmts[c->fmt.fmt], c->fmt.bpc, c->nframes,
                                c->neg_stride ? " neg-stride" : "", c->device ? " device" : "");
    for (int i = 0; i < c->nfeat && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, " [%s]", c->feat[i]);
}
