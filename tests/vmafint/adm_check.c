/*
 * Integer ADM (math/vmaf_adm*.h) against libvmaf's "adm" extractor, with the
 * library's host side (feature/adm_params.c: the CSF factors, the per-scale
 * cube roots) and its scratch (cpu/adm.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/adm.h"
#include "feature/adm_params.h"
#include "math/vmaf_adm_pool.h"
#include "soft.h"
#include "vmafint.h"

typedef struct AdmSet {
    int csf_mode, rdh, skip0;
    double nvd, egl, dlmw, nw, min;
    const char *suffix;
    int skip_aim; /* not a feature parameter: its run needs a context of its own */
} AdmSet;

/*
 * The option sets: v0.6.1's defaults; v1.0.16's four (csf_mode 2 tables;
 * 1d5h_2160 uses the 1080_3H table); Watson with a computed scale-0 factor
 * (nvd 5); csf_mode 3 with skip_scale0; a non-integer enhancement limit.
 * The first VI_ADM_CLIP_SETS are the clips' (see test_vmafint.c).
 */
#define V116(nvd, rdh, sfx) { 2, rdh, 0, nvd, 1.0, 0.7, 0.02, 0.5, "_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02" sfx, 0 }
static const AdmSet sets[] = {
    { 0, 1080, 0, 3.0, 100.0, 0.5, 0.03125, 0.0, "", 0 },
    V116(3.0, 1080, ""),
    V116(5.0, 1080, "_nvd_5"),
    V116(3.0, 2160, "_rdh_2160"),
    { 0, 1080, 0, 5.0, 100.0, 0.5, 0.03125, 0.0, "_nvd_5", 0 },
    { 3, 1080, 1, 3.0, 100.0, 0.5, 0.03125, 0.0, "_csf_3_ssz", 0 },
    V116(1.5, 2160, "_nvd_1.5_rdh_2160"),
    { 0, 1080, 0, 5.0, 1.5, 0.5, 0.03125, 0.0, "_egl_1.5_nvd_5", 0 },
};
#define V116_OPTS { "adm_csf_mode", "2" }, { "adm_dlm_weight", "0.7" }, \
    { "adm_enhn_gain_limit", "1" }, { "adm_noise_weight", "0.02" }, { "adm_min_val", "0.5" }
const ViUse vi_adm_uses[] = {
    { "adm", { { NULL, NULL } } },
    { "adm", { V116_OPTS } },
    { "adm", { V116_OPTS, { "adm_norm_view_dist", "5" } } },
    { "adm", { V116_OPTS, { "adm_ref_display_height", "2160" } } },
    { "adm", { { "adm_norm_view_dist", "5" } } },
    { "adm", { { "adm_csf_mode", "3" }, { "adm_skip_scale0", "true" } } },
    { "adm", { V116_OPTS, { "adm_norm_view_dist", "1.5" }, { "adm_ref_display_height", "2160" } } },
    { "adm", { { "adm_enhn_gain_limit", "1.5" }, { "adm_norm_view_dist", "5" } } },
};
const int vi_adm_n_uses = (int)(sizeof vi_adm_uses / sizeof vi_adm_uses[0]);
const int vi_adm_clip_uses = 6;

/* The set's options as the library holds them (feature/options.c's defaults otherwise). */
static SqOptions set_opts(const AdmSet *a)
{
    SqFeatureSpec sp;
    char err[200];
    if (sq_feature_parse(&sp, "adm", err, sizeof err) < 0)
        printf("FAIL adm: %s\n", err);
    SqOptions o = sp.opt;
    o.adm_csf_mode = a->csf_mode;
    o.adm_ref_display_height = a->rdh;
    o.adm_skip_scale0 = a->skip0;
    o.adm_norm_view_dist = a->nvd;
    o.adm_enhn_gain_limit = a->egl;
    o.adm_dlm_weight = a->dlmw;
    o.adm_noise_weight = a->nw;
    o.adm_min_val = a->min;
    o.adm_skip_aim = a->skip_aim;
    return o;
}

static uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    return u;
}

