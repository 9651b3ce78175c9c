/*
 * feature_bench: ms per frame of one library feature (any feature string,
 * e.g. adm, motion or cambi, which the CLI's --feature leaves to libvmaf) on a
 * Y4M pair held in memory, through the API: pictures lent, every score
 * received before the next send on one thread (frames in flight with more).
 *
 *   feature_bench REF.y4m DIS.y4m [--feature STR] [--threads N] [--reps R]
 *
 * Prints the best of R passes over all frames with every CPU level the
 * machine has and, alternating with them in the same run, with the C code
 * alone (cpu_mask 0), and their ratio. Compare with libvmaf's own tool on
 * the same pair (bench/README.md: vmaf -n --feature adm --threads 1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "speedqa/speedqa.h"

typedef struct Clip {
    int w, h, bpc, n;
    SpeedqaPixelFormat fmt;
    size_t frame_bytes;
    unsigned char *data;
} Clip;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void no_release(void *opaque, const void *data0)
{
    (void)opaque;
    (void)data0;
}

/* A Y4M file's frames into memory (4:2:0, 4:2:2, 4:4:4; 8 to 16 bits). */
static int read_y4m(const char *path, Clip *c)
{
    FILE *f = fopen(path, "rb");
    char hdr[512];
    if (!f || !fgets(hdr, sizeof hdr, f) || strncmp(hdr, "YUV4MPEG2", 9)) {
        fprintf(stderr, "%s: not a Y4M file\n", path);
        if (f)
            fclose(f);
        return -1;
    }
    const char *cs = strstr(hdr, " C");
    const char *wp = strstr(hdr, " W"), *hp = strstr(hdr, " H");
    c->w = wp ? atoi(wp + 2) : 0;
    c->h = hp ? atoi(hp + 2) : 0;
    c->fmt = SPEEDQA_PIX_420;
    c->bpc = 8;
    if (cs && !strncmp(cs + 2, "422", 3))
        c->fmt = SPEEDQA_PIX_422;
    else if (cs && !strncmp(cs + 2, "444", 3))
        c->fmt = SPEEDQA_PIX_444;
    const char *p = cs ? strstr(cs, "p1") : NULL;
    if (p && p < cs + 12)
        c->bpc = atoi(p + 1);
    const size_t bps = c->bpc > 8 ? 2 : 1, luma = (size_t)c->w * c->h;
    const size_t chroma = c->fmt == SPEEDQA_PIX_420 ? luma / 4 : c->fmt == SPEEDQA_PIX_422 ? luma / 2 : luma;
    c->frame_bytes = (luma + 2 * chroma) * bps;
    c->n = 0;
    c->data = NULL;
    char line[64];
    while (fgets(line, sizeof line, f) && !strncmp(line, "FRAME", 5)) {
        unsigned char *d = realloc(c->data, (size_t)(c->n + 1) * c->frame_bytes);
        if (!d)
            break;
        c->data = d;
        if (fread(c->data + (size_t)c->n * c->frame_bytes, 1, c->frame_bytes, f) != c->frame_bytes)
            break;
        c->n++;
    }
    fclose(f);
    return c->n > 0 && c->w > 0 && c->h > 0 ? 0 : -1;
}

static void picture(const Clip *c, int i, SpeedqaPicture *p)
{
    const size_t bps = c->bpc > 8 ? 2 : 1, luma = (size_t)c->w * c->h;
    const int cw = c->fmt == SPEEDQA_PIX_444 ? c->w : c->w / 2;
    const size_t chroma = c->fmt == SPEEDQA_PIX_420 ? luma / 4 : c->fmt == SPEEDQA_PIX_422 ? luma / 2 : luma;
    const unsigned char *b = c->data + (size_t)i * c->frame_bytes;
    memset(p, 0, sizeof *p);
    p->format = (SpeedqaFormat){ c->w, c->h, c->fmt, c->bpc };
    p->data[0] = b;
    p->data[1] = b + luma * bps;
    p->data[2] = b + (luma + chroma) * bps;
    p->stride[0] = (ptrdiff_t)(c->w * bps);
    p->stride[1] = p->stride[2] = (ptrdiff_t)(cw * bps);
    p->release = no_release;
}

/* One pass over the clip; seconds, or a negative errno. */
static double pass(const Clip *r, const Clip *d, const char *feat, int threads, unsigned mask)
{
    SpeedqaSettings st;
    speedqa_default_settings(&st);
    const char *feats[] = { feat, NULL };
    st.features = feats;
    st.format = (SpeedqaFormat){ r->w, r->h, r->fmt, r->bpc };
    st.n_threads = threads;
    st.backend = SPEEDQA_BACKEND_CPU;
    st.cpu_mask = mask;
    SpeedqaContext *c;
    int ret = speedqa_open(&c, &st);
    if (ret < 0)
        return ret;
    SpeedqaScores sc;
    const double t0 = now();
    for (int i = 0; i < r->n && ret >= 0; i++) {
        SpeedqaPicture pr, pd;
        picture(r, i, &pr);
        picture(d, i, &pd);
        while ((ret = speedqa_send(c, &pr, &pd)) == -EAGAIN)
            if ((ret = speedqa_receive(c, &sc, 1, SPEEDQA_RECEIVE_WAIT)) < 0 && ret != -EAGAIN)
                break;
        while (ret >= 0 && (ret = speedqa_receive(c, &sc, 1, 0)) == 0)
            ;
        if (ret == -EAGAIN)
            ret = 0;
    }
    if (ret >= 0)
        ret = speedqa_flush(c);
    while (ret >= 0 && (ret = speedqa_receive(c, &sc, 1, 0)) == 0)
        ;
    const double t = now() - t0;
    speedqa_close(&c);
    return ret == SPEEDQA_EOF ? t : ret < 0 ? ret : t;
}

int main(int argc, char **argv)
{
    const char *feat = "adm";
    int threads = 1, reps = 3;
    if (argc < 3) {
        fprintf(stderr, "usage: feature_bench REF.y4m DIS.y4m [--feature STR] [--threads N] [--reps R]\n");
        return 2;
    }
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--feature"))
            feat = argv[i + 1];
        else if (!strcmp(argv[i], "--threads"))
            threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
    }
    Clip r, d;
    if (read_y4m(argv[1], &r) < 0 || read_y4m(argv[2], &d) < 0)
        return 1;
    if (d.n < r.n)
        r.n = d.n;
    double best[2] = { 1e30, 1e30 }; /* all levels, C only */
    for (int k = 0; k < reps; k++)
        for (int m = 0; m < 2; m++) {
            const double t = pass(&r, &d, feat, threads, m ? 0u : ~0u);
            if (t < 0) {
                fprintf(stderr, "%s: %s\n", feat, speedqa_strerror((int)t));
                return 1;
            }
            best[m] = t < best[m] ? t : best[m];
        }
    printf("%s: %dx%d %d-bit, %d frames, %d thread(s), best of %d: %.2f ms/frame, C only %.2f "
           "(x%.2f)\n", feat, r.w, r.h, r.bpc, r.n, threads, reps, 1e3 * best[0] / r.n,
           1e3 * best[1] / r.n, best[1] / best[0]);
    free(r.data);
    free(d.data);
    return 0;
}
