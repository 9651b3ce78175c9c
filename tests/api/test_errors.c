/*
 * Bad input is rejected at open with -EINVAL and a message naming the cause
 * (spec 7: where Netflix crashes we refuse), nothing is leaked, and an
 * allocation failure anywhere in open or in the first frames is a clean
 * -ENOMEM. A counting allocator checks the leaks without ASan.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

typedef struct Counter {
    long allocs, frees, fail_at; /* fail_at: 1-based allocation that fails, 0 = never */
} Counter;

static void *c_alloc(void *opaque, size_t size)
{
    Counter *c = opaque;
    if (c->fail_at && c->allocs + 1 == c->fail_at) {
        c->fail_at = -1; /* fail once */
        return NULL;
    }
    void *p = NULL;
    if (posix_memalign(&p, 64, size ? size : 1))
        return NULL;
    c->allocs++;
    return p;
}

static void c_free(void *opaque, void *p)
{
    Counter *c = opaque;
    c->frees++;
    free(p);
}

static int fails;

static void settings(SpeedqaSettings *s, Counter *cnt, LogCapture *log, int w, int h,
                     SpeedqaPixelFormat fmt, int bpc, const char **feats)
{
    speedqa_default_settings(s);
    s->format = (SpeedqaFormat){ w, h, fmt, bpc };
    s->features = feats;
    s->logger = log_capture;
    s->log_cookie = log;
    s->alloc = c_alloc;
    s->free = c_free;
    s->alloc_opaque = cnt;
}

static void expect_open_error(const char *what, SpeedqaSettings *s, Counter *cnt, LogCapture *log,
                              int want, const char *substr)
{
    SpeedqaContext *ctx = (SpeedqaContext *)1;
    int ret = speedqa_open(&ctx, s);
    int ok = ret == want && ctx == NULL && strstr(log->last, substr) && cnt->allocs == cnt->frees;
    printf("%s %-44s -> %d \"%s\"\n", ok ? "ok  " : "FAIL", what, ret, log->last);
    if (!ok) {
        printf("     want %d with \"%s\"; allocs %ld frees %ld\n", want, substr, cnt->allocs, cnt->frees);
        fails++;
    }
    if (ret == 0)
        speedqa_close(&ctx);
}

#define OPEN_ERR(what, w, h, fmt, bpc, feat, want, substr)                        \
    do {                                                                         \
        Counter cnt = { 0 };                                                     \
        LogCapture log = { .quiet = 1 };                                         \
        SpeedqaSettings s;                                                       \
        const char *feats[] = { feat, NULL };                                    \
        settings(&s, &cnt, &log, w, h, fmt, bpc, feat ? feats : NULL);           \
        expect_open_error(what, &s, &cnt, &log, want, substr);                   \
    } while (0)

/* Textured frame pair of the given geometry (8- or 16-bit containers). */
typedef struct Frame {
    unsigned char *buf;
    SpeedqaPicture pic;
} Frame;

static int make_frame(Frame *f, int w, int h, SpeedqaPixelFormat fmt, int bpc, unsigned seed)
{
    const int bps = bpc > 8 ? 2 : 1, cw = fmt == SPEEDQA_PIX_444 ? w : w >> 1,
              ch = fmt == SPEEDQA_PIX_420 ? h >> 1 : h;
    size_t sizes[3] = { (size_t)w * h, (size_t)cw * ch, (size_t)cw * ch };
    f->buf = malloc((sizes[0] + 2 * sizes[1]) * bps);
    if (!f->buf)
        return -1;
    memset(&f->pic, 0, sizeof(f->pic));
    f->pic.format = (SpeedqaFormat){ w, h, fmt, bpc };
    size_t off = 0;
    for (int p = 0; p < 3; p++) {
        int pw = p ? cw : w;
        f->pic.data[p] = f->buf + off;
        f->pic.stride[p] = (ptrdiff_t)pw * bps;
        for (size_t i = 0; i < sizes[p]; i++) {
            seed = seed * 1664525u + 1013904223u;
            unsigned x = (unsigned)(i % pw), y = (unsigned)(i / pw);
            unsigned v = ((x * x + 3 * y * y + x * y) >> 5) % 200 + (seed >> 28) + 20;
            v <<= bpc - 8;
            if (bps == 2)
                ((unsigned short *)(f->buf + off))[i] = (unsigned short)v;
            else
                f->buf[off + i] = (unsigned char)v;
        }
        off += sizes[p] * bps;
    }
    return 0;
}

