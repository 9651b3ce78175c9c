/*
 * Samples above the declared bit depth fail the frame with -ERANGE and one
 * log line naming the picture, frame, plane, largest value and depth (with
 * the MSB-aligned hint when the samples look like P010), on every backend
 * and path: CPU one thread (send fails) and three threads (receive fails),
 * C and AVX2, prescale, the null GPU emulator (through the backend
 * interface) and OpenCL (public API, when a device exists), cambi's distorted
 * luma on each of them too. Samples only
 * in rows or planes no feature reads do not fail, an in-range maximum
 * scores as before, and a speed_temporal score that is not finite fails
 * with -EDOM rather than being published.
 *
 *   test_range [null|opencl ...]   GPU runtimes to cover besides the CPU
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "feature/feature.h"
#include "runner.h"
#include "common/check.h"

static int fails;

/* Two-frame clip: ref[t], dis[t] of w x h 4:4:4 (or 4:2:0) at bpc, textured. */
typedef struct Clip {
    SpeedqaFormat fmt;
    uint16_t *buf[2][2];
    SpeedqaPicture ref[2], dis[2];
} Clip;

static void plane_dims(const SpeedqaFormat *f, int p, int *w, int *h)
{
    *w = p && f->fmt != SPEEDQA_PIX_444 ? f->width >> 1 : f->width;
    *h = p && f->fmt == SPEEDQA_PIX_420 ? f->height >> 1 : f->height;
}

static void clip_make(Clip *c, int w, int h, SpeedqaPixelFormat fmt, int bpc)
{
    memset(c, 0, sizeof(*c));
    c->fmt = (SpeedqaFormat){ w, h, fmt, bpc };
    unsigned seed = 12345;
    const unsigned maxv = (1u << bpc) - 1;
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 2; s++) {
            SpeedqaPicture *pic = s ? &c->dis[t] : &c->ref[t];
            c->buf[t][s] = malloc((size_t)w * h * 3 * sizeof(uint16_t));
            pic->format = c->fmt;
            size_t off = 0;
            for (int p = 0; p < 3; p++) {
                int pw, ph;
                plane_dims(&c->fmt, p, &pw, &ph);
                uint16_t *d = c->buf[t][s] + off;
                pic->data[p] = d;
                pic->stride[p] = (ptrdiff_t)pw * 2;
                for (int y = 0; y < ph; y++)
                    for (int x = 0; x < pw; x++) {
                        seed = seed * 1664525u + 1013904223u;
                        const unsigned v = ((unsigned)(x * x + 3 * y * y + x * y) >> 5) % 200 +
                                           (seed >> 28) + 20 + 5 * t + 3 * p;
                        d[(size_t)y * pw + x] = (uint16_t)((v << (bpc - 8)) % (maxv + 1));
                    }
                off += (size_t)pw * ph;
            }
        }
}

static void clip_free(Clip *c)
{
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 2; s++)
            free(c->buf[t][s]);
}

static uint16_t *plane_of(Clip *c, int t, int s, int p)
{
    return (uint16_t *)(s ? c->dis[t] : c->ref[t]).data[p];
}

/* The found case: a third of the samples of every plane of distorted frame 0
 * above 4095, the largest 63866 (at row 0, read by every feature). */
static void spoil_third(Clip *c, int t, int s)
{
    unsigned seed = 777;
    for (int p = 0; p < 3; p++) {
        int pw, ph;
        plane_dims(&c->fmt, p, &pw, &ph);
        uint16_t *d = plane_of(c, t, s, p);
        for (size_t i = 0; i < (size_t)pw * ph; i++) {
            seed = seed * 1664525u + 1013904223u;
            if (seed % 3 == 0)
                d[i] = (uint16_t)(4096 + (seed >> 8) % (63866 - 4096));
        }
        d[5] = 63866;
    }
}

typedef struct Outcome {
    int send_ret[2], recv_ret[2];
    int first_fail;       /* frame whose send or receive failed, -1 none */
    int fail_in_send;
    int sticky;           /* the call after the failure failed the same way */
    double v[2][TEST_MAX_SCORES];
    int count;
    char msg[512];
    int nerr;             /* error lines logged */
} Outcome;

typedef struct Log {
    char last[512];
    int nerr;
} Log;

static void logger(void *cookie, SpeedqaLogLevel lvl, const char *msg)
{
    Log *l = cookie;
    if (lvl == SPEEDQA_LOG_ERROR) {
        snprintf(l->last, sizeof(l->last), "%s", msg);
        l->nerr++;
    }
}

