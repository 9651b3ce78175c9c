/*
 * api_threads: how a backend scales with threads, frames in memory.
 *
 *   api_threads [--frames N] [--threads 1,2,4,8,16] [--size WxH] [--bpc B]
 *               [--backend cpu|cuda|opencl] [--distinct D] [--feature F ...]
 *
 * Both SpEED features (or each --feature, libvmaf syntax: "adm", "cambi=...", a
 * VMAF model's set), 4:2:0, a textured pair of D distinct frames cycled (8:
 * 48 MB at 1080p, much of it in the last-level cache; 64 or more: every
 * frame comes from DRAM, as from the page cache in a whole job). Each
 * thread count runs three ways in the same process: pictures lent to the
 * library (release callback: read in place, staged on a GPU), pictures
 * without one (copied at send, the slow path), and library pictures
 * (speedqa_picture_alloc: filled once, a reference sent each time; pinned
 * and uploaded in place on a GPU). Prints fps and the ratio to one thread
 * of the same kind, best of 3 passes. A fourth way measures latency: lent
 * pictures one at a time, each score taken with speedqa_receive(SPEEDQA_RECEIVE_WAIT)
 * before the next send (a live encoder's loop); it prints the time per
 * frame.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define MAX_DISTINCT 256

typedef struct Frames {
    int w, h, bpc, distinct;
    unsigned char *buf[2][MAX_DISTINCT];
} Frames;

static void picture(const Frames *f, int side, int i, int lend, SpeedqaPicture *p)
{
    const int bps = f->bpc > 8 ? 2 : 1;
    unsigned char *b = f->buf[side][i % f->distinct];
    memset(p, 0, sizeof *p);
    p->format = (SpeedqaFormat){ f->w, f->h, SPEEDQA_PIX_420, f->bpc };
    p->data[0] = b;
    p->data[1] = b + (size_t)f->w * f->h * bps;
    p->data[2] = b + (size_t)f->w * f->h * bps * 5 / 4;
    p->stride[0] = (ptrdiff_t)f->w * bps;
    p->stride[1] = p->stride[2] = (ptrdiff_t)(f->w / 2) * bps;
    if (lend)
        p->release = bench_no_release;
}

#define MAX_FEATURES 8

/* mode 0: copied, 1: lent, 2: library pictures, 3: lent, one frame in flight */
static double pass(const Frames *f, int n, int threads, int mode, SpeedqaBackend be,
                   const char *const *features)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.features = features;
    s.format = (SpeedqaFormat){ f->w, f->h, SPEEDQA_PIX_420, f->bpc };
    s.n_threads = threads;
    s.backend = be;
    SpeedqaContext *ctx;
    if (speedqa_open(&ctx, &s) < 0)
        return -1;
    static SpeedqaPicture lib[2][MAX_DISTINCT]; /* big: not on the stack */
    memset(lib, 0, sizeof lib);
    for (int side = 0; mode == 2 && side < 2; side++)
        for (int i = 0; i < f->distinct; i++) {
            SpeedqaPicture src;
            picture(f, side, i, 0, &src);
            if (speedqa_picture_alloc(ctx, &lib[side][i]) < 0) {
                speedqa_close(&ctx);
                return -1;
            }
            for (int c = 0; c < 3; c++) {
                const size_t rb = (size_t)(c ? f->w / 2 : f->w) * (f->bpc > 8 ? 2 : 1);
                for (int y = 0; y < (c ? f->h / 2 : f->h); y++)
                    memcpy((unsigned char *)lib[side][i].data[c] + y * lib[side][i].stride[c],
                           (const unsigned char *)src.data[c] + y * src.stride[c], rb);
            }
        }
    SpeedqaScores sc;
    const double t0 = bench_now();
    for (int i = 0; i < n; i++) {
        SpeedqaPicture r, d;
        if (mode == 2) {
            r = lib[0][i % f->distinct];
            d = lib[1][i % f->distinct];
            speedqa_picture_ref(&r); /* the send's reference: ours stays */
            speedqa_picture_ref(&d);
        } else {
            picture(f, 0, i, mode != 0, &r);
            picture(f, 1, i, mode != 0, &d);
        }
        int ret;
        while ((ret = speedqa_send(ctx, &r, &d)) == SPEEDQA_ERR(EAGAIN))
            speedqa_receive(ctx, &sc, 1, 0); /* a full queue: this one blocks */
        if (ret < 0) {
            speedqa_close(&ctx);
            return -1; /* (a refused send's references die with the process) */
        }
        if (mode == 3 && (ret = speedqa_receive(ctx, &sc, 1, SPEEDQA_RECEIVE_WAIT)) < 0) {
            speedqa_close(&ctx);
            return -1;
        }
        while (speedqa_receive(ctx, &sc, 1, 0) == 0)
            ;
    }
    speedqa_flush(ctx);
    while (speedqa_receive(ctx, &sc, 1, 0) == 0)
        ;
    const double t = bench_now() - t0;
    for (int side = 0; side < 2; side++)
        for (int i = 0; i < f->distinct; i++)
            speedqa_picture_unref(&lib[side][i]);
    speedqa_close(&ctx);
    return t;
}

