/*
 * CAMBI (math/vmaf_cambi*.h) against libvmaf's "cambi" extractor, per frame,
 * bit for bit, over option sets. Each set runs in a libvmaf context of its
 * own, so that its values cannot depend on the other instances (older
 * libvmaf kept cambi's contrast arrays in globals shared by every instance;
 * 3.2.0's CLI prints the same values with and without a second instance of
 * another max_log_contrast, so this is caution, not a known problem).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cambi_params.h"
#include "speedqa/speedqa.h"
#include "soft.h"
#include "vmafint.h"

typedef struct CambiSet {
    ViUse use;
    const char *name; /* libvmaf's feature name */
} CambiSet;

/* The option sets: defaults; v1.0.16's; then others libvmaf accepts. */
static const CambiSet sets[] = {
    { { "cambi", { { NULL, NULL } } }, "Cambi_feature_cambi_score" },
    { { "cambi", { { "cambi_high_res_speedup", "1080" }, { "cambi_vis_lum_threshold", "0.06" },
                   { "cambi_max_val", "17" } } },
      "cambi_hrs_1080_cmxv_17_vlt_0.06" },
    { { "cambi", { { "cambi_max_val", "2.5" }, { "window_size", "33" } } }, "cambi_cmxv_2.5_ws_33" },
    { { "cambi", { { "max_log_contrast", "3" }, { "tvi_threshold", "0.05" } } },
      "cambi_mlc_3_tvit_0.05" },
    { { "cambi", { { "eotf", "pq" }, { "cambi_vis_lum_threshold", "1" } } }, "cambi_vlt_1_eotf_pq" },
    { { "cambi", { { "topk", "0.3" }, { "window_size", "15" } } }, "cambi_topk_0.3_ws_15" },
    { { "cambi", { { "cambi_high_res_speedup", "1080" }, { "cambi_vis_lum_threshold", "0.5" },
                   { "max_log_contrast", "0" } } },
      "cambi_hrs_1080_vlt_0.5_mlc_0" },
    { { "cambi", { { "cambi_topk", "1" }, { "max_log_contrast", "5" }, { "window_size", "127" } } },
      "cambi_ctpk_1_mlc_5_ws_127" },
    { { "cambi", { { "cambi_high_res_speedup", "1440" }, { "cambi_max_val", "0.5" } } },
      "cambi_hrs_1440_cmxv_0.5" },
};
static const int n_sets = (int)(sizeof sets / sizeof sets[0]);
static uint64_t cpumasks0; /* the first cpumask: the library's check runs there */

/* The set's options as VcOpts (the names libvmaf parses, with atof / atoi). */
static VcOpts opts(const CambiSet *c)
{
    VcOpts o = vc_opts_default();
    for (int k = 0; k < 8 && c->use.opt[k][0]; k++) {
        const char *n = c->use.opt[k][0], *v = c->use.opt[k][1];
        if (!strcmp(n, "cambi_max_val"))
            o.max_val = atof(v);
        else if (!strcmp(n, "topk"))
            o.topk = atof(v);
        else if (!strcmp(n, "cambi_topk"))
            o.cambi_topk = atof(v);
        else if (!strcmp(n, "tvi_threshold"))
            o.tvi = atof(v);
        else if (!strcmp(n, "cambi_vis_lum_threshold"))
            o.vlt = atof(v);
        else if (!strcmp(n, "window_size"))
            o.window_size = atoi(v);
        else if (!strcmp(n, "max_log_contrast"))
            o.mlc = atoi(v);
        else if (!strcmp(n, "cambi_high_res_speedup"))
            o.hrs = atoi(v);
        else if (!strcmp(n, "eotf") || !strcmp(n, "cambi_eotf"))
            o.pq = !strcmp(v, "pq");
    }
    return o;
}

static uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    return u;
}

/*
 * The soft-double build of the frame score on the same scale scores, and of
 * both poolings (order-free and selection) on copies of the last scale's
 * c-values against the hardware build on other copies.
 */
static int soft_check(const SqVcParams *p, const SqVcBufs *bf, const double *score, double v)
{
    uint64_t sc[SQ_VC_SCALES];
    for (int s = 0; s < SQ_VC_SCALES; s++)
        sc[s] = bits(score[s]);
    int bad = soft_vc_score(sc, p->ws, bits(p->max_val)) != bits(v);
    int cw, ch;
    sq_vc_scale_dims(p, SQ_VC_SCALES - 1, &cw, &ch);
    const int n = cw * ch, k = sq_vc_scale_k(p, SQ_VC_SCALES - 1, n);
    float *a = malloc((size_t)n * 2 * sizeof *a);
    if (!a)
        return 1;
    for (int fast = 0; fast < 2; fast++) {
        memcpy(a, bf->c, (size_t)n * sizeof *a);
        memcpy(a + n, bf->c, (size_t)n * sizeof *a);
        const double hw = fast ? sq_vc_pool_fast(a, n, k, bf->cnt) : sq_vc_pool(a, n, k);
        bad += soft_vc_pool(a + n, n, k, fast ? bf->cnt : NULL) != bits(hw);
    }
    free(a);
    return bad;
}

