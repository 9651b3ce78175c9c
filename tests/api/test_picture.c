/*
 * Library pictures (speedqa_picture_alloc, issue #12): the planes the
 * library allocates (pinned and uploaded from in place on the GPU backends)
 * score exactly like the same frames sent as copies, bit for bit, for 8 and
 * 10 bits, each feature and both, one thread and several. The free list is
 * last in, first out, so a picture released too early (before its upload
 * or its next frame's speed_temporal read it) is refilled with another
 * frame at once and changes a score. Also: planes are reused (a run's
 * pictures use at most what its queue holds), references count (a picture sent as both sides, kept after
 * sending), everything is freed at close, and a picture outliving its
 * context may still be unreferenced. At 384x208 every row is whole cache
 * lines, so a GPU uploads only the runs of rows its features read. The 10-bit library runs close with
 * cuda.keep_device, so that every later run opens a context that was kept.
 *
 * usage: test_picture [cpu|cuda|opencl|hip] (77 when that backend has no device)
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define W 328
#define H 200
#define NF 72
#define FLUSH_AT 17 /* a second sequence from here */
#define MAX_DISTINCT 72 /* planes a run may use for its 2 x NF pictures: a GPU queue holds 32 frames */

static int fails;

static void check(int ok, const char *what, long a, long b)
{
    printf("%s %s (%ld, %ld)\n", ok ? "ok  " : "FAIL", what, a, b);
    fails += !ok;
}

/* Counting allocator: live blocks. */
typedef struct Count {
    atomic_long live;
} Count;

static void *c_alloc(void *opaque, size_t size)
{
    Count *c = opaque;
    void *p = aligned_alloc(64, (size + 63) & ~(size_t)63); /* the settings' contract */
    if (p)
        atomic_fetch_add(&c->live, 1);
    return p;
}

static void c_free(void *opaque, void *p)
{
    Count *c = opaque;
    if (p)
        atomic_fetch_sub(&c->live, 1);
    free(p);
}

static unsigned sample(int f, int side, int plane, int x, int y, int bpc)
{
    unsigned v = (unsigned)((x * x + 5 * y * y + x * y * (plane + 2) + 11 * f * (y + 1)) >> 5) % 210;
    v += (unsigned)((x * 29 + y * 13 + f * 7 + side * 3) % 19) * (side + 1);
    return bpc > 8 ? (v * 4 + (unsigned)(y % 4)) % 1024 : v % 256;
}

/* Frame f of a side into pic's planes (its own strides). */
static void fill(SpeedqaPicture *pic, int f, int side)
{
    const int bpc = pic->format.bpc;
    for (int c = 0; c < 3; c++) {
        const int w = pic->format.width >> (c ? 1 : 0), h = pic->format.height >> (c ? 1 : 0);
        unsigned char *p = (unsigned char *)pic->data[c];
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const unsigned v = sample(f, side, c, x, y, bpc);
                if (bpc > 8) {
                    const uint16_t v16 = (uint16_t)v;
                    memcpy(p + y * pic->stride[c] + 2 * x, &v16, 2);
                } else {
                    p[y * pic->stride[c] + x] = (unsigned char)v;
                }
            }
    }
}

typedef struct Run {
    int bpc, threads, library, keep; /* keep: cuda.keep_device (the next open finds the context) */
    const char *feature;
    SpeedqaBackend backend;
    int w, h;                /* 0: W x H */
} Run;

static int open_ctx(SpeedqaContext **ctx, const Run *r, Count *cnt, LogCapture *log)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = (SpeedqaFormat){ r->w ? r->w : W, r->h ? r->h : H, SPEEDQA_PIX_420, r->bpc };
    static const char *feats[2];
    feats[0] = r->feature;
    s.features = r->feature ? feats : NULL;
    s.n_threads = r->threads;
    s.backend = r->backend;
    s.logger = log_capture;
    s.log_cookie = log;
    s.alloc = c_alloc;
    s.free = c_free;
    s.alloc_opaque = cnt;
    s.cuda.keep_device = r->keep;
    return speedqa_open(ctx, &s);
}

/* NF frames as copies (library == 0) or library pictures; *distinct: the
 * planes the library pictures used. */
