/*
 * Threaded CPU path under stress: many short streams on contexts with
 * n_threads 2..4 (12 on the largest geometry: a lone frame's planes in
 * many row bands, their solves in column bands), several contexts running at once in their own threads
 * (the library promises no global mutable state), flushes in the middle of
 * streams, receives eager, only when the queue is full, or one frame at a
 * time (each score awaited before the next send, by SPEEDQA_RECEIVE_WAIT
 * or by polling, so that idle workers share the frame's planes: the
 * intra-frame path). Every
 * score is compared bit for bit with the same stream scored on one thread.
 * Built for every compiler; .ci/reliability.sh also runs it under TSan.
 *
 *   stress_threads [streams per thread] [threads] [seed]
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "speedqa/speedqa.h"

#define MAX_FRAMES 14

typedef struct Geometry {
    int w, h;
    SpeedqaPixelFormat fmt;
    int bpc;
} Geometry;

static const Geometry geos[] = {
    { 200, 176, SPEEDQA_PIX_420, 8 },
    { 200, 160, SPEEDQA_PIX_444, 10 },
    { 256, 96, SPEEDQA_PIX_422, 12 },
    { 96, 112, SPEEDQA_PIX_400, 16 },
    { 161, 163, SPEEDQA_PIX_420, 9 },
    /* 45 operating rows in bands of 5 or 6, 144 blocks in column bands of 36 */
    { 1280, 720, SPEEDQA_PIX_420, 10 },
};

/* Feature sets; mono geometries take the temporal-only ones. */
static const char *const set0[] = { "speed_chroma", "speed_temporal", NULL };
static const char *const set1[] = { "speed_temporal=speed_kernelscale=0.5",
                                    "speed_temporal=speed_prescale=1.5:speed_prescale_method=bicubic",
                                    NULL };
static const char *const set2[] = { "speed_chroma=speed_weight_var_mode=3:speed_kernelscale=1.5",
                                    "speed_temporal=speed_use_ref_diff=true", NULL };
static const char *const set3[] = { "speed_temporal", NULL };
static const char *const *const sets[] = { set0, set1, set2, set3 };

typedef struct Stream {
    Geometry g;
    const char *const *feats;
    int nframes;
    int flush_after[MAX_FRAMES];  /* flush after sending frame i */
    int eager;                    /* receive after every send; 2: wait for each frame's */
    int n_threads;
    uint8_t *buf[MAX_FRAMES][2][3];
    SpeedqaPicture pic[MAX_FRAMES][2];
} Stream;

static uint32_t rng(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void plane_dims(const Geometry *g, int p, int *w, int *h)
{
    *w = g->w;
    *h = g->h;
    if (p) {
        if (g->fmt != SPEEDQA_PIX_444)
            *w >>= 1;
        if (g->fmt == SPEEDQA_PIX_420)
            *h >>= 1;
    }
}

static int make_stream(Stream *s, uint32_t *seed)
{
    memset(s, 0, sizeof *s);
    s->g = geos[rng(seed) % (sizeof geos / sizeof geos[0])];
    s->feats = s->g.fmt == SPEEDQA_PIX_400 ? (rng(seed) & 1 ? set1 : set3) : sets[rng(seed) % 4];
    s->nframes = 2 + (int)(rng(seed) % (MAX_FRAMES - 1));
    for (int i = 0; i < s->nframes - 1; i++)
        s->flush_after[i] = rng(seed) % 5 == 0;
    s->eager = (int)(rng(seed) % 3);
    s->n_threads = s->g.w == 1280 ? 12 : 2 + (int)(rng(seed) % 3);
    const int bps = s->g.bpc > 8 ? 2 : 1;
    const unsigned maxv = (1u << s->g.bpc) - 1;
    const int planes = s->g.fmt == SPEEDQA_PIX_400 ? 1 : 3;
    const int dx = (int)(rng(seed) % 5) - 2, dy = (int)(rng(seed) % 5) - 2;
    for (int f = 0; f < s->nframes; f++)
        for (int side = 0; side < 2; side++) {
            SpeedqaPicture *pic = &s->pic[f][side];
            pic->format = (SpeedqaFormat){ s->g.w, s->g.h, s->g.fmt, s->g.bpc };
            for (int p = 0; p < planes; p++) {
                int w, h;
                plane_dims(&s->g, p, &w, &h);
                const size_t stride = (size_t)w * bps + 16;
                uint8_t *b = malloc(stride * (size_t)h);
                if (!b)
                    return -1;
                s->buf[f][side][p] = b;
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        /* texture moving by (dx, dy) per frame, noise on dis */
                        const int X = x + dx * f, Y = y + dy * f;
                        unsigned v = (unsigned)((X * X + 3 * Y * Y + X * Y + 7 * p) >> 4) % 220 + 16;
                        v = (v << (s->g.bpc - 8)) + (rng(seed) & 3) * (side ? 3 : 1);
                        if (v > maxv)
                            v = maxv;
                        if (bps == 2)
                            ((uint16_t *)(b + (size_t)y * stride))[x] = (uint16_t)v;
                        else
                            b[(size_t)y * stride + x] = (uint8_t)v;
                    }
                pic->data[p] = b;
                pic->stride[p] = (ptrdiff_t)stride;
            }
        }
    return 0;
}

