/*
 * GPU throughput against the CPU backend, in one run: frames per second at
 * 576x324, 1920x1080 and 3840x2160 (8-bit 4:2:0, or -b 10) for speed_chroma,
 * speed_temporal and both and, with -m, the GPU features of the VMAF models
 * (vmaf_v0.6.1: motion, adm, vif; vmaf_v1.0.16_3d0h_2160: cambi, speed_chroma,
 * adm, motion with its options, and the same without cambi); from host memory and
 * device-resident; the
 * pinned host-to-device copy time of the planes; the host staging copy;
 * and the per-kernel time of a batch.
 *
 *   gpu_bench [cuda|null] [-t STAGING_THREADS] [-c CPU_THREADS] [-s WxH,...] [-b BPC] [-m] [-q]
 *             [-g] [-k SETS]
 *
 * -g: device-resident frames only (no CPU or host-memory column, no copy
 * timings); -k: the feature sets by number (0 chroma .. 5 v1.0.16), e.g. -k 4,5.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cases.h"
#include "common/util.h"
#include "config.h"
#include "null_gpu.h"
#include "runner.h"
#if SQ_HAVE_CUDA
#include "gpu/cuda/cuda.h"
#endif

#define KFRAMES 8

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *const kernel_names[SQ_K_COUNT] = {
#define SQ_KERNEL(name, args) #name,
#include "gpu/kernels.def"
#undef SQ_KERNEL
};

typedef struct Bench {
    const SqGpuFns *fns;
    SqGpuDev *dev;       /* the bench's own handle: device frames, copy timing */
    int stage_threads, cpu_threads, quick, bpc, models, gpu_only;
    unsigned sets; /* bit k: feature set k runs */
} Bench;

/* Frames per second of `n` frames cycling over the case's KFRAMES pairs. */
static double run_fps(const Bench *b, const SqBackend *be, const Case *c, const SpeedqaPicture *ref,
                      const SpeedqaPicture *dis, const char *const *feats, int threads, int n,
                      int profile, double *prof, SqGpuStats *st)
{
    Runner r;
    char err[400];
    SpeedqaPicture *rp = malloc(sizeof(*rp) * (size_t)n), *dp = malloc(sizeof(*dp) * (size_t)n);
    double *out = malloc(sizeof(double) * (size_t)n * TEST_MAX_SCORES);
    double fps = -1;
    if (!rp || !dp || !out)
        goto done;
    for (int i = 0; i < n; i++) {
        rp[i] = ref[i % KFRAMES];
        dp[i] = dis[i % KFRAMES];
    }
    if (runner_open(&r, be, be ? NULL : b->fns, &c->fmt, feats, threads, NULL, err, sizeof(err)) < 0) {
        printf("open failed: %s\n", err);
        goto done;
    }
    /* warm-up: first launches, page faults of the staging buffers */
    const int warm = n < 64 ? n : 64;
    if (runner_run(&r, rp, dp, warm, NULL, out, err, sizeof(err)) < 0) {
        printf("run failed: %s\n", err);
        runner_close(&r);
        goto done;
    }
    if (!be && profile)
        sq_gpu_set_profile(r.priv, 1);
    const double t0 = now();
    int ret = runner_run(&r, rp, dp, n, NULL, out, err, sizeof(err));
    const double t1 = now();
    if (ret < 0)
        printf("run failed: %s\n", err);
    else
        fps = n / (t1 - t0);
    if (!be && profile)
        sq_gpu_profile(r.priv, prof);
    if (!be && st)
        sq_gpu_stats(r.priv, st);
    runner_close(&r);
done:
    free(rp);
    free(dp);
    free(out);
    return fps;
}

