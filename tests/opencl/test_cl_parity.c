/*
 * OpenCL backend == CPU backend, bit for bit (doubles compared with ==):
 * every golden synthetic case (spec 6.4), then random cases: sizes from
 * the minimum up to a bound, all pixel formats, bit depths 8..16, random
 * options (kernelscales incl. the 1.0009 trap, prescale methods, sigma_nn,
 * nn_floor, max_val, wvm, urd), flat planes that go singular, static
 * frames, ref == dis, several features per context and flushes mid-stream.
 * First, the program-binary cache: a corrupt or truncated entry and an
 * unusable cache folder must never fail an open (entries are rewritten).
 *
 * usage: test_cl_parity GOLDEN_DIR WORK_DIR [RANDOM_CASES [SEED [MAX_W MAX_H]]]
 * SPEEDQA_OPENCL_DEVICE=substring picks the device (e.g. NVIDIA);
 * SPEEDQA_OPENCL_SOFT_F64=1 runs the backend on soft doubles (math/f64.h);
 * SPEEDQA_PARITY_SECONDS=s stops drawing random cases after s seconds.
 * Exit 77 when no OpenCL device is usable.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/json.h"
#include "common/synth.h"
#include "common/util.h"
#include "feature/feature.h"
#include "math/est.h"
#include "math/filter.h"
#include "math/opimg.h"


#define MAX_FRAMES 8

typedef struct Run {
    int count;
    char names[TEST_MAX_SCORES][320];
    double v[MAX_FRAMES][TEST_MAX_SCORES];
    int got;
    double open_ms;
} Run;

static const char *cl_device;
static const char *work_dir;
static unsigned cpu_mask = ~0u;
static int use_oracle = 1;
static long total_values, total_cases, failed_cases, skipped_cases, limit_cases;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void quiet_log(void *cookie, SpeedqaLogLevel level, const char *msg)
{
    char *last = cookie;
    if (level == SPEEDQA_LOG_ERROR)
        snprintf(last, 400, "%s", msg);
}

static void store(Run *r, const TestScores *sc)
{
    if (sc->frame < MAX_FRAMES)
        memcpy(r->v[sc->frame], sc->values, sizeof(double) * (size_t)sc->count);
    r->got++;
}

/*
 * Score nframes on backend be. flush_mask bit i: speedqa_flush before frame
 * i (a new sequence starts there). Returns 0 or the failing error code.
 */
static int run(SpeedqaBackend be, const SpeedqaFormat *fmt, const char *const *feats, int nframes,
               const SpeedqaPicture *ref, const SpeedqaPicture *dis, unsigned flush_mask, Run *r,
               char *msg)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = *fmt;
    s.features = feats;
    s.backend = be;
    s.logger = quiet_log;
    s.log_cookie = msg;
    if (be == SPEEDQA_BACKEND_OPENCL)
        s.device_name = cl_device;
    else
        s.cpu_mask = cpu_mask;
    memset(r, 0, sizeof(*r));
    msg[0] = '\0';
    SpeedqaContext *ctx;
    const double t0 = now_ms();
    int ret = speedqa_open(&ctx, &s);
    r->open_ms = now_ms() - t0;
    if (ret < 0)
        return ret;
    r->count = speedqa_score_count(ctx);
    for (int i = 0; i < r->count; i++)
        snprintf(r->names[i], sizeof(r->names[i]), "%s", speedqa_score_name(ctx, i));
    TestScores sc;
    for (int i = 0; i < nframes && ret >= 0; i++) {
        if (flush_mask >> i & 1) {
            speedqa_flush(ctx);
            while (r->got < i && (ret = test_receive(ctx, &sc, 1, 0)) == 0)
                store(r, &sc);
            if (ret < 0)
                break;
        }
        while ((ret = speedqa_send(ctx, &ref[i], &dis[i])) == SPEEDQA_ERR(EAGAIN)) {
            const int rr = test_receive(ctx, &sc, 1, 0);
            if (rr == 0)
                store(r, &sc);
            else if (rr != SPEEDQA_ERR(EAGAIN)) {
                ret = rr;
                break;
            }
        }
        if (ret < 0)
            break;
        /* non-blocking: -EAGAIN while the oldest frame is still in flight */
        while ((ret = test_receive(ctx, &sc, 1, 0)) == 0)
            store(r, &sc);
        if (ret == SPEEDQA_ERR(EAGAIN))
            ret = 0;
    }
    if (ret >= 0) {
        speedqa_flush(ctx);
        while (r->got < nframes && (ret = test_receive(ctx, &sc, 1, 0)) == 0)
            store(r, &sc);
        if (ret >= 0 && r->got != nframes)
            ret = SPEEDQA_ERR(EIO);
    }
    speedqa_close(&ctx);
    return ret < 0 ? ret : 0;
}

