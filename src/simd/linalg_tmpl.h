/*
 * The dense linear algebra of est_params, written once for every SIMD
 * level: included by x86/linalg_avx2.c, x86/linalg_avx512.c and
 * arm/linalg_neon.c after their simd/vec_*.h. Lanes are independent outputs
 * (columns j, blocks m); each lane runs the scalar sequence of
 * math/eigen.h, solve.h and score.h in the same order. The last vector of a
 * row is moved back over outputs already computed (identical values) or,
 * with V_MASKED, masked. SQ_T_NO_TRIDIAG / SQ_T_NO_BLOCK_VAR leave out the
 * slots a level keeps from the one below (x86/init_avx512.c).
 */
#include "math/eigen.h"
#include "math/score.h"
#include "math/solve.h"
#include "simd/log2_tmpl.h"

/* The vector at j of a run of outputs ending at e (e - j > 0): its start and lanes. */
#define V_TAIL(j0, m, j, e)                                               \
    const int j0 = V_MASKED || (j) + VF_N <= (e) ? (j) : (e) - VF_N;     \
    const vmask m = v_mask((e) - j0)

#ifndef SQ_T_NO_TRIDIAG
void V_NAME(sq_tridiag)(float *a, int n, float *d, float *e, float *ws)
{
    float *v = ws, *x = ws + n;
    for (int i = 0; i + 2 < n; i++) {
        float tau, s, beta;
        if (sq_tridiag_reflector(a, n, i, &tau, &s, &beta)) {
            for (int r = i + 1; r < n; r++)
                a[r * n + i] = a[r * n + i] / s;
            a[(i + 1) * n + i] = beta;
        }
        for (int r = i + 1; r < n; r++)
            v[r] = sq_tridiag_v(a, n, i, r);
        if (tau == 0.0f)
            continue;
        if (n - i - 1 >= VF_N) {
            /* x[r] = sum over c of (tau * a[r][c]) * v[c]; a[r][c] = a[c][r]. */
            const vf vt = vf_set1(tau);
            for (int r = i + 1; r < n; r += VF_N) {
                V_TAIL(r0, m, r, n);
                vf acc = vf_zero();
                for (int c = i + 1; c < n; c++) {
                    const vf t = vf_mul(vt, vf_loadt(a + c * n + r0, m));
                    acc = vf_add(acc, vf_mul(t, vf_set1(v[c])));
                }
                vf_storet(x + r0, acc, m);
            }
        } else {
            for (int r = i + 1; r < n; r++)
                x[r] = sq_tridiag_x(a, n, i, tau, v, r);
        }
        const float gamma = sq_tridiag_gamma(x, v, n, i, tau);
        for (int r = i + 1; r < n; r++)
            x[r] = sq_tridiag_xg(x, v, gamma, r);
        for (int r = i + 1; r < n; r++) {
            float *ar = a + r * n;
            const vf xr = vf_set1(x[r]), vr = vf_set1(v[r]);
            int c = i + 1;
            for (; c + VF_N <= n; c += VF_N) {
                const vf t1 = vf_mul(xr, vf_load(v + c));
                const vf t2 = vf_mul(vr, vf_load(x + c));
                vf_store(ar + c, vf_sub(vf_load(ar + c), vf_add(t1, t2)));
            }
            for (; c < n; c++)
                ar[c] = sq_tridiag_rank2(a, n, x, v, r, c);
        }
    }
    for (int k = 0; k < n; k++)
        d[k] = a[k * n + k];
    for (int k = 0; k + 1 < n; k++)
        e[k] = a[(k + 1) * n + k];
}
#endif

/*
 * nv (1..4) vectors of columns j[q] (lanes m[q]) of nr (1 or 2) output
 * rows: two rows share the loads of r and keep 8 sums in flight, which the
 * add latency needs (25x25 * 25x312, best of 5 on a shared 2-core EPYC,
 * AVX2: 6742 -> 5806 ns).
 */
V_AI void mm_rows(float *o, ptrdiff_t ldo, const float *li, ptrdiff_t ldl, const float *r,
                  ptrdiff_t ldr, int depth, const int *j, const vmask *m, int nv, int nr)
{
    vf a[2][4];
    for (int q = 0; q < 4; q++)
        a[0][q] = a[1][q] = vf_zero();
    for (int k = 0; k < depth; k++) {
        const float *rk = r + k * ldr;
        const vf l0 = vf_set1(li[k]);
        const vf l1 = nr > 1 ? vf_set1(li[ldl + k]) : l0;
        for (int q = 0; q < nv; q++) {
            const vf x = vf_loadt(rk + j[q], m[q]);
            a[0][q] = vf_add(a[0][q], vf_mul(l0, x));
            if (nr > 1)
                a[1][q] = vf_add(a[1][q], vf_mul(l1, x));
        }
    }
    for (int q = 0; q < nv; q++) {
        vf_storet(o + j[q], a[0][q], m[q]);
        if (nr > 1)
            vf_storet(o + ldo + j[q], a[1][q], m[q]);
    }
}

#define MM_NV(nr)                                                                              \
    switch (nv) {                                                                              \
    case 4: mm_rows(out + i * ldo, ldo, l + i * ldl, ldl, r, ldr, depth, js, ms, 4, nr); break; \
    case 3: mm_rows(out + i * ldo, ldo, l + i * ldl, ldl, r, ldr, depth, js, ms, 3, nr); break; \
    case 2: mm_rows(out + i * ldo, ldo, l + i * ldl, ldl, r, ldr, depth, js, ms, 2, nr); break; \
    default: mm_rows(out + i * ldo, ldo, l + i * ldl, ldl, r, ldr, depth, js, ms, 1, nr); break; \
    }