/* Pinned host-to-device time of `bytes`, ms per copy (events, 50 copies). */
static double h2d_ms(const Bench *b, size_t bytes)
{
    void *host = NULL;
    SqGpuAddr dst = 0;
    double ms = -1;
    float t = 0;
    const int reps = 50;
    if (b->fns->enter)
        b->fns->enter(b->dev);
    if (b->fns->host_alloc(b->dev, bytes, &host) < 0)
        goto done;
    memset(host, 1, bytes);
    if (b->fns->alloc(b->dev, bytes, &dst) < 0)
        goto done;
    b->fns->upload(b->dev, SQ_GPU_STREAM_COPY, dst, host, bytes);
    b->fns->event_record(b->dev, 0, SQ_GPU_STREAM_COPY);
    for (int i = 0; i < reps; i++)
        b->fns->upload(b->dev, SQ_GPU_STREAM_COPY, dst, host, bytes);
    b->fns->event_record(b->dev, 1, SQ_GPU_STREAM_COPY);
    if (b->fns->event_sync(b->dev, 1) == 0 && b->fns->event_elapsed(b->dev, 0, 1, &t) == 0)
        ms = t / reps;
done:
    if (dst)
        b->fns->free(b->dev, dst);
    if (host)
        b->fns->host_free(b->dev, host);
    if (b->fns->leave)
        b->fns->leave(b->dev);
    return ms;
}

/* Bytes the features read per frame (ref + dis): whole planes, and the staged rows. */
static void frame_bytes(const SpeedqaFormat *f, int chroma, int temporal, size_t *whole, size_t *rows)
{
    *whole = *rows = 0;
    for (int p = 0; p < 3; p++) {
        if ((p == 0 && !temporal) || (p > 0 && !chroma))
            continue;
        const int w = p ? f->width >> 1 : f->width, h = p ? f->height >> 1 : f->height;
        const size_t bps = f->bpc > 8 ? 2 : 1;
        *whole += 2 * bps * (size_t)w * (size_t)h;
        *rows += 2 * bps * (size_t)w * (size_t)((h >> 4) * 9 < h ? (h >> 4) * 9 : h);
    }
}

