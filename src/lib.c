#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/log.h"
#include "core/pool.h"
#include "lib_priv.h"

void speedqa_default_settings(SpeedqaSettings *s)
{
    memset(s, 0, sizeof(*s));
    s->n_threads = 1;
    s->backend = SPEEDQA_BACKEND_CPU;
    s->device = -1;
    s->cpu_mask = ~0u;
    s->log_level = SPEEDQA_LOG_WARNING;
}

static int check_format(const SpeedqaSettings *s, const SpeedqaFormat *f)
{
    if (f->width < 1 || f->height < 1 || f->width > 65536 || f->height > 65536) {
        sq_log(s, SPEEDQA_LOG_ERROR, "size %dx%d is outside 1..65536", f->width, f->height);
        return SPEEDQA_ERR(EINVAL);
    }
    if ((unsigned)f->fmt > SPEEDQA_PIX_444) {
        sq_log(s, SPEEDQA_LOG_ERROR, "pixel format %d is unknown", (int)f->fmt);
        return SPEEDQA_ERR(EINVAL);
    }
    if (f->bpc < 8 || f->bpc > 16) {
        sq_log(s, SPEEDQA_LOG_ERROR, "bit depth %d is outside 8..16", f->bpc);
        return SPEEDQA_ERR(EINVAL);
    }
    return 0;
}

/* Zero now, so that a later version can give these bytes a meaning. */
static int check_reserved(const SpeedqaSettings *s, const uint8_t *r, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (r[i]) {
            sq_log(s, SPEEDQA_LOG_ERROR, "reserved %s byte %zu is %u, not 0", what, i,
                   (unsigned)r[i]);
            return SPEEDQA_ERR(EINVAL);
        }
    return 0;
}

/* Everything about the settings that does not need the features: -EINVAL with one log line. */
static int check_settings(const SpeedqaSettings *s)
{
    int ret;
    if ((ret = check_format(s, &s->format)) < 0)
        return ret;
    if ((unsigned)s->backend > SPEEDQA_BACKEND_OPENCL) {
        sq_log(s, SPEEDQA_LOG_ERROR, "backend %d is unknown", (int)s->backend);
        return SPEEDQA_ERR(EINVAL);
    }
    if (s->n_threads < 0 || s->n_threads > SPEEDQA_MAX_THREADS) {
        sq_log(s, SPEEDQA_LOG_ERROR, "n_threads %d is outside 0..%d", s->n_threads,
               SPEEDQA_MAX_THREADS);
        return SPEEDQA_ERR(EINVAL);
    }
    if (s->n_distorted < 0 || s->n_distorted > SPEEDQA_MAX_DISTORTED) {
        sq_log(s, SPEEDQA_LOG_ERROR, "n_distorted %d is outside 0..%d", s->n_distorted,
               SPEEDQA_MAX_DISTORTED);
        return SPEEDQA_ERR(EINVAL);
    }
    if ((unsigned)s->cuda.keep_device > 1) {
        sq_log(s, SPEEDQA_LOG_ERROR, "cuda.keep_device %d is not 0 or 1", s->cuda.keep_device);
        return SPEEDQA_ERR(EINVAL);
    }
    if (s->gpu_batch < 0 || s->gpu_batch > SQ_MAX_GPU_BATCH) {
        sq_log(s, SPEEDQA_LOG_ERROR, "gpu_batch %d is outside 0..%d", s->gpu_batch,
               SQ_MAX_GPU_BATCH);
        return SPEEDQA_ERR(EINVAL);
    }
    if ((unsigned)s->opencl.soft_f64 > 1) {
        sq_log(s, SPEEDQA_LOG_ERROR, "opencl.soft_f64 %d is not 0 or 1", s->opencl.soft_f64);
        return SPEEDQA_ERR(EINVAL);
    }
    if ((ret = check_reserved(s, s->reserved, sizeof(s->reserved), "settings")) < 0 ||
        (ret = check_reserved(s, s->cuda.reserved, sizeof(s->cuda.reserved), "cuda settings")) < 0)
        return ret;
    return check_reserved(s, s->opencl.reserved, sizeof(s->opencl.reserved), "opencl settings");
}

static const SqBackend *const backends[] = {
    [SPEEDQA_BACKEND_CPU] = &sq_backend_cpu,
    [SPEEDQA_BACKEND_CUDA] = &sq_backend_cuda,
    [SPEEDQA_BACKEND_HIP] = &sq_backend_hip,
    [SPEEDQA_BACKEND_OPENCL] = &sq_backend_opencl,
};

