/*
 * Hard limits and size arithmetic at the largest geometry speedqa_open
 * accepts (65536x65536), without needing the memory: an allocator that
 * refuses every request above a cap (and past a total) records what the
 * library asks for. Promises checked, for 4:0:0..4:4:4, 8 and 16 bits,
 * 1 and 3 threads, prescale 1, 0.25 and 4:
 *  - open fails with -ENOMEM, *out NULL, every allocation freed;
 *    or opens within the caps (chroma 4:2:x on one thread needs < 512 MiB);
 *  - no request is absurd (>= 2^44 bytes, what a wrapped size computation
 *    would ask for); the largest one is printed;
 *  - 65537 and other sizes beyond the limits are -EINVAL before any
 *    allocation.
 *
 *   limits                        the checks above (a normal test)
 *   limits --score W H FMT BPC [THREADS [FEATURE]]
 *                                 really open and score two frames of that
 *                                 geometry (needs the memory: run on a big
 *                                 machine for 65536 65536); exits 0 when
 *                                 every score is finite or open said -ENOMEM
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "speedqa/speedqa.h"

typedef struct Capped {
    size_t cap, total_cap;
    size_t live, largest_asked, largest_given;
    long allocs, frees, refused;
    int absurd;
} Capped;

static void *capped_alloc(void *o, size_t n)
{
    Capped *c = o;
    if (n > c->largest_asked)
        c->largest_asked = n;
    if (n >= (size_t)1 << 44)
        c->absurd = 1;
    if (n > c->cap || c->live + n > c->total_cap) {
        c->refused++;
        return NULL;
    }
    void *p = NULL;
    if (posix_memalign(&p, 64, n + 64))
        return NULL;
    *(size_t *)p = n;
    c->live += n;
    c->allocs++;
    if (n > c->largest_given)
        c->largest_given = n;
    return (char *)p + 64;
}

static void capped_free(void *o, void *ptr)
{
    Capped *c = o;
    char *base = (char *)ptr - 64;
    c->live -= *(size_t *)base;
    c->frees++;
    free(base);
}

static int failures;

static const char *fmt_name(SpeedqaPixelFormat f)
{
    static const char *const n[] = { "400", "420", "422", "444" };
    return (unsigned)f < 4 ? n[f] : "?";
}

static void open_capped(int w, int h, SpeedqaPixelFormat fmt, int bpc, int threads, const char *feat,
                        size_t cap)
{
    Capped c = { .cap = cap, .total_cap = (size_t)512 << 20 };
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.format = (SpeedqaFormat){ w, h, fmt, bpc };
    const char *feats[] = { feat, NULL };
    s.features = feats;
    s.n_threads = threads;
    s.alloc = capped_alloc;
    s.free = capped_free;
    s.alloc_opaque = &c;
    SpeedqaContext *ctx = (SpeedqaContext *)&c;
    const int r = speedqa_open(&ctx, &s);
    const size_t live_open = c.live;
    if (r == 0)
        speedqa_close(&ctx);
    /* fails cleanly with -ENOMEM, or works within the caps; never a
     * request that only a wrapped computation could produce */
    const int ok = ((r == -ENOMEM && c.refused >= 1) || r == 0) && ctx == NULL && c.allocs == c.frees &&
                   c.live == 0 && !c.absurd;
    printf("%s %5dx%-5d %s %2d-bit %d thr %-62s cap %3zu MiB -> %3d, %2ld allocs, largest ask %6llu MiB",
           ok ? "ok  " : "FAIL", w, h, fmt_name(fmt), bpc, threads, feat, cap >> 20, r, c.allocs,
           (unsigned long long)(c.largest_asked >> 20));
    if (r == 0)
        printf(", opened with %zu MiB", live_open >> 20);
    printf("\n");
    if (!ok) {
        printf("     allocs %ld frees %ld live %zu absurd %d refused %ld\n", c.allocs, c.frees, c.live,
               c.absurd, c.refused);
        failures++;
    }
}

