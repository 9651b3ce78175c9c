/*
 * Sample conversion and the separable Gaussian filters (spec 2.4, 4.4-4.6).
 * Each function computes one output sample, so a CPU loop, a SIMD lane and a
 * GPU thread all perform the same float operations in the same order:
 * taps in increasing k, product rounded to float, then added (no FMA).
 */
#ifndef SQ_MATH_FILTER_H
#define SQ_MATH_FILTER_H

#include "math/prelude.h"

/* Reflection without repeating the edge sample (valid while radius < len). */
SQ_FN int sq_mirror(int p, int len)
{
    if (p < 0)
        return -p;
    if (p >= len)
        return 2 * len - p - 2;
    return p;
}

/* v * 2^-(bpc-8) - 128: exact in float for every bpc in 8..16. */
SQ_FN float sq_sample_to_float(uint32_t v, float scale)
{
    return (float)v * scale + -128.0f;
}

SQ_FN float sq_bpc_scale(int bpc)
{
    float s = 1.0f;
    for (int b = 8; b < bpc; b++)
        s *= 0.5f;
    return s;
}

/*
 * Sample x of a row of 16-bit containers. Host pictures may put them at odd
 * addresses (a 10-bit Y4M frame read in place from a mapped file), so the
 * host build loads through memcpy (one unaligned load on x86 and arm64);
 * device arenas are always aligned.
 */
SQ_FN uint32_t sq_load_u16(const SQ_GLOBAL uint8_t *row, int64_t x)
{
#if defined(__OPENCL_VERSION__) || defined(__CUDACC__) || defined(__HIPCC__) || \
    !defined(__GNUC__)
    return ((const SQ_GLOBAL uint16_t *)row)[x];
#else
    uint16_t v;
    __builtin_memcpy(&v, row + 2 * x, sizeof v);
    return v;
#endif
}

/*
 * The sample access of a raw plane, one int: how element x of a row is
 * found and what its value is. SQ_ACC_16: 16-bit containers (else bytes);
 * SQ_ACC_STEP2: every other element (a chroma plane of a semi-planar
 * picture, U and V interleaved: U at the plane's start, V one element on);
 * SQ_ACC_SHIFT(s): the value is the container >> s (MSB-aligned samples,
 * s = 16 - bpc: P010's low 6 bits are padding and ignored). 0 and 1 are the
 * planar 8- and 16-bit planes, the `hbd` flag of old. This is the one place
 * a pixel layout is decoded: backends that read raw samples call
 * sq_sample (the GPU kernels, and the host copies that unpack a picture
 * into planar rows, core/format.h) and only pass the code along.
 */
#define SQ_ACC_16 1
#define SQ_ACC_STEP2 2
#define SQ_ACC_SHIFT(s) ((s) << 2)

SQ_FN uint32_t sq_sample(const SQ_GLOBAL uint8_t *row, int64_t x, int acc)
{
    const int64_t e = (acc & SQ_ACC_STEP2) ? 2 * x : x;
    const uint32_t v = (acc & SQ_ACC_16) ? sq_load_u16(row, e) : (uint32_t)row[e];
    return v >> ((acc >> 2) & 15);
}

/*
 * The access argument of sq_src_at and sq_vfilter_raw describes two planes:
 * bits 0..7 the current one's, bits 8..15 how the previous one's differs
 * (XOR), so that a single code (0, 1, ...) means both planes alike.
 */
SQ_FN int sq_acc_pair(int cur, int prev)
{
    return cur | ((cur ^ prev) << 8);
}

SQ_FN int sq_acc_cur(int acc)
{
    return acc & 255;
}

SQ_FN int sq_acc_prev(int acc)
{
    return (acc ^ (acc >> 8)) & 255;
}

/* One converted sample of a raw plane (acc: its sample access). */
SQ_FN float sq_raw_at(const SQ_GLOBAL uint8_t *base, int64_t stride, int acc,
                      float scale, int y, int x)
{
    const SQ_GLOBAL uint8_t *row = base + (int64_t)y * stride;
    return sq_sample_to_float(sq_sample(row, x, acc), scale);
}

/*
 * Sample of the core's input image at (y, x): the converted plane, or for
 * speed_temporal the difference prev - cur (prev != 0). The two planes may
 * differ (speed_use_ref_diff subtracts the current reference from the
 * previous distorted frame), hence separate strides and accesses
 * (acc: sq_acc_pair).
 */
SQ_FN float sq_src_at(const SQ_GLOBAL uint8_t *cur, int64_t cur_stride,
                      const SQ_GLOBAL uint8_t *prev, int64_t prev_stride,
                      int acc, float scale, int y, int x)
{
    float c = sq_raw_at(cur, cur_stride, sq_acc_cur(acc), scale, y, x);
    if (prev)
        return sq_raw_at(prev, prev_stride, sq_acc_prev(acc), scale, y, x) - c;
    return c;
}

/* Vertical pass at (row, col) straight from raw samples (no prescale); sa: sq_acc_pair. */
SQ_FN float sq_vfilter_raw(const SQ_GLOBAL uint8_t *cur, int64_t cur_stride,
                           const SQ_GLOBAL uint8_t *prev, int64_t prev_stride,
                           int sa, float scale, int h,
                           const SQ_GLOBAL float *g, int taps, int row, int col)
{
    const int r = taps >> 1;
    float acc = 0.0f;
    for (int k = 0; k < taps; k++) {
        float x = sq_src_at(cur, cur_stride, prev, prev_stride, sa, scale,
                            sq_mirror(row - r + k, h), col);
        float prod = g[k] * x;
        acc = acc + prod;
    }
    return acc;
}

/* Vertical pass at (row, col) over a float image of height h. */
SQ_FN float sq_vfilter_f32(const SQ_GLOBAL float *img, int64_t stride, int h,
                           const SQ_GLOBAL float *g, int taps, int row, int col)
{
    const int r = taps >> 1;
    float acc = 0.0f;
    for (int k = 0; k < taps; k++) {
        float prod = g[k] * img[(int64_t)sq_mirror(row - r + k, h) * stride + col];
        acc = acc + prod;
    }
    return acc;
}

/* Horizontal pass at col over one row of length w. */
SQ_FN float sq_hfilter_f32(const SQ_GLOBAL float *line, int w,
                           const SQ_GLOBAL float *g, int taps, int col)
{
    const int r = taps >> 1;
    float acc = 0.0f;
    for (int k = 0; k < taps; k++) {
        float prod = g[k] * line[sq_mirror(col - r + k, w)];
        acc = acc + prod;
    }
    return acc;
}

/* Local-mean removal at (i, j) of the operating image: op - filter(op). */
SQ_FN float sq_local_mean_at(const SQ_GLOBAL float *vtmp, int op_w,
                             const SQ_GLOBAL float *op_row,
                             const SQ_GLOBAL float *g, int taps, int j)
{
    return op_row[j] - sq_hfilter_f32(vtmp, op_w, g, taps, j);
}

#endif