/* AUTO tries the GPU backends in this order and falls back to the CPU. */
static int open_backend(SpeedqaContext *c, const SqBackendParams *bp)
{
    static const SpeedqaBackend auto_order[] = { SPEEDQA_BACKEND_CUDA, SPEEDQA_BACKEND_HIP,
                                                 SPEEDQA_BACKEND_OPENCL, SPEEDQA_BACKEND_CPU };
    char err[400];
    int ret;
    if (c->s.backend != SPEEDQA_BACKEND_AUTO) {
        c->be = backends[c->s.backend];
        if ((ret = c->be->open(&c->be_priv, bp, err, sizeof(err))) < 0)
            sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s backend: %s", c->be->name, err);
        return ret;
    }
    /* AUTO wants a GPU: an OpenCL CPU device (PoCL) is no gain over our CPU backend. */
    SqBackendParams gp = *bp;
    if (gp.device < 0 && !(gp.device_name && gp.device_name[0]))
        gp.device = SQ_DEVICE_GPU_ONLY;
    for (size_t i = 0; i < sizeof(auto_order) / sizeof(auto_order[0]); i++) {
        c->be = backends[auto_order[i]];
        const SqBackendParams *use = c->be == &sq_backend_cpu ? bp : &gp;
        if ((ret = c->be->open(&c->be_priv, use, err, sizeof(err))) == 0)
            return 0;
        if (ret == -ENOMEM || c->be == &sq_backend_cpu) {
            sq_log(&c->s, SPEEDQA_LOG_ERROR, "%s backend: %s", c->be->name, err);
            return ret;
        }
        sq_log(&c->s, SPEEDQA_LOG_INFO, "auto: %s backend unavailable: %s", c->be->name, err);
    }
    return -ENODEV;
}

/* The integer job kinds (motion's SAD, ADM, CAMBI, VIF) run where a backend says it can:
 * AUTO takes the CPU for them, another backend is refused with one line. */
static int integer_kinds(SpeedqaContext *c, const SpeedqaSettings *s, const SqBackendParams *bp)
{
    for (int j = 0; j < bp->njobs; j++) {
        const int k = bp->jobs[j].kind;
        if (k == SQ_JOB_SPEED)
            continue;
        const char *what = k == SQ_JOB_SAD ? "motion" : k == SQ_JOB_ADM ? "adm"
                           : k == SQ_JOB_CAMBI ? "cambi" : "vif";
        if (c->s.backend == SPEEDQA_BACKEND_AUTO) {
            sq_log(s, SPEEDQA_LOG_INFO, "auto: %s runs on the cpu backend", what);
            c->s.backend = SPEEDQA_BACKEND_CPU;
        }
        const SqBackend *b = backends[c->s.backend];
        const int can = k == SQ_JOB_SAD ? b->sad : k == SQ_JOB_ADM ? b->adm
                        : k == SQ_JOB_CAMBI ? b->cambi : b->vif;
        if (!can) {
            sq_log(s, SPEEDQA_LOG_ERROR, "%s backend: %s runs on the cpu backend only", b->name,
                   what);
            return SPEEDQA_ERR(ENOSYS);
        }
    }
    return 0;
}