/* Sweep allocation failures over open and the first frames of a config. */
static void alloc_sweep(const char *what, int w, int h, SpeedqaPixelFormat fmt, int bpc,
                        const char *feat, int threads)
{
    Frame a[3], b[3];
    for (int i = 0; i < 3; i++)
        if (make_frame(&a[i], w, h, fmt, bpc, 11u + i) || make_frame(&b[i], w, h, fmt, bpc, 77u + i)) {
            printf("FAIL %s: test frames\n", what);
            fails++;
            return;
        }
    long total = 0, bad = 0, n;
    for (n = 1;; n++) {
        Counter cnt = { .fail_at = n };
        LogCapture log = { .quiet = 1 };
        SpeedqaSettings s;
        const char *feats[] = { feat, NULL };
        settings(&s, &cnt, &log, w, h, fmt, bpc, feats);
        s.n_threads = threads;
        SpeedqaContext *ctx = NULL;
        int ret = speedqa_open(&ctx, &s);
        if (ret == 0) {
            for (int i = 0; i < 3 && ret == 0; i++) {
                TestScores sc;
                ret = speedqa_send(ctx, &a[i].pic, &b[i].pic);
                while (ret == 0 && test_receive(ctx, &sc, 1, 0) == 0)
                    ;
            }
            speedqa_flush(ctx);
            speedqa_close(&ctx);
        }
        if ((ret != 0 && ret != SPEEDQA_ERR(ENOMEM)) || cnt.allocs != cnt.frees || ctx) {
            printf("     fail at allocation %ld: ret %d, allocs %ld frees %ld\n", n, ret, cnt.allocs, cnt.frees);
            bad++;
        }
        if (cnt.fail_at != -1) { /* the injected failure was never reached: all covered */
            total = cnt.allocs;
            break;
        }
    }
    printf("%s alloc sweep %-32s %ld allocations, each failing once\n", bad ? "FAIL" : "ok  ", what, total);
    fails += bad != 0;
    for (int i = 0; i < 3; i++) {
        free(a[i].buf);
        free(b[i].buf);
    }
}

static void temporal_upscale_works(void)
{
    Frame a[2], b[2];
    for (int i = 0; i < 2; i++)
        if (make_frame(&a[i], 320, 180, SPEEDQA_PIX_420, 8, 5u + i) ||
            make_frame(&b[i], 320, 180, SPEEDQA_PIX_420, 8, 9u + i))
            return;
    int ok = 1;
    for (int m = 0; m < 4; m++) {
        static const char *const meth[] = { "nearest", "bilinear", "bicubic", "lanczos4" };
        char feat[128];
        snprintf(feat, sizeof(feat), "speed_temporal=speed_prescale=2:speed_prescale_method=%s", meth[m]);
        Counter cnt = { 0 };
        LogCapture log = { .quiet = 1 };
        SpeedqaSettings s;
        const char *feats[] = { feat, NULL };
        settings(&s, &cnt, &log, 320, 180, SPEEDQA_PIX_420, 8, feats);
        SpeedqaContext *ctx = NULL;
        TestScores sc[2];
        if (speedqa_open(&ctx, &s) || speedqa_send(ctx, &a[0].pic, &b[0].pic) ||
            test_receive(ctx, &sc[0], 1, 0) || speedqa_send(ctx, &a[1].pic, &b[1].pic) ||
            test_receive(ctx, &sc[1], 1, 0) || sc[0].values[0] != 0.0 || !(sc[1].values[0] > 0.0) ||
            !isfinite(sc[1].values[0]))
            ok = 0;
        speedqa_close(&ctx);
        ok &= cnt.allocs == cnt.frees;
        printf("     %s: frame 1 = %.6f\n", feat, sc[1].values[0]);
    }
    printf("%s speed_temporal with prescale 2 (Netflix corrupts its heap here)\n", ok ? "ok  " : "FAIL");
    fails += !ok;
    for (int i = 0; i < 2; i++) {
        free(a[i].buf);
        free(b[i].buf);
    }
}

