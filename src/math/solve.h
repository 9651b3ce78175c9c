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

/* Step k of sq_qr_solve resets the rows and columns < k of z to the identity's. */
SQ_FN void sq_qr_reset_z(SQ_GLOBAL float *z, int n, int k)
{
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            if (r < k || c < k)
                z[r * n + c] = r == c ? 1.0f : 0.0f;
}

/*
 * The structured Householder loop (the CPU's, cpu/linalg.c): the products
 * of sq_qr_solve restricted to the active block, bit for bit. Step k skips
 * the terms that are exactly +-0 (u[r] = +0 for r < k, z the identity
 * outside the active block), which leaves every sum unchanged because an
 * accumulator that starts at +0 never becomes -0. Rows r < k of H P reduce
 * to p[r][c] + 0, which is p[r][c] itself: no entry of P is -0 (the
 * identity, then such sums). A non-finite value voids the argument: the
 * caller then runs the plain loop (sq_qr_struct_ok, sq_qr_struct_done).
 */

/* 1 when every |v[i]| <= bound; a NaN fails. */
SQ_FN int sq_all_within(const SQ_GLOBAL float *v, int64_t cnt, float bound)
{
    for (int64_t i = 0; i < cnt; i++)
        if (!(sq_fabsf(v[i]) <= bound))
            return 0;
    return 1;
}

/* Step k's reflector u keeps the zero-skip argument (no overflow in H). */
SQ_FN int sq_qr_struct_ok(const SQ_GLOBAL float *u, int n)
{
    return sq_all_within(u, n, 0x1p100f);
}

/* The product of a finished structured loop holds no NaN (else: run the plain loop). */
SQ_FN int sq_qr_struct_done(const SQ_GLOBAL float *p, int n)
{
    const int64_t nn = (int64_t)n * n;
    for (int64_t i = 0; i < nn; i++)
        if (p[i] != p[i])
            return 0;
    return 1;
}

/*
 * The structured z of step k: only rows and columns k - 2 and k - 1 are
 * reset (the rest outside the block is the identity already, in the
 * buffer that was z two steps earlier).
 */
SQ_FN void sq_qr_struct_reset_z(SQ_GLOBAL float *z, int n, int k)
{
    for (int q = k - 2 < 0 ? 0 : k - 2; q < k; q++) {
        for (int c = 0; c < n; c++)
            z[q * n + c] = q == c ? 1.0f : 0.0f;
        for (int r = 0; r < n; r++)
            z[r * n + q] = r == q ? 1.0f : 0.0f;
    }
}

/* Block r, c >= k of H = I - 2 u u^T: sq_householder_entry, in an order that vectorises. */
SQ_FN void sq_householder_block(SQ_GLOBAL float *h, const SQ_GLOBAL float *u, int n, int k)
{
    for (int r = k; r < n; r++) {
        const float hr = -2.0f * u[r];
        for (int c = k; c < n; c++)
            h[r * n + c] = hr * u[c];
        h[r * n + r] = h[r * n + r] + 1.0f;
    }
}

/*
 * Step 0's P = H I without the product: each sum is h[r][c] among +-0
 * terms, so h[r][c] + 0, when h is finite (|u| <= 2^62). Returns 0, writing
 * nothing, when that bound fails (then the product is computed).
 */
SQ_FN int sq_qr_struct_first_p(SQ_GLOBAL float *p, const SQ_GLOBAL float *h,
                               const SQ_GLOBAL float *u, int n)
{
    const int64_t nn = (int64_t)n * n;
    if (!sq_all_within(u, n, 0x1p62f))
        return 0;
    for (int64_t i = 0; i < nn; i++)
        p[i] = h[i] + 0.0f;
    return 1;
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
        sq_qr_reset_z(z, n, k);
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
