/*
 * OpenCL backend throughput: open time cold (empty program-binary cache)
 * and warm, frames per second for speed_chroma, speed_temporal and both
 * (8-bit 4:2:0, host memory, through the public API), host memory, and
 * the per-kernel time of a batch (speed_chroma, speed_temporal, adm, vif,
 * cambi);
 * the CPU backend for reference.
 *
 *   opencl_bench [-d DEVICE_SUBSTRING] [-s WxH] [-n FRAMES] [-g STAGING_THREADS]
 *                [-c CPU_FRAMES] [-t CPU_THREADS] [-f hw|soft|both]
 * (-g: n_threads of the OpenCL context, the host threads that stage a frame;
 * 4 by default, as bench/gpu_bench.c does for CUDA. -f: the doubles of the
 * program, through SPEEDQA_OPENCL_SOFT_F64: hardware where the device has
 * them, soft, or both one after the other with their ratio; without -f the
 * environment decides.)
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/backend.h"
#include "feature/feature.h"
#include "gpu/gpu.h"
#include "speedqa/speedqa.h"

#define KFRAMES 8

static const char *const kernel_names[SQ_K_COUNT] = {
#define SQ_KERNEL(name, args) #name,
#include "gpu/kernels.def"
#undef SQ_KERNEL
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* VmRSS / VmHWM of this process in MiB. */
static double vm_mib(const char *key)
{
    char line[256];
    double v = 0;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof(line), f))
        if (!strncmp(line, key, strlen(key)))
            v = atof(line + strlen(key) + 1) / 1024.0;
    if (f)
        fclose(f);
    return v;
}

static void logger(void *cookie, SpeedqaLogLevel level, const char *msg)
{
    (void)cookie;
    if (level <= SPEEDQA_LOG_WARNING)
        fprintf(stderr, "speedqa: %s\n", msg);
}

typedef struct Frames {
    SpeedqaFormat fmt;
    uint8_t *buf;
    SpeedqaPicture ref[KFRAMES], dis[KFRAMES];
} Frames;

/* Textured frames in the spirit of gen_synth (spec 6.4): pattern + noise, dis quantised. */
static int make_frames(Frames *fr, int w, int h)
{
    const size_t ysz = (size_t)w * h, csz = (size_t)(w / 2) * (h / 2), fsz = ysz + 2 * csz;
    fr->fmt = (SpeedqaFormat){ w, h, SPEEDQA_PIX_420, 8 };
    if (!(fr->buf = malloc(fsz * 2 * KFRAMES)))
        return -1;
    uint32_t s = 12345;
    for (int t = 0; t < KFRAMES; t++)
        for (int side = 0; side < 2; side++) {
            uint8_t *b = fr->buf + fsz * (size_t)(2 * t + side);
            SpeedqaPicture *p = side ? &fr->dis[t] : &fr->ref[t];
            memset(p, 0, sizeof(*p));
            p->format = fr->fmt;
            for (int c = 0; c < 3; c++) {
                const int pw = c ? w / 2 : w, ph = c ? h / 2 : h;
                uint8_t *d = b + (c ? ysz + (size_t)(c - 1) * csz : 0);
                p->data[c] = d;
                p->stride[c] = pw;
                s = 12345u + 1000003u * (uint32_t)t + 7919u * (uint32_t)c;
                for (int y = 0; y < ph; y++)
                    for (int x = 0; x < pw; x++) {
                        s = s * 1664525u + 1013904223u;
                        const uint32_t pat = ((uint32_t)(x * x + 2 * y * y + x * y) >> 4) + 9u * (uint32_t)t * (uint32_t)(c + 1);
                        int v = 48 + (int)(pat & 127) + (int)(s >> 27);
                        if (side)
                            v = ((v >> 3) << 3) + (int)((s >> 9) & 15);
                        d[(size_t)y * pw + x] = (uint8_t)v;
                    }
            }
        }
    return 0;
}

static int open_ctx(SpeedqaContext **ctx, SpeedqaBackend be, const Frames *fr, const char *const *feats,
                    const char *dev, int threads)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.format = fr->fmt;
    s.features = feats;
    s.backend = be;
    s.device_name = dev;
    s.n_threads = threads;
    s.logger = logger;
    /* the path being timed (set by main below); the library reads no environment */
    const char *soft = getenv("SPEEDQA_OPENCL_SOFT_F64");
    s.opencl.soft_f64 = soft && !strcmp(soft, "1");
    return speedqa_open(ctx, &s);
}

