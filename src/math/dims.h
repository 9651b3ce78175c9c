/*
 * Geometry of one plane through the SpEED core (spec 4.1) and the sizes of
 * every workspace, computed in signed 64-bit arithmetic so a too-small plane
 * can never underflow into a huge size.
 */
#ifndef SQ_MATH_DIMS_H
#define SQ_MATH_DIMS_H

#include "math/prelude.h"

typedef struct SqDims {
    int w, h;             /* plane size before prescale */
    int scaled_w, scaled_h;
    int op_w, op_h;       /* operating (decimated) image */
    int b, n;             /* block size, elements per block (b*b) */
    int trunc_w, trunc_h; /* operating size cut to multiples of b */
    int nbh, nbv, nb;     /* non-overlapping blocks */
    int sub_w, sub_h;     /* overlapping patch positions per axis */
    int64_t npatch;       /* sub_w * sub_h */
} SqDims;

/* Estimation geometry on an operating image of op_w x op_h, block size b. */
SQ_FN void sq_dims_est(SqDims *d, int op_w, int op_h, int b)
{
    d->op_w = op_w;
    d->op_h = op_h;
    d->b = b;
    d->n = b * b;
    d->trunc_w = (op_w / b) * b;
    d->trunc_h = (op_h / b) * b;
    d->nbh = d->trunc_w / b;
    d->nbv = d->trunc_h / b;
    d->nb = d->nbh * d->nbv;
    d->sub_w = d->trunc_w > 0 ? d->trunc_w - b + 1 : 0;
    d->sub_h = d->trunc_h > 0 ? d->trunc_h - b + 1 : 0;
    d->npatch = (int64_t)d->sub_w * d->sub_h;
}

/* Covariance lags (dr, dc): dr in [0, b), dc in (-b, b), (0, dc < 0) excluded. */
SQ_FN int sq_cov_nlags(int b) { return b + (b - 1) * (2 * b - 1); }

SQ_FN int sq_cov_lag_index(int b, int dr, int dc)
{
    return dr == 0 ? dc : b + (dr - 1) * (2 * b - 1) + (dc + b - 1);
}

SQ_FN void sq_cov_lag_of(int b, int lag, int *dr, int *dc)
{
    if (lag < b) {
        *dr = 0;
        *dc = lag;
    } else {
        int t = lag - b;
        *dr = 1 + t / (2 * b - 1);
        *dc = t % (2 * b - 1) - (b - 1);
    }
}

/*
 * Per operating row, each of the nlags + 1 prefix sequences (the last one is
 * the plain sample sum) keeps 2b checkpoints: P(c) and P(sub_w + c), c < b.
 */
SQ_FN int64_t sq_cov_row_doubles(int b) { return (int64_t)(sq_cov_nlags(b) + 1) * 2 * b; }

/* Float workspace of the eigen solver (spec 4.7.1) and of the QR solve (4.7.2). */
SQ_FN int64_t sq_eigen_ws_floats(int n) { return (int64_t)n * n + 4 * (int64_t)n; }
SQ_FN int64_t sq_solve_ws_floats(int n, int nb) { return 5 * (int64_t)n * n + (int64_t)n * nb; }

/* Workspace of sq_est_params (spec 4.7) for geometry d. */
SQ_FN int64_t sq_est_ws_doubles(const SqDims *d)
{
    return (int64_t)d->trunc_h * sq_cov_row_doubles(d->b) + d->n;
}

SQ_FN int64_t sq_est_ws_floats(const SqDims *d)
{
    const int64_t n = d->n;
    const int64_t eig = sq_eigen_ws_floats(d->n), sol = sq_solve_ws_floats(d->n, d->nb);
    return n + n * n + n + n * d->nb + (eig > sol ? eig : sol);
}

#endif