/* The failing call's line and the count of error lines up to it. */
static void snapshot(Outcome *o, const Log *log)
{
    snprintf(o->msg, sizeof(o->msg), "%s", log->last);
    o->nerr = log->nerr;
}

/* Each later call on the failed context logged its own line (want lines in all). */
static int repeated(const Log *log, int want)
{
    return log->nerr == want && strstr(log->last, "an earlier call failed") != NULL;
}

/* Public API, send-receive per frame. 0, or the open error. */
static int api_run(const Clip *c, const char *const *feats, SpeedqaBackend be, int threads,
                   unsigned cpu_mask, int one_by_one, Outcome *o)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = c->fmt;
    s.features = feats;
    s.backend = be;
    s.n_threads = threads;
    s.cpu_mask = cpu_mask;
    Log log = { "", 0 };
    s.logger = logger;
    s.log_cookie = &log;
    memset(o, 0, sizeof(*o));
    o->first_fail = -1;
    SpeedqaContext *ctx;
    int ret = speedqa_open(&ctx, &s);
    if (ret < 0)
        return ret;
    o->count = speedqa_score_count(ctx);
    TestScores sc;
    int received = 0;
    for (int t = 0; t < 2 && o->first_fail < 0; t++) {
        o->send_ret[t] = speedqa_send(ctx, &c->ref[t], &c->dis[t]);
        if (o->send_ret[t] < 0) {
            o->first_fail = t;
            o->fail_in_send = 1;
            snapshot(o, &log);
            o->sticky = test_receive(ctx, &sc, 1, 0) == o->send_ret[t] && repeated(&log, o->nerr + 1);
            break;
        }
        if (t == 1)
            speedqa_flush(ctx);
        for (int k = 0; o->first_fail < 0; k++) {
            /* one by one: the frame is alone in flight, and waited for */
            const int r = one_by_one && k == 0 ? test_receive(ctx, &sc, 1, SPEEDQA_RECEIVE_WAIT)
                                               : test_receive(ctx, &sc, 1, 0);
            if (r == SPEEDQA_ERR(EAGAIN) || r == SPEEDQA_EOF)
                break;
            if (r < 0) {
                o->first_fail = received; /* the oldest frame not yet received */
                o->recv_ret[received] = r;
                snapshot(o, &log);
                o->sticky = test_receive(ctx, &sc, 1, 0) == r && speedqa_send(ctx, &c->ref[0], &c->dis[0]) == r &&
                            repeated(&log, o->nerr + 2);
                break;
            }
            memcpy(o->v[sc.frame], sc.values, sizeof(double) * (size_t)sc.count);
            received++;
        }
    }
    if (o->first_fail < 0)
        snapshot(o, &log);
    speedqa_close(&ctx);
    return 0;
}

/* The null GPU (or another SqGpuFns) through the backend interface, as the library drives it. */
static int runner_try(const Clip *c, const char *const *feats, const SqGpuFns *fns, double *out,
                      char *err, size_t errlen)
{
    Runner r;
    int ret = runner_open(&r, NULL, fns, &c->fmt, feats, 1, NULL, err, errlen);
    if (ret < 0)
        return ret;
    ret = runner_run(&r, c->ref, c->dis, 2, NULL, out, err, errlen);
    runner_close(&r);
    return ret;
}

typedef struct Variant {
    const char *name;
    SpeedqaBackend be;
    int threads;
    unsigned mask;
    int one_by_one;
} Variant;

static Variant variants[8];
static int nvariants;
static const SqGpuFns *gpus[4];
static int ngpus;

/*
 * Every backend fails frame `frame` with msg (substring), send or receive
 * as documented.
 */