/* ---- oracle: the math core's serial orchestration (opimg.h, est.h, score.h) */

typedef struct Src {
    const uint8_t *cur, *prev;
    int64_t cur_stride, prev_stride;
} Src;

static float oracle_plane(const SqPlan *p, const Src *ref, const Src *dis, int hbd, float scale,
                          int wvm, int *err)
{
    const SqDims *d = &p->d;
    double *wsd = malloc(sizeof(double) * (size_t)sq_est_ws_doubles(d));
    float *wsf = malloc(sizeof(float) * (size_t)sq_est_ws_floats(d));
    float *dimg = malloc(sizeof(float) * (size_t)d->op_w * d->op_h);
    float *ows = malloc(sizeof(float) * (size_t)sq_opimg_ws_floats(d, p->prescale));
    const SqOpFilter f = { p->prescale, p->taps_a, p->taps_m, p->ga, p->gm,
                           p->ps_iy, p->ps_ix, p->ps_wy, p->ps_wx };
    float *e[2], *sv[2];
    int fl[2];
    for (int k = 0; k < 2; k++) {
        e[k] = malloc(sizeof(float) * (size_t)d->nb);
        sv[k] = malloc(sizeof(float) * (size_t)d->nb);
        const Src *src = k ? dis : ref;
        sq_operating_image(src->cur, src->cur_stride, src->prev, src->prev_stride, hbd, scale, d,
                           &f, ows, dimg);
        fl[k] = sq_est_params(dimg, d->op_w, d, p->sigma_nn, wsd, wsf, e[k], sv[k]) & SQ_EST_SINGULAR;
    }
    const float pooled = sq_pool(e[0], sv[0], e[1], sv[1], d->n, d->nb, p->sigma_nn, p->nn_floor, wvm);
    *err = fl[0] || fl[1];
    for (int k = 0; k < 2; k++) {
        free(e[k]);
        free(sv[k]);
    }
    free(wsd);
    free(wsf);
    free(dimg);
    free(ows);
    return sq_side_score(fl[0], fl[1], pooled);
}

static Src plane_src(const SpeedqaPicture *cur, const SpeedqaPicture *prev, int c)
{
    Src s = { cur->data[c], prev ? prev->data[c] : NULL, cur->stride[c], prev ? prev->stride[c] : 0 };
    return s;
}

/* Every score of every frame, as Run (0, or -EINVAL when a feature rejects the format). */
static int oracle(const SpeedqaFormat *fmt, const char *const *feats, int nframes,
                  const SpeedqaPicture *ref, const SpeedqaPicture *dis, unsigned flush_mask, Run *r)
{
    SqFeature ft[SPEEDQA_MAX_FEATURES];
    const SqAlloc a = { 0 };
    char err[400];
    int nf = 0, ret = 0;
    memset(r, 0, sizeof(*r));
    for (; feats[nf] && !ret; nf++)
        if ((ret = sq_feature_open(&ft[nf], feats[nf], fmt, &a, err, sizeof(err))) < 0)
            break;
    if (ret < 0) {
        for (int i = 0; i < nf; i++)
            sq_feature_close(&ft[i]);
        return ret;
    }
    const int hbd = fmt->bpc > 8;
    const float scale = sq_bpc_scale(fmt->bpc);
    /* only where each feature's raw scores go: what they mean is derived
     * here, apart from the library's jobs, so the oracle checks those too */
    SqBackendParams bp;
    memset(&bp, 0, sizeof(bp));
    sq_features_jobs(ft, nf, &bp);
    for (int t = 0; t < nframes; t++) {
        const int has_prev = t > 0 && !(flush_mask >> t & 1);
        SqRawResult raw;
        memset(&raw, 0, sizeof(raw));
        for (int i = 0; i < nf; i++) {
            const SqPlan *p = &ft[i].plan;
            if (ft[i].spec.kind == SQ_FEATURE_CHROMA) {
                for (int c = 0; c < 2; c++) {
                    const Src rs = plane_src(&ref[t], NULL, c + 1), ds = plane_src(&dis[t], NULL, c + 1);
                    raw.score[ft[i].job[c]] = oracle_plane(p, &rs, &ds, hbd, scale,
                                                           ft[i].spec.opt.weight_var_mode,
                                                           &raw.err[ft[i].job[c]]);
                }
            } else if (has_prev) {
                const Src rs = plane_src(&ref[t], &ref[t - 1], 0);
                const Src ds = plane_src(ft[i].spec.opt.use_ref_diff ? &ref[t] : &dis[t], &dis[t - 1], 0);
                raw.score[ft[i].job[0]] = oracle_plane(p, &rs, &ds, hbd, scale, 0,
                                                       &raw.err[ft[i].job[0]]);
            }
        }
        double *v = r->v[t];
        for (int i = 0; i < nf; i++) {
            uint32_t undef;
            sq_feature_assemble(&ft[i], &raw, v, &undef);
            v += ft[i].nscores;
        }
        r->count = (int)(v - r->v[t]);
    }
    r->got = nframes;
    for (int i = 0; i < nf; i++)
        sq_feature_close(&ft[i]);
    return 0;
}