static void picture_mismatch(void)
{
    Counter cnt = { 0 };
    LogCapture log = { .quiet = 1 };
    SpeedqaSettings s;
    settings(&s, &cnt, &log, 320, 180, SPEEDQA_PIX_420, 8, NULL);
    SpeedqaContext *ctx = NULL;
    Frame a, b;
    if (make_frame(&a, 320, 180, SPEEDQA_PIX_420, 8, 1) || make_frame(&b, 322, 180, SPEEDQA_PIX_420, 8, 2) ||
        speedqa_open(&ctx, &s)) {
        printf("FAIL picture mismatch setup\n");
        fails++;
        return;
    }
    int ret = speedqa_send(ctx, &a.pic, &b.pic);
    int ok = ret == SPEEDQA_ERR(EINVAL) && strstr(log.last, "does not match");
    char msg[512];
    snprintf(msg, sizeof(msg), "%s", log.last);
    TestScores sc;
    ok &= test_receive(ctx, &sc, 1, 0) == SPEEDQA_ERR(EAGAIN);
    ok &= speedqa_send(ctx, NULL, &a.pic) == SPEEDQA_ERR(EINVAL);
    speedqa_close(&ctx);
    speedqa_close(&ctx); /* second close is a no-op */
    speedqa_close(NULL);
    ok &= cnt.allocs == cnt.frees;
    printf("%s send with a mismatched picture -> %d \"%s\"\n", ok ? "ok  " : "FAIL", ret, msg);
    fails += !ok;
    free(a.buf);
    free(b.buf);
}

