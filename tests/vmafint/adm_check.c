/*
 * Integer ADM (math/vmaf_adm*.h) against libvmaf's "adm" extractor. The host
 * side a feature layer will own is here for now: the CSF factors (libm) and
 * the per-scale cube roots (glibc powf, as libvmaf).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Watson97's quantisation step, as libvmaf's C evaluates it (float k * temp * temp). */
static float watson_q(int lambda, int theta, double nvd, int rdh)
{
    static const float amp[4][4] = { { 0.62171f, 0.67234f, 0.72709f, 0.67234f },
                                     { 0.34537f, 0.41317f, 0.49428f, 0.41317f },
                                     { 0.18004f, 0.22727f, 0.28688f, 0.22727f },
                                     { 0.091401f, 0.11792f, 0.15214f, 0.11792f } };
    static const float g[4] = { 1.501f, 1.0f, 0.534f, 1.0f };
    const float a = 0.495f, k = 0.466f, f0 = 0.401f;
    const float r = nvd * rdh * M_PI / 180.0;
    const float temp = log10(pow(2.0, lambda + 1) * f0 * g[theta] / r);
    const float q = 2.0 * a * pow(10.0, k * temp * temp) / amp[lambda][theta];
    return q;
}

/* Blend tables (csf modes 2 and 3): [mode 2/3][table][orientation 0 hv, 1 d][lambda]. */
static const float blend[2][8][2][4] = {
    { { { .01183f, .025026f, .04295f, .058621f }, { .004302f, .011778f, .023918f, .035901f } },
      { { .004212f, .014809f, .029642f, .047464f }, { .000984f, .005852f, .0146f, .027574f } },
      { { .00226f, .01183f, .025026f, .04295f }, { .000479f, .004302f, .011778f, .023918f } },
      { { .000092f, .004212f, .014809f, .029642f }, { .000050f, .000984f, .005852f, .0146f } },
      { { .018715f, .035637f, .052798f, .061509f }, { .007999f, .018396f, .031851f, .037718f } },
      { { .010144f, .022561f, .040309f, .05672f }, { .003463f, .010282f, .021839f, .034641f } },
      { { .027961f, .045875f, .060275f, .056234f }, { .013572f, .026277f, .036959f, .034511f } },
      { { .016781f, .032822f, .05032f, .061594f }, { .00691f, .016545f, .029917f, .037777f } } },
    { { { .011249f, .022606f, .035930f, .045673f }, { .004097f, .010921f, .021430f, .031313f } },
      { { .004052f, .013939f, .026298f, .038833f }, { .000927f, .005544f, .013415f, .024515f } },
      { { .002166f, .011249f, .022606f, .035930f }, { .000447f, .004097f, .010921f, .021430f } },
      { { .000077f, .004052f, .013939f, .026298f }, { .000045f, .000927f, .005544f, .013415f } },
      { { .017329f, .030870f, .042134f, .047410f }, { .007509f, .016707f, .028072f, .032722f } },
      { { .009689f, .020577f, .034162f, .044523f }, { .003302f, .009579f, .019661f, .030318f } },
      { { .024969f, .037825f, .046676f, .043974f }, { .012511f, .023424f, .032139f, .030166f } },
      { { .015665f, .028766f, .040612f, .047483f }, { .006514f, .015107f, .026476f, .032776f } } }
};

static int blend_table(int rdh, double nvd)
{
    static const struct { int rdh; double nvd; int t; } k[] = {
        { 1080, 3.0, 0 }, { 1080, 5.0, 1 }, { 2160, 1.5, 0 }, { 2160, 3.0, 2 }, { 2160, 5.0, 3 },
        { 720, 3.0, 4 }, { 720, 5.0, 5 }, { 480, 3.0, 6 }, { 480, 5.0, 7 } };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (k[i].rdh == rdh && k[i].nvd == nvd)
            return k[i].t;
    return -1;
}

/* rf of (lambda, orientation 0 = h/v, 1 = d) in the set's CSF mode. */
static float factor(const AdmSet *a, int lambda, int o)
{
    if (a->csf_mode == 0)
        return 1.0f / watson_q(lambda, o ? 2 : 1, a->nvd, a->rdh);
    return blend[a->csf_mode - 2][blend_table(a->rdh, a->nvd)][o][lambda];
}