static long oracle_cases, oracle_cpu_bad, oracle_cl_bad;

/* Both backends; 0 if every value is bit-identical. */
static int compare(const char *what, const SpeedqaFormat *fmt, const char *const *feats,
                   int nframes, const SpeedqaPicture *ref, const SpeedqaPicture *dis,
                   unsigned flush_mask, int verbose)
{
    static Run a, b;
    char ma[400], mb[400];
    const int ra = run(SPEEDQA_BACKEND_CPU, fmt, feats, nframes, ref, dis, flush_mask, &a, ma);
    const int rb = run(SPEEDQA_BACKEND_OPENCL, fmt, feats, nframes, ref, dis, flush_mask, &b, mb);
    total_cases++;
    if (ra < 0 || rb < 0) {
        if (ra == rb && ra == SPEEDQA_ERR(EINVAL)) {
            /* both reject the geometry or options: nothing to compare */
            if (verbose)
                printf("skip %s: %s\n", what, ma);
            skipped_cases++;
            return 0;
        }
        if (ra == 0 && rb == SPEEDQA_ERR(ENOMEM)) {
            /* A capacity limit of this device, not a numeric difference. */
            printf("LIMIT %s: opencl: %s\n", what, mb);
            limit_cases++;
            return 0;
        }
        printf("FAIL %s: cpu %s (%s), opencl %s (%s)\n", what, speedqa_strerror(ra), ma,
               speedqa_strerror(rb), mb);
        failed_cases++;
        return 1;
    }
    int bad = a.count != b.count;
    for (int i = 0; i < a.count && !bad; i++)
        bad = strcmp(a.names[i], b.names[i]) != 0;
    if (bad) {
        printf("FAIL %s: score names differ\n", what);
        failed_cases++;
        return 1;
    }
    for (int f = 0; f < nframes; f++)
        for (int i = 0; i < a.count; i++) {
            total_values++;
            uint64_t ua, ub;
            memcpy(&ua, &a.v[f][i], sizeof(ua));
            memcpy(&ub, &b.v[f][i], sizeof(ub));
            /* bit for bit, and published scores are finite (the library's promise) */
            if (ua != ub || !isfinite(a.v[f][i]) || !isfinite(b.v[f][i])) {
                if (!bad)
                    printf("FAIL %s\n", what);
                if (bad < 8)
                    printf("     frame %d %s: cpu %.17g opencl %.17g\n", f, a.names[i], a.v[f][i],
                           b.v[f][i]);
                bad++;
            }
        }
    /* The oracle says which side left the math core's numbers. */
    static Run o;
    int cpu_off = 0, cl_off = 0;
    if (use_oracle && oracle(fmt, feats, nframes, ref, dis, flush_mask, &o) == 0 && o.count == a.count) {
        oracle_cases++;
        for (int f = 0; f < nframes; f++)
            for (int i = 0; i < a.count; i++) {
                cpu_off += memcmp(&a.v[f][i], &o.v[f][i], sizeof(double)) != 0;
                cl_off += memcmp(&b.v[f][i], &o.v[f][i], sizeof(double)) != 0;
            }
        oracle_cpu_bad += cpu_off != 0;
        oracle_cl_bad += cl_off != 0;
    }
    if (bad) {
        printf("     %d of %d values differ", bad, nframes * a.count);
        if (use_oracle)
            printf("; against the math core oracle: cpu %d off, opencl %d off", cpu_off, cl_off);
        printf("\n");
        failed_cases++;
        return 1;
    }
    if (cl_off)
        printf("NOTE %s: both backends agree but differ from the math core oracle in %d values\n",
               what, cl_off);
    if (verbose)
        printf("ok   %s (open %.0f ms)\n", what, b.open_ms);
    return 0;
}

