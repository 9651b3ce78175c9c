/*
 * Checks shared by the reader targets: a picture handed out by
 * sq_input_read must describe the opened format, and every sample the
 * library may read (and the ceil-sized chroma rows the reader claims) must
 * lie in the reader's buffer: touched here so that ASan sees an overrun.
 */
#ifndef SQ_FUZZ_INPUT_CHECK_H
#define SQ_FUZZ_INPUT_CHECK_H

#include <string.h>

#include "fuzz_common.h"
#include "input.h"

static inline void fuzz_check_info(const SqInputInfo *info)
{
    const SpeedqaFormat *f = &info->format;
    FUZZ_CHECK(f->width >= 1 && f->width <= SQ_INPUT_MAX_DIM && f->height >= 1 &&
               f->height <= SQ_INPUT_MAX_DIM, "opened with size %dx%d", f->width, f->height);
    FUZZ_CHECK(f->bpc >= 8 && f->bpc <= 16, "opened with bit depth %d", f->bpc);
    FUZZ_CHECK((unsigned)f->fmt <= SPEEDQA_PIX_444, "opened with pixel format %d", (int)f->fmt);
    FUZZ_CHECK((info->fps_num > 0 && info->fps_den > 0) || (info->fps_num == 0 && info->fps_den == 0),
               "frame rate %d/%d", info->fps_num, info->fps_den);
}

/* Plane p as a file stores it: chroma ceil-sized for odd sizes. */
static inline void fuzz_plane_size(const SpeedqaFormat *f, int p, int *w, int *h)
{
    *w = f->width;
    *h = f->height;
    if (p == 0)
        return;
    if (f->fmt == SPEEDQA_PIX_400) {
        *w = *h = 0;
        return;
    }
    if (f->fmt != SPEEDQA_PIX_444)
        *w = (*w + 1) >> 1;
    if (f->fmt == SPEEDQA_PIX_420)
        *h = (*h + 1) >> 1;
}

/* Bytes of one frame as a file stores it. */
static inline size_t fuzz_frame_bytes(const SpeedqaFormat *f)
{
    size_t total = 0;
    for (int p = 0; p < 3; p++) {
        int w, h;
        fuzz_plane_size(f, p, &w, &h);
        total += (size_t)w * (size_t)h * (f->bpc > 8 ? 2 : 1);
    }
    return total;
}

static inline unsigned fuzz_touch_picture(const SqInputInfo *info, const SpeedqaPicture *pic)
{
    const SpeedqaFormat *f = &info->format;
    FUZZ_CHECK(memcmp(&pic->format, f, sizeof *f) == 0, "picture format differs from the opened one");
    FUZZ_CHECK(pic->memory == SPEEDQA_MEM_HOST, "picture memory %d", (int)pic->memory);
    /* semi-planar: U and V interleaved in plane 1, plane 2 unused */
    const int semi = pic->layout == SPEEDQA_LAYOUT_SEMI_PLANAR;
    const int planes = f->fmt == SPEEDQA_PIX_400 ? 1 : semi ? 2 : 3;
    const int bps = f->bpc > 8 ? 2 : 1;
    unsigned sum = 0;
    for (int p = 0; p < planes; p++) {
        int w, h;
        fuzz_plane_size(f, p, &w, &h);
        w *= semi && p == 1 ? 2 : 1;
        FUZZ_CHECK(pic->data[p] != NULL, "plane %d is NULL", p);
        FUZZ_CHECK(pic->stride[p] >= (ptrdiff_t)w * bps || pic->stride[p] <= -(ptrdiff_t)w * bps,
                   "plane %d stride %td below its width %d", p, pic->stride[p], w);
        const unsigned char *base = pic->data[p];
        for (int y = 0; y < h; y++) {
            const unsigned char *row = base + (ptrdiff_t)y * pic->stride[p];
            for (size_t x = 0; x < (size_t)w * bps; x++)
                sum += row[x];
        }
    }
    return sum;
}

#endif
