/*
 * speedqa's prediction and pooling (tools/vmaf/predict.c, speedqa_pool)
 * against libvmaf's on random feature vectors: the values are imported
 * into a libvmaf context without extractors under the model's feature
 * names, libvmaf predicts each frame (vmaf_score_at_index) and pools
 * (vmaf_score_pooled); ours predicts from the same numbers. Every value
 * must match at %.17g. The model's features take no options (the test
 * writes such files), so libvmaf looks each up under its plain name.
 *
 *   predict_ref MODEL.json FRAMES SEED [enable_transform] [disable_clip]
 *
 * Values: zeros (the chroma correction's case), the usual ranges, and
 * far outside them (the clip, the transform's rectification). Exit 0 and
 * "N frames equal" on stdout, 1 with the first difference on stderr (or
 * when one side loads the file and the other refuses it), 4 when both
 * refuse it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvmaf/libvmaf.h>

#include "model.h"
#include "predict.h"

static uint64_t rng_state;

static double uniform(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* a feature value of one of the kinds above */
static double draw(void)
{
    const double u = uniform(), v = uniform();
    if (u < 0.2)
        return 0.0;
    if (u < 0.5)
        return v;
    if (u < 0.8)
        return 40.0 * v;
    if (u < 0.9)
        return -200.0 + 1200.0 * v;
    return 1e-17 * v; /* a value the rescale rounds back to its intercept */
}

static int same(const char *what, unsigned i, double a, double b)
{
    char x[40], y[40];
    snprintf(x, sizeof x, "%.17g", a);
    snprintf(y, sizeof y, "%.17g", b);
    if (strcmp(x, y)) {
        fprintf(stderr, "%s of frame %u: libvmaf %s, speedqa %s\n", what, i, x, y);
        return 0;
    }
    return 1;
}

static int check(VmafContext *ctx, VmafModel *vm, const SqPredictor *p, const SqModel *m,
                 unsigned n)
{
    double *ours = malloc(n * sizeof *ours);
    int ok = ours != NULL;
    for (unsigned i = 0; ok && i < n; i++) {
        double f[SQ_MODEL_MAX_FEATURES], s;
        for (int k = 0; k < m->nfeatures; k++) {
            f[k] = draw();
            if (vmaf_import_feature_score(ctx, m->f[k].name, f[k], i)) {
                fprintf(stderr, "libvmaf refused %s\n", m->f[k].name);
                ok = 0;
            }
        }
        ours[i] = sq_predict(p, f);
        if (ok && vmaf_score_at_index(ctx, vm, &s, i)) {
            fprintf(stderr, "libvmaf did not predict frame %u\n", i);
            ok = 0;
        }
        ok = ok && same("vmaf", i, s, ours[i]);
    }
    SpeedqaPooled pool;
    if (ok && speedqa_pool(ours, n, 1, &pool) < 0)
        ok = 0;
    const enum VmafPoolingMethod how[4] = { VMAF_POOL_METHOD_MIN, VMAF_POOL_METHOD_MAX,
        VMAF_POOL_METHOD_MEAN, VMAF_POOL_METHOD_HARMONIC_MEAN };
    const double mine[4] = { pool.min, pool.max, pool.mean, pool.harmonic_mean };
    for (int k = 0; ok && k < 4; k++) {
        double s;
        ok = !vmaf_score_pooled(ctx, vm, how[k], &s, 0, n - 1) && same("pooled", (unsigned)k, s,
                                                                         mine[k]);
    }
    free(ours);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: predict_ref MODEL.json FRAMES SEED [enable_transform] "
                "[disable_clip]\n");
        return 2;
    }
    static SqModel m;
    char err[1200];
    const int loaded = sq_model_load(&m, argv[1], err, sizeof err) == 0;
    snprintf(m.path, sizeof m.path, "%s", argv[1]);
    for (int i = 4; i < argc; i++) {
        m.enable_transform |= !strcmp(argv[i], "enable_transform");
        m.disable_clip |= !strcmp(argv[i], "disable_clip");
    }
    const unsigned n = (unsigned)strtoul(argv[2], NULL, 10);
    rng_state = strtoull(argv[3], NULL, 10);
    SqPredictor p;
    memset(&p, 0, sizeof p);
    const int ours = n > 0 && loaded && sq_predictor_load(&p, &m, err, sizeof err) == 0;
    VmafContext *ctx = NULL;
    VmafModel *vm = NULL;
    VmafModelConfig mc = { .name = "vmaf",
                           .flags = (m.enable_transform ? VMAF_MODEL_FLAG_ENABLE_TRANSFORM : 0) |
                                    (m.disable_clip ? VMAF_MODEL_FLAG_DISABLE_CLIP : 0) };
    const VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    const int theirs = !vmaf_init(&ctx, cfg) && !vmaf_model_load_from_path(&vm, &mc, argv[1]);
    int ok = ours && theirs;
    if (!ours && !theirs)
        printf("both refuse it (%s)\n", n ? err : "FRAMES: at least 1");
    else if (!ok)
        fprintf(stderr, "%s\n", ours ? "libvmaf refuses it, speedqa loads it" : err);
    ok = ok && check(ctx, vm, &p, &m, n);
    if (ok)
        printf("%u frames equal\n", n);
    if (vm)
        vmaf_model_destroy(vm);
    if (ctx)
        vmaf_close(ctx);
    sq_predictor_free(&p);
    return ok ? 0 : !ours && !theirs ? 4 : 1;
}
