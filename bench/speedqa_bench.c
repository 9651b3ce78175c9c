/*
 * speedqa_bench: milliseconds per 1920x1080 8-bit 4:2:0 frame.
 *
 *   speedqa_bench [--reps N] [--clips DIR] [--cli PATH] [--synthetic] [--vmaf PATH] [--api-only] [--cpu-time]
 *
 * 1. Through the public API, frames already in memory: speed_chroma,
 *    speed_temporal and both, with the C path (cpu_mask 0), with SIMD, and
 *    with SIMD on 2 threads; best of N passes over the clip. Each run is a
 *    forked child so SPEEDQA_CPU_MASK can force the C path there too.
 * 2. Per-stage split of the CPU backend (operating image, covariance,
 *    eigenvalues, solve, entropy + pooling), timing the internal stages.
 * 3. The CLI end to end (Y4M reading included), if it was built: the clip
 *    and the clip repeated to 4 n frames (32 for the golden clip), whole
 *    process. --vmaf PATH times libvmaf's vmaf tool on those 4 n frames in
 *    the same run (both features, no model, one thread, best of N) and
 *    prints how many times as fast speedqa's process is.
 *
 * --api-only: only the SIMD, one-thread column of 1., best of N passes (a
 * large N finds the quiet moments of a shared machine). --cpu-time: the
 * API passes are timed in process CPU time (user + system) instead of wall
 * time, so time slices of other processes on a loaded machine do not count
 * (meaningful for one thread only).
 *
 * Content: the golden clip seeding_1920x1080_420p8_8f (+ _x264crf40) of
 * --clips DIR (default: the golden set's clips, -Dgolden_dir, when it has them),
 * decoded with xz -dc, or a textured synthetic pair if that is missing.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "feature/feature.h"
#include "cpu/cpu.h"
#include "math/filter.h"
#include "math/score.h"
#include "speedqa/speedqa.h"

#define W 1920
#define H 1080
#define FRAME_BYTES ((size_t)W * H * 3 / 2)

typedef struct Clip {
    uint8_t *ref, *dis; /* nframes planar frames each */
    int nframes;
    const char *what;
} Clip;

static int cpu_time; /* --cpu-time: api_pass measures process CPU time */

