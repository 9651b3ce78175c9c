/*
 * Part of the CUDA/HIP plumbing, compiled with device.c in one unit per
 * runtime (cuda/cuda.c, hip/hip.c include both, device.c first): device
 * and pinned host memory, copies, launches, events, and the SqGpuFns and
 * SqBackend tables over them. device.c holds the device itself: errors,
 * selection, contexts, open, close and the device list.
 */

static void rt_keep(SqGpuDev *d)
{
    d->keep = 1;
}

static int rt_alloc(SqGpuDev *d, size_t bytes, SqGpuAddr *out)
{
    rtDevPtr p = 0;
    int ret = RT(d, rtMalloc(&p, bytes));
    if (!ret)
        *out = (SqGpuAddr)(uintptr_t)p;
    return ret;
}

static void rt_free(SqGpuDev *d, SqGpuAddr p)
{
    d->api.rtFree(RT_DPTR(p));
}

#if defined(SQ_GPU_RT_CUDA)
#define HUGE_PAGE ((size_t)2 << 20)
/*
 * Large pinned blocks (the staging: 109 MB at 1080p) are anonymous memory,
 * 2 MiB aligned and advised to be huge pages, registered with the driver:
 * on the H200 host 109 MB took 27 to 38 ms so against 46 to 62 ms from
 * cuMemHostAlloc, and 2.5 against 12 to 18 ms to give back. Anything
 * that fails falls back to cuMemHostAlloc. 1: not taken.
 */
static int host_alloc_huge(SqGpuDev *d, size_t bytes, void **out)
{
    int k = 0;
    while (k < (int)(sizeof(d->blk) / sizeof(d->blk[0])) && d->blk[k].p)
        k++;
    if (bytes < 8 * HUGE_PAGE || k == (int)(sizeof(d->blk) / sizeof(d->blk[0])))
        return 1;
    const size_t len = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uint8_t *m = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
    if (m == MAP_FAILED)
        return 1;
    /* keep the 2 MiB aligned part */
    uint8_t *p = (uint8_t *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (p > m)
        munmap(m, (size_t)(p - m));
    if (p + len < m + len + HUGE_PAGE)
        munmap(p + len, (size_t)(m + len + HUGE_PAGE - (p + len)));
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE);
#endif
    if (d->api.cuMemHostRegister(p, len, 0) != CUDA_SUCCESS) {
        munmap(p, len);
        return 1;
    }
    d->blk[k].p = p;
    d->blk[k].len = len;
    *out = p;
    return 0;
}

static int rt_host_alloc(SqGpuDev *d, size_t bytes, void **out)
{
    return host_alloc_huge(d, bytes, out) == 0 ? 0 : RT(d, cuMemHostAlloc(out, bytes, 0));
}

/*
 * The caller's memory (a file's read-only mapping) page-locked for DMA,
 * read-only: pinning a private mapping for writing would copy every page.
 * Called from the caller's threads, so failures do not touch d->msg (the
 * pictures are then staged as before).
 */
static int rt_host_register(SqGpuDev *d, void *p, size_t bytes)
{
    CUcontext popped;
    if (d->api.cuCtxPushCurrent(d->ctx) != CUDA_SUCCESS)
        return -EIO;
    const CUresult r = d->api.cuMemHostRegister(p, bytes, CU_MEMHOSTREGISTER_READ_ONLY);
    d->api.cuCtxPopCurrent(&popped);
    return r == CUDA_SUCCESS ? 0 : r == CUDA_ERROR_OUT_OF_MEMORY ? -ENOMEM : -ENOTSUP;
}

/* Every upload queued so far has read its source, then the range is unpinned. */
static int rt_host_unregister(SqGpuDev *d, void *p)
{
    CUcontext popped;
    if (d->api.cuCtxPushCurrent(d->ctx) != CUDA_SUCCESS)
        return -EIO;
    const CUresult s = d->api.cuStreamSynchronize(d->st[SQ_GPU_STREAM_COPY]);
    const CUresult r = d->api.cuMemHostUnregister(p);
    d->api.cuCtxPopCurrent(&popped);
    return s == CUDA_SUCCESS && r == CUDA_SUCCESS ? 0 : -EIO;
}

static void rt_host_free(SqGpuDev *d, void *p)
{
    for (size_t k = 0; p && k < sizeof(d->blk) / sizeof(d->blk[0]); k++)
        if (d->blk[k].p == p) {
            d->api.cuMemHostUnregister(p);
            munmap(p, d->blk[k].len);
            d->blk[k].p = NULL;
            return;
        }
    d->api.cuMemFreeHost(p);
}
#else
static int rt_host_alloc(SqGpuDev *d, size_t bytes, void **out)
{
    return RT(d, rtHostMalloc(out, bytes, 0));
}

static void rt_host_free(SqGpuDev *d, void *p)
{
    d->api.rtHostFree(p);
}
#endif

