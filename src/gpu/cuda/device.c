/*
 * CUDA plumbing for the generic GPU pipeline: the driver API through
 * dlopen, the primary context of the chosen device, the embedded fatbin,
 * two streams and an event pool. Every driver call goes through CU(): the
 * first failure's call text, driver message and file:line are kept.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpu/cuda/cuda.h"
#include "gpu/cuda/cuda_api.h"

struct SqGpuDev {
    SqCudaApi api;
    SqAlloc alloc;
    CUdevice dev;
    CUcontext ctx;
    int retained;
    CUmodule mod;
    CUfunction fn[SQ_K_COUNT];
    CUstream st[SQ_GPU_NSTREAMS];
    CUevent *ev;
    int nev;
    char msg[320];
};

static const char *const kernel_names[SQ_K_COUNT] = {
#define SQ_KERNEL(name, args) "sq_k_" #name,
#include "gpu/kernels.def"
#undef SQ_KERNEL
};

static int cu_error(SqGpuDev *d, CUresult r, const char *call, const char *file, int line)
{
    if (!d->msg[0]) {
        const char *name = NULL, *str = NULL;
        if (d->api.cuGetErrorName)
            d->api.cuGetErrorName(r, &name);
        if (d->api.cuGetErrorString)
            d->api.cuGetErrorString(r, &str);
        snprintf(d->msg, sizeof(d->msg), "%s failed: %s (%s) at %s:%d", call,
                 name ? name : "unknown error", str ? str : "?", file, line);
    }
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
        return -ENOMEM;
    if (r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_INVALID_DEVICE || r == CUDA_ERROR_NOT_INITIALIZED)
        return -ENODEV;
    return -EIO;
}

#define CU(d, call)                                                          \
    do {                                                                     \
        CUresult r_ = (d)->api.call;                                         \
        if (r_ != CUDA_SUCCESS) {                                            \
            ret = cu_error(d, r_, #call, __FILE__, __LINE__);                \
            goto fail;                                                       \
        }                                                                    \
    } while (0)

static const char *cuda_error(const SqGpuDev *d)
{
    return d ? d->msg : "";
}

static void cuda_close(SqGpuDev **pd)
{
    SqGpuDev *d = *pd;
    if (!d)
        return;
    if (d->ctx && d->api.cuCtxPushCurrent(d->ctx) == CUDA_SUCCESS) {
        for (int i = 0; d->ev && i < d->nev; i++)
            if (d->ev[i])
                d->api.cuEventDestroy(d->ev[i]);
        for (int s = 0; s < SQ_GPU_NSTREAMS; s++)
            if (d->st[s])
                d->api.cuStreamDestroy(d->st[s]);
        if (d->mod)
            d->api.cuModuleUnload(d->mod);
        CUcontext dummy;
        d->api.cuCtxPopCurrent(&dummy);
    }
    if (d->retained)
        d->api.cuDevicePrimaryCtxRelease(d->dev);
    sq_cuda_unload(&d->api);
    const SqAlloc a = d->alloc;
    sq_free(&a, d->ev);
    sq_free(&a, d);
    *pd = NULL;
}

/* Index of the device to use: by name substring, else by index (-1: first). */
static int pick_device(SqGpuDev *d, int device, const char *want, int *ret)
{
    int n = 0;
    char name[256];
    if ((*ret = d->api.cuDeviceGetCount(&n)) != CUDA_SUCCESS) {
        *ret = cu_error(d, *ret, "cuDeviceGetCount(&n)", __FILE__, __LINE__);
        return -1;
    }
    for (int i = 0; want && i < n; i++) {
        CUdevice dv;
        if (d->api.cuDeviceGet(&dv, i) == CUDA_SUCCESS &&
            d->api.cuDeviceGetName(name, (int)sizeof(name), dv) == CUDA_SUCCESS &&
            strcasestr(name, want))
            return i;
    }
    if (want)
        snprintf(d->msg, sizeof(d->msg), "no CUDA device named like '%s' (%d found)", want, n);
    else if (n < 1 || device >= n)
        snprintf(d->msg, sizeof(d->msg), "CUDA device %d does not exist (%d found)", device, n);
    else
        return device < 0 ? 0 : device;
    *ret = -ENODEV;
    return -1;
}

