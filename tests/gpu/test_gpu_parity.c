/*
 * GPU pipeline == CPU backend, bit for bit: every synthetic golden case and
 * N random cases (sizes up to MAXWxMAXH, 4:0:0/4:2:0/4:2:2/4:4:4, 8-16 bit,
 * random options incl. prescale and kernelscales, textures down to flat
 * planes that go singular, negative strides, device-resident pictures,
 * sequence restarts). Every output double is compared bit for bit, and every
 * published one must be finite.
 *
 *   test_gpu_parity null|cuda|hip|opencl GOLDEN_DIR WORK_DIR NRANDOM SEED MAXW MAXH [CPU_THREADS]
 *
 * null: the host emulator of the GPU (tests/gpu/null_gpu.c), runs anywhere.
 * cuda, hip, opencl: that runtime's plumbing under the same pipeline and
 * kernel source; exits 77 (skip) without driver or device.
 * SPEEDQA_GPU_DEVICE=substring picks the device by name (e.g. NVIDIA for
 * the OpenCL platform of an NVIDIA driver); SPEEDQA_PARITY_SECONDS=s stops
 * drawing random cases s seconds after the start. Device-resident pictures are
 * used where the runtime takes them (device_memory >= 0).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cases.h"
#include "common/json.h"
#include "common/synth.h"
#include "common/util.h"
#include "config.h"
#include "null_gpu.h"
#include "runner.h"


typedef struct Totals {
    int cases, golden, random, rejected, failed;
    long values, mismatches;
    double cpu_s, gpu_s;
} Totals;

/* Bit for bit: two identical NaNs are the same, +0 and -0 are not. */
static int same_bits(double x, double y)
{
    uint64_t u, v;
    memcpy(&u, &x, sizeof(u));
    memcpy(&v, &y, sizeof(v));
    return u == v;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Device copies of a case's frames, through the runtime's own vtable. */
typedef struct DevFrames {
    SqGpuDev *dev;
    const SqGpuFns *fns;
    SqGpuAddr mem[2];
} DevFrames;

static int to_device(DevFrames *df, Case *c)
{
    if (df->fns->enter && df->fns->enter(df->dev) < 0)
        return -EIO;
    for (int s = 0; s < 2; s++) {
        const size_t bytes = c->frame_bytes * (size_t)c->nframes;
        int ret;
        if ((ret = df->fns->alloc(df->dev, bytes, &df->mem[s])) < 0 ||
            (ret = df->fns->upload(df->dev, SQ_GPU_STREAM_COPY, df->mem[s], c->buf[s], bytes)) < 0 ||
            (ret = df->fns->event_record(df->dev, 0, SQ_GPU_STREAM_COPY)) < 0 ||
            (ret = df->fns->event_sync(df->dev, 0)) < 0) {
            if (df->fns->leave)
                df->fns->leave(df->dev);
            return ret;
        }
        for (int t = 0; t < c->nframes; t++) {
            SpeedqaPicture *pic = s ? &c->dis[t] : &c->ref[t];
            for (int p = 0; p < 3; p++)
                pic->data[p] = (const void *)(uintptr_t)(df->mem[s] +
                                  (SqGpuAddr)((const uint8_t *)pic->data[p] - c->buf[s]));
            pic->memory = SPEEDQA_MEM_CUDA;
        }
    }
    if (df->fns->leave)
        df->fns->leave(df->dev);
    return 0;
}

static void free_device(DevFrames *df)
{
    if (df->fns->enter)
        df->fns->enter(df->dev);
    for (int s = 0; s < 2; s++)
        if (df->mem[s])
            df->fns->free(df->dev, df->mem[s]);
    df->mem[0] = df->mem[1] = 0;
    if (df->fns->leave)
        df->fns->leave(df->dev);
}

static int run_case(Case *c, const SqGpuFns *fns, DevFrames *df, int cpu_threads, Totals *t)
{
    char desc[1200], err[400];
    Runner cpu, gpu;
    double *a = NULL, *b = NULL;
    int ret, bad = 0;
    case_describe(c, desc, sizeof(desc));
    t->cases++;
    ret = runner_open(&cpu, &sq_backend_cpu, NULL, &c->fmt, c->featp, cpu_threads, NULL, err, sizeof(err));
    if (ret < 0) {
        /* invalid for this geometry: the planner rejects it for every backend */
        t->rejected++;
        return 0;
    }
    const int ns = cpu.nscores;
    a = calloc((size_t)c->nframes * (size_t)ns, sizeof(double));
    b = calloc((size_t)c->nframes * (size_t)ns, sizeof(double));
    double t0 = now();
    if (!a || !b || (ret = runner_run(&cpu, c->ref, c->dis, c->nframes, c->new_seq, a, err, sizeof(err))) < 0) {
        printf("FAIL %s: cpu run: %s\n", desc, err);
        runner_close(&cpu);
        free(a);
        free(b);
        t->failed++;
        return 1;
    }
    runner_close(&cpu);
    t->cpu_s += now() - t0;
    if (c->device && df && (ret = to_device(df, c)) < 0) {
        printf("FAIL %s: device copy: %s\n", desc, df->fns->error(df->dev));
        bad = 1;
        goto done;
    }
    t0 = now();
    /* 1-3 staging threads */
    if ((ret = runner_open(&gpu, NULL, fns, &c->fmt, c->featp, 1 + t->cases % 3, NULL, err, sizeof(err))) < 0) {
        printf("FAIL %s: %s open: %s\n", desc, fns->name, err);
        bad = 1;
        goto done;
    }
    ret = runner_run(&gpu, c->ref, c->dis, c->nframes, c->new_seq, b, err, sizeof(err));
    runner_close(&gpu);
    t->gpu_s += now() - t0;
    if (ret < 0) {
        printf("FAIL %s: %s run: %s\n", desc, fns->name, err);
        bad = 1;
        goto done;
    }
    if (getenv("PARITY_VERBOSE")) {
        printf("%s:", desc);
        for (int i = 0; i < c->nframes * ns; i++)
            printf(" %.9g/%.9g", a[i], b[i]);
        printf("\n");
    }
    for (int i = 0; i < c->nframes * ns; i++) {
        t->values++;
        /* Published scores are finite (the library's promise), whatever the other backend says. */
        if (!isfinite(a[i]) || !isfinite(b[i])) {
            printf("NOT FINITE %s frame %d score %d: cpu %.17g %s %.17g\n", desc, i / ns, i % ns,
                   a[i], fns->name, b[i]);
            bad = 1;
        }
        if (!same_bits(a[i], b[i])) {
            if (t->mismatches < 20)
                printf("MISMATCH %s frame %d score %d: cpu %.17g %s %.17g\n", desc, i / ns, i % ns,
                       a[i], fns->name, b[i]);
            t->mismatches++;
            bad = 1;
        }
    }
done:
    if (df)
        free_device(df);
    free(a);
    free(b);
    if (bad)
        t->failed++;
    return bad;
}

static int golden_cases(const char *gdir, const char *work, const SqGpuFns *fns, DevFrames *df,
                        int cpu_threads, Totals *t)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/synthetic/synthetic_golden.json", gdir);
    JVal *g = json_load(path);
    if (!g) {
        printf("FAIL cannot read %s\n", path);
        return 1;
    }
    const JVal *datasets = json_get(g, "datasets"), *cases = json_get(g, "cases");
    int fails = synth_generate_all(datasets, work) < 0;
    const int gen_fails = fails;
    for (int i = 0; i < cases->n && !gen_fails; i++) {
        const JVal *cs = &cases->items[i];
        const JVal *ds = json_get(datasets, json_get(cs, "dataset")->str);
        char feat[512], rp[1024], dp[1024], name[96];
        feature_string(feat, sizeof(feat), json_get(cs, "extractor")->str, json_get(cs, "options"));
        snprintf(rp, sizeof(rp), "%s/%s", work, json_get(ds, "ref")->str);
        snprintf(dp, sizeof(dp), "%s/%s", work, json_get(ds, "dis")->str);
        snprintf(name, sizeof(name), "golden-%d-%s", i, json_get(cs, "dataset")->str);
        SpeedqaFormat fmt = synth_format(ds);
        Case c;
        if (case_from_file(&c, name, &fmt, rp, dp, (int)json_get(ds, "n")->num, feat) < 0) {
            printf("FAIL %s: cannot read frames\n", name);
            fails++;
            continue;
        }
        c.device = df && i % 3 == 1; /* some golden cases from device memory too */
        fails += run_case(&c, fns, df, cpu_threads, t);
        t->golden++;
        case_free(&c);
    }
    if (!fails)
        synth_remove_all(datasets, work);
    json_free(g);
    return fails;
}

