/*
 * Lent pictures (SpeedqaPicture.release, issue #12): the library reads them
 * in place and gives each back exactly once. The release callback poisons
 * the buffer at once and puts it back in a small free list the sender
 * reuses, so any read after a release (the previous frame of
 * speed_temporal above all) changes a score: every score must equal, bit
 * for bit, the copy-on-send run of the same frames. Also: all pictures are
 * back after a flush is drained and after close, none is released twice,
 * a failing send lends nothing, sides can mix lent and copied, and planes
 * at odd addresses (16-bit samples unaligned) score like aligned ones.
 *
 * usage: test_lend [cpu|cuda|opencl|hip] (77 when that backend has no device)
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define W 352
#define H 288
#define NF 30       /* frames sent per run */
#define FLUSH_AT 11 /* a flush before this frame: a second sequence */
#define NBUF 48     /* more than any backend's queue + 2 */

static int fails;

typedef struct Buf {
    uint16_t data[W * H * 3 / 2 + 1]; /* 8-bit runs use the first half; + 1: odd starts */
    int lent;
} Buf;

typedef struct Lender {
    Buf *buf;
    int free_list[NBUF], nfree;
    long released, double_release;
    pthread_mutex_t mu;
} Lender;

typedef struct Run {
    /* mode 0: copies, 1: both lent, 2: ref lent on even frames only, 3: both lent,
     * every plane at an odd address (16-bit samples unaligned: a mapped Y4M), 4: both
     * lent, each frame's scores taken with speedqa_receive(SPEEDQA_RECEIVE_WAIT) before the next send */
    int bpc, threads, mode;
    const char *feature;
    SpeedqaBackend backend;
} Run;

static void on_release(void *opaque, const void *data0)
{
    Lender *l = opaque;
    pthread_mutex_lock(&l->mu);
    long i = ((const char *)data0 - (const char *)l->buf) / (long)sizeof(Buf);
    if (i < 0 || i >= NBUF || !l->buf[i].lent) {
        l->double_release++;
    } else {
        /* any later read by the library sees this, not the frame */
        memset(l->buf[i].data, 0xA5, sizeof l->buf[i].data);
        l->buf[i].lent = 0;
        l->free_list[l->nfree++] = (int)i;
        l->released++;
    }
    pthread_mutex_unlock(&l->mu);
}

static unsigned sample(int f, int side, int plane, int x, int y, int bpc)
{
    unsigned v = (unsigned)((x * x + 3 * y * y + x * y * (plane + 1) + 7 * f * (x + 1)) >> 5) % 200;
    v += (unsigned)((x * 31 + y * 17 + f * 13 + side * 5) % 23) * (side + 1);
    return bpc > 8 ? (v * 4 + (unsigned)(x % 4)) % 1024 : v % 256;
}

/* Fill buffer b with frame f of side (from byte odd on) and describe it in pic. */
static void fill(Buf *b, int f, int side, int bpc, int odd, SpeedqaPicture *pic)
{
    const int bps = bpc > 8 ? 2 : 1;
    memset(pic, 0, sizeof *pic);
    pic->format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, bpc };
    unsigned char *p = (unsigned char *)b->data + odd;
    for (int c = 0; c < 3; c++) {
        const int w = c ? W / 2 : W, h = c ? H / 2 : H;
        pic->data[c] = p;
        pic->stride[c] = (ptrdiff_t)w * bps;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const unsigned v = sample(f, side, c, x, y, bpc);
                const uint16_t v16 = (uint16_t)v;
                if (bps == 2)
                    memcpy(p + 2 * ((size_t)y * w + x), &v16, 2);
                else
                    p[(size_t)y * w + x] = (unsigned char)v;
            }
        p += (size_t)w * h * bps;
    }
}

static int take(Lender *l)
{
    pthread_mutex_lock(&l->mu);
    const int i = l->nfree ? l->free_list[--l->nfree] : -1;
    if (i >= 0)
        l->buf[i].lent = 1;
    pthread_mutex_unlock(&l->mu);
    return i;
}