static void bench_size(Bench *b, int w, int h)
{
    const SpeedqaFormat fmt = { w, h, SPEEDQA_PIX_420, b->bpc };
    Case c, dc;
    if (case_fixed(&c, &fmt, KFRAMES, 1) < 0 || case_fixed(&dc, &fmt, KFRAMES, 1) < 0) {
        printf("out of memory\n");
        return;
    }
    /* device-resident copies */
    SqGpuAddr mem[2] = { 0, 0 };
    int have_dev = b->fns->device_memory == SPEEDQA_MEM_CUDA;
    if (b->fns->enter)
        b->fns->enter(b->dev);
    for (int s = 0; s < 2 && have_dev; s++) {
        const size_t bytes = dc.frame_bytes * KFRAMES;
        if (b->fns->alloc(b->dev, bytes, &mem[s]) < 0 ||
            b->fns->upload(b->dev, SQ_GPU_STREAM_COPY, mem[s], dc.buf[s], bytes) < 0 ||
            b->fns->event_record(b->dev, 0, SQ_GPU_STREAM_COPY) < 0 ||
            b->fns->event_sync(b->dev, 0) < 0) {
            have_dev = 0;
            break;
        }
        for (int t = 0; t < KFRAMES; t++) {
            SpeedqaPicture *pic = s ? &dc.dis[t] : &dc.ref[t];
            for (int p = 0; p < 3; p++)
                pic->data[p] = (const void *)(uintptr_t)(mem[s] + (SqGpuAddr)((const uint8_t *)pic->data[p] - dc.buf[s]));
            pic->memory = SPEEDQA_MEM_CUDA;
        }
    }
    if (b->fns->leave)
        b->fns->leave(b->dev);
    const double px = (double)w * h;
    const int n_gpu = b->quick ? 64 : px <= 2e5 ? 20000 : px <= 2.1e6 ? 4000 : 1500;
    const int n_cpu = b->quick ? 4 : px <= 2e5 ? 200 : px <= 2.1e6 ? 24 : 8;
    static const char *const sets[6][5] = {
        { "speed_chroma", NULL, NULL, NULL },
        { "speed_temporal", NULL, NULL, NULL },
        { "speed_chroma", "speed_temporal", NULL, NULL },
        { "motion", "adm", "vif", NULL },
        { "speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:"
          "speed_prescale=0.5:speed_prescale_method=bilinear:speed_max_val=45",
          "adm=adm_dlm_weight=0.7:adm_enhn_gain_limit=1:adm_noise_weight=0.02:"
          "adm_norm_view_dist=3:adm_ref_display_height=2160:adm_min_val=0.5:adm_csf_mode=2",
          "motion=motion_max_val=18", NULL },
        { "speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:"
          "speed_prescale=0.5:speed_prescale_method=bilinear:speed_max_val=45",
          "adm=adm_dlm_weight=0.7:adm_enhn_gain_limit=1:adm_noise_weight=0.02:"
          "adm_norm_view_dist=3:adm_ref_display_height=2160:adm_min_val=0.5:adm_csf_mode=2",
          "motion=motion_max_val=18",
          "cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17",
          NULL },
    };
    static const char *const set_names[6] = { "chroma", "temporal", "both", "v0.6.1", "v1-cambi",
                                              "v1.0.16" };
    printf("\n== %dx%d %d-bit 4:2:0\n", w, h, b->bpc);
    printf("%-9s %12s %12s %14s %14s   %s\n", "features", "cpu 1 thr", "cpu N thr", "gpu host mem",
           "gpu dev mem", "fps; gpu host mem / cpu N thr");
    double prof[SQ_K_COUNT] = { 0 };
    SqGpuStats st = { 0 };
    int prof_set = b->models ? 5 : 2; /* the profile's: the last set asked for */
    for (int k = 0; k < (b->models ? 6 : 3); k++) {
        if (!(b->sets >> k & 1))
            continue;
        prof_set = k;
        const int all = !b->gpu_only;
        const double cpu1 = all ? run_fps(b, &sq_backend_cpu, &c, c.ref, c.dis, sets[k], 1, n_cpu, 0, NULL, NULL) : -1;
        const double cpun = all ? run_fps(b, &sq_backend_cpu, &c, c.ref, c.dis, sets[k], b->cpu_threads,
                                          n_cpu * b->cpu_threads / 2 + 8, 0, NULL, NULL) : -1;
        const double gh = all ? run_fps(b, NULL, &c, c.ref, c.dis, sets[k], b->stage_threads, n_gpu, 0,
                                        NULL, k == 2 ? &st : NULL) : -1;
        const double gd = have_dev ? run_fps(b, NULL, &dc, dc.ref, dc.dis, sets[k], 1, n_gpu, 0, NULL, NULL) : -1;
        printf("%-9s %12.1f %12.1f %14.1f %14.1f   %.2fx\n", set_names[k], cpu1, cpun, gh, gd,
               cpun > 0 ? gh / cpun : 0.0);
    }
    /* per kernel, device-resident so the host copy does not pace the batches */
    if (b->gpu_only) {
        run_fps(b, NULL, have_dev ? &dc : &c, have_dev ? dc.ref : c.ref, have_dev ? dc.dis : c.dis,
                sets[prof_set], 1, n_gpu / 4 + 64, 1, prof, &st);
        double total = 0;
        printf("kernels per batch of %d frames (%s): ", st.batch_frames, set_names[prof_set]);
        for (int k = 0; k < SQ_K_COUNT; k++) {
            total += prof[k];
            if (prof[k] > 0)
                printf("%s %.3f ", kernel_names[k], prof[k]);
        }
        printf("= %.3f ms (%.1f us/frame)\n", total, st.batch_frames ? total * 1000 / st.batch_frames : 0);
        goto done;
    }
    run_fps(b, NULL, have_dev ? &dc : &c, have_dev ? dc.ref : c.ref, have_dev ? dc.dis : c.dis,
            sets[prof_set], 1, n_gpu / 4 + 64, 1, prof, NULL);
    size_t whole, rows;
    frame_bytes(&fmt, 1, 1, &whole, &rows);
    const double ms_whole = h2d_ms(b, whole), ms_rows = h2d_ms(b, rows);
    /* host staging copy of the rows read, one thread (what send() does with -t 1) */
    uint8_t *dst = malloc(whole);
    double stage_ms = -1;
    unsigned sum = 0;
    if (dst) {
        memset(dst, 0, whole);
        const double t0 = now();
        for (int i = 0; i < 2 * KFRAMES; i++) { /* cold sources: the case's frames */
            memcpy(dst, c.buf[i & 1] + (size_t)(i / 2) * c.frame_bytes, rows / 2);
            sum += dst[i];
        }
        stage_ms = (now() - t0) * 1000.0 / KFRAMES;
    }
    free(dst);
    /* host input: how the staging threads scale (both features) */
    printf("gpu host mem, both, by staging threads:");
    for (int th = 1; th <= 16 && !b->quick; th *= 2)
        printf(" %d: %.1f", th, run_fps(b, NULL, &c, c.ref, c.dis, sets[2], th, n_gpu / 2, 0, NULL, NULL));
    printf(" fps\n");
    printf("batch %d frames, capacity %d, arena %.1f MB, pinned %.1f MB\n", st.batch_frames,
           st.capacity, st.arena_bytes / 1048576.0, st.pinned_bytes / 1048576.0);
    printf("copy per frame (both features, ref+dis): whole planes %.2f MB pinned H2D %.3f ms; "
           "rows read %.2f MB pinned H2D %.3f ms; host memcpy of those rows %.3f ms (1 thread)%s\n",
           whole / 1e6, ms_whole, rows / 1e6, ms_rows, stage_ms, sum == 12345 ? " " : "");
    double total = 0;
    for (int k = 0; k < SQ_K_COUNT; k++)
        total += prof[k];
    printf("kernels per batch of %d frames (%s): ", st.batch_frames, set_names[prof_set]);
    for (int k = 0; k < SQ_K_COUNT; k++)
        if (prof[k] > 0)
            printf("%s %.3f ", kernel_names[k], prof[k]);
    printf("= %.3f ms (%.1f us/frame)\n", total, st.batch_frames ? total * 1000 / st.batch_frames : 0);
done:
    for (int s = 0; s < 2; s++)
        if (mem[s])
            b->fns->free(b->dev, mem[s]);
    case_free(&c);
    case_free(&dc);
}

