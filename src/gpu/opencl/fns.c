/*
 * The SqGpuFns vtable (gpu/gpu.h) on OpenCL: plumbing only; the pipeline
 * (kernel order, host tail) is backend-neutral.
 *
 * Device addresses: OpenCL has buffers, not pointers, so an SqGpuAddr is
 * (allocation slot + 1) << 40 | byte offset. The pipeline only ever adds
 * offsets to what alloc returned, which this encoding keeps exact. The
 * kernels (gpu/kernels.h, the same source as CUDA's) take the arena buffer
 * itself and the SqKArgs struct: every other location is a byte offset.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/opencl/cl.h"
#include "gpu/opencl/fns.h"
#include "gpu/opencl/fns_priv.h"

#define ADDR_SHIFT 40
#define ADDR_OFF(a) ((size_t)((a) & ((1ull << ADDR_SHIFT) - 1)))
#define ADDR_SLOT(a) ((int)((a) >> ADDR_SHIFT) - 1)

extern const char sq_cl_kernels[];
extern const size_t sq_cl_kernels_len;

static const char *const kernel_names[SQ_K_COUNT] = {
#define SQ_KERNEL(name, args) "sq_k_" #name,
#include "gpu/kernels.def"
#undef SQ_KERNEL
};

int sq_cl_fail(SqGpuDev *d, int ret, const char *fmt, ...)
{
    if (!d->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->errbuf, sizeof(d->errbuf), fmt, ap);
        va_end(ap);
        d->failed = ret;
    }
    return d->failed;
}

int sq_cl_fail_call(SqGpuDev *d, const char *call, cl_int e, const char *file, int line)
{
    char buf[48];
    const int ret = e == CL_OUT_OF_HOST_MEMORY || e == CL_MEM_OBJECT_ALLOCATION_FAILURE ? -ENOMEM : -EIO;
    return sq_cl_fail(d, ret, "%s failed: %s (%s:%d)", call, sq_cl_strerror(e, buf, sizeof(buf)), file,
                      line);
}

static int decode(SqGpuDev *d, SqGpuAddr a, cl_mem *mem, size_t *off)
{
    const int slot = ADDR_SLOT(a);
    if (slot < 0 || slot >= d->nbufs || !d->bufs[slot])
        return sq_cl_fail(d, -EINVAL, "OpenCL: device address %#llx is not an allocation", (unsigned long long)a);
    *mem = d->bufs[slot];
    *off = ADDR_OFF(a);
    return 0;
}

static const HostBuf *pinned(const SqGpuDev *d, const void *p, size_t bytes)
{
    const unsigned char *c = p;
    for (int i = 0; i < d->nhosts; i++) {
        const unsigned char *b = d->hosts[i].ptr;
        if (b && c >= b && c + bytes <= b + d->hosts[i].size)
            return &d->hosts[i];
    }
    return NULL;
}

static void cl_close(SqGpuDev **pd)
{
    SqGpuDev *d = *pd;
    if (!d)
        return;
    const SqCl *cl = &d->cl;
    for (int i = 0; i < SQ_GPU_NSTREAMS; i++)
        if (d->q[i])
            cl->Finish(d->q[i]);
    for (int i = 0; i < d->nhosts; i++)
        if (d->hosts[i].mem) {
            cl->EnqueueUnmapMemObject(d->q[0], d->hosts[i].mem, d->hosts[i].ptr, 0, NULL, NULL);
            cl->Finish(d->q[0]);
            cl->ReleaseMemObject(d->hosts[i].mem);
        }
    for (int i = 0; i < d->nbufs; i++)
        if (d->bufs[i])
            cl->ReleaseMemObject(d->bufs[i]);
    for (int i = 0; i < d->nev; i++)
        if (d->ev[i])
            cl->ReleaseEvent(d->ev[i]);
    for (int i = 0; i < SQ_K_COUNT; i++)
        if (d->k[i])
            cl->ReleaseKernel(d->k[i]);
    if (d->prog)
        cl->ReleaseProgram(d->prog);
    for (int i = 0; i < SQ_GPU_NSTREAMS; i++)
        if (d->q[i])
            cl->ReleaseCommandQueue(d->q[i]);
    if (d->ctx)
        cl->ReleaseContext(d->ctx);
    if (d->cl.lib)
        sq_cl_unload(&d->cl);
    const SqAlloc a = d->a;
    sq_free(&a, d->bufs);
    sq_free(&a, d->hosts);
    sq_free(&a, d->ev);
    sq_free(&a, d);
    *pd = NULL;
}

int sq_cl_open_dev(SqGpuDev **pd, int device, const char *name, int nevents, int force_soft,
                   const SqAlloc *a, char *err, size_t errlen)
{
    int ret = 0;
    *pd = NULL;
    SqGpuDev *d = sq_calloc(a, 1, sizeof(*d));
    if (!d) {
        snprintf(err, errlen, "out of memory for the OpenCL device");
        return -ENOMEM;
    }
    d->a = *a;
    if ((ret = sq_cl_load(&d->cl, err, errlen)) < 0)
        goto out;
    if ((ret = sq_cl_select(&d->cl, device, name, &d->info, &d->flat, err, errlen)) < 0)
        goto out;
    const SqCl *cl = &d->cl;
    const int nev = nevents > 0 ? nevents : 1;
    if (!(d->ev = sq_calloc(a, (size_t)nev, sizeof(*d->ev)))) {
        ret = sq_cl_fail(d, -ENOMEM, "out of memory for OpenCL events");
        goto error;
    }
    d->nev = nev;
    CL_OBJ(d->ctx, cl->CreateContext(NULL, 1, &d->info.device, NULL, NULL, &e_));
    for (int i = 0; i < SQ_GPU_NSTREAMS; i++)
        CL_OBJ(d->q[i], cl->CreateCommandQueue(d->ctx, d->info.device, CL_QUEUE_PROFILING_ENABLE, &e_));
    d->soft_f64 = sq_cl_soft_f64(&d->info, force_soft);
    ret = sq_cl_build(cl, d->ctx, &d->info, sq_cl_kernels, sq_cl_kernels_len,
                      d->soft_f64 ? SQ_CL_BUILD_OPTIONS SQ_CL_SOFT_F64_OPTION : SQ_CL_BUILD_OPTIONS,
                      a, &d->prog, &d->from_cache, d->errbuf, sizeof(d->errbuf));
    if (ret < 0) {
        d->failed = ret;
        goto error;
    }
    for (int i = 0; i < SQ_K_COUNT; i++) {
        CL_OBJ(d->k[i], cl->CreateKernel(d->prog, kernel_names[i], &e_));
        CL(cl->GetKernelWorkGroupInfo(d->k[i], d->info.device, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof(d->kwg[i]), &d->kwg[i], NULL));
    }
    *pd = d;
    return 0;
error:
    snprintf(err, errlen, "%s", d->errbuf);
out:
    cl_close(&d);
    return ret;
}

static int cl_open(SqGpuDev **pd, int device, int nevents, const SqAlloc *a, char *err, size_t errlen)
{
    return sq_cl_open_dev(pd, device, NULL, nevents, 0, a, err, errlen);
}

static int cl_open_named(SqGpuDev **pd, const char *name, int nevents, const SqAlloc *a, char *err,
                         size_t errlen)
{
    return sq_cl_open_dev(pd, -1, name, nevents, 0, a, err, errlen);
}

static int cl_open_ex(SqGpuDev **pd, const SqGpuOpenOpts *o, const SqAlloc *a, char *err,
                      size_t errlen)
{
    return sq_cl_open_dev(pd, o->name ? -1 : o->device, o->name, o->nevents, o->force_soft_f64,
                          a, err, errlen);
}

static size_t cl_max_alloc(const SqGpuDev *d)
{
    return (size_t)d->info.max_alloc;
}

static const char *cl_error(const SqGpuDev *d)
{
    return d->errbuf[0] ? d->errbuf : "no error";
}

static int cl_alloc(SqGpuDev *d, size_t bytes, SqGpuAddr *out)
{
    int ret = 0, slot = -1;
    cl_mem m = NULL;
    STICKY();
    for (int i = 0; i < d->nbufs && slot < 0; i++)
        if (!d->bufs[i])
            slot = i;
    if (slot < 0) {
        cl_mem *nb = sq_calloc(&d->a, (size_t)d->nbufs + 8, sizeof(*nb));
        if (!nb)
            return sq_cl_fail(d, -ENOMEM, "out of memory for the OpenCL buffer table");
        if (d->nbufs)
            memcpy(nb, d->bufs, sizeof(*nb) * (size_t)d->nbufs);
        sq_free(&d->a, d->bufs);
        d->bufs = nb;
        slot = d->nbufs;
        d->nbufs += 8;
    }
    if ((uint64_t)bytes >= (1ull << ADDR_SHIFT) || (d->info.max_alloc && bytes > d->info.max_alloc))
        return sq_cl_fail(d, -ENOMEM,
                          "OpenCL: %zu MiB in one buffer exceed the device's largest allocation (%llu MiB)",
                          bytes >> 20, (unsigned long long)(d->info.max_alloc >> 20));
    CL_OBJ(m, d->cl.CreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &e_));
    d->bufs[slot] = m;
    *out = (SqGpuAddr)(slot + 1) << ADDR_SHIFT;
    return 0;
error:
    return ret;
}

/*
 * Like cuMemFree/cuMemFreeHost, freeing waits for the work queued before:
 * after a failure part way through a batch (an event not recorded, say) a
 * copy into or out of the memory may still be queued.
 */
