/*
 * Long run: 1000 generated 3840x2160 8-bit 4:2:0 frame pairs through both
 * features, resident memory sampled every 100 frames; after frame 100 it
 * must stay flat (growth < 1 MiB), and the library must not allocate
 * anything after open (counted through the allocator hook).
 *
 * Frames cost nothing to generate: ref and dis are windows into two large
 * textures (dis = ref + noise and a small shift), moved by a few pixels per
 * frame, so the content changes every frame (speed_temporal is non-zero).
 * Not part of the default test run (it takes a while); .ci/reliability.sh
 * runs it:  longrun [frames=1000] [n_threads=0 (one per core)]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "speedqa/speedqa.h"

#define W 3840
#define H 2160
#define MX 256   /* horizontal travel of the window */
#define MY 128
#define TW (W + MX)
#define TH (H + MY)

typedef struct Count {
    long allocs, frees;
} Count;

static void *c_alloc(void *o, size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 1))
        return NULL;
    ((Count *)o)->allocs++;
    return p;
}

static void c_free(void *o, void *p)
{
    ((Count *)o)->frees++;
    free(p);
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, res = -1;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &res) != 2)
            res = -1;
        fclose(f);
    }
    return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Smooth texture plus fine noise: enough structure for every block. */
static uint8_t *texture(int w, int h, uint32_t seed, const uint8_t *base, int noise)
{
    uint8_t *t = malloc((size_t)w * h);
    if (!t)
        return NULL;
    uint32_t s = seed;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            s = s * 1664525u + 1013904223u;
            int v;
            if (base) {
                const int sx = x > 0 ? x - 1 : 0; /* shifted by one pixel */
                v = base[(size_t)y * w + sx] + (int)(s >> 29) * noise / 4 - noise;
            } else {
                v = (int)((unsigned)((x * x) / 97 + (y * y) / 61 + x * y / 53 + (x ^ y) % 41) % 180) + 30 +
                    (int)(s >> 28);
            }
            t[(size_t)y * w + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    return t;
}

int main(int argc, char **argv)
{
    const int frames = argc > 1 ? atoi(argv[1]) : 1000;
    const int threads = argc > 2 ? atoi(argv[2]) : 0;
    uint8_t *ty[2], *tu[2], *tv[2];
    ty[0] = texture(TW, TH, 1, NULL, 0);
    tu[0] = texture(TW / 2, TH / 2, 2, NULL, 0);
    tv[0] = texture(TW / 2, TH / 2, 3, NULL, 0);
    ty[1] = ty[0] ? texture(TW, TH, 4, ty[0], 6) : NULL;
    tu[1] = tu[0] ? texture(TW / 2, TH / 2, 5, tu[0], 4) : NULL;
    tv[1] = tv[0] ? texture(TW / 2, TH / 2, 6, tv[0], 4) : NULL;
    if (!ty[0] || !tu[0] || !tv[0] || !ty[1] || !tu[1] || !tv[1]) {
        fprintf(stderr, "out of memory for the textures\n");
        return 2;
    }

    Count cnt = { 0, 0 };
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, 8 };
    s.n_threads = threads;
    s.alloc = c_alloc;
    s.free = c_free;
    s.alloc_opaque = &cnt;
    SpeedqaContext *ctx;
    int r = speedqa_open(&ctx, &s);
    if (r < 0) {
        fprintf(stderr, "open: %s\n", speedqa_strerror(r));
        return 1;
    }
    const long allocs_open = cnt.allocs;
    const int nscores = speedqa_score_count(ctx);
    long rss[64];
    int nrss = 0, bad = 0, received = 0;
    double sum[8] = { 0 }, t0 = now(); /* the default features' 4 scores */
    if (nscores > 8)
        return 1;
    rss[nrss++] = rss_kib();
    printf("longrun: %d frames %dx%d 4:2:0 8-bit, %d scores, n_threads %d, %ld allocations at open\n",
           frames, W, H, nscores, threads, allocs_open);
    printf("  frame %5d  rss %7ld KiB\n", 0, rss[0]);
    fflush(stdout);

    SpeedqaScores sc;
    for (int f = 0; f < frames; f++) {
        /* the window travels right and down, wrapping inside the texture */
        const int ox = (f * 7) % MX & ~1, oy = (f * 3) % MY & ~1;
        SpeedqaPicture p[2];
        for (int side = 0; side < 2; side++) {
            memset(&p[side], 0, sizeof p[side]);
            p[side].format = s.format;
            p[side].data[0] = ty[side] + (size_t)oy * TW + ox;
            p[side].data[1] = tu[side] + (size_t)(oy / 2) * (TW / 2) + ox / 2;
            p[side].data[2] = tv[side] + (size_t)(oy / 2) * (TW / 2) + ox / 2;
            p[side].stride[0] = TW;
            p[side].stride[1] = p[side].stride[2] = TW / 2;
        }
        while ((r = speedqa_send(ctx, &p[0], &p[1])) == -EAGAIN) {
            if ((r = speedqa_receive(ctx, &sc, 1, 0)) < 0)
                break;
            for (int i = 0; i < nscores; i++) {
                bad += !isfinite(sc.values[i]);
                sum[i] += sc.values[i];
            }
            received++;
        }
        if (r < 0) {
            fprintf(stderr, "frame %d: %s\n", f, speedqa_strerror(r));
            return 1;
        }
        while (speedqa_receive(ctx, &sc, 1, 0) == 0) {
            for (int i = 0; i < nscores; i++) {
                bad += !isfinite(sc.values[i]);
                sum[i] += sc.values[i];
            }
            received++;
        }
        if ((f + 1) % 100 == 0 && nrss < 64) {
            rss[nrss++] = rss_kib();
            printf("  frame %5d  rss %7ld KiB  (%.1f s, %.2f frames/s)\n", f + 1, rss[nrss - 1],
                   now() - t0, (f + 1) / (now() - t0));
            fflush(stdout);
        }
    }
    speedqa_flush(ctx);
    while (speedqa_receive(ctx, &sc, 1, 0) == 0) {
        for (int i = 0; i < nscores; i++) {
            bad += !isfinite(sc.values[i]);
            sum[i] += sc.values[i];
        }
        received++;
    }
    const long allocs_end = cnt.allocs;
    for (int i = 0; i < nscores; i++)
        printf("  mean %-22s %.6f\n", speedqa_score_name(ctx, i), sum[i] / (received ? received : 1));
    speedqa_close(&ctx);

    int fail = 0;
    if (received != frames) {
        printf("FAIL %d of %d frames received\n", received, frames);
        fail = 1;
    }
    if (bad) {
        printf("FAIL %d non-finite scores\n", bad);
        fail = 1;
    }
    if (allocs_end != allocs_open) {
        printf("FAIL %ld allocations after open\n", allocs_end - allocs_open);
        fail = 1;
    }
    if (cnt.allocs != cnt.frees) {
        printf("FAIL leak: %ld allocations, %ld frees\n", cnt.allocs, cnt.frees);
        fail = 1;
    }
    long worst = 0;
    for (int i = 2; i < nrss; i++) /* rss[1] is frame 100 */
        if (rss[i] - rss[1] > worst)
            worst = rss[i] - rss[1];
    if (nrss > 2 && (rss[1] < 0 || worst >= 1024)) {
        printf("FAIL resident memory grew %ld KiB after frame 100\n", worst);
        fail = 1;
    }
    printf("%s longrun: %d frames in %.1f s, rss growth after frame 100: %ld KiB\n", fail ? "FAIL" : "ok  ",
           frames, now() - t0, worst);
    for (int i = 0; i < 2; i++) {
        free(ty[i]);
        free(tu[i]);
        free(tv[i]);
    }
    return fail;
}
