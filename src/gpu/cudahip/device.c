/*
 * CUDA and HIP plumbing for the generic GPU pipeline: the runtime through
 * dlopen, the chosen device (CUDA: its primary context), the embedded code
 * (fatbin / code object bundle), two streams and an event pool. Every
 * runtime call goes through RT(): the first failure's call text, runtime
 * message and file:line are kept.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#if defined(SQ_GPU_RT_CUDA)
#include <sys/mman.h>
#endif

#include "gpu/cudahip/rt.h"

struct SqGpuDev {
    SqRtApi api;
    SqAlloc alloc;
#if defined(SQ_GPU_RT_CUDA)
    CUdevice dev;
    CUcontext ctx;
    int retained;
#else
    int dev, prev_dev;
#endif
    rtModule mod;
    rtFunction fn[SQ_K_COUNT];
    rtStream st[SQ_GPU_NSTREAMS];
    rtEvent *ev;
    int nev;
    int keep;                /* close leaves the context and the runtime to the process */
#if defined(SQ_GPU_RT_CUDA)
    struct { void *p; size_t len; } blk[8]; /* pinned host blocks that are registered huge pages */
#endif
    char msg[320];
};

static const char *const kernel_names[SQ_K_COUNT] = {
#define SQ_KERNEL(name, args) "sq_k_" #name,
#include "gpu/kernels.def"
#undef SQ_KERNEL
};

static int rt_error(SqGpuDev *d, rtResult r, const char *call, const char *file, int line)
{
    if (!d->msg[0]) {
        const char *name = NULL, *str = NULL;
#if defined(SQ_GPU_RT_CUDA)
        if (d->api.cuGetErrorName)
            d->api.cuGetErrorName(r, &name);
        if (d->api.cuGetErrorString)
            d->api.cuGetErrorString(r, &str);
#else
        name = d->api.hipGetErrorName ? d->api.hipGetErrorName(r) : NULL;
        str = d->api.hipGetErrorString ? d->api.hipGetErrorString(r) : NULL;
#endif
        snprintf(d->msg, sizeof(d->msg), "%s failed: %s (%s) at %s:%d", call,
                 name ? name : "unknown error", str ? str : "?", file, line);
    }
    if (r == RT_ERROR_OUT_OF_MEMORY)
        return -ENOMEM;
    if (r == RT_ERROR_NO_DEVICE || r == RT_ERROR_INVALID_DEVICE || r == RT_ERROR_NOT_INITIALIZED)
        return -ENODEV;
    return -EIO;
}

static int rt_check(SqGpuDev *d, rtResult r, const char *call, const char *file, int line)
{
    return r == RT_SUCCESS ? 0 : rt_error(d, r, call, file, line);
}

/* RT(d, call): 0 or the failure's -errno. The call is macro-expanded
 * before it is quoted, so that the message names the runtime's own
 * function (cuMemAlloc, hipMalloc), not rtMalloc. */
#define RT(d, call) RT_(d, call)
#define RT_(d, call) rt_check(d, (d)->api.call, #call, __FILE__, __LINE__)
/* On failure: to the function's fail label, its error in ret. */
#define RT_OR_FAIL(d, call)               \
    do {                                  \
        if ((ret = RT(d, call)) < 0)      \
            goto fail;                    \
    } while (0)
#define RT_STR(x) RT_STR_(x)
#define RT_STR_(x) #x

/* ---- what differs: how a device is named, entered and left -------------- */

#if defined(SQ_GPU_RT_CUDA)
/* The name of device `i`, and what the device list says of it. */
static int rt_describe(const SqRtApi *api, int i, char *name, size_t len, char *what, size_t wlen)
{
    CUdevice dv;
    int ok = api->cuDeviceGet(&dv, i) == CUDA_SUCCESS &&
             api->cuDeviceGetName(name, (int)len, dv) == CUDA_SUCCESS;
    if (what) {
        int major = 0, minor = 0;
        api->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dv);
        api->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dv);
        snprintf(what, wlen, "compute %d.%d%s", major, minor, major < 8 ? ", unsupported" : "");
    }
    return ok;
}