static void finish_all(SqGpuDev *d)
{
    for (int i = 0; i < SQ_GPU_NSTREAMS; i++)
        if (d->q[i])
            d->cl.Finish(d->q[i]);
}

static void cl_free(SqGpuDev *d, SqGpuAddr a)
{
    const int slot = ADDR_SLOT(a);
    if (!a || slot < 0 || slot >= d->nbufs || !d->bufs[slot])
        return;
    finish_all(d);
    d->cl.ReleaseMemObject(d->bufs[slot]);
    d->bufs[slot] = NULL;
}

static int cl_host_alloc(SqGpuDev *d, size_t bytes, void **out)
{
    int ret = 0;
    cl_mem m = NULL;
    void *p = NULL;
    STICKY();
    HostBuf *nh = sq_calloc(&d->a, (size_t)d->nhosts + 1, sizeof(*nh));
    if (!nh)
        return sq_cl_fail(d, -ENOMEM, "out of memory for the OpenCL host buffer table");
    if (d->nhosts)
        memcpy(nh, d->hosts, sizeof(*nh) * (size_t)d->nhosts);
    sq_free(&d->a, d->hosts);
    d->hosts = nh;
    CL_OBJ(m, d->cl.CreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes ? bytes : 1,
                                 NULL, &e_));
    CL_OBJ(p, d->cl.EnqueueMapBuffer(d->q[SQ_GPU_STREAM_COPY], m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                     0, bytes ? bytes : 1, 0, NULL, NULL, &e_));
    d->hosts[d->nhosts++] = (HostBuf){ p, m, bytes };
    *out = p;
    return 0;