static int run(const Run *r, TestScores *out, int *distinct)
{
    static const void *seen[2 * NF];
    *distinct = 0;
    Count cnt = { 0 };
    LogCapture log = { .quiet = 1 };
    SpeedqaContext *ctx = NULL;
    int ret = open_ctx(&ctx, r, &cnt, &log);
    if (ret < 0)
        return ret;
    const int bps = r->bpc > 8 ? 2 : 1;
    const int w = r->w ? r->w : W, h = r->h ? r->h : H;
    unsigned char *own = calloc(2, (size_t)w * h * 3 / 2 * bps);
    int got = 0;
    for (int f = 0; f < NF && ret == 0; f++) {
        if (f == FLUSH_AT && ((ret = speedqa_flush(ctx)) < 0 || (ret = receive_ready(ctx, out, &got)) < 0))
            break;
        SpeedqaPicture pic[2];
        for (int s = 0; s < 2; s++) {
            if (r->library) {
                if ((ret = speedqa_picture_alloc(ctx, &pic[s])) < 0)
                    goto end;
                int k = 0;
                while (k < *distinct && seen[k] != pic[s].data[0])
                    k++;
                if (k == *distinct)
                    seen[(*distinct)++] = pic[s].data[0];
            } else {
                unsigned char *p = own + (size_t)s * w * h * 3 / 2 * bps;
                pic[s] = (SpeedqaPicture){ .format = { w, h, SPEEDQA_PIX_420, r->bpc } };
                for (int c = 0; c < 3; c++) {
                    pic[s].data[c] = p;
                    pic[s].stride[c] = (ptrdiff_t)(c ? w / 2 : w) * bps;
                    p += (size_t)(c ? w / 2 : w) * (c ? h / 2 : h) * bps;
                }
            }
            fill(&pic[s], f, s);
        }
        while ((ret = speedqa_send(ctx, &pic[0], &pic[1])) == SPEEDQA_ERR(EAGAIN))
            if ((ret = test_receive(ctx, &out[got], 1, 0)) == 0)
                got++;
            else if (ret != SPEEDQA_ERR(EAGAIN))
                break;
        if (ret < 0) {
            speedqa_picture_unref(&pic[0]); /* refused: still ours */
            speedqa_picture_unref(&pic[1]);
            break;
        }
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
    free(own);
    if (atomic_load(&cnt.live) != 0) {
        printf("FAIL %ld blocks still allocated after close\n", (long)atomic_load(&cnt.live));
        fails++;
    }
    return ret;
}

static int same(const TestScores *a, const TestScores *b, int n)
{
    for (int f = 0; f < n; f++) {
        if (a[f].count != b[f].count || a[f].count < 1 || a[f].frame != b[f].frame ||
            a[f].sequence != b[f].sequence)
            return 0;
        for (int k = 0; k < a[f].count; k++)
            if (memcmp(&a[f].values[k], &b[f].values[k], sizeof(double)))
                return 0;
    }
    return 1;
}

/* References: a picture sent as both sides (two references), one kept after
 * sending and read again, one alive after close and unreferenced then. */
static void references(SpeedqaBackend be)
{
    Count cnt = { 0 };
    LogCapture log = { .quiet = 1 };
    SpeedqaContext *ctx = NULL;
    const Run r = { 8, 2, 1, 0, NULL, be, 0, 0 };
    if (open_ctx(&ctx, &r, &cnt, &log) < 0)
        return;
    SpeedqaPicture p, q, late;
    int ok = speedqa_picture_alloc(ctx, &p) == 0 && speedqa_picture_alloc(ctx, &q) == 0 &&
             speedqa_picture_alloc(ctx, &late) == 0;
    check(ok && p.stride[0] % 64 == 0 && p.stride[1] % 64 == 0 &&
          (uintptr_t)p.data[0] % 64 == 0 && p.release != NULL,
          "library pictures: rows 64-byte aligned, a release callback", (long)p.stride[0],
          (long)p.stride[1]);
    if (!ok) {
        speedqa_close(&ctx);
        return;
    }
    fill(&p, 0, 0);
    fill(&q, 0, 1);
    const SpeedqaPicture foreign = { .format = p.format };
    ok = speedqa_picture_ref(&p) == 0 && speedqa_picture_ref(&q) == 0 &&
         speedqa_picture_ref(&foreign) == SPEEDQA_ERR(EINVAL);
    TestScores same_sides, sc;
    ok = ok && speedqa_send(ctx, &p, &p) == 0 && speedqa_flush(ctx) == 0 &&
         test_receive(ctx, &same_sides, 1, 0) == 0;
    /* q still has our reference after sending: it must read as it was */
    ok = ok && speedqa_send(ctx, &q, &q) == 0 && speedqa_flush(ctx) == 0 &&
         test_receive(ctx, &sc, 1, 0) == 0;
    int kept = 1;
    for (int y = 0; y < H && ok; y++)
        for (int x = 0; x < W; x++)
            kept &= ((const unsigned char *)q.data[0])[y * q.stride[0] + x] ==
                    (unsigned char)sample(0, 1, 0, x, y, 8);
    speedqa_picture_unref(&q);
    check(ok && kept && q.release == NULL,
          "a picture sent twice and kept: sent, intact after sending, unreferenced", ok, kept);
    /* identical sides: speed_chroma's scores are those of no difference */
    int zero = ok;
    for (int k = 0; ok && k < same_sides.count; k++)
        zero &= strncmp(speedqa_score_name(ctx, k), "speed_chroma", 12) ||
                same_sides.values[k] == 0.0;
    check(zero, "both sides one picture (two references): speed_chroma 0", ok, same_sides.count);
    speedqa_close(&ctx);
    /* the context is gone: unreferencing its picture frees what is left */
    speedqa_picture_unref(&late);
    check(atomic_load(&cnt.live) == 0, "a picture unreferenced after close: every block freed",
          (long)atomic_load(&cnt.live), 0);
}

int main(int argc, char **argv)
{
    const char *bname = argc > 1 ? argv[1] : "cpu";
    const SpeedqaBackend be = backend_named(bname);
    {
        Count cnt = { 0 };
        LogCapture log = { .quiet = 1 };
        SpeedqaContext *ctx = NULL;
        const Run probe = { 8, 1, 0, 0, NULL, be, 0, 0 };
        const int r = open_ctx(&ctx, &probe, &cnt, &log);
        speedqa_close(&ctx);
        if (r == SPEEDQA_ERR(ENODEV) || r == SPEEDQA_ERR(ENOSYS)) {
            printf("skip: no %s device (%s)\n", bname, log.last);
            return 77;
        }
    }
    static TestScores a[NF], b[NF];
    const char *feats[] = { NULL, "speed_chroma", "speed_temporal" };
    for (int bpc = 8; bpc <= 10; bpc += 2)
        for (int t = 0; t < 2; t++)
            for (int fi = 0; fi < 3; fi++) {
                const int threads = t ? 4 : 1;
                Run r = { bpc, threads, 0, 0, feats[fi], be, 0, 0 };
                int distinct = 0;
                memset(a, 0, sizeof a);
                memset(b, 0, sizeof b);
                int ra = run(&r, a, &distinct);
                r.library = 1;
                r.keep = bpc > 8; /* the runs after it open a kept context */
                int rb = run(&r, b, &distinct);
                char what[160];
                snprintf(what, sizeof what, "%s %d-bit, %d thread(s), %s: library pictures == copies",
                         bname, bpc, threads, feats[fi] ? feats[fi] : "both");
                check(ra == 0 && rb == 0 && same(a, b, NF), what, ra, rb);
                snprintf(what, sizeof what, "%s %d-bit, %d thread(s), %s: planes reused (distinct "
                         "of %d pictures)", bname, bpc, threads, feats[fi] ? feats[fi] : "both", 2 * NF);
                check(distinct >= 2 && distinct <= MAX_DISTINCT, what, distinct, MAX_DISTINCT);
            }
    /* rows of whole cache lines: a GPU uploads only the runs of rows read */
    for (int bpc = 8; bpc <= 10; bpc += 2)
        for (int fi = 0; fi < 3; fi++) {
            Run r = { bpc, 2, 0, 0, feats[fi], be, 384, 208 };
            int distinct = 0;
            memset(a, 0, sizeof a);
            memset(b, 0, sizeof b);
            const int ra = run(&r, a, &distinct);
            r.library = 1;
            const int rb = run(&r, b, &distinct);
            char what[160];
            snprintf(what, sizeof what, "%s %d-bit 384x208, %s: library pictures == copies", bname,
                     bpc, feats[fi] ? feats[fi] : "both");
            check(ra == 0 && rb == 0 && same(a, b, NF), what, ra, rb);
        }
    references(be);
    printf("%s\n", fails ? "FAILED" : "all passed");
    return fails ? 1 : 0;
}