static double api_now(void)
{
    struct timespec ts;
    clock_gettime(cpu_time ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Planar frames of a 1920x1080 4:2:0 8-bit Y4M stream decoded by xz. */
static uint8_t *read_y4m_xz(const char *path, int *nframes)
{
    char cmd[1400];
    struct stat st;
    if (stat(path, &st))
        return NULL;
    snprintf(cmd, sizeof(cmd), "xz -dc '%s'", path);
    FILE *f = popen(cmd, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, len = 0;
    uint8_t *raw = malloc(cap);
    for (size_t n; raw && (n = fread(raw + len, 1, cap - len, f)) > 0;) {
        len += n;
        if (len == cap)
            raw = realloc(raw, cap *= 2);
    }
    if (pclose(f) != 0 || !raw) {
        free(raw);
        return NULL;
    }
    char hdr[256];
    const uint8_t *nl = memchr(raw, '\n', len < 255 ? len : 255);
    if (!nl) {
        free(raw);
        return NULL;
    }
    memcpy(hdr, raw, (size_t)(nl - raw));
    hdr[nl - raw] = 0;
    if (strncmp(hdr, "YUV4MPEG2", 9) || !strstr(hdr, " W1920") || !strstr(hdr, " H1080") ||
        (strstr(hdr, " C") && !strstr(hdr, " C420"))) {
        fprintf(stderr, "%s: not a 1920x1080 4:2:0 8-bit Y4M (%s)\n", path, hdr);
        free(raw);
        return NULL;
    }
    uint8_t *out = malloc(len);
    size_t pos = (size_t)(nl - raw) + 1;
    int n = 0;
    while (pos + 6 <= len && !memcmp(raw + pos, "FRAME", 5)) {
        const uint8_t *e = memchr(raw + pos, '\n', len - pos);
        if (!e || (size_t)(e - raw) + 1 + FRAME_BYTES > len)
            break;
        pos = (size_t)(e - raw) + 1;
        memcpy(out + (size_t)n * FRAME_BYTES, raw + pos, FRAME_BYTES);
        pos += FRAME_BYTES;
        n++;
    }
    free(raw);
    *nframes = n;
    return out;
}

/* Textured, moving, noisy reference; quantised, noisy distorted. */
static void synth_clip(Clip *c, int nframes)
{
    c->ref = malloc(FRAME_BYTES * nframes);
    c->dis = malloc(FRAME_BYTES * nframes);
    c->nframes = nframes;
    c->what = "synthetic textured 1920x1080 (golden clip not found)";
    uint32_t s = 12345;
    for (int t = 0; t < nframes; t++) {
        uint8_t *r = c->ref + FRAME_BYTES * t, *d = c->dis + FRAME_BYTES * t;
        for (size_t i = 0; i < FRAME_BYTES; i++) {
            const int pl = i < (size_t)W * H ? 0 : 1;
            const int pw = pl ? W / 2 : W;
            const size_t o = pl ? (i - (size_t)W * H) % ((size_t)W * H / 4) : i;
            const uint32_t x = (uint32_t)(o % pw) + 3u * t, y = (uint32_t)(o / pw) + 2u * t;
            s = s * 1664525u + 1013904223u;
            const uint32_t pat = ((x * x / 64 + 2 * y * y / 64 + x * y / 64) >> 4) & 127;
            const uint32_t v = 48 + pat + (s >> 27);
            r[i] = (uint8_t)v;
            d[i] = (uint8_t)(((v >> 3) << 3) + (s >> 28));
        }
    }
}

static void load_clip(Clip *c, const char *dir, int synthetic)
{
    memset(c, 0, sizeof(*c));
    if (!synthetic) {
        char p[1200];
        int nr = 0, nd = 0;
        snprintf(p, sizeof(p), "%s/seeding_1920x1080_420p8_8f.y4m.xz", dir);
        c->ref = read_y4m_xz(p, &nr);
        snprintf(p, sizeof(p), "%s/seeding_1920x1080_420p8_8f_x264crf40.y4m.xz", dir);
        c->dis = read_y4m_xz(p, &nd);
        if (c->ref && c->dis && nr > 1 && nr == nd) {
            c->nframes = nr;
            c->what = "golden clip seeding_1920x1080_420p8_8f vs _x264crf40";
            return;
        }
        free(c->ref);
        free(c->dis);
    }
    synth_clip(c, 8);
}

static SpeedqaPicture picture(const uint8_t *f)
{
    SpeedqaPicture p;
    memset(&p, 0, sizeof(p));
    p.data[0] = f;
    p.data[1] = f + (size_t)W * H;
    p.data[2] = f + (size_t)W * H * 5 / 4;
    p.stride[0] = W;
    p.stride[1] = p.stride[2] = W / 2;
    p.format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, 8 };
    return p;
}

static const char *const feat_chroma[] = { "speed_chroma", NULL };
static const char *const feat_temporal[] = { "speed_temporal", NULL };
static const char *const feat_both[] = { "speed_chroma", "speed_temporal", NULL };

/* One pass over the clip through the API: ms per frame, or < 0 on error. */
static double api_pass(const Clip *c, const char *const *feats, unsigned mask, int threads)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    s.format = (SpeedqaFormat){ W, H, SPEEDQA_PIX_420, 8 };
    s.features = feats;
    s.cpu_mask = mask;
    s.n_threads = threads;
    SpeedqaContext *ctx;
    if (speedqa_open(&ctx, &s) < 0)
        return -1;
    SpeedqaScores sc;
    int got = 0;
    const double t0 = api_now();
    for (int i = 0; i < c->nframes; i++) {
        const SpeedqaPicture r = picture(c->ref + FRAME_BYTES * i), d = picture(c->dis + FRAME_BYTES * i);
        int ret;
        while ((ret = speedqa_send(ctx, &r, &d)) == SPEEDQA_ERR(EAGAIN))
            got += speedqa_receive(ctx, &sc, 1, 0) == 0;
        if (ret < 0)
            return -1;
        while (speedqa_receive(ctx, &sc, 1, 0) == 0)
            got++;
    }
    speedqa_flush(ctx);
    while (speedqa_receive(ctx, &sc, 1, 0) == 0)
        got++;
    const double t = api_now() - t0;
    speedqa_close(&ctx);
    return got == c->nframes ? 1e3 * t / c->nframes : -1;
}

/* Best of reps passes, in a child whose CPU levels are limited to mask. */
static double api_best(const Clip *c, const char *const *feats, unsigned mask, int threads, int reps)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        double best = 1e30;
        for (int r = 0; r < reps; r++) {
            const double t = api_pass(c, feats, mask, threads);
            if (t < 0) {
                best = -1;
                break;
            }
            best = t < best ? t : best;
        }
        if (write(fd[1], &best, sizeof(best)) != sizeof(best))
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    double best = -1;
    if (pid < 0 || read(fd[0], &best, sizeof(best)) != sizeof(best))
        best = -1;
    close(fd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return best;
}

/* ---- per-stage split ---- */

enum { ST_OP, ST_COV, ST_EIG, ST_SOLVE, ST_ENT, ST_N };
static const char *const stage_names[ST_N] = { "operating image", "covariance", "eigenvalues",
                                               "solve", "entropy+pool" };

static void side_staged(const SqPlan *p, SqCpuSide *s, const SqSrc *src, double *acc)
{
    double t0 = now(), t1;
    sq_cpu_operating_image(p, s, src);
    t1 = now(), acc[ST_OP] += t1 - t0, t0 = t1;
    sq_cpu_covariance(p, s);
    t1 = now(), acc[ST_COV] += t1 - t0, t0 = t1;
    sq_cpu_eigen(p, s);
    t1 = now(), acc[ST_EIG] += t1 - t0, t0 = t1;
    sq_cpu_solve(p, s);
    t1 = now(), acc[ST_SOLVE] += t1 - t0, t0 = t1;
    sq_cpu_entropy(p, s);
    t1 = now(), acc[ST_ENT] += t1 - t0;
}

static SqSrc src_of(const uint8_t *cur, const uint8_t *prev, int64_t stride)
{
    SqSrc s;
    memset(&s, 0, sizeof(s));
    s.cur = cur;
    s.prev = prev;
    s.cur_stride = s.prev_stride = stride;
    s.scale = 1.0f;
    return s;
}

/* ms per frame of each stage for one feature (chroma: 4 sides, temporal: 2). */
static int stage_split(const Clip *c, int chroma, unsigned mask, int reps, double *ms)
{
    const SqAlloc alloc = { 0 };
    const SpeedqaFormat fmt = { W, H, SPEEDQA_PIX_420, 8 };
    char err[256];
    SqFeature f;
    if (sq_feature_open(&f, chroma ? "speed_chroma" : "speed_temporal", &fmt, &alloc, err, sizeof(err)) < 0)
        return -1;
    const SqPlan *p = &f.plan;
    SqCpuSide sr, sd;
    if (sq_cpu_side_alloc(&sr, p, &alloc) < 0 || sq_cpu_side_alloc(&sd, p, &alloc) < 0)
        return -1;
    sq_cpu_side_set_cpu_mask(&sr, mask);
    sq_cpu_side_set_cpu_mask(&sd, mask);
    for (int i = 0; i < ST_N; i++)
        ms[i] = 1e30;
    for (int r = 0; r < reps; r++) {
        double acc[ST_N] = { 0 };
        for (int i = chroma ? 0 : 1; i < c->nframes; i++) {
            const uint8_t *fr = c->ref + FRAME_BYTES * i, *fd = c->dis + FRAME_BYTES * i;
            if (chroma) {
                for (int ch = 0; ch < 2; ch++) {
                    const size_t off = (size_t)W * H + (size_t)ch * W * H / 4;
                    const SqSrc rs = src_of(fr + off, NULL, W / 2), ds = src_of(fd + off, NULL, W / 2);
                    side_staged(p, &sr, &rs, acc);
                    side_staged(p, &sd, &ds, acc);
                    const double t0 = now();
                    sq_pool(sr.e, sr.s, sd.e, sd.s, p->d.n, p->d.nb, p->sigma_nn, p->nn_floor, 0);
                    acc[ST_ENT] += now() - t0;
                }
            } else {
                const SqSrc rs = src_of(fr, fr - FRAME_BYTES, W), ds = src_of(fd, fd - FRAME_BYTES, W);
                side_staged(p, &sr, &rs, acc);
                side_staged(p, &sd, &ds, acc);
                const double t0 = now();
                sq_pool(sr.e, sr.s, sd.e, sd.s, p->d.n, p->d.nb, p->sigma_nn, p->nn_floor, 0);
                acc[ST_ENT] += now() - t0;
            }
        }
        for (int i = 0; i < ST_N; i++) {
            const double v = 1e3 * acc[i] / c->nframes; /* per frame, frame 0 included */
            ms[i] = v < ms[i] ? v : ms[i];
        }
    }
    sq_cpu_side_free(&sr, &alloc);
    sq_cpu_side_free(&sd, &alloc);
    sq_feature_close(&f);
    return 0;
}

/* ---- CLI ---- */

static int write_y4m(const char *path, const uint8_t *frames, int n, int repeat)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    fprintf(f, "YUV4MPEG2 W%d H%d F30:1 Ip A1:1 C420jpeg\n", W, H);
    for (int r = 0; r < repeat; r++)
        for (int i = 0; i < n; i++) {
            fputs("FRAME\n", f);
            fwrite(frames + FRAME_BYTES * i, 1, FRAME_BYTES, f);
        }
    return fclose(f);
}

