/*
 * The CPU's linear algebra around the math core: the eigenvalues of one
 * side, and of several sides computed together (a plane's ref and dis,
 * every side of a frame) with their QR iterations interleaved. The DSP
 * table supplies the vectorised tridiagonalisation; cpu.c calls in here,
 * nothing here calls cpu.c.
 */
#include <string.h>

#include "cpu/cpu.h"
#include "math/eigen.h"

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
