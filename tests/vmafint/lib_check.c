/*
 * The library's integer features ("motion", feature/motion.c; "adm",
 * feature/adm.c; "cambi", feature/cambi.c; "vif", feature/vif.c; through the
 * CPU backend, and the first gpu_sets option sets also through each GPU
 * backend with a device, copied then lent) against libvmaf's extractors, with
 * the sequence's own layout (4:2:0, 4:2:2, 4:4:4; flat chroma, as libvmaf's):
 * every published per-frame score of every option set given, bit for bit,
 * on one thread (pictures copied), three (lent) and two (copied, as a
 * ladder of two streams: the distorted one, and the reference scored
 * against itself, which must carry the scores of a run of its own), so
 * both CPU modes and a ladder's streams are proven.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "speedqa/speedqa.h"
#include "common/util.h"
#include "vmafint.h"

/* libvmaf keeps a default-option output under its provided name (spec 5). */
static void vmaf_name(const char *ours, char *out, size_t len)
{
    static const char *const alias[][2] = {
        { "integer_motion2", "VMAF_integer_feature_motion2_score" },
        { "integer_motion3", "VMAF_integer_feature_motion3_score" },
        { "integer_motion", "VMAF_integer_feature_motion_score" },
        { "integer_adm2", "VMAF_integer_feature_adm2_score" },
        { "integer_aim", "VMAF_integer_feature_aim_score" },
        { "integer_adm3", "VMAF_integer_feature_adm3_score" },
        { "cambi", "Cambi_feature_cambi_score" },
        { "integer_vif_scale0", "VMAF_integer_feature_vif_scale0_score" },
        { "integer_vif_scale1", "VMAF_integer_feature_vif_scale1_score" },
        { "integer_vif_scale2", "VMAF_integer_feature_vif_scale2_score" },
        { "integer_vif_scale3", "VMAF_integer_feature_vif_scale3_score" },
    };
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (!strcmp(ours, alias[i][0])) {
            snprintf(out, len, "%s", alias[i][1]);
            return;
        }
    snprintf(out, len, "%s", ours);
}

static void use_string(const ViUse *u, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "%s", u->extractor);
    for (int k = 0; k < 8 && u->opt[k][0] && n < len; k++)
        n += (size_t)snprintf(out + n, len - n, "%c%s=%s", k ? ':' : '=', u->opt[k][0],
                              u->opt[k][1]);
}

static void no_release(void *opaque, const void *data0)
{
    (void)opaque;
    (void)data0;
}

/* The sequence's layout as libvmaf got it (its chroma is flat there, and read by neither). */
static SpeedqaFormat seq_format(const ViSeq *s)
{
    const SpeedqaPixelFormat f = s->fmt == VMAF_PIX_FMT_YUV420P   ? SPEEDQA_PIX_420
                                 : s->fmt == VMAF_PIX_FMT_YUV422P ? SPEEDQA_PIX_422
                                 : s->fmt == VMAF_PIX_FMT_YUV444P ? SPEEDQA_PIX_444
                                                                  : SPEEDQA_PIX_400;
    return (SpeedqaFormat){ s->w, s->h, f, s->bpc };
}

/* flat: a zeroed buffer of (w + 1) * (h + 1) samples, both chroma planes of every picture */
static void picture(const ViSeq *s, const uint8_t *plane, const uint8_t *flat, int lent,
                    SpeedqaPicture *p)
{
    memset(p, 0, sizeof *p);
    p->format = seq_format(s);
    p->data[0] = plane;
    p->stride[0] = s->stride;
    if (p->format.fmt != SPEEDQA_PIX_400) {
        const int cw = p->format.fmt == SPEEDQA_PIX_444 ? s->w : (s->w + 1) / 2;
        p->data[1] = p->data[2] = flat;
        p->stride[1] = p->stride[2] = (ptrdiff_t)cw * (s->bpc > 8 ? 2 : 1);
    }
    p->release = lent ? no_release : NULL;
}

/* What one run gathers: vals[(r * nsc + k) * n + i], score k of frame i in run r of
 * stream 0; vals1 the same of a ladder's stream 1; und[k]: score k was undefined on
 * some frame (ADM's aim and adm3 where libvmaf leaves them uninitialised). */
typedef struct LibRun {
    int nsc, n, ladder;
    double *vals, *vals1;
    uint8_t und[64];
} LibRun;

