/*
 * Semi-planar and MSB-aligned pictures (issue #17): NV12 (8-bit), P010
 * (10-bit in the top bits of 16-bit words, the low 6 bits random padding),
 * P016 (16-bit), semi-planar 10-bit LSB-aligned and NV16/NV24, at odd
 * sizes, with tight, padded and negative strides, all frames semi-planar or
 * the layouts mixed frame by frame (so speed_temporal subtracts a planar
 * previous frame from a semi-planar one and back), lent and copied. Every
 * score must equal, bit for bit, the score of the planar LSB-aligned
 * equivalent pictures on the same backend (adm's, vif's and cambi's too). Also: the one-line errors for
 * bad semi-planar pictures, and a sample above the depth in an LSB-aligned
 * semi-planar V plane failing the frame (-ERANGE) on every backend.
 *
 *   test_semiplanar cpu            public API: cpu_mask 0 / AVX2 / AVX-512 / all,
 *                                  1 and 3 threads, lent and copied; errors
 *   test_semiplanar null           the GPU pipeline on the host emulator
 *                                  (host and "device" pictures)
 *   test_semiplanar cuda|hip|opencl the public API, and the pipeline on
 *                                  that runtime with device-resident
 *                                  pictures where it takes them; 77 when
 *                                  the backend is not built or has no device
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "runner.h"

#define NF 5 /* frames per run; a new sequence starts at frame SEQ2 */
#define SEQ2 3

static int fails;
/* "quick" (sanitized builds): 3 threads only (1 thread runs in the plain build) */
static int min_threads = 1;

typedef struct Cfg {
    const char *name;
    int w, h;
    SpeedqaPixelFormat fmt;
    int bpc, msb;
    int stride_mode; /* 0 tight, 1 padded, 2 padded and negative */
} Cfg;

static const Cfg cfgs[] = {
    { "nv12", 403, 333, SPEEDQA_PIX_420, 8, 0, 0 },
    { "nv12-pad-neg", 385, 341, SPEEDQA_PIX_420, 8, 0, 2 },
    { "p010", 401, 339, SPEEDQA_PIX_420, 10, 1, 1 },
    { "p010-neg", 386, 334, SPEEDQA_PIX_420, 10, 1, 2 },
    { "p016", 399, 331, SPEEDQA_PIX_420, 16, 0, 1 },
    { "sp10-lsb", 387, 335, SPEEDQA_PIX_420, 10, 0, 2 },
    { "p012-nv16", 395, 171, SPEEDQA_PIX_422, 12, 1, 0 },
    { "nv16-neg", 389, 169, SPEEDQA_PIX_422, 8, 0, 2 },
    { "nv24", 197, 165, SPEEDQA_PIX_444, 8, 0, 1 },
    { "p416", 199, 163, SPEEDQA_PIX_444, 16, 0, 0 },
};

/* adm reads the luma of both sides in place (the CPU's one thread, a GPU's
 * device pictures: a stride and sample access per picture) or from copies;
 * vif too (the CPU widens what is not planar 16-bit, a GPU every picture). */
static const char *const features[] = {
    "speed_chroma",
    "speed_temporal",
    "speed_temporal=speed_use_ref_diff=true",
    "speed_chroma=speed_prescale=1.5:speed_kernelscale=0.5",
    "adm",
    "vif",
    NULL,
};

/* ... and cambi (the distorted luma, range-checked in place) where libvmaf takes
 * the size (a side of 216 or more; here both, so the v1.0.16 window fits too). */
static const char *const features_cambi[] = {
    "speed_chroma",
    "speed_temporal",
    "speed_temporal=speed_use_ref_diff=true",
    "speed_chroma=speed_prescale=1.5:speed_kernelscale=0.5",
    "adm",
    "vif",
    "cambi",
    "cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17",
    NULL,
};

static uint32_t hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* LSB-aligned value of a sample: textures plus noise (the luma's left third a
 * staircase), every value below 2^bpc. */