/* The library refuses a set at a size the math does not score: 0, or 1 (printed). */
static int lib_refuses(const ViSeq *s, const CambiSet *c)
{
    char feat[512];
    size_t n = (size_t)snprintf(feat, sizeof feat, "cambi");
    for (int k = 0; k < 8 && c->use.opt[k][0]; k++)
        n += (size_t)snprintf(feat + n, sizeof feat - n, "%c%s=%s", k ? ':' : '=',
                              c->use.opt[k][0], c->use.opt[k][1]);
    const char *feats[] = { feat, NULL };
    SpeedqaSettings st;
    speedqa_default_settings(&st);
    st.features = feats;
    st.format = (SpeedqaFormat){ s->w, s->h, SPEEDQA_PIX_420, s->bpc };
    SpeedqaContext *ctx = NULL;
    const int ret = speedqa_open(&ctx, &st);
    speedqa_close(&ctx);
    if (ret == SPEEDQA_ERR(EINVAL))
        return 0;
    printf("FAIL %s [lib %s]: open gave %d, not EINVAL\n", s->name, feat, ret);
    return 1;
}

/* One set on a sequence with libvmaf at cpumask; frames counted in *frames. */
static int check_set(const ViSeq *s, const CambiSet *c, uint64_t cpumask, const float *recip,
                     long *frames, int gpu)
{
    const VcOpts o = opts(c);
    SqVcParams p;
    const int e = vc_params(&o, s->w, s->h, s->bpc, &p);
    if (e) {
        printf("skip %s [%s]: %s\n", s->name, c->name,
               e == -2 ? "a scale smaller than the window" : "libvmaf refuses this size");
        return lib_refuses(s, c);
    }
    SqVcBufs bf;
    double *v = malloc((size_t)s->n * sizeof *v);
    if (!v || vc_bufs_alloc(&bf, s->w, s->h, p.nd, recip)) {
        printf("FAIL out of memory\n");
        return 1;
    }
    int soft_bad = 0;
    for (int i = 0; i < s->n; i++) {
        double score[SQ_VC_SCALES];
        v[i] = sq_vc_frame(s->dis[i], s->stride, s->bpc > 8 ? SQ_ACC_16 : 0, &p, &bf, score);
        if (vi_check_soft)
            soft_bad += soft_check(&p, &bf, score, v[i]);
    }
    if (soft_bad)
        printf("FAIL %s [%s]: the soft-double build differs (%d)\n", s->name, c->name, soft_bad);
    VmafContext *ctx = vi_vmaf_run(s, &c->use, 1, cpumask);
    int bad = soft_bad + (ctx ? 0 : 1);
    if (ctx) {
        char tag[64];
        snprintf(tag, sizeof tag, "cambi cpumask %llu", (unsigned long long)cpumask);
        bad += vi_check(ctx, s, tag, c->name, v);
        /* the library's feature: the defaults and v1.0.16's (1, 3 threads, a ladder of 2),
         * and each set that runs on the GPU backends (with a device) */
        if ((c < sets + 2 || gpu) && cpumask == cpumasks0)
            bad += vi_lib_check(ctx, s, &c->use, 1, 1, gpu);
        vmaf_close(ctx);
        *frames += s->n;
    }
    vc_bufs_free(&bf);
    free(v);
    return bad;
}

