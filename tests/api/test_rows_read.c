/*
 * speedqa_rows_read: the rows it leaves unmarked never matter. For feature
 * sets that read rows differently (the default pair, kernel scales,
 * prescales, use_ref_diff, one feature alone) and for 4:2:0, 4:2:2 and
 * 4:4:4 at 8 and 10 bits, a sequence is scored twice: as it is, and with
 * every unmarked row of every plane overwritten by out-of-range garbage
 * (all bits set). The scores must be the same bit for bit, with no range
 * error; so a reader that fetches only the marked rows scores exactly what
 * a full read does. Also: the count returned is the number of marks, the
 * default pair at 1080p leaves more than a third of the rows unread, and
 * bad arguments are refused.
 *
 * usage: test_rows_read [cpu|cuda|opencl|hip] (77 when that backend has no device)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define NF 6
#define MAX_SCORES 16

static int fails;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    fails += !ok;
}

static unsigned sample(int f, int side, int plane, int x, int y, int bpc)
{
    unsigned v = (unsigned)((x * x + 3 * y * y + x * y * (plane + 1) + 13 * f * (y + 2)) >> 4) % 200;
    v += (unsigned)((x * 31 + y * 17 + f * 5 + side * 7) % 23) * (side + 1);
    return bpc > 8 ? (v * 4 + (unsigned)(x % 3)) % 1024 : v % 256;
}

typedef struct Seq {
    SpeedqaFormat fmt;
    unsigned char *buf[NF][2];
    SpeedqaPicture pic[NF][2];
} Seq;

static int seq_make(Seq *q, const SpeedqaFormat *fmt)
{
    memset(q, 0, sizeof(*q));
    q->fmt = *fmt;
    const int bps = fmt->bpc > 8 ? 2 : 1;
    for (int f = 0; f < NF; f++)
        for (int s = 0; s < 2; s++) {
            SpeedqaPicture *p = &q->pic[f][s];
            *p = (SpeedqaPicture){ .format = *fmt };
            size_t total = 0, off[3];
            int w[3], h[3];
            for (int c = 0; c < 3; c++) {
                w[c] = c && fmt->fmt != SPEEDQA_PIX_444 ? fmt->width / 2 : fmt->width;
                h[c] = c && fmt->fmt == SPEEDQA_PIX_420 ? fmt->height / 2 : fmt->height;
                off[c] = total;
                total += (size_t)w[c] * (size_t)h[c] * (size_t)bps;
            }
            if (!(q->buf[f][s] = malloc(total)))
                return -1;
            for (int c = 0; c < 3; c++) {
                p->data[c] = q->buf[f][s] + off[c];
                p->stride[c] = (ptrdiff_t)w[c] * bps;
                for (int y = 0; y < h[c]; y++)
                    for (int x = 0; x < w[c]; x++) {
                        const unsigned v = sample(f, s, c, x, y, fmt->bpc);
                        uint8_t *d = q->buf[f][s] + off[c] + ((size_t)y * w[c] + x) * bps;
                        if (bps == 2) {
                            const uint16_t v16 = (uint16_t)v;
                            memcpy(d, &v16, 2);
                        } else {
                            *d = (uint8_t)v;
                        }
                    }
            }
        }
    return 0;
}

static void seq_free(Seq *q)
{
    for (int f = 0; f < NF; f++)
        for (int s = 0; s < 2; s++)
            free(q->buf[f][s]);
}

static int open_ctx(SpeedqaContext **ctx, const SpeedqaFormat *fmt, const char *feature,
                    SpeedqaBackend be, LogCapture *log)
{
    SpeedqaSettings s;
    speedqa_default_settings(&s);
    test_env_settings(&s);
    s.format = *fmt;
    const char *feats[2] = { feature, NULL };
    s.features = feature ? feats : NULL;
    s.backend = be;
    s.n_threads = 2;
    s.logger = log_capture;
    s.log_cookie = log;
    return speedqa_open(ctx, &s);
}

/* Every frame's scores, flattened; the number of values, or a negative error. */
static int score(const Seq *q, const char *feature, SpeedqaBackend be, double *out)
{
    LogCapture log = { .quiet = 1 };
    SpeedqaContext *ctx = NULL;
    int ret = open_ctx(&ctx, &q->fmt, feature, be, &log);
    if (ret < 0)
        return ret;
    TestScores sc[NF];
    int got = 0;
    for (int f = 0; f < NF && ret == 0; f++) {
        while ((ret = speedqa_send(ctx, &q->pic[f][0], &q->pic[f][1])) == SPEEDQA_ERR(EAGAIN))
            if ((ret = test_receive(ctx, &sc[got], 1, 0)) == 0)
                got++;
            else if (ret != SPEEDQA_ERR(EAGAIN))
                break;
        if (ret == 0)
            ret = receive_ready(ctx, sc, &got);
    }
    if (ret == 0 && (ret = speedqa_flush(ctx)) == 0)
        ret = receive_ready(ctx, sc, &got);
    speedqa_close(&ctx);
    if (ret < 0)
        return ret;
    if (got != NF)
        return -1;
    int n = 0;
    for (int f = 0; f < NF; f++)
        for (int k = 0; k < sc[f].count && n < NF * MAX_SCORES; k++)
            out[n++] = sc[f].values[k];
    return n;
}