static uint32_t val(const Cfg *c, int f, int side, int plane, int x, int y)
{
    const uint32_t max = (1u << c->bpc) - 1;
    /* the luma's left third a smooth staircase without noise: bands for cambi */
    if (plane == 0 && x < c->w / 3)
        return ((uint32_t)(60 + (x + y + 3 * f) / 24) << (c->bpc - 8)) % (max + 1);
    uint32_t v = (uint32_t)((x * x + 3 * y * y + x * y * (plane + 1) + 7 * f * (x + 1)) >> 4);
    v += hash((uint32_t)(x * 7919 + y * 104729 + f * 31 + plane * 17 + side * 3)) % 97 * (side + 1);
    v = (v << (c->bpc - 8)) + (hash((uint32_t)(x + 1000 * y + f)) & ((1u << (c->bpc - 8)) - 1));
    return v % (max + 1);
}

static void plane_size(const Cfg *c, int p, int *w, int *h)
{
    *w = p && c->fmt != SPEEDQA_PIX_444 ? c->w >> 1 : c->w;
    *h = p && c->fmt == SPEEDQA_PIX_420 ? c->h >> 1 : c->h;
}

static void put(uint8_t *row, int x, int bps, uint32_t v)
{
    if (bps == 1)
        row[x] = (uint8_t)v;
    else {
        const uint16_t u = (uint16_t)v;
        memcpy(row + 2 * x, &u, 2);
    }
}

/* Pictures of one run: all allocations in one list, freed at the end. */
typedef struct Frames {
    SpeedqaPicture pic[2][NF];
    uint8_t *mem[2][NF];
    size_t bytes[2][NF];
    SqGpuAddr dev[2][NF];
} Frames;

/*
 * Fill frame f of a side as planar LSB-aligned (semi == 0, tight strides)
 * or as the configuration's semi-planar picture.
 */
static int build(const Cfg *c, int semi, int f, int side, Frames *fr)
{
    const int bps = c->bpc > 8 ? 2 : 1;
    const int shift = semi && c->msb ? 16 - c->bpc : 0;
    const int mode = semi ? c->stride_mode : 0;
    const int nplanes = semi ? 2 : 3;
    ptrdiff_t stride[3];
    size_t off[3], total = 0;
    for (int p = 0; p < nplanes; p++) {
        int w, h;
        plane_size(c, p, &w, &h);
        const size_t row = (size_t)w * (size_t)bps * (semi && p ? 2 : 1);
        stride[p] = (ptrdiff_t)(row + (mode ? 64 + 6 : 0));
        off[p] = total;
        total += (size_t)stride[p] * (size_t)h + 64;
    }
    uint8_t *m = malloc(total);
    if (!m)
        return -ENOMEM;
    memset(m, 0xEE, total);
    fr->mem[side][f] = m;
    fr->bytes[side][f] = total;
    SpeedqaPicture *pic = &fr->pic[side][f];
    memset(pic, 0, sizeof(*pic));
    pic->format = (SpeedqaFormat){ c->w, c->h, c->fmt, c->bpc };
    pic->layout = semi ? SPEEDQA_LAYOUT_SEMI_PLANAR : SPEEDQA_LAYOUT_PLANAR;
    pic->msb_aligned = semi && c->msb;
    for (int p = 0; p < 3; p++) {
        int w, h;
        plane_size(c, p, &w, &h);
        const int q = semi && p ? 1 : p; /* the plane it is stored in */
        uint8_t *base = m + off[q];
        for (int y = 0; y < h; y++) {
            /* negative strides: row y is stored at row h - 1 - y */
            uint8_t *row = base + (size_t)(mode == 2 ? h - 1 - y : y) * (size_t)stride[q];
            for (int x = 0; x < w; x++) {
                uint32_t v = val(c, f, side, p, x, y);
                if (shift)
                    v = v << shift | (hash((uint32_t)(x * 3 + y * 5 + f)) & ((1u << shift) - 1));
                if (semi && p)
                    put(row, 2 * x + (p == 2), bps, v);
                else
                    put(row, x, bps, v);
            }
        }
    }
    for (int p = 0; p < nplanes; p++) {
        int w, h;
        plane_size(c, p, &w, &h);
        uint8_t *base = m + off[p];
        pic->data[p] = mode == 2 ? base + (size_t)(h - 1) * (size_t)stride[p] : base;
        pic->stride[p] = mode == 2 ? -stride[p] : stride[p];
    }
    return 0;
}

/* variant 0: planar; 1: every picture semi-planar; 2: ref semi-planar on
 * even frames, dis on odd ones (the layouts mix within a sequence). */
