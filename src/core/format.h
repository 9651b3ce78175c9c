/*
 * Plane geometry as the library reads it (libvmaf's): chroma planes are
 * (w >> 1) x (h >> 1) for 4:2:0 and (w >> 1) x h for 4:2:2, rounded down.
 * Files store ceil-sized chroma for odd sizes; the readers in tools/ hand
 * out pictures whose planes contain these.
 */
#ifndef SQ_CORE_FORMAT_H
#define SQ_CORE_FORMAT_H

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

#endif
