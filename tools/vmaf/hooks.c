/* --model inside a scoring job (hooks.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "hooks.h"
#include "engine.h"
#include "model.h"
#ifdef SQ_HAVE_VMAF
#include "bridge.h"
#endif

/* Whether f is one of list[0..n) by the library's rule (cli_same_feature):
 * one name with the same options, however they are spelt. */
static int repeats(const char **list, int n, const char *f)
{
    for (int j = 0; j < n; j++)
        if (cli_same_feature(list[j], f))
            return 1;
    return 0;
}

int sq_model_job_features(const char *const *user, const SqModel *models, int n_models,
                          const char **out, char (*buf)[400], int max)
{
    int n = 0;
    for (int m = 0; m < n_models; m++)
        for (int k = 0; k < models[m].nfeatures; k++) {
            const SqModelFeature *f = &models[m].f[k];
            char spec[400];
            if (!sq_model_native(f))
                continue;
            if (sq_model_feature_spec(f, spec, sizeof spec) < 0) {
                cli_error("--model: %s: feature %s: options too long", models[m].path, f->name);
                return -1;
            }
            if (repeats(out, n, spec))
                continue;
            if (n == max) {
                cli_error("--model: the models need more than %d speedqa features", max);
                return -1;
            }
            snprintf(buf[n], sizeof buf[0], "%s", spec);
            out[n] = buf[n];
            n++;
        }
    for (int i = 0; user && user[i]; i++) {
        if (repeats(out, n, user[i]))
            continue;
        if (n == max) {
            cli_error("--feature with --model: at most %d speedqa features in all", max);
            return -1;
        }
        out[n++] = user[i];
    }
    out[n] = NULL;
    return n;
}

struct SqModelRun {
#ifdef SQ_HAVE_VMAF
    SqVmaf *v;          /* libvmaf's engine, or */
#endif
    SqNative *nat;      /* speedqa's own */
    const SqModel *models;
    int n_models;
    SqVmafReport rep;
    const char **names;
    unsigned long long *frames;
};

/* The engine of a job: speedqa's own when it computes every feature of
 * every model and no libvmaf --feature is asked, else libvmaf's (model.h,
 * sq_model_engine). 1 native, 0 libvmaf, or an exit code after one line. */
static int pick_engine(const CliSettings *cfg, const SqModel *models, int n_models)
{
    const int want = sq_model_engine();
    if (want < 0) {
        cli_error("SPEEDQA_MODEL_ENGINE: auto, native or libvmaf");
        return SQ_EXIT_USAGE;
    }
    const SqModel *mm = NULL;
    const SqModelFeature *miss = NULL;
    for (int m = 0; m < n_models && !miss; m++)
        for (int k = 0; k < models[m].nfeatures && !miss; k++)
            if (!sq_model_native(&models[m].f[k]))
                miss = &models[m].f[k], mm = &models[m];
    const int all = !miss && !cfg->n_vmaf_features;
#ifdef SQ_HAVE_VMAF
    if (want == SQ_ENGINE_LIBVMAF || (want == SQ_ENGINE_AUTO && !all))
        return 0;
#else
    if (want == SQ_ENGINE_LIBVMAF) {
        /* asked for by name: running the native engine instead would
         * answer a different question than the one asked */
        cli_error("SPEEDQA_MODEL_ENGINE=libvmaf: this build has no libvmaf (rebuild with "
                  "libvmaf >= 3.0 found by pkg-config)");
        return SQ_EXIT_USAGE;
    }
#endif
    if (all)
        return 1;
    char why[600];
    if (miss)
        sq_model_why_not_native(miss, why, sizeof why);
    if (!miss)
        cli_error("--feature %s is libvmaf's: speedqa's own model engine cannot take it",
                  cfg->vmaf_features[0]);
    else
        cli_error("--model: model %s: %s%s", mm->path, why,
                  want == SQ_ENGINE_NATIVE ? " (SPEEDQA_MODEL_ENGINE=native)" : "");
    return SQ_EXIT_USAGE;
}

int sq_model_run_open(SqModelRun **out, const CliSettings *cfg, const SqModel *models,
                      int n_models, const char *const *speedqa, const SpeedqaFormat *f,
                      int threads)
{
    char err[1000];
    *out = NULL;
    const int native = pick_engine(cfg, models, n_models);
    if (native != 0 && native != 1)
        return native;
#ifdef __GLIBC__
    /* libvmaf allocates two pictures a frame and frees them when its
     * extractors are done; glibc would hand such large blocks back to the
     * kernel and fault them in again every frame (1080p, 72 frames: 57k
     * minor faults against 37k with these; vmaf_preallocate_pictures would
     * block for good on an extractor that keeps a picture) */
    if (!native) {
        mallopt(M_MMAP_THRESHOLD, 64 << 20);
        mallopt(M_TRIM_THRESHOLD, 512 << 20);
    }
#endif
    SqModelRun *r = calloc(1, sizeof *r);
    if (!r) {
        cli_error("out of memory");
        return SQ_EXIT_INTERNAL;
    }
    r->models = models;
    r->n_models = cfg->no_prediction ? 0 : n_models;
    const SqVmafSetup s = {
        .models = models,
        .nmodels = n_models,
        .format = *f,
        .threads = threads > 0 ? (unsigned)threads : 0,
        .subsample = (unsigned)cfg->subsample,
        .no_prediction = cfg->no_prediction,
        .native = speedqa,
        .user = cfg->features,
        .user_before = cfg->vmaf_features_at,
        .features = cfg->vmaf_features,
        .n_features = cfg->n_vmaf_features,
    };
#ifdef SQ_HAVE_VMAF
    const int e = native ? sq_native_open(&r->nat, &s, err, sizeof err)
                         : sq_vmaf_open(&r->v, &s, err, sizeof err);
#else
    const int e = sq_native_open(&r->nat, &s, err, sizeof err);
#endif
    if (e < 0) {
        cli_error("%s%s", strncmp(err, "--feature", 9) ? "--model: " : "", err);
        free(r);
        return SQ_EXIT_USAGE;
    }
    *out = r;
    return 0;
}

