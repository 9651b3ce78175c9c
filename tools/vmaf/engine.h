/*
 * The two engines of a model run (hooks.c picks one per job): libvmaf's
 * session (bridge.h: libvmaf computes the features speedqa does not, then
 * predicts and pools) and speedqa's own (native.c: every feature speedqa's,
 * the prediction predict.c's, the pooling speedqa_pool). Both take the same
 * setup and give the same report: the names the vmaf tool prints, in its
 * order, each frame's values and the pooled ones.
 */
#ifndef SQ_TOOLS_VMAF_ENGINE_H
#define SQ_TOOLS_VMAF_ENGINE_H

#include <stddef.h>

#include "model.h"
#include "speedqa/speedqa.h"

typedef struct SqVmafSetup {
    const SqModel *models;  /* nmodels, loaded (sq_model_load_spec) */
    int nmodels;
    SpeedqaFormat format;   /* of both inputs */
    unsigned threads;       /* libvmaf's threads (0: its calling thread) */
    unsigned subsample;     /* --subsample (1: every frame) */
    int no_prediction;      /* -n: features only */
    const char *const *native;   /* the features of the job's speedqa context (NULL-terminated,
                                    or NULL): the models' speedqa features, then --feature's */
    const char *const *user;     /* --feature's speedqa features (NULL-terminated, or NULL) */
    const int *user_before;      /* per libvmaf one (features[k]): how many of user came before it */
    const char *const *features; /* libvmaf extractors asked for by --feature
                                    ("name=opt=val:opt=val"), n_features of them */
    int n_features;
} SqVmafSetup;

/* The report of one stream: libvmaf's collector (its printed names, its
 * order: every feature it computed or was given, then each model's score). */
typedef struct SqVmafReport {
    int n;
    char (*names)[256];
    double *values;         /* nframes x n, row-major */
    SpeedqaPooled *pooled;  /* n */
} SqVmafReport;

void sq_vmaf_report_free(SqVmafReport *rep);

/* The extractor instances a report can list: the models' features and
 * --feature's, each extractor with one set of options once. */
#define SQ_VMAF_MAX_INST (SQ_MODEL_MAX * SQ_MODEL_MAX_FEATURES + SPEEDQA_MAX_FEATURES + 1)

/* order.c: where speedqa's imported names go among libvmaf's, so that the
 * report lists them where the vmaf tool, computing all, would. */
typedef struct SqVmafOrder {
    /* the extractor instances as the vmaf tool registers them (each model's
     * features in the models' order, then --feature's), once each: the
     * speedqa feature each is (its index in SqVmafSetup.native), or -1 for
     * libvmaf's (one entry per extractor) */
    int inst[SQ_VMAF_MAX_INST];
    const char *inst_ext[SQ_VMAF_MAX_INST]; /* libvmaf's: its extractor, if one of the models' */
    int ninst;
    const char *const *scores; /* the models' score names ("vmaf"), written last */
    int nscores;
    char (*imported)[256];    /* speedqa's names, as imported */
    int *imported_feat;       /* the speedqa feature of each (speedqa_score_feature) */
    int nimported;
} SqVmafOrder;

/* o's instances for setup s (sq_vmaf_order_init; the rest is the engine's). */
void sq_vmaf_order_init(SqVmafOrder *o, const SqVmafSetup *s);

/* Reorders rep's names (a collector's order: features in first-import
 * order, then the model scores) as the vmaf tool prints them. */
void sq_vmaf_place_imported(SqVmafReport *rep, const SqVmafOrder *o);

/* native.c: the native engine of one stream. Its features are computed by
 * the job's speedqa context and imported at the end; the setup's models
 * must have every feature native (hooks.c checks). */
typedef struct SqNative SqNative;
int sq_native_open(SqNative **v, const SqVmafSetup *s, char *err, size_t len);
/* One frame's n scores, named as the context names them (first call). */
int sq_native_import(SqNative *v, SpeedqaContext *ctx, unsigned long long frame,
                     const double *values, int n, char *err, size_t len);
int sq_native_finish(SqNative *v, unsigned nframes, const unsigned long long *frames,
                     size_t nreport, SqVmafReport *rep, char *err, size_t len);
void sq_native_close(SqNative **v);

#endif
