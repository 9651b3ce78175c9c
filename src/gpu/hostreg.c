/*
 * The caller's memory registered for DMA (speedqa_cuda_host_register): the CLI
 * registers the mapping of a Y4M or raw file in windows ahead of its
 * reader, so its lent frames go up from the page cache with no staging
 * copy (three passes over host memory become one). A picture is uploaded
 * from a range only when every plane it reads lies in that one range; any
 * other picture is staged as before, so registering never changes a score.
 * Private file mappings are refused: pinning them hung (core/mapping.h).
 */
#include <errno.h>
#include <stdint.h>

#include "core/format.h"
#include "core/mapping.h"
#include "gpu/pipeline_priv.h"

int sq_gpu_regs_add(GpuRegs *r, const void *p, size_t bytes)
{
    const uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
    if (!r->ready)
        return -ENOTSUP;
    if (!p)
        return 0; /* the question whether it would be taken */
    if (hi < lo || sq_mem_in_private_file(p, bytes))
        return -EINVAL;
    int ret;
    pthread_mutex_lock(&r->mu);
    const int n = atomic_load(&r->n);
    for (int i = 0; i < n; i++)
        if (lo < r->r[i].hi && r->r[i].lo < hi) {
            pthread_mutex_unlock(&r->mu);
            return -EINVAL;
        }
    if (n == SPEEDQA_CUDA_MAX_HOST_RANGES) {
        pthread_mutex_unlock(&r->mu);
        return -ENOSPC;
    }
    pthread_mutex_unlock(&r->mu);
    /* pinning takes milliseconds: send goes on meanwhile */
    if ((ret = r->x->fns->host_register(r->x->dev, (void *)p, bytes)) < 0)
        return ret;
    pthread_mutex_lock(&r->mu);
    const int m = atomic_load(&r->n);
    int clash = m == SPEEDQA_CUDA_MAX_HOST_RANGES;
    for (int i = 0; i < m && !clash; i++)
        clash = lo < r->r[i].hi && r->r[i].lo < hi;
    if (!clash) {
        r->r[m].lo = lo;
        r->r[m].hi = hi;
        atomic_store(&r->n, m + 1);
    }
    pthread_mutex_unlock(&r->mu);
    if (clash) /* another thread registered an overlapping range meanwhile */
        r->x->fns->host_unregister(r->x->dev, (void *)p);
    return clash ? -EINVAL : 0;
}

int sq_gpu_regs_remove(GpuRegs *r, const void *p)
{
    if (!r->ready)
        return -ENOTSUP;
    pthread_mutex_lock(&r->mu);
    const int n = atomic_load(&r->n);
    int i = 0;
    while (i < n && r->r[i].lo != (uintptr_t)p)
        i++;
    if (i < n) {
        r->r[i] = r->r[n - 1];
        atomic_store(&r->n, n - 1);
    }
    pthread_mutex_unlock(&r->mu);
    /* no send can start an upload from it now; the runtime waits for those queued */
    return i == n ? -EINVAL : r->x->fns->host_unregister(r->x->dev, (void *)p);
}

/* Open: ranges can be registered when the runtime pins and uploads from them. */
int sq_gpu_regs_open(GpuRegs *r, GpuCtx *x, const GpuLayout *l)
{
    r->x = x;
    r->l = l;
    if (!x->fns->host_register || !x->fns->upload2d)
        return 0;
    if (pthread_mutex_init(&r->mu, NULL) != 0)
        return -ENOMEM;
    r->ready = 1;
    return 0;
}

void sq_gpu_regs_close(GpuRegs *r)
{
    if (!r->ready)
        return;
    const int n = atomic_load(&r->n);
    for (int i = 0; i < n; i++)
        r->x->fns->host_unregister(r->x->dev, (void *)r->r[i].lo);
    atomic_store(&r->n, 0);
    pthread_mutex_destroy(&r->mu);
    r->ready = 0;
}

int sq_gpu_reg_lock(GpuRegs *r)
{
    if (!r->ready || atomic_load_explicit(&r->n, memory_order_acquire) == 0)
        return 0;
    pthread_mutex_lock(&r->mu);
    return 1;
}

void sq_gpu_reg_unlock(GpuRegs *r, int taken)
{
    if (taken)
        pthread_mutex_unlock(&r->mu);
}

/* The bytes copy_whole_picture reads of plane c: [*lo, *hi). */
static void plane_span(const GpuLayout *l, const SpeedqaPicture *pic, int c, uintptr_t *lo,
                       uintptr_t *hi)
{
    const uint8_t *base;
    ptrdiff_t stride;
    const int semi = pic->layout == SPEEDQA_LAYOUT_SEMI_PLANAR;
    sq_plane_access(pic, c, &base, &stride);
    if (semi && c) { /* one interleaved plane, from U's first byte */
        base = pic->data[1];
        stride = pic->stride[1];
    }
    const uintptr_t rb = (uintptr_t)l->geo[c].row_bytes * (semi && c ? 2u : 1u);
    const uintptr_t pitch = (uintptr_t)(stride < 0 ? -stride : stride);
    const uintptr_t h = (uintptr_t)l->geo[c].h;
    *lo = (uintptr_t)base - (stride < 0 ? (h - 1) * pitch : 0);
    *hi = *lo + (h - 1) * pitch + rb;
}

int sq_gpu_registered(const GpuRegs *r, const SpeedqaPicture *pic)
{
    const int n = atomic_load_explicit(&r->n, memory_order_relaxed);
    if (!n || !pic->release || pic->memory != SPEEDQA_MEM_HOST)
        return 0;
    int k = -1;
    for (int c = 0; c < 3; c++) {
        if (!r->l->geo[c].need)
            continue;
        uintptr_t lo, hi;
        plane_span(r->l, pic, c, &lo, &hi);
        if (k < 0 || lo < r->r[k].lo || hi > r->r[k].hi)
            for (k = 0; k < n && (lo < r->r[k].lo || hi > r->r[k].hi); k++)
                ;
        if (k == n)
            return 0;
    }
    return k >= 0;
}