int speedqa_open(SpeedqaContext **out, const SpeedqaSettings *s)
{
    char err[400];
    int ret;
    if (!out)
        return SPEEDQA_ERR(EINVAL);
    *out = NULL;
    if (!s)
        return SPEEDQA_ERR(EINVAL);
    if ((ret = check_settings(s)) < 0)
        return ret;
    const SqAlloc alloc = { s->alloc, s->free, s->alloc_opaque };
    if (!s->alloc != !s->free) {
        sq_log(s, SPEEDQA_LOG_ERROR, "alloc and free must be set together");
        return SPEEDQA_ERR(EINVAL);
    }
    SpeedqaContext *c = sq_calloc(&alloc, 1, sizeof(*c));
    if (!c) {
        sq_log(s, SPEEDQA_LOG_ERROR, "out of memory");
        return SPEEDQA_ERR(ENOMEM);
    }
    c->s = *s;
    c->s.features = NULL;
    const char *const *feats = s->features ? s->features : sq_features_default();
    for (int i = 0; feats[i]; i++) {
        if (c->nfeat == SPEEDQA_MAX_FEATURES) {
            sq_log(s, SPEEDQA_LOG_ERROR, "more than %d features", SPEEDQA_MAX_FEATURES);
            ret = SPEEDQA_ERR(EINVAL);
            goto fail;
        }
        SqFeature *f = &c->feat[c->nfeat];
        if ((ret = sq_feature_open(f, feats[i], &s->format, &alloc, err, sizeof(err))) < 0) {
            sq_log(s, SPEEDQA_LOG_ERROR, "%s", err);
            goto fail;
        }
        c->nfeat++;
        int nadm = 0, nvif = 0;
        for (int j = 0; j < c->nfeat; j++) {
            nadm += c->feat[j].spec.kind == SQ_FEATURE_ADM;
            nvif += c->feat[j].spec.kind == SQ_FEATURE_VIF;
        }
        if (nadm > SQ_MAX_ADM_JOBS || nvif > SQ_MAX_VIF_JOBS) {
            sq_log(s, SPEEDQA_LOG_ERROR, "at most %d %s features per context",
                   nadm > SQ_MAX_ADM_JOBS ? SQ_MAX_ADM_JOBS : SQ_MAX_VIF_JOBS,
                   nadm > SQ_MAX_ADM_JOBS ? "adm" : "vif");
            ret = SPEEDQA_ERR(EINVAL);
            goto fail;
        }
        for (int k = 0; k < f->nscores; k++) {
            char name[320];
            sq_feature_score_name(f, k, name, sizeof(name));
            for (int j = 0; j < c->nscores; j++)
                if (!strcmp(c->names[j], name)) {
                    sq_log(s, SPEEDQA_LOG_ERROR, "feature '%s' is requested twice", feats[i]);
                    ret = SPEEDQA_ERR(EEXIST);
                    goto fail;
                }
            c->name_feat[c->nscores] = c->nfeat - 1;
            memcpy(c->names[c->nscores++], name, sizeof(name));
        }
    }
    if (!c->nfeat) {
        sq_log(s, SPEEDQA_LOG_ERROR, "no feature requested");
        ret = SPEEDQA_ERR(EINVAL);
        goto fail;
    }
    SqBackendParams bp = { 0 };
    bp.format = s->format;
    sq_features_jobs(c->feat, c->nfeat, &bp);
    c->ndis = s->n_distorted > 1 ? s->n_distorted : 1;
    sq_jobs_ladder(&bp, c->ndis);
    c->njobs = bp.njobs;
    if (c->ndis > 1 && c->s.backend == SPEEDQA_BACKEND_AUTO) {
        sq_log(s, SPEEDQA_LOG_INFO, "auto: a ladder runs on the cpu backend");
        c->s.backend = SPEEDQA_BACKEND_CPU;
    }
    if (c->ndis > 1 && !backends[c->s.backend]->ladder) {
        sq_log(s, SPEEDQA_LOG_ERROR, "%s backend: ladders (n_distorted > 1) run on the cpu "
               "backend only", backends[c->s.backend]->name);
        ret = SPEEDQA_ERR(ENOSYS);
        goto fail;
    }
    if ((ret = integer_kinds(c, s, &bp)) < 0)
        goto fail;
    memcpy(c->jobs, bp.jobs, sizeof(c->jobs));
    c->look_ahead = sq_features_look_ahead(c->feat, c->nfeat);
    bp.n_threads = s->n_threads ? s->n_threads : sq_auto_threads();
    bp.device = s->device;
    bp.device_name = s->device_name;
    bp.cpu_mask = s->cpu_mask;
    bp.gpu_batch = s->gpu_batch;
    bp.force_soft_f64 = s->opencl.soft_f64;
    bp.settings = &c->s;
    bp.alloc = alloc;
    if ((ret = open_backend(c, &bp)) < 0)
        goto fail;
    c->ring_len = (unsigned)c->be->capacity(c->be_priv);
    if (!(c->seq_ring = sq_calloc(&alloc, c->ring_len, sizeof(*c->seq_ring)))) {
        sq_log(s, SPEEDQA_LOG_ERROR, "out of memory");
        ret = SPEEDQA_ERR(ENOMEM);
        goto fail;
    }
    c->new_seq = 1;
    *out = c;
    return 0;
fail:
    speedqa_close(&c);
    return ret;
}

int speedqa_score_count(const SpeedqaContext *c)
{
    return c ? c->nscores : 0;
}