static void free_stream(Stream *s)
{
    for (int f = 0; f < MAX_FRAMES; f++)
        for (int side = 0; side < 2; side++)
            for (int p = 0; p < 3; p++)
                free(s->buf[f][side][p]);
}

/* room for the default features' scores (4), kept past the next receive */
#define MAX_SCORES 8

typedef struct Scores {
    int n, count;
    double v[MAX_FRAMES][MAX_SCORES];
} Scores;

/* Stores one received frame; 0, or -1 when it came out of order. */
static int take(Scores *out, const SpeedqaScores *sc)
{
    if (sc->frame != (unsigned)out->n || out->n == MAX_FRAMES || sc->count > MAX_SCORES)
        return -1;
    memcpy(out->v[out->n++], sc->values, sizeof(double) * (size_t)sc->count);
    return 0;
}

/* Receives until -EAGAIN; 0, or -1 when a frame came out of order. */
static int drain(SpeedqaContext *ctx, Scores *out)
{
    SpeedqaScores sc;
    while (speedqa_receive(ctx, &sc, 1, 0) == 0)
        if (take(out, &sc) < 0)
            return -1;
    return 0;
}

/* Runs the stream; returns a message on failure, NULL when fine. */
static const char *score_stream(const Stream *s, int n_threads, int eager, Scores *out, char *msg,
                                size_t len)
{
    SpeedqaSettings st;
    speedqa_default_settings(&st);
    st.format = s->pic[0][0].format;
    st.features = s->feats;
    st.n_threads = n_threads;
    SpeedqaContext *ctx;
    int r = speedqa_open(&ctx, &st);
    if (r < 0) {
        snprintf(msg, len, "open: %s", speedqa_strerror(r));
        return msg;
    }
    memset(out, 0, sizeof *out);
    out->count = speedqa_score_count(ctx);
    const char *fail = NULL;
    for (int f = 0; f < s->nframes && !fail; f++) {
        SpeedqaScores sc;
        while ((r = speedqa_send(ctx, &s->pic[f][0], &s->pic[f][1])) == -EAGAIN) {
            /* queue full: this receive blocks until the oldest frame is done */
            if ((r = speedqa_receive(ctx, &sc, 1, 0)) != 0)
                break;
            if (take(out, &sc) < 0) {
                r = -EPROTO;
                break;
            }
        }
        if (r != 0) {
            snprintf(msg, len, "send/receive of frame %d: %s", f,
                     r == -EPROTO ? "frame out of order" : speedqa_strerror(r));
            fail = msg;
            break;
        }
        if (eager && drain(ctx, out) < 0) {
            snprintf(msg, len, "frame out of order after frame %d", f);
            fail = msg;
        }
        while (!fail && eager == 2 && out->n < f + 1) {
            /* odd frames block in speedqa_receive(SPEEDQA_RECEIVE_WAIT), even ones poll */
            r = f & 1 ? speedqa_receive(ctx, &sc, 1, SPEEDQA_RECEIVE_WAIT) : speedqa_receive(ctx, &sc, 1, 0);
            if (r == -EAGAIN) {
                sched_yield();
            } else if (r != 0 || take(out, &sc) < 0) {
                snprintf(msg, len, "waiting for frame %d: %s", f,
                         r ? speedqa_strerror(r) : "frame out of order");
                fail = msg;
            }
        }
        if (!fail && s->flush_after[f]) {
            speedqa_flush(ctx);
            if (drain(ctx, out) < 0 || out->n != f + 1) {
                snprintf(msg, len, "after a flush at frame %d, %d frames came out", f, out->n);
                fail = msg;
            }
        }
    }
    if (!fail) {
        speedqa_flush(ctx);
        if (drain(ctx, out) < 0 || out->n != s->nframes) {
            snprintf(msg, len, "at the end %d of %d frames came out", out->n, s->nframes);
            fail = msg;
        }
    }
    for (int f = 0; f < out->n && !fail; f++)
        for (int i = 0; i < out->count; i++)
            if (!isfinite(out->v[f][i])) {
                snprintf(msg, len, "frame %d score %d is %g", f, i, out->v[f][i]);
                fail = msg;
                break;
            }
    speedqa_close(&ctx);
    return fail;
}