/* The public API with SPEEDQA_BACKEND_CUDA against SPEEDQA_BACKEND_CPU. */
static int api_values(const Case *c, SpeedqaBackend be, double *out, int *count)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = c->fmt;
    s.backend = be;
    s.features = c->featp;
    if (be != SPEEDQA_BACKEND_CPU)
        s.device_name = runner_device_name;
    SpeedqaContext *ctx;
    int ret = speedqa_open(&ctx, &s), got = 0;
    if (ret < 0)
        return ret;
    *count = speedqa_score_count(ctx);
    TestScores sc;
    for (int i = 0; i < c->nframes && ret >= 0; i++) {
        while ((ret = speedqa_send(ctx, &c->ref[i], &c->dis[i])) == SPEEDQA_ERR(EAGAIN))
            if (test_receive(ctx, &sc, 1, 0) == 0)
                memcpy(out + got++ * *count, sc.values, sizeof(double) * (size_t)*count);
        while (ret >= 0 && test_receive(ctx, &sc, 1, 0) == 0)
            memcpy(out + got++ * *count, sc.values, sizeof(double) * (size_t)*count);
    }
    speedqa_flush(ctx);
    while (ret >= 0 && got < c->nframes && (ret = test_receive(ctx, &sc, 1, 0)) == 0)
        memcpy(out + got++ * *count, sc.values, sizeof(double) * (size_t)*count);
    printf("api %s backend: %s, %d frames\n", be == SPEEDQA_BACKEND_CPU ? "cpu" : "gpu",
           speedqa_backend_name(ctx), got);
    speedqa_close(&ctx);
    return ret < 0 ? ret : got == c->nframes ? 0 : -EIO;
}

