/*
 * The operating image of one plane side (spec 4.2-4.6: conversion, prescale,
 * anti-alias filter with decimation, local-mean removal), serial and built
 * from the per-output functions alone. The backends compute it in other
 * structures (the CPU only at the columns the decimation reads, the GPU a
 * row per block); this is the one reference the tests hold them to.
 */
#ifndef SQ_MATH_OPIMG_H
#define SQ_MATH_OPIMG_H

#include "math/dims.h"
#include "math/filter.h"
#include "math/prelude.h"
#include "math/prescale.h"

/* What the plan fixes for the operating image (SqPlan has these fields). */
typedef struct SqOpFilter {
    int prescale; /* SQ_PS_*, or -1 when skipped */
    int taps_a, taps_m;
    const SQ_GLOBAL float *ga, *gm; /* anti-alias and local-mean taps */
    const SQ_GLOBAL int32_t *ps_iy, *ps_ix; /* prescale tables, SQ_PS_TAPS per output */
    const SQ_GLOBAL float *ps_wy, *ps_wx;
} SqOpFilter;

/* Workspace of sq_operating_image: conv and scaled (prescale only), vrow, op, mrow. */
SQ_FN int64_t sq_opimg_ws_floats(const SqDims *d, int prescale)
{
    const int64_t own = (int64_t)d->scaled_w + (int64_t)d->op_w * d->op_h + d->op_w;
    return prescale >= 0
        ? own + (int64_t)d->w * d->h + (int64_t)d->scaled_w * d->scaled_h : own;
}

/* dimg (op_w x op_h) of the plane cur (prev != 0: prev - cur), as sq_src_at reads it. */
SQ_FN void sq_operating_image(const SQ_GLOBAL uint8_t *cur, int64_t cur_stride,
                              const SQ_GLOBAL uint8_t *prev, int64_t prev_stride, int acc,
                              float scale, const SqDims *d, const SqOpFilter *f,
                              SQ_GLOBAL float *ws, SQ_GLOBAL float *dimg)
{
    const int sw = d->scaled_w, sh = d->scaled_h, ow = d->op_w, oh = d->op_h;
    const int ps = f->prescale >= 0;
    SQ_GLOBAL float *conv = ws;
    SQ_GLOBAL float *scaled = conv + (ps ? (int64_t)d->w * d->h : 0);
    SQ_GLOBAL float *vrow = scaled + (ps ? (int64_t)sw * sh : 0);
    SQ_GLOBAL float *op = vrow + sw, *mrow = op + (int64_t)ow * oh;
    if (ps) {
        for (int y = 0; y < d->h; y++)
            for (int x = 0; x < d->w; x++)
                conv[(int64_t)y * d->w + x] =
                    sq_src_at(cur, cur_stride, prev, prev_stride, acc, scale, y, x);
        for (int y = 0; y < sh; y++)
            for (int x = 0; x < sw; x++)
                scaled[(int64_t)y * sw + x] = sq_prescale_px(conv, d->w, f->prescale, f->ps_iy,
                                                             f->ps_wy, f->ps_ix, f->ps_wx, y, x);
    }
    for (int i = 0; i < oh; i++) {
        const int row = i << SQ_DECIM_SHIFT;
        for (int c = 0; c < sw; c++)
            vrow[c] = ps ? sq_vfilter_f32(scaled, sw, sh, f->ga, f->taps_a, row, c)
                         : sq_vfilter_raw(cur, cur_stride, prev, prev_stride, acc, scale, sh,
                                          f->ga, f->taps_a, row, c);
        for (int j = 0; j < ow; j++)
            op[(int64_t)i * ow + j] =
                sq_hfilter_f32(vrow, sw, f->ga, f->taps_a, j << SQ_DECIM_SHIFT);
    }
    for (int i = 0; i < oh; i++) {
        for (int j = 0; j < ow; j++)
            mrow[j] = sq_vfilter_f32(op, ow, oh, f->gm, f->taps_m, i, j);
        for (int j = 0; j < ow; j++)
            dimg[(int64_t)i * ow + j] =
                sq_local_mean_at(mrow, ow, op + (int64_t)i * ow, f->gm, f->taps_m, j);
    }
}

#endif
