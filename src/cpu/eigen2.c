/*
 * The eigenvalues of a plane's two sides (ref, dis) computed together:
 * sq_cpu_eigenvalues twice, with the QR iterations interleaved.
 */
#include <string.h>

#include "cpu/cpu.h"
#include "math/eigen.h"

/*
 * Two sq_eigen_qr_iterate runs at once. A QR step is one chain of Givens
 * rotations, each waiting on the last (a square root and divisions):
 * latency-bound. Two independent problems (the two sides of a plane) fill
 * each other's waits when their rotations alternate; each problem still
 * performs exactly its own sequence of operations, so the bits are those
 * of two separate runs.
 */
static void qr_iterate2(float *const d[2], float *const e[2], int n, int ret[2])
{
    int b[2] = { n - 1, n - 1 }, iter[2] = { 0, 0 }, a0[2] = { 0, 0 };
    for (int q = 0; q < 2; q++)
        sq_eigen_chop(d[q], e[q], n);
    for (;;) {
        SqQrState st[2];
        int m[2] = { 0, 0 }, rot[2] = { 0, 0 };
        float *dq[2], *eq[2];
        for (int q = 0; q < 2; q++) {
            if (!sq_eigen_next_block(e[q], &b[q], iter[q], &a0[q]))
                continue;
            m[q] = b[q] - a0[q] + 1;
            dq[q] = d[q] + a0[q];
            eq[q] = e[q] + a0[q];
            rot[q] = sq_qr_begin(&st[q], dq[q], eq[q], m[q]) ? 0 : m[q] - 1;
        }
        if (!m[0] && !m[1])
            break;
        const int both = rot[0] < rot[1] ? rot[0] : rot[1];
        int k = 0;
        for (; k < both; k++) {
            sq_qr_rot(&st[0], dq[0], eq[0], m[0], k);
            sq_qr_rot(&st[1], dq[1], eq[1], m[1], k);
        }
        for (int q = 0; q < 2; q++) {
            for (int kq = k; kq < rot[q]; kq++)
                sq_qr_rot(&st[q], dq[q], eq[q], m[q], kq);
            if (rot[q])
                sq_qr_end(&st[q], dq[q], eq[q], m[q]);
            if (m[q]) {
                sq_eigen_chop(dq[q], eq[q], m[q]);
                iter[q]++;
            }
        }
    }
    for (int q = 0; q < 2; q++)
        ret[q] = b[q] > 0 ? -1 : iter[q];
}

void sq_cpu_eigenvalues2(const SqDsp *dsp, const float *const k[2], int n, float *const lambda[2],
                         float *const ws[2], int ret[2])
{
    if (n == 1) {
        for (int q = 0; q < 2; q++) {
            lambda[q][0] = k[q][0];
            ret[q] = 0;
        }
        return;
    }
    float *d[2], *e[2];
    for (int q = 0; q < 2; q++) {
        float *a = ws[q];
        d[q] = a + n * n;
        e[q] = d[q] + n;
        memcpy(a, k[q], sizeof(float) * (size_t)n * n);
        dsp->tridiag(a, n, d[q], e[q], e[q] + n);
    }
    qr_iterate2(d, e, n, ret);
    for (int q = 0; q < 2; q++) {
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