/* The soft-double build (soft.c) on the same frame: the same raw values and scores, bit for bit. */
static int soft_frame(const AdmSet *a, const SqVaParams *p, const ViSeq *s, int i,
                      const SqVaBufs *bf, const SqVaRaw *raw, const float *sums,
                      const SqVaScores *o)
{
    int32_t *const bp[24] = { bf->ob[0], bf->ob[1], bf->ob[2], bf->ob[3], bf->tb[0], bf->tb[1],
                              bf->tb[2], bf->tb[3], bf->oa, bf->ta, bf->r[0], bf->r[1],
                              bf->r[2], bf->e[0], bf->e[1], bf->e[2], bf->A[0], bf->A[1],
                              bf->A[2], bf->F[0], bf->F[1], bf->F[2], bf->lo, bf->hi };
    uint32_t ir[12];
    uint64_t rf3[12], out[7];
    float sraw[36], hraw[36];
    for (int k = 0; k < 12; k++) {
        ir[k] = p->s[k / 3].ir[k % 3];
        rf3[k] = bits(p->s[k / 3].rf3[k % 3]);
    }
    soft_va_frame(s->ref[i], s->dis[i], s->stride, s->bpc > 8 ? SQ_ACC_16 : 0, s->bpc, s->w, s->h,
                  ir, rf3, bits(a->egl), a->skip0, a->skip_aim, bp, sraw);
    for (int sc = 0; sc < 4; sc++)
        for (int th = 0; th < 3; th++) {
            hraw[9 * sc + th] = raw[sc].num[th];
            hraw[9 * sc + 3 + th] = raw[sc].aim[th];
            hraw[9 * sc + 6 + th] = raw[sc].den[th];
        }
    /* scale 0's raw values are not computed with skip_scale0 */
    const int from = a->skip0 ? 9 : 0;
    int bad = memcmp(sraw + from, hraw + from, sizeof(float) * (size_t)(36 - from)) != 0;
    soft_va_scores(sums, sums + 4, sums + 8, s->w, s->h, bits(a->dlmw), bits(a->min), out);
    const double hv[7] = { o->adm2, o->aim, o->adm3, o->scale[0], o->scale[1], o->scale[2],
                           o->scale[3] };
    for (int k = 0; k < 7; k++)
        bad += out[k] != bits(hv[k]);
    for (int sc = 0; sc < 4; sc++)
        bad += bits(soft_va_noise(raw[sc].area, bits(a->nw))) !=
               bits(sq_va_noise(raw[sc].area, a->nw));
    if (bad)
        printf("FAIL %s [adm%s] frame %d: the soft-double build differs\n", s->name, a->suffix, i);
    return bad;
}

static int check_set(VmafContext *ctx, const ViSeq *s, const AdmSet *a, const SqVaBufs *bf)
{
    SqVaParams p;
    const SqOptions opt = set_opts(a);
    sq_adm_params(&opt, &p);
    double *v = malloc((size_t)s->n * 7 * sizeof *v);
    int den_zero = 0, soft_bad = 0;
    for (int i = 0; i < s->n; i++) {
        SqVaRaw raw[4];
        sq_va_frame(s->ref[i], s->dis[i], s->stride, s->bpc > 8 ? SQ_ACC_16 : 0, s->bpc, s->w,
                    s->h, &p, bf, raw);
        float sums[12];
        const SqVaScores o = sq_adm_scores(&opt, raw, s->w, s->h, sums);
        den_zero |= o.den_zero;
        if (vi_check_soft)
            soft_bad += soft_frame(a, &p, s, i, bf, raw, sums, &o);
        v[i] = o.adm2;
        v[s->n + i] = o.aim;
        v[2 * s->n + i] = o.adm3;
        for (int j = 0; j < 4; j++)
            v[(3 + j) * s->n + i] = o.scale[j];
    }
    const int def = !a->suffix[0];
    const char *base[7] = { def ? "VMAF_integer_feature_adm2_score" : "integer_adm2",
                            def ? "VMAF_integer_feature_aim_score" : "integer_aim",
                            def ? "VMAF_integer_feature_adm3_score" : "integer_adm3",
                            "integer_adm_scale0", "integer_adm_scale1", "integer_adm_scale2",
                            "integer_adm_scale3" };
    int bad = soft_bad;
    for (int f = 0; f < 7; f++) {
        char name[200];
        /* aim (and adm3 from it) is uninitialised in libvmaf when the denominator is 0 */
        if (den_zero && (f == 1 || f == 2))
            continue;
        snprintf(name, sizeof name, "%s%s", base[f], a->suffix);
        bad += vi_check(ctx, s, "adm", name, v + (size_t)f * s->n);
    }
    free(v);
    return bad;
}

/* adm_skip_aim (v0.6.1's defaults otherwise), in a libvmaf context of its own. */
static int check_skip_aim(const ViSeq *s, uint64_t cpumask, const SqVaBufs *bf)
{
    static const AdmSet a = { 0, 1080, 0, 3.0, 100.0, 0.5, 0.03125, 0.0, "", 1 };
    static const ViUse use = { "adm", { { "adm_skip_aim", "true" } } };
    VmafContext *ctx = vi_vmaf_run(s, &use, 1, cpumask);
    if (!ctx)
        return 1;
    const int bad = check_set(ctx, s, &a, bf);
    vmaf_close(ctx);
    return bad;
}

int vi_adm_check(VmafContext *ctx, const ViSeq *s, int n_sets, int skip_aim, uint64_t cpumask)
{
    SqVaBufs bf;
    const SqAlloc al = { 0 };
    int bad = 0, bufs_ok = 1;
    if (sq_cpu_va_alloc(&bf, s->w, s->h, 1, &al, NULL)) {
        printf("FAIL out of memory\n");
        bad = 1;
        bufs_ok = 0;
    }
    for (int k = 0; k < n_sets && bufs_ok; k++)
        bad += check_set(ctx, s, &sets[k], &bf);
    if (skip_aim && bufs_ok)
        bad += check_skip_aim(s, cpumask, &bf);
    sq_cpu_va_free(&bf, &al);
    return bad;
}
