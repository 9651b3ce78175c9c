/*
 * The native engine of a model run (engine.h): the job's speedqa context
 * computed every feature of the models; here each frame's scores are kept,
 * each model predicts from them (predict.c) and every column is pooled
 * (speedqa_pool), into the report libvmaf's session would give: the same
 * names in the same order (order.c), the same numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "predict.h"

#define MAX_NAMES 64 /* a job's speedqa scores (SQ_JOB_MAX_SCORES and more) */

struct SqNative {
    SqVmafSetup s;
    SqPredictor pred[SQ_MODEL_MAX];
    /* per model feature: the score name the job's context gives it */
    char look[SQ_MODEL_MAX][SQ_MODEL_MAX_FEATURES][256];
    int col[SQ_MODEL_MAX][SQ_MODEL_MAX_FEATURES];
    SqVmafOrder order;
    const char *scores[SQ_MODEL_MAX];
    char names[MAX_NAMES][256];
    int names_feat[MAX_NAMES];
    int n;                       /* scores per frame, from the first import */
    double *rows;                /* nrows x n, one row per imported frame */
    unsigned long long *frame;   /* nrows */
    size_t nrows, cap;
};

/* The printed name's stem of a model feature (libvmaf's alias table, spec
 * B.2): VMAF_integer_feature_adm3_score is integer_adm3, the cambi and
 * speed features drop their family prefix; options then add a suffix. */
/* The name speedqa gives model feature f: a context of f's extractor alone
 * with the model's options lists its names, and the one of f's stem (with
 * or without an option suffix) is it. Names follow from the options only,
 * but some options need a format they fit, so the job's is used. */
static int lookup_name(const SqVmafSetup *s, const SqModelFeature *f, char *out, char *err,
                       size_t len)
{
    char spec[400], stem[200];
    if (sq_model_feature_spec(f, spec, sizeof spec) < 0 ||
        sq_model_feature_alias(f->name, stem, sizeof stem)) {
        snprintf(err, len, "feature %s: speedqa does not name it", f->name);
        return -1;
    }
    const char *feats[2] = { spec, NULL };
    SpeedqaSettings st;
    speedqa_default_settings(&st);
    st.format = s->format;
    st.features = feats;
    st.backend = SPEEDQA_BACKEND_CPU;
    SpeedqaContext *ctx = NULL;
    if (speedqa_open(&ctx, &st) < 0) {
        snprintf(err, len, "feature %s: speedqa refuses %s for these inputs", f->name, spec);
        return -1;
    }
    const size_t sl = strlen(stem);
    int found = -1;
    for (int i = 0; found < 0 && i < speedqa_score_count(ctx); i++) {
        const char *nm = speedqa_score_name(ctx, i);
        if (!strncmp(nm, stem, sl) && (nm[sl] == '\0' || nm[sl] == '_'))
            found = snprintf(out, 256, "%s", nm) < 256 ? 0 : -1;
    }
    speedqa_close(&ctx);
    if (found < 0)
        snprintf(err, len, "feature %s: speedqa's %s gives no %s score", f->name, spec, stem);
    return found;
}

int sq_native_open(SqNative **out, const SqVmafSetup *s, char *err, size_t len)
{
    *out = NULL;
    if (s->nmodels < 0 || s->nmodels > SQ_MODEL_MAX || s->n_features) {
        snprintf(err, len, "the native engine takes 0 to %d models and no libvmaf feature",
                 SQ_MODEL_MAX);
        return -1;
    }
    SqNative *v = calloc(1, sizeof *v);
    if (!v) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    v->s = *s;
    v->s.subsample = s->subsample ? s->subsample : 1;
    sq_vmaf_order_init(&v->order, &v->s);
    for (int m = 0; m < s->nmodels && !s->no_prediction; m++)
        v->scores[v->order.nscores++] = s->models[m].name;
    v->order.scores = v->scores;
    v->order.imported = v->names;
    v->order.imported_feat = v->names_feat;
    int r = 0;
    for (int m = 0; !r && m < s->nmodels; m++) {
        const SqModel *md = &s->models[m];
        if (!s->no_prediction && (r = sq_predictor_load(&v->pred[m], md, err, len)) < 0)
            break;
        for (int k = 0; !r && k < md->nfeatures; k++)
            r = lookup_name(s, &md->f[k], v->look[m][k], err, len);
    }
    if (r < 0) {
        sq_native_close(&v);
        return -1;
    }
    *out = v;
    return 0;
}

