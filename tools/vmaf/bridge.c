/*
 * The libvmaf session of one stream (bridge.h). Only libvmaf's public API:
 * its extractors for the features speedqa does not compute, the import of
 * speedqa's scores, its prediction and pooling, so that a model scores
 * exactly as libvmaf's own run of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge.h"

/* speedqa's score names one report orders (a job keeps at most 32 scores) */
#define MAX_IMPORTED 32

struct SqVmaf {
    VmafContext *ctx;
    VmafModel *model[SQ_MODEL_MAX];
    const SqModel *models;
    int nmodels;
    int no_prediction;
    unsigned subsample;
    enum VmafPixelFormat pix_fmt;
    unsigned bpc, w, h;
    SqVmafOrder order;          /* where speedqa's names go in the report */
    const char *scores[SQ_MODEL_MAX];
    char imported[MAX_IMPORTED][256];
    int imported_feat[MAX_IMPORTED];
    SqVmafFeed *feed;           /* with threads: vmaf_read_pictures beside the reading */
};

static enum VmafPixelFormat vmaf_fmt(SpeedqaPixelFormat f)
{
    switch (f) {
    case SPEEDQA_PIX_420: return VMAF_PIX_FMT_YUV420P;
    case SPEEDQA_PIX_422: return VMAF_PIX_FMT_YUV422P;
    case SPEEDQA_PIX_444: return VMAF_PIX_FMT_YUV444P;
    default: return VMAF_PIX_FMT_YUV400P;
    }
}

/* libvmaf's extractor for feature f, with the model's options. The same
 * extractor and options asked by two model features (vif scales, two
 * models) is registered once: seen holds the ones registered. */
static int use_feature(SqVmaf *v, const SqModel *m, const SqModelFeature *f,
                       char (*seen)[512], int *nseen, char *err, size_t len)
{
    char key[512];
    if (sq_model_feature_spec(f, key, sizeof key) < 0) {
        snprintf(err, len, "model %s: feature %s: options too long", m->path, f->name);
        return -1;
    }
    for (int i = 0; i < *nseen; i++)
        if (!strcmp(seen[i], key))
            return 0;
    VmafFeatureDictionary *d = NULL;
    for (int i = 0; i < f->nopts; i++)
        if (vmaf_feature_dictionary_set(&d, f->opts[i].key, f->opts[i].val)) {
            vmaf_feature_dictionary_free(&d);
            snprintf(err, len, "model %s: feature %s: libvmaf refuses option %s=%s", m->path,
                     f->name, f->opts[i].key, f->opts[i].val);
            return -1;
        }
    /* libvmaf owns the dictionary from here on, refused or not */
    if (vmaf_use_feature(v->ctx, f->extractor, d)) {
        snprintf(err, len, "model %s needs libvmaf's %s extractor (for %s), which this libvmaf "
                 "(%s) lacks or refuses with the model's options", m->path, f->extractor,
                 f->name, vmaf_version());
        return -1;
    }
    if (*nseen < SQ_MODEL_MAX * SQ_MODEL_MAX_FEATURES)
        snprintf(seen[(*nseen)++], sizeof seen[0], "%s", key);
    return 0;
}

static int load_models(SqVmaf *v, char *err, size_t len)
{
    char (*seen)[512] = calloc(SQ_MODEL_MAX * SQ_MODEL_MAX_FEATURES, sizeof *seen);
    int nseen = 0, r = 0;
    if (!seen) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    for (int i = 0; !r && i < v->nmodels; i++) {
        const SqModel *m = &v->models[i];
        VmafModelConfig mc = {
            .name = m->name,
            .flags = (m->enable_transform ? VMAF_MODEL_FLAG_ENABLE_TRANSFORM : 0) |
                     (m->disable_clip ? VMAF_MODEL_FLAG_DISABLE_CLIP : 0),
        };
        if (vmaf_model_load_from_path(&v->model[i], &mc, m->path)) {
            v->model[i] = NULL;
            snprintf(err, len, "libvmaf (%s) cannot load the model %s", vmaf_version(), m->path);
            r = -1;
        }
        for (int k = 0; !r && k < m->nfeatures; k++)
            if (!sq_model_native(&m->f[k]))
                r = use_feature(v, m, &m->f[k], seen, &nseen, err, len);
    }
    free(seen);
    return r;
}