error:
    if (m)
        d->cl.ReleaseMemObject(m);
    return ret;
}

static void cl_host_free(SqGpuDev *d, void *p)
{
    for (int i = 0; p && i < d->nhosts; i++)
        if (d->hosts[i].ptr == p) {
            finish_all(d);
            d->cl.EnqueueUnmapMemObject(d->q[SQ_GPU_STREAM_COPY], d->hosts[i].mem, p, 0, NULL, NULL);
            d->cl.Finish(d->q[SQ_GPU_STREAM_COPY]);
            d->cl.ReleaseMemObject(d->hosts[i].mem);
            d->hosts[i] = (HostBuf){ 0 };
        }
}

/*
 * Like cuMemcpy*Async: asynchronous from/to pinned (host_alloc) memory,
 * otherwise the host memory is consumed (or filled) before the call returns.
 */
static int transfer(SqGpuDev *d, int stream, int write, SqGpuAddr a, void *host, size_t bytes)
{
    int ret = 0;
    cl_mem m = NULL;
    size_t off = 0;
    STICKY();
    if (!bytes)
        return 0;
    if ((ret = decode(d, a, &m, &off)) < 0)
        return ret;
    const cl_bool block = pinned(d, host, bytes) ? CL_FALSE : CL_TRUE;
    if (write)
        CL(d->cl.EnqueueWriteBuffer(d->q[stream], m, block, off, bytes, host, 0, NULL, NULL));
    else
        CL(d->cl.EnqueueReadBuffer(d->q[stream], m, block, off, bytes, host, 0, NULL, NULL));
    return 0;
error:
    return ret;
}

static int cl_upload(SqGpuDev *d, int stream, SqGpuAddr dst, const void *src, size_t bytes)
{
    return transfer(d, stream, 1, dst, (void *)(uintptr_t)src, bytes);
}

static int cl_download(SqGpuDev *d, int stream, void *dst, SqGpuAddr src, size_t bytes)
{
    return transfer(d, stream, 0, src, dst, bytes);
}