static uint64_t prng(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/*
 * The order-free pooling (sq_vc_pool_fast) against libvmaf's selection
 * (sq_vc_pool) on arrays of c-value-like floats: zeros, ties, values from
 * 0.5 up, wide exponent ranges and large sums that must take the
 * selection, all zeros, subnormals. Returns the mismatches; prints how often each path ran.
 */
int vi_cambi_pool_selftest(uint64_t seed, int cases)
{
    uint64_t st = seed;
    uint32_t *cnt = malloc(SQ_VC_CNT * sizeof *cnt);
    float *a = malloc(200000 * sizeof *a), *b = malloc(200000 * sizeof *b);
    int bad = 0, exact = 0;
    for (int t = 0; t < cases && a && b && cnt; t++) {
        const int n = 1 + (int)(prng(&st) % (t % 4 ? 3000 : 200000));
        const int k = 1 + (int)(prng(&st) % (uint64_t)n), kind = (int)(prng(&st) % 6);
        const int zeros = (int)(prng(&st) % 100);
        for (int i = 0; i < n; i++) {
            const uint64_t r = prng(&st);
            float v = 0.0f;
            if ((int)(r % 100) >= zeros) {
                const int p0 = 1 + (int)((r >> 8) % 64), pm = 1 + (int)((r >> 20) % 64);
                v = kind == 0 ? (float)(p0 * pm) / (float)(p0 + pm)
                  : kind == 1 ? (float)(r >> 40) * (1.0f / 64.0f) + 0.5f
                  : kind == 2 ? (float)((r >> 32) % 7) * 0.5f
                  : kind == 3 ? (float)(r >> 33) * 4096.0f + 0.5f
                  : kind == 4 ? 0.0f
                              : (float)((r >> 40) % 5) * 1e-40f + (r & 1 ? 0.0f : 1e-30f);
            }
            a[i] = b[i] = v;
        }
        int ok;
        (void)sq_vc_topk_exact(a, n, k, cnt, &ok);
        exact += ok;
        const double x = sq_vc_pool_fast(a, n, k, cnt), y = sq_vc_pool(b, n, k);
        if (bits(x) != bits(y)) {
            if (bad < 5)
                printf("FAIL pool selftest case %d n %d k %d kind %d: %.17g vs selection %.17g\n", t,
                       n, k, kind, x, y);
            bad++;
        }
    }
    printf("%s pool selftest: %d cases, %d order-free, %d through the selection\n",
           bad ? "FAIL" : "ok", cases, exact, cases - exact);
    free(cnt);
    free(a);
    free(b);
    return bad;
}

/*
 * The c-value row through first[] (sq_vc_first_table: runs of counted
 * terms, or every term tested) against the plain per-term test
 * (sq_vc_cvalue), with thresholds in any order (libvmaf's EOTFs give
 * increasing ones only) and random histograms. Returns the mismatches.
 */
int vi_cambi_table_selftest(uint64_t seed, int cases)
{
    static float recip[SQ_VC_RECIP_N];
    vc_recip(recip);
    uint64_t st = seed;
    const int w = 64, nb = sq_vc_bins(SQ_VC_MAX_DIFFS);
    uint16_t *hist = malloc((size_t)w * (size_t)nb * sizeof *hist), img[64];
    uint8_t mask[64], first[1025];
    float c[64];
    int bad = 0, any = 0;
    for (int t = 0; t < cases && hist; t++) {
        SqVcParams p;
        memset(&p, 0, sizeof p);
        p.nd = 1 << (int)(prng(&st) % 6);
        p.vlt_luma = (int)(prng(&st) % 3) ? 0 : (int)(prng(&st) % 300);
        for (int d = 0; d < p.nd; d++) {
            p.tvi[d] = (int)(prng(&st) % 1100);
            p.weight[d] = 1 + (int)(prng(&st) % 9);
        }
        for (int k = 0; k < w * nb; k++)
            hist[k] = (uint16_t)(prng(&st) % 60);
        for (int j = 0; j < w; j++) {
            img[j] = (uint16_t)(prng(&st) % 1025);
            mask[j] = (uint8_t)(prng(&st) % 4 != 0);
            hist[(int64_t)(img[j] + p.nd) * w + j] |= 1; /* p0 >= 1, as a counted pixel */
        }
        sq_vc_first_table(&p, first);
        for (int v = 0; v <= 1024; v++)
            any += first[v] == SQ_VC_ANY;
        sq_vc_cvalue_row(img, mask, hist, w, 0, first, &p, recip, c);
        for (int j = 0; j < w; j++) {
            const float want = mask[j] ? sq_vc_cvalue(hist, w, j, img[j], &p, recip) : 0.0f;
            bad += memcmp(&want, &c[j], sizeof want) != 0;
        }
    }
    printf("%s c-value table selftest: %d cases, %d values tested term by term, %d mismatches\n",
           bad ? "FAIL" : "ok", cases, any, bad);
    free(hist);
    return bad;
}

int vi_cambi_check(const ViSeq *s, const uint64_t *cpumasks, int n_masks, int n_sets2,
                   int gpu_sets)
{
    static float recip[SQ_VC_RECIP_N];
    static int have_recip;
    static long frames;
    cpumasks0 = cpumasks[0];
    if (!have_recip) {
        vc_recip(recip);
        have_recip = 1;
    }
    int bad = 0;
    for (int k = 0; k < n_sets; k++)
        for (int m = 0; m < (k < n_sets2 ? n_masks : 1); m++)
            bad += check_set(s, &sets[k], cpumasks[m], recip, &frames, k < gpu_sets);
    printf("cambi: %ld frame values compared so far\n", frames);
    return bad;
}
