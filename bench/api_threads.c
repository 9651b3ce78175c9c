/*
 * api_threads: how the CPU backend scales with threads, frames in memory.
 *
 *   api_threads [--frames N] [--threads 1,2,4,8,16] [--size WxH] [--bpc B]
 *
 * Both features, 4:2:0, a textured pair of 8 distinct frames cycled. Each
 * thread count runs twice in the same process: pictures lent to the
 * library (release callback: read in place) and pictures without one
 * (copied at send, the slow path). Prints fps and the ratio to one thread
 * of the same kind, best of 3 passes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "speedqa/speedqa.h"

#define DISTINCT 8

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void no_release(void *opaque, const void *data0)
{
    (void)opaque;
    (void)data0;
}

typedef struct Frames {
    int w, h, bpc;
    unsigned char *buf[2][DISTINCT];
} Frames;

static void picture(const Frames *f, int side, int i, int lend, SpeedqaPicture *p)
{
    const int bps = f->bpc > 8 ? 2 : 1;
    unsigned char *b = f->buf[side][i % DISTINCT];
    memset(p, 0, sizeof *p);
    p->format = (SpeedqaFormat){ f->w, f->h, SPEEDQA_PIX_420, f->bpc };
    p->data[0] = b;
    p->data[1] = b + (size_t)f->w * f->h * bps;
    p->data[2] = b + (size_t)f->w * f->h * bps * 5 / 4;
    p->stride[0] = (ptrdiff_t)f->w * bps;
    p->stride[1] = p->stride[2] = (ptrdiff_t)(f->w / 2) * bps;
    if (lend)
        p->release = no_release;
}

static double pass(const Frames *f, int n, int threads, int lend)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.ref = s.dis = (SpeedqaFormat){ f->w, f->h, SPEEDQA_PIX_420, f->bpc };
    s.n_threads = threads;
    SpeedqaContext *ctx;
    if (speedqa_open(&ctx, &s) < 0)
        return -1;
    SpeedqaScores sc;
    const double t0 = now();
    for (int i = 0; i < n; i++) {
        SpeedqaPicture r, d;
        picture(f, 0, i, lend, &r);
        picture(f, 1, i, lend, &d);
        int ret;
        while ((ret = speedqa_send(ctx, &r, &d)) == SPEEDQA_ERR(EAGAIN))
            speedqa_receive(ctx, &sc); /* a full queue: this one blocks */
        if (ret < 0) {
            speedqa_close(&ctx);
            return -1;
        }
        while (speedqa_receive(ctx, &sc) == 0)
            ;
    }
    speedqa_flush(ctx);
    while (speedqa_receive(ctx, &sc) == 0)
        ;
    const double t = now() - t0;
    speedqa_close(&ctx);
    return t;
}

int main(int argc, char **argv)
{
    int n = 240, bpc = 8, w = 1920, h = 1080;
    const char *threads = "1,2,4,8,16";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--frames"))
            n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads"))
            threads = argv[i + 1];
        else if (!strcmp(argv[i], "--bpc"))
            bpc = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--size") && sscanf(argv[i + 1], "%dx%d", &w, &h) == 2)
            ;
        else {
            fprintf(stderr, "usage: api_threads [--frames N] [--threads LIST] [--size WxH] [--bpc B]\n");
            return 2;
        }
    }
    Frames f = { w, h, bpc, { { 0 } } };
    const int bps = bpc > 8 ? 2 : 1;
    const size_t bytes = (size_t)w * h * 3 / 2 * bps;
    const unsigned maxv = (1u << bpc) - 1;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < DISTINCT; i++) {
            if (!(f.buf[s][i] = speedqa_buffer_alloc(bytes)))
                return 1;
            for (size_t k = 0; k < bytes / bps; k++) {
                const size_t x = k % (size_t)w, y = k / (size_t)w;
                unsigned v = (unsigned)((x * x + 3 * y * y + x * y + 7 * (size_t)i * x) >> 5);
                v = (v + (unsigned)(s * ((x * 13 + y * 7) % 17))) & maxv;
                if (bps == 2)
                    ((uint16_t *)f.buf[s][i])[k] = (uint16_t)v;
                else
                    f.buf[s][i][k] = (unsigned char)v;
            }
        }
    printf("API, %dx%d %d-bit 4:2:0, both features, %d frames, best of 3\n", w, h, bpc, n);
    printf("%-8s %12s %8s %12s %8s\n", "threads", "lent fps", "x 1 thr", "copied fps", "x 1 thr");
    double base[2] = { 0, 0 };
    for (const char *t = threads; *t;) {
        const int th = atoi(t);
        double fps[2];
        for (int lend = 1; lend >= 0; lend--) {
            double best = 0;
            for (int r = 0; r < 3; r++) {
                const double s = pass(&f, n, th, lend);
                if (s > 0 && (best == 0 || s < best))
                    best = s;
            }
            fps[lend] = best > 0 ? n / best : 0;
            if (!base[lend])
                base[lend] = fps[lend];
        }
        printf("%-8d %12.1f %8.2f %12.1f %8.2f\n", th, fps[1], fps[1] / base[1], fps[0],
               fps[0] / base[0]);
        fflush(stdout);
        const char *c = strchr(t, ',');
        t = c ? c + 1 : t + strlen(t);
    }
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < DISTINCT; i++)
            speedqa_buffer_free(f.buf[s][i]);
    return 0;
}
