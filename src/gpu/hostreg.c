/*
 * The caller's memory registered for DMA (speedqa_host_register): the CLI
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

int sq_gpu_host_register(void *priv, const void *p, size_t bytes)
{
    GpuPriv *g = priv;
    const uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
    if (!g->regs.ready)
        return -ENOTSUP;
    if (!p)
        return 0; /* the question whether it would be taken */
    if (hi < lo || sq_mem_in_private_file(p, bytes))
        return -EINVAL;
    int ret;
    pthread_mutex_lock(&g->regs.mu);
    const int n = atomic_load(&g->regs.n);
    for (int i = 0; i < n; i++)
        if (lo < g->regs.r[i].hi && g->regs.r[i].lo < hi) {
            pthread_mutex_unlock(&g->regs.mu);
            return -EINVAL;
        }
    if (n == SPEEDQA_MAX_HOST_RANGES) {
        pthread_mutex_unlock(&g->regs.mu);
        return -ENOSPC;
    }
    pthread_mutex_unlock(&g->regs.mu);
    /* pinning takes milliseconds: send goes on meanwhile */
    if ((ret = g->fns->host_register(g->dev, (void *)p, bytes)) < 0)
        return ret;
    pthread_mutex_lock(&g->regs.mu);
    const int m = atomic_load(&g->regs.n);
    int clash = m == SPEEDQA_MAX_HOST_RANGES;
    for (int i = 0; i < m && !clash; i++)
        clash = lo < g->regs.r[i].hi && g->regs.r[i].lo < hi;
    if (!clash) {
        g->regs.r[m].lo = lo;
        g->regs.r[m].hi = hi;
        atomic_store(&g->regs.n, m + 1);
    }
    pthread_mutex_unlock(&g->regs.mu);
    if (clash) /* another thread registered an overlapping range meanwhile */
        g->fns->host_unregister(g->dev, (void *)p);
    return clash ? -EINVAL : 0;
}

int sq_gpu_host_unregister(void *priv, const void *p)
{
    GpuPriv *g = priv;
    if (!g->regs.ready)
        return -ENOTSUP;
    pthread_mutex_lock(&g->regs.mu);
    const int n = atomic_load(&g->regs.n);
    int i = 0;
    while (i < n && g->regs.r[i].lo != (uintptr_t)p)
        i++;
    if (i < n) {
        g->regs.r[i] = g->regs.r[n - 1];
        atomic_store(&g->regs.n, n - 1);
    }
    pthread_mutex_unlock(&g->regs.mu);
    /* no send can start an upload from it now; the runtime waits for those queued */
    return i == n ? -EINVAL : g->fns->host_unregister(g->dev, (void *)p);
}

/* Open: ranges can be registered when the runtime pins and uploads from them. */
int sq_gpu_reg_open(GpuPriv *g)
{
    if (!g->fns->host_register || !g->fns->upload2d)
        return 0;
    if (pthread_mutex_init(&g->regs.mu, NULL) != 0)
        return -ENOMEM;
    g->regs.ready = 1;
    return 0;
}

void sq_gpu_unregister_all(GpuPriv *g)
{
    if (!g->regs.ready)
        return;
    const int n = atomic_load(&g->regs.n);
    for (int i = 0; i < n; i++)
        g->fns->host_unregister(g->dev, (void *)g->regs.r[i].lo);
    atomic_store(&g->regs.n, 0);
    pthread_mutex_destroy(&g->regs.mu);
    g->regs.ready = 0;
}

int sq_gpu_reg_lock(GpuPriv *g)
{
    if (!g->regs.ready || atomic_load_explicit(&g->regs.n, memory_order_acquire) == 0)
        return 0;
    pthread_mutex_lock(&g->regs.mu);
    return 1;
}

void sq_gpu_reg_unlock(GpuPriv *g, int taken)
{
    if (taken)
        pthread_mutex_unlock(&g->regs.mu);
}

/* The bytes copy_whole_picture reads of plane c: [*lo, *hi). */
static void plane_span(const GpuPriv *g, const SpeedqaPicture *pic, int c, uintptr_t *lo,
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
    const uintptr_t rb = (uintptr_t)g->geo[c].row_bytes * (semi && c ? 2u : 1u);
    const uintptr_t pitch = (uintptr_t)(stride < 0 ? -stride : stride);
    const uintptr_t h = (uintptr_t)g->geo[c].h;
    *lo = (uintptr_t)base - (stride < 0 ? (h - 1) * pitch : 0);
    *hi = *lo + (h - 1) * pitch + rb;
}

int sq_gpu_registered(const GpuPriv *g, const SpeedqaPicture *pic)
{
    const int n = atomic_load_explicit(&g->regs.n, memory_order_relaxed);
    if (!n || !pic->release || pic->memory != SPEEDQA_MEM_HOST)
        return 0;
    int r = -1;
    for (int c = 0; c < 3; c++) {
        if (!g->geo[c].need)
            continue;
        uintptr_t lo, hi;
        plane_span(g, pic, c, &lo, &hi);
        if (r < 0 || lo < g->regs.r[r].lo || hi > g->regs.r[r].hi)
            for (r = 0; r < n && (lo < g->regs.r[r].lo || hi > g->regs.r[r].hi); r++)
                ;
        if (r == n)
            return 0;
    }
    return r >= 0;
}
