/*
 * libspeedqa_io's video reading: the CLI's readers (tools/input), frames
 * copied out as packed planar planes for a binding (numpy). Never mapped.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "io_priv.h"

struct SpeedqaIoVideo {
    SqInput *in;
    SpeedqaIoVideoInfo info;
};

static void plane_dims(const SpeedqaFormat *f, int c, int *w, int *h)
{
    *w = f->width;
    *h = f->height;
    if (c && f->fmt != SPEEDQA_PIX_444)
        *w >>= 1;
    if (c && f->fmt == SPEEDQA_PIX_420)
        *h >>= 1;
}

static size_t frame_bytes(const SpeedqaFormat *f)
{
    const size_t bps = f->bpc > 8 ? 2 : 1;
    size_t n = 0;
    for (int c = 0; c < (f->fmt == SPEEDQA_PIX_400 ? 1 : 3); c++) {
        int w, h;
        plane_dims(f, c, &w, &h);
        n += (size_t)w * (size_t)h * bps;
    }
    return n;
}

int speedqa_io_video_open(SpeedqaIoVideo **out, const char *path, const SpeedqaIo *io,
                          SpeedqaIoVideoInfo *info, char *err, size_t errlen)
{
    sq_io_copy(err, errlen, "");
    if (!out || !path) {
        sq_io_copy(err, errlen, "speedqa_io_video_open: no handle or path");
        return -EINVAL;
    }
    *out = NULL;
    SpeedqaIoVideo *v = calloc(1, sizeof *v);
    if (!v) {
        sq_io_copy(err, errlen, "out of memory");
        return -ENOMEM;
    }
    const SqRawParams *raw = io && io->cfg.have_raw ? &io->cfg.raw : NULL;
    const int r = sq_input_open_ex(&v->in, path, NULL, raw, -1, io ? io->cfg.decode_threads : 0, 1,
                                   err, errlen);
    if (r < 0) {
        free(v);
        return r;
    }
    const SqInputInfo *ii = sq_input_info(v->in);
    if (ii->device_frames) {
        sq_input_close(&v->in);
        free(v);
        sq_io_copy(err, errlen, "device frames cannot be read into host memory");
        return -ENOTSUP;
    }
    v->info.format = ii->format;
    v->info.fps_num = ii->fps_num;
    v->info.fps_den = ii->fps_den;
    v->info.frames = ii->frames;
    sq_io_copy(v->info.reader, sizeof v->info.reader, ii->reader);
    v->info.frame_bytes = frame_bytes(&ii->format);
    if (info)
        *info = v->info;
    *out = v;
    return 0;
}

/* One plane of pic into dst, rows packed, samples unpacked to planar values. */
static unsigned char *copy_plane(unsigned char *dst, const SpeedqaPicture *pic, int c)
{
    const SpeedqaFormat *f = &pic->format;
    int w, h;
    plane_dims(f, c, &w, &h);
    const int wide = f->bpc > 8;
    const int semi = c && pic->layout == SPEEDQA_LAYOUT_SEMI_PLANAR;
    const int shift = pic->msb_aligned && wide ? 16 - f->bpc : 0;
    const unsigned char *base = pic->data[semi ? 1 : c];
    const size_t step = semi ? 2 : 1, first = semi && c == 2 ? 1 : 0;
    for (int y = 0; y < h; y++) {
        const unsigned char *row = base + (ptrdiff_t)y * pic->stride[semi ? 1 : c];
        if (!wide) {
            for (int x = 0; x < w; x++)
                dst[x] = row[first + step * (size_t)x];
            dst += w;
            continue;
        }
        const uint16_t *r16 = (const uint16_t *)(const void *)row;
        uint16_t *d16 = (uint16_t *)(void *)dst;
        for (int x = 0; x < w; x++)
            d16[x] = (uint16_t)(r16[first + step * (size_t)x] >> shift);
        dst += 2 * (size_t)w;
    }
    return dst;
}

int speedqa_io_video_read(SpeedqaIoVideo *v, void *buf, size_t len, char *err, size_t errlen)
{
    sq_io_copy(err, errlen, "");
    if (!v || !buf || len < v->info.frame_bytes) {
        sq_io_copy(err, errlen, "speedqa_io_video_read: no video, or a buffer under frame_bytes");
        return -EINVAL;
    }
    SpeedqaPicture pic;
    const int r = sq_input_read(v->in, &pic, err, errlen);
    if (r <= 0)
        return r;
    unsigned char *d = buf;
    for (int c = 0; c < (pic.format.fmt == SPEEDQA_PIX_400 ? 1 : 3); c++)
        d = copy_plane(d, &pic, c);
    return 1;
}

void speedqa_io_video_close(SpeedqaIoVideo **v)
{
    if (v && *v) {
        sq_input_close(&(*v)->in);
        free(*v);
        *v = NULL;
    }
}
