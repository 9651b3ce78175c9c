#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/adm_params.h"
#include "feature/cambi_params.h"
#include "feature/options.h"
#include "math/prescale.h"

typedef enum { OPT_DOUBLE, OPT_INT, OPT_BOOL, OPT_STRING } OptType;

typedef struct OptDesc {
    const char *name, *alias;
    OptType type;
    double def, min, max;
    const char *def_str;
    unsigned kinds; /* bit per SqFeatureKind */
    size_t offset;
} OptDesc;

#define CHROMA (1u << SQ_FEATURE_CHROMA)
#define TEMPORAL (1u << SQ_FEATURE_TEMPORAL)
#define MOTION (1u << SQ_FEATURE_MOTION)
#define ADM (1u << SQ_FEATURE_ADM)
#define CAMBI (1u << SQ_FEATURE_CAMBI)
#define VIF (1u << SQ_FEATURE_VIF)
#define OFF(f) offsetof(SqOptions, f)

/* Sorted by full name: libvmaf appends the suffixes in this order. An option
 * without an alias is no feature parameter: it never gives a suffix. */
static const OptDesc opt_table[] = {
    { "adm_csf_diag_scale", "scfd", OPT_DOUBLE, 1.0, 0.0, 50.0, NULL, ADM, OFF(adm_csf_diag_scale) },
    { "adm_csf_mode", "csf", OPT_INT, 0, 0, 3, NULL, ADM, OFF(adm_csf_mode) },
    { "adm_csf_scale", "scf", OPT_DOUBLE, 1.0, 0.0, 50.0, NULL, ADM, OFF(adm_csf_scale) },
    { "adm_dlm_weight", "dlmw", OPT_DOUBLE, 0.5, 0.0, 1.0, NULL, ADM, OFF(adm_dlm_weight) },
    { "adm_enhn_gain_limit", "egl", OPT_DOUBLE, 100.0, 1.0, 100.0, NULL, ADM, OFF(adm_enhn_gain_limit) },
    { "adm_min_val", "min", OPT_DOUBLE, 0.0, 0.0, 1.0, NULL, ADM, OFF(adm_min_val) },
    { "adm_noise_weight", "nw", OPT_DOUBLE, 0.03125, 0.0, 1500.0, NULL, ADM, OFF(adm_noise_weight) },
    { "adm_norm_view_dist", "nvd", OPT_DOUBLE, 3.0, 0.75, 24.0, NULL, ADM, OFF(adm_norm_view_dist) },
    { "adm_ref_display_height", "rdh", OPT_INT, 1080, 1, 4320, NULL, ADM, OFF(adm_ref_display_height) },
    { "adm_skip_aim", NULL, OPT_BOOL, 0, 0, 1, NULL, ADM, OFF(adm_skip_aim) },
    { "adm_skip_scale0", "ssz", OPT_BOOL, 0, 0, 1, NULL, ADM, OFF(adm_skip_scale0) },
    { "cambi_eotf", "ceot", OPT_STRING, 0, 0, 0, "bt1886", CAMBI, OFF(cambi_eotf) },
    { "cambi_high_res_speedup", "hrs", OPT_INT, 0, 0, 2160, NULL, CAMBI, OFF(cambi_high_res_speedup) },
    { "cambi_max_val", "cmxv", OPT_DOUBLE, 1000.0, 0.0, 1000.0, NULL, CAMBI, OFF(cambi_max_val) },
    { "cambi_topk", "ctpk", OPT_DOUBLE, 0.6, 0.0001, 1.0, NULL, CAMBI, OFF(cambi_topk) },
    { "cambi_vis_lum_threshold", "vlt", OPT_DOUBLE, 0.0, 0.0, 300.0, NULL, CAMBI, OFF(cambi_vis_lum_threshold) },
    { "debug", NULL, OPT_BOOL, 0, 0, 1, NULL, MOTION | VIF, OFF(debug) },
    { "eotf", "eotf", OPT_STRING, 0, 0, 0, "bt1886", CAMBI, OFF(eotf) },
    { "max_log_contrast", "mlc", OPT_INT, 2, 0, 5, NULL, CAMBI, OFF(max_log_contrast) },
    { "motion_blend_factor", "mbf", OPT_DOUBLE, 1.0, 0.0, 1.0, NULL, MOTION, OFF(motion_blend_factor) },
    { "motion_blend_offset", "mbo", OPT_DOUBLE, 40.0, 0.0, 1000.0, NULL, MOTION, OFF(motion_blend_offset) },
    { "motion_five_frame_window", "mffw", OPT_BOOL, 0, 0, 1, NULL, MOTION, OFF(motion_five_frame_window) },
    { "motion_force_zero", "force_0", OPT_BOOL, 0, 0, 1, NULL, MOTION, OFF(motion_force_zero) },
    { "motion_fps_weight", "mfw", OPT_DOUBLE, 1.0, 0.0, 5.0, NULL, MOTION, OFF(motion_fps_weight) },
    { "motion_max_val", "mmxv", OPT_DOUBLE, 10000.0, 0.0, 10000.0, NULL, MOTION, OFF(motion_max_val) },
    { "motion_moving_average", "mma", OPT_BOOL, 0, 0, 1, NULL, MOTION, OFF(motion_moving_average) },
    { "speed_kernelscale", "ks", OPT_DOUBLE, 1.0, 0.1, 4.0, NULL, CHROMA | TEMPORAL, OFF(kernelscale) },
    { "speed_max_val", "mxv", OPT_DOUBLE, 1000.0, 0.0, 1000.0, NULL, CHROMA | TEMPORAL, OFF(max_val) },
    { "speed_nn_floor", "nnf", OPT_DOUBLE, 0.0, 0.0, 1.0, NULL, CHROMA | TEMPORAL, OFF(nn_floor) },
    { "speed_prescale", "ps", OPT_DOUBLE, 1.0, 0.1, 4.0, NULL, CHROMA | TEMPORAL, OFF(prescale) },
    { "speed_prescale_method", "psm", OPT_STRING, 0, 0, 0, "nearest", CHROMA | TEMPORAL, OFF(prescale_method) },
    { "speed_sigma_nn", "snn", OPT_DOUBLE, 0.29, 0.1, 2.0, NULL, CHROMA | TEMPORAL, OFF(sigma_nn) },
    { "speed_use_ref_diff", "urd", OPT_BOOL, 0, 0, 1, NULL, TEMPORAL, OFF(use_ref_diff) },
    { "speed_weight_var_mode", "wvm", OPT_INT, 0, 0, 6, NULL, CHROMA, OFF(weight_var_mode) },
    { "topk", "topk", OPT_DOUBLE, 0.6, 0.0001, 1.0, NULL, CAMBI, OFF(topk) },
    { "tvi_threshold", "tvit", OPT_DOUBLE, 0.019, 0.0001, 1.0, NULL, CAMBI, OFF(tvi_threshold) },
    { "vif_enhn_gain_limit", "egl", OPT_DOUBLE, 100.0, 1.0, 100.0, NULL, VIF, OFF(vif_enhn_gain_limit) },
    { "vif_skip_scale0", "ssclz", OPT_BOOL, 0, 0, 1, NULL, VIF, OFF(vif_skip_scale0) },
    { "window_size", "ws", OPT_INT, 65, 15, 127, NULL, CAMBI, OFF(window_size) },
};
#define N_OPTS (sizeof(opt_table) / sizeof(opt_table[0]))

