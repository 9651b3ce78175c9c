#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

void tally_add(Tally *t, double got, double want, double tol)
{
    double d = fabs(got - want);
    if (!(d <= tol)) {
        t->over++;
        if (d != d) d = INFINITY;
    }
    if (d > t->worst) t->worst = d;
    if (got == want) t->exact++;
    t->values++;
}

void tally_print(const Tally *t)
{
    printf("%-28s values %6ld  bit-exact %6ld  worst |d| %.3g  over tolerance %ld\n",
           t->group, t->values, t->exact, t->worst, t->over);
}

void log_capture(void *cookie, SpeedqaLogLevel level, const char *msg)
{
    LogCapture *c = cookie;
    snprintf(c->last, sizeof(c->last), "%s", msg);
    c->count++;
    if (!c->quiet && level == SPEEDQA_LOG_ERROR)
        fprintf(stderr, "  speedqa: %s\n", msg);
}

void feature_string(char *buf, size_t len, const char *name, const JVal *opts)
{
    size_t n = (size_t)snprintf(buf, len, "%s", name);
    for (int i = 0; opts && i < opts->n && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%c%s=%s", i ? ':' : '=', opts->keys[i],
                              opts->items[i].str ? opts->items[i].str : "");
}

static void plane_dims(const SpeedqaFormat *f, int p, int *w, int *h)
{
    *w = f->width;
    *h = f->height;
    if (p > 0) {
        if (f->fmt != SPEEDQA_PIX_444) *w = f->width >> 1;
        if (f->fmt == SPEEDQA_PIX_420) *h = f->height >> 1;
        if (f->fmt == SPEEDQA_PIX_400) *w = *h = 0;
    }
}

size_t raw_frame_size(const SpeedqaFormat *fmt)
{
    size_t total = 0, bps = fmt->bpc > 8 ? 2 : 1;
    for (int p = 0; p < 3; p++) {
        int w, h;
        plane_dims(fmt, p, &w, &h);
        total += (size_t)w * h * bps;
    }
    return total;
}

int read_raw_frame(FILE *f, const SpeedqaFormat *fmt, unsigned char *buf, SpeedqaPicture *pic)
{
    size_t size = raw_frame_size(fmt), bps = fmt->bpc > 8 ? 2 : 1, off = 0;
    if (fread(buf, 1, size, f) != size) return -1;
    memset(pic, 0, sizeof(*pic));
    pic->format = *fmt;
    for (int p = 0; p < 3; p++) {
        int w, h;
        plane_dims(fmt, p, &w, &h);
        pic->data[p] = buf + off;
        pic->stride[p] = (ptrdiff_t)(w * bps);
        off += (size_t)w * h * bps;
    }
    return 0;
}

SpeedqaBackend backend_named(const char *name)
{
    return !strcmp(name, "cuda")     ? SPEEDQA_BACKEND_CUDA
           : !strcmp(name, "opencl") ? SPEEDQA_BACKEND_OPENCL
           : !strcmp(name, "hip")    ? SPEEDQA_BACKEND_HIP
                                     : SPEEDQA_BACKEND_CPU;
}

static void scores_broken(const char *why, int d)
{
    fprintf(stderr, "speedqa_receive published broken scores (stream %d): %s\n", d, why);
    abort();
}

int test_receive(SpeedqaContext *ctx, TestScores *out, int n, unsigned flags)
{
    SpeedqaScores sc[SPEEDQA_MAX_DISTORTED];
    if (n < 1 || n > SPEEDQA_MAX_DISTORTED)
        return speedqa_receive(ctx, out ? sc : NULL, n, flags);
    const int ret = speedqa_receive(ctx, out ? sc : NULL, n, flags);
    if (ret < 0)
        return ret;
    const int count = speedqa_score_count(ctx);
    for (int d = 0; d < n; d++) {
        for (size_t i = 0; i < sizeof(sc[d].reserved); i++)
            if (sc[d].reserved[i])
                scores_broken("a reserved byte is not 0", d);
        if (sc[d].count != 0 && sc[d].count != count)
            scores_broken("count is neither 0 nor speedqa_score_count()", d);
        if (count > TEST_MAX_SCORES)
            scores_broken("more scores than TEST_MAX_SCORES", d);
        if (!sc[d].values != !sc[d].count || !sc[d].undefined != !sc[d].count)
            scores_broken("arrays and count disagree", d);
        TestScores *t = &out[d];
        memset(t, 0, sizeof(*t));
        t->frame = sc[d].frame;
        t->sequence = sc[d].sequence;
        t->sequence_frame = sc[d].sequence_frame;
        t->count = sc[d].count;
        for (int i = 0; i < sc[d].count; i++) {
            t->values[i] = sc[d].values[i];
            if (sc[d].undefined[i] > 1)
                scores_broken("an undefined flag is neither 0 nor 1", d);
            t->undefined |= (uint64_t)sc[d].undefined[i] << i;
        }
    }
    return ret;
}

int receive_ready(SpeedqaContext *ctx, TestScores *out, int *got)
{
    int ret;
    while ((ret = test_receive(ctx, &out[*got], 1, 0)) == 0)
        (*got)++;
    return ret == SPEEDQA_ERR(EAGAIN) || ret == SPEEDQA_EOF ? 0 : ret;
}

unsigned test_env_cpu_mask(unsigned mask)
{
    const char *e = getenv("SPEEDQA_CPU_MASK");
    return e && *e ? mask & (unsigned)strtoul(e, NULL, 0) : mask;
}

int test_env_gpu_batch(void)
{
    const char *e = getenv("SPEEDQA_GPU_BATCH");
    const int b = e ? atoi(e) : 0;
    return b >= 1 && b <= 32 ? b : 0;
}

int test_env_soft_f64(void)
{
    const char *e = getenv("SPEEDQA_OPENCL_SOFT_F64");
    return e && e[0] && strcmp(e, "0") != 0;
}

void test_env_settings(SpeedqaSettings *s)
{
    s->cpu_mask = test_env_cpu_mask(s->cpu_mask);
    s->gpu_batch = test_env_gpu_batch();
    s->opencl.soft_f64 = test_env_soft_f64();
}