/* ---- program-binary cache: corrupt, truncated and unusable entries ------ */

static int open_ok(double *ms)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = (SpeedqaFormat){ 320, 240, SPEEDQA_PIX_420, 8 };
    s.backend = SPEEDQA_BACKEND_OPENCL;
    s.device_name = cl_device;
    SpeedqaContext *ctx;
    const double t0 = now_ms();
    const int ret = speedqa_open(&ctx, &s);
    *ms = now_ms() - t0;
    speedqa_close(&ctx);
    return ret == 0;
}

/* The one cache file in dir/speedqa (path into buf), its size, or -1. */
static long cache_file(const char *dir, char *buf, size_t len)
{
    char sub[1100];
    snprintf(sub, sizeof(sub), "%.1000s/speedqa", dir);
    DIR *d = opendir(sub);
    long size = -1;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "opencl-", 7) && strstr(e->d_name, ".bin") && !strstr(e->d_name, ".tmp")) {
            struct stat st;
            snprintf(buf, len, "%.1100s/%.90s", sub, e->d_name);
            if (!stat(buf, &st))
                size = (long)st.st_size;
        }
    if (d)
        closedir(d);
    return size;
}

static int cache_checks(const char *work)
{
    char dir[1024], file[1300];
    double ms[5];
    int fails = 0;
    const char *old = getenv("XDG_CACHE_HOME");
    char saved[1024] = "";
    if (old)
        snprintf(saved, sizeof(saved), "%s", old);
    snprintf(dir, sizeof(dir), "%s/cache-check-%ld", work, (long)getpid());
    mkdir(dir, 0700);
    setenv("XDG_CACHE_HOME", dir, 1);
    const int ok0 = open_ok(&ms[0]);
    const long size = cache_file(dir, file, sizeof(file));
    const int ok1 = open_ok(&ms[1]);
    /* flip bytes in the middle: the checksum must reject it, and the open rebuild it */
    FILE *f = fopen(file, "r+b");
    if (f && size > 64) {
        fseek(f, size / 2, SEEK_SET);
        fwrite("garbage!", 1, 8, f);
    }
    if (f)
        fclose(f);
    const int ok2 = open_ok(&ms[2]);
    const long size2 = cache_file(dir, file, sizeof(file));
    if (truncate(file, 20) != 0)
        fails++;
    const int ok3 = open_ok(&ms[3]);
    const long size3 = cache_file(dir, file, sizeof(file));
    /* a cache folder that cannot exist (a regular file in the way): no cache, no failure */
    char blocked[1100];
    snprintf(blocked, sizeof(blocked), "%s/file", dir);
    f = fopen(blocked, "w");
    if (f)
        fclose(f);
    setenv("XDG_CACHE_HOME", blocked, 1);
    const int ok4 = open_ok(&ms[4]);
    if (saved[0])
        setenv("XDG_CACHE_HOME", saved, 1);
    else
        unsetenv("XDG_CACHE_HOME");
    /* rewritten entries need not match the first byte for byte: PoCL's binary
     * depends on its own kernel cache, which other tests share */
    const int good = ok0 && ok1 && ok2 && ok3 && ok4 && size > 0 && size2 > 0 && size3 > 0;
    unlink(file);
    unlink(blocked);
    snprintf(file, sizeof(file), "%.1000s/speedqa", dir);
    rmdir(file);
    rmdir(dir);
    printf("%s program-binary cache: entry %ld bytes; open %.0f ms (empty cache), %.0f ms (entry), "
           "%.0f ms (corrupt entry, rewritten: %ld bytes), %.0f ms (truncated, rewritten: %ld bytes), "
           "%.0f ms (no usable cache folder)\n", good ? "ok  " : "FAIL", size, ms[0], ms[1], ms[2],
           size2, ms[3], size3, ms[4]);
    return fails + !good;
}