/* Send n frames (receiving as the queue allows), then flush and drain. */
static int stream(SpeedqaContext *ctx, const Frames *fr, int n)
{
    SpeedqaScores sc;
    int got = 0, ret = 0;
    for (int i = 0; i < n && ret >= 0; i++) {
        while ((ret = speedqa_send(ctx, &fr->ref[i % KFRAMES], &fr->dis[i % KFRAMES])) ==
               SPEEDQA_ERR(EAGAIN))
            if ((ret = speedqa_receive(ctx, &sc, 1, 0)) == 0)
                got++;
            else if (ret != SPEEDQA_ERR(EAGAIN))
                return ret;
        while (ret >= 0 && (ret = speedqa_receive(ctx, &sc, 1, 0)) == 0)
            got++;
        if (ret == SPEEDQA_ERR(EAGAIN))
            ret = 0;
    }
    speedqa_flush(ctx);
    while (ret >= 0 && got < n && (ret = speedqa_receive(ctx, &sc, 1, 0)) == 0)
        got++;
    return ret < 0 ? ret : got == n ? 0 : -EIO;
}

/* Frames per second over n frames after a warm-up; -1 on failure. */
static double fps(SpeedqaBackend be, const Frames *fr, const char *const *feats, const char *dev,
                  int threads, int n)
{
    SpeedqaContext *ctx;
    if (open_ctx(&ctx, be, fr, feats, dev, threads) < 0)
        return -1;
    double rate = -1;
    if (stream(ctx, fr, n < 64 ? n : 64) == 0) {
        const double t0 = now();
        if (stream(ctx, fr, n) == 0)
            rate = n / (now() - t0);
    }
    speedqa_close(&ctx);
    return rate;
}

/* Per-kernel ms of one batch through the backend's own entry points. */
static void kernel_profile(const Frames *fr, const char *feat, const char *dev)
{
    SqFeature ft;
    const SqAlloc a = { 0 };
    char err[400];
    if (sq_feature_open(&ft, feat, &fr->fmt, &a, err, sizeof(err)) < 0)
        return;
    SqBackendParams bp;
    memset(&bp, 0, sizeof(bp));
    bp.format = fr->fmt;
    sq_features_jobs(&ft, 1, &bp);
    bp.n_threads = 1;
    bp.device = -1;
    bp.device_name = dev;
    void *priv = NULL;
    if (sq_backend_opencl.open(&priv, &bp, err, sizeof(err)) < 0) {
        printf("  profile: %s\n", err);
        sq_feature_close(&ft);
        return;
    }
    SqGpuStats st;
    sq_gpu_stats(priv, &st);
    const int n = 4 * st.batch_frames;
    SqRawResult raw;
    sq_gpu_set_profile(priv, 1);
    int ret = 0;
    for (int i = 0; i < n && ret >= 0; i++) {
        const SpeedqaPicture *const pics[2] = { &fr->ref[i % KFRAMES], &fr->dis[i % KFRAMES] };
        while ((ret = sq_gpu_send(priv, pics, i == 0, err, sizeof(err))) == -EAGAIN)
            ret = sq_gpu_receive(priv, &raw, 1, err, sizeof(err));
    }
    double ms[SQ_K_COUNT];
    const int nb = sq_gpu_profile(priv, ms);
    printf("  %-14s batch %d frames, capacity %d, device arena %.1f MiB, pinned %.1f MiB; per batch (%d timed):",
           feat, st.batch_frames, st.capacity, st.arena_bytes / 1048576.0, st.pinned_bytes / 1048576.0, nb);
    double tot = 0;
    for (int k = 0; k < SQ_K_COUNT; k++)
        if (ms[k] > 0) {
            printf(" %s %.3f", kernel_names[k], ms[k]);
            tot += ms[k];
        }
    printf(" = %.3f ms (%.3f ms/frame)\n", tot, st.batch_frames ? tot / st.batch_frames : 0);
    sq_gpu_close(&priv);
    sq_feature_close(&ft);
}

/* What a SPEEDQA_OPENCL_SOFT_F64 value asks for (NULL: the environment's own). */
static const char *path_name(const char *v)
{
    return !v ? "default" : strcmp(v, "0") ? "soft" : "hardware";
}

static double open_ms(const Frames *fr, const char *dev)
{
    SpeedqaContext *ctx;
    const char *feats[] = { "speed_chroma", "speed_temporal", NULL };
    const double t0 = now();
    if (open_ctx(&ctx, SPEEDQA_BACKEND_OPENCL, fr, feats, dev, 1) < 0)
        return -1;
    const double t = (now() - t0) * 1e3;
    speedqa_close(&ctx);
    return t;
}