/* --feature NAME=opt=val:opt=val for a libvmaf extractor */
static int use_extra(SqVmaf *v, const char *spec, char *err, size_t len)
{
    char buf[512], *opts;
    if ((size_t)snprintf(buf, sizeof buf, "%s", spec) >= sizeof buf) {
        snprintf(err, len, "--feature %.40s...: too long", spec);
        return -1;
    }
    if ((opts = strchr(buf, '=')) != NULL)
        *opts++ = '\0';
    VmafFeatureDictionary *d = NULL;
    for (char *save = NULL, *kv = opts ? strtok_r(opts, ":", &save) : NULL; kv;
         kv = strtok_r(NULL, ":", &save)) {
        char *val = strchr(kv, '=');
        if (!val || vmaf_feature_dictionary_set(&d, kv, (*val++ = '\0', val))) {
            vmaf_feature_dictionary_free(&d);
            snprintf(err, len, "--feature %s: option '%s' is not opt=value", spec, kv);
            return -1;
        }
    }
    if (vmaf_use_feature(v->ctx, buf, d)) {
        snprintf(err, len, "--feature %s: libvmaf (%s) refuses it", spec, vmaf_version());
        return -1;
    }
    return 0;
}

/* The extractors libvmaf's registry may hold (spec B.2); which of them a
 * given libvmaf has is asked of it. */
static const char *const vmaf_names[] = {
    "float_ms_ssim", "float_ssim", "ciede", "psnr", "psnr_hvs", "adm", "motion", "vif",
    "cambi", "float_adm", "float_vif", "float_motion", "float_ansnr", "float_psnr",
    "float_moment", "motion_v2",
};

int sq_vmaf_has_extractor(const char *name)
{
    VmafContext *ctx;
    const VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    if (!strncmp(name, "speed_", 6) || vmaf_init(&ctx, cfg))
        return 0; /* speedqa's own: never libvmaf's */
    const int ok = vmaf_use_feature(ctx, name, NULL) == 0;
    vmaf_close(ctx);
    return ok;
}

void sq_vmaf_extractors(char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof vmaf_names / sizeof vmaf_names[0]; i++)
        if (o < len && sq_vmaf_has_extractor(vmaf_names[i]))
            o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", vmaf_names[i]);
}

int sq_vmaf_open(SqVmaf **out, const SqVmafSetup *s, char *err, size_t len)
{
    *out = NULL;
    if (s->nmodels < 0 || s->nmodels > SQ_MODEL_MAX) {
        snprintf(err, len, "0 to %d models", SQ_MODEL_MAX);
        return -1;
    }
    SqVmaf *v = calloc(1, sizeof *v);
    if (!v) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    v->models = s->models;
    v->nmodels = s->nmodels;
    v->no_prediction = s->no_prediction;
    v->subsample = s->subsample ? s->subsample : 1;
    v->pix_fmt = vmaf_fmt(s->format.fmt);
    v->bpc = (unsigned)s->format.bpc;
    v->w = (unsigned)s->format.width;
    v->h = (unsigned)s->format.height;
    sq_vmaf_order_init(&v->order, s);
    for (int m = 0; m < v->nmodels; m++)
        v->scores[v->order.nscores++] = v->models[m].name;
    v->order.scores = v->scores;
    v->order.imported = v->imported;
    v->order.imported_feat = v->imported_feat;
    const VmafConfiguration cfg = {
        .log_level = VMAF_LOG_LEVEL_NONE,
        .n_threads = s->threads,
        .n_subsample = v->subsample,
    };
    if (vmaf_init(&v->ctx, cfg)) {
        snprintf(err, len, "libvmaf (%s) failed to start", vmaf_version());
        free(v);
        return -1;
    }
    int r = load_models(v, err, len);
    for (int i = 0; !r && i < s->n_features; i++)
        r = use_extra(v, s->features[i], err, len);
    if (!r && s->threads > 1 && sq_vmaf_feed_start(&v->feed, v->ctx) < 0) {
        snprintf(err, len, "cannot start a thread for libvmaf");
        r = -1;
    }
    if (r < 0) {
        sq_vmaf_close(&v);
        return -1;
    }
    *out = v;
    return 0;
}

static const char *fmt_name(enum VmafPixelFormat f)
{
    static const char *const n[] = { "?", "4:2:0", "4:2:2", "4:4:4", "4:0:0" };
    return (unsigned)f < 5 ? n[f] : "?";
}

static int refused(const SqVmaf *v, unsigned index, int e, char *err, size_t len)
{
    snprintf(err, len, "libvmaf (%s) refuses frame %u of these %ux%u %s %u-bit inputs for "
             "the model's features (error %d)", vmaf_version(), index, v->w, v->h,
             fmt_name(v->pix_fmt), v->bpc, e);
    return -1;
}