/* ---- golden synthetic cases -------------------------------------------- */

static int golden(const char *golden_dir, const char *work)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/synthetic/synthetic_golden.json", golden_dir);
    JVal *g = json_load(path);
    if (!g)
        return 1;
    const JVal *datasets = json_get(g, "datasets"), *cases = json_get(g, "cases");
    if (synth_generate_all(datasets, work) < 0) {
        json_free(g);
        return 1;
    }
    int fails = 0;
    for (int i = 0; i < cases->n; i++) {
        const JVal *c = &cases->items[i];
        const JVal *ds = json_get(datasets, json_get(c, "dataset")->str);
        const SpeedqaFormat fmt = synth_format(ds);
        int nframes = (int)json_get(ds, "n")->num;
        if (nframes > MAX_FRAMES)
            nframes = MAX_FRAMES;
        char feat[512], what[700], rp[1024], dp[1024];
        feature_string(feat, sizeof(feat), json_get(c, "extractor")->str, json_get(c, "options"));
        snprintf(rp, sizeof(rp), "%s/%s", work, json_get(ds, "ref")->str);
        snprintf(dp, sizeof(dp), "%s/%s", work, json_get(ds, "dis")->str);
        const size_t fs = raw_frame_size(&fmt);
        unsigned char *buf = malloc(fs * (size_t)nframes * 2);
        SpeedqaPicture ref[MAX_FRAMES], dis[MAX_FRAMES];
        FILE *fr = fopen(rp, "rb"), *fd = fopen(dp, "rb");
        int ok = buf && fr && fd;
        for (int k = 0; k < nframes && ok; k++)
            ok = !read_raw_frame(fr, &fmt, buf + fs * (size_t)(2 * k), &ref[k]) &&
                 !read_raw_frame(fd, &fmt, buf + fs * (size_t)(2 * k + 1), &dis[k]);
        if (fr)
            fclose(fr);
        if (fd)
            fclose(fd);
        snprintf(what, sizeof(what), "golden %-10s %s", json_get(c, "dataset")->str, feat);
        if (!ok) {
            printf("FAIL %s: cannot read the frames\n", what);
            fails++;
        } else {
            const char *feats[] = { feat, NULL };
            fails += compare(what, &fmt, feats, nframes, ref, dis, 0, 1);
        }
        free(buf);
    }
    printf("golden: %d cases, %d failed\n", cases->n, fails);
    if (!fails)
        synth_remove_all(datasets, work);
    json_free(g);
    return fails;
}

/* ---- random cases ------------------------------------------------------ */

static uint64_t rng;
static uint32_t rnd(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}
static int rnd_in(int lo, int hi) /* inclusive */
{
    return lo + (int)(rnd() % (uint32_t)(hi - lo + 1));
}

enum { C_TEXTURE, C_FLAT, C_SAME_AS_REF };

typedef struct PlaneKind {
    int kind[2][3]; /* per side and plane */
    int still;      /* every frame equals frame 0 */
    int a, bq, c, shift;
} PlaneKind;

static void fill(uint8_t *dst, int w, int h, int bpc, const PlaneKind *pk, int side, int p, int t,
                 const uint8_t *ref_plane)
{
    const int hbd = bpc > 8;
    const int kind = pk->kind[side][p];
    if (kind == C_SAME_AS_REF) {
        memcpy(dst, ref_plane, (size_t)w * h * (hbd ? 2 : 1));
        return;
    }
    if (pk->still)
        t = 0;
    uint32_t s1 = 12345u + 1000003u * (uint32_t)t + 7919u * (uint32_t)p + (uint32_t)rnd();
    const int flatv = 16 + (int)(rnd() % 224);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            s1 = s1 * 1664525u + 1013904223u;
            int v;
            if (kind == C_FLAT) {
                v = flatv;
            } else {
                const uint32_t pat = (((uint32_t)(x * x) * pk->a + (uint32_t)(y * y) * pk->bq +
                                       (uint32_t)(x * y) * pk->c) >> pk->shift) +
                                     9u * (uint32_t)t * (uint32_t)(p + 1);
                v = 48 + (int)(pat & 127) + (int)(s1 >> 27);
                if (side)
                    v = ((v >> 3) << 3) + (int)((s1 >> 9) & 15);
            }
            if (hbd) {
                const uint32_t lo = bpc > 8 ? (s1 >> 3) & ((1u << (bpc - 8)) - 1) : 0;
                ((uint16_t *)dst)[(size_t)y * w + x] = (uint16_t)(((uint32_t)v << (bpc - 8)) | lo);
            } else {
                dst[(size_t)y * w + x] = (uint8_t)v;
            }
        }
}