static void open_invalid(int w, int h, SpeedqaPixelFormat fmt, int bpc)
{
    Capped c = { .cap = SIZE_MAX, .total_cap = SIZE_MAX };
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.format = (SpeedqaFormat){ w, h, fmt, bpc };
    s.alloc = capped_alloc;
    s.free = capped_free;
    s.alloc_opaque = &c;
    SpeedqaContext *ctx = (SpeedqaContext *)&c;
    const int r = speedqa_open(&ctx, &s);
    const int ok = r == -EINVAL && ctx == NULL && c.allocs == 0 && c.refused == 0;
    printf("%s %dx%d %s %d-bit refused before allocating -> %d\n", ok ? "ok  " : "FAIL", w, h,
           fmt_name(fmt), bpc, r);
    failures += !ok;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long rss_mib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, res = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &res) != 2)
            res = 0;
        fclose(f);
    }
    return res * (sysconf(_SC_PAGESIZE) / 1024) / 1024;
}

/*
 * --score: the real thing, at any size the machine has memory for. To need
 * as little as possible, every plane of both pictures is a window into one
 * buffer of the largest plane plus two rows: ref starts at row f, dis at
 * row f + 1 (so they differ, and frame 1 differs from frame 0); U and V
 * are the same samples. The library only reads the planes.
 */