static const char *const ps_methods[] = { "nearest", "bilinear", "bicubic", "lanczos4" };

/* The kernelscales libvmaf accepts (each within 1e-3, compared in float). */
static const float valid_ks[] = {
    1.0f, 1.0f / 2.0f, 3.0f / 2.0f, 2.0f, 2.0f / 3.0f, 24.0f / 10.0f, 360.0f / 97.0f,
    4.0f / 3.0f, 3.5f / 3.0f, 3.75f / 3.0f, 4.25f / 3.0f, 5.0f / 3.0f, 3.0f,
    1.0f / 2.25f, 1.4746f, 1.54f, 1.6f, 1.06667f, 0.711111f, 0.740740f, 1.111111f,
};

int sq_prescale_method_index(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, ps_methods[i]))
            return i;
    return -1;
}

int sq_prescale_skipped(double ps)
{
    return fabs(ps - 1.0) < 1e-3;
}

static int ks_valid(double ks)
{
    for (size_t i = 0; i < sizeof(valid_ks) / sizeof(valid_ks[0]); i++)
        if (fabsf((float)ks - valid_ks[i]) < 1e-3f)
            return 1;
    return 0;
}

static void set_defaults(SqOptions *o)
{
    memset(o, 0, sizeof(*o));
    for (size_t i = 0; i < N_OPTS; i++) {
        const OptDesc *d = &opt_table[i];
        char *p = (char *)o + d->offset;
        if (d->type == OPT_DOUBLE)
            *(double *)p = d->def;
        else if (d->type == OPT_INT || d->type == OPT_BOOL)
            *(int *)p = (int)d->def;
        else
            snprintf(p, sizeof(o->prescale_method), "%s", d->def_str);
    }
}