/* Device `index` made current (its primary context pushed), if the kernels run on it. */
static int rt_select(SqGpuDev *d, int index, int *entered)
{
    int ret, major = 0, minor = 0;
    char name[256] = "";
    RT_OR_FAIL(d, cuDeviceGet(&d->dev, index));
    RT_OR_FAIL(d, cuDeviceGetName(name, (int)sizeof(name), d->dev));
    RT_OR_FAIL(d, cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev));
    RT_OR_FAIL(d, cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev));
    if (major < 8) {
        snprintf(d->msg, sizeof(d->msg),
                 "CUDA device %s has compute capability %d.%d; the kernels need 8.0 or newer",
                 name, major, minor);
        return -ENODEV;
    }
    RT_OR_FAIL(d, cuDevicePrimaryCtxRetain(&d->ctx, d->dev));
    d->retained = 1;
    RT_OR_FAIL(d, cuCtxPushCurrent(d->ctx));
    *entered = 1;
    return 0;
fail:
    return ret;
}

/* The end of a successful open: unlike rt_leave, a failure counts. */
static int rt_deselect(SqGpuDev *d)
{
    CUcontext popped;
    return RT(d, cuCtxPopCurrent(&popped));
}

static int rt_enter(SqGpuDev *d)
{
    return RT(d, cuCtxPushCurrent(d->ctx));
}

static void rt_leave(SqGpuDev *d)
{
    CUcontext dummy;
    d->api.cuCtxPopCurrent(&dummy);
}

/* Closing: whether the device's objects can be destroyed now; then, once they are. */
static int rt_close_enter(SqGpuDev *d)
{
    return d->ctx && d->api.cuCtxPushCurrent(d->ctx) == CUDA_SUCCESS;
}

static void rt_close_leave(SqGpuDev *d, int entered)
{
    if (entered)
        rt_leave(d);
    if (d->retained && !d->keep)
        d->api.cuDevicePrimaryCtxRelease(d->dev);
}

#else /* SQ_GPU_RT_HIP: the current device stands for CUDA's context */
static int rt_describe(const SqRtApi *api, int i, char *name, size_t len, char *what, size_t wlen)
{
    if (what)
        snprintf(what, wlen, "hip");
    return api->hipDeviceGetName(name, (int)len, i) == hipSuccess;
}

static int rt_enter(SqGpuDev *d)
{
    int ret = RT(d, hipGetDevice(&d->prev_dev));
    return ret < 0 ? ret : RT(d, hipSetDevice(d->dev));
}

static void rt_leave(SqGpuDev *d)
{
    d->api.hipSetDevice(d->prev_dev);
}

/* d->dev (set by the open) made current; a failed open leaves the current
 * device as it is. */
static int rt_select(SqGpuDev *d, int index, int *entered)
{
    (void)index, (void)entered;
    return rt_enter(d);
}

static int rt_deselect(SqGpuDev *d)
{
    rt_leave(d);
    return 0;
}

static int rt_close_enter(SqGpuDev *d)
{
    return d->api.lib && d->api.hipSetDevice(d->dev) == hipSuccess;
}

static void rt_close_leave(SqGpuDev *d, int entered)
{
    (void)d, (void)entered; /* the device stays current, as it always has */
}
#endif

/* ---- the rest is the same for both --------------------------------------- */

static const char *rt_errmsg(const SqGpuDev *d)
{
    return d ? d->msg : "";
}

static void rt_close(SqGpuDev **pd)
{
    SqGpuDev *d = *pd;
    if (!d)
        return;
    int entered = rt_close_enter(d);
    if (entered) {
        for (int i = 0; d->ev && i < d->nev; i++)
            if (d->ev[i])
                d->api.rtEventDestroy(d->ev[i]);
        for (int s = 0; s < SQ_GPU_NSTREAMS; s++)
            if (d->st[s])
                d->api.rtStreamDestroy(d->st[s]);
        if (d->mod)
            d->api.rtModuleUnload(d->mod);
    }
    rt_close_leave(d, entered);
    if (!d->keep)
        sq_rt_unload(&d->api); /* kept: a retained context needs its driver */
    const SqAlloc a = d->alloc;
    sq_free(&a, d->ev);
    sq_free(&a, d);
    *pd = NULL;
}

/* Index of the device to use: by name substring, else by index (-1: first). */
static int pick_device(SqGpuDev *d, int n, int device, const char *want)
{
    char name[256];
    for (int i = 0; want && i < n; i++)
        if (rt_describe(&d->api, i, name, sizeof(name), NULL, 0) && strcasestr(name, want))
            return i;
    if (want)
        snprintf(d->msg, sizeof(d->msg), "no " SQ_RT_LABEL " device named like '%s' (%d found)",
                 want, n);
    else if (n < 1 || device >= n)
        snprintf(d->msg, sizeof(d->msg), SQ_RT_LABEL " device %d does not exist (%d found)",
                 device, n);
    else
        return device < 0 ? 0 : device;
    return -1;
}