static int build_all(const Cfg *c, int variant, Frames *fr)
{
    memset(fr, 0, sizeof(*fr));
    for (int f = 0; f < NF; f++)
        for (int s = 0; s < 2; s++) {
            const int semi = variant == 1 || (variant == 2 && (f + s) % 2 == 0);
            if (build(c, semi, f, s, fr) < 0)
                return -ENOMEM;
        }
    return 0;
}

static void free_all(Frames *fr)
{
    for (int s = 0; s < 2; s++)
        for (int f = 0; f < NF; f++)
            free(fr->mem[s][f]);
}

static long released;
static void on_release(void *opaque, const void *data0)
{
    (void)opaque;
    (void)data0;
    __atomic_fetch_add(&released, 1, __ATOMIC_RELAXED);
}

static void set_lent(Frames *fr, int lent)
{
    for (int s = 0; s < 2; s++)
        for (int f = 0; f < NF; f++)
            fr->pic[s][f].release = lent ? on_release : NULL;
}

/*
 * Through the public API: out[NF][TEST_MAX_SCORES], *nscores. 0, or a
 * negative errno (77 as -ENODEV for "no such backend here").
 */
static int api_run(const Cfg *c, SpeedqaBackend be, unsigned cpu_mask, int threads, Frames *fr,
                   double out[NF][TEST_MAX_SCORES], int *nscores)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = (SpeedqaFormat){ c->w, c->h, c->fmt, c->bpc };
    s.features = c->w >= 216 && c->h >= 216 ? features_cambi : features;
    s.backend = be;
    s.cpu_mask = cpu_mask;
    s.n_threads = threads;
    LogCapture lc = { .quiet = 1 };
    s.logger = log_capture;
    s.log_cookie = &lc;
    SpeedqaContext *ctx;
    int ret = speedqa_open(&ctx, &s);
    if (ret < 0) {
        fprintf(stderr, "  open: %s\n", lc.last);
        return ret;
    }
    *nscores = speedqa_score_count(ctx);
    int got = 0;
    TestScores sc;
    for (int f = 0; f < NF && ret >= 0; f++) {
        if (f == SEQ2) {
            speedqa_flush(ctx);
            while ((ret = test_receive(ctx, &sc, 1, 0)) == 0)
                memcpy(out[got++], sc.values, sizeof(sc.values));
            ret = ret == SPEEDQA_EOF ? 0 : ret;
        }
        while (ret >= 0 && (ret = speedqa_send(ctx, &fr->pic[0][f], &fr->pic[1][f])) == -EAGAIN)
            if ((ret = test_receive(ctx, &sc, 1, 0)) == 0)
                memcpy(out[got++], sc.values, sizeof(sc.values));
        while (ret >= 0 && test_receive(ctx, &sc, 1, 0) == 0)
            memcpy(out[got++], sc.values, sizeof(sc.values));
    }
    if (ret >= 0) {
        speedqa_flush(ctx);
        while ((ret = test_receive(ctx, &sc, 1, 0)) == 0)
            memcpy(out[got++], sc.values, sizeof(sc.values));
        ret = ret == SPEEDQA_EOF ? 0 : ret;
    }
    if (ret < 0)
        fprintf(stderr, "  api run: %s: %s\n", speedqa_strerror(ret), lc.last);
    speedqa_close(&ctx);
    if (ret >= 0 && got != NF) {
        fprintf(stderr, "  api run: %d frames scored, not %d\n", got, NF);
        ret = -EIO;
    }
    return ret;
}