int sq_native_import(SqNative *v, SpeedqaContext *ctx, unsigned long long frame,
                     const double *values, int n, char *err, size_t len)
{
    if (!v->rows) {
        if (n < 1 || n > MAX_NAMES) {
            snprintf(err, len, "%d scores a frame (1 to %d)", n, MAX_NAMES);
            return -1;
        }
        v->n = v->order.nimported = n;
        for (int k = 0; k < n; k++) {
            snprintf(v->names[k], sizeof v->names[0], "%s", speedqa_score_name(ctx, k));
            v->names_feat[k] = speedqa_score_feature(ctx, k);
        }
    }
    if (n != v->n) {
        snprintf(err, len, "frame %llu: %d scores, not %d", frame, n, v->n);
        return -1;
    }
    if (v->nrows == v->cap) {
        const size_t cap = v->cap ? 2 * v->cap : 256;
        double *r = realloc(v->rows, cap * (size_t)n * sizeof *r);
        if (r)
            v->rows = r;
        unsigned long long *f = r ? realloc(v->frame, cap * sizeof *f) : NULL;
        if (!f) {
            snprintf(err, len, "out of memory");
            return -1;
        }
        v->frame = f;
        v->cap = cap;
    }
    memcpy(v->rows + v->nrows * (size_t)n, values, (size_t)n * sizeof *values);
    v->frame[v->nrows++] = frame;
    return 0;
}

/* Each model feature's column among the imported scores. */
static int find_columns(SqNative *v, char *err, size_t len)
{
    for (int m = 0; m < v->s.nmodels; m++)
        for (int k = 0; k < v->s.models[m].nfeatures; k++) {
            v->col[m][k] = -1;
            for (int i = 0; i < v->n && v->col[m][k] < 0; i++)
                if (!strcmp(v->names[i], v->look[m][k]))
                    v->col[m][k] = i;
            if (v->col[m][k] < 0) {
                snprintf(err, len, "model %s: no %s among speedqa's scores",
                         v->s.models[m].path, v->look[m][k]);
                return -1;
            }
        }
    return 0;
}

/* Report column c: imported score src, or (src < 0) model -src-1's prediction. */
static void fill_column(const SqNative *v, SqVmafReport *rep, int c, int src, size_t nf)
{
    const size_t n = (size_t)rep->n;
    for (size_t i = 0; i < nf; i++) {
        const double *row = v->rows + i * (size_t)v->n;
        if (src >= 0) {
            rep->values[i * n + (size_t)c] = row[src];
            continue;
        }
        const int m = -src - 1;
        double x[SQ_MODEL_MAX_FEATURES];
        for (int k = 0; k < v->s.models[m].nfeatures; k++)
            x[k] = row[v->col[m][k]];
        rep->values[i * n + (size_t)c] = sq_predict(&v->pred[m], x);
    }
    speedqa_pool(rep->values + c, nf ? nf : 1, rep->n, &rep->pooled[c]);
}

int sq_native_finish(SqNative *v, unsigned nframes, const unsigned long long *frames,
                     size_t nreport, SqVmafReport *rep, char *err, size_t len)
{
    memset(rep, 0, sizeof *rep);
    /* pooling skips no report frame: the report's frames are the subsampled ones */
    int ok = nframes > 0 && nreport > 0 && v->nrows == nreport;
    for (size_t i = 0; ok && i < nreport; i++)
        ok = frames[i] == v->frame[i] && frames[i] == (unsigned long long)i * v->s.subsample;
    if (!ok) {
        snprintf(err, len, "speedqa's scores do not cover the %zu frames to report", nreport);
        return -1;
    }
    if (!v->s.no_prediction && find_columns(v, err, len) < 0)
        return -1;
    rep->n = v->n + v->order.nscores;
    rep->names = calloc((size_t)rep->n, sizeof *rep->names);
    rep->values = malloc(nreport * (size_t)rep->n * sizeof *rep->values);
    rep->pooled = calloc((size_t)rep->n, sizeof *rep->pooled);
    if (!rep->names || !rep->values || !rep->pooled) {
        sq_vmaf_report_free(rep);
        snprintf(err, len, "out of memory");
        return -1;
    }
    for (int k = 0; k < v->n; k++)
        memcpy(rep->names[k], v->names[k], sizeof rep->names[0]);
    for (int m = 0; m < v->order.nscores; m++)
        snprintf(rep->names[v->n + m], sizeof rep->names[0], "%s", v->scores[m]);
    sq_vmaf_place_imported(rep, &v->order);
    for (int c = 0; c < rep->n; c++) {
        int src = 0, found = 0;
        for (int k = 0; k < v->n && !found; k++)
            if (!strcmp(rep->names[c], v->names[k]))
                src = k, found = 1;
        for (int m = 0; m < v->order.nscores && !found; m++)
            if (!strcmp(rep->names[c], v->scores[m]))
                src = -m - 1, found = 1;
        if (!found) {
            snprintf(err, len, "report column %s has no source", rep->names[c]);
            sq_vmaf_report_free(rep);
            return -1;
        }
        fill_column(v, rep, c, src, nreport);
    }
    return 0;
}

void sq_native_close(SqNative **pv)
{
    SqNative *v = pv ? *pv : NULL;
    if (!v)
        return;
    for (int m = 0; m < SQ_MODEL_MAX; m++)
        sq_predictor_free(&v->pred[m]);
    free(v->rows);
    free(v->frame);
    free(v);
    *pv = NULL;
}
