#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "input.h"

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void bench_no_release(void *opaque, const void *data0)
{
    (void)opaque;
    (void)data0;
}

static void clip_layout(BenchClip *c)
{
    const SpeedqaFormat *f = &c->format;
    const size_t bps = f->bpc > 8 ? 2 : 1;
    const int cw = f->fmt == SPEEDQA_PIX_444 ? f->width : f->width >> 1;
    const int ch = f->fmt == SPEEDQA_PIX_420 ? f->height >> 1 : f->height;
    const int planes = f->fmt == SPEEDQA_PIX_400 ? 1 : 3;
    size_t at = 0;
    memset(c->stride, 0, sizeof c->stride);
    memset(c->offset, 0, sizeof c->offset);
    for (int p = 0; p < planes; p++) {
        c->stride[p] = (ptrdiff_t)((p ? cw : f->width) * bps);
        c->offset[p] = at;
        at += (size_t)c->stride[p] * (size_t)(p ? ch : f->height);
    }
    c->frame_bytes = at;
}

/* One picture the reader gave into frame slot i (rows packed). */
static void clip_put(BenchClip *c, int i, const SpeedqaPicture *p)
{
    const int planes = c->format.fmt == SPEEDQA_PIX_400 ? 1 : 3;
    unsigned char *frame = c->data + (size_t)i * c->frame_bytes;
    for (int k = 0; k < planes; k++) {
        const size_t row = (size_t)c->stride[k];
        const size_t rows = (k + 1 < planes ? c->offset[k + 1] : c->frame_bytes) - c->offset[k];
        for (size_t y = 0; y < rows / row; y++)
            memcpy(frame + c->offset[k] + y * row,
                   (const unsigned char *)p->data[k] + (ptrdiff_t)y * p->stride[k], row);
    }
}

int bench_clip_load(BenchClip *c, const char *path, int max_frames)
{
    char err[256];
    SqInput *in = NULL;
    memset(c, 0, sizeof *c);
    if (sq_input_open(&in, path, NULL, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    c->format = sq_input_info(in)->format;
    clip_layout(c);
    int ret = 0, cap = 0;
    for (;;) {
        SpeedqaPicture p;
        if (max_frames > 0 && c->n == max_frames)
            break;
        const int r = sq_input_read(in, &p, err, sizeof err);
        if (r <= 0) {
            if (r < 0) {
                fprintf(stderr, "%s: %s\n", path, err);
                ret = -1;
            }
            break;
        }
        if (p.layout != SPEEDQA_LAYOUT_PLANAR || p.msb_aligned || p.memory != SPEEDQA_MEM_HOST) {
            fprintf(stderr, "%s: the benches hold planar host frames only\n", path);
            ret = -1;
        } else if (c->n == cap) {
            cap = cap ? 2 * cap : 16;
            unsigned char *d = realloc(c->data, (size_t)cap * c->frame_bytes);
            if (!d) {
                fprintf(stderr, "%s: out of memory at frame %d\n", path, c->n);
                ret = -1;
            } else {
                c->data = d;
            }
        }
        if (ret == 0)
            clip_put(c, c->n++, &p);
        if (p.release)
            p.release(p.release_opaque, p.data[0]);
        if (ret < 0)
            break;
    }
    sq_input_close(&in);
    if (ret == 0 && c->n == 0) {
        fprintf(stderr, "%s: no frames\n", path);
        ret = -1;
    }
    if (ret < 0)
        bench_clip_free(c);
    return ret;
}

void bench_clip_picture(const BenchClip *c, int i, SpeedqaPicture *p)
{
    const unsigned char *b = c->data + (size_t)i * c->frame_bytes;
    memset(p, 0, sizeof *p);
    p->format = c->format;
    for (int k = 0; k < 3; k++) {
        p->data[k] = c->stride[k] ? b + c->offset[k] : NULL;
        p->stride[k] = c->stride[k];
    }
    p->release = bench_no_release;
}

void bench_clip_free(BenchClip *c)
{
    free(c->data);
    memset(c, 0, sizeof *c);
}
