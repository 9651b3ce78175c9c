/*
 * What the OpenCL SqGpuFns (fns.c, fns_events.c) share and nothing else
 * sees: the device struct, the sticky first error and the macros that
 * check every OpenCL call.
 */
#ifndef SQ_GPU_OPENCL_FNS_PRIV_H
#define SQ_GPU_OPENCL_FNS_PRIV_H

#include "gpu/gpu.h"
#include "gpu/opencl/cl.h"

typedef struct HostBuf {
    void *ptr;
    cl_mem mem;
    size_t size;
} HostBuf;

struct SqGpuDev {
    SqAlloc a;
    SqCl cl;
    SqClDevInfo info;
    int flat;
    cl_context ctx;
    cl_command_queue q[SQ_GPU_NSTREAMS];
    cl_program prog;
    cl_kernel k[SQ_K_COUNT];
    size_t kwg[SQ_K_COUNT];
    cl_mem *bufs;
    int nbufs;
    HostBuf *hosts;
    int nhosts;
    cl_event *ev;
    int nev;
    int from_cache;
    int soft_f64;         /* program built with soft doubles (math/f64.h) */
    int failed;           /* first error, sticky */
    char errbuf[512];
};

/* Keeps the first error: its code (returned, now and by every later call) and its message. */
int sq_cl_fail(SqGpuDev *d, int ret, const char *fmt, ...);
/* sq_cl_fail for an OpenCL call that returned e, with its name and file:line. */
int sq_cl_fail_call(SqGpuDev *d, const char *call, cl_int e, const char *file, int line);

/* Every OpenCL call goes through this: log call, error name and file:line, then cleanup. */
#define CL(call)                                                              \
    do {                                                                      \
        const cl_int e_ = (call);                                             \
        if (e_ != CL_SUCCESS) {                                               \
            ret = sq_cl_fail_call(d, #call, e_, __FILE__, __LINE__);          \
            goto error;                                                       \
        }                                                                     \
    } while (0)

/* For the creators, which report through an out parameter. */
#define CL_OBJ(var, call)                                                     \
    do {                                                                      \
        cl_int e_ = CL_SUCCESS;                                               \
        var = (call);                                                         \
        if (e_ == CL_SUCCESS && !(var))                                       \
            e_ = CL_OUT_OF_RESOURCES;                                         \
        if (e_ != CL_SUCCESS) {                                               \
            ret = sq_cl_fail_call(d, #call, e_, __FILE__, __LINE__);          \
            goto error;                                                       \
        }                                                                     \
    } while (0)

#define STICKY()                                                              \
    do {                                                                      \
        if (d->failed)                                                        \
            return d->failed;                                                 \
    } while (0)

/* Events (fns_events.c). */
int sq_cl_event_record(SqGpuDev *d, int event, int stream);
int sq_cl_event_query(SqGpuDev *d, int event);
int sq_cl_event_sync(SqGpuDev *d, int event);
int sq_cl_stream_wait(SqGpuDev *d, int stream, int event);
int sq_cl_event_elapsed(SqGpuDev *d, int from, int to, float *ms);

#endif