int sq_model_run_pictures(const SqModelRun *r)
{
#ifdef SQ_HAVE_VMAF
    return r && r->v;
#else
    (void)r;
    return 0;
#endif
}

int sq_model_run_send(SqModelRun *r, const SpeedqaPicture *ref, const SpeedqaPicture *dis,
                      long long index)
{
#ifdef SQ_HAVE_VMAF
    char err[1000];
    if (r->v && sq_vmaf_send(r->v, ref, dis, (unsigned)index, err, sizeof err) < 0) {
        cli_error("--model: %s", err);
        return SQ_EXIT_INPUT;
    }
#else
    (void)r, (void)ref, (void)dis, (void)index;
#endif
    return 0;
}

int sq_model_run_import(SqModelRun *r, SpeedqaContext *ctx, unsigned long long frame,
                        const double *values, int n)
{
    char err[1000];
    if (r->nat) {
        if (sq_native_import(r->nat, ctx, frame, values, n, err, sizeof err) < 0) {
            cli_error("--model: %s", err);
            return SQ_EXIT_INTERNAL;
        }
        return 0;
    }
#ifdef SQ_HAVE_VMAF
    for (int k = 0; k < n; k++)
        if (sq_vmaf_import(r->v, speedqa_score_name(ctx, k), speedqa_score_feature(ctx, k),
                           values[k], (unsigned)frame, err, sizeof err) < 0) {
            cli_error("--model: %s", err);
            return SQ_EXIT_INTERNAL;
        }
#endif
    return 0;
}

int sq_model_run_report(SqModelRun *r, long long sent, long long subsample, SqModelReport *rep)
{
    char err[1000];
    const size_t nf = (size_t)((sent + subsample - 1) / subsample);
    if (!(r->frames = malloc((nf ? nf : 1) * sizeof *r->frames))) {
        cli_error("out of memory");
        return SQ_EXIT_INTERNAL;
    }
    for (size_t i = 0; i < nf; i++)
        r->frames[i] = (unsigned long long)i * (unsigned long long)subsample;
#ifdef SQ_HAVE_VMAF
    const int e = r->nat ? sq_native_finish(r->nat, (unsigned)sent, r->frames, nf, &r->rep, err,
                                            sizeof err)
                         : sq_vmaf_finish(r->v, (unsigned)sent, r->frames, nf, &r->rep, err,
                                          sizeof err);
#else
    const int e = sq_native_finish(r->nat, (unsigned)sent, r->frames, nf, &r->rep, err,
                                   sizeof err);
#endif
    if (e < 0) {
        cli_error("--model: %s", err);
        return SQ_EXIT_INPUT;
    }
    if (!(r->names = malloc(((size_t)r->rep.n + 1) * sizeof *r->names))) {
        cli_error("out of memory");
        return SQ_EXIT_INTERNAL;
    }
    for (int k = 0; k < r->rep.n; k++) {
        r->names[k] = r->rep.names[k];
        /* a model named as a column sq_model_add could not foresee (aim, a scale) */
        for (int j = 0; j < k; j++)
            if (!strcmp(r->names[j], r->names[k])) {
                cli_error("--model: the report has two columns named '%s' (a model named as a "
                          "feature's column): give the model another :name=...", r->names[k]);
                return SQ_EXIT_USAGE;
            }
    }
    /* a model that predicts no number (NaN, an infinity its clip lets through)
     * has no score to give: libvmaf prints nan */
    for (int m = 0; m < r->n_models; m++)
        for (int k = 0; k < r->rep.n; k++)
            if (!strcmp(r->names[k], r->models[m].name))
                for (size_t i = 0; i < nf; i++) {
                    const double y = r->rep.values[i * (size_t)r->rep.n + (size_t)k];
                    if (!isfinite(y)) {
                        cli_error("--model: model %s predicts %g at frame %llu: no score to give",
                                  r->models[m].path, y, r->frames[i]);
                        return SQ_EXIT_INPUT;
                    }
                }
    *rep = (SqModelReport){ r->rep.n, r->names, r->rep.values, r->rep.pooled, nf, r->frames };
    return 0;
}

void sq_model_run_close(SqModelRun **pr)
{
    SqModelRun *r = pr ? *pr : NULL;
    if (!r)
        return;
#ifdef SQ_HAVE_VMAF
    sq_vmaf_close(&r->v);
#endif
    sq_native_close(&r->nat);
    sq_vmaf_report_free(&r->rep);
    free(r->names);
    free(r->frames);
    free(r);
    *pr = NULL;
}
