/*
 * The library's "motion" feature (feature/motion.c through the CPU backend)
 * against libvmaf's "motion" extractor: every published per-frame score of
 * every option set of vi_motion_uses, bit for bit, on one thread (pictures
 * copied), three (lent) and two (copied, as a ladder of two identical
 * streams, which must carry the same scores), so both CPU modes are proven.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "speedqa/speedqa.h"
#include "vmafint.h"

/* libvmaf keeps a default-option output under its provided name (spec 5). */
static void vmaf_name(const char *ours, char *out, size_t len)
{
    static const char *const alias[][2] = {
        { "integer_motion2", "VMAF_integer_feature_motion2_score" },
        { "integer_motion3", "VMAF_integer_feature_motion3_score" },
        { "integer_motion", "VMAF_integer_feature_motion_score" },
    };
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (!strcmp(ours, alias[i][0])) {
            snprintf(out, len, "%s", alias[i][1]);
            return;
        }
    snprintf(out, len, "%s", ours);
}

static void feature_string(const ViUse *u, char *out, size_t len)
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

static void picture(const ViSeq *s, const uint8_t *plane, int lent, SpeedqaPicture *p)
{
    memset(p, 0, sizeof *p);
    p->data[0] = plane;
    p->stride[0] = s->stride;
    p->format = (SpeedqaFormat){ s->w, s->h, SPEEDQA_PIX_400, s->bpc };
    p->release = lent ? no_release : NULL;
}

/* Stores a received frame's scores (sequence r's at vals + r * nsc * n); -1 on a frame
 * out of place. */
static int take(const SpeedqaScores *sc, int nsc, int n, double *vals)
{
    if ((int)sc->sequence > 1 || (int)sc->sequence_frame >= n || sc->count != nsc ||
        sc->frame != sc->sequence * (unsigned)n + sc->sequence_frame)
        return -1;
    for (int k = 0; k < nsc; k++)
        vals[((size_t)sc->sequence * nsc + k) * n + sc->sequence_frame] = sc->values[k];
    return 0;
}

/*
 * Runs the sequence through a context twice, a flush after each; vals[(r * nsc + k) * n +
 * i]: score k of frame i in run r. The second run's frames are sent before the first
 * run's last ones are received where the queue lets them (receiving only on -EAGAIN),
 * so the frame held back for motion2 meets the next sequence's frames. Negative on failure.
 */
/* A ladder of two identical distorted streams: -1 unless both carry the same scores. */
static int take2(const SpeedqaScores *sc, int nsc, int n, double *vals)
{
    if (sc[1].count != sc[0].count || sc[1].frame != sc[0].frame)
        return -1;
    for (int k = 0; k < sc[0].count; k++)
        if (memcmp(&sc[0].values[k], &sc[1].values[k], sizeof(double)))
            return -1;
    return take(sc, nsc, n, vals);
}

static int recv(SpeedqaContext *c, int ladder, unsigned flags, int nsc, int n, double *vals)
{
    SpeedqaScores sc[2];
    int ret = speedqa_receive(c, sc, ladder ? 2 : 1, flags);
    if (ret == 0)
        ret = ladder ? take2(sc, nsc, n, vals) : take(sc, nsc, n, vals);
    return ret;
}

static int run_lib(const ViSeq *s, const char *feat, int threads, int lent, double **vals,
                   SpeedqaContext **out)
{
    const int ladder = threads == 2; /* the copied threaded mode runs as a ladder */
    SpeedqaSettings st;
    speedqa_default_settings(&st);
    const char *feats[] = { feat, NULL };
    st.features = feats;
    st.format = (SpeedqaFormat){ s->w, s->h, SPEEDQA_PIX_400, s->bpc };
    st.n_threads = threads;
    st.n_distorted = ladder ? 2 : 1;
    SpeedqaContext *c;
    int ret = speedqa_open(&c, &st);
    *out = NULL;
    if (ret < 0)
        return ret;
    const int nsc = speedqa_score_count(c);
    *vals = calloc(2 * (size_t)nsc * (size_t)s->n, sizeof **vals);
    for (int i = 0; i < 2 * s->n && ret >= 0; i++) {
        if (i == s->n && (ret = speedqa_flush(c)) < 0)
            break;
        const int f = i % s->n;
        SpeedqaPicture r, d;
        picture(s, s->ref[f], lent, &r);
        picture(s, s->dis[f], lent, &d);
        const SpeedqaPicture *dd[2] = { &d, &d };
        while ((ret = ladder ? speedqa_send_ladder(c, &r, dd, 2) : speedqa_send(c, &r, &d)) ==
               -EAGAIN)
            if ((ret = recv(c, ladder, SPEEDQA_RECEIVE_WAIT, nsc, s->n, *vals)) < 0)
                break;
        while (!lent && ret >= 0 && (ret = recv(c, ladder, 0, nsc, s->n, *vals)) == 0)
            ;
        if (ret == -EAGAIN)
            ret = 0;
    }
    if (ret >= 0)
        ret = speedqa_flush(c);
    while (ret >= 0 && (ret = recv(c, ladder, 0, nsc, s->n, *vals)) == 0)
        ;
    *out = c;
    return ret == SPEEDQA_EOF ? 0 : ret < 0 ? ret : 0;
}

int vi_lib_check(VmafContext *ctx, const ViSeq *s)
{
    int bad = 0;
    for (int k = 0; k < vi_motion_n_uses; k++) {
        const ViUse *u = &vi_motion_uses[k];
        char feat[512];
        feature_string(u, feat, sizeof feat);
        /* 1 thread, pictures copied; 3 threads, lent; 2 threads, copied, a ladder */
        for (int mode = 0; mode < 3; mode++) {
            double *vals = NULL;
            SpeedqaContext *c;
            const int threads = mode == 0 ? 1 : mode == 1 ? 3 : 2;
            const int ret = run_lib(s, feat, threads, mode == 1, &vals, &c);
            /* stage one refuses the five-frame window (frames.c holds one frame back) */
            if (ret == -EINVAL && strstr(feat, "motion_five_frame_window=true")) {
                speedqa_close(&c);
                break;
            }
            if (ret < 0) {
                printf("FAIL %s [lib %s] %d threads: %s\n", s->name, feat, threads,
                       speedqa_strerror(ret));
                bad++;
            }
            const int nsc = ret >= 0 ? speedqa_score_count(c) : 0;
            for (int i = 0; i < 2 * nsc; i++) {
                char name[400], tag[600];
                vmaf_name(speedqa_score_name(c, i % nsc), name, sizeof name);
                snprintf(tag, sizeof tag, "lib %s, %d threads, run %d", feat, threads,
                         i / nsc + 1);
                bad += vi_check(ctx, s, tag, name, vals + (size_t)i * s->n);
            }
            free(vals);
            speedqa_close(&c);
        }
    }
    return bad;
}
