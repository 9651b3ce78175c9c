/*
 * Ladders (issue #15): one context scores D distorted streams against one
 * reference, sharing the reference side. Every stream's scores must equal,
 * bit for bit, those of its own single-stream context on the same frames:
 * 8 and 16-bit containers, 1 and 3 threads, lent and copied pictures,
 * speed_use_ref_diff (whose distorted side reads the reference), a prescaled
 * feature, a stream that ends early, a flush that starts a second sequence
 * in which the ended stream comes back, semi-planar pictures for some
 * streams (read through the per-side unpack buffers, the third side of a
 * ladder's pairs included). Also the ladder's argument errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define W 320
#define H 240
#define NF 14
#define FLUSH_AT 9  /* a new sequence starts here */
#define D 4
#define SHORT 6     /* stream 2 ends after this many frames of the first sequence */

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; fprintf(stderr, "FAIL: " __VA_ARGS__); \
    fprintf(stderr, "\n"); } } while (0)

typedef struct Frame {
    uint16_t *buf;
    SpeedqaPicture pic;
} Frame;

static void on_release(void *opaque, const void *data0)
{
    long *n = opaque;
    (void)data0;
    __atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
}

/* Stream s (0 = reference) frame f: a smooth picture plus stream-dependent noise. */
static void make(Frame *fr, int s, int f, int bpc)
{
    const int cw = W / 2, ch = H / 2, bps = bpc > 8 ? 2 : 1;
    fr->buf = calloc((size_t)(W * H + 2 * cw * ch), 2);
    unsigned char *p = (unsigned char *)fr->buf;
    memset(&fr->pic, 0, sizeof fr->pic);
    fr->pic.format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, bpc };
    const int pw[3] = { W, cw, cw }, ph[3] = { H, ch, ch };
    const unsigned mx = (1u << bpc) - 1;
    for (int pl = 0; pl < 3; pl++) {
        fr->pic.data[pl] = p;
        fr->pic.stride[pl] = (ptrdiff_t)pw[pl] * bps;
        for (int y = 0; y < ph[pl]; y++)
            for (int x = 0; x < pw[pl]; x++) {
                unsigned v = (unsigned)((x * x + 2 * y * y + x * y * (pl + 1) + 9 * f * (x + 3)) >> 4);
                v += (unsigned)((x * 37 + y * 11 + f * 7 + s * 13) % (5 + 6 * s));
                v = bpc > 8 ? (v * 61) % (mx + 1) : v % 256;
                if (bps == 2)
                    ((uint16_t *)p)[y * pw[pl] + x] = (uint16_t)v;
                else
                    p[y * pw[pl] + x] = (unsigned char)v;
            }
        p += (size_t)pw[pl] * ph[pl] * bps;
    }
}

typedef struct Case {
    int bpc, threads, lend;
    const char *features[3];
    int semi;   /* the ladder gets odd streams' pictures semi-planar (NV12 / 16-bit pairs) */
} Case;

/* fr's picture with U and V interleaved into one plane (same samples). */
static void semi_planar(const Frame *fr, Frame *out)
{
    const SpeedqaPicture *p = &fr->pic;
    const int bps = p->format.bpc > 8 ? 2 : 1, cw = W / 2, ch = H / 2;
    out->buf = calloc((size_t)(W * H + 2 * cw * ch), 2);
    out->pic = *p;
    unsigned char *y = (unsigned char *)out->buf, *uv = y + (size_t)W * H * bps;
    memcpy(y, p->data[0], (size_t)W * H * bps);
    for (int r = 0; r < ch; r++)
        for (int x = 0; x < cw; x++)
            for (int k = 0; k < 2; k++)
                memcpy(uv + ((size_t)r * 2 * cw + 2 * x + k) * bps,
                       (const unsigned char *)p->data[1 + k] + ((size_t)r * cw + x) * bps, bps);
    out->pic.data[0] = y;
    out->pic.data[1] = uv;
    out->pic.data[2] = NULL;
    out->pic.stride[1] = (ptrdiff_t)2 * cw * bps;
    out->pic.stride[2] = 0;
    out->pic.layout = SPEEDQA_LAYOUT_SEMI_PLANAR;
}

static int open_ctx(SpeedqaContext **c, const Case *cs, int ndis, LogCapture *log)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, cs->bpc };
    s.features = cs->features[0] ? cs->features : NULL;
    s.n_threads = cs->threads;
    s.n_distorted = ndis;
    s.logger = log_capture;
    s.log_cookie = log;
    return speedqa_open(c, &s);
}

/* Does stream d (0-based) have frame f? */
static int has(int d, int f)
{
    return !(d == 2 && f >= SHORT && f < FLUSH_AT);
}