/* Stores a received stream's scores (sequence r's); -1 on a frame out of place. */
static int take(const SpeedqaScores *sc, LibRun *lr, double *vals)
{
    const int n = lr->n, nsc = lr->nsc;
    if ((int)sc->sequence > 1 || (int)sc->sequence_frame >= n || sc->count != nsc ||
        sc->frame != sc->sequence * (unsigned)n + sc->sequence_frame)
        return -1;
    for (int k = 0; k < nsc; k++) {
        vals[((size_t)sc->sequence * nsc + k) * n + sc->sequence_frame] = sc->values[k];
        lr->und[k] |= sc->undefined[k];
    }
    return 0;
}

static int recv(SpeedqaContext *c, LibRun *lr, unsigned flags)
{
    SpeedqaScores sc[2];
    int ret = speedqa_receive(c, sc, lr->ladder ? 2 : 1, flags);
    if (ret == 0 && lr->ladder && sc[1].frame != sc[0].frame)
        ret = -1;
    if (ret == 0)
        ret = take(&sc[0], lr, lr->vals);
    if (ret == 0 && lr->ladder)
        ret = take(&sc[1], lr, lr->vals1);
    return ret;
}

/*
 * Runs the sequence through a context `runs` times (1 or 2), a flush after each. The
 * second run's frames are sent before the first run's last ones are received where the
 * queue lets them (receiving only on -EAGAIN), so the frame held back for motion2 meets
 * the next sequence's frames. self: the distorted stream is the reference itself. A
 * ladder (2 threads) sends the distorted pictures as stream 0 and the reference as
 * stream 1. Negative on failure.
 */
static int run_lib(const ViSeq *s, const char *const *feats, int threads, int lent, int runs,
                   int self, LibRun *lr, SpeedqaContext **out)
{
    /* the copied threaded mode runs as a ladder; threads < 0: GPU backend -threads */
    lr->ladder = threads == 2;
    SpeedqaSettings st;
    speedqa_default_settings(&st);
    test_env_settings(&st); /* SPEEDQA_CPU_MASK: the library's checks at each CPU level */
    if (threads < 0) {
        st.backend = (SpeedqaBackend)-threads;
        threads = 1;
    }
    st.features = feats;
    st.format = seq_format(s);
    st.n_threads = threads;
    st.n_distorted = lr->ladder ? 2 : 1;
    SpeedqaContext *c;
    int ret = speedqa_open(&c, &st);
    *out = NULL;
    if (ret < 0)
        return ret;
    lr->nsc = speedqa_score_count(c);
    lr->n = s->n;
    memset(lr->und, 0, sizeof lr->und);
    if (lr->nsc > (int)sizeof lr->und) {
        speedqa_close(&c);
        return -1;
    }
    lr->vals = calloc(2 * (size_t)lr->nsc * (size_t)s->n, sizeof *lr->vals);
    lr->vals1 = calloc(2 * (size_t)lr->nsc * (size_t)s->n, sizeof *lr->vals1);
    uint8_t *flat = calloc((size_t)(s->w + 1) * (size_t)(s->h + 1), 2);
    for (int i = 0; i < runs * s->n && ret >= 0; i++) {
        if (i == s->n && (ret = speedqa_flush(c)) < 0)
            break;
        const int f = i % s->n;
        SpeedqaPicture r, d;
        picture(s, s->ref[f], flat, lent, &r);
        picture(s, self ? s->ref[f] : s->dis[f], flat, lent, &d);
        const SpeedqaPicture *dd[2] = { &d, &r };
        while ((ret = lr->ladder ? speedqa_send_ladder(c, &r, dd, 2) : speedqa_send(c, &r, &d)) ==
               -EAGAIN)
            if ((ret = recv(c, lr, SPEEDQA_RECEIVE_WAIT)) < 0)
                break;
        while (!lent && ret >= 0 && (ret = recv(c, lr, 0)) == 0)
            ;
        if (ret == -EAGAIN)
            ret = 0;
    }
    if (ret >= 0)
        ret = speedqa_flush(c);
    while (ret >= 0 && (ret = recv(c, lr, 0)) == 0)
        ;
    free(flat);
    *out = c;
    return ret == SPEEDQA_EOF ? 0 : ret < 0 ? ret : 0;
}