/* The pipeline on fns (runner), optionally with the pictures in device memory. */
static int pipe_run(const Cfg *c, const SqGpuFns *fns, SqGpuDev *dev, int threads, Frames *fr,
                    double out[NF][TEST_MAX_SCORES], int *nscores)
{
    char err[400];
    Runner r;
    SpeedqaFormat fmt = { c->w, c->h, c->fmt, c->bpc };
    SpeedqaPicture ref[NF], dis[NF];
    double flat[NF * TEST_MAX_SCORES];
    int new_seq[NF] = { 0 };
    new_seq[SEQ2] = 1;
    memcpy(ref, fr->pic[0], sizeof(ref));
    memcpy(dis, fr->pic[1], sizeof(dis));
    int ret = 0;
    if (dev) { /* the same bytes in device memory, the planes at the same offsets */
        if (fns->enter && fns->enter(dev) < 0)
            return -EIO;
        for (int s = 0; s < 2 && ret >= 0; s++)
            for (int f = 0; f < NF && ret >= 0; f++) {
                if ((ret = fns->alloc(dev, fr->bytes[s][f], &fr->dev[s][f])) < 0 ||
                    (ret = fns->upload(dev, SQ_GPU_STREAM_COPY, fr->dev[s][f], fr->mem[s][f],
                                       fr->bytes[s][f])) < 0)
                    break;
                SpeedqaPicture *p = s ? &dis[f] : &ref[f];
                for (int q = 0; q < 3; q++)
                    if (p->data[q])
                        p->data[q] = (const void *)(uintptr_t)(fr->dev[s][f] +
                            (SqGpuAddr)((const uint8_t *)p->data[q] - fr->mem[s][f]));
                p->memory = SPEEDQA_MEM_CUDA;
                p->release = NULL;
            }
        if (ret >= 0 && ((ret = fns->event_record(dev, 0, SQ_GPU_STREAM_COPY)) >= 0))
            ret = fns->event_sync(dev, 0);
        if (fns->leave)
            fns->leave(dev);
        if (ret < 0) {
            fprintf(stderr, "  device copy failed\n");
            return ret;
        }
    }
    if ((ret = runner_open(&r, NULL, fns, &fmt, c->w >= 216 && c->h >= 216 ? features_cambi : features,
                           threads, NULL, err, sizeof(err))) < 0) {
        fprintf(stderr, "  pipeline open: %s\n", err);
        return ret;
    }
    *nscores = r.nscores;
    ret = runner_run(&r, ref, dis, NF, new_seq, flat, err, sizeof(err));
    if (ret < 0)
        fprintf(stderr, "  pipeline run: %s\n", err);
    runner_close(&r);
    for (int f = 0; ret >= 0 && f < NF; f++)
        memcpy(out[f], flat + (size_t)f * (size_t)*nscores, sizeof(double) * (size_t)*nscores);
    if (dev) {
        if (fns->enter)
            fns->enter(dev);
        for (int s = 0; s < 2; s++)
            for (int f = 0; f < NF; f++)
                if (fr->dev[s][f])
                    fns->free(dev, fr->dev[s][f]);
        if (fns->leave)
            fns->leave(dev);
        memset(fr->dev, 0, sizeof(fr->dev));
    }
    return ret;
}

static int same(double want[NF][TEST_MAX_SCORES], double got[NF][TEST_MAX_SCORES], int n,
                const char *what)
{
    for (int f = 0; f < NF; f++)
        for (int i = 0; i < n; i++)
            if (memcmp(&want[f][i], &got[f][i], sizeof(double))) {
                printf("FAIL %s: frame %d score %d: %.17g != planar %.17g\n", what, f, i,
                       got[f][i], want[f][i]);
                if (getenv("SEMIPLANAR_DEBUG"))
                    for (int g = 0; g < NF; g++)
                        for (int j = 0; j < n; j++)
                            printf("  frame %d score %d: %.17g planar %.17g\n", g, j, got[g][j],
                                   want[g][j]);
                fails++;
                return 0;
            }
    return 1;
}