int main(int argc, char **argv)
{
    int n = 240, bpc = 8, w = 1920, h = 1080, distinct = 8;
    const char *threads = "1,2,4,8,16";
    SpeedqaBackend be = SPEEDQA_BACKEND_CPU;
    const char *feat[MAX_FEATURES + 1] = { NULL };
    int nf = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--frames"))
            n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads"))
            threads = argv[i + 1];
        else if (!strcmp(argv[i], "--distinct") && (distinct = atoi(argv[i + 1])) >= 1 &&
                 distinct <= MAX_DISTINCT)
            ;
        else if (!strcmp(argv[i], "--bpc"))
            bpc = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--size") && sscanf(argv[i + 1], "%dx%d", &w, &h) == 2)
            ;
        else if (!strcmp(argv[i], "--feature") && nf < MAX_FEATURES)
            feat[nf++] = argv[i + 1];
        else if (!strcmp(argv[i], "--backend"))
            be = !strcmp(argv[i + 1], "cuda")     ? SPEEDQA_BACKEND_CUDA
                 : !strcmp(argv[i + 1], "opencl") ? SPEEDQA_BACKEND_OPENCL
                                                  : SPEEDQA_BACKEND_CPU;
        else {
            fprintf(stderr, "usage: api_threads [--frames N] [--threads LIST] [--size WxH] [--bpc B] "
                    "[--backend cpu|cuda|opencl] [--distinct 1..%d] [--feature F ...]\n", MAX_DISTINCT);
            return 2;
        }
    }
    Frames f = { w, h, bpc, distinct, { { 0 } } };
    const int bps = bpc > 8 ? 2 : 1;
    const size_t bytes = (size_t)w * h * 3 / 2 * bps;
    const unsigned maxv = (1u << bpc) - 1;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < distinct; i++) {
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
    printf("API, %s backend, %dx%d %d-bit 4:2:0, %s, %d frames (%d distinct), best of 3\n",
           be == SPEEDQA_BACKEND_CUDA ? "cuda" : be == SPEEDQA_BACKEND_OPENCL ? "opencl" : "cpu",
           w, h, bpc, nf ? "the features given" : "both SpEED features", n, distinct);
    printf("%-8s %12s %8s %12s %8s %12s %8s %14s %8s\n", "threads", "lent fps", "x 1 thr",
           "copied fps", "x 1 thr", "library fps", "x 1 thr", "1 in flight ms", "x 1 thr");
    double base[4] = { 0, 0, 0, 0 };
    for (const char *t = threads; *t;) {
        const int th = atoi(t);
        double fps[4], ratio[4];
        for (int mode = 0; mode < 4; mode++) {
            double best = 0;
            for (int r = 0; r < 3; r++) {
                const double s = pass(&f, n, th, mode, be, nf ? feat : NULL);
                if (s > 0 && (best == 0 || s < best))
                    best = s;
            }
            fps[mode] = best > 0 ? n / best : 0;
            if (!base[mode])
                base[mode] = fps[mode];
        }
        /* a mode that cannot run gives 0 (one frame in flight with motion: its
         * score waits on the next frame) */
        for (int m = 0; m < 4; m++)
            ratio[m] = base[m] > 0 ? fps[m] / base[m] : 0;
        printf("%-8d %12.1f %8.2f %12.1f %8.2f %12.1f %8.2f %14.3f %8.2f\n", th, fps[1],
               ratio[1], fps[0], ratio[0], fps[2], ratio[2], fps[3] > 0 ? 1e3 / fps[3] : 0,
               ratio[3]);
        fflush(stdout);
        const char *c = strchr(t, ',');
        t = c ? c + 1 : t + strlen(t);
    }
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < distinct; i++)
            speedqa_buffer_free(f.buf[s][i]);
    return 0;
}
