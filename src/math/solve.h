/*
 * K X = Y by Householder QR with an explicit Q (spec 4.7.2), float. Every
 * matrix product entry is one float dot product in increasing k with a
 * separate multiply and add: sq_matmul_entry is the unit a GPU thread runs.
 *
 * Workspace (sq_solve_ws_floats): a, z, p, h, t (n x n each) and b (n x nb).
 * On success X is left in b.
 */
#ifndef SQ_MATH_SOLVE_H
#define SQ_MATH_SOLVE_H

#include "math/f64.h"
#include "math/prelude.h"

/* A double, 1e-6. */
#define SQ_SOLVE_EPS SQ_D_1EM6

/*
 * The solve gives up on a diagonal entry of R below SQ_SOLVE_EPS. Every
 * backend asks this one predicate: a NaN pivot passes (the comparison is
 * false), and a backend that spelt the test as >= would fail it instead.
 */
SQ_FN int sq_solve_pivot_ok(float rii)
{
    return !sq_d_lt(sq_d_absf(rii), SQ_SOLVE_EPS);
}

/* Entry (i, j) of l * r with leading dimensions ldl, ldr over depth terms. */
SQ_FN float sq_matmul_entry_ld(const SQ_GLOBAL float *l, int64_t ldl, const SQ_GLOBAL float *r,
                               int64_t ldr, int depth, int i, int j)
{
    float acc = 0.0f;
    for (int k = 0; k < depth; k++) {
        float prod = l[i * ldl + k] * r[k * ldr + j];
        acc = acc + prod;
    }
    return acc;
}

SQ_FN float sq_matmul_entry(const SQ_GLOBAL float *l, int lcols,
                            const SQ_GLOBAL float *r, int rcols, int i, int j)
{
    return sq_matmul_entry_ld(l, lcols, r, rcols, lcols, i, j);
}

/* out = l (n x n) * r (n x cols); out must not alias r. */
SQ_FN void sq_matmul(SQ_GLOBAL float *out, const SQ_GLOBAL float *l, int n,
                     const SQ_GLOBAL float *r, int cols)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < cols; j++)
            out[(int64_t)i * cols + j] = sq_matmul_entry(l, n, r, cols, i, j);
}

SQ_FN float sq_norm2f(const SQ_GLOBAL float *u, int n)
{
    float ss = 0.0f;
    for (int r = 0; r < n; r++) {
        float sq = u[r] * u[r];
        ss = ss + sq;
    }
    return sq_sqrtf_d(ss);
}

/* Reflector of step k: u from column k of z (entries above k already 0). */
SQ_FN void sq_householder_vec(const SQ_GLOBAL float *z, const SQ_GLOBAL float *kmat,
                              int n, int k, SQ_GLOBAL float *u)
{
    for (int r = 0; r < n; r++)
        u[r] = z[r * n + k];
    const float nu = sq_norm2f(u, n);
    const float sg = kmat[k * n + k] >= 0.0f ? 1.0f : -1.0f;
    u[k] = u[k] + sg * nu;
    const float nrm = sq_norm2f(u, n);
    for (int r = 0; r < n; r++)
        u[r] = u[r] / nrm;
}

SQ_FN float sq_householder_entry(const SQ_GLOBAL float *u, int r, int c)
{
    float h = (-2.0f * u[r]) * u[c];
    if (r == c)
        h = h + 1.0f;
    return h;
}

/* Row i of the back substitution for column j; x rows > i already solved. */
SQ_FN float sq_backsub_entry(const SQ_GLOBAL float *rm, int n, const SQ_GLOBAL float *x,
                             int nb, int i, int j, float bij)
{
    float t = bij;
    for (int k = i + 1; k < n; k++) {
        float prod = x[(int64_t)k * nb + j] * rm[i * n + k];
        t = t - prod;
    }
    return t / rm[i * n + i];
}

/* Returns 0, or -1 when a pivot fails sq_solve_pivot_ok (X unset). */
SQ_FN int sq_qr_solve(const SQ_GLOBAL float *kmat, int n, const SQ_GLOBAL float *y,
                      int nb, SQ_GLOBAL float *ws)
{
    const int64_t nn = (int64_t)n * n;
    SQ_GLOBAL float *a = ws, *z = ws + nn, *p = z + nn, *h = p + nn, *t = h + nn;
    SQ_GLOBAL float *bm = t + nn;
    for (int64_t i = 0; i < nn; i++) {
        a[i] = kmat[i];
        z[i] = kmat[i];
    }
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            p[r * n + c] = r == c ? 1.0f : 0.0f;

    for (int k = 0; k + 1 < n; k++) {
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++)
                if (r < k || c < k)
                    z[r * n + c] = r == c ? 1.0f : 0.0f;
        sq_householder_vec(z, kmat, n, k, t); /* t holds u until h is built */
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++)
                h[r * n + c] = sq_householder_entry(t, r, c);
        sq_matmul(t, h, n, z, n);
        for (int64_t i = 0; i < nn; i++)
            z[i] = t[i];
        sq_matmul(t, h, n, p, n);
        for (int64_t i = 0; i < nn; i++)
            p[i] = t[i];
    }
    sq_matmul(h, p, n, a, n); /* h = R */
    sq_matmul(bm, p, n, y, nb);
    for (int i = n - 1; i >= 0; i--) {
        if (!sq_solve_pivot_ok(h[i * n + i]))
            return -1;
        for (int j = 0; j < nb; j++)
            bm[(int64_t)i * nb + j] = sq_backsub_entry(h, n, bm, nb, i, j, bm[(int64_t)i * nb + j]);
    }
    return 0;
}

#endif