static int api_check(SpeedqaBackend be, Totals *t)
{
    const SpeedqaFormat fmt = { 1920, 1080, SPEEDQA_PIX_420, 10 };
    Case c;
    double a[CASE_MAX_FRAMES * TEST_MAX_SCORES], b[CASE_MAX_FRAMES * TEST_MAX_SCORES];
    int na = 0, nb = 0, bad = 0;
    if (case_fixed(&c, &fmt, 5, 99) < 0)
        return 1;
    c.nfeat = 2;
    c.featp[0] = "speed_chroma=speed_weight_var_mode=3";
    c.featp[1] = "speed_temporal";
    c.featp[2] = NULL;
    if (api_values(&c, SPEEDQA_BACKEND_CPU, a, &na) < 0 || api_values(&c, be, b, &nb) < 0 || na != nb) {
        printf("FAIL api: open/run failed\n");
        bad = 1;
    }
    for (int i = 0; !bad && i < c.nframes * na; i++) {
        t->values++;
        if (!same_bits(a[i], b[i]) || !isfinite(a[i])) {
            printf("MISMATCH api frame %d score %d: cpu %.17g gpu %.17g\n", i / na, i % na, a[i], b[i]);
            t->mismatches++;
            bad = 1;
        }
    }
    t->cases++;
    t->failed += bad;
    case_free(&c);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: %s null|cuda|hip|opencl GOLDEN_DIR WORK_DIR NRANDOM SEED MAXW MAXH "
                "[CPU_THREADS]\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    const double t_start = now();
    const SqGpuFns *fns = runner_gpu_fns(argv[1]);
    if (!fns) {
        printf("SKIP: backend %s not built\n", argv[1]);
        return 77;
    }
    const int nrandom = atoi(argv[4]), max_w = atoi(argv[6]), max_h = atoi(argv[7]);
    const int cpu_threads = argc > 8 ? atoi(argv[8]) : 1;
    uint64_t seed = strtoull(argv[5], NULL, 0);
    if (!seed)
        seed = (uint64_t)time(NULL);
    char err[400];
    DevFrames df = { 0 };
    static const SqAlloc plain = { 0 };
    df.fns = fns;
    runner_device_name = getenv("SPEEDQA_GPU_DEVICE");
    const SqGpuOpenOpts oo = { -1, runner_device_name, 1, test_env_soft_f64() };
    int ret = fns->open_ex ? fns->open_ex(&df.dev, &oo, &plain, err, sizeof(err))
              : runner_device_name && fns->open_named
                  ? fns->open_named(&df.dev, runner_device_name, 1, &plain, err, sizeof(err))
                  : fns->open(&df.dev, -1, 1, &plain, err, sizeof(err));
    if (ret < 0) {
        printf("SKIP: %s: %s\n", fns->name, err);
        return ret == -ENODEV ? 77 : 1;
    }
    /* device-resident pictures only where the runtime takes them */
    DevFrames *dfp = fns->device_memory >= 0 && fns->copy2d ? &df : NULL;
    printf("%s parity, seed %llu (replay: %s %s %s %s %d %llu %d %d)\n", fns->name,
           (unsigned long long)seed, argv[0], argv[1], argv[2], argv[3], nrandom,
           (unsigned long long)seed, max_w, max_h);
    Totals t = { 0 };
    int fails = 0;
    if (strcmp(argv[2], "-"))
        fails += golden_cases(argv[2], argv[3], fns, dfp, cpu_threads, &t);
    const int api_be = runner_api_backend(argv[1]);
    if (api_be >= 0) {
        char list[1024];
        const int nd = speedqa_list_devices(api_be, list, sizeof(list));
        printf("speedqa_list_devices(%s) = %d:\n%s", argv[1], nd, list);
        fails += api_check((SpeedqaBackend)api_be, &t);
    }
    /* batches with nothing to compute: lone first frames of speed_temporal */
    {
        const SpeedqaFormat f1 = { 320, 240, SPEEDQA_PIX_420, 8 };
        Case c1;
        if (case_fixed(&c1, &f1, 3, 5) == 0) {
            snprintf(c1.name, sizeof(c1.name), "restarts");
            c1.nfeat = 1;
            snprintf(c1.feat[0], sizeof(c1.feat[0]), "speed_temporal");
            c1.featp[0] = c1.feat[0];
            c1.featp[1] = NULL;
            c1.new_seq[1] = c1.new_seq[2] = 1;
            fails += run_case(&c1, fns, dfp, cpu_threads, &t);
            case_free(&c1);
        }
    }
    uint64_t rng = seed;
    const char *secs = getenv("SPEEDQA_PARITY_SECONDS");
    const double budget = secs ? atof(secs) : 0;
    for (int i = 0; i < nrandom && !(budget > 0 && now() - t_start > budget); i++) {
        Case c;
        if (case_random(&c, &rng, i, max_w, max_h) < 0) {
            printf("FAIL random-%d: out of memory\n", i);
            fails++;
            continue;
        }
        fails += run_case(&c, fns, dfp, cpu_threads, &t);
        t.random++;
        case_free(&c);
    }
    fns->close(&df.dev);
    printf("%d cases (%d golden, %d random, %d rejected by the planner): %ld values, "
           "%ld mismatches; cpu %.1f s, %s %.1f s\n",
           t.cases, t.golden, t.random, t.rejected, t.values, t.mismatches, t.cpu_s, fns->name,
           t.gpu_s);
    printf("%d passed, %d failed\n", t.cases - t.failed, t.failed);
    return fails || t.failed ? 1 : 0;
}
