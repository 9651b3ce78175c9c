/*
 * Eigenvalues of the symmetric covariance (spec 4.7.1): Householder
 * tridiagonalisation, then implicit symmetric QR with Wilkinson shifts, all
 * in float with sqrt taken in double. The values are returned in the order
 * the iteration leaves them; that order is the float summation order of the
 * entropy, so they must not be sorted.
 */
#ifndef SQ_MATH_EIGEN_H
#define SQ_MATH_EIGEN_H

#include "math/f64.h"
#include "math/prelude.h"

#define SQ_EIGEN_MAX_ITER 500

/* An eigenvalue below this (a double) makes the covariance singular. */
#define SQ_EIGEN_LAMBDA_MIN SQ_D_1EM6

/*
 * 1 when no eigenvalue is below SQ_EIGEN_LAMBDA_MIN. sq_est_params, the CPU
 * and the GPU kernels all decide singularity here, so they cannot drift
 * apart on a NaN (it passes) or on the precision of the comparison (double:
 * a float constant would move the cut).
 */
SQ_FN int sq_eigen_regular(const SQ_GLOBAL float *lambda, int n)
{
    for (int i = 0; i < n; i++)
        if (sq_d_lt(sq_d_from_float(lambda[i]), SQ_EIGEN_LAMBDA_MIN))
            return 0;
    return 1;
}

SQ_FN float sq_hypf(float a, float b) { return sq_sqrtf_d(a * a + b * b); }
SQ_FN float sq_sgnf(float x) { return x >= 0.0f ? 1.0f : -1.0f; }

/* Row r of the Householder product, one of the independent outputs. */
SQ_FN float sq_tridiag_x(const SQ_GLOBAL float *a, int n, int i, float tau,
                         const SQ_GLOBAL float *v, int r)
{
    float acc = 0.0f;
    for (int c = i + 1; c < n; c++) {
        float t = tau * a[r * n + c];
        float prod = t * v[c];
        acc = acc + prod;
    }
    return acc;
}

/*
 * The serial steps of the loops below, on their own so that the GPU
 * kernels (gpu/kernels.h), which run the independent entries between them
 * on many threads, call the very same ones.
 */

/*
 * Step i of sq_tridiag: the reflector of column i below the sub-diagonal.
 * Returns 1 when the column is to be divided by *s and its sub-diagonal
 * entry set to *beta; *tau == 0 means no update of the trailing block.
 */
SQ_FN int sq_tridiag_reflector(const SQ_GLOBAL float *a, int n, int i, float *tau, float *s,
                               float *beta)
{
    float ss = 0.0f;
    for (int r = i + 2; r < n; r++) {
        float sq = a[r * n + i] * a[r * n + i];
        ss = ss + sq;
    }
    const float xnorm = sq_sqrtf_d(ss);
    *tau = 0.0f;
    *s = 0.0f;
    *beta = 0.0f;
    if (xnorm != 0.0f) {
        const float alpha = a[(i + 1) * n + i];
        *beta = -sq_sgnf(alpha) * sq_hypf(alpha, xnorm);
        *tau = (*beta - alpha) / *beta;
        *s = alpha - *beta;
    }
    return xnorm != 0.0f && *s != 0.0f;
}

/* Step i of sq_tridiag: gamma of the rank-2 update from x = tau A v. */
SQ_FN float sq_tridiag_gamma(const SQ_GLOBAL float *x, const SQ_GLOBAL float *v, int n, int i,
                             float tau)
{
    float w = 0.0f;
    for (int r = i + 1; r < n; r++) {
        float prod = x[r] * v[r];
        w = w + prod;
    }
    return sq_d_to_float(sq_d_mul(sq_d_mul(SQ_D_MHALF, sq_d_from_float(tau)), sq_d_from_float(w)));
}

/*
 * Step i of sq_tridiag after the reflector, entry by entry: each output is
 * independent of the others of its loop, so a GPU thread computes any of
 * them (gpu/kernels_linalg.h) with the operations of the serial loop.
 */
/* Entry r (> i) of the reflector v; v[i + 1] = 1. */
SQ_FN float sq_tridiag_v(const SQ_GLOBAL float *a, int n, int i, int r)
{
    return r == i + 1 ? 1.0f : a[r * n + i];
}

/* Entry r of x + gamma v, the second vector of the rank-2 update. */
SQ_FN float sq_tridiag_xg(const SQ_GLOBAL float *x, const SQ_GLOBAL float *v, float gamma, int r)
{
    float gv = gamma * v[r];
    return x[r] + gv;
}

/* Entry (r, c) of the trailing block after the rank-2 update a - (x v^T + v x^T). */
SQ_FN float sq_tridiag_rank2(const SQ_GLOBAL float *a, int n, const SQ_GLOBAL float *x,
                             const SQ_GLOBAL float *v, int r, int c)
{
    float t1 = x[r] * v[c], t2 = v[r] * x[c];
    return a[r * n + c] - (t1 + t2);
}

