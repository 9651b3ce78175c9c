/*
 * The CPU's linear algebra around the math core: the QR solve's factoring
 * and apply (math/solve.h's structured loop over the DSP's products), the
 * eigenvalues of one side, and of several sides computed together (a plane's ref and dis,
 * every side of a frame) with their QR iterations interleaved. The DSP
 * table supplies the vectorised tridiagonalisation; cpu.c calls in here,
 * nothing here calls cpu.c.
 */
#include <string.h>

#include "cpu/cpu.h"
#include "math/eigen.h"
#include "math/solve.h"

int sq_cpu_eigenvalues(const SqDsp *dsp, const float *k, int n, float *lambda, float *ws)
{
    float *a = ws, *d = ws + n * n, *e = d + n, *tmp = e + n;
    if (n == 1) {
        lambda[0] = k[0];
        return 0;
    }
    memcpy(a, k, sizeof(float) * (size_t)n * n);
    dsp->tridiag(a, n, d, e, tmp);
    const int ret = sq_eigen_qr_iterate(d, e, n);
    for (int i = 0; i < n; i++)
        lambda[i] = d[i];
    return ret;
}

/*
 * Several sq_eigen_qr_iterate runs at once (count <= SQ_CPU_EIGEN_WAYS). A
 * QR step is one chain of Givens rotations, each waiting on the last (a
 * square root and divisions): latency-bound. Independent problems (the
 * sides of a frame's planes) fill each other's waits when their rotations
 * alternate; each problem still performs exactly its own sequence of
 * operations, so the bits are those of separate runs.
 */
static void qr_iterate_n(float *const *d, float *const *e, int n, int *ret, int count)
{
    int b[SQ_CPU_EIGEN_WAYS], iter[SQ_CPU_EIGEN_WAYS], a0[SQ_CPU_EIGEN_WAYS];
    for (int q = 0; q < count; q++) {
        b[q] = n - 1;
        iter[q] = a0[q] = 0;
        sq_eigen_chop(d[q], e[q], n);
    }
    for (;;) {
        SqQrState st[SQ_CPU_EIGEN_WAYS];
        int m[SQ_CPU_EIGEN_WAYS], rot[SQ_CPU_EIGEN_WAYS], live = 0, most = 0;
        float *dq[SQ_CPU_EIGEN_WAYS], *eq[SQ_CPU_EIGEN_WAYS];
        for (int q = 0; q < count; q++) {
            m[q] = rot[q] = 0;
            if (!sq_eigen_next_block(e[q], &b[q], iter[q], &a0[q]))
                continue;
            m[q] = b[q] - a0[q] + 1;
            dq[q] = d[q] + a0[q];
            eq[q] = e[q] + a0[q];
            rot[q] = sq_qr_begin(&st[q], dq[q], eq[q], m[q]) ? 0 : m[q] - 1;
            live++;
            most = rot[q] > most ? rot[q] : most;
        }
        if (!live)
            break;
        for (int k = 0; k < most; k++)
            for (int q = 0; q < count; q++)
                if (k < rot[q])
                    sq_qr_rot(&st[q], dq[q], eq[q], m[q], k);
        for (int q = 0; q < count; q++) {
            if (rot[q])
                sq_qr_end(&st[q], dq[q], eq[q], m[q]);
            if (m[q]) {
                sq_eigen_chop(dq[q], eq[q], m[q]);
                iter[q]++;
            }
        }
    }
    for (int q = 0; q < count; q++)
        ret[q] = b[q] > 0 ? -1 : iter[q];
}

void sq_cpu_eigenvalues_n(const SqDsp *dsp, const float *const *k, int n, float *const *lambda,
                          float *const *ws, int *ret, int count)
{
    for (; count > SQ_CPU_EIGEN_WAYS; count -= SQ_CPU_EIGEN_WAYS, k += SQ_CPU_EIGEN_WAYS,
                                      lambda += SQ_CPU_EIGEN_WAYS, ws += SQ_CPU_EIGEN_WAYS,
                                      ret += SQ_CPU_EIGEN_WAYS)
        sq_cpu_eigenvalues_n(dsp, k, n, lambda, ws, ret, SQ_CPU_EIGEN_WAYS);
    if (n == 1) {
        for (int q = 0; q < count; q++) {
            lambda[q][0] = k[q][0];
            ret[q] = 0;
        }
        return;
    }
    float *d[SQ_CPU_EIGEN_WAYS], *e[SQ_CPU_EIGEN_WAYS];
    for (int q = 0; q < count; q++) {
        float *a = ws[q];
        d[q] = a + n * n;
        e[q] = d[q] + n;
        memcpy(a, k[q], sizeof(float) * (size_t)n * n);
        dsp->tridiag(a, n, d[q], e[q], e[q] + n);
    }
    qr_iterate_n(d, e, n, ret, count);
    for (int q = 0; q < count; q++) {
        /* A NaN's sign is the compiler's pick (it may move a negation, and
         * does differently per file and flags): then sq_cpu_eigenvalues
         * itself redoes the problem, so the bits are the plain path's. A
         * NaN's sign changes nothing but other NaNs' signs, so results
         * without NaN are the plain path's already. */
        int nan = 0;
        for (int i = 0; i < n; i++)
            nan |= d[q][i] != d[q][i];
        if (nan)
            ret[q] = sq_cpu_eigenvalues(dsp, k[q], n, lambda[q], ws[q]);
        else
            memcpy(lambda[q], d[q], sizeof(float) * (size_t)n);
    }
}