/* One configuration on one backend: planar first, then each variant and way of running. */
static int check_cfg(const Cfg *c, const char *backend, const SqGpuFns *fns, SqGpuDev *dev)
{
    Frames planar, fr;
    double want[NF][TEST_MAX_SCORES], got[NF][TEST_MAX_SCORES];
    int n = 0, m = 0, ret, runs = 0;
    const int api_be = !strcmp(backend, "cpu") ? SPEEDQA_BACKEND_CPU : runner_api_backend(backend);
    if (build_all(c, 0, &planar) < 0)
        return -ENOMEM;
    ret = api_be >= 0 ? api_run(c, (SpeedqaBackend)api_be, ~0u, 1, &planar, want, &n)
                      : pipe_run(c, fns, NULL, 1, &planar, want, &n);
    if (ret < 0) {
        free_all(&planar);
        return ret;
    }
    /* the content must exercise every plane: each score nonzero on some frame */
    for (int i = 0; i < n; i++) {
        int any = 0;
        for (int f = 0; f < NF; f++)
            any |= want[f][i] != 0.0;
        if (!any) {
            printf("FAIL %s %s: score %d is 0 on every planar frame (test content)\n", backend,
                   c->name, i);
            fails++;
        }
    }
    /* the pipeline on planar pictures, what its semi-planar runs must give */
    double wp[NF][TEST_MAX_SCORES];
    int np = 0;
    if (fns && api_be >= 0 && dev && (ret = pipe_run(c, fns, NULL, 1, &planar, wp, &np)) < 0) {
        free_all(&planar);
        return ret;
    }
    if (fns && api_be < 0) {
        memcpy(wp, want, sizeof(wp));
        np = n;
    }
    char what[200];
    for (int variant = 1; variant <= 2; variant++) {
        if (build_all(c, variant, &fr) < 0) {
            free_all(&planar);
            return -ENOMEM;
        }
        const char *vname = variant == 1 ? "semi" : "mixed";
        if (api_be >= 0) {
            static const unsigned masks[] = { 0, SPEEDQA_CPU_AVX2, SPEEDQA_CPU_AVX512, ~0u };
            const int nmasks = api_be == SPEEDQA_BACKEND_CPU ? 4 : 1;
            for (int mi = 0; mi < nmasks; mi++)
                for (int threads = min_threads; threads <= 3; threads += 2)
                    for (int lent = 0; lent < 2; lent++) {
                        set_lent(&fr, lent);
                        released = 0;
                        snprintf(what, sizeof(what), "%s %s %s mask %#x threads %d %s", backend,
                                 c->name, vname, masks[mi], threads, lent ? "lent" : "copied");
                        ret = api_run(c, (SpeedqaBackend)api_be, masks[mi], threads, &fr, got, &m);
                        runs++;
                        if (ret < 0 || m != n) {
                            printf("FAIL %s: run failed (%d)\n", what, ret);
                            fails++;
                        } else if (lent && released != 2 * NF) {
                            printf("FAIL %s: %ld releases, not %d\n", what, released, 2 * NF);
                            fails++;
                        } else
                            same(want, got, n, what);
                    }
            set_lent(&fr, 0);
        }
        if (fns) {
            /* host pictures through the pipeline where the public API did not run them */
            for (int place = api_be >= 0; place < (dev ? 2 : 1); place++)
                for (int threads = min_threads; threads <= 3; threads += 2)
                    for (int lent = 0; lent < (place ? 1 : 2); lent++) {
                        set_lent(&fr, lent);
                        snprintf(what, sizeof(what), "%s pipeline %s %s %s threads %d %s", backend,
                                 c->name, vname, place ? "device" : "host", threads,
                                 lent ? "lent" : "copied");
                        if (pipe_run(c, fns, place ? dev : NULL, threads, &fr, got, &m) < 0 ||
                            m != np) {
                            printf("FAIL %s: run failed\n", what);
                            fails++;
                        } else {
                            same(wp, got, m, what);
                            if (np == n)
                                same(want, got, n, what);
                        }
                        runs++;
                    }
            set_lent(&fr, 0);
        }
        free_all(&fr);
    }
    free_all(&planar);
    printf("%-4s %s %s: %d runs\n", fails ? "..." : "ok", backend, c->name, runs);
    return 0;
}

/* Bad semi-planar pictures: -EINVAL and one line naming the cause. */
static void expect(SpeedqaContext *ctx, LogCapture *lc, const SpeedqaPicture *ref,
                   const SpeedqaPicture *dis, int want, const char *msg, const char *what)
{
    lc->last[0] = 0;
    const int ret = speedqa_send(ctx, ref, dis);
    if (ret != want || (msg && !strstr(lc->last, msg))) {
        printf("FAIL errors %s: %d \"%s\" (want %d, \"%s\")\n", what, ret, lc->last, want,
               msg ? msg : "");
        fails++;
    } else if (msg)
        printf("ok   errors %s: \"%s\"\n", what, lc->last);
    TestScores sc;
    while (test_receive(ctx, &sc, 1, 0) == 0)
        ;
}