/* libvmaf stores numeric-looking values as strtof() printed with %g. */
static void normalise_value(const char *in, char *out, size_t outlen)
{
    char *end;
    const float f = strtof(in, &end);
    if (end != in && *end == '\0')
        snprintf(out, outlen, "%g", (double)f);
    else
        snprintf(out, outlen, "%s", in);
}

static int set_option(SqOptions *o, const OptDesc *d, const char *raw, char *err, size_t errlen)
{
    char val[64];
    if (!*raw) {
        snprintf(err, errlen, "option %s: missing value", d->name);
        return -EINVAL;
    }
    if (strlen(raw) >= sizeof(val)) {
        snprintf(err, errlen, "option %s: value too long", d->name);
        return -EINVAL;
    }
    normalise_value(raw, val, sizeof(val));
    char *p = (char *)o + d->offset;
    switch (d->type) {
    case OPT_DOUBLE:
    case OPT_INT: {
        /* The whole value must be the number: "2,5" or "1abc" taken as 2
         * or 1 would score with an option the user did not ask for. */
        char *end;
        (void)strtof(raw, &end);
        if (end == raw || *end != '\0' || isspace((unsigned char)raw[0])) {
            snprintf(err, errlen, "option %s: '%s' is not a number", d->name, raw);
            return -EINVAL;
        }
        const double v = atof(val) + 0.0; /* + 0.0: -0 is 0 */
        if (d->type == OPT_INT && v != floor(v)) {
            snprintf(err, errlen, "option %s: '%s' is not an integer", d->name, raw);
            return -EINVAL;
        }
        if (!(v >= d->min && v <= d->max)) {
            snprintf(err, errlen, "option %s: %s is outside [%g, %g]", d->name, raw, d->min, d->max);
            return -EINVAL;
        }
        if (d->type == OPT_DOUBLE)
            *(double *)p = v;
        else
            *(int *)p = (int)v;
        return 0;
    }
    case OPT_BOOL:
        if (strcmp(val, "true") && strcmp(val, "false")) {
            snprintf(err, errlen, "option %s: '%s' is not true or false", d->name, raw);
            return -EINVAL;
        }
        *(int *)p = !strcmp(val, "true");
        return 0;
    default:
        if (strlen(val) >= sizeof(o->prescale_method)) {
            snprintf(err, errlen, "option %s: '%s' is too long", d->name, raw);
            return -EINVAL;
        }
        snprintf(p, sizeof(o->prescale_method), "%s", val);
        return 0;
    }
}

