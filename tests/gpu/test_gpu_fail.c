/*
 * Failure paths of the GPU pipeline: every fallible runtime call (open,
 * device and pinned allocation, copies, launches, events, context entry)
 * and every host allocation is made to fail in turn while a short stream
 * is scored. Each time the error must come back with a message, stay
 * sticky, and closing must leave no device memory, pinned memory, device
 * handle or host allocation behind. A real runtime adds: no such device,
 * no device of that name (CUDA: and no driver library).
 *
 *   test_gpu_fail null|cuda|hip|opencl
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "common/util.h"
#include "config.h"
#include "null_gpu.h"
#include "runner.h"
#if SQ_HAVE_CUDA
#include "gpu/cuda/cuda.h"
#endif

/* ---- a vtable that fails its Nth fallible call -------------------------- */

static const SqGpuFns *inner;
static long calls, fail_at, live_dev, live_host, live_handles;
static char injected[128];

static int inject(const char *what, int code)
{
    if (++calls != fail_at)
        return 0;
    snprintf(injected, sizeof(injected), "injected failure of %s (call %ld)", what, calls);
    return code;
}

static int f_open(SqGpuDev **d, int device, int nev, const SqAlloc *a, char *err, size_t len)
{
    int ret = inject("open", -ENODEV);
    if (ret) {
        *d = NULL;
        snprintf(err, len, "%s", injected);
        return ret;
    }
    if ((ret = inner->open(d, device, nev, a, err, len)) == 0)
        live_handles++;
    return ret;
}
static void f_close(SqGpuDev **d)
{
    if (*d)
        live_handles--;
    inner->close(d);
}
static const char *f_error(const SqGpuDev *d)
{
    return injected[0] ? injected : inner->error(d);
}
static int f_alloc(SqGpuDev *d, size_t n, SqGpuAddr *p)
{
    int ret = inject("alloc", -ENOMEM);
    if (!ret && (ret = inner->alloc(d, n, p)) == 0)
        live_dev++;
    return ret;
}
static void f_free(SqGpuDev *d, SqGpuAddr p)
{
    live_dev--;
    inner->free(d, p);
}
static int f_host_alloc(SqGpuDev *d, size_t n, void **p)
{
    int ret = inject("host_alloc", -ENOMEM);
    if (!ret && (ret = inner->host_alloc(d, n, p)) == 0)
        live_host++;
    return ret;
}
static void f_host_free(SqGpuDev *d, void *p)
{
    live_host--;
    inner->host_free(d, p);
}
static int f_upload(SqGpuDev *d, int s, SqGpuAddr dst, const void *src, size_t n)
{
    int ret = inject("upload", -EIO);
    return ret ? ret : inner->upload(d, s, dst, src, n);
}
static int f_download(SqGpuDev *d, int s, void *dst, SqGpuAddr src, size_t n)
{
    int ret = inject("download", -EIO);
    return ret ? ret : inner->download(d, s, dst, src, n);
}
static int f_copy2d(SqGpuDev *d, int s, SqGpuAddr dst, size_t dp, SqGpuAddr src, size_t sp,
                    size_t w, size_t h)
{
    int ret = inject("copy2d", -EIO);
    return ret ? ret : inner->copy2d(d, s, dst, dp, src, sp, w, h);
}
static int f_launch(SqGpuDev *d, int s, int k, const unsigned g[3], unsigned b, SqGpuAddr a,
                    const SqKArgs *args)
{
    int ret = inject("launch", -EIO);
    return ret ? ret : inner->launch(d, s, k, g, b, a, args);
}
static int f_event_record(SqGpuDev *d, int e, int s)
{
    int ret = inject("event_record", -EIO);
    return ret ? ret : inner->event_record(d, e, s);
}
static int f_event_query(SqGpuDev *d, int e)
{
    int ret = inject("event_query", -EIO);
    return ret ? ret : inner->event_query(d, e);
}
static int f_event_sync(SqGpuDev *d, int e)
{
    int ret = inject("event_sync", -EIO);
    return ret ? ret : inner->event_sync(d, e);
}
static int f_stream_wait(SqGpuDev *d, int s, int e)
{
    int ret = inject("stream_wait", -EIO);
    return ret ? ret : inner->stream_wait(d, s, e);
}
static int f_event_elapsed(SqGpuDev *d, int a, int b, float *ms)
{
    return inner->event_elapsed(d, a, b, ms);
}
static int f_enter(SqGpuDev *d)
{
    int ret = inject("enter", -EIO);
    return ret ? ret : inner->enter ? inner->enter(d) : 0;
}
static void f_leave(SqGpuDev *d)
{
    if (inner->leave)
        inner->leave(d);
}
static size_t f_max_alloc(const SqGpuDev *d)
{
    return inner->max_alloc ? inner->max_alloc(d) : 0;
}

