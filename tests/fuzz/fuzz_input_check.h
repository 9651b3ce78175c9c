/*
 * Checks shared by the reader targets: a picture handed out by
 * sq_input_read must describe the opened format, and every sample the
 * library may read (and the ceil-sized chroma rows the reader claims) must
 * lie in the reader's buffer: touched here so that ASan sees an overrun.
 */
#ifndef SQ_FUZZ_INPUT_CHECK_H
#define SQ_FUZZ_INPUT_CHECK_H

#include <stdio.h>
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

/*
 * Up to max steps of reading: each a read (its picture touched), or, by
 * pattern, a skip: 1, the first frame skipped; 2, every other one; 3,
 * 1,000 frames skipped first. Every step returns -4095..1; the loop ends at
 * the first that is not 1, whose result it returns. *frames: the frames
 * read or skipped.
 */
static inline int fuzz_input_frames(SqInput *in, const SqInputInfo *info, int pattern, int max,
                                    long long *frames, char *err, size_t errlen)
{
    int r = 1;
    volatile unsigned sink = 0;
    *frames = 0;
    for (int i = 0; i < max && r == 1; i++) {
        SpeedqaPicture pic;
        err[0] = '\0';
        long long n = 0;
        if ((pattern == 1 && i == 0) || (pattern == 2 && (i & 1)))
            n = 1;
        else if (pattern == 3 && i == 0)
            n = 1000;
        r = n ? sq_input_skip(in, n, err, errlen) : sq_input_read(in, &pic, err, errlen);
        FUZZ_CHECK(r >= -4095 && r <= 1, "read/skip returned %d", r);
        if (r == 1 && !n)
            sink += fuzz_touch_picture(info, &pic);
        *frames += r == 1 ? (n ? n : 1) : 0;
    }
    (void)sink;
    return r;
}

/*
 * After the reads, whose last result was last (message err): an error
 * stays, with its message, whatever is asked next; after the end, reads
 * and skips give 0; close clears the pointer and may come twice.
 */
static inline void fuzz_input_end(SqInput **in, const SqInputInfo *info, int last, const char *err)
{
    if (fuzz_verbose())
        fprintf(stderr, "  %dx%d fmt %d bpc %d: last read %d %s\n", info->format.width,
                info->format.height, (int)info->format.fmt, info->format.bpc, last,
                last < 0 ? err : "");
    SpeedqaPicture pic;
    char err2[512] = "";
    if (last < 0) {
        FUZZ_CHECK(err[0] != '\0', "error %d without a message", last);
        int r2 = sq_input_read(*in, &pic, err2, sizeof err2);
        FUZZ_CHECK(r2 == last, "error %d not sticky: read then gave %d", last, r2);
        FUZZ_CHECK(strcmp(err, err2) == 0, "sticky error message changed: '%s' then '%s'", err, err2);
        r2 = sq_input_skip(*in, 1, err2, sizeof err2);
        FUZZ_CHECK(r2 == last, "error %d not sticky: skip then gave %d", last, r2);
    } else if (last == 0) {
        FUZZ_CHECK(sq_input_read(*in, &pic, err2, sizeof err2) == 0, "read after the end is not 0");
        FUZZ_CHECK(sq_input_skip(*in, 3, err2, sizeof err2) == 0, "skip after the end is not 0");
    }
    sq_input_close(in);
    FUZZ_CHECK(*in == NULL, "close did not clear the pointer");
    sq_input_close(in);
}

#endif