static int score(int argc, char **argv)
{
    const int w = atoi(argv[2]), h = atoi(argv[3]), fmt = atoi(argv[4]), bpc = atoi(argv[5]);
    const int threads = argc > 6 ? atoi(argv[6]) : 1;
    const char *feat = argc > 7 ? argv[7] : NULL;
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.format = (SpeedqaFormat){ w, h, (SpeedqaPixelFormat)fmt, bpc };
    const char *feats[] = { feat, NULL };
    s.features = feat ? feats : NULL;
    s.n_threads = threads;
    double t0 = now();
    SpeedqaContext *ctx;
    int r = speedqa_open(&ctx, &s);
    printf("open %dx%d fmt %d %d-bit, %d threads, %s: %d (%s) in %.1f s, rss %ld MiB\n", w, h, fmt, bpc,
           threads, feat ? feat : "defaults", r, speedqa_strerror(r), now() - t0, rss_mib());
    fflush(stdout);
    if (r == -ENOMEM)
        return 0;
    if (r < 0)
        return 1;
    const size_t bps = bpc > 8 ? 2 : 1;
    const size_t cw = fmt == SPEEDQA_PIX_444 ? (size_t)w : (size_t)w / 2;
    /* the luma plane is the largest; chroma windows use its first rows */
    const size_t samples = (size_t)w * ((size_t)h + 2);
    uint8_t *buf = malloc(samples * bps);
    if (!buf) {
        printf("no memory for the test frames\n");
        speedqa_close(&ctx);
        return 0;
    }
    const unsigned maxv = (1u << bpc) - 1;
    uint32_t st = 1234567u;
    for (size_t i = 0; i < samples; i++) {
        st = st * 1664525u + 1013904223u;
        const size_t x = i % (size_t)w, y = i / (size_t)w;
        unsigned v = (unsigned)(((x * 7 + y * 3) ^ (x * y / 5)) % 200 + 20 + (st >> 29));
        v = (v << (bpc - 8)) & maxv;
        if (bps == 2)
            ((uint16_t *)buf)[i] = (uint16_t)v;
        else
            buf[i] = (uint8_t)v;
    }
    printf("frames ready (%zu MiB), rss %ld MiB\n", (samples * bps) >> 20, rss_mib());
    fflush(stdout);
    int bad = 0, got = 0;
    for (int f = 0; f < 2; f++) {
        SpeedqaPicture p[2];
        for (int side = 0; side < 2; side++) {
            const size_t row = (size_t)(f + side);
            memset(&p[side], 0, sizeof p[side]);
            p[side].format = s.format;
            p[side].data[0] = buf + row * (size_t)w * bps;
            p[side].stride[0] = (ptrdiff_t)((size_t)w * bps);
            if (fmt != SPEEDQA_PIX_400) {
                p[side].data[1] = p[side].data[2] = buf + row * cw * bps;
                p[side].stride[1] = p[side].stride[2] = (ptrdiff_t)(cw * bps);
            }
        }
        t0 = now();
        SpeedqaScores sc;
        while ((r = speedqa_send(ctx, &p[0], &p[1])) == -EAGAIN)
            if (speedqa_receive(ctx, &sc, 1, 0) == 0)
                got++;
        if (r < 0) {
            printf("send: %s\n", speedqa_strerror(r));
            bad = 1;
            break;
        }
        if (f == 1)
            speedqa_flush(ctx);
        while (speedqa_receive(ctx, &sc, 1, 0) == 0) {
            got++;
            for (int i = 0; i < sc.count; i++) {
                printf("  frame %u %-20s %.6f\n", sc.frame, speedqa_score_name(ctx, i), sc.values[i]);
                bad |= !isfinite(sc.values[i]);
            }
        }
        printf("frame %d sent in %.1f s, rss %ld MiB\n", f, now() - t0, rss_mib());
        fflush(stdout);
    }
    speedqa_close(&ctx);
    free(buf);
    bad |= got != 2;
    printf("%s %d frames scored\n", bad ? "FAIL" : "ok  ", got);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--score") == 0) {
        if (argc < 6) {
            fprintf(stderr, "usage: %s --score W H FMT(0..3) BPC [THREADS [FEATURE]]\n", argv[0]);
            return 2;
        }
        return score(argc, argv);
    }
    const size_t MiB = (size_t)1 << 20;
    static const SpeedqaPixelFormat fmts[] = { SPEEDQA_PIX_400, SPEEDQA_PIX_420, SPEEDQA_PIX_422,
                                               SPEEDQA_PIX_444 };
    for (int f = 0; f < 4; f++)
        for (int bpc = 8; bpc <= 16; bpc += 8)
            for (int thr = 1; thr <= 3; thr += 2) {
                const SpeedqaPixelFormat fmt = fmts[f];
                open_capped(65536, 65536, fmt, bpc, thr, "speed_temporal", 64 * MiB);
                if (fmt != SPEEDQA_PIX_400)
                    open_capped(65536, 65536, fmt, bpc, thr, "speed_chroma", 64 * MiB);
            }
    /* prescale: 4x upscale of the largest plane (262144 x 262144 scaled) and
     * a 0.25 downscale; several caps move the failing allocation around. */
    for (size_t cap = 1; cap <= 64; cap *= 8) {
        open_capped(65536, 65536, SPEEDQA_PIX_400, 16, 1,
                    "speed_temporal=speed_prescale=4:speed_prescale_method=lanczos4", cap * MiB);
        open_capped(65536, 65536, SPEEDQA_PIX_444, 8, 3,
                    "speed_chroma=speed_prescale=0.25:speed_prescale_method=bicubic", cap * MiB);
        open_capped(65535, 65535, SPEEDQA_PIX_420, 10, 1,
                    "speed_temporal=speed_prescale=3.9:speed_kernelscale=3", cap * MiB);
        open_capped(65536, 80, SPEEDQA_PIX_444, 12, 2,
                    "speed_chroma=speed_prescale=4:speed_prescale_method=bilinear", cap * MiB);
    }
    open_invalid(65537, 65536, SPEEDQA_PIX_420, 8);
    open_invalid(65536, 65537, SPEEDQA_PIX_420, 8);
    open_invalid(-1, 100, SPEEDQA_PIX_420, 8);
    open_invalid(2147483647, 2147483647, SPEEDQA_PIX_444, 16);
    open_invalid(65536, 65536, (SpeedqaPixelFormat)4, 8);
    open_invalid(65536, 65536, SPEEDQA_PIX_444, 17);
    printf("%d failed\n", failures);
    return failures ? 1 : 0;
}