/* Overwrite every row the context does not read with all bits set; the rows read, counted. */
static int spoil_unread(Seq *q, const char *feature, SpeedqaBackend be, int counts[3])
{
    LogCapture log = { .quiet = 1 };
    SpeedqaContext *ctx = NULL;
    if (open_ctx(&ctx, &q->fmt, feature, be, &log) < 0)
        return -1;
    const int bps = q->fmt.bpc > 8 ? 2 : 1;
    int ret = 0;
    for (int c = 0; c < 3 && ret == 0; c++) {
        const int w = c && q->fmt.fmt != SPEEDQA_PIX_444 ? q->fmt.width / 2 : q->fmt.width;
        const int h = c && q->fmt.fmt == SPEEDQA_PIX_420 ? q->fmt.height / 2 : q->fmt.height;
        uint8_t *mark = malloc((size_t)h);
        const int n = mark ? speedqa_rows_read(ctx, c, mark, h) : -1;
        int marks = 0;
        for (int y = 0; n >= 0 && y < h; y++)
            marks += mark[y] != 0;
        if (n < 0 || n != marks) {
            ret = -1;
        } else {
            counts[c] = n;
            for (int f = 0; f < NF; f++)
                for (int s = 0; s < 2; s++)
                    for (int y = 0; y < h; y++)
                        if (!mark[y])
                            memset((uint8_t *)q->pic[f][s].data[c] + (size_t)y * q->pic[f][s].stride[c],
                                   0xff, (size_t)w * bps);
        }
        free(mark);
    }
    speedqa_close(&ctx);
    return ret;
}

static void case_one(const SpeedqaFormat *fmt, const char *feature, SpeedqaBackend be,
                     const char *bname)
{
    static double a[NF * MAX_SCORES], b[NF * MAX_SCORES];
    char what[256];
    snprintf(what, sizeof what, "%s %dx%d %s %d-bit, %s", bname, fmt->width, fmt->height,
             speedqa_pix_fmt_name(fmt->fmt), fmt->bpc, feature ? feature : "both");
    Seq q;
    int counts[3] = { 0, 0, 0 };
    if (seq_make(&q, fmt) < 0) {
        check(0, what);
        seq_free(&q);
        return;
    }
    const int na = score(&q, feature, be, a);
    const int sp = spoil_unread(&q, feature, be, counts);
    const int nb = sp < 0 ? -1 : score(&q, feature, be, b);
    char line[400];
    snprintf(line, sizeof line, "%s: garbage in the unread rows (rows read %d/%d/%d) changes "
             "nothing (%d, %d values)", what, counts[0], counts[1], counts[2], na, nb);
    check(na > 0 && nb == na && !memcmp(a, b, sizeof(double) * (size_t)na), line);
    seq_free(&q);
}

int main(int argc, char **argv)
{
    const char *bname = argc > 1 ? argv[1] : "cpu";
    const SpeedqaBackend be = backend_named(bname);
    const SpeedqaFormat probe_fmt = { 1920, 1080, SPEEDQA_PIX_420, 8 };
    LogCapture log = { .quiet = 1 };
    SpeedqaContext *ctx = NULL;
    int r = open_ctx(&ctx, &probe_fmt, NULL, be, &log);
    if (r == SPEEDQA_ERR(ENODEV) || r == SPEEDQA_ERR(ENOSYS)) {
        printf("skip: no %s device (%s)\n", bname, log.last);
        return 77;
    }
    if (r < 0) {
        printf("FAIL open: %s\n", log.last);
        return 1;
    }
    {
        static uint8_t mark[1080];
        const int luma = speedqa_rows_read(ctx, 0, mark, 1080);
        const int u = speedqa_rows_read(ctx, 1, mark, 540);
        char what[160];
        snprintf(what, sizeof what, "1080p, both: luma rows read %d of 1080, U %d of 540", luma, u);
        check(luma > 0 && luma < 1080 * 2 / 3 && u > 0 && u < 540 * 2 / 3, what);
        check(speedqa_rows_read(ctx, 0, mark, 1079) == SPEEDQA_ERR(EINVAL) &&
                  speedqa_rows_read(ctx, 3, mark, 1080) == SPEEDQA_ERR(EINVAL) &&
                  speedqa_rows_read(ctx, 0, NULL, 1080) == SPEEDQA_ERR(EINVAL) &&
                  speedqa_rows_read(NULL, 0, mark, 1080) == SPEEDQA_ERR(EINVAL),
              "a wrong row count, plane, NULL mark or context: -EINVAL");
        speedqa_close(&ctx);
    }
    const char *feats[] = { NULL, "speed_chroma", "speed_temporal",
                            "speed_chroma=speed_kernelscale=0.5",
                            "speed_temporal=speed_kernelscale=2.0",
                            "speed_temporal=speed_prescale=0.5",
                            "speed_chroma=speed_prescale=1.5:speed_prescale_method=bicubic",
                            "speed_temporal=speed_use_ref_diff=true" };
    const SpeedqaFormat fmts[] = { { 328, 200, SPEEDQA_PIX_420, 8 },
                                   { 344, 232, SPEEDQA_PIX_422, 10 },
                                   { 264, 168, SPEEDQA_PIX_444, 8 } };
    for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
        for (size_t k = 0; k < sizeof(feats) / sizeof(feats[0]); k++)
            case_one(&fmts[i], feats[k], be, bname);
    printf("%s\n", fails ? "FAILED" : "all passed");
    return fails ? 1 : 0;
}