static void expect_range(const char *what, const Clip *c, const char *const *feats, int frame,
                         const char *msg)
{
    for (int i = 0; i < nvariants; i++) {
        const Variant *vr = &variants[i];
        Outcome o;
        if (api_run(c, feats, vr->be, vr->threads, vr->mask, vr->one_by_one, &o) < 0) {
            CHECK(0, "%s [%s]: open failed", what, vr->name);
            continue;
        }
        /* one CPU thread scores inside send: send fails; otherwise the receive */
        const int in_send = vr->be == SPEEDQA_BACKEND_CPU && vr->threads == 1;
        const int ok = o.first_fail == frame && o.fail_in_send == in_send &&
                       (in_send ? o.send_ret[o.first_fail] : o.recv_ret[o.first_fail]) == SPEEDQA_ERR(ERANGE) &&
                       strstr(o.msg, msg) && o.nerr == 1 && o.sticky;
        printf("%s %s [%s]: %s of frame %d -> %s \"%s\"\n", ok ? "ok  " : "FAIL", what, vr->name,
               o.fail_in_send ? "send" : "receive", o.first_fail,
               speedqa_strerror(o.fail_in_send ? o.send_ret[o.first_fail < 0 ? 0 : o.first_fail]
                                               : o.recv_ret[o.first_fail < 0 ? 0 : o.first_fail]),
               o.msg);
        if (!ok) {
            printf("     want \"%s\", one error line (got %d), sticky %d\n", msg, o.nerr, o.sticky);
            fails++;
        }
    }
    for (int g = 0; g < ngpus; g++) {
        double out[2 * TEST_MAX_SCORES];
        char err[400] = "";
        const int ret = runner_try(c, feats, gpus[g], out, err, sizeof(err));
        const int ok = ret == -ERANGE && strstr(err, msg);
        printf("%s %s [%s pipeline]: %d \"%s\"\n", ok ? "ok  " : "FAIL", what, gpus[g]->name, ret, err);
        fails += !ok;
    }
}

/*
 * Every backend scores both frames; values identical across backends and
 * to want (if given). api_only: not the bare pipelines, whose runner
 * assembles each frame alone (motion's scores look ahead).
 */
static void expect_scores_on(const char *what, const Clip *c, const char *const *feats,
                             const double *want, int api_only)
{
    double first[2][TEST_MAX_SCORES];
    int n = 0;
    for (int i = 0; i < nvariants; i++) {
        const Variant *vr = &variants[i];
        Outcome o;
        if (api_run(c, feats, vr->be, vr->threads, vr->mask, vr->one_by_one, &o) < 0) {
            CHECK(0, "%s [%s]: open failed", what, vr->name);
            continue;
        }
        int ok = o.first_fail < 0 && o.nerr == 0;
        if (i == 0) {
            memcpy(first, o.v, sizeof(first));
            n = o.count;
        }
        for (int t = 0; t < 2 && ok; t++)
            for (int k = 0; k < n; k++)
                ok &= isfinite(o.v[t][k]) && memcmp(&o.v[t][k], &first[t][k], sizeof(double)) == 0 &&
                      (!want || o.v[t][k] == want[t * n + k]);
        printf("%s %s [%s]: %s\n", ok ? "ok  " : "FAIL", what, vr->name,
               o.first_fail < 0 ? "scored" : o.msg);
        if (!ok || (i == 0 && getenv("RANGE_VERBOSE")))
            for (int t = 0; t < 2; t++)
                for (int k = 0; k < n; k++)
                    printf("     frame %d score %d: %.17g\n", t, k, o.v[t][k]);
        fails += !ok;
    }
    for (int g = 0; g < ngpus && !api_only; g++) {
        double out[2 * TEST_MAX_SCORES];
        char err[400] = "";
        const int ret = runner_try(c, feats, gpus[g], out, err, sizeof(err));
        int ok = ret == 0;
        for (int t = 0; t < 2 && ok; t++)
            for (int k = 0; k < n; k++)
                ok &= memcmp(&out[t * n + k], &first[t][k], sizeof(double)) == 0;

        printf("%s %s [%s pipeline]: %d %s\n", ok ? "ok  " : "FAIL", what, gpus[g]->name, ret, err);
        fails += !ok;
    }
}

static void expect_scores(const char *what, const Clip *c, const char *const *feats, const double *want)
{
    expect_scores_on(what, c, feats, want, 0);
}

