/*
 * est_params (spec 4.7) for one operating image, serial: the CPU runs this
 * directly; GPU backends run the same steps with one thread per independent
 * output of each step, calling the same per-entry functions.
 */
#ifndef SQ_MATH_EST_H
#define SQ_MATH_EST_H

#include "math/cov.h"
#include "math/dims.h"
#include "math/eigen.h"
#include "math/prelude.h"
#include "math/score.h"
#include "math/solve.h"

#define SQ_EST_SINGULAR 1
#define SQ_EST_EIGEN_CAP 2

/* Patch covariance k (n x n) of img's truncated region (steps 1-2). */
SQ_FN void sq_covariance(const SQ_GLOBAL float *img, int64_t stride, const SqDims *d,
                         SQ_GLOBAL sq_f64 *rows, SQ_GLOBAL sq_f64 *sx,
                         SQ_GLOBAL float *mean, SQ_GLOBAL float *k)
{
    const int b = d->b, n = d->n, nlags = sq_cov_nlags(b);
    const int64_t rd = sq_cov_row_doubles(b);
    for (int y = 0; y < d->trunc_h; y++)
        for (int lag = 0; lag <= nlags; lag++)
            sq_cov_row_lag(img, stride, d->trunc_w, d->trunc_h, b, d->sub_w, y, lag,
                           rows + y * rd + lag * 2 * b);
    for (int p = 0; p < n; p++) {
        sx[p] = sq_cov_window_sum(rows, rd, b, d->sub_h, nlags, p / b, p % b);
        mean[p] = sq_cov_mean(sx[p], d->npatch);
    }
    for (int p = 0; p < n; p++)
        for (int q = 0; q <= p; q++) {
            int r0, c0;
            const int seq = sq_cov_pair_seq(b, p, q, &r0, &c0);
            const sq_f64 sxy = sq_cov_window_sum(rows, rd, b, d->sub_h, seq, r0, c0);
            const float v = sq_cov_entry(sxy, sx[p], sx[q], mean[p], mean[q], d->npatch);
            k[p * n + q] = v;
            k[q * n + p] = v;
        }
}

/*
 * Entropies e[nb] and variances s[nb] of img (trunc region of d), with the
 * workspaces sized by sq_est_ws_doubles / sq_est_ws_floats. Returns a mask
 * of SQ_EST_SINGULAR (covariance singular or solve failed: s = 0) and
 * SQ_EST_EIGEN_CAP (iteration cap hit).
 */
SQ_FN int sq_est_params(const SQ_GLOBAL float *img, int64_t stride, const SqDims *d,
                        float sigma_nn, SQ_GLOBAL sq_f64 *wsd, SQ_GLOBAL float *wsf,
                        SQ_GLOBAL float *e, SQ_GLOBAL float *s)
{
    const int n = d->n, nb = d->nb;
    SQ_GLOBAL sq_f64 *rows = wsd, *sx = wsd + (int64_t)d->trunc_h * sq_cov_row_doubles(d->b);
    SQ_GLOBAL float *mean = wsf, *k = mean + n, *lambda = k + n * n, *y = lambda + n;
    SQ_GLOBAL float *ws = y + (int64_t)n * nb;
    int flags = 0;

    sq_covariance(img, stride, d, rows, sx, mean, k);
    if (sq_eigenvalues(k, n, lambda, ws) < 0)
        flags |= SQ_EST_EIGEN_CAP;
    for (int row = 0; row < n; row++)
        for (int m = 0; m < nb; m++)
            y[(int64_t)row * nb + m] = sq_block_sample(img, stride, d->b, d->nbh, row, m);

    SQ_GLOBAL float *x = ws + 5 * (int64_t)n * n;
    if (!sq_eigen_regular(lambda, n) || sq_qr_solve(k, n, y, nb, ws) < 0) {
        flags |= SQ_EST_SINGULAR;
        for (int64_t i = 0; i < (int64_t)n * nb; i++)
            x[i] = 0.0f;
    }
    for (int m = 0; m < nb; m++)
        s[m] = sq_block_variance(x, y, n, nb, m);
    for (int m = 0; m < nb; m++)
        e[m] = sq_block_entropy(lambda, n, s[m], sigma_nn);
    return flags;
}

#endif