int sq_cuda_open_lib(SqGpuDev **out, const char *libname, int device, const char *want,
                     int nevents, const SqAlloc *a, char *err, size_t errlen)
{
    int ret, pushed = 0, major = 0, minor = 0, index;
    char name[256] = "";
    *out = NULL;
    SqGpuDev *d = sq_calloc(a, 1, sizeof(*d));
    if (!d) {
        snprintf(err, errlen, "out of memory for the CUDA device");
        return -ENOMEM;
    }
    d->alloc = *a;
    if ((ret = sq_cuda_load(&d->api, libname, err, errlen)) < 0) {
        sq_free(a, d);
        return ret;
    }
    CU(d, cuInit(0));
    if ((index = pick_device(d, device, want, &ret)) < 0)
        goto fail;
    CU(d, cuDeviceGet(&d->dev, index));
    CU(d, cuDeviceGetName(name, (int)sizeof(name), d->dev));
    CU(d, cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev));
    CU(d, cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev));
    if (major < 8) {
        snprintf(d->msg, sizeof(d->msg),
                 "CUDA device %s has compute capability %d.%d; the kernels need 8.0 or newer",
                 name, major, minor);
        ret = -ENODEV;
        goto fail;
    }
    CU(d, cuDevicePrimaryCtxRetain(&d->ctx, d->dev));
    d->retained = 1;
    CU(d, cuCtxPushCurrent(d->ctx));
    pushed = 1;
    CU(d, cuModuleLoadData(&d->mod, sq_cuda_fatbin));
    for (int k = 0; k < SQ_K_COUNT; k++)
        CU(d, cuModuleGetFunction(&d->fn[k], d->mod, kernel_names[k]));
    /* The copy stream is a blocking stream: later work the caller puts on
     * the legacy default stream waits for our reads of its device pictures. */
    CU(d, cuStreamCreate(&d->st[SQ_GPU_STREAM_COPY], 0));
    CU(d, cuStreamCreate(&d->st[SQ_GPU_STREAM_COMPUTE], CU_STREAM_NON_BLOCKING));
    if (!(d->ev = sq_calloc(a, (size_t)nevents, sizeof(*d->ev)))) {
        snprintf(d->msg, sizeof(d->msg), "out of memory for CUDA events");
        ret = -ENOMEM;
        goto fail;
    }
    d->nev = nevents;
    for (int i = 0; i < nevents; i++)
        CU(d, cuEventCreate(&d->ev[i], CU_EVENT_DEFAULT));
    CUcontext popped;
    CU(d, cuCtxPopCurrent(&popped));
    *out = d;
    return 0;
fail:
    snprintf(err, errlen, "%s", d->msg);
    if (pushed) {
        CUcontext dummy;
        d->api.cuCtxPopCurrent(&dummy);
    }
    cuda_close(&d);
    return ret;
}

static int cuda_open(SqGpuDev **out, int device, int nevents, const SqAlloc *a, char *err,
                     size_t errlen)
{
    return sq_cuda_open_lib(out, NULL, device, NULL, nevents, a, err, errlen);
}

static int cuda_open_named(SqGpuDev **out, const char *name, int nevents, const SqAlloc *a,
                           char *err, size_t errlen)
{
    return sq_cuda_open_lib(out, NULL, -1, name, nevents, a, err, errlen);
}

/* "<index>: <name> (compute X.Y)" per device; 0 without driver or device. */
static int cuda_list_devices(char *buf, size_t len)
{
    SqCudaApi api;
    char err[256], name[256];
    int n = 0;
    size_t used = 0;
    if (buf && len)
        buf[0] = '\0';
    if (sq_cuda_load(&api, NULL, err, sizeof(err)) < 0)
        return 0;
    if (api.cuInit(0) != CUDA_SUCCESS || api.cuDeviceGetCount(&n) != CUDA_SUCCESS)
        n = 0;
    for (int i = 0; i < n; i++) {
        CUdevice dv;
        int major = 0, minor = 0;
        if (api.cuDeviceGet(&dv, i) != CUDA_SUCCESS ||
            api.cuDeviceGetName(name, (int)sizeof(name), dv) != CUDA_SUCCESS)
            snprintf(name, sizeof(name), "unknown");
        api.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dv);
        api.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dv);
        if (buf && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%d: %s (compute %d.%d%s)\n", i, name,
                                     major, minor, major < 8 ? ", unsupported" : "");
    }
    sq_cuda_unload(&api);
    return n;
}

static int cuda_enter(SqGpuDev *d)
{
    int ret;
    CU(d, cuCtxPushCurrent(d->ctx));
    return 0;
fail:
    return ret;
}

static void cuda_leave(SqGpuDev *d)
{
    CUcontext dummy;
    d->api.cuCtxPopCurrent(&dummy);
}