static SqGpuFns faulty = {
    .name = "faulty", .open = f_open, .close = f_close, .error = f_error, .alloc = f_alloc,
    .free = f_free, .host_alloc = f_host_alloc, .host_free = f_host_free, .upload = f_upload,
    .download = f_download, .copy2d = f_copy2d, .launch = f_launch,
    .event_record = f_event_record, .event_query = f_event_query, .event_sync = f_event_sync,
    .stream_wait = f_stream_wait, .event_elapsed = f_event_elapsed, .enter = f_enter,
    .leave = f_leave, .max_alloc = f_max_alloc,
};

/* ---- a host allocator that fails its Nth call and counts what is live --- */

static long host_calls, host_fail_at, host_live;

static void *h_alloc(void *opaque, size_t n)
{
    (void)opaque;
    if (++host_calls == host_fail_at)
        return NULL;
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 1))
        return NULL;
    host_live++;
    return p;
}

static void h_free(void *opaque, void *p)
{
    (void)opaque;
    host_live--;
    free(p);
}

/* ---- the scenario -------------------------------------------------------- */

static int failures;
static long calls_before_close; /* close cannot report: its calls are not broken */

#define CHECK(cond, ...)                  \
    do {                                  \
        if (!(cond)) {                    \
            printf("FAIL: " __VA_ARGS__); \
            printf("\n");                 \
            failures++;                   \
        }                                 \
    } while (0)

/* Score `c` (4 frames, one device-resident picture) once; 0 or the first error. */
static int scenario(Case *c, const SqAlloc *a, int threads, char *err, size_t len)
{
    Runner r;
    double out[CASE_MAX_FRAMES * TEST_MAX_SCORES];
    err[0] = '\0';
    int ret = runner_open(&r, NULL, &faulty, &c->fmt, c->featp, threads, a, err, len);
    if (ret < 0)
        return ret;
    ret = runner_run(&r, c->ref, c->dis, c->nframes, c->new_seq, out, err, len);
    if (ret < 0) {
        /* sticky: the next call fails the same way without touching the device */
        char err2[400];
        const long before = calls;
        SqRawResult raw;
        int again = sq_gpu_receive(r.priv, &raw, 1, err2, sizeof(err2));
        CHECK(again == ret && calls == before, "error not sticky (%d then %d)", ret, again);
        const SpeedqaPicture *const pics[2] = { &c->ref[0], &c->dis[0] };
        again = sq_gpu_send(r.priv, pics, 0, err2, sizeof(err2));
        CHECK(again == ret && !strcmp(err, err2), "send after error: %d '%s'", again, err2);
    }
    calls_before_close = calls;
    runner_close(&r);
    return ret;
}

static void check_clean(const char *what, long n)
{
    CHECK(!live_dev && !live_host && !live_handles && !host_live,
          "%s %ld: leaked %ld device, %ld pinned, %ld handles, %ld host allocations", what, n,
          live_dev, live_host, live_handles, host_live);
    live_dev = live_host = live_handles = host_live = 0;
}