typedef struct Job {
    int id, streams;
    uint32_t seed;
    int failures;
    long frames;
} Job;

static void *job_main(void *arg)
{
    Job *j = arg;
    uint32_t seed = j->seed * 2654435761u + (uint32_t)j->id * 40503u + 1u;
    for (int k = 0; k < j->streams; k++) {
        Stream *s = calloc(1, sizeof *s);
        Scores *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        char msg[256];
        const char *err = NULL;
        if (!s || !a || !b || make_stream(s, &seed) < 0) {
            err = "out of memory";
        } else if ((err = score_stream(s, 1, 1, a, msg, sizeof msg)) == NULL &&
                   (err = score_stream(s, s->n_threads, s->eager, b, msg, sizeof msg)) == NULL) {
            if (a->n != b->n || a->count != b->count) {
                err = "shape differs";
            } else {
                for (int f = 0; f < a->n && !err; f++)
                    for (int i = 0; i < a->count; i++)
                        if (memcmp(&a->v[f][i], &b->v[f][i], sizeof(double)) != 0) {
                            snprintf(msg, sizeof msg, "frame %d score %d: 1 thread %.17g, %d threads %.17g",
                                     f, i, a->v[f][i], s->n_threads, b->v[f][i]);
                            err = msg;
                            break;
                        }
            }
        }
        if (err) {
            fprintf(stderr, "FAIL worker %d stream %d (%dx%d fmt %d %d-bit, %d frames, %d threads, %s): %s\n",
                    j->id, k, s ? s->g.w : 0, s ? s->g.h : 0, s ? (int)s->g.fmt : 0, s ? s->g.bpc : 0,
                    s ? s->nframes : 0, s ? s->n_threads : 0, !s ? "" : s->eager == 2 ? "one at a time" : s->eager ? "eager" : "lazy", err);
            j->failures++;
        } else {
            j->frames += s->nframes;
        }
        if (s)
            free_stream(s);
        free(s);
        free(a);
        free(b);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const int streams = argc > 1 ? atoi(argv[1]) : 12;
    const int nthreads = argc > 2 ? atoi(argv[2]) : 2;
    const uint32_t seed = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 0) : 20240601u;
    if (streams < 1 || nthreads < 1 || nthreads > 16) {
        fprintf(stderr, "usage: %s [streams per thread] [threads 1..16] [seed]\n", argv[0]);
        return 2;
    }
    Job jobs[16];
    pthread_t th[16];
    for (int i = 0; i < nthreads; i++) {
        jobs[i] = (Job){ .id = i, .streams = streams, .seed = seed };
        if (pthread_create(&th[i], NULL, job_main, &jobs[i])) {
            fprintf(stderr, "cannot start thread %d\n", i);
            return 2;
        }
    }
    int failures = 0;
    long frames = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(th[i], NULL);
        failures += jobs[i].failures;
        frames += jobs[i].frames;
    }
    printf("%d concurrent workers x %d streams: %ld frames bit-identical to 1 thread, %d failures\n",
           nthreads, streams, frames, failures);
    return failures ? 1 : 0;
}
