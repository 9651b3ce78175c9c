#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "config.h"
#include "null_gpu.h"
#include "runner.h"
#if SQ_HAVE_CUDA
#include "gpu/cuda/cuda.h"
#endif
#if SQ_HAVE_HIP
#include "gpu/hip/hip.h"
#endif
#if SQ_HAVE_OPENCL
#include "gpu/opencl/fns.h"
#endif

const char *runner_device_name;

const SqGpuFns *runner_gpu_fns(const char *name)
{
    if (!strcmp(name, "null"))
        return &sq_null_gpu_fns;
    if (!strcmp(name, "null-dma"))
        return &sq_null_dma_gpu_fns;
#if SQ_HAVE_CUDA
    if (!strcmp(name, "cuda"))
        return &sq_gpu_cuda_fns;
#endif
#if SQ_HAVE_HIP
    if (!strcmp(name, "hip"))
        return &sq_gpu_hip_fns;
#endif
#if SQ_HAVE_OPENCL
    if (!strcmp(name, "opencl"))
        return &sq_cl_fns;
#endif
    return NULL;
}

int runner_api_backend(const char *name)
{
    return !strcmp(name, "cuda") ? SPEEDQA_BACKEND_CUDA
         : !strcmp(name, "hip") ? SPEEDQA_BACKEND_HIP
         : !strcmp(name, "opencl") ? SPEEDQA_BACKEND_OPENCL : -1;
}

void runner_close(Runner *r)
{
    if (r->priv) {
        if (r->be)
            r->be->close(&r->priv);
        else
            sq_gpu_close(&r->priv);
    }
    for (int i = 0; i < r->nfeat; i++)
        sq_feature_close(&r->feat[i]);
    r->nfeat = 0;
}

int runner_open(Runner *r, const SqBackend *be, const SqGpuFns *fns, const SpeedqaFormat *fmt,
                const char *const *features, int n_threads, const SqAlloc *alloc, char *err,
                size_t errlen)
{
    static const SqAlloc plain = { 0 };
    memset(r, 0, sizeof(*r));
    r->be = be;
    r->fns = fns;
    const SqAlloc *a = alloc ? alloc : &plain;
    int ret = 0;
    for (int i = 0; features[i]; i++) {
        if ((ret = sq_feature_open(&r->feat[i], features[i], fmt, a, err, errlen)) < 0) {
            runner_close(r);
            return ret;
        }
        r->nfeat++;
        r->nscores += r->feat[i].nscores;
    }
    SqBackendParams *bp = &r->bp;
    bp->format = *fmt;
    sq_features_jobs(r->feat, r->nfeat, bp);
    bp->n_threads = n_threads;
    bp->device = -1;
    bp->device_name = fns ? runner_device_name : NULL;
    bp->cpu_mask = test_env_cpu_mask(~0u);
    bp->gpu_batch = test_env_gpu_batch();
    bp->force_soft_f64 = test_env_soft_f64();
    bp->alloc = *a;
    ret = be ? be->open(&r->priv, bp, err, errlen) : sq_gpu_open(&r->priv, bp, fns, err, errlen);
    if (ret < 0) {
        r->priv = NULL;
        runner_close(r);
    }
    return ret;
}

static int cap(Runner *r)
{
    return r->be ? r->be->capacity(r->priv) : sq_gpu_capacity(r->priv);
}

/* out: this run's first frame; base: frames received before this run. */
static int recv1(Runner *r, double *out, unsigned long long base, int block, char *err,
                 size_t errlen)
{
    SqRawResult raw;
    int ret = r->be ? r->be->receive(r->priv, &raw, block, err, errlen)
                    : sq_gpu_receive(r->priv, &raw, block, err, errlen);
    if (ret < 0)
        return ret;
    /* The library's checks, as speedqa_receive makes them. */
    if ((ret = sq_jobs_check_range(r->bp.jobs, r->bp.njobs, 1, &raw, r->bp.format.bpc,
                                   (unsigned)r->received, err, errlen)) < 0)
        return ret;
    double *v = out + (r->received - base) * (unsigned)r->nscores;
    for (int i = 0; i < r->nfeat; i++) {
        uint32_t undef;
        if (sq_feature_assemble(&r->feat[i], &raw, v, &undef) < 0) {
            snprintf(err, errlen, "frame %llu: feature %d has a non-finite score", r->received, i);
            return -EDOM;
        }
        v += r->feat[i].nscores;
    }
    r->received++;
    return 0;
}

int runner_run(Runner *r, const SpeedqaPicture *ref, const SpeedqaPicture *dis, int nframes,
               const int *new_seq, double *out, char *err, size_t errlen)
{
    int ret = 0;
    const unsigned long long base = r->received;
    for (int i = 0; i < nframes; i++) {
        while (r->sent - r->received >= (unsigned)cap(r))
            if ((ret = recv1(r, out, base, 1, err, errlen)) < 0)
                return ret;
        const int ns = i == 0 || (new_seq && new_seq[i]);
        const SpeedqaPicture *const pics[2] = { &ref[i], &dis[i] };
        ret = r->be ? r->be->send(r->priv, pics, ns, err, errlen)
                    : sq_gpu_send(r->priv, pics, ns, err, errlen);
        if (ret < 0)
            return ret;
        r->sent++;
        while (r->received < r->sent && (ret = recv1(r, out, base, 0, err, errlen)) == 0)
            ;
        if (ret < 0 && ret != -EAGAIN)
            return ret;
    }
    while (r->received < r->sent)
        if ((ret = recv1(r, out, base, 1, err, errlen)) < 0)
            return ret;
    return 0;
}