static void run_case(const Case *cs, Frame fr[D + 1][NF], Frame sp[D + 1][NF])
{
    LogCapture log = { .quiet = 1 };
    long released = 0;
    static TestScores want[D][NF], got[NF][D];
    int nwant[D] = { 0 }, ngot = 0;
    /* separate runs */
    for (int d = 0; d < D; d++) {
        SpeedqaContext *c;
        CHECK(open_ctx(&c, cs, 1, &log) == 0, "open single: %s", log.last);
        if (!c)
            return;
        for (int f = 0; f < NF; f++) {
            if (f == FLUSH_AT) {
                speedqa_flush(c);
                while (test_receive(c, &want[d][nwant[d]], 1, 0) == 0)
                    nwant[d]++;
            }
            if (!has(d, f))
                continue;
            int r = speedqa_send(c, &fr[0][f].pic, &fr[1 + d][f].pic);
            CHECK(r == 0, "single send %d: %s", r, log.last);
            while (test_receive(c, &want[d][nwant[d]], 1, 0) == 0)
                nwant[d]++;
        }
        speedqa_flush(c);
        while (test_receive(c, &want[d][nwant[d]], 1, 0) == 0)
            nwant[d]++;
        speedqa_close(&c);
    }
    /* the ladder */
    SpeedqaContext *c;
    CHECK(open_ctx(&c, cs, D, &log) == 0, "open ladder: %s", log.last);
    if (!c)
        return;
    for (int f = 0; f < NF; f++) {
        if (f == FLUSH_AT) {
            speedqa_flush(c);
            while (test_receive(c, got[ngot], D, 0) == 0)
                ngot++;
        }
        SpeedqaPicture ref = fr[0][f].pic, dis[D];
        const SpeedqaPicture *dp[D];
        if (cs->lend) {
            ref.release = on_release;
            ref.release_opaque = &released;
        }
        for (int d = 0; d < D; d++) {
            dis[d] = cs->semi && d % 2 ? sp[1 + d][f].pic : fr[1 + d][f].pic;
            if (cs->lend && d % 2 == 0) { /* mixed: even streams lent, odd copied */
                dis[d].release = on_release;
                dis[d].release_opaque = &released;
            }
            dp[d] = has(d, f) ? &dis[d] : NULL;
        }
        int r;
        while ((r = speedqa_send_ladder(c, &ref, dp, D)) == -EAGAIN)
            CHECK(test_receive(c, got[ngot++], D, 0) == 0, "receive: %s", log.last);
        CHECK(r == 0, "ladder send %d: %s", r, log.last);
        while (test_receive(c, got[ngot], D, 0) == 0)
            ngot++;
    }
    speedqa_flush(c);
    int r;
    while ((r = test_receive(c, got[ngot], D, 0)) == 0)
        ngot++;
    CHECK(r == SPEEDQA_EOF, "ladder end %d: %s", r, log.last);
    speedqa_close(&c);
    CHECK(ngot == NF, "ladder gave %d frames of %d", ngot, NF);
    long lent = 0;
    for (int f = 0; f < NF; f++)
        lent += cs->lend ? 1 + (has(0, f) + has(2, f)) : 0;
    CHECK(released == lent, "released %ld of %ld lent pictures", released, lent);
    /* compare */
    for (int d = 0; d < D; d++) {
        int k = 0;
        for (int f = 0; f < ngot && f < NF; f++) {
            const TestScores *g = &got[f][d];
            if (!has(d, f)) {
                CHECK(g->count == 0, "stream %d frame %d: %d scores for no picture", d, f, g->count);
                continue;
            }
            if (k >= nwant[d])
                break;
            const TestScores *w = &want[d][k++];
            CHECK(g->count == w->count && g->sequence == w->sequence &&
                  g->sequence_frame == w->sequence_frame && g->undefined == w->undefined,
                  "stream %d frame %d: count/sequence differ", d, f);
            for (int i = 0; i < w->count; i++)
                CHECK(!memcmp(&g->values[i], &w->values[i], sizeof(double)),
                      "bpc %d threads %d lend %d %s: stream %d frame %d score %d: %.17g != %.17g",
                      cs->bpc, cs->threads, cs->lend, cs->features[0] ? cs->features[0] : "default",
                      d, f, i, g->values[i], w->values[i]);
        }
        CHECK(k == nwant[d], "stream %d: %d of %d frames compared", d, k, nwant[d]);
    }
}