int main(void)
{
    /* spec 7.1: plane too small (Netflix: unsigned underflow, SIGSEGV) */
    OPEN_ERR("64x64 chroma", 64, 64, SPEEDQA_PIX_420, 8, "speed_chroma", -EINVAL, "too small");
    OPEN_ERR("64x64 temporal", 64, 64, SPEEDQA_PIX_420, 8, "speed_temporal", -EINVAL, "too small");
    OPEN_ERR("158x400 chroma 4:2:0 (chroma 79 wide)", 158, 400, SPEEDQA_PIX_420, 8, "speed_chroma", -EINVAL, "too small");
    OPEN_ERR("prescale 0.5 makes 150x150 luma too small", 150, 150, SPEEDQA_PIX_420, 8,
             "speed_temporal=speed_prescale=0.5", -EINVAL, "too small");
    /* spec 7.2: kernelscale / prescale method (Netflix: logs, then SIGSEGV) */
    OPEN_ERR("kernelscale 0.9 not in the list", 576, 324, SPEEDQA_PIX_420, 8,
             "speed_chroma=speed_kernelscale=0.9", -EINVAL, "invalid speed_kernelscale");
    OPEN_ERR("prescale method foo", 576, 324, SPEEDQA_PIX_420, 8,
             "speed_chroma=speed_prescale=0.5:speed_prescale_method=foo", -EINVAL, "unknown speed_prescale_method");
    OPEN_ERR("prescale method case-sensitive", 576, 324, SPEEDQA_PIX_420, 8,
             "speed_temporal=speed_prescale_method=Bicubic", -EINVAL, "unknown speed_prescale_method");
    /* spec 7.5: bit depths outside 8..16 */
    OPEN_ERR("bit depth 7", 576, 324, SPEEDQA_PIX_420, 7, NULL, -EINVAL, "bit depth 7");
    OPEN_ERR("bit depth 17", 576, 324, SPEEDQA_PIX_420, 17, NULL, -EINVAL, "bit depth 17");
    /* 4:0:0 has no chroma */
    OPEN_ERR("4:0:0 with speed_chroma", 576, 324, SPEEDQA_PIX_400, 8, "speed_chroma", -EINVAL, "4:0:0");
    /* option parser (libvmaf opt.c rules) */
    OPEN_ERR("kernelscale out of range", 576, 324, SPEEDQA_PIX_420, 8, "speed_chroma=speed_kernelscale=5", -EINVAL, "outside");
    OPEN_ERR("kernelscale not a number", 576, 324, SPEEDQA_PIX_420, 8, "speed_chroma=speed_kernelscale=abc", -EINVAL, "not a number");
    OPEN_ERR("weight_var_mode 7", 576, 324, SPEEDQA_PIX_420, 8, "speed_chroma=speed_weight_var_mode=7", -EINVAL, "outside");
    OPEN_ERR("use_ref_diff yes", 576, 324, SPEEDQA_PIX_420, 8, "speed_temporal=speed_use_ref_diff=yes", -EINVAL, "true or false");
    OPEN_ERR("unknown option", 576, 324, SPEEDQA_PIX_420, 8, "speed_chroma=speed_foo=1", -ENOTSUP, "unknown option 'speed_foo'");
    OPEN_ERR("option of the other feature", 576, 324, SPEEDQA_PIX_420, 8, "speed_chroma=speed_use_ref_diff=true", -ENOTSUP, "unknown option");
    OPEN_ERR("unknown feature", 576, 324, SPEEDQA_PIX_420, 8, "speed_luma", -ENOTSUP, "unknown feature");
    /* motion: libvmaf's option ranges */
    OPEN_ERR("motion_max_val above 10000", 576, 324, SPEEDQA_PIX_420, 8, "motion=motion_max_val=10001", -EINVAL, "outside");
    OPEN_ERR("motion option of speed_temporal", 576, 324, SPEEDQA_PIX_420, 8, "speed_temporal=motion_max_val=18", -ENOTSUP, "unknown option");
    OPEN_ERR("speed option of motion", 576, 324, SPEEDQA_PIX_420, 8, "motion=speed_max_val=18", -ENOTSUP, "unknown option");
    OPEN_ERR("motion_five_frame_window yes", 576, 324, SPEEDQA_PIX_420, 8, "motion=motion_five_frame_window=yes", -EINVAL, "true or false");
    /* adm: libvmaf's option ranges; the sets it cannot score (or scores differently per build) */
    OPEN_ERR("adm_enhn_gain_limit below 1", 576, 324, SPEEDQA_PIX_420, 8, "adm=adm_enhn_gain_limit=0.5", -EINVAL, "outside");
    OPEN_ERR("adm_csf_mode 4", 576, 324, SPEEDQA_PIX_420, 8, "adm=adm_csf_mode=4", -EINVAL, "outside");
    OPEN_ERR("adm Barten", 576, 324, SPEEDQA_PIX_420, 8, "adm=adm_csf_mode=1", -EINVAL, "Barten");
    OPEN_ERR("adm below 3H at 1080", 576, 324, SPEEDQA_PIX_420, 8, "adm=adm_norm_view_dist=2", -EINVAL, "3 * 1080");
    OPEN_ERR("adm blend without a table", 576, 324, SPEEDQA_PIX_420, 8, "adm=adm_csf_mode=2:adm_ref_display_height=1440", -EINVAL, "no table");
    OPEN_ERR("adm debug", 576, 324, SPEEDQA_PIX_420, 8, "adm=debug=true", -ENOTSUP, "unknown option");
    OPEN_ERR("adm too small", 31, 324, SPEEDQA_PIX_400, 8, "adm", -EINVAL, "too small");
    /* 32: scale 3 has two index positions, outside the spec's domain (libvmaf gives other numbers) */
    OPEN_ERR("adm 32 wide", 32, 324, SPEEDQA_PIX_400, 8, "adm", -EINVAL, "at least 33x33");
    OPEN_ERR("adm 32 high", 324, 32, SPEEDQA_PIX_420, 8, "adm", -EINVAL, "at least 33x33");
    OPEN_ERR("motion 2 wide", 2, 64, SPEEDQA_PIX_400, 8, "motion", -EINVAL, "too small");
    OPEN_ERR("motion 1 high", 64, 1, SPEEDQA_PIX_444, 8, "motion", -EINVAL, "too small");
    {
        Counter cnt = { 0 };
        LogCapture log = { .quiet = 1 };
        SpeedqaSettings s;
        const char *three[] = { "adm", "adm=adm_norm_view_dist=5", "adm=adm_skip_scale0=true", NULL };
        settings(&s, &cnt, &log, 576, 324, SPEEDQA_PIX_420, 8, three);
        expect_open_error("three adm features", &s, &cnt, &log, -EINVAL, "at most 2 adm");
    }
    OPEN_ERR("speed option of adm", 576, 324, SPEEDQA_PIX_420, 8, "adm=speed_max_val=18", -ENOTSUP, "unknown option");
    /* cambi: libvmaf's ranges; the options the math does not cover; the sizes libvmaf refuses */
    OPEN_ERR("cambi window_size below 15", 576, 324, SPEEDQA_PIX_420, 8, "cambi=window_size=13", -EINVAL, "outside");
    OPEN_ERR("cambi max_log_contrast 6", 576, 324, SPEEDQA_PIX_420, 8, "cambi=max_log_contrast=6", -EINVAL, "outside");
    OPEN_ERR("cambi topk 0", 576, 324, SPEEDQA_PIX_420, 8, "cambi=topk=0", -EINVAL, "outside");
    OPEN_ERR("cambi eotf", 576, 324, SPEEDQA_PIX_420, 8, "cambi=eotf=hlg", -EINVAL, "not bt1886 or pq");
    OPEN_ERR("cambi cambi_eotf", 576, 324, SPEEDQA_PIX_420, 8, "cambi=cambi_eotf=srgb", -EINVAL, "not bt1886 or pq");
    OPEN_ERR("cambi enc_width", 576, 324, SPEEDQA_PIX_420, 8, "cambi=enc_width=320", -ENOTSUP, "not supported");
    OPEN_ERR("cambi enc_height", 576, 324, SPEEDQA_PIX_420, 8, "cambi=enc_height=200", -ENOTSUP, "not supported");
    OPEN_ERR("cambi enc_bitdepth", 576, 324, SPEEDQA_PIX_420, 8, "cambi=enc_bitdepth=8", -ENOTSUP, "not supported");
    OPEN_ERR("cambi full_ref", 576, 324, SPEEDQA_PIX_420, 8, "cambi=full_ref=true", -ENOTSUP, "full-reference");
    /* the band of values a c-value reads empty: libvmaf reads outside its histograms (a crash) */
    OPEN_ERR("cambi vlt above the thresholds", 576, 324, SPEEDQA_PIX_420, 8,
             "cambi=cambi_vis_lum_threshold=85", -EINVAL, "leaves no value");
    OPEN_ERR("cambi vlt above mlc 1's thresholds", 576, 324, SPEEDQA_PIX_420, 8,
             "cambi=max_log_contrast=1:cambi_vis_lum_threshold=20", -EINVAL, "leaves no value");
    OPEN_ERR("cambi src_width", 576, 324, SPEEDQA_PIX_420, 8, "cambi=src_width=576", -ENOTSUP, "full-reference");
    OPEN_ERR("cambi heatmaps", 576, 324, SPEEDQA_PIX_420, 8, "cambi=heatmaps_path=/tmp", -ENOTSUP, "heatmaps");
    OPEN_ERR("cambi too small", 215, 200, SPEEDQA_PIX_420, 8, "cambi", -EINVAL, "below 216");
    OPEN_ERR("cambi window too large at 4K", 3840, 2160, SPEEDQA_PIX_420, 8, "cambi=window_size=127", -EINVAL, "too large");
    OPEN_ERR("cambi scale below the window", 1200, 216, SPEEDQA_PIX_400, 8, "cambi=window_size=127", -EINVAL, "unspecified");
    OPEN_ERR("speed option of cambi", 576, 324, SPEEDQA_PIX_420, 8, "cambi=speed_max_val=18", -ENOTSUP, "unknown option");
    /* cambi runs on the GPU backends too (gpu/kernels_cambi.h): no built backend refuses a
     * job kind any more (lib.c's refusal is left for a backend without one) */
    /* vif: libvmaf's ranges; the sizes where a scale is not above its filter's half-width */
    OPEN_ERR("vif egl below 1", 576, 324, SPEEDQA_PIX_420, 8, "vif=vif_enhn_gain_limit=0.5", -EINVAL, "outside");
    OPEN_ERR("vif 15 wide", 15, 324, SPEEDQA_PIX_400, 8, "vif", -EINVAL, "too small");
    OPEN_ERR("vif 15 high", 64, 15, SPEEDQA_PIX_444, 10, "vif", -EINVAL, "too small");
    OPEN_ERR("speed option of vif", 576, 324, SPEEDQA_PIX_420, 8, "vif=speed_max_val=18", -ENOTSUP, "unknown option");
    {
        Counter cnt = { 0 };
        LogCapture log = { .quiet = 1 };
        SpeedqaSettings s;
        const char *three[] = { "vif", "vif=vif_enhn_gain_limit=1", "vif=vif_skip_scale0=true", NULL };
        settings(&s, &cnt, &log, 576, 324, SPEEDQA_PIX_420, 8, three);
        expect_open_error("three vif features", &s, &cnt, &log, -EINVAL, "at most 2 vif");
    }
    /* vif runs on the GPU backends too (gpu/kernels_vif.h) */
    OPEN_ERR("missing value", 576, 324, SPEEDQA_PIX_420, 8, "speed_chroma=speed_sigma_nn=", -EINVAL, "missing value");
    OPEN_ERR("zero size", 0, 324, SPEEDQA_PIX_420, 8, NULL, -EINVAL, "outside 1..65536");
    {
        /* spec 7's mismatched ref/dis geometry is one format now: a
         * picture that differs from it is picture_mismatch's case */
        Counter cnt = { 0 };
        LogCapture log = { .quiet = 1 };
        SpeedqaSettings s;
        const char *twice[] = { "speed_chroma", "speed_chroma", NULL };
        settings(&s, &cnt, &log, 576, 324, SPEEDQA_PIX_420, 8, twice);
        expect_open_error("same feature twice", &s, &cnt, &log, -EEXIST, "twice");
        settings(&s, &cnt, &log, 576, 324, SPEEDQA_PIX_420, 8, NULL);
        s.backend = (SpeedqaBackend)99;
        expect_open_error("unknown backend", &s, &cnt, &log, -EINVAL, "unknown");
        /* each thread's scratch is committed at open: a huge count is refused, not an OOM kill */
        settings(&s, &cnt, &log, 576, 324, SPEEDQA_PIX_420, 8, NULL);
        s.n_threads = SPEEDQA_MAX_THREADS + 1;
        expect_open_error("too many threads", &s, &cnt, &log, -EINVAL, "outside 0..256");
        settings(&s, &cnt, &log, 576, 324, SPEEDQA_PIX_420, 8, NULL);
        s.n_threads = -1;
        expect_open_error("negative threads", &s, &cnt, &log, -EINVAL, "outside 0..256");
    }
    if (speedqa_open(NULL, NULL) != SPEEDQA_ERR(EINVAL)) {
        printf("FAIL open(NULL, NULL)\n");
        fails++;
    }
    picture_mismatch();
    temporal_upscale_works();
    alloc_sweep("chroma+temporal 4:2:0 8-bit", 320, 180, SPEEDQA_PIX_420, 8, "speed_chroma", 1);
    alloc_sweep("temporal prescale bicubic 10-bit", 320, 180, SPEEDQA_PIX_422, 10,
                "speed_temporal=speed_prescale=0.75:speed_prescale_method=bicubic", 1);
    alloc_sweep("chroma, 3 threads", 320, 180, SPEEDQA_PIX_444, 8, "speed_chroma", 3);
    printf("%d failed\n", fails);
    return fails ? 1 : 0;
}