/* Best wall time of reps runs of a shell command, in ms. */
static double run_best(const char *cmd, int reps)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        const double t0 = now();
        if (system(cmd) != 0)
            return -1;
        const double t = 1e3 * (now() - t0);
        best = t < best ? t : best;
    }
    return best;
}

static double cli_ms(const char *cli, const char *ref, const char *dis, const char *feats,
                     const char *env, int reps)
{
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "%s '%s' -r '%s' -d '%s' %s --json -o /dev/null -q", env, cli, ref,
             dis, feats);
    return run_best(cmd, reps);
}

/*
 * The CLI on the clip (n frames) and on the clip repeated (8 n frames): wall
 * ms per frame of each, and the marginal cost of one more frame, which
 * leaves out process start-up (dynamic linking) and context creation.
 */
static void cli_section(const char *cli, const Clip *c, int reps, const char *vmaf)
{
    char dir[512], ref[600], dis[600], ref8[600], dis8[600], cmd[1400];
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    const int n = c->nframes, rep = 4;
    snprintf(dir, sizeof(dir), "%s/speedqa_bench_XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        printf("CLI: cannot make a folder under %s\n", tmp);
        return;
    }
    snprintf(ref, sizeof(ref), "%s/ref.y4m", dir);
    snprintf(dis, sizeof(dis), "%s/dis.y4m", dir);
    snprintf(ref8, sizeof(ref8), "%s/ref8.y4m", dir);
    snprintf(dis8, sizeof(dis8), "%s/dis8.y4m", dir);
    if (write_y4m(ref, c->ref, n, 1) || write_y4m(dis, c->dis, n, 1) ||
        write_y4m(ref8, c->ref, n, rep) || write_y4m(dis8, c->dis, n, rep)) {
        printf("CLI: cannot write the Y4M files under %s\n", tmp);
    } else {
        snprintf(cmd, sizeof(cmd), "'%s' --version > /dev/null", cli);
        printf("CLI end to end (%s), Y4M reading included\n", cli);
        printf("  start-up alone (speedqa --version): %.1f ms\n", run_best(cmd, reps));
        printf("  ms/frame               %2d frames: C     SIMD  SIMD 2thr | %3d frames: C     SIMD  SIMD 2thr"
               " | marginal: C     SIMD  SIMD 2thr\n",
               n, n * rep);
        static const char *const names[3] = { "speed_chroma", "speed_temporal", "both" };
        static const char *const args[3] = { "--feature speed_chroma", "--feature speed_temporal",
                                             "--feature speed_chroma --feature speed_temporal" };
        for (int i = 0; i < 3; i++) {
            char a2[256];
            snprintf(a2, sizeof(a2), "%s --threads 2", args[i]);
            const char *const av[3] = { args[i], args[i], a2 };
            const char *const ev[3] = { "SPEEDQA_CPU_MASK=0", "", "" };
            double s[3], l[3];
            for (int m = 0; m < 3; m++) {
                s[m] = cli_ms(cli, ref, dis, av[m], ev[m], reps);
                l[m] = cli_ms(cli, ref8, dis8, av[m], ev[m], reps);
            }
            printf("  %-22s %8.2f %6.2f %6.2f   | %10.2f %6.2f %6.2f   | %10.2f %6.2f %6.2f\n",
                   names[i], s[0] / n, s[1] / n, s[2] / n, l[0] / (n * rep), l[1] / (n * rep),
                   l[2] / (n * rep), (l[0] - s[0]) / (n * rep - n), (l[1] - s[1]) / (n * rep - n),
                   (l[2] - s[2]) / (n * rep - n));
            if (i == 2) {
                printf("  whole process, both features, 1 thread, %d frames: %.1f ms (C %.1f ms)",
                       n * rep, l[1], l[0]);
                printf("\n");
                if (vmaf) {
                    snprintf(cmd, sizeof(cmd),
                             "'%s' -r '%s' -d '%s' --feature speed_chroma --feature speed_temporal"
                             " -n --threads 1 -q --json -o /dev/null > /dev/null", vmaf, ref8, dis8);
                    const double v = run_best(cmd, reps);
                    if (v < 0)
                        printf("  libvmaf's vmaf (%s) failed\n", vmaf);
                    else
                        printf("  libvmaf's vmaf, the same %d frames and features, 1 thread: %.1f ms:"
                               " speedqa %.1fx as fast\n", n * rep, v, v / l[1]);
                }
            }
        }
    }
    unlink(ref);
    unlink(dis);
    unlink(ref8);
    unlink(dis8);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    int reps = 5, synthetic = 0, api_only = 0;
    const char *clips = NULL, *cli = NULL, *vmaf = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--clips") && i + 1 < argc)
            clips = argv[++i];
        else if (!strcmp(argv[i], "--cli") && i + 1 < argc)
            cli = argv[++i];
        else if (!strcmp(argv[i], "--synthetic"))
            synthetic = 1;
        else if (!strcmp(argv[i], "--api-only"))
            api_only = 1;
        else if (!strcmp(argv[i], "--cpu-time"))
            cpu_time = 1;
        else if (!strcmp(argv[i], "--vmaf") && i + 1 < argc)
            vmaf = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--reps N] [--clips DIR] [--cli PATH] [--synthetic] [--vmaf PATH] [--api-only] [--cpu-time]\n",
                    argv[0]);
            return 2;
        }
    }
    reps = reps < 1 ? 1 : reps;
    char clipdir[1024], clipath[1200];
    if (!clips) {
        snprintf(clipdir, sizeof(clipdir), "%s", SQ_CLIPS_DIR);
        clips = clipdir;
    }
    if (!cli) { /* the CLI of the same build tree */
        char self[1024];
        snprintf(self, sizeof(self), "%s", argv[0]);
        snprintf(clipath, sizeof(clipath), "%s/../tools/speedqa", dirname(self));
        cli = access(clipath, X_OK) == 0 ? clipath : NULL;
    }
    Clip c;
    load_clip(&c, clips, synthetic);
    printf("speedqa_bench: %s, %d frames, best of %d\n\n", c.what, c.nframes, reps);

    static const struct { const char *name; const char *const *feats; } F[3] = {
        { "speed_chroma", feat_chroma },
        { "speed_temporal", feat_temporal },
        { "both", feat_both },
    };
    if (api_only) {
        printf("API, frames in memory, SIMD, 1 thread, ms/frame\n");
        for (int i = 0; i < 3; i++)
            printf("  %-32s %8.3f\n", F[i].name, api_best(&c, F[i].feats, ~0u, 1, reps));
        free(c.ref);
        free(c.dis);
        return 0;
    }
    printf("API, frames in memory, ms/frame     C (mask 0)   SIMD   SIMD 2 thr   x vs C\n");
    for (int i = 0; i < 3; i++) {
        const double tc = api_best(&c, F[i].feats, 0, 1, reps);
        const double ts = api_best(&c, F[i].feats, ~0u, 1, reps);
        const double t2 = api_best(&c, F[i].feats, ~0u, 2, reps);
        printf("  %-32s %10.3f %8.3f %10.3f %8.1f\n", F[i].name, tc, ts, t2, tc / ts);
    }
    printf("\n");

    for (int chroma = 1; chroma >= 0; chroma--) {
        double mc[ST_N], ms[ST_N];
        if (stage_split(&c, chroma, 0, reps, mc) < 0 || stage_split(&c, chroma, ~0u, reps, ms) < 0)
            break;
        printf("stages, %s (%s), ms/frame    C      SIMD\n", chroma ? "speed_chroma" : "speed_temporal",
               chroma ? "U+V, ref+dis: 4 sides of 960x540" : "ref+dis differences: 2 sides of 1920x1080");
        double sc = 0, ss = 0;
        for (int i = 0; i < ST_N; i++) {
            printf("  %-30s %8.3f %8.3f\n", stage_names[i], mc[i], ms[i]);
            sc += mc[i];
            ss += ms[i];
        }
        printf("  %-30s %8.3f %8.3f\n\n", "sum", sc, ss);
    }

    if (!cli)
        printf("CLI: not built next to this program (pass --cli PATH)\n");
    else
        cli_section(cli, &c, reps, vmaf);
    free(c.ref);
    free(c.dis);
    return 0;
}