static void errors(Frame fr[D + 1][NF])
{
    LogCapture log = { .quiet = 1 };
    const Case cs = { 8, 1, 0, { NULL }, 0 };
    SpeedqaContext *c;
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, 8 };
    s.logger = log_capture;
    s.log_cookie = &log;
    s.n_distorted = SPEEDQA_MAX_DISTORTED + 1;
    CHECK(speedqa_open(&c, &s) == -EINVAL && strstr(log.last, "n_distorted"), "too many: %s", log.last);
    s.n_distorted = 2;
    s.backend = SPEEDQA_BACKEND_OPENCL;
    const int r = speedqa_open(&c, &s);
    CHECK(r == -ENOSYS && strstr(log.last, "ladders"), "gpu ladder: %d %s", r, log.last);
    CHECK(open_ctx(&c, &cs, D, &log) == 0, "open: %s", log.last);
    if (!c)
        return;
    const SpeedqaPicture *dp[D] = { &fr[1][0].pic, &fr[2][0].pic, &fr[3][0].pic, &fr[4][0].pic };
    TestScores sc[D];
    CHECK(speedqa_send(c, &fr[0][0].pic, &fr[1][0].pic) == -EINVAL && strstr(log.last, "ladder"),
          "plain send on a ladder: %s", log.last);
    CHECK(speedqa_send_ladder(c, &fr[0][0].pic, dp, D - 1) == -EINVAL, "wrong n accepted");
    const SpeedqaPicture *none[D] = { NULL };
    CHECK(speedqa_send_ladder(c, &fr[0][0].pic, none, D) == -EINVAL && strstr(log.last, "NULL"),
          "all NULL: %s", log.last);
    SpeedqaPicture bad = fr[2][0].pic;
    bad.format.bpc = 10;
    const SpeedqaPicture *bp[D] = { dp[0], &bad, dp[2], dp[3] };
    CHECK(speedqa_send_ladder(c, &fr[0][0].pic, bp, D) == -EINVAL && strstr(log.last, "distorted 2"),
          "bad stream 2 not named: %s", log.last);
    const SpeedqaPicture *ended[D] = { dp[0], NULL, dp[2], dp[3] };
    CHECK(speedqa_send_ladder(c, &fr[0][0].pic, ended, D) == 0, "send with an ended stream");
    CHECK(speedqa_send_ladder(c, &fr[0][1].pic, dp, D) == -EINVAL && strstr(log.last, "ended"),
          "ended stream came back: %s", log.last);
    CHECK(test_receive(c, sc, 1, 0) == -EINVAL, "plain receive on a ladder");
    CHECK(test_receive(c, sc, D, 0) == 0 && sc[1].count == 0 && sc[0].count == 4,
          "receive with an ended stream");
    speedqa_close(&c);
}

int main(void)
{
    static Frame fr8[D + 1][NF], fr16[D + 1][NF], sp8[D + 1][NF], sp16[D + 1][NF];
    for (int s = 0; s <= D; s++)
        for (int f = 0; f < NF; f++) {
            make(&fr8[s][f], s, f, 8);
            make(&fr16[s][f], s, f, 10);
            semi_planar(&fr8[s][f], &sp8[s][f]);
            semi_planar(&fr16[s][f], &sp16[s][f]);
        }
    static const Case cases[] = {
        { 8, 1, 0, { NULL }, 0 },
        { 8, 3, 1, { NULL }, 0 },
        { 8, 1, 1, { "speed_temporal=speed_use_ref_diff=true", "speed_chroma", NULL }, 0 },
        { 8, 3, 0, { "speed_temporal=speed_use_ref_diff=true", NULL }, 0 },
        { 10, 1, 1, { NULL }, 0 },
        { 10, 3, 1, { "speed_chroma=speed_prescale=1.5", "speed_temporal", NULL }, 0 },
        { 10, 3, 0, { "speed_temporal=speed_kernelscale=2", NULL }, 0 },
        { 8, 1, 1, { NULL }, 1 },
        { 8, 3, 0, { "speed_temporal=speed_use_ref_diff=true", "speed_chroma", NULL }, 1 },
        { 10, 3, 1, { NULL }, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], cases[i].bpc > 8 ? fr16 : fr8, cases[i].bpc > 8 ? sp16 : sp8);
    errors(fr8);
    for (int s = 0; s <= D; s++)
        for (int f = 0; f < NF; f++) {
            free(fr8[s][f].buf);
            free(fr16[s][f].buf);
            free(sp8[s][f].buf);
            free(sp16[s][f].buf);
        }
    if (fails)
        fprintf(stderr, "%d failures\n", fails);
    else
        printf("ladder == separate runs on %zu cases, errors checked\n", sizeof cases / sizeof cases[0]);
    return fails ? 1 : 0;
}