static void plane_dims(const SpeedqaFormat *f, int p, int *w, int *h)
{
    *w = f->width;
    *h = f->height;
    if (p) {
        if (f->fmt == SPEEDQA_PIX_400)
            *w = *h = 0;
        if (f->fmt == SPEEDQA_PIX_420 || f->fmt == SPEEDQA_PIX_422)
            *w = f->width >> 1;
        if (f->fmt == SPEEDQA_PIX_420)
            *h = f->height >> 1;
    }
}

static const char *const kernelscales[] = {
    "1", "0.5", "1.5", "2", "0.666667", "2.4", "3.71134", "1.33333", "1.16667", "1.25", "1.41667",
    "1.66667", "3", "0.444444", "1.4746", "1.54", "1.6", "1.06667", "0.711111", "0.74074",
    "1.11111", "1.0009",
};
static const char *const methods[] = { "nearest", "bilinear", "bicubic", "lanczos4" };
static const char *const prescales[] = { "0.5", "0.75", "1.5", "2", "0.3", "1.25", "0.9" };

static void options(char *buf, size_t len, int chroma)
{
    size_t n = (size_t)snprintf(buf, len, "%s", chroma ? "speed_chroma" : "speed_temporal");
    char sep = '=';
#define OPT(...)                                                              \
    do {                                                                      \
        n += (size_t)snprintf(buf + n, len - n, "%c", sep);                   \
        n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__);                 \
        sep = ':';                                                            \
    } while (0)
    if (rnd() % 2)
        OPT("speed_kernelscale=%s", kernelscales[rnd() % 22]);
    if (rnd() % 4 == 0) {
        OPT("speed_prescale=%s", prescales[rnd() % 7]);
        OPT("speed_prescale_method=%s", methods[rnd() % 4]);
    }
    if (rnd() % 4 == 0)
        OPT("speed_sigma_nn=%g", 0.1 + (rnd() % 190) / 100.0);
    if (rnd() % 4 == 0)
        OPT("speed_nn_floor=%g", (rnd() % 101) / 100.0);
    if (rnd() % 5 == 0)
        OPT("speed_max_val=%g", (double)(rnd() % 20));
    if (chroma && rnd() % 3 == 0)
        OPT("speed_weight_var_mode=%d", (int)(rnd() % 7));
    if (!chroma && rnd() % 3 == 0)
        OPT("speed_use_ref_diff=true");
#undef OPT
}

/* 1 if the CPU backend accepts this geometry and these features. */
static int accepted(const SpeedqaFormat *fmt, const char *const *feats)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = *fmt;
    s.features = feats;
    SpeedqaContext *ctx;
    if (speedqa_open(&ctx, &s) < 0)
        return 0;
    speedqa_close(&ctx);
    return 1;
}