static int cuda_alloc(SqGpuDev *d, size_t bytes, SqGpuAddr *out)
{
    int ret;
    CUdeviceptr p = 0;
    CU(d, cuMemAlloc(&p, bytes));
    *out = p;
    return 0;
fail:
    return ret;
}

static void cuda_free(SqGpuDev *d, SqGpuAddr p)
{
    d->api.cuMemFree((CUdeviceptr)p);
}

static int cuda_host_alloc(SqGpuDev *d, size_t bytes, void **out)
{
    int ret;
    CU(d, cuMemHostAlloc(out, bytes, 0));
    return 0;
fail:
    return ret;
}

static void cuda_host_free(SqGpuDev *d, void *p)
{
    d->api.cuMemFreeHost(p);
}

static int cuda_upload(SqGpuDev *d, int s, SqGpuAddr dst, const void *src, size_t n)
{
    int ret;
    CU(d, cuMemcpyHtoDAsync((CUdeviceptr)dst, src, n, d->st[s]));
    return 0;
fail:
    return ret;
}

static int cuda_download(SqGpuDev *d, int s, void *dst, SqGpuAddr src, size_t n)
{
    int ret;
    CU(d, cuMemcpyDtoHAsync(dst, (CUdeviceptr)src, n, d->st[s]));
    return 0;
fail:
    return ret;
}

static int cuda_copy2d(SqGpuDev *d, int s, SqGpuAddr dst, size_t dpitch, SqGpuAddr src,
                       size_t spitch, size_t width, size_t rows)
{
    int ret;
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof(c));
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = (CUdeviceptr)src;
    c.srcPitch = spitch;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = (CUdeviceptr)dst;
    c.dstPitch = dpitch;
    c.WidthInBytes = width;
    c.Height = rows;
    CU(d, cuMemcpy2DAsync(&c, d->st[s]));
    return 0;
fail:
    return ret;
}

static int cuda_launch(SqGpuDev *d, int s, int k, const unsigned grid[3], unsigned block,
                       SqGpuAddr arena, const SqKArgs *args)
{
    int ret;
    CUdeviceptr base = (CUdeviceptr)arena;
    void *params[2] = { &base, (void *)args };
    if (!grid[0] || !grid[1] || !grid[2])
        return 0;
    CU(d, cuLaunchKernel(d->fn[k], grid[0], grid[1], grid[2], block, 1, 1, 0, d->st[s], params, NULL));
    return 0;
fail:
    return ret;
}

static int cuda_event_record(SqGpuDev *d, int e, int s)
{
    int ret;
    CU(d, cuEventRecord(d->ev[e], d->st[s]));
    return 0;
fail:
    return ret;
}

static int cuda_event_query(SqGpuDev *d, int e)
{
    CUresult r = d->api.cuEventQuery(d->ev[e]);
    if (r == CUDA_SUCCESS)
        return 1;
    if (r == CUDA_ERROR_NOT_READY)
        return 0;
    return cu_error(d, r, "cuEventQuery(ev)", __FILE__, __LINE__);
}

static int cuda_event_sync(SqGpuDev *d, int e)
{
    int ret;
    CU(d, cuEventSynchronize(d->ev[e]));
    return 0;
fail:
    return ret;
}

static int cuda_stream_wait(SqGpuDev *d, int s, int e)
{
    int ret;
    CU(d, cuStreamWaitEvent(d->st[s], d->ev[e], 0));
    return 0;
fail:
    return ret;
}

static int cuda_event_elapsed(SqGpuDev *d, int from, int to, float *ms)
{
    int ret;
    CU(d, cuEventElapsedTime(ms, d->ev[from], d->ev[to]));
    return 0;
fail:
    return ret;
}

const SqGpuFns sq_gpu_cuda_fns = {
    .name = "cuda",
    .open = cuda_open,
    .open_named = cuda_open_named,
    .close = cuda_close,
    .error = cuda_error,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .upload = cuda_upload,
    .download = cuda_download,
    .copy2d = cuda_copy2d,
    .launch = cuda_launch,
    .event_record = cuda_event_record,
    .event_query = cuda_event_query,
    .event_sync = cuda_event_sync,
    .stream_wait = cuda_stream_wait,
    .event_elapsed = cuda_event_elapsed,
    .enter = cuda_enter,
    .leave = cuda_leave,
    .device_memory = SPEEDQA_MEM_CUDA,
};

SQ_GPU_BACKEND(sq_backend_cuda, "cuda", sq_gpu_cuda_fns, cuda_list_devices)