/* "_alias_value" for every option that differs from its default. */
static void build_suffix(const SqOptions *o, unsigned kind_bit, char *out, size_t outlen)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < N_OPTS; i++) {
        const OptDesc *d = &opt_table[i];
        if (!(d->kinds & kind_bit) || !d->alias)
            continue;
        const char *p = (const char *)o + d->offset;
        int n = 0;
        if (d->type == OPT_DOUBLE && *(const double *)p != d->def)
            n = snprintf(out + len, outlen - len, "_%s_%g", d->alias, *(const double *)p);
        else if (d->type == OPT_INT && *(const int *)p != (int)d->def)
            n = snprintf(out + len, outlen - len, "_%s_%d", d->alias, *(const int *)p);
        else if (d->type == OPT_BOOL && *(const int *)p)
            n = snprintf(out + len, outlen - len, "_%s", d->alias);
        else if (d->type == OPT_STRING && strcmp(p, d->def_str))
            n = snprintf(out + len, outlen - len, "_%s_%s", d->alias, p);
        if (n > 0 && (size_t)n < outlen - len)
            len += (size_t)n;
    }
}

int sq_feature_parse(SqFeatureSpec *out, const char *str, char *err, size_t errlen)
{
    char buf[512];
    if (!str || strlen(str) >= sizeof(buf)) {
        snprintf(err, errlen, "feature string missing or longer than %zu bytes", sizeof(buf) - 1);
        return -EINVAL;
    }
    snprintf(buf, sizeof(buf), "%s", str);
    char *opts = strchr(buf, '=');
    if (opts)
        *opts++ = '\0';
    if (!strcmp(buf, "speed_chroma"))
        out->kind = SQ_FEATURE_CHROMA;
    else if (!strcmp(buf, "speed_temporal"))
        out->kind = SQ_FEATURE_TEMPORAL;
    else if (!strcmp(buf, "motion"))
        out->kind = SQ_FEATURE_MOTION;
    else if (!strcmp(buf, "adm"))
        out->kind = SQ_FEATURE_ADM;
    else if (!strcmp(buf, "cambi"))
        out->kind = SQ_FEATURE_CAMBI;
    else if (!strcmp(buf, "vif"))
        out->kind = SQ_FEATURE_VIF;
    else {
        snprintf(err, errlen,
                 "unknown feature '%s' (known: speed_chroma, speed_temporal, motion, adm, cambi, "
                 "vif)",
                 buf);
        return -ENOTSUP;
    }
    const unsigned kind_bit = 1u << out->kind;
    set_defaults(&out->opt);

    for (char *tok = opts; tok && *tok;) {
        char *next = strchr(tok, ':');
        if (next)
            *next++ = '\0';
        char *eq = strchr(tok, '=');
        if (!eq) {
            snprintf(err, errlen, "%s: option '%s' has no '=value'", buf, tok);
            return -EINVAL;
        }
        *eq = '\0';
        if (out->kind == SQ_FEATURE_CAMBI && sq_cambi_refused(tok, err, errlen) < 0)
            return -ENOTSUP;
        const OptDesc *d = NULL;
        for (size_t i = 0; i < N_OPTS; i++)
            if ((opt_table[i].kinds & kind_bit) && !strcmp(tok, opt_table[i].name))
                d = &opt_table[i];
        if (!d) {
            snprintf(err, errlen, "%s: unknown option '%s'", buf, tok);
            return -ENOTSUP;
        }
        int ret = set_option(&out->opt, d, eq + 1, err, errlen);
        if (ret < 0)
            return ret;
        tok = next;
    }

    if (!ks_valid(out->opt.kernelscale)) {
        snprintf(err, errlen, "%s: invalid speed_kernelscale %g (not within 1e-3 of a supported value)",
                 buf, out->opt.kernelscale);
        return -EINVAL;
    }
    if (sq_prescale_method_index(out->opt.prescale_method) < 0) {
        snprintf(err, errlen, "%s: unknown speed_prescale_method '%s' (nearest, bilinear, bicubic, lanczos4)",
                 buf, out->opt.prescale_method);
        return -EINVAL;
    }
    if (out->kind == SQ_FEATURE_ADM && sq_adm_check_options(&out->opt, err, errlen) < 0)
        return -EINVAL;
    if (out->kind == SQ_FEATURE_CAMBI && sq_cambi_check_options(&out->opt, err, errlen) < 0)
        return -EINVAL;
    build_suffix(&out->opt, kind_bit, out->suffix, sizeof(out->suffix));
    return 0;
}
