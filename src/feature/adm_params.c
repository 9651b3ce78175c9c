#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "feature/adm_params.h"

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

/* The blend table of (rdh, nvd), by exact equality as libvmaf; -1: none. */
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

int sq_adm_check_options(const SqOptions *o, char *err, size_t errlen)
{
    const double nvd = o->adm_norm_view_dist;
    const int rdh = o->adm_ref_display_height;
    if (o->adm_csf_mode == 1) {
        snprintf(err, errlen, "adm: adm_csf_mode 1 (Barten) is not supported (libvmaf's C and "
                 "SIMD paths give different numbers in it, NaN at times: no result to give)");
        return -EINVAL;
    }
    if (nvd * rdh < 3.0 * 1080) {
        snprintf(err, errlen, "adm: adm_norm_view_dist * adm_ref_display_height is %g, below "
                 "3 * 1080 (libvmaf refuses every frame)", nvd * rdh);
        return -EINVAL;
    }
    if (o->adm_csf_mode >= 2 && blend_table(rdh, nvd) < 0) {
        snprintf(err, errlen, "adm: adm_csf_mode %d has no table for adm_ref_display_height %d "
                 "with adm_norm_view_dist %g (1080: 3, 5; 2160: 1.5, 3, 5)", o->adm_csf_mode,
                 rdh, nvd);
        return -EINVAL;
    }
    return 0;
}

/* rf of (lambda, orientation 0 = h/v, 1 = d) in o's CSF mode. */
static float factor(const SqOptions *o, int lambda, int d)
{
    if (o->adm_csf_mode == 0)
        return 1.0f / watson_q(lambda, d ? 2 : 1, o->adm_norm_view_dist,
                               o->adm_ref_display_height);
    return blend[o->adm_csf_mode - 2][blend_table(o->adm_ref_display_height,
                                                  o->adm_norm_view_dist)][d][lambda];
}

void sq_adm_params(const SqOptions *o, SqVaParams *p)
{
    memset(p, 0, sizeof *p);
    p->egl = o->adm_enhn_gain_limit;
    p->skip_scale0 = o->adm_skip_scale0;
    p->skip_aim = o->adm_skip_aim;
    for (int s = 0; s < 4; s++)
        for (int th = 0; th < 3; th++) {
            const float rf = factor(o, s, th == 2);
            p->s[s].rf3[th] = pow(rf, 3);
            if (s)
                p->s[s].ir[th] = (uint32_t)(int64_t)(rf * pow(2, 32));
            else
                p->s[s].ir[th] = (uint16_t)(int32_t)(rf * pow(2, th == 2 ? 23 : 21));
        }
    if (fabs(o->adm_norm_view_dist * o->adm_ref_display_height - 3240.0) < 1e-8 &&
        o->adm_csf_mode == 0) {
        p->s[0].ir[0] = p->s[0].ir[1] = 36453;
        p->s[0].ir[2] = 49417;
    }
}

static void cbrt3(const float *in, float *out)
{
    for (int th = 0; th < 3; th++)
        out[th] = powf(in[th], 1.0f / 3.0f);
}

SqVaScores sq_adm_scores(const SqOptions *o, const SqVaRaw *raw, int W, int H, float *sums)
{
    float *num = sums, *den = sums + 4, *aim = sums + 8, c[3];
    const double nw = o->adm_noise_weight;
    for (int s = 0; s < 4; s++) {
        if (s == 0 && o->adm_skip_scale0) {
            num[0] = aim[0] = 0.0f;
            den[0] = sq_va_skip_den();
            continue;
        }
        cbrt3(raw[s].num, c);
        num[s] = sq_va_scale_sum(c, powf(sq_va_noise(raw[s].area, nw), 1.0f / 3.0f));
        cbrt3(raw[s].aim, c);
        aim[s] = sq_va_scale_sum(c, powf(sq_va_noise(raw[s].area, 0.0), 1.0f / 3.0f));
        cbrt3(raw[s].den, c);
        den[s] = sq_va_scale_sum(c, powf(sq_va_noise(raw[s].area, nw), 1.0f / 3.0f));
    }
    return sq_va_scores(num, den, aim, W, H, o->adm_dlm_weight, o->adm_min_val);
}