int sq_vmaf_send(SqVmaf *v, const SpeedqaPicture *ref, const SpeedqaPicture *dis,
                 unsigned index, char *err, size_t len)
{
    VmafPicture r, d;
    if (vmaf_picture_alloc(&r, v->pix_fmt, v->bpc, v->w, v->h)) {
        snprintf(err, len, "libvmaf takes no %ux%u %s %u-bit pictures", v->w, v->h,
                 fmt_name(v->pix_fmt), v->bpc);
        return -1;
    }
    if (vmaf_picture_alloc(&d, v->pix_fmt, v->bpc, v->w, v->h)) {
        vmaf_picture_unref(&r);
        snprintf(err, len, "out of memory for libvmaf's pictures");
        return -1;
    }
    sq_vmaf_copy_picture(&r, ref);
    sq_vmaf_copy_picture(&d, dis);
    const int e = v->feed ? sq_vmaf_feed_put(v->feed, &r, &d, index, &index)
                          : vmaf_read_pictures(v->ctx, &r, &d, index);
    if (e)
        return refused(v, index, e, err, len);
    return 0;
}

/* Every frame handed over is libvmaf's: the thread that fed them is done. */
static int fed(SqVmaf *v, char *err, size_t len)
{
    unsigned index = 0;
    const int e = sq_vmaf_feed_stop(&v->feed, &index);
    return e ? refused(v, index, e, err, len) : 0;
}

/* speedqa's output names are libvmaf's; a name without option suffix is
 * stored by libvmaf under the provided feature name (spec A.7/B.2). */
static const char *const provided[][2] = {
    { "speed_chroma_u", "Speed_chroma_feature_speed_chroma_u_score" },
    { "speed_chroma_v", "Speed_chroma_feature_speed_chroma_v_score" },
    { "speed_chroma_uv", "Speed_chroma_feature_speed_chroma_uv_score" },
    { "speed_temporal", "Speed_temporal_feature_speed_temporal_score" },
    { "integer_motion2", "VMAF_integer_feature_motion2_score" },
    { "integer_motion3", "VMAF_integer_feature_motion3_score" },
    { "integer_motion", "VMAF_integer_feature_motion_score" },
    { "cambi", "Cambi_feature_cambi_score" },
    { "integer_adm2", "VMAF_integer_feature_adm2_score" },
    { "integer_adm3", "VMAF_integer_feature_adm3_score" },
    { "integer_vif_scale0", "VMAF_integer_feature_vif_scale0_score" },
    { "integer_vif_scale1", "VMAF_integer_feature_vif_scale1_score" },
    { "integer_vif_scale2", "VMAF_integer_feature_vif_scale2_score" },
    { "integer_vif_scale3", "VMAF_integer_feature_vif_scale3_score" },
};

int sq_vmaf_import(SqVmaf *v, const char *name, int feature, double value, unsigned index,
                   char *err, size_t len)
{
    if (v->feed && fed(v, err, len) < 0)
        return -1;
    int seen = 0;
    for (int i = 0; i < v->order.nimported && !seen; i++)
        seen = !strcmp(v->imported[i], name);
    if (!seen && v->order.nimported < MAX_IMPORTED) {
        v->imported_feat[v->order.nimported] = feature;
        snprintf(v->imported[v->order.nimported++], sizeof v->imported[0], "%s", name);
    }
    const char *stored = name;
    for (size_t i = 0; i < sizeof provided / sizeof provided[0]; i++)
        if (!strcmp(name, provided[i][0]))
            stored = provided[i][1];
    if (vmaf_import_feature_score(v->ctx, stored, value, index)) {
        snprintf(err, len, "libvmaf refused speedqa's %s of frame %u", name, index);
        return -1;
    }
    return 0;
}

void sq_vmaf_close(SqVmaf **pv)
{
    SqVmaf *v = pv ? *pv : NULL;
    if (!v)
        return;
    unsigned index;
    sq_vmaf_feed_stop(&v->feed, &index); /* before the context its thread feeds */
    if (v->ctx)
        vmaf_close(v->ctx);
    for (int i = 0; i < SQ_MODEL_MAX; i++)
        if (v->model[i])
            vmaf_model_destroy(v->model[i]);
    free(v);
    *pv = NULL;
}

int sq_vmaf_finish(SqVmaf *v, unsigned nframes, const unsigned long long *frames,
                   size_t nreport, SqVmafReport *rep, char *err, size_t len)
{
    memset(rep, 0, sizeof *rep);
    if (v->feed && fed(v, err, len) < 0)
        return -1;
    if (!nframes) {
        snprintf(err, len, "no frames to score");
        return -1;
    }
    if (vmaf_read_pictures(v->ctx, NULL, NULL, 0)) {
        snprintf(err, len, "libvmaf (%s) failed to finish its features", vmaf_version());
        return -1;
    }
    for (unsigned i = 0; !v->no_prediction && i < nframes; i += v->subsample)
        for (int m = 0; m < v->nmodels; m++) {
            double s;
            if (vmaf_score_at_index(v->ctx, v->model[m], &s, i)) {
                snprintf(err, len, "libvmaf could not predict %s (%s) at frame %u", v->models[m].name,
                         v->models[m].path, i);
                return -1;
            }
        }
    return sq_vmaf_report_of(v->ctx, &v->order, nframes, frames, nreport, rep, err, len);
}