/* In place on a (n x n). d, e receive diagonal and sub-diagonal. ws: 2n floats. */
SQ_FN void sq_tridiag(SQ_GLOBAL float *a, int n, SQ_GLOBAL float *d, SQ_GLOBAL float *e,
                      SQ_GLOBAL float *ws)
{
    SQ_GLOBAL float *v = ws, *x = ws + n;
    for (int i = 0; i + 2 < n; i++) {
        float tau, s, beta;
        if (sq_tridiag_reflector(a, n, i, &tau, &s, &beta)) {
            for (int r = i + 1; r < n; r++)
                a[r * n + i] = a[r * n + i] / s;
            a[(i + 1) * n + i] = beta;
        }
        for (int r = i + 1; r < n; r++)
            v[r] = sq_tridiag_v(a, n, i, r);
        if (tau != 0.0f) {
            for (int r = i + 1; r < n; r++)
                x[r] = sq_tridiag_x(a, n, i, tau, v, r);
            const float gamma = sq_tridiag_gamma(x, v, n, i, tau);
            for (int r = i + 1; r < n; r++)
                x[r] = sq_tridiag_xg(x, v, gamma, r);
            for (int r = i + 1; r < n; r++)
                for (int c = i + 1; c < n; c++)
                    a[r * n + c] = sq_tridiag_rank2(a, n, x, v, r, c);
        }
    }
    for (int k = 0; k < n; k++)
        d[k] = a[k * n + k];
    for (int k = 0; k + 1 < n; k++)
        e[k] = a[(k + 1) * n + k];
}

SQ_FN void sq_eigen_chop(SQ_GLOBAL float *d, SQ_GLOBAL float *e, int m)
{
    for (int k = 0; k + 1 < m; k++) {
        const sq_f64 lim = sq_d_mul(SQ_D_1EM6, sq_d_add(sq_d_absf(d[k]), sq_d_absf(d[k + 1])));
        if (sq_d_lt(sq_d_absf(e[k]), lim))
            e[k] = 0.0f;
    }
}

SQ_FN void sq_givens(float a, float b, float *c, float *s)
{
    if (b == 0.0f) {
        *c = 1.0f;
        *s = 0.0f;
    } else if (sq_fabsf(b) > sq_fabsf(a)) {
        float t = -a / b;
        float u = 1.0f + t * t;
        float s1 = sq_d_to_float(sq_d_div(SQ_D_ONE, sq_d_sqrt(sq_d_from_float(u))));
        *s = s1;
        *c = s1 * t;
    } else {
        float t = -b / a;
        float u = 1.0f + t * t;
        float c1 = sq_d_to_float(sq_d_div(SQ_D_ONE, sq_d_sqrt(sq_d_from_float(u))));
        *c = c1;
        *s = c1 * t;
    }
}

/* The Wilkinson shift of a step on the unreduced block d[0..m), e[0..m-1). */
SQ_FN float sq_qr_shift(const SQ_GLOBAL float *d, const SQ_GLOBAL float *e, int m)
{
    const float ta = d[m - 2], tb = d[m - 1], tab = e[m - 2];
    const float dt = sq_d_to_float(sq_d_div(sq_d_from_float(ta - tb), SQ_D_TWO));
    float mu;
    if (dt > 0.0f)
        mu = tb - tab * (tab / (dt + sq_hypf(dt, tab)));
    else if (dt == 0.0f)
        mu = tb - sq_fabsf(tab);
    else
        mu = tb + tab * (tab / (-dt + sq_hypf(dt, tab)));
    if (sq_d_lt(sq_d_add(sq_d_absf(d[0]), sq_d_absf(e[0])), sq_d_mul(SQ_D_1EM6, sq_d_absf(mu))))
        mu = 0.0f;
    return mu;
}

/* The whole step of a 2 x 2 block, closed form, from its first rotation (x, z). */
SQ_FN void sq_qr_pair(SQ_GLOBAL float *d, SQ_GLOBAL float *e, float x, float z)
{
    const float ap = d[0], bp = e[0], aq = d[1];
    float c, s;
    sq_givens(x, z, &c, &s);
    float d0 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
    float e0 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
    float d1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
    d[0] = d0;
    e[0] = e0;
    d[1] = d1;
}

/*
 * A QR step in three parts, so that a CPU loop can interleave the
 * rotations of independent problems (cpu/cpu.c): sq_qr_begin (the shift;
 * m == 2 done at once), m - 1 calls of sq_qr_rot (rotation k), sq_qr_end;
 * sq_qr_step is the three in a row. An interleaving caller runs the same
 * operations in the same order per problem; a compiler may still
 * pick another NaN sign for a NaN result (negations are free to move), so
 * the caller falls back to sq_qr_step when a NaN comes out, and
 * checkkernel's eigenvalues2 holds the two to the same bits.
 */
typedef struct SqQrState {
    float x, z, ap, bp, aq, bq, bk, zk;
} SqQrState;

