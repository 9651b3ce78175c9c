/* Kernels that run pieces of the shared math core as OpenCL C, for the
 * core parity test against the C build of the same headers (built with
 * -DSQ_SOFT_F64 too: sq_f64 buffers hold the same bits either way). */
#include "math/est.h"
#include "math/filter.h"
#include "math/log2.h"
#include "math/opimg.h"

__kernel void check_log2(__global const sq_f64 *x, __global sq_f64 *y)
{
    size_t i = get_global_id(0);
    y[i] = sq_log2(x[i]);
}

__kernel void check_est(__global const float *img, int w, int h, int b, float snn,
                        __global sq_f64 *wsd, __global float *wsf, __global float *e,
                        __global float *s, __global int *flags)
{
    SqDims d;
    sq_dims_est(&d, w, h, b);
    flags[0] = sq_est_params(img, w, &d, snn, wsd, wsf, e, s);
}

__kernel void check_vfilter(__global const uchar *raw, int stride, int h, __global const float *g,
                            int taps, int hbd, float scale, __global float *out, int w)
{
    int c = (int)get_global_id(0), i = (int)get_global_id(1);
    out[i * w + c] = sq_vfilter_raw(raw, stride, raw + (size_t)stride * h, stride, hbd, scale, h,
                                    g, taps, i * 16, c);
}

/* Deflation decisions: |d| sums must be double, as in C (fabs promotes). */
__kernel void check_chop(__global float *d, __global float *e, int m)
{
    sq_eigen_chop(d, e, m);
    if (m >= 2)
        sq_qr_step(d, e, m);
}

/* Compiled, not run: the serial reference must stay OpenCL C too. */
__kernel void check_opimg(__global const uchar *raw, int stride, int w, int h,
                          __global const float *g, __global const int *idx,
                          __global const float *wt, __global float *ws, __global float *dimg)
{
    SqDims d;
    sq_dims_est(&d, w / 16, h / 16, SQ_BLOCK);
    d.w = d.scaled_w = w;
    d.h = d.scaled_h = h;
    const SqOpFilter f = { SQ_PS_BILINEAR, 9, 3, g, g, idx, idx, wt, wt };
    sq_operating_image(raw, stride, 0, 0, 0, 1.0f, &d, &f, ws, dimg);
}