static int rt_upload(SqGpuDev *d, int s, SqGpuAddr dst, const void *src, size_t n)
{
    return RT(d, rtMemcpyHtoDAsync(RT_DPTR(dst), src, n, d->st[s]));
}

static int rt_download(SqGpuDev *d, int s, void *dst, SqGpuAddr src, size_t n)
{
    return RT(d, rtMemcpyDtoHAsync(dst, RT_DPTR(src), n, d->st[s]));
}

#if defined(SQ_GPU_RT_CUDA)
/* rows x width bytes into device memory, from device memory (host NULL) or pinned host memory */
static int copy_rect(SqGpuDev *d, int s, SqGpuAddr dst, size_t dpitch, SqGpuAddr src,
                     const void *host, size_t spitch, size_t width, size_t rows)
{
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof(c));
    c.srcMemoryType = host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    c.srcDevice = (CUdeviceptr)src;
    c.srcHost = host;
    c.srcPitch = spitch;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = (CUdeviceptr)dst;
    c.dstPitch = dpitch;
    c.WidthInBytes = width;
    c.Height = rows;
    return RT(d, cuMemcpy2DAsync(&c, d->st[s]));
}

static int rt_copy2d(SqGpuDev *d, int s, SqGpuAddr dst, size_t dpitch, SqGpuAddr src,
                     size_t spitch, size_t width, size_t rows)
{
    return copy_rect(d, s, dst, dpitch, src, NULL, spitch, width, rows);
}

static int rt_upload2d(SqGpuDev *d, int s, SqGpuAddr dst, size_t dpitch, const void *src,
                       size_t spitch, size_t width, size_t rows)
{
    return copy_rect(d, s, dst, dpitch, 0, src, spitch, width, rows);
}
#else
/* the pipeline copies device pictures and uploads library pictures in place only for CUDA */
#define rt_copy2d NULL
#define rt_upload2d NULL
#endif

static int rt_launch(SqGpuDev *d, int s, int k, const unsigned grid[3], unsigned block,
                     SqGpuAddr arena, const SqKArgs *args)
{
    rtDevPtr base = RT_DPTR(arena);
    void *params[2] = { &base, (void *)args }, **extra = NULL;
    if (!grid[0] || !grid[1] || !grid[2])
        return 0;
    return RT(d, rtLaunchKernel(d->fn[k], grid[0], grid[1], grid[2], block, 1, 1, 0, d->st[s], params,
                                extra));
}

static int rt_event_record(SqGpuDev *d, int e, int s)
{
    return RT(d, rtEventRecord(d->ev[e], d->st[s]));
}

static int rt_event_query(SqGpuDev *d, int e)
{
    rtResult r = d->api.rtEventQuery(d->ev[e]);
    if (r == RT_SUCCESS)
        return 1;
    if (r == RT_ERROR_NOT_READY)
        return 0;
    return rt_error(d, r, RT_STR(rtEventQuery) "(ev)", __FILE__, __LINE__);
}

static int rt_event_sync(SqGpuDev *d, int e)
{
    return RT(d, rtEventSynchronize(d->ev[e]));
}

static int rt_stream_wait(SqGpuDev *d, int s, int e)
{
    return RT(d, rtStreamWaitEvent(d->st[s], d->ev[e], 0));
}

static int rt_event_elapsed(SqGpuDev *d, int from, int to, float *ms)
{
    return RT(d, rtEventElapsedTime(ms, d->ev[from], d->ev[to]));
}

const SqGpuFns SQ_RT_FNS = {
    .name = SQ_RT_NAME,
    .open = rt_open,
    .open_named = rt_open_named,
    .close = rt_close,
    .error = rt_errmsg,
    .alloc = rt_alloc,
    .free = rt_free,
    .keep = rt_keep,
    .host_alloc = rt_host_alloc,
    .host_free = rt_host_free,
#if defined(SQ_GPU_RT_CUDA)
    .host_register = rt_host_register,
    .host_unregister = rt_host_unregister,
#endif
    .upload = rt_upload,
    .download = rt_download,
    .copy2d = rt_copy2d,
    .upload2d = rt_upload2d,
    .launch = rt_launch,
    .event_record = rt_event_record,
    .event_query = rt_event_query,
    .event_sync = rt_event_sync,
    .stream_wait = rt_stream_wait,
    .event_elapsed = rt_event_elapsed,
    .enter = rt_enter,
    .leave = rt_leave,
    .device_memory = SQ_RT_DEVICE_MEMORY,
};

/* Expanded first: SQ_GPU_BACKEND pastes the variable's name into its open function's. */
#define RT_BACKEND(var, label, fns, list, devmem) SQ_GPU_BACKEND(var, label, fns, list, devmem)
RT_BACKEND(SQ_RT_BACKEND, SQ_RT_NAME, SQ_RT_FNS, rt_list_devices,
           SQ_RT_DEVICE_MEMORY < 0 ? 0 : SQ_RT_DEVICE_MEMORY)