int main(int argc, char **argv)
{
    Bench b = { 0 };
    const char *sizes = "576x324,1920x1080,3840x2160";
    b.fns = &sq_null_gpu_fns;
    b.stage_threads = 4;
    b.cpu_threads = 8;
    b.bpc = 8;
    b.sets = ~0u;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "null"))
            b.fns = &sq_null_gpu_fns;
#if SQ_HAVE_CUDA
        else if (!strcmp(argv[i], "cuda"))
            b.fns = &sq_gpu_cuda_fns;
#endif
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            b.stage_threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-c") && i + 1 < argc)
            b.cpu_threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            sizes = argv[++i];
        else if (!strcmp(argv[i], "-b") && i + 1 < argc)
            b.bpc = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-m"))
            b.models = 1;
        else if (!strcmp(argv[i], "-q"))
            b.quick = 1;
        else if (!strcmp(argv[i], "-g"))
            b.gpu_only = 1;
        else if (!strcmp(argv[i], "-k") && i + 1 < argc) {
            b.sets = 0;
            for (const char *p = argv[++i]; *p; p++)
                if (*p >= '0' && *p <= '5')
                    b.sets |= 1u << (*p - '0');
        } else {
            fprintf(stderr, "usage: %s [cuda|null] [-t STAGING_THREADS] [-c CPU_THREADS] [-s WxH,...] [-b BPC] [-m] [-q] [-g] [-k SETS]\n", argv[0]);
            return 2;
        }
    }
    static const SqAlloc plain = { 0 };
    char err[400];
    if (b.fns->open(&b.dev, -1, 2, &plain, err, sizeof(err)) < 0) {
        printf("SKIP: %s: %s\n", b.fns->name, err);
        return 77;
    }
    printf("gpu_bench: %s, %d staging threads, CPU backend with 1 and %d threads\n", b.fns->name,
           b.stage_threads, b.cpu_threads);
    for (const char *s = sizes; s && *s;) {
        int w = 0, h = 0;
        if (sscanf(s, "%dx%d", &w, &h) == 2 && w > 0 && h > 0)
            bench_size(&b, w, h);
        s = strchr(s, ',');
        if (s)
            s++;
    }
    b.fns->close(&b.dev);
    return 0;
}
