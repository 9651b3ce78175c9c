/*
 * Plane geometry as the library reads it (libvmaf's): chroma planes are
 * (w >> 1) x (h >> 1) for 4:2:0 and (w >> 1) x h for 4:2:2, rounded down.
 * Files store ceil-sized chroma for odd sizes; the readers in tools/ hand
 * out pictures whose planes contain these.
 */
#ifndef SQ_CORE_FORMAT_H
#define SQ_CORE_FORMAT_H

#include <stdint.h>
#include <string.h>

#include "math/filter.h"
#include "speedqa/speedqa.h"

static inline void sq_plane_size(const SpeedqaFormat *f, int plane, int *w, int *h)
{
    *w = f->width;
    *h = f->height;
    if (plane && f->fmt != SPEEDQA_PIX_444)
        *w = f->width >> 1;
    if (plane && f->fmt == SPEEDQA_PIX_420)
        *h = f->height >> 1;
}

/*
 * Where plane c of a picture starts, its stride and its sample access
 * (math/filter.h: SQ_ACC_*): a semi-planar picture's U and V are data[1],
 * stride[1] read every other element, V one element on; MSB-aligned
 * samples are shifted down. A return value below 2 is a planar,
 * LSB-aligned plane (its rows are what the math core reads as they are).
 */
static inline int sq_plane_access(const SpeedqaPicture *pic, int c, const uint8_t **base,
                                  ptrdiff_t *stride)
{
    const int hbd = pic->format.bpc > 8;
    int acc = hbd ? SQ_ACC_16 : 0;
    if (hbd && pic->msb_aligned)
        acc |= SQ_ACC_SHIFT(16 - pic->format.bpc);
    *base = (const uint8_t *)pic->data[c];
    *stride = pic->stride[c];
    if (c && pic->layout == SPEEDQA_LAYOUT_SEMI_PLANAR) {
        /* (no offset from NULL: a 4:0:0 picture has no chroma at all) */
        *base = pic->data[1] ? (const uint8_t *)pic->data[1] + (c == 2 ? (hbd ? 2 : 1) : 0) : NULL;
        *stride = pic->stride[1];
        acc |= SQ_ACC_STEP2;
    }
    return acc;
}

/*
 * w samples of a raw row read with access acc, written as a planar,
 * LSB-aligned row (bytes, or 16-bit containers when acc has SQ_ACC_16):
 * what the math core then reads with access 0 or 1 gives the same values.
 */
static inline void sq_unpack_row(uint8_t *dst, const uint8_t *src, int w, int acc)
{
    if (acc < 2) {
        memcpy(dst, src, (size_t)w << (acc & SQ_ACC_16));
        return;
    }
    if (!(acc & SQ_ACC_16)) { /* 8-bit interleaved */
        for (int x = 0; x < w; x++)
            dst[x] = (uint8_t)sq_sample(src, x, SQ_ACC_STEP2);
        return;
    }
    const int shift = (acc >> 2) & 15;
    if (acc & SQ_ACC_STEP2)
        for (int x = 0; x < w; x++) {
            const uint16_t v = (uint16_t)(sq_sample(src, x, SQ_ACC_16 | SQ_ACC_STEP2) >> shift);
            memcpy(dst + 2 * x, &v, 2);
        }
    else
        for (int x = 0; x < w; x++) {
            const uint16_t v = (uint16_t)(sq_sample(src, x, SQ_ACC_16) >> shift);
            memcpy(dst + 2 * x, &v, 2);
        }
}

#endif