static void untake(Lender *l, int i)
{
    pthread_mutex_lock(&l->mu);
    l->buf[i].lent = 0;
    l->free_list[l->nfree++] = i;
    pthread_mutex_unlock(&l->mu);
}

static long released(Lender *l)
{
    pthread_mutex_lock(&l->mu);
    const long n = l->released;
    pthread_mutex_unlock(&l->mu);
    return n;
}

static int open_ctx(SpeedqaContext **ctx, const Run *r, LogCapture *log)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, r->bpc };
    const char *feats[] = { r->feature, NULL };
    s.features = r->feature ? feats : NULL;
    s.n_threads = r->threads;
    s.backend = r->backend;
    s.logger = log_capture;
    s.log_cookie = log;
    return speedqa_open(ctx, &s);
}

/* Score NF frames; out gets every frame's scores. Returns 0 or a failure code. */
static int run(const Run *r, Lender *l, TestScores *out, long *lent_count)
{
    LogCapture log = { .quiet = 1 };
    SpeedqaContext *ctx = NULL;
    int ret = open_ctx(&ctx, r, &log);
    if (ret < 0)
        return ret;
    int got = 0;
    long lent = 0;
    for (int f = 0; f < NF && ret == 0; f++) {
        if (f == FLUSH_AT) {
            if ((ret = speedqa_flush(ctx)) < 0 || (ret = receive_ready(ctx, out, &got)) < 0)
                break;
            /* a drained flush gives back everything lent so far */
            if (released(l) != lent) {
                printf("FAIL after a drained flush %ld of %ld lent pictures are back\n",
                       released(l), lent);
                fails++;
            }
        }
        SpeedqaPicture pic[2];
        int idx[2];
        for (int s = 0; s < 2; s++) {
            const int lend = r->mode == 1 || r->mode >= 3 || (r->mode == 2 && s == 0 && f % 2 == 0);
            while ((idx[s] = take(l)) < 0) {
                /* every buffer is in the library: wait for a frame to finish */
                TestScores sc;
                if ((ret = test_receive(ctx, &sc, 1, 0)) < 0 && ret != SPEEDQA_ERR(EAGAIN))
                    goto end;
                if (ret == 0)
                    out[got++] = sc;
            }
            fill(&l->buf[idx[s]], f, s, r->bpc, r->mode == 3, &pic[s]);
            if (lend) {
                pic[s].release = on_release;
                pic[s].release_opaque = l;
            }
        }
        while ((ret = speedqa_send(ctx, &pic[0], &pic[1])) == SPEEDQA_ERR(EAGAIN))
            if ((ret = test_receive(ctx, &out[got], 1, 0)) == 0)
                got++;
            else if (ret != SPEEDQA_ERR(EAGAIN))
                goto end;
        if (ret < 0)
            break;
        for (int s = 0; s < 2; s++) {
            if (pic[s].release)
                lent++;
            else
                untake(l, idx[s]); /* copied: the buffer is ours again */
        }
        /* mode 4: each frame's scores before the next send (a lone frame) */
        if (r->mode == 4 && (got != f || (ret = test_receive(ctx, &out[got], 1, SPEEDQA_RECEIVE_WAIT)) != 0 ||
                             out[got++].frame != (unsigned)f)) {
            printf("FAIL receive(WAIT) after frame %d: %d, %d frames received\n", f, ret, got);
            fails++;
        }
        if (ret == 0)
            ret = receive_ready(ctx, out, &got);
    }
    if (ret == 0 && (ret = speedqa_flush(ctx)) == 0)
        ret = receive_ready(ctx, out, &got);
    if (ret == 0 && got != NF) {
        printf("FAIL %d of %d frames received\n", got, NF);
        fails++;
    }
end:
    speedqa_close(&ctx);
    *lent_count = lent;
    return ret;
}

static void lender_init(Lender *l)
{
    memset(l, 0, sizeof *l);
    l->buf = calloc(NBUF, sizeof(Buf));
    pthread_mutex_init(&l->mu, NULL);
    for (int i = 0; i < NBUF; i++)
        l->free_list[l->nfree++] = NBUF - 1 - i;
}

static void lender_free(Lender *l)
{
    pthread_mutex_destroy(&l->mu);
    free(l->buf);
}