static void check_errors(void)
{
    static const Cfg c8 = { "e8", 192, 176, SPEEDQA_PIX_420, 8, 0, 0 };
    static const Cfg c10 = { "e10", 192, 176, SPEEDQA_PIX_420, 10, 1, 0 };
    static const Cfg c16 = { "e16", 192, 176, SPEEDQA_PIX_420, 16, 0, 0 };
    static const Cfg c10l = { "e10l", 192, 176, SPEEDQA_PIX_420, 10, 0, 0 };
    const Cfg *cs[] = { &c8, &c10, &c16, &c10l };
    for (int k = 0; k < 4; k++) {
        const Cfg *c = cs[k];
        Frames fr;
        if (build_all(c, 1, &fr) < 0) {
            fails++;
            return;
        }
        SpeedqaSettings s;
        speedqa_default_settings(&s);
        test_env_settings(&s);
        s.format = (SpeedqaFormat){ c->w, c->h, c->fmt, c->bpc };
        LogCapture lc = { .quiet = 1 };
        s.logger = log_capture;
        s.log_cookie = &lc;
        const char *const feat[] = { "speed_chroma", NULL };
        s.features = feat;
        SpeedqaContext *ctx;
        if (speedqa_open(&ctx, &s) < 0) {
            printf("FAIL errors: open %s: %s\n", c->name, lc.last);
            fails++;
            free_all(&fr);
            return;
        }
        const SpeedqaPicture good = fr.pic[0][0], dis = fr.pic[1][0];
        SpeedqaPicture bad;
        if (k == 0) {
            bad = good;
            bad.layout = (SpeedqaLayout)7;
            expect(ctx, &lc, &bad, &dis, -EINVAL, "layout 7 is not a SpeedqaLayout", "layout");
            bad = good;
            bad.msb_aligned = 1;
            expect(ctx, &lc, &bad, &dis, -EINVAL, "msb_aligned needs a depth of 9..15", "msb 8-bit");
            bad = good;
            bad.stride[1] = 96; /* one chroma row of U only */
            expect(ctx, &lc, &bad, &dis, -EINVAL, "stride 96 is smaller than a row (192 bytes, U and V interleaved)", "uv stride");
            bad = good;
            bad.stride[1] = -(192 - 1);
            expect(ctx, &lc, &dis, &bad, -EINVAL, "distorted picture plane 1: stride -191", "neg stride");
            bad = good;
            bad.data[1] = NULL;
            expect(ctx, &lc, &bad, &dis, -EINVAL, "plane 1 is NULL", "uv NULL");
            bad = good;
            bad.data[2] = NULL; /* not read: fine */
            bad.stride[2] = 0;
            expect(ctx, &lc, &bad, &dis, 0, NULL, "data[2] unused");
        } else if (k == 1) {
            bad = good;
            bad.msb_aligned = 2;
            expect(ctx, &lc, &bad, &dis, -EINVAL, "msb_aligned 2 is not 0 or 1", "msb 2");
            bad = good;
            bad.stride[1] = 384 - 2;
            expect(ctx, &lc, &bad, &dis, -EINVAL, "(384 bytes, U and V interleaved)", "uv stride 16-bit");
            /* P010 padding bits set everywhere: never out of range */
            expect(ctx, &lc, &good, &dis, 0, NULL, "p010 padding");
        } else if (k == 2) {
            bad = good;
            bad.msb_aligned = 1;
            expect(ctx, &lc, &bad, &dis, -EINVAL, "msb_aligned needs a depth of 9..15 bits in 16-bit samples, not 16", "msb 16-bit");
        } else {
            /* LSB-aligned semi-planar 10-bit: a V sample above 1023 fails the frame */
            const uint16_t v = 0xFFFF;
            memcpy((uint8_t *)(uintptr_t)dis.data[1] + 2, &v, 2); /* V of column 0, row 0 */
            expect(ctx, &lc, &good, &dis, -ERANGE, "plane V: sample value 65535", "range V");
        }
        speedqa_close(&ctx);
        free_all(&fr);
    }
}

/* cambi range-checks the distorted luma it alone reads (LSB-aligned 10-bit, in place),
 * as libvmaf fails such a frame; the reference's luma is not read. */