int sq_rt_open_lib(SqGpuDev **out, const char *libname, int device, const char *want,
                   int nevents, const SqAlloc *a, char *err, size_t errlen)
{
    int ret, entered = 0, n = 0, index;
    *out = NULL;
    SqGpuDev *d = sq_calloc(a, 1, sizeof(*d));
    if (!d) {
        snprintf(err, errlen, "out of memory for the " SQ_RT_LABEL " device");
        return -ENOMEM;
    }
    d->alloc = *a;
    if ((ret = sq_rt_load(&d->api, libname, err, errlen)) < 0) {
        sq_free(a, d);
        return ret;
    }
    RT_OR_FAIL(d, rtInit(0));
    RT_OR_FAIL(d, rtGetDeviceCount(&n));
    index = pick_device(d, n, device, want);
#if defined(SQ_GPU_RT_HIP)
    d->dev = index; /* -1 if none: rt_close then makes no device current */
#endif
    if (index < 0) {
        ret = -ENODEV;
        goto fail;
    }
    if ((ret = rt_select(d, index, &entered)) < 0)
        goto fail;
    RT_OR_FAIL(d, rtModuleLoadData(&d->mod, SQ_RT_CODE));
    for (int k = 0; k < SQ_K_COUNT; k++)
        RT_OR_FAIL(d, rtModuleGetFunction(&d->fn[k], d->mod, kernel_names[k]));
    /* The copy stream is a blocking stream: later work the caller puts on
     * the legacy default stream waits for our reads of its device pictures. */
    RT_OR_FAIL(d, rtStreamCreate(&d->st[SQ_GPU_STREAM_COPY], 0, 0));
    RT_OR_FAIL(d, rtStreamCreate(&d->st[SQ_GPU_STREAM_COMPUTE], RT_STREAM_NON_BLOCKING, 0));
    /* Side streams take a batch's chains longest first (gpu/chains.c): each
     * one's priority above the next's and the compute stream's (lower numbers,
     * clamped to the device's range) puts the long chains' blocks first,
     * and the short ones fill the SMs they leave idle. */
    for (int s = SQ_GPU_STREAM_SIDE; s < SQ_GPU_NSTREAMS; s++)
        RT_OR_FAIL(d, rtStreamCreate(&d->st[s], RT_STREAM_NON_BLOCKING,
                                     s - SQ_GPU_STREAM_SIDE - SQ_GPU_NSIDES));
    if (!(d->ev = sq_calloc(a, (size_t)nevents, sizeof(*d->ev)))) {
        snprintf(d->msg, sizeof(d->msg), "out of memory for " SQ_RT_LABEL " events");
        ret = -ENOMEM;
        goto fail;
    }
    d->nev = nevents;
    for (int i = 0; i < nevents; i++)
        RT_OR_FAIL(d, rtEventCreate(&d->ev[i]));
    if ((ret = rt_deselect(d)) < 0)
        goto fail;
    *out = d;
    return 0;
fail:
    snprintf(err, errlen, "%s", d->msg);
    if (entered)
        rt_leave(d);
    rt_close(&d);
    return ret;
}

static int rt_open(SqGpuDev **out, int device, int nevents, const SqAlloc *a, char *err,
                   size_t errlen)
{
    return sq_rt_open_lib(out, NULL, device, NULL, nevents, a, err, errlen);
}

static int rt_open_named(SqGpuDev **out, const char *name, int nevents, const SqAlloc *a,
                         char *err, size_t errlen)
{
    return sq_rt_open_lib(out, NULL, -1, name, nevents, a, err, errlen);
}

/* "<index>: <name> (compute X.Y)" (CUDA) or "(hip)" per device; 0 without runtime or device. */
static int rt_list_devices(char *buf, size_t len)
{
    SqRtApi api;
    char err[256], name[256], what[64];
    int n = 0;
    size_t used = 0;
    if (buf && len)
        buf[0] = '\0';
    if (sq_rt_load(&api, NULL, err, sizeof(err)) < 0)
        return 0;
    if (api.rtInit(0) != RT_SUCCESS || api.rtGetDeviceCount(&n) != RT_SUCCESS)
        n = 0;
    for (int i = 0; i < n; i++) {
        if (!rt_describe(&api, i, name, sizeof(name), what, sizeof(what)))
            snprintf(name, sizeof(name), "unknown");
        if (buf && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%d: %s (%s)\n", i, name, what);
    }
    sq_rt_unload(&api);
    return n;
}