static int random_case(int idx, int max_w, int max_h)
{
    static const char *fmtname[] = { "400", "420", "422", "444" };
    SpeedqaFormat fmt;
    char fb[3][512];
    const char *feats[4] = { NULL };
    int nf = 0, tries = 0;
    do { /* redraw until the geometry is legal for every feature */
        fmt.fmt = (SpeedqaPixelFormat)(rnd() % 4);
        fmt.bpc = rnd() % 3 ? (int)(8 + (rnd() % 5) * 2) : rnd_in(8, 16);
        /* sizes from the smallest legal plane up: chroma 4:2:x needs luma >= 160 */
        const int minw = fmt.fmt == SPEEDQA_PIX_400 || fmt.fmt == SPEEDQA_PIX_444 ? 80 : 160;
        const int minh = fmt.fmt == SPEEDQA_PIX_420 ? 160 : 80;
        const int small = rnd() % 3 == 0;
        fmt.width = rnd_in(minw, small ? minw + 80 : max_w);
        fmt.height = rnd_in(minh, small ? minh + 80 : max_h);
        nf = 0;
        /* 0 chroma, 1 both, 2 temporal */
        const int want = fmt.fmt == SPEEDQA_PIX_400 ? 2 : (int)(rnd() % 3);
        if (want != 2) {
            options(fb[nf], sizeof(fb[nf]), 1);
            feats[nf] = fb[nf];
            nf++;
        }
        if (want != 0) {
            options(fb[nf], sizeof(fb[nf]), 0);
            feats[nf] = fb[nf];
            nf++;
        }
        if (rnd() % 6 == 0 && fmt.fmt != SPEEDQA_PIX_400) { /* a second chroma instance */
            options(fb[nf], sizeof(fb[nf]), 1);
            if (!nf || strcmp(fb[nf], feats[0])) {
                feats[nf] = fb[nf];
                nf++;
            }
        }
        feats[nf] = NULL;
    } while (!accepted(&fmt, feats) && ++tries < 50);
    const int nframes = rnd_in(2, 4);

    PlaneKind pk;
    memset(&pk, 0, sizeof(pk));
    pk.a = rnd_in(1, 3);
    pk.bq = rnd_in(1, 4);
    pk.c = rnd_in(0, 2);
    pk.shift = rnd_in(2, 6);
    pk.still = rnd() % 8 == 0;
    const int same = rnd() % 10 == 0;
    for (int p = 0; p < 3; p++) {
        pk.kind[0][p] = rnd() % 10 == 0 ? C_FLAT : C_TEXTURE;
        pk.kind[1][p] = same ? C_SAME_AS_REF : rnd() % 10 == 0 ? C_FLAT : rnd() % 12 == 0 ? C_SAME_AS_REF : C_TEXTURE;
    }
    unsigned flush_mask = 0;
    if (rnd() % 4 == 0)
        flush_mask = 1u << rnd_in(1, nframes - 1);

    const int bps = fmt.bpc > 8 ? 2 : 1;
    size_t fsize = 0, poff[3];
    for (int p = 0; p < 3; p++) {
        int w, h;
        plane_dims(&fmt, p, &w, &h);
        poff[p] = fsize;
        fsize += (size_t)w * h * bps;
    }
    uint8_t *buf = malloc(fsize * 2 * (size_t)nframes);
    if (!buf)
        return 1;
    SpeedqaPicture ref[MAX_FRAMES], dis[MAX_FRAMES];
    for (int t = 0; t < nframes; t++)
        for (int s = 0; s < 2; s++) {
            SpeedqaPicture *pic = s ? &dis[t] : &ref[t];
            uint8_t *base = buf + fsize * (size_t)(2 * t + s);
            memset(pic, 0, sizeof(*pic));
            pic->format = fmt;
            for (int p = 0; p < 3; p++) {
                int w, h;
                plane_dims(&fmt, p, &w, &h);
                pic->data[p] = base + poff[p];
                pic->stride[p] = (ptrdiff_t)w * bps;
                if (w)
                    fill(base + poff[p], w, h, fmt.bpc, &pk, s, p, t,
                         buf + fsize * (size_t)(2 * t) + poff[p]);
            }
        }
    char what[1800];
    int n = snprintf(what, sizeof(what), "random %3d: %dx%d %s %d-bit %d fr%s%s%s", idx, fmt.width,
                     fmt.height, fmtname[fmt.fmt], fmt.bpc, nframes, pk.still ? " still" : "",
                     same ? " ref=dis" : "", flush_mask ? " flush" : "");
    for (int i = 0; i < nf; i++)
        n += snprintf(what + n, sizeof(what) - (size_t)n, " %s", feats[i]);
    const int r = compare(what, &fmt, feats, nframes, ref, dis, flush_mask, 1);
    if (r && work_dir) { /* keep the input for replay: speedqa -w W -h H -p F -b B ... */
        char path[1200];
        for (int side = 0; side < 2; side++) {
            snprintf(path, sizeof(path), "%s/random-%d-%s.yuv", work_dir, idx, side ? "dis" : "ref");
            FILE *f = fopen(path, "wb");
            for (int t = 0; f && t < nframes; t++)
                fwrite(buf + fsize * (size_t)(2 * t + side), 1, fsize, f);
            if (f)
                fclose(f);
        }
        printf("     input kept: %s/random-%d-{ref,dis}.yuv (%dx%d %s %d-bit)\n", work_dir, idx,
               fmt.width, fmt.height, fmtname[fmt.fmt], fmt.bpc);
    }
    free(buf);
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s GOLDEN_DIR WORK_DIR [RANDOM_CASES [SEED [MAX_W MAX_H]]]\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    cl_device = getenv("SPEEDQA_OPENCL_DEVICE");
    if (getenv("SPEEDQA_PARITY_CPU_MASK")) /* e.g. 0: compare with the plain C DSP */
        cpu_mask = (unsigned)strtoul(getenv("SPEEDQA_PARITY_CPU_MASK"), NULL, 0);
    char list[4096];
    const int ndev = speedqa_list_devices(SPEEDQA_BACKEND_OPENCL, list, sizeof(list));
    if (ndev <= 0) {
        printf("no OpenCL device (%s): skipped\n", ndev < 0 ? "backend not built" : "none found");
        return 77;
    }
    printf("OpenCL devices:\n%s", list);
    /* a usable device at all? (SPEEDQA_OPENCL_SOFT_F64=1: its
     * opencl.soft_f64 setting must put it on the soft-double path, which
     * open logs at info level) */
    {
        SpeedqaSettings s;
        speedqa_default_settings(&s);
        test_env_settings(&s);
        s.format = (SpeedqaFormat){ 320, 240, SPEEDQA_PIX_420, 8 };
        s.backend = SPEEDQA_BACKEND_OPENCL;
        s.device_name = cl_device;
        LogCapture log = { .quiet = 1 };
        s.logger = log_capture;
        s.log_cookie = &log;
        s.log_level = SPEEDQA_LOG_INFO;
        SpeedqaContext *ctx;
        const int ret = speedqa_open(&ctx, &s);
        if (ret == SPEEDQA_ERR(ENODEV)) {
            printf("no usable OpenCL device: %s: skipped\n", log.last);
            return 77;
        }
        if (ret < 0) {
            printf("FAIL OpenCL open: %s\n", log.last);
            return 1;
        }
        if (s.opencl.soft_f64 && !strstr(log.last, "soft doubles")) {
            printf("FAIL opencl_soft_f64 is set, but open says: %s\n", log.last);
            speedqa_close(&ctx);
            return 1;
        }
        if (s.opencl.soft_f64)
            printf("soft doubles forced: %s\n", log.last);
        speedqa_close(&ctx);
        s.device_name = "no-such-opencl-device";
        if (speedqa_open(&ctx, &s) != SPEEDQA_ERR(ENODEV)) {
            printf("FAIL an unknown device name must give -ENODEV\n");
            speedqa_close(&ctx);
            return 1;
        }
        printf("ok   unknown device name: %s\n", log.last);
    }
    if (getenv("SPEEDQA_PARITY_NO_ORACLE"))
        use_oracle = 0;
    work_dir = argv[2];
    mkdir(work_dir, 0755);
    const int nrandom = argc > 3 ? atoi(argv[3]) : 100;
    const unsigned long long seed = argc > 4 ? strtoull(argv[4], NULL, 0) : 20261130ull;
    const int max_w = argc > 6 ? atoi(argv[5]) : 1920, max_h = argc > 6 ? atoi(argv[6]) : 1080;
    int fails = 0;
    fails += cache_checks(work_dir);
    const double t0 = now_ms();
    if (strcmp(argv[1], "-"))
        fails += golden(argv[1], argv[2]);
    const double t1 = now_ms();
    rng = seed;
    int rfails = 0;
    const double budget = getenv("SPEEDQA_PARITY_SECONDS") ? atof(getenv("SPEEDQA_PARITY_SECONDS")) * 1e3 : 0;
    int ndone = 0;
    for (; ndone < nrandom && !(budget > 0 && now_ms() - t0 > budget); ndone++)
        rfails += random_case(ndone, max_w, max_h);
    printf("random: %d cases (seed %llu, up to %dx%d), %d failed\n", ndone, seed, max_w, max_h, rfails);
    fails += rfails;
    if (use_oracle)
        printf("oracle (math core, serial): %ld cases checked; cpu backend off in %ld, opencl off in %ld\n",
               oracle_cases, oracle_cpu_bad, oracle_cl_bad);
    printf("total: %ld cases (%ld rejected by both at open, %ld beyond the device's memory), "
           "%ld values compared, %ld cases differ (golden %.1f s, random %.1f s)\n", total_cases,
           skipped_cases, limit_cases, total_values, failed_cases, (t1 - t0) / 1e3,
           (now_ms() - t1) / 1e3);
    return fails ? 1 : 0;
}
