/*
 * open_time: where a GPU backend's start-up goes, in one process.
 *
 *   open_time [cuda|opencl|cpu] [WxH] [threads] [keep]
 *
 * Times, for 4:2:0 8-bit, both features: the first speedqa_open (runtime
 * load and init, context, kernels, arena, pinned staging), its first frame
 * (send, flush, receive), its close, then a second open/frame/close in the
 * same process (what is left once the runtime is up). Whole-job benches pay
 * the first line once per process; this says which part of it to attack.
 * keep: both contexts open with keep_device (the second open finds the
 * device context the first close left).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "speedqa/speedqa.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void log_line(void *cookie, SpeedqaLogLevel level, const char *msg)
{
    (void)cookie, (void)level;
    fprintf(stderr, "speedqa: %s\n", msg);
}

static int one(SpeedqaBackend be, int w, int h, int threads, int keep, unsigned char *buf,
               const char *what)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.format = (SpeedqaFormat){ w, h, SPEEDQA_PIX_420, 8 };
    s.backend = be;
    s.n_threads = threads;
    s.cuda.keep_device = keep;
    s.logger = log_line;
    s.log_level = SPEEDQA_LOG_DEBUG; /* the GPU pipeline's start-up split */
    SpeedqaPicture p;
    memset(&p, 0, sizeof p);
    p.format = s.format;
    p.data[0] = buf;
    p.data[1] = buf + (size_t)w * h;
    p.data[2] = buf + (size_t)w * h * 5 / 4;
    p.stride[0] = w;
    p.stride[1] = p.stride[2] = w / 2;

    SpeedqaContext *ctx;
    double t0 = now();
    if (speedqa_open(&ctx, &s) < 0)
        return 1;
    double t1 = now();
    SpeedqaScores sc;
    int ok = speedqa_send(ctx, &p, &p) == 0 && speedqa_flush(ctx) == 0 &&
             speedqa_receive(ctx, &sc, 1, 0) == 0;
    double t2 = now();
    speedqa_close(&ctx);
    double t3 = now();
    printf("%-7s %-6s open %7.1f ms  first frame %7.1f ms  close %6.1f ms%s\n", what,
           be == SPEEDQA_BACKEND_CPU ? "cpu" : be == SPEEDQA_BACKEND_CUDA ? "cuda" : "opencl",
           1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (t3 - t2), ok ? "" : "  (frame failed)");
    return !ok;
}

int main(int argc, char **argv)
{
    SpeedqaBackend be = SPEEDQA_BACKEND_CUDA;
    int w = 1920, h = 1080, threads = 16;
    if (argc > 1)
        be = !strcmp(argv[1], "cpu")      ? SPEEDQA_BACKEND_CPU
             : !strcmp(argv[1], "opencl") ? SPEEDQA_BACKEND_OPENCL
                                          : SPEEDQA_BACKEND_CUDA;
    if (argc > 2 && sscanf(argv[2], "%dx%d", &w, &h) != 2)
        return 2;
    if (argc > 3)
        threads = atoi(argv[3]);
    const int keep = argc > 4 && !strcmp(argv[4], "keep");
    unsigned char *buf = malloc((size_t)w * h * 3 / 2);
    if (!buf)
        return 1;
    for (size_t i = 0; i < (size_t)w * h * 3 / 2; i++)
        buf[i] = (unsigned char)(i * 7 + i / 1920);
    double t = now();
    int ret = one(be, w, h, threads, keep, buf, "first");
    ret |= one(be, w, h, threads, keep, buf, "second");
    printf("process so far %.1f ms\n", 1e3 * (now() - t));
    free(buf);
    return ret;
}