/* speed_temporal has no clip: a NaN there must fail, never be published. */
static void temporal_nan_fails(void)
{
    const SpeedqaFormat fmt = { 320, 180, SPEEDQA_PIX_420, 8 };
    const SqAlloc a = { 0 };
    SqFeature f[2];
    char err[400];
    if (sq_feature_open(&f[0], "speed_temporal", &fmt, &a, err, sizeof(err)) < 0 ||
        sq_feature_open(&f[1], "speed_chroma", &fmt, &a, err, sizeof(err)) < 0) {
        CHECK(0, "feature open: %s", err);
        return;
    }
    SqBackendParams bp;
    memset(&bp, 0, sizeof(bp));
    sq_features_jobs(f, 2, &bp);
    const int t = f[0].job[0], u = f[1].job[0], v = f[1].job[1];
    SqRawResult raw;
    memset(&raw, 0, sizeof(raw));
    double out[4];
    uint32_t undef = 7;
    raw.score[t] = NAN;
    const int rt = sq_feature_assemble(&f[0], &raw, out, &undef);
    CHECK(rt == -EDOM && undef == 0, "temporal NaN: assemble %d undefined %#x", rt, undef);
    raw.score[t] = INFINITY;
    CHECK(sq_feature_assemble(&f[0], &raw, out, &undef) == -EDOM, "temporal +inf is not published");
    raw.score[t] = 3.5f;
    CHECK(sq_feature_assemble(&f[0], &raw, out, &undef) == 0 && out[0] == 3.5, "finite temporal");
    /* chroma: NaN clips to speed_max_val and is flagged; u NaN makes uv NaN */
    raw.score[u] = NAN;
    raw.score[v] = 2000.0f;
    const int rc = sq_feature_assemble(&f[1], &raw, out, &undef);
    CHECK(rc == 0 && out[0] == 1000.0 && out[1] == 1000.0 && out[2] == 1000.0 && undef == 5,
          "chroma NaN u: %d %g %g %g undefined %#x (want 0 1000 1000 1000 0x5)", rc, out[0], out[1],
          out[2], undef);
    /* a singular u defers uv to v: defined */
    raw.err[u] = 1;
    raw.score[v] = 7.0f;
    CHECK(sq_feature_assemble(&f[1], &raw, out, &undef) == 0 && undef == 1 && out[2] == 7.0,
          "chroma NaN u, singular: uv = v, only u flagged (undefined %#x)", undef);
    printf("%s speed_temporal NaN/inf -> -EDOM; chroma NaN -> speed_max_val, flagged\n",
           fails ? "    " : "ok  ");
    sq_feature_close(&f[0]);
    sq_feature_close(&f[1]);
}

/* Every step-th sample (step + side for the distorted one) of every plane:
 * set to value, or when shift > 0 shifted left by it (value ignored). */