static int cl_copy2d(SqGpuDev *d, int stream, SqGpuAddr dst, size_t dpitch, SqGpuAddr src,
                     size_t spitch, size_t width, size_t rows)
{
    int ret = 0;
    cl_mem dm = NULL, sm = NULL;
    size_t doff = 0, soff = 0;
    STICKY();
    if (!width || !rows)
        return 0;
    if ((ret = decode(d, dst, &dm, &doff)) < 0 || (ret = decode(d, src, &sm, &soff)) < 0)
        return ret;
    const size_t so[3] = { soff % spitch, soff / spitch, 0 }, dorg[3] = { doff % dpitch, doff / dpitch, 0 };
    const size_t region[3] = { width, rows, 1 };
    CL(d->cl.EnqueueCopyBufferRect(d->q[stream], sm, dm, so, dorg, region, spitch, 0, dpitch, 0, 0,
                                   NULL, NULL));
    return 0;
error:
    return ret;
}

static int cl_upload2d(SqGpuDev *d, int stream, SqGpuAddr dst, size_t dpitch, const void *src,
                       size_t spitch, size_t width, size_t rows)
{
    int ret = 0;
    cl_mem dm = NULL;
    size_t doff = 0;
    STICKY();
    if (!width || !rows)
        return 0;
    if ((ret = decode(d, dst, &dm, &doff)) < 0)
        return ret;
    void *host = (void *)(uintptr_t)src;
    const cl_bool block = pinned(d, host, (rows - 1) * spitch + width) ? CL_FALSE : CL_TRUE;
    const size_t borg[3] = { doff, 0, 0 }, horg[3] = { 0, 0, 0 }, region[3] = { width, rows, 1 };
    CL(d->cl.EnqueueWriteBufferRect(d->q[stream], dm, block, borg, horg, region, dpitch, 0,
                                    spitch, 0, host, 0, NULL, NULL));
    return 0;
error:
    return ret;
}

static int cl_launch(SqGpuDev *d, int stream, int kernel, const unsigned grid[3], unsigned block,
                     SqGpuAddr arena, const SqKArgs *args)
{
    int ret = 0;
    cl_mem m = NULL;
    size_t off = 0;
    STICKY();
    if (kernel < 0 || kernel >= SQ_K_COUNT)
        return sq_cl_fail(d, -EINVAL, "OpenCL: kernel id %d out of range", kernel);
    if (!grid[0] || !grid[1] || !grid[2])
        return 0;
    if ((ret = decode(d, arena, &m, &off)) < 0)
        return ret;
    if (off)
        return sq_cl_fail(d, -EINVAL, "OpenCL: kernels take a whole allocation, not %#llx",
                          (unsigned long long)arena);
    const SqCl *cl = &d->cl;
    cl_kernel k = d->k[kernel];
    /* sq_k_<name>(__global uchar *arena, SqKArgs ka): the struct by value, as CUDA */
    CL(cl->SetKernelArg(k, 0, sizeof(cl_mem), &m));
    CL(cl->SetKernelArg(k, 1, sizeof(*args), args));
    size_t local = block ? block : 1;
    if (local > d->kwg[kernel])
        local = d->kwg[kernel];
    const size_t global[3] = { (size_t)grid[0] * local, grid[1], grid[2] };
    const size_t lsz[3] = { local, 1, 1 };
    CL(cl->EnqueueNDRangeKernel(d->q[stream], k, 3, NULL, global, lsz, 0, NULL, NULL));
    return 0;
error:
    return ret;
}

static void cl_describe(const SqGpuDev *d, char *buf, size_t len)
{
    snprintf(buf, len, "%s, program %s, %s doubles", d->info.name,
             d->from_cache ? "from the cache" : "built", d->soft_f64 ? "soft" : "hardware");
}

const SqGpuFns sq_cl_fns = {
    .name = "opencl",
    .open = cl_open,
    .open_named = cl_open_named,
    .open_ex = cl_open_ex,
    .describe = cl_describe,
    .close = cl_close,
    .error = cl_error,
    .alloc = cl_alloc,
    .free = cl_free,
    .host_alloc = cl_host_alloc,
    .host_free = cl_host_free,
    .upload = cl_upload,
    .download = cl_download,
    .copy2d = cl_copy2d,
    .upload2d = cl_upload2d,
    .launch = cl_launch,
    .event_record = sq_cl_event_record,
    .event_query = sq_cl_event_query,
    .event_sync = sq_cl_event_sync,
    .stream_wait = sq_cl_stream_wait,
    .event_elapsed = sq_cl_event_elapsed,
    .max_alloc = cl_max_alloc,
    .device_memory = -1,
};
