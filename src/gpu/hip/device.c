/*
 * HIP plumbing for the generic GPU pipeline, shaped like the CUDA one:
 * runtime through dlopen, the embedded code object bundle, two streams and
 * an event pool. Every runtime call goes through HIP(): the first
 * failure's call text, runtime message and file:line are kept.
 * Host-memory pictures only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpu/hip/hip.h"
#include "gpu/hip/hip_api.h"

extern const unsigned char sq_hip_code[];

struct SqGpuDev {
    SqHipApi api;
    SqAlloc alloc;
    int dev, prev_dev;
    hipModule_t mod;
    hipFunction_t fn[SQ_K_COUNT];
    hipStream_t st[SQ_GPU_NSTREAMS];
    hipEvent_t *ev;
    int nev;
    char msg[320];
};

static const char *const kernel_names[SQ_K_COUNT] = {
#define SQ_KERNEL(name, args) "sq_k_" #name,
#include "gpu/kernels.def"
#undef SQ_KERNEL
};

static int hip_error(SqGpuDev *d, hipError_t r, const char *call, const char *file, int line)
{
    if (!d->msg[0]) {
        const char *name = d->api.hipGetErrorName ? d->api.hipGetErrorName(r) : NULL;
        const char *str = d->api.hipGetErrorString ? d->api.hipGetErrorString(r) : NULL;
        snprintf(d->msg, sizeof(d->msg), "%s failed: %s (%s) at %s:%d", call,
                 name ? name : "unknown error", str ? str : "?", file, line);
    }
    if (r == hipErrorOutOfMemory)
        return -ENOMEM;
    if (r == hipErrorNoDevice || r == hipErrorInvalidDevice || r == hipErrorNotInitialized)
        return -ENODEV;
    return -EIO;
}

#define HIP(d, call)                                                         \
    do {                                                                     \
        hipError_t r_ = (d)->api.call;                                       \
        if (r_ != hipSuccess) {                                              \
            ret = hip_error(d, r_, #call, __FILE__, __LINE__);               \
            goto fail;                                                       \
        }                                                                    \
    } while (0)

static const char *hip_errmsg(const SqGpuDev *d)
{
    return d ? d->msg : "";
}

static void hip_close(SqGpuDev **pd)
{
    SqGpuDev *d = *pd;
    if (!d)
        return;
    if (d->api.lib && d->api.hipSetDevice(d->dev) == hipSuccess) {
        for (int i = 0; d->ev && i < d->nev; i++)
            if (d->ev[i])
                d->api.hipEventDestroy(d->ev[i]);
        for (int s = 0; s < SQ_GPU_NSTREAMS; s++)
            if (d->st[s])
                d->api.hipStreamDestroy(d->st[s]);
        if (d->mod)
            d->api.hipModuleUnload(d->mod);
    }
    sq_hip_unload(&d->api);
    const SqAlloc a = d->alloc;
    sq_free(&a, d->ev);
    sq_free(&a, d);
    *pd = NULL;
}

static int hip_open_impl(SqGpuDev **out, int device, const char *want, int nevents,
                         const SqAlloc *a, char *err, size_t errlen)
{
    int ret, n = 0;
    char name[256] = "";
    *out = NULL;
    SqGpuDev *d = sq_calloc(a, 1, sizeof(*d));
    if (!d) {
        snprintf(err, errlen, "out of memory for the HIP device");
        return -ENOMEM;
    }
    d->alloc = *a;
    if ((ret = sq_hip_load(&d->api, err, errlen)) < 0) {
        sq_free(a, d);
        return ret;
    }
    HIP(d, hipInit(0));
    HIP(d, hipGetDeviceCount(&n));
    d->dev = -1;
    for (int i = 0; want && i < n && d->dev < 0; i++)
        if (d->api.hipDeviceGetName(name, (int)sizeof(name), i) == hipSuccess && strcasestr(name, want))
            d->dev = i;
    if (!want && n > 0 && device < n)
        d->dev = device < 0 ? 0 : device;
    if (d->dev < 0) {
        if (want)
            snprintf(d->msg, sizeof(d->msg), "no HIP device named like '%s' (%d found)", want, n);
        else
            snprintf(d->msg, sizeof(d->msg), "HIP device %d does not exist (%d found)", device, n);
        ret = -ENODEV;
        goto fail;
    }
    HIP(d, hipGetDevice(&d->prev_dev));
    HIP(d, hipSetDevice(d->dev));
    HIP(d, hipModuleLoadData(&d->mod, sq_hip_code));
    for (int k = 0; k < SQ_K_COUNT; k++)
        HIP(d, hipModuleGetFunction(&d->fn[k], d->mod, kernel_names[k]));
    HIP(d, hipStreamCreateWithFlags(&d->st[SQ_GPU_STREAM_COPY], 0));
    HIP(d, hipStreamCreateWithFlags(&d->st[SQ_GPU_STREAM_COMPUTE], hipStreamNonBlocking));
    if (!(d->ev = sq_calloc(a, (size_t)nevents, sizeof(*d->ev)))) {
        snprintf(d->msg, sizeof(d->msg), "out of memory for HIP events");
        ret = -ENOMEM;
        goto fail;
    }
    d->nev = nevents;
    for (int i = 0; i < nevents; i++)
        HIP(d, hipEventCreate(&d->ev[i]));
    d->api.hipSetDevice(d->prev_dev);
    *out = d;
    return 0;
fail:
    snprintf(err, errlen, "%s", d->msg);
    hip_close(&d);
    return ret;
}

static int hip_open(SqGpuDev **out, int device, int nevents, const SqAlloc *a, char *err,
                    size_t errlen)
{
    return hip_open_impl(out, device, NULL, nevents, a, err, errlen);
}

static int hip_open_named(SqGpuDev **out, const char *name, int nevents, const SqAlloc *a,
                          char *err, size_t errlen)
{
    return hip_open_impl(out, -1, name, nevents, a, err, errlen);
}

/* "<index>: <name> (hip)" per device; 0 without runtime or device. */
static int hip_list_devices(char *buf, size_t len)
{
    SqHipApi api;
    char err[256], name[256];
    int n = 0;
    size_t used = 0;
    if (buf && len)
        buf[0] = '\0';
    if (sq_hip_load(&api, err, sizeof(err)) < 0)
        return 0;
    if (api.hipInit(0) != hipSuccess || api.hipGetDeviceCount(&n) != hipSuccess)
        n = 0;
    for (int i = 0; i < n; i++) {
        if (api.hipDeviceGetName(name, (int)sizeof(name), i) != hipSuccess)
            snprintf(name, sizeof(name), "unknown");
        if (buf && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%d: %s (hip)\n", i, name);
    }
    sq_hip_unload(&api);
    return n;
}

static int hip_enter(SqGpuDev *d)
{
    int ret;
    HIP(d, hipGetDevice(&d->prev_dev));
    HIP(d, hipSetDevice(d->dev));
    return 0;
fail:
    return ret;
}

static void hip_leave(SqGpuDev *d)
{
    d->api.hipSetDevice(d->prev_dev);
}

static int hip_alloc(SqGpuDev *d, size_t bytes, SqGpuAddr *out)
{
    int ret;
    void *p = NULL;
    HIP(d, hipMalloc(&p, bytes));
    *out = (SqGpuAddr)(uintptr_t)p;
    return 0;
fail:
    return ret;
}

static void hip_free(SqGpuDev *d, SqGpuAddr p)
{
    d->api.hipFree((void *)(uintptr_t)p);
}

static int hip_host_alloc(SqGpuDev *d, size_t bytes, void **out)
{
    int ret;
    HIP(d, hipHostMalloc(out, bytes, 0));
    return 0;
fail:
    return ret;
}

static void hip_host_free(SqGpuDev *d, void *p)
{
    d->api.hipHostFree(p);
}

static int hip_upload(SqGpuDev *d, int s, SqGpuAddr dst, const void *src, size_t n)
{
    int ret;
    HIP(d, hipMemcpyHtoDAsync((void *)(uintptr_t)dst, (void *)src, n, d->st[s]));
    return 0;
fail:
    return ret;
}

static int hip_download(SqGpuDev *d, int s, void *dst, SqGpuAddr src, size_t n)
{
    int ret;
    HIP(d, hipMemcpyDtoHAsync(dst, (void *)(uintptr_t)src, n, d->st[s]));
    return 0;
fail:
    return ret;
}

static int hip_launch(SqGpuDev *d, int s, int k, const unsigned grid[3], unsigned block,
                      SqGpuAddr arena, const SqKArgs *args)
{
    int ret;
    void *base = (void *)(uintptr_t)arena;
    void *params[2] = { &base, (void *)args };
    if (!grid[0] || !grid[1] || !grid[2])
        return 0;
    HIP(d, hipModuleLaunchKernel(d->fn[k], grid[0], grid[1], grid[2], block, 1, 1, 0, d->st[s],
                                 params, NULL));
    return 0;
fail:
    return ret;
}

static int hip_event_record(SqGpuDev *d, int e, int s)
{
    int ret;
    HIP(d, hipEventRecord(d->ev[e], d->st[s]));
    return 0;
fail:
    return ret;
}

static int hip_event_query(SqGpuDev *d, int e)
{
    hipError_t r = d->api.hipEventQuery(d->ev[e]);
    if (r == hipSuccess)
        return 1;
    if (r == hipErrorNotReady)
        return 0;
    return hip_error(d, r, "hipEventQuery(ev)", __FILE__, __LINE__);
}

static int hip_event_sync(SqGpuDev *d, int e)
{
    int ret;
    HIP(d, hipEventSynchronize(d->ev[e]));
    return 0;
fail:
    return ret;
}

static int hip_stream_wait(SqGpuDev *d, int s, int e)
{
    int ret;
    HIP(d, hipStreamWaitEvent(d->st[s], d->ev[e], 0));
    return 0;
fail:
    return ret;
}

static int hip_event_elapsed(SqGpuDev *d, int from, int to, float *ms)
{
    int ret;
    HIP(d, hipEventElapsedTime(ms, d->ev[from], d->ev[to]));
    return 0;
fail:
    return ret;
}

const SqGpuFns sq_gpu_hip_fns = {
    .name = "hip",
    .open = hip_open,
    .open_named = hip_open_named,
    .close = hip_close,
    .error = hip_errmsg,
    .alloc = hip_alloc,
    .free = hip_free,
    .host_alloc = hip_host_alloc,
    .host_free = hip_host_free,
    .upload = hip_upload,
    .download = hip_download,
    .copy2d = NULL,
    .launch = hip_launch,
    .event_record = hip_event_record,
    .event_query = hip_event_query,
    .event_sync = hip_event_sync,
    .stream_wait = hip_stream_wait,
    .event_elapsed = hip_event_elapsed,
    .enter = hip_enter,
    .leave = hip_leave,
    .device_memory = -1,
};

SQ_GPU_BACKEND(sq_backend_hip, "hip", sq_gpu_hip_fns, hip_list_devices)