static int sweep(const SqGpuFns *fns)
{
    uint64_t rng = 42;
    Case c;
    Case *cp = &c;
    for (;;) { /* a 4:2:0 case big enough for both features, with a device picture */
        if (case_random(cp, &rng, 0, 640, 480) < 0)
            return 1;
        if (cp->fmt.fmt == SPEEDQA_PIX_420 && cp->fmt.width >= 320 && cp->fmt.height >= 240)
            break;
        case_free(cp);
    }
    snprintf(c.feat[0], sizeof(c.feat[0]), "speed_chroma");
    snprintf(c.feat[1], sizeof(c.feat[1]), "speed_temporal=speed_prescale=0.75");
    c.featp[0] = c.feat[0];
    c.featp[1] = c.feat[1];
    c.featp[2] = NULL;
    c.nfeat = 2;
    if (fns == &sq_null_gpu_fns) /* host pointers are the null GPU's device memory */
        for (int t = 0; t < c.nframes; t++)
            c.dis[t].memory = SPEEDQA_MEM_CUDA;
    inner = fns;
    faulty.device_memory = fns->device_memory;
    const SqAlloc counted = { h_alloc, h_free, NULL };
    char err[400];

    /* a clean run: how many calls there are to break */
    calls = 0;
    fail_at = -1;
    int ret = scenario(&c, &counted, 2, err, sizeof(err));
    CHECK(ret == 0, "clean run failed: %s", err);
    const long total = calls_before_close, host_total = host_calls;
    check_clean("clean run", 0);
    printf("%s: %ld runtime calls, %ld host allocations in a clean run\n", fns->name, total, host_total);

    for (long n = 1; n <= total; n++) {
        calls = 0;
        fail_at = n;
        injected[0] = '\0';
        ret = scenario(&c, &counted, 2, err, sizeof(err));
        CHECK(ret < 0, "runtime call %ld failing went unnoticed", n);
        CHECK(ret == -ENOMEM || ret == -EIO || ret == -ENODEV, "runtime call %ld: code %d", n, ret);
        CHECK(strstr(err, "injected") != NULL, "runtime call %ld: message '%s'", n, err);
        check_clean("runtime call", n);
    }
    fail_at = -1;
    long absorbed = 0;
    for (long n = 1; n <= host_total; n++) {
        host_calls = 0;
        host_fail_at = n;
        ret = scenario(&c, &counted, 2, err, sizeof(err));
        if (ret == 0 && !strcmp(fns->name, "opencl")) {
            /* the program-binary cache's buffers: a miss, then a build from source */
            absorbed++;
        } else {
            CHECK(ret == -ENOMEM, "host allocation %ld: code %d (%s)", n, ret, err);
            CHECK(err[0] != '\0', "host allocation %ld: no message", n);
        }
        check_clean("host allocation", n);
    }
    host_fail_at = 0;
    printf("%s: failed each of %ld runtime calls and %ld host allocations in turn "
           "(%ld done without)\n", fns->name, total, host_total, absorbed);
    case_free(&c);
    return 0;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "null";
    const SqGpuFns *fns = runner_gpu_fns(which);
    char err[400];
    static const SqAlloc plain = { 0 };
    SqGpuDev *keep = NULL;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!fns) {
        printf("SKIP: %s not built\n", which);
        return 77;
    }
#if SQ_HAVE_CUDA
    if (fns == &sq_gpu_cuda_fns) {
        SqGpuDev *d = NULL;
        /* no driver library: clean -ENODEV, nothing held */
        int ret = sq_cuda_open_lib(&d, "libcuda-speedqa-missing.so.1", -1, NULL, 1, &plain, err,
                                   sizeof(err));
        CHECK(ret == -ENODEV && !d && strstr(err, "no CUDA driver"), "missing driver: %d '%s'", ret, err);
    }
#endif
    if (fns != &sq_null_gpu_fns) {
        /* the real runtime: without one (CI) the backend says so and we skip */
        SqGpuDev *d = NULL;
        int ret = fns->open(&keep, -1, 1, &plain, err, sizeof(err));
        if (ret < 0) {
            CHECK(ret == -ENODEV && !keep && err[0], "no device: %d '%s'", ret, err);
            printf("%s\nSKIP: %s\n", failures ? "FAIL" : "no-driver checks passed", err);
            return failures ? 1 : 77;
        }
        /* `keep` stays open across the sweep's opens (CUDA: the primary context) */
        if (fns->open_named) {
            ret = fns->open_named(&d, "no-such-gpu-name", 1, &plain, err, sizeof(err));
            CHECK(ret == -ENODEV && !d && strstr(err, "no-such-gpu-name"), "bad name: %d '%s'", ret, err);
        }
        ret = fns->open(&d, 99, 1, &plain, err, sizeof(err));
        CHECK(ret == -ENODEV && !d && err[0], "device 99: %d '%s'", ret, err);
        printf("%s: no such device: %s\n", fns->name, err);
    }
    sweep(fns);
    if (keep)
        fns->close(&keep);
    printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
