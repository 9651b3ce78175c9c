#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "null_gpu.h"

typedef struct SqEmuBlk {
    int x, y;
} SqEmuBlk;

/*
 * The one kernel source as C: a block is one thread, so barriers are
 * no-ops. The eigen/solve matrices are block-shared (here: stack) arrays,
 * as on CUDA and HIP; the OpenCL tests run the global work area.
 */
#define SQ_KERNEL_BEGIN(name, threads) \
    static void sq_k_##name(unsigned char *arena, SqKArgs ka, SqEmuBlk blk_)
#define SQ_TID 0
#define SQ_NTH 1
#define SQ_BX (blk_.x)
#define SQ_BY (blk_.y)
#define SQ_SYNC() ((void)0)
#define SQ_SHARED
#define SQ_SHARED_PTR
#define SQ_DFN static inline
/* Blocks run one after another: plain read-modify-write is atomic here. */
#define SQ_ATOMIC_MAX(p, v) (*(p) = *(p) > (v) ? *(p) : (v))
#define SQ_ATOMIC_OR(p, v) (*(p) |= (v))
#define SQ_ATOMIC_ADD(p, v) (*(p) += (v))
#define SQ_GPU_SHARED_WORK 1
#include "gpu/kernels.h"

typedef void (*EmuKernel)(unsigned char *arena, SqKArgs ka, SqEmuBlk blk);
static const EmuKernel kernels[SQ_K_COUNT] = {
#define SQ_KERNEL(name, args) sq_k_##name,
#include "gpu/kernels.def"
#undef SQ_KERNEL
};

struct SqGpuDev {
    SqAlloc alloc;
    int nev;
    char msg[256];
};

static int null_open(SqGpuDev **out, int device, int nevents, const SqAlloc *a, char *err,
                     size_t errlen)
{
    *out = NULL;
    if (device > 0) {
        snprintf(err, errlen, "null GPU device %d does not exist (1 found)", device);
        return -ENODEV;
    }
    SqGpuDev *d = sq_calloc(a, 1, sizeof(*d));
    if (!d) {
        snprintf(err, errlen, "out of memory for the null GPU");
        return -ENOMEM;
    }
    d->alloc = *a;
    d->nev = nevents;
    *out = d;
    return 0;
}

static void null_close(SqGpuDev **d)
{
    if (*d) {
        const SqAlloc a = (*d)->alloc;
        sq_free(&a, *d);
    }
    *d = NULL;
}

static const char *null_error(const SqGpuDev *d)
{
    return d ? d->msg : "";
}

static int null_alloc(SqGpuDev *d, size_t bytes, SqGpuAddr *out)
{
    /* Garbage-filled, not zeroed: a kernel reading what nobody wrote shows. */
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        snprintf(d->msg, sizeof(d->msg), "null alloc of %zu bytes failed", bytes);
        return -ENOMEM;
    }
    memset(p, 0xA5, bytes);
    *out = (SqGpuAddr)(uintptr_t)p;
    return 0;
}

static void null_free(SqGpuDev *d, SqGpuAddr p)
{
    (void)d;
    free((void *)(uintptr_t)p);
}

static int null_host_alloc(SqGpuDev *d, size_t bytes, void **out)
{
    if (!(*out = malloc(bytes ? bytes : 1))) {
        snprintf(d->msg, sizeof(d->msg), "null pinned alloc of %zu bytes failed", bytes);
        return -ENOMEM;
    }
    return 0;
}

static void null_host_free(SqGpuDev *d, void *p)
{
    (void)d;
    free(p);
}

static int null_upload(SqGpuDev *d, int s, SqGpuAddr dst, const void *src, size_t n)
{
    (void)d, (void)s;
    memcpy((void *)(uintptr_t)dst, src, n);
    return 0;
}

static int null_download(SqGpuDev *d, int s, void *dst, SqGpuAddr src, size_t n)
{
    (void)d, (void)s;
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return 0;
}

static int null_copy2d(SqGpuDev *d, int s, SqGpuAddr dst, size_t dpitch, SqGpuAddr src,
                       size_t spitch, size_t width, size_t rows)
{
    (void)d, (void)s;
    for (size_t y = 0; y < rows; y++)
        memcpy((uint8_t *)(uintptr_t)dst + y * dpitch, (const uint8_t *)(uintptr_t)src + y * spitch,
               width);
    return 0;
}

static int null_launch(SqGpuDev *d, int s, int k, const unsigned grid[3], unsigned block,
                       SqGpuAddr arena, const SqKArgs *args)
{
    (void)d, (void)s, (void)block;
    for (unsigned z = 0; z < grid[2]; z++)
        for (unsigned y = 0; y < grid[1]; y++)
            for (unsigned x = 0; x < grid[0]; x++) {
                SqEmuBlk b = { (int)x, (int)y };
                kernels[k]((unsigned char *)(uintptr_t)arena, *args, b);
            }
    return 0;
}

static int null_event_record(SqGpuDev *d, int e, int s)
{
    (void)s;
    if (e < 0 || e >= d->nev) {
        snprintf(d->msg, sizeof(d->msg), "event %d out of range", e);
        return -EIO;
    }
    return 0;
}

static int null_event_query(SqGpuDev *d, int e)
{
    return null_event_record(d, e, 0) < 0 ? -EIO : 1;
}

static int null_event_sync(SqGpuDev *d, int e)
{
    return null_event_record(d, e, 0);
}

static int null_stream_wait(SqGpuDev *d, int s, int e)
{
    return null_event_record(d, e, s);
}

static int null_event_elapsed(SqGpuDev *d, int from, int to, float *ms)
{
    (void)d, (void)from, (void)to;
    *ms = 0.0f;
    return 0;
}

/* The DMA variant: host pictures up from in place (upload2d), ranges registered. */
static int null_upload2d(SqGpuDev *d, int s, SqGpuAddr dst, size_t dpitch, const void *src,
                         size_t spitch, size_t width, size_t rows)
{
    return null_copy2d(d, s, dst, dpitch, (SqGpuAddr)(uintptr_t)src, spitch, width, rows);
}

static int null_host_register(SqGpuDev *d, void *p, size_t bytes)
{
    (void)d, (void)p, (void)bytes;
    return 0;
}

static int null_host_unregister(SqGpuDev *d, void *p)
{
    (void)d, (void)p;
    return 0;
}

/* Every entry but the DMA variant's own. */
#define NULL_FNS                                                                               \
    .open = null_open, .close = null_close, .error = null_error, .alloc = null_alloc,          \
    .free = null_free, .host_alloc = null_host_alloc, .host_free = null_host_free,             \
    .upload = null_upload, .download = null_download, .copy2d = null_copy2d,                   \
    .launch = null_launch, .event_record = null_event_record,                                  \
    .event_query = null_event_query, .event_sync = null_event_sync,                            \
    .stream_wait = null_stream_wait, .event_elapsed = null_event_elapsed,                      \
    .device_memory = SPEEDQA_MEM_CUDA

const SqGpuFns sq_null_gpu_fns = { .name = "null", NULL_FNS };

const SqGpuFns sq_null_dma_gpu_fns = {
    .name = "null-dma",
    NULL_FNS,
    .host_register = null_host_register,
    .host_unregister = null_host_unregister,
    .upload2d = null_upload2d,
};