int speedqa_rows_read(const SpeedqaContext *c, int plane, uint8_t *mark, int rows)
{
    int w, h;
    if (!c || !mark || plane < 0 || plane > 2)
        return SPEEDQA_ERR(EINVAL);
    sq_plane_size(&c->s.format, plane, &w, &h);
    if (rows != h) {
        sq_log(&c->s, SPEEDQA_LOG_ERROR, "rows_read: plane %d has %d rows, not %d", plane, h,
               rows);
        return SPEEDQA_ERR(EINVAL);
    }
    memset(mark, 0, (size_t)rows);
    const SqAlloc alloc = { c->s.alloc, c->s.free, c->s.alloc_opaque };
    const int ret = sq_features_rows_read(c->feat, c->nfeat, plane, mark, &alloc);
    if (ret < 0)
        return ret;
    int n = 0;
    for (int y = 0; y < rows; y++)
        n += mark[y] != 0;
    return n;
}

const char *speedqa_score_name(const SpeedqaContext *c, int i)
{
    return c && i >= 0 && i < c->nscores ? c->names[i] : NULL;
}

int speedqa_score_feature(const SpeedqaContext *c, int i)
{
    return c && i >= 0 && i < c->nscores ? c->name_feat[i] : SPEEDQA_ERR(EINVAL);
}

const char *speedqa_backend_name(const SpeedqaContext *c)
{
    return c ? c->be->name : NULL;
}

int speedqa_list_devices(SpeedqaBackend backend, char *buf, size_t len)
{
    if (buf && len)
        buf[0] = '\0';
    if (backend == SPEEDQA_BACKEND_AUTO || (unsigned)backend > SPEEDQA_BACKEND_OPENCL)
        return SPEEDQA_ERR(EINVAL);
    const SqBackend *be = backends[backend];
    if (!be->list_devices)
        return SPEEDQA_ERR(ENOSYS);
    return be->list_devices(buf, len);
}

int speedqa_picture_alloc(SpeedqaContext *ctx, SpeedqaPicture *pic)
{
    if (!ctx || !pic)
        return SPEEDQA_ERR(EINVAL);
    memset(pic, 0, sizeof(*pic));
    if (!ctx->be_priv)
        return SPEEDQA_ERR(EINVAL);
    if (!ctx->pics) {
        const SqAlloc alloc = { ctx->s.alloc, ctx->s.free, ctx->s.alloc_opaque };
        const int r = sq_picpool_new(&ctx->pics, &ctx->s.format, ctx->be->pic_mem, ctx->be_priv,
                                     &alloc);
        if (r < 0)
            return r;
    }
    const int r = sq_picpool_get(ctx->pics, pic);
    if (r < 0)
        sq_log(&ctx->s, SPEEDQA_LOG_ERROR, "speedqa_picture_alloc: no memory for a picture");
    return r;
}

int speedqa_cuda_host_register(SpeedqaContext *ctx, const void *data, size_t size)
{
    if (!ctx || !ctx->be_priv || !data != !size)
        return SPEEDQA_ERR(EINVAL);
    return ctx->be->host_register ? ctx->be->host_register(ctx->be_priv, data, size)
                                  : SPEEDQA_ERR(ENOTSUP);
}

int speedqa_cuda_host_unregister(SpeedqaContext *ctx, const void *data)
{
    if (!ctx || !ctx->be_priv || !data)
        return SPEEDQA_ERR(EINVAL);
    return ctx->be->host_unregister ? ctx->be->host_unregister(ctx->be_priv, data)
                                    : SPEEDQA_ERR(ENOTSUP);
}

int speedqa_picture_ref(const SpeedqaPicture *pic)
{
    return sq_picture_addref(pic);
}

void speedqa_picture_unref(SpeedqaPicture *pic)
{
    if (!pic)
        return;
    if (pic->release)
        pic->release(pic->release_opaque, pic->data[0]);
    memset(pic, 0, sizeof(*pic));
}

void speedqa_close(SpeedqaContext **pc)
{
    if (!pc || !*pc)
        return;
    SpeedqaContext *c = *pc;
    if (c->be && c->be_priv)
        c->be->close(&c->be_priv);
    sq_picpool_close(&c->pics); /* after the backend: it gave every picture it held back */
    for (int i = 0; i < c->nfeat; i++)
        sq_feature_close(&c->feat[i]);
    const SqAlloc alloc = { c->s.alloc, c->s.free, c->s.alloc_opaque };
    sq_free(&alloc, c->seq_ring);
    sq_free(&alloc, c);
    *pc = NULL;
}