/* A lent picture a send refuses stays the caller's: no release ever comes. */
static void refused(SpeedqaBackend be)
{
    Lender l;
    lender_init(&l);
    LogCapture log = { .quiet = 1 };
    const Run r = { 8, 2, 1, NULL, be };
    SpeedqaContext *ctx = NULL;
    if (open_ctx(&ctx, &r, &log) < 0) {
        lender_free(&l);
        return;
    }
    SpeedqaPicture a, b;
    fill(&l.buf[0], 0, 0, 8, 0, &a);
    fill(&l.buf[1], 0, 1, 8, 0, &b);
    l.buf[0].lent = l.buf[1].lent = 1;
    a.release = b.release = on_release;
    a.release_opaque = b.release_opaque = &l;
    b.format.width = W - 2; /* does not match the context */
    const int ret = speedqa_send(ctx, &a, &b);
    speedqa_close(&ctx);
    const int ok = ret == SPEEDQA_ERR(EINVAL) && l.released == 0 && l.double_release == 0;
    printf("%s refused send (%d): %ld releases\n", ok ? "ok  " : "FAIL", ret, l.released);
    fails += !ok;
    lender_free(&l);
}

int main(int argc, char **argv)
{
    const char *bname = argc > 1 ? argv[1] : "cpu";
    const SpeedqaBackend be = backend_named(bname);
    if (be != SPEEDQA_BACKEND_CPU) {
        char list[1024];
        if (speedqa_list_devices(be, list, sizeof list) <= 0) {
            printf("SKIP: no %s device\n", bname);
            return 77;
        }
    }
    static const int threads[] = { 1, 3, 8 };
    /* motion's five-frame window reads the frame two back: held two frames
     * (motion runs on the CPU backend only) */
    static const char *const feats[] = { NULL, "speed_chroma", "speed_temporal=speed_use_ref_diff=true",
                                          "motion=motion_five_frame_window=true:motion_moving_average=true" };
    static TestScores want[NF], got[NF];
    const size_t nfeats = sizeof feats / sizeof feats[0] - (be != SPEEDQA_BACKEND_CPU);
    for (int bpc = 8; bpc <= 10; bpc += 2)
        for (size_t fi = 0; fi < nfeats; fi++)
            for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
                Lender l;
                long lent;
                Run r = { bpc, threads[ti], 0, feats[fi], be };
                lender_init(&l);
                int ret = run(&r, &l, want, &lent);
                /* mode 4 waits for each frame's scores before the next send,
                 * which motion publishes only once the frames after it are in */
                const int modes = feats[fi] && !strncmp(feats[fi], "motion", 6) ? 3 : 4;
                for (int mode = 1; mode <= modes && ret == 0; mode++) {
                    Lender m;
                    lender_init(&m);
                    r.mode = mode;
                    memset(got, 0, sizeof got);
                    ret = run(&r, &m, got, &lent);
                    int same = ret == 0;
                    for (int f = 0; f < NF && same; f++)
                        same = !memcmp(want[f].values, got[f].values,
                                       sizeof(double) * (size_t)want[f].count) &&
                               want[f].count == got[f].count && got[f].frame == (unsigned)f;
                    const int ok = same && m.released == lent && m.double_release == 0 && lent > 0;
                    printf("%s %s %d-bit %-40s threads %d %s: %ld lent, %ld back, %ld twice%s\n",
                           ok ? "ok  " : "FAIL", bname, bpc, feats[fi] ? feats[fi] : "(both)",
                           threads[ti], mode == 1 ? "lent      " : mode == 2 ? "ref, even " : mode == 3 ? "lent, odd " : "one by one", lent,
                           m.released, m.double_release, same ? "" : ", scores differ");
                    fails += !ok;
                    lender_free(&m);
                }
                if (ret < 0) {
                    printf("FAIL %s %d-bit threads %d: %s\n", bname, bpc, threads[ti],
                           speedqa_strerror(ret));
                    fails++;
                }
                lender_free(&l);
            }
    refused(be);
    printf("%s\n", fails ? "FAILED" : "all passed");
    return fails ? 1 : 0;
}