static void params(const AdmSet *a, SqVaParams *p)
{
    memset(p, 0, sizeof *p);
    p->egl = a->egl;
    p->skip_scale0 = a->skip0;
    p->skip_aim = a->skip_aim;
    for (int s = 0; s < 4; s++)
        for (int th = 0; th < 3; th++) {
            const float rf = factor(a, s, th == 2);
            p->s[s].rf3[th] = pow(rf, 3);
            if (s)
                p->s[s].ir[th] = (uint32_t)(int64_t)(rf * pow(2, 32));
            else
                p->s[s].ir[th] = (uint16_t)(int32_t)(rf * pow(2, th == 2 ? 23 : 21));
        }
    if (fabs(a->nvd * a->rdh - 3240.0) < 1e-8 && a->csf_mode == 0) {
        p->s[0].ir[0] = p->s[0].ir[1] = 36453;
        p->s[0].ir[2] = 49417;
    }
}

static void cbrt3(const float *in, float *out)
{
    for (int th = 0; th < 3; th++)
        out[th] = powf(in[th], 1.0f / 3.0f);
}

/* One set's published values of a frame from the raw scale values. */
static SqVaScores scores(const AdmSet *a, const SqVaRaw *raw, int W, int H, float *num,
                         float *den, float *aim)
{
    float c[3];
    for (int s = 0; s < 4; s++) {
        if (s == 0 && a->skip0) {
            num[0] = aim[0] = 0.0f;
            den[0] = sq_va_skip_den();
            continue;
        }
        cbrt3(raw[s].num, c);
        num[s] = sq_va_scale_sum(c, powf(sq_va_noise(raw[s].area, a->nw), 1.0f / 3.0f));
        cbrt3(raw[s].aim, c);
        aim[s] = sq_va_scale_sum(c, powf(sq_va_noise(raw[s].area, 0.0), 1.0f / 3.0f));
        cbrt3(raw[s].den, c);
        den[s] = sq_va_scale_sum(c, powf(sq_va_noise(raw[s].area, a->nw), 1.0f / 3.0f));
    }
    return sq_va_scores(num, den, aim, W, H, a->dlmw, a->min);
}

static int bufs_alloc(SqVaBufs *b, int W, int H)
{
    const size_t n = (size_t)((W + 1) / 2) * (size_t)((H + 1) / 2);
    int32_t **all[] = { &b->ob[0], &b->ob[1], &b->ob[2], &b->ob[3], &b->tb[0], &b->tb[1],
                        &b->tb[2], &b->tb[3], &b->oa, &b->ta, &b->r[0], &b->r[1], &b->r[2],
                        &b->e[0], &b->e[1], &b->e[2], &b->A[0], &b->A[1], &b->A[2], &b->F[0],
                        &b->F[1], &b->F[2], &b->lo, &b->hi };
    const int na = (int)(sizeof all / sizeof all[0]);
    for (int i = 0; i < na; i++)
        if (!(*all[i] = calloc(i >= na - 2 ? (size_t)W : n, sizeof(int32_t))))
            return -1;
    return 0;
}

static void bufs_free(SqVaBufs *b)
{
    for (int i = 0; i < 4; i++) {
        free(b->ob[i]);
        free(b->tb[i]);
    }
    for (int i = 0; i < 3; i++) {
        free(b->r[i]);
        free(b->e[i]);
        free(b->A[i]);
        free(b->F[i]);
    }
    free(b->oa);
    free(b->ta);
    free(b->lo);
    free(b->hi);
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
    params(a, &p);
    double *v = malloc((size_t)s->n * 7 * sizeof *v);
    int den_zero = 0, soft_bad = 0;
    for (int i = 0; i < s->n; i++) {
        SqVaRaw raw[4];
        sq_va_frame(s->ref[i], s->dis[i], s->stride, s->bpc > 8 ? SQ_ACC_16 : 0, s->bpc, s->w,
                    s->h, &p, bf, raw);
        float sums[12];
        const SqVaScores o = scores(a, raw, s->w, s->h, sums, sums + 4, sums + 8);
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
    memset(&bf, 0, sizeof bf);
    int bad = 0, bufs_ok = 1;
    if (bufs_alloc(&bf, s->w, s->h)) {
        printf("FAIL out of memory\n");
        bad = 1;
        bufs_ok = 0;
    }
    for (int k = 0; k < n_sets && bufs_ok; k++)
        bad += check_set(ctx, s, &sets[k], &bf);
    if (skip_aim && bufs_ok)
        bad += check_skip_aim(s, cpumask, &bf);
    bufs_free(&bf);
    return bad;
}