void sq_cpu_eigenvalues2(const SqDsp *dsp, const float *const k[2], int n, float *const lambda[2],
                         float *const ws[2], int ret[2])
{
    sq_cpu_eigenvalues_n(dsp, k, n, lambda, ws, ret, 2);
}

/*
 * The Householder loop of sq_qr_solve. structured: math/solve.h's
 * zero-skip loop (sq_qr_struct_*: the products restricted to the active
 * block); -1 when a non-finite value voids its argument. The structured
 * loop writes the active block of H*Z into a second z buffer (zn, ws[0 ..
 * n n): sq_cpu_qr_factor reads kmat instead of a copy there) and swaps,
 * instead of copying it back row by row; a buffer that becomes z again two
 * steps later has its rows and columns k - 2, k - 1 reset
 * (sq_qr_struct_reset_z).
 */
static int householder_loop(const SqDsp *dsp, const float *kmat, int n, float *ws, int structured)
{
    const size_t nn = (size_t)n * n;
    float *z = ws + nn, *pm = z + nn, *h = pm + nn, *t = h + nn, *zn = ws;
    float *u = t; /* as in sq_qr_solve: t holds u until h is built */
    for (size_t i = 0; i < nn; i++)
        z[i] = kmat[i];
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            pm[r * n + c] = r == c ? 1.0f : 0.0f;
    for (int k = 0; k + 1 < n; k++) {
        if (!structured)
            sq_qr_reset_z(z, n, k);
        else
            sq_qr_struct_reset_z(z, n, k);
        sq_householder_vec(z, kmat, n, k, u);
        if (!structured) {
            for (int r = 0; r < n; r++)
                for (int c = 0; c < n; c++)
                    h[r * n + c] = sq_householder_entry(u, r, c);
            dsp->matmul(t, n, h, n, z, n, n, n, n);
            memcpy(z, t, sizeof(float) * nn);
            dsp->matmul(t, n, h, n, pm, n, n, n, n);
            memcpy(pm, t, sizeof(float) * nn);
            continue;
        }
        if (!sq_qr_struct_ok(u, n))
            return -1;
        const int m = n - k;
        sq_householder_block(h, u, n, k);
        if (m > 1) {
            dsp->matmul(zn + (k + 1) * n + k + 1, n, h + (k + 1) * n + k, n, z + k * n + k + 1, n,
                        m - 1, m - 1, m);
            float *const sw = z;
            z = zn;
            zn = sw;
        }
        if (k == 0 && sq_qr_struct_first_p(pm, h, u, n))
            continue;
        dsp->matmul(t + k * n, n, h + k * n + k, n, pm + k * n, n, m, n, m);
        memcpy(pm + k * n, t + k * n, sizeof(float) * (size_t)m * n);
    }
    return structured && !sq_qr_struct_done(pm, n) ? -1 : 0;
}

int sq_cpu_qr_factor(const SqDsp *dsp, const float *kmat, int n, float *ws)
{
    const size_t nn = (size_t)n * n;
    float *pm = ws + 2 * nn, *h = pm + nn;
    if (householder_loop(dsp, kmat, n, ws, 1) < 0)
        householder_loop(dsp, kmat, n, ws, 0);
    dsp->matmul(h, n, pm, n, kmat, n, n, n, n); /* h = R (sq_qr_solve's a is kmat) */
    for (int i = n - 1; i >= 0; i--)
        if (!sq_solve_pivot_ok(h[i * n + i]))
            return -1;
    return 0;
}

void sq_cpu_qr_apply(const SqDsp *dsp, int n, const float *y, int nb, int c0, int c1, float *ws)
{
    const size_t nn = (size_t)n * n;
    float *h = ws + 3 * nn, *bm = ws + 5 * nn;
    dsp->matmul(bm + c0, nb, ws + 2 * nn, n, y + c0, nb, n, c1 - c0, n);
    dsp->backsub(bm + c0, nb, h, n, c1 - c0);
}

int sq_cpu_qr_solve(const SqDsp *dsp, const float *kmat, int n, const float *y, int nb, float *ws)
{
    if (sq_cpu_qr_factor(dsp, kmat, n, ws) < 0)
        return -1;
    sq_cpu_qr_apply(dsp, n, y, nb, 0, nb, ws);
    return 0;
}