/* The bench's own cache folder (cold and warm opens), removed at exit. */
static char cache_dir[] = "/tmp/speedqa-bench-XXXXXX";

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void remove_cache_dir(void)
{
    nftw(cache_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(int argc, char **argv)
{
    const char *dev = getenv("SPEEDQA_OPENCL_DEVICE");
    int w = 1920, h = 1080, n = 240, ncpu = 24, cpu_threads = 0, gpu_threads = 4;
    const char *f64 = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-d"))
            dev = argv[i + 1];
        else if (!strcmp(argv[i], "-s"))
            sscanf(argv[i + 1], "%dx%d", &w, &h);
        else if (!strcmp(argv[i], "-n"))
            n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-c"))
            ncpu = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-t"))
            cpu_threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-g"))
            gpu_threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-f"))
            f64 = argv[i + 1];
    }
    /* paths[] are the SPEEDQA_OPENCL_SOFT_F64 values to time: "0" hardware, "1" soft. */
    const char *paths[2] = { NULL, NULL };
    int npaths = 1;
    if (f64 && !strcmp(f64, "both")) {
        paths[0] = "0";
        paths[1] = "1";
        npaths = 2;
    } else if (f64) {
        paths[0] = !strcmp(f64, "soft") ? "1" : "0";
    }
    if (paths[0])
        setenv("SPEEDQA_OPENCL_SOFT_F64", paths[0], 1);
    /*
     * Cold: an empty cache folder (and no driver-side JIT cache), set before
     * the OpenCL runtime first starts; warm: the same folder again.
     */
    char *dir = cache_dir;
    if (mkdtemp(dir)) {
        atexit(remove_cache_dir);
        setenv("XDG_CACHE_HOME", dir, 1);
        setenv("CUDA_CACHE_DISABLE", "1", 1);
        char pocl[sizeof(cache_dir) + 8];
        snprintf(pocl, sizeof(pocl), "%s/pocl", dir);
        setenv("POCL_CACHE_DIR", pocl, 1);
    }
    char list[4096];
    if (speedqa_list_devices(SPEEDQA_BACKEND_OPENCL, list, sizeof(list)) <= 0) {
        printf("no OpenCL device: skipped\n");
        return 77;
    }
    printf("OpenCL devices:\n%s", list);
    Frames fr;
    if (make_frames(&fr, w, h) < 0)
        return 1;

    const double rss0 = vm_mib("VmRSS:");
    for (int p = 0; p < npaths; p++) {
        if (paths[p])
            setenv("SPEEDQA_OPENCL_SOFT_F64", paths[p], 1);
        const double cold = open_ms(&fr, dev), warm = open_ms(&fr, dev), warm2 = open_ms(&fr, dev);
        printf("open (chroma + temporal, %dx%d, %s doubles): cold %.0f ms, warm %.0f / %.0f ms "
               "(program binary from %s/speedqa)\n",
               w, h, path_name(paths[p]), cold, warm, warm2, dir);
        if (cold < 0)
            return 1;
    }

    static const char *const sets[3][3] = {
        { "speed_chroma", NULL }, { "speed_temporal", NULL }, { "speed_chroma", "speed_temporal", NULL } };
    static const char *const labels[3] = { "speed_chroma", "speed_temporal", "both" };
    printf("%dx%d 8-bit 4:2:0, host memory, %d frames, %d staging threads (CPU: %d frames, %d threads):\n",
           w, h, n, gpu_threads, ncpu, cpu_threads ? cpu_threads : (int)sysconf(_SC_NPROCESSORS_ONLN));
    for (int i = 0; i < 3; i++) {
        double g[2] = { 0, 0 };
        for (int p = 0; p < npaths; p++) {
            if (paths[p])
                setenv("SPEEDQA_OPENCL_SOFT_F64", paths[p], 1);
            const double hwm0 = vm_mib("VmHWM:");
            g[p] = fps(SPEEDQA_BACKEND_OPENCL, &fr, sets[i], dev, gpu_threads, n);
            const double hwm1 = vm_mib("VmHWM:");
            const double c = ncpu > 0 && p == 0 ? fps(SPEEDQA_BACKEND_CPU, &fr, sets[i], NULL, cpu_threads, ncpu) : 0;
            printf("  %-15s opencl %8.1f fps (%.3f ms/frame, %s doubles)   cpu %7.1f fps   peak RSS %.0f MiB (+%.0f)\n",
                   labels[i], g[p], g[p] > 0 ? 1e3 / g[p] : 0, path_name(paths[p]), c, hwm1, hwm1 - hwm0);
        }
        if (npaths == 2 && g[0] > 0 && g[1] > 0)
            printf("  %-15s soft / hardware doubles: %.3f of the fps (%.1f%% slower)\n", labels[i],
                   g[1] / g[0], 100.0 * (g[0] / g[1] - 1.0));
    }
    printf("process RSS: %.0f MiB at start, %.0f MiB now, peak %.0f MiB\n", rss0, vm_mib("VmRSS:"),
           vm_mib("VmHWM:"));
    printf("per-kernel device time (profiling on, batches waited for):\n");
    for (int p = 0; p < npaths; p++) {
        if (paths[p])
            setenv("SPEEDQA_OPENCL_SOFT_F64", paths[p], 1);
        printf(" %s doubles:\n", path_name(paths[p]));
        kernel_profile(&fr, "speed_chroma", dev);
        kernel_profile(&fr, "speed_temporal", dev);
        kernel_profile(&fr, "adm", dev);
        kernel_profile(&fr, "vif", dev);
        kernel_profile(&fr, "cambi", dev);
    }
    free(fr.buf);
    return 0;
}
