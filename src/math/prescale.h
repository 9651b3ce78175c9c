/*
 * Resampling by speed_prescale (spec 4.2), one output sample per call.
 * Source indices (already mirrored) and weights come from per-axis tables
 * built once on the host (sq_prescale_axis, src/feature/taps.c), because they need
 * floor/sin whose last bit differs between libm and GPU libraries.
 * Per axis and output index there are SQ_PS_TAPS slots:
 *   nearest:  idx[0]
 *   bilinear: idx[0] = x1, idx[1] = x2, w[0] = dx (measured from mirrored x1)
 *   bicubic:  idx[0..3], w[0..3] = Keys weights of taps -1..2
 *   lanczos4: idx[0..8], w[0..8] = Lanczos weights of taps -4..4
 */
#ifndef SQ_MATH_PRESCALE_H
#define SQ_MATH_PRESCALE_H

#include "math/prelude.h"

#define SQ_PS_TAPS 9

enum {
    SQ_PS_NEAREST = 0,
    SQ_PS_BILINEAR = 1,
    SQ_PS_BICUBIC = 2,
    SQ_PS_LANCZOS4 = 3,
};

SQ_FN float sq_prescale_at(const SQ_GLOBAL float *src, int64_t stride, int method,
                           const SQ_GLOBAL int32_t *iy, const SQ_GLOBAL float *wy,
                           const SQ_GLOBAL int32_t *ix, const SQ_GLOBAL float *wx)
{
    if (method == SQ_PS_NEAREST)
        return src[(int64_t)iy[0] * stride + ix[0]];
    if (method == SQ_PS_BILINEAR) {
        const SQ_GLOBAL float *r1 = src + (int64_t)iy[0] * stride;
        const SQ_GLOBAL float *r2 = src + (int64_t)iy[1] * stride;
        const float dx = wx[0], dy = wy[0];
        const float ody = 1.0f - dy, odx = 1.0f - dx;
        float w11 = ody * odx, w12 = ody * dx, w21 = dy * odx, w22 = dy * dx;
        float acc = w11 * r1[ix[0]];
        acc = acc + w12 * r1[ix[1]];
        acc = acc + w21 * r2[ix[0]];
        acc = acc + w22 * r2[ix[1]];
        return acc;
    }
    if (method == SQ_PS_BICUBIC) {
        float acc = 0.0f;
        for (int j = 0; j < 4; j++) {
            const SQ_GLOBAL float *row = src + (int64_t)iy[j] * stride;
            for (int i = 0; i < 4; i++) {
                float w = wx[i] * wy[j];
                float prod = row[ix[i]] * w;
                acc = acc + prod;
            }
        }
        return acc;
    }
    /* lanczos4 */
    float val = 0.0f, wsum = 0.0f;
    for (int j = 0; j < 9; j++) {
        const SQ_GLOBAL float *row = src + (int64_t)iy[j] * stride;
        for (int i = 0; i < 9; i++) {
            float w = wx[i] * wy[j];
            wsum = wsum + w;
            float prod = row[ix[i]] * w;
            val = val + prod;
        }
    }
    return val / wsum;
}

/* Output (y, x): the rows of the axis tables that belong to it. */
SQ_FN float sq_prescale_px(const SQ_GLOBAL float *src, int64_t stride, int method,
                           const SQ_GLOBAL int32_t *iy, const SQ_GLOBAL float *wy,
                           const SQ_GLOBAL int32_t *ix, const SQ_GLOBAL float *wx, int y, int x)
{
    return sq_prescale_at(src, stride, method, iy + (int64_t)y * SQ_PS_TAPS,
                          wy + (int64_t)y * SQ_PS_TAPS, ix + (int64_t)x * SQ_PS_TAPS,
                          wx + (int64_t)x * SQ_PS_TAPS);
}

#endif
