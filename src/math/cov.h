/*
 * The 25x25 patch covariance of one operating image (spec 4.7 steps 1-2),
 * in one canonical double summation order shared by every backend.
 *
 * Netflix sums centred products per pair; we use the equivalent raw-moment
 * form (spec 5.3: identical to 1e-6), because the 325 pairs share only 41
 * pixel lags. A float times a float is exact in double, so only the order of
 * the double additions is a choice, and it is fixed here:
 *
 *  1. For operating row y and lag (dr, dc), the prefix P(t) = sum over
 *     x < t, in increasing x, of D(y,x) * D(y+dr, x+dc) (terms whose second
 *     sample falls outside the truncated width are skipped). Kept at the 2b
 *     checkpoints t = c and t = sub_w + c (c < b). A last sequence does the
 *     same for the plain sum of D(y,x).
 *  2. Row term of a pair whose upper-left window starts at (r0, c0):
 *     P(c0 + sub_w) - P(c0) on row y = r0 + i; pair sum = sum over
 *     i = 0 .. sub_h-1 of the row terms, in increasing i, from 0.0.
 *  3. mean[p] = (float)(Sx[p] / N); K = raw moments minus the mean terms,
 *     divided by N, rounded to float (sq_cov_entry).
 *
 * A GPU computes step 1 with one thread per (row, lag) and step 2 with one
 * thread per pair; the CPU loops. Both give the same bits.
 */
#ifndef SQ_MATH_COV_H
#define SQ_MATH_COV_H

#include "math/dims.h"
#include "math/f64.h"
#include "math/prelude.h"

/* Step 1 for one (row y, lag); lag == nlags is the plain sum. out: 2b doubles. */
SQ_FN void sq_cov_row_lag(const SQ_GLOBAL float *img, int64_t stride, int trunc_w,
                          int trunc_h, int b, int sub_w, int y, int lag,
                          SQ_GLOBAL sq_f64 *out)
{
    const int nlags = sq_cov_nlags(b);
    int dr = 0, dc = 0;
    if (lag < nlags)
        sq_cov_lag_of(b, lag, &dr, &dc);
    sq_f64 acc = SQ_D_ZERO;
    if (y + dr < trunc_h) {
        const SQ_GLOBAL float *r0 = img + (int64_t)y * stride;
        const SQ_GLOBAL float *r1 = img + (int64_t)(y + dr) * stride;
        const int x0 = dc < 0 ? -dc : 0;
        const int x1 = dc > 0 ? trunc_w - dc : trunc_w;
        for (int t = 0; t <= trunc_w; t++) {
            if (t < b)
                out[t] = acc;
            if (t >= sub_w && t < sub_w + b)
                out[b + t - sub_w] = acc;
            if (t == trunc_w)
                break;
            if (lag == nlags)
                acc = sq_d_add(acc, sq_d_from_float(r0[t]));
            else if (t >= x0 && t < x1)
                acc = sq_d_add(acc, sq_d_mul_ff(r0[t], r1[t + dc]));
        }
    } else {
        for (int c = 0; c < 2 * b; c++)
            out[c] = SQ_D_ZERO;
    }
}

/* Step 2: sum of one sequence over the sub_h rows of the window at (r0, c0). */
SQ_FN sq_f64 sq_cov_window_sum(const SQ_GLOBAL sq_f64 *rows, int64_t row_doubles,
                               int b, int sub_h, int seq, int r0, int c0)
{
    sq_f64 acc = SQ_D_ZERO;
    for (int i = 0; i < sub_h; i++) {
        const SQ_GLOBAL sq_f64 *ck = rows + (int64_t)(r0 + i) * row_doubles + seq * 2 * b;
        acc = sq_d_add(acc, sq_d_sub(ck[b + c0], ck[c0]));
    }
    return acc;
}

/* Sequence index and window origin of covariance pair (p, q), q <= p. */
SQ_FN int sq_cov_pair_seq(int b, int p, int q, int *r0, int *c0)
{
    const int rp = p / b, cp = p % b, rq = q / b, cq = q % b;
    /* q <= p puts q's window first in raster order, so the lag has dr >= 0. */
    *r0 = rq;
    *c0 = cq;
    return sq_cov_lag_index(b, rp - rq, cp - cq);
}

SQ_FN float sq_cov_mean(sq_f64 sx, int64_t npatch)
{
    return sq_d_to_float(sq_d_div(sx, sq_d_from_int(npatch)));
}

/* Step 3: one covariance entry from the raw moments of its two windows. */
SQ_FN float sq_cov_entry(sq_f64 sxy, sq_f64 sx_p, sq_f64 sx_q, float mean_p,
                         float mean_q, int64_t npatch)
{
    const sq_f64 mp = sq_d_from_float(mean_p), mq = sq_d_from_float(mean_q);
    const sq_f64 nn = sq_d_from_int(npatch);
    /* sxy - mq * sx_p - mp * sx_q + nn * mp * mq, left to right */
    const sq_f64 c = sq_d_add(sq_d_sub(sq_d_sub(sxy, sq_d_mul(mq, sx_p)), sq_d_mul(mp, sx_q)),
                              sq_d_mul(sq_d_mul(nn, mp), mq));
    return sq_d_to_float(sq_d_div(c, nn));
}

#endif