/* A ladder's stream 1 (the reference against itself) against a one-stream run of it. */
static int check_self(const ViSeq *s, const char *const *feats, int runs, const LibRun *lad)
{
    LibRun one;
    SpeedqaContext *c;
    const char *feat = feats[0];
    int ret = run_lib(s, feats, 1, 0, runs, 1, &one, &c);
    int bad = ret < 0 || one.nsc != lad->nsc;
    for (size_t i = 0; !bad && i < (size_t)runs * lad->nsc * s->n; i++)
        if (memcmp(&one.vals[i], &lad->vals1[i], sizeof(double)) &&
            !lad->und[(i / s->n) % lad->nsc]) {
            printf("FAIL %s [lib %s] ladder stream 2 (reference against itself), score %zu "
                   "frame %zu: %.17g, alone %.17g\n", s->name, feat, (i / s->n) % lad->nsc,
                   i % s->n, lad->vals1[i], one.vals[i]);
            bad = 1;
        }
    free(one.vals);
    free(one.vals1);
    speedqa_close(&c);
    return bad;
}

int vi_lib_check(VmafContext *ctx, const ViSeq *s, const ViUse *uses, int n_uses, int runs,
                 int gpu_sets)
{
    int bad = 0;
    /* each set alone, then (adm, runs 1) the first two sets in one context */
    const int pair = runs == 1 && n_uses >= 2;
    for (int k = 0; k < n_uses + pair; k++) {
        char feat[512], feat2[512] = "";
        use_string(&uses[k < n_uses ? k : 0], feat, sizeof feat);
        if (pair) /* uses[1] exists only then */
            use_string(&uses[1], feat2, sizeof feat2);
        const char *feats[] = { feat, k < n_uses ? NULL : feat2, NULL };
        /* 1 thread, pictures copied; 3 threads, lent; 2 threads, copied, a ladder;
         * the pair as a ladder, then on the GPUs (two jobs a frame) */
        const int gpus = (k < n_uses ? k < gpu_sets : gpu_sets >= 2) ? 6 : 0;
        for (int mode = k < n_uses ? 0 : 2; mode < 3 + gpus; mode++) {
            LibRun lr = { 0 };
            SpeedqaContext *c;
            static const SpeedqaBackend gpu[3] = { SPEEDQA_BACKEND_CUDA, SPEEDQA_BACKEND_HIP,
                                                   SPEEDQA_BACKEND_OPENCL };
            const SpeedqaBackend be = mode < 3 ? SPEEDQA_BACKEND_CPU : gpu[(mode - 3) / 2];
            char list[256];
            /* OpenCL (PoCL's CPU device in CI: its time here) takes each set
             * copied or lent by turns, the sequence's size choosing the first */
            if (be == SPEEDQA_BACKEND_OPENCL && (mode - 3) % 2 != ((k + s->w + s->h) & 1))
                continue;
            if (mode >= 3 && speedqa_list_devices(be, list, sizeof list) <= 0)
                continue;
            const int threads = mode >= 3 ? -(int)be : mode == 0 ? 1 : mode == 1 ? 3 : 2;
            const int lent = mode == 1 || (mode >= 3 && (mode - 3) % 2);
            const int ret = run_lib(s, feats, threads, lent, runs, 0, &lr, &c);
            if (ret < 0) {
                printf("FAIL %s [lib %s] mode %d: %s\n", s->name, feat, mode,
                       speedqa_strerror(ret));
                bad++;
            }
            const int nsc = ret >= 0 ? lr.nsc : 0;
            for (int i = 0; i < runs * nsc; i++) {
                char name[400], tag[600];
                if (lr.und[i % nsc])
                    continue; /* libvmaf's value is uninitialised memory */
                vmaf_name(speedqa_score_name(c, i % nsc), name, sizeof name);
                snprintf(tag, sizeof tag, "lib %s, %s, run %d", feat,
                         mode < 3 ? (threads == 1 ? "1 thread" : threads == 2 ? "2 threads"
                                                                           : "3 threads")
                                  : be == SPEEDQA_BACKEND_OPENCL ? (lent ? "opencl, lent" : "opencl")
                                  : lent ? "gpu, lent" : "gpu", i / nsc + 1);
                bad += vi_check(ctx, s, tag, name, lr.vals + (size_t)i * s->n);
            }
            if (ret >= 0 && lr.ladder)
                bad += check_self(s, feats, runs, &lr);
            free(lr.vals);
            free(lr.vals1);
            speedqa_close(&c);
        }
    }
    return bad;
}