static void check_range_cambi(void)
{
    static const Cfg c = { "cambi-range", 256, 232, SPEEDQA_PIX_420, 10, 0, 0 };
    Frames fr;
    if (build_all(&c, 1, &fr) < 0) {
        fails++;
        return;
    }
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = (SpeedqaFormat){ c.w, c.h, c.fmt, c.bpc };
    LogCapture lc = { .quiet = 1 };
    s.logger = log_capture;
    s.log_cookie = &lc;
    const char *const feat[] = { "cambi", NULL };
    s.features = feat;
    SpeedqaContext *ctx;
    if (speedqa_open(&ctx, &s) < 0) {
        printf("FAIL errors: open %s: %s\n", c.name, lc.last);
        fails++;
        free_all(&fr);
        return;
    }
    const SpeedqaPicture ref = fr.pic[0][0], dis = fr.pic[1][0];
    const uint16_t v = 0xFFFF, keep = *(const uint16_t *)(const void *)dis.data[0];
    memcpy((uint8_t *)(uintptr_t)ref.data[0], &v, 2); /* the reference's: not read */
    expect(ctx, &lc, &ref, &dis, 0, NULL, "cambi reference luma not read");
    memcpy((uint8_t *)(uintptr_t)dis.data[0], &v, 2);
    expect(ctx, &lc, &ref, &dis, -ERANGE, "distorted frame 1, plane Y: sample value 65535",
           "cambi range Y");
    memcpy((uint8_t *)(uintptr_t)dis.data[0], &keep, 2);
    speedqa_close(&ctx);
    free_all(&fr);
}

/* A GPU backend finds a V sample above the depth of an LSB-aligned semi-planar picture. */
static void check_range_gpu(const char *backend, const SqGpuFns *fns, SqGpuDev *dev)
{
    static const Cfg c = { "range", 192, 176, SPEEDQA_PIX_420, 10, 0, 2 };
    Frames fr;
    double out[NF][TEST_MAX_SCORES];
    int n, ret;
    if (build_all(&c, 1, &fr) < 0) {
        fails++;
        return;
    }
    const uint16_t bad = 0xFFFF;
    memcpy((uint8_t *)(uintptr_t)fr.pic[1][2].data[1] + 2, &bad, 2); /* V, frame 2, row 0 */
    const int api_be = runner_api_backend(backend);
    for (int place = 0; place < 3; place++) {
        const char *how = place == 0 ? "api" : place == 1 ? "pipeline host" : "pipeline device";
        if ((place == 0 && api_be < 0) || (place == 2 && !dev))
            continue;
        ret = place == 0 ? api_run(&c, (SpeedqaBackend)api_be, ~0u, 1, &fr, out, &n)
                         : pipe_run(&c, fns, place == 2 ? dev : NULL, 1, &fr, out, &n);
        if (ret != -ERANGE) {
            printf("FAIL %s range %s: %d, not -ERANGE\n", backend, how, ret);
            fails++;
        } else
            printf("ok   %s range %s: -ERANGE\n", backend, how);
    }
    free_all(&fr);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *backend = argc > 1 ? argv[1] : "cpu";
    if (argc > 2 && !strcmp(argv[2], "quick"))
        min_threads = 3;
    const SqGpuFns *fns = NULL;
    SqGpuDev *dev = NULL;
    if (strcmp(backend, "cpu")) {
        fns = runner_gpu_fns(backend);
        const int api_be = runner_api_backend(backend);
        if (!fns && api_be < 0) {
            printf("SKIP: unknown backend %s\n", backend);
            return 77;
        }
        if (!fns) {
            printf("SKIP: %s not built\n", backend);
            return 77;
        }
        char err[400];
        static const SqAlloc plain = { 0 };
        const int ret = fns->open(&dev, -1, 1, &plain, err, sizeof(err));
        if (ret < 0) {
            printf("SKIP: %s: %s\n", backend, err);
            return ret == -ENODEV || ret == -ENOSYS ? 77 : 1;
        }
        if (fns->device_memory < 0 || !fns->copy2d) { /* host pictures only */
            fns->close(&dev);
            dev = NULL;
        }
    } else {
        check_errors();
        check_range_cambi();
    }
    for (size_t i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++) {
        const int ret = check_cfg(&cfgs[i], backend, fns, dev);
        if (ret == -ENODEV || ret == -ENOSYS) {
            printf("SKIP: %s has no device\n", backend);
            return 77;
        }
        if (ret < 0) {
            printf("FAIL %s %s: %s\n", backend, cfgs[i].name, speedqa_strerror(ret));
            fails++;
        }
    }
    if (fns)
        check_range_gpu(backend, fns, dev);
    if (dev)
        fns->close(&dev);
    printf("%s\n", fails ? "FAILED" : "all semi-planar scores equal the planar ones");
    return fails ? 1 : 0;
}
