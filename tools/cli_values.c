/*
 * The values of the CLI's flags: checked numbers, pixel formats, backend
 * names, --model files and --feature names (speedqa's or libvmaf's). Each
 * refusal is one line naming the flag; apart from the parser, which only
 * says which flag goes where.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_priv.h"
#ifdef SQ_HAVE_VMAF
#include "bridge.h"
#endif

const char *cli_model_refused(const CliSettings *cfg)
{
    if (cfg->read_only)
        return "--read-only scores nothing: drop the model";
    return NULL;
}

/* --model: each value loaded once, for every job of the process. */
int cli_add_model(CliSettings *cfg, const char *spec)
{
    /* reachable until exit: the jobs read it, nothing frees it */
    static SqModel *models;
    char err[1200];
    if (!models && !(models = calloc(SQ_MODEL_MAX, sizeof *models))) {
        cli_error("out of memory");
        return -1;
    }
    if (sq_model_add(models, cfg->n_models, spec, err, sizeof err) < 0) {
        cli_error("%s", err);
        return -1;
    }
    cfg->models = models;
    cfg->model_specs[cfg->n_models++] = spec;
    return 0;
}

int cli_same_feature(const char *a, const char *b)
{
    const char *two[3] = { a, b, NULL };
    char err[400];
    return speedqa_check_features(two, err, sizeof err) == SPEEDQA_ERR(EEXIST);
}

/* Whether f repeats one of list[0..n). */
static int repeats(const char *const *list, int n, const char *f)
{
    for (int j = 0; j < n; j++)
        if (cli_same_feature(list[j], f))
            return 1;
    return 0;
}

/* Drops each of list[0..*n) that repeats an earlier one. */
static void drop_repeats(const char **list, int *n)
{
    int keep = 0;
    for (int i = 0; i < *n; i++)
        if (!repeats(list, keep, list[i]))
            list[keep++] = list[i];
    *n = keep;
    list[keep] = NULL;
}

/* --feature values speedqa computes stay speedqa's; the other names of
 * libvmaf's extractors (psnr, float_ssim, options speedqa does not
 * implement: -ENOTSUP) go to libvmaf; a value the library refuses for any
 * other reason (an option set with no result, where libvmaf crashes, hangs
 * or prints garbage) is one line, as is a name neither knows. */
int cli_split_features(CliSettings *cfg)
{
#ifdef SQ_HAVE_VMAF
    int keep = 0;
    for (int i = 0; i < cfg->n_features; i++) {
        const char *f = cfg->features[i];
        const size_t n = strcspn(f, "=");
        char name[64], why[400] = "";
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), f);
        const char *one[2] = { f, NULL };
        const int r = speedqa_check_features(one, why, sizeof why);
        const int libvmaf = n < sizeof name && sq_vmaf_has_extractor(name);
        if (r < 0 && r != SPEEDQA_ERR(ENOTSUP)) {
            cli_error("--feature: %s", why);
            return -1;
        }
        if (!strcmp(name, "speed_chroma") || !strcmp(name, "speed_temporal") ||
            (r == 0 && n < sizeof name && sq_model_is_native(name))) {
            /* repeats dropped here, so that keep counts what a libvmaf one comes after */
            if (!repeats(cfg->features, keep, f))
                cfg->features[keep++] = f;
        } else if (libvmaf) {
            cfg->vmaf_features_at[cfg->n_vmaf_features] = keep;
            cfg->vmaf_features[cfg->n_vmaf_features++] = f;
        } else {
            char list[400];
            sq_vmaf_extractors(list, sizeof list);
            cli_error("--feature: unknown feature '%s' (speedqa: speed_chroma, speed_temporal, "
                      "motion, adm, vif, cambi; libvmaf %s: %s)", name, vmaf_version(), list);
            return -1;
        }
    }
    cfg->n_features = keep;
    cfg->features[keep] = NULL;
    cfg->vmaf_features[cfg->n_vmaf_features] = NULL;
#endif
    drop_repeats(cfg->features, &cfg->n_features);
    return 0;
}

/* Checked integer parsing: the whole string, base 10, within [lo, hi]. */
int cli_parse_ll(const char *flag, const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    /* strtoll skips leading white space of any kind: a value is digits, with a sign */
    if (end == s || *end != '\0' || !(*s == '-' || *s == '+' || (*s >= '0' && *s <= '9'))) {
        cli_error("%s: '%s' is not an integer", flag, s);
        return -1;
    }
    if (errno == ERANGE || v < lo || v > hi) {
        if (hi >= INT_MAX && (v < lo || (errno == ERANGE && *s == '-')))
            cli_error("%s: %s is out of range (at least %lld)", flag, s, lo);
        else if (hi >= INT_MAX)
            cli_error("%s: %s is too large (at most %lld)", flag, s, hi);
        else
            cli_error("%s: %s is outside %lld..%lld", flag, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_int(const char *flag, const char *s, int lo, int hi, int *out)
{
    long long v;
    if (cli_parse_ll(flag, s, lo, hi, &v) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

/* *bpc: the depth a semi-planar name implies, else 0. */
int cli_parse_pixfmt(const char *s, SqRawParams *raw, int *bpc)
{
    static const struct {
        const char *name;
        SpeedqaPixelFormat fmt;
        int bpc, msb; /* bpc 0: planar */
    } t[] = {
        { "420", SPEEDQA_PIX_420, 0, 0 }, { "422", SPEEDQA_PIX_422, 0, 0 },
        { "444", SPEEDQA_PIX_444, 0, 0 }, { "400", SPEEDQA_PIX_400, 0, 0 },
        { "nv12", SPEEDQA_PIX_420, 8, 0 }, { "nv16", SPEEDQA_PIX_422, 8, 0 },
        { "nv24", SPEEDQA_PIX_444, 8, 0 }, { "p010", SPEEDQA_PIX_420, 10, 1 },
        { "p016", SPEEDQA_PIX_420, 16, 0 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name)) {
            raw->fmt = t[i].fmt;
            raw->layout = t[i].bpc ? SPEEDQA_LAYOUT_SEMI_PLANAR : SPEEDQA_LAYOUT_PLANAR;
            raw->msb_aligned = t[i].msb;
            *bpc = t[i].bpc;
            return 0;
        }
    cli_error("--pixel_format: '%s' is not one of 420, 422, 444, 400, nv12, nv16, nv24, p010, "
              "p016", s);
    return -1;
}

int cli_parse_backend(const char *s, SpeedqaBackend *out)
{
    static const struct { const char *name; SpeedqaBackend b; } t[] = {
        { "auto", SPEEDQA_BACKEND_AUTO }, { "cpu", SPEEDQA_BACKEND_CPU },
        { "cuda", SPEEDQA_BACKEND_CUDA }, { "hip", SPEEDQA_BACKEND_HIP },
        { "opencl", SPEEDQA_BACKEND_OPENCL },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name)) {
            *out = t[i].b;
            return 0;
        }
    cli_error("--backend: '%s' is not one of auto, cpu, cuda, hip, opencl", s);
    return -1;
}