void V_NAME(sq_matmul)(float *out, ptrdiff_t ldo, const float *l, ptrdiff_t ldl,
                       const float *r, ptrdiff_t ldr, int rows, int cols, int depth)
{
    if (!V_MASKED && cols < VF_N) {
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++)
                out[i * ldo + j] = sq_matmul_entry_ld(l, ldl, r, ldr, depth, i, j);
        return;
    }
    /* out does not alias r: a vector moved back recomputes identical values */
    for (int j = 0; j < cols; j += 4 * VF_N) {
        int js[4] = { 0, 0, 0, 0 }, nv = 0;
        vmask ms[4] = { V_ALL, V_ALL, V_ALL, V_ALL };
        for (int q = 0; q < 4 && j + VF_N * q < cols; q++, nv++) {
            V_TAIL(jq, mq, j + VF_N * q, cols);
            js[q] = jq;
            ms[q] = mq;
        }
        int i = 0;
        for (; i + 2 <= rows; i += 2)
            MM_NV(2)
        for (; i < rows; i++)
            MM_NV(1)
    }
}
#undef MM_NV

void V_NAME(sq_backsub)(float *x, int ld, const float *rm, int n, int cols)
{
    /* whole vectors; with masks the last one too */
    const int nv = V_MASKED ? cols : cols & ~(VF_N - 1);
    for (int i = n - 1; i >= 0; i--) {
        float *xi = x + (size_t)i * ld;
        const vf dg = vf_set1(rm[i * n + i]);
        int j = 0;
        for (; j + 4 * VF_N <= nv; j += 4 * VF_N) {
            vf t[4];
            for (int q = 0; q < 4; q++)
                t[q] = vf_load(xi + j + VF_N * q);
            for (int k = i + 1; k < n; k++) {
                const vf rk = vf_set1(rm[i * n + k]);
                const float *xk = x + (size_t)k * ld + j;
                for (int q = 0; q < 4; q++)
                    t[q] = vf_sub(t[q], vf_mul(vf_load(xk + VF_N * q), rk));
            }
            for (int q = 0; q < 4; q++)
                vf_store(xi + j + VF_N * q, vf_div(t[q], dg));
        }
        for (; j < nv; j += VF_N) {
            const vmask m = v_mask(nv - j);
            vf t0 = vf_loadt(xi + j, m);
            for (int k = i + 1; k < n; k++)
                t0 = vf_sub(t0, vf_mul(vf_loadt(x + (size_t)k * ld + j, m),
                                       vf_set1(rm[i * n + k])));
            vf_storet(xi + j, vf_div(t0, dg), m);
        }
        for (; j < cols; j++)
            xi[j] = sq_backsub_entry(rm, n, x, ld, i, j, xi[j]);
    }
}

#ifndef SQ_T_NO_BLOCK_VAR
void V_NAME(sq_block_var)(float *s, const float *x, const float *y, int ld, int n, int cols)
{
    if (!V_MASKED && cols < VF_N) {
        for (int m = 0; m < cols; m++)
            s[m] = sq_block_variance(x, y, n, ld, m);
        return;
    }
    const vf fn = vf_set1((float)n);
    for (int m = 0; m < cols; m += VF_N) {
        V_TAIL(m0, mk, m, cols);
        vf acc = vf_zero();
        for (int k = 0; k < n; k++) {
            const vf prod = vf_mul(vf_loadt(x + (size_t)k * ld + m0, mk),
                                   vf_loadt(y + (size_t)k * ld + m0, mk));
            const vf zk = vf_div(prod, fn);
            acc = k == 0 ? zk : vf_add(acc, zk);
        }
        vf_storet(s + m0, acc, mk);
    }
}
#endif

/* e + (log2(arg) + log2(2 pi e)) for VD_N blocks, with the scalar sq_log2 for special lanes. */
V_AI vd entropy_term(vd ed, vd argd)
{
    int special;
    vd lg = log2_pd(argd, &special);
    if (special) {
        double a[VD_N], l[VD_N];
        vd_store(a, argd);
        for (int i = 0; i < VD_N; i++)
            l[i] = sq_log2(a[i]);
        lg = vd_load(l);
    }
    return vd_add(ed, vd_add(lg, vd_set1(SQ_LOG2_2PIE)));
}

void V_NAME(sq_entropy)(float *e, const float *lambda, int n, const float *s, int nb,
                        float sigma_nn)
{
    if (!V_MASKED && nb < VF_N) {
        for (int m = 0; m < nb; m++)
            e[m] = sq_block_entropy(lambda, n, s[m], sigma_nn);
        return;
    }
    const vf sn = vf_set1(sigma_nn);
    for (int m = 0; m < nb; m += VF_N) {
        V_TAIL(m0, mk, m, nb);
        /* masked-off lanes hold s = 1: a normal argument, no special path */
        const vf sv = vf_loadt_or(s + m0, mk, 1.0f);
        vf ev = vf_zero();
        for (int k = 0; k < n; k++) {
            const float l = lambda[k] < 0.0f ? 0.0f : lambda[k];
            const vf arg = vf_add(vf_mul(vf_set1(l), sv), sn);
            const vd lo = entropy_term(vf_lo_vd(ev), vf_lo_vd(arg));
            const vd hi = entropy_term(vf_hi_vd(ev), vf_hi_vd(arg));
            ev = vd2_vf(lo, hi);
        }
        vf_storet(e + m0, ev, mk);
    }
}