/* Returns 1 when the step is done already (m == 2: closed form). */
SQ_FN int sq_qr_begin(SqQrState *st, SQ_GLOBAL float *d, SQ_GLOBAL float *e, int m)
{
    const float mu = sq_qr_shift(d, e, m);
    const float x = d[0] - mu, z = e[0];
    if (m == 2) {
        sq_qr_pair(d, e, x, z);
        return 1;
    }
    st->x = x;
    st->z = z;
    st->ap = d[0];
    st->bp = e[0];
    st->aq = d[1];
    st->bq = e[1];
    st->bk = 0.0f;
    st->zk = 0.0f;
    return 0;
}

/* Rotation k (0 <= k < m - 1) of a step that sq_qr_begin started (m > 2). */
SQ_FN void sq_qr_rot(SqQrState *st, SQ_GLOBAL float *d, SQ_GLOBAL float *e, int m, int k)
{
    float c, s;
    sq_givens(st->x, st->z, &c, &s);
    const float ap = st->ap, bp = st->bp, aq = st->aq, bq = st->bq, bk = st->bk, zk = st->zk;
    const float bk1 = c * bk - s * zk;
    const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
    const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
    const float zp1 = -s * bq;
    const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
    const float bq1 = c * bq;
    const float ak = ap1;
    st->bk = bp1;
    st->zk = zp1;
    st->ap = aq1;
    st->bp = bq1;
    if (k < m - 2)
        st->aq = d[k + 2];
    if (k < m - 3)
        st->bq = e[k + 2];
    d[k] = ak;
    if (k > 0)
        e[k - 1] = bk1;
    if (k < m - 2)
        e[k + 1] = st->bp;
    st->x = st->bk;
    st->z = st->zk;
}

SQ_FN void sq_qr_end(const SqQrState *st, SQ_GLOBAL float *d, SQ_GLOBAL float *e, int m)
{
    d[m - 1] = st->ap;
    e[m - 2] = st->bk;
}

/* One implicit QR step on an unreduced block d[0..m), e[0..m-1). */
SQ_FN void sq_qr_step(SQ_GLOBAL float *d, SQ_GLOBAL float *e, int m)
{
    SqQrState st;
    if (sq_qr_begin(&st, d, e, m))
        return;
    for (int k = 0; k < m - 1; k++)
        sq_qr_rot(&st, d, e, m, k);
    sq_qr_end(&st, d, e, m);
}


/*
 * The next unreduced block [*a0, b] of sq_eigen_qr_iterate's loop (the same
 * tests, for an interleaving caller), lowering
 * *b past deflated entries; 0 when the iteration is over (b == 0 or the cap).
 */
SQ_FN int sq_eigen_next_block(const SQ_GLOBAL float *e, int *b, int iter, int *a0)
{
    while (*b > 0 && iter < SQ_EIGEN_MAX_ITER) {
        if (e[*b - 1] == 0.0f) {
            (*b)--;
            continue;
        }
        int a = *b - 1;
        while (a > 0 && e[a - 1] != 0.0f)
            a--;
        *a0 = a;
        return 1;
    }
    return 0;
}

/*
 * The implicit QR iteration of sq_eigenvalues on the tridiagonal (d, e),
 * in place: d becomes the eigenvalues. Returns the number of QR steps, or
 * -1 when the cap was hit (d is then the current diagonal, as upstream).
 */
SQ_FN int sq_eigen_qr_iterate(SQ_GLOBAL float *d, SQ_GLOBAL float *e, int n)
{
    sq_eigen_chop(d, e, n);
    int b = n - 1, iter = 0;
    while (b > 0 && iter < SQ_EIGEN_MAX_ITER) {
        if (e[b - 1] == 0.0f) {
            b--;
            continue;
        }
        int a0 = b - 1;
        while (a0 > 0 && e[a0 - 1] != 0.0f)
            a0--;
        sq_qr_step(d + a0, e + a0, b - a0 + 1);
        sq_eigen_chop(d + a0, e + a0, b - a0 + 1);
        iter++;
    }
    return b > 0 ? -1 : iter;
}

/*
 * Eigenvalues of k (n x n) into lambda[n]. ws: sq_eigen_ws_floats(n).
 * Returns the number of QR steps, or -1 when the cap was hit (values are
 * then the current diagonal, as upstream).
 */
SQ_FN int sq_eigenvalues(const SQ_GLOBAL float *k, int n, SQ_GLOBAL float *lambda,
                         SQ_GLOBAL float *ws)
{
    SQ_GLOBAL float *a = ws, *d = ws + n * n, *e = d + n, *tmp = e + n;
    if (n == 1) {
        lambda[0] = k[0];
        return 0;
    }
    for (int i = 0; i < n * n; i++)
        a[i] = k[i];
    sq_tridiag(a, n, d, e, tmp);
    const int iter = sq_eigen_qr_iterate(d, e, n);
    for (int i = 0; i < n; i++)
        lambda[i] = d[i];
    return iter;
}

#endif