static void every_sample(Clip *c, int step, uint16_t value, int shift)
{
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 2; s++)
            for (int p = 0; p < 3; p++) {
                int pw, ph;
                plane_dims(&c->fmt, p, &pw, &ph);
                uint16_t *d = plane_of(c, t, s, p);
                for (int i = 0; i < pw * ph; i += step == 1 ? 1 : step + s)
                    d[i] = shift ? (uint16_t)(d[i] << shift) : value;
            }
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    variants[nvariants++] = (Variant){ "cpu 1 thread", SPEEDQA_BACKEND_CPU, 1, ~0u, 0 };
    variants[nvariants++] = (Variant){ "cpu 1 thread C", SPEEDQA_BACKEND_CPU, 1, 0, 0 };
    variants[nvariants++] = (Variant){ "cpu 3 threads", SPEEDQA_BACKEND_CPU, 3, ~0u, 0 };
    variants[nvariants++] = (Variant){ "cpu 3 threads C", SPEEDQA_BACKEND_CPU, 3, 0, 0 };
    variants[nvariants++] = (Variant){ "cpu 8 threads, one by one", SPEEDQA_BACKEND_CPU, 8, ~0u, 1 };
    for (int i = 1; i < argc; i++) {
        const SqGpuFns *fns = runner_gpu_fns(argv[i]);
        if (!fns) {
            printf("skip %s: not built\n", argv[i]);
            continue;
        }
        gpus[ngpus++] = fns;
        const int api = runner_api_backend(argv[i]);
        if (api >= 0) {
            char list[512];
            if (speedqa_list_devices((SpeedqaBackend)api, list, sizeof(list)) > 0)
                variants[nvariants++] = (Variant){ argv[i], (SpeedqaBackend)api, 1, ~0u, 0 };
            else {
                printf("skip %s: no device\n", argv[i]);
                ngpus--;
            }
        }
    }
    temporal_nan_fails();

    static const char *const temporal[] = { "speed_temporal", NULL };
    static const char *const chroma[] = { "speed_chroma", NULL };
    static const char *const both[] = { "speed_chroma", "speed_temporal", NULL };
    static const char *const urd[] = { "speed_temporal=speed_use_ref_diff=true", NULL };
    static const char *const ps2[] = { "speed_temporal=speed_prescale=2", NULL };
    static const char *const ps05[] = { "speed_chroma=speed_prescale=0.5", NULL };
    Clip c;

    /* The found case: 12-bit 4:4:4 201x179, distorted frame 0 up to 63866. */
    clip_make(&c, 201, 179, SPEEDQA_PIX_444, 12);
    spoil_third(&c, 0, 1);
    const char *y0 = "distorted frame 0, plane Y: sample value 63866 is above 4095, the largest 12-bit value";
    const char *u0 = "distorted frame 0, plane U: sample value 63866 is above 4095, the largest 12-bit value";
    /* frame 0 of speed_temporal reads nothing: its luma is read (and named) at frame 1 */
    expect_range("12-bit temporal, bad distorted frame 0", &c, temporal, 1, y0);
    expect_range("12-bit chroma+temporal, bad distorted frame 0", &c, both, 0, u0);
    expect_range("12-bit temporal prescale 2", &c, ps2, 1, y0);
    expect_range("12-bit chroma prescale 0.5", &c, ps05, 0, u0);
    /* speed_use_ref_diff reads the distorted frame only as the previous one */
    expect_range("12-bit temporal use_ref_diff", &c, urd, 1, y0);
    clip_free(&c);

    /* The bad picture is the current reference of frame 1. */
    clip_make(&c, 201, 179, SPEEDQA_PIX_444, 12);
    plane_of(&c, 1, 0, 0)[201 * 3 + 7] = 5000;
    expect_range("12-bit temporal, bad reference frame 1", &c, temporal, 1,
                 "reference frame 1, plane Y: sample value 5000 is above 4095");
    clip_free(&c);

    /* One bad sample in the last rows of a plane, where only the last row
     * band reads it (and one in the first rows, the first band's). */
    for (int at = 0; at < 2; at++) {
        clip_make(&c, 640, 360, SPEEDQA_PIX_420, 10);
        plane_of(&c, 1, 1, 0)[640 * (at ? 337 : 3) + 200] = 4000; /* 336: the last centre row */
        plane_of(&c, 0, 1, 2)[320 * (at ? 161 : 2) + 50] = 1500; /* 160 */
        expect_range(at ? "10-bit, bad samples in the last rows" : "10-bit, bad samples in the first rows",
                     &c, temporal, 1, "distorted frame 1, plane Y: sample value 4000 is above 1023");
        expect_range(at ? "10-bit chroma, bad sample in the last rows" : "10-bit chroma, bad sample in the first rows",
                     &c, chroma, 0, "distorted frame 0, plane V: sample value 1500 is above 1023");
        clip_free(&c);
    }

    /* 10-bit holding MSB-aligned samples (P010 layout): the hint. */
    clip_make(&c, 640, 360, SPEEDQA_PIX_420, 10);
    every_sample(&c, 1, 0, 6);
    unsigned mx = 0;
    for (int i = 0; i < 640 * 360; i++)
        mx = plane_of(&c, 0, 0, 0)[i] > mx ? plane_of(&c, 0, 0, 0)[i] : mx;
    char want[300];
    snprintf(want, sizeof(want), "reference frame 0, plane Y: sample value %u is above 1023, the largest "
             "10-bit value (the samples look MSB-aligned, as P010 stores them: set "
             "SpeedqaPicture.msb_aligned, shift them right by 6 or declare 16-bit)", mx);
    expect_range("10-bit MSB-aligned, temporal", &c, temporal, 1, want);
    expect_range("10-bit MSB-aligned, chroma", &c, chroma, 0, "(the samples look MSB-aligned, as P010");
    clip_free(&c);

    /* In range at the largest value: scores, bit for bit as before the check. */
    clip_make(&c, 640, 360, SPEEDQA_PIX_420, 10);
    every_sample(&c, 5, 1023, 0);
    /* The values before out-of-range samples were checked (commit e6e0a24). */
    static const double at_max[2][4] = {
        { 21.423595428466797, 18.797054290771484, 20.110324859619141, 0 },
        { 18.531360626220703, 15.480581283569336, 17.005970001220703, 21.614089965820312 },
    };
    expect_scores("10-bit at 1023 everywhere", &c, both, &at_max[0][0]);
    clip_free(&c);

    /* Out of range only where no feature reads: no failure. */
    clip_make(&c, 640, 360, SPEEDQA_PIX_420, 10);
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 2; s++)
            plane_of(&c, t, s, 0)[17] = 60000; /* luma: speed_chroma never reads it */
    expect_scores("10-bit bad luma, speed_chroma only", &c, chroma, NULL);
    clip_free(&c);
    clip_make(&c, 640, 360, SPEEDQA_PIX_420, 10);
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 2; s++) {
            /* rows 8 and 40 are 8 rows from any multiple of 16: outside the 9-tap radius */
            plane_of(&c, t, s, 0)[640 * 8 + 3] = 60000;
            plane_of(&c, t, s, 1)[320 * 40 + 100] = 60000;
        }
    expect_scores("10-bit bad samples in rows no feature reads", &c, both, NULL);
    clip_free(&c);

    /* cambi reads the distorted luma whole (range-checked where it is read, on a GPU too,
     * whose histograms must not see the value); in range, every backend's score is one */
    static const char *const cambi[] = { "cambi", NULL };
    clip_make(&c, 640, 360, SPEEDQA_PIX_420, 10);
    plane_of(&c, 0, 1, 0)[640 * 200 + 333] = 4000;
    expect_range("10-bit cambi, bad distorted luma", &c, cambi, 0,
                 "distorted frame 0, plane Y: sample value 4000 is above 1023");
    clip_free(&c);
    clip_make(&c, 640, 360, SPEEDQA_PIX_420, 10);
    expect_scores("10-bit cambi", &c, cambi, NULL);
    clip_free(&c);

    /* motion, adm and vif read the luma whole; libvmaf computes with samples above the
     * depth in widths that differ from ours, so every backend fails the frame rather than
     * give another number (motion's frame 0 too, which has no SAD to compute) */
    static const char *const imot[] = { "motion", NULL }, *const iadm[] = { "adm", NULL },
                             *const ivif[] = { "vif", NULL };
    static const char *const ints[] = { "adm", "vif", NULL };
    clip_make(&c, 640, 360, SPEEDQA_PIX_420, 10);
    plane_of(&c, 0, 0, 0)[640 * 359 + 639] = 40000;
    expect_range("10-bit motion, bad reference frame 0", &c, imot, 0,
                    "reference frame 0, plane Y: sample value 40000 is above 1023");
    clip_free(&c);
    clip_make(&c, 640, 360, SPEEDQA_PIX_420, 10);
    plane_of(&c, 1, 0, 0)[640 * 359 + 639] = 40000;
    expect_range("10-bit adm, bad reference frame 1", &c, iadm, 1,
                    "reference frame 1, plane Y: sample value 40000 is above 1023");
    clip_free(&c);
    clip_make(&c, 640, 360, SPEEDQA_PIX_420, 10);
    plane_of(&c, 0, 1, 0)[640 * 100 + 5] = 1024;
    expect_range("10-bit vif, bad distorted frame 0", &c, ivif, 0,
                    "distorted frame 0, plane Y: sample value 1024 is above 1023");
    expect_range("10-bit adm, bad distorted frame 0", &c, iadm, 0,
                    "distorted frame 0, plane Y: sample value 1024 is above 1023");
    clip_free(&c);
    /* an odd width: rows start at every alignment; a bad sample at a row's start, in its
     * middle and in the last column of the last row */
    static const int odd_at[3][2] = { { 1, 0 }, { 2, 100 }, { 178, 202 } };
    for (int k = 0; k < 3; k++) {
        char what[96];
        clip_make(&c, 203, 179, SPEEDQA_PIX_420, 10);
        plane_of(&c, 0, 1, 0)[203 * odd_at[k][0] + odd_at[k][1]] = 1030;
        snprintf(what, sizeof(what), "10-bit 203x179 adm and vif, bad distorted (%d, %d)",
                 odd_at[k][0], odd_at[k][1]);
        expect_range(what, &c, ints, 0, "distorted frame 0, plane Y: sample value 1030 is above 1023");
        clip_free(&c);
    }

    /* one plane read by several features: checked once, failed once */
    static const char *const all4[] = { "motion", "adm", "vif", "cambi", NULL };
    clip_make(&c, 640, 360, SPEEDQA_PIX_420, 10);
    plane_of(&c, 0, 0, 0)[0] = 2048;
    plane_of(&c, 1, 1, 0)[640 * 180 + 320] = 1100;
    expect_range("10-bit motion, adm, vif and cambi, bad reference frame 0", &c, all4, 0,
                 "reference frame 0, plane Y: sample value 2048 is above 1023");
    clip_free(&c);
    clip_make(&c, 640, 360, SPEEDQA_PIX_420, 10);
    every_sample(&c, 5, 1023, 0);
    expect_scores("10-bit adm and vif at 1023 here and there", &c, ints, NULL);
    expect_scores_on("10-bit motion at 1023 here and there", &c, imot, NULL, 1);
    clip_free(&c);

    printf("%d failed\n", fails);
    return fails ? 1 : 0;
}
