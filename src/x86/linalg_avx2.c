/*
 * AVX2 versions of the small dense linear algebra of est_params: the
 * Householder tridiagonalisation, the solve's products and back
 * substitution, and the per-block variance and entropy. Lanes are
 * independent outputs (columns j, blocks m); every lane runs the scalar
 * sequence of math/eigen.h, solve.h and score.h in the same order.
 */
#include <immintrin.h>
#include <string.h>

#include "math/eigen.h"
#include "math/log2.h"
#include "math/score.h"
#include "math/solve.h"
#include "x86/dsp_x86.h"

#define AI static inline __attribute__((always_inline))

void sq_tridiag_avx2(float *a, int n, float *d, float *e, float *ws)
{
    float *v = ws, *x = ws + n;
    for (int i = 0; i + 2 < n; i++) {
        float ss = 0.0f;
        for (int r = i + 2; r < n; r++) {
            float sq = a[r * n + i] * a[r * n + i];
            ss = ss + sq;
        }
        const float xnorm = sq_sqrtf_d(ss);
        float tau = 0.0f;
        if (xnorm != 0.0f) {
            const float alpha = a[(i + 1) * n + i];
            const float beta = -sq_sgnf(alpha) * sq_hypf(alpha, xnorm);
            tau = (beta - alpha) / beta;
            const float s = alpha - beta;
            if (s != 0.0f) {
                for (int r = i + 1; r < n; r++)
                    a[r * n + i] = a[r * n + i] / s;
                a[(i + 1) * n + i] = beta;
            }
        }
        v[i + 1] = 1.0f;
        for (int r = i + 2; r < n; r++)
            v[r] = a[r * n + i];
        if (tau == 0.0f)
            continue;
        const int m = n - i - 1; /* active block [i + 1, n)^2, symmetric */
        if (m >= 8) {
            /* x[r] = sum over c of (tau * a[r][c]) * v[c]; a[r][c] = a[c][r]. */
            const __m256 vt = _mm256_set1_ps(tau);
            for (int r = i + 1; r < n; r += 8) {
                const int r0 = r + 8 <= n ? r : n - 8;
                __m256 acc = _mm256_setzero_ps();
                for (int c = i + 1; c < n; c++) {
                    const __m256 t = _mm256_mul_ps(vt, _mm256_loadu_ps(a + c * n + r0));
                    acc = _mm256_add_ps(acc, _mm256_mul_ps(t, _mm256_set1_ps(v[c])));
                }
                _mm256_storeu_ps(x + r0, acc);
            }
        } else {
            for (int r = i + 1; r < n; r++)
                x[r] = sq_tridiag_x(a, n, i, tau, v, r);
        }
        float w = 0.0f;
        for (int r = i + 1; r < n; r++) {
            float prod = x[r] * v[r];
            w = w + prod;
        }
        const float gamma = (float)(-0.5 * (double)tau * (double)w);
        for (int r = i + 1; r < n; r++) {
            float gv = gamma * v[r];
            x[r] = x[r] + gv;
        }
        for (int r = i + 1; r < n; r++) {
            float *ar = a + r * n;
            const __m256 xr = _mm256_set1_ps(x[r]), vr = _mm256_set1_ps(v[r]);
            int c = i + 1;
            for (; c + 8 <= n; c += 8) {
                const __m256 t1 = _mm256_mul_ps(xr, _mm256_loadu_ps(v + c));
                const __m256 t2 = _mm256_mul_ps(vr, _mm256_loadu_ps(x + c));
                _mm256_storeu_ps(ar + c, _mm256_sub_ps(_mm256_loadu_ps(ar + c), _mm256_add_ps(t1, t2)));
            }
            for (; c < n; c++) {
                float t1 = x[r] * v[c], t2 = v[r] * x[c];
                ar[c] = ar[c] - (t1 + t2);
            }
        }
    }
    for (int k = 0; k < n; k++)
        d[k] = a[k * n + k];
    for (int k = 0; k + 1 < n; k++)
        e[k] = a[(k + 1) * n + k];
}

/*
 * Up to 4 vectors of columns (j[0..nv)) of nr (1 or 2) output rows: two
 * rows share the loads of r and keep 8 sums in flight, which the add
 * latency needs (25x25 * 25x312, best of 5 on a shared 2-core EPYC: 6742 ->
 * 5806 ns).
 */
AI void mm_rows(float *o, ptrdiff_t ldo, const float *li, ptrdiff_t ldl, const float *r,
                ptrdiff_t ldr, int depth, const int *j, int nv, int nr)
{
    __m256 a[2][4];
    for (int q = 0; q < 4; q++)
        a[0][q] = a[1][q] = _mm256_setzero_ps();
    for (int k = 0; k < depth; k++) {
        const float *rk = r + k * ldr;
        const __m256 l0 = _mm256_set1_ps(li[k]);
        const __m256 l1 = nr > 1 ? _mm256_set1_ps(li[ldl + k]) : l0;
        for (int q = 0; q < nv; q++) {
            const __m256 x = _mm256_loadu_ps(rk + j[q]);
            a[0][q] = _mm256_add_ps(a[0][q], _mm256_mul_ps(l0, x));
            if (nr > 1)
                a[1][q] = _mm256_add_ps(a[1][q], _mm256_mul_ps(l1, x));
        }
    }
    for (int q = 0; q < nv; q++) {
        _mm256_storeu_ps(o + j[q], a[0][q]);
        if (nr > 1)
            _mm256_storeu_ps(o + ldo + j[q], a[1][q]);
    }
}

#define MM_NV(nr)                                                                  \
    switch (nv) {                                                                  \
    case 4: mm_rows(out + i * ldo, ldo, l + i * ldl, ldl, r, ldr, depth, js, 4, nr); break; \
    case 3: mm_rows(out + i * ldo, ldo, l + i * ldl, ldl, r, ldr, depth, js, 3, nr); break; \
    case 2: mm_rows(out + i * ldo, ldo, l + i * ldl, ldl, r, ldr, depth, js, 2, nr); break; \
    default: mm_rows(out + i * ldo, ldo, l + i * ldl, ldl, r, ldr, depth, js, 1, nr); break; \
    }

void sq_matmul_avx2(float *out, ptrdiff_t ldo, const float *l, ptrdiff_t ldl,
                    const float *r, ptrdiff_t ldr, int rows, int cols, int depth)
{
    if (cols < 8) {
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++)
                out[i * ldo + j] = sq_matmul_entry_ld(l, ldl, r, ldr, depth, i, j);
        return;
    }
    /* Column vectors; the last one is moved back to end at cols (the
     * overlap recomputes identical values: out does not alias r). */
    for (int j = 0; j < cols; j += 32) {
        int js[4] = { 0, 0, 0, 0 }, nv = 0;
        for (int q = 0; q < 4 && j + 8 * q < cols; q++, nv++)
            js[q] = j + 8 * q + 8 <= cols ? j + 8 * q : cols - 8;
        int i = 0;
        for (; i + 2 <= rows; i += 2)
            MM_NV(2)
        for (; i < rows; i++)
            MM_NV(1)
    }
}
#undef MM_NV

void sq_backsub_avx2(float *x, int ld, const float *rm, int n, int cols)
{
    const int nv = cols & ~7;
    for (int i = n - 1; i >= 0; i--) {
        float *xi = x + (size_t)i * ld;
        const __m256 dg = _mm256_set1_ps(rm[i * n + i]);
        int j = 0;
        for (; j + 32 <= nv; j += 32) {
            __m256 t0 = _mm256_loadu_ps(xi + j), t1 = _mm256_loadu_ps(xi + j + 8);
            __m256 t2 = _mm256_loadu_ps(xi + j + 16), t3 = _mm256_loadu_ps(xi + j + 24);
            for (int k = i + 1; k < n; k++) {
                const __m256 rk = _mm256_set1_ps(rm[i * n + k]);
                const float *xk = x + (size_t)k * ld + j;
                t0 = _mm256_sub_ps(t0, _mm256_mul_ps(_mm256_loadu_ps(xk), rk));
                t1 = _mm256_sub_ps(t1, _mm256_mul_ps(_mm256_loadu_ps(xk + 8), rk));
                t2 = _mm256_sub_ps(t2, _mm256_mul_ps(_mm256_loadu_ps(xk + 16), rk));
                t3 = _mm256_sub_ps(t3, _mm256_mul_ps(_mm256_loadu_ps(xk + 24), rk));
            }
            _mm256_storeu_ps(xi + j, _mm256_div_ps(t0, dg));
            _mm256_storeu_ps(xi + j + 8, _mm256_div_ps(t1, dg));
            _mm256_storeu_ps(xi + j + 16, _mm256_div_ps(t2, dg));
            _mm256_storeu_ps(xi + j + 24, _mm256_div_ps(t3, dg));
        }
        for (; j < nv; j += 8) {
            __m256 t0 = _mm256_loadu_ps(xi + j);
            for (int k = i + 1; k < n; k++)
                t0 = _mm256_sub_ps(t0, _mm256_mul_ps(_mm256_loadu_ps(x + (size_t)k * ld + j),
                                                     _mm256_set1_ps(rm[i * n + k])));
            _mm256_storeu_ps(xi + j, _mm256_div_ps(t0, dg));
        }
        for (; j < cols; j++)
            xi[j] = sq_backsub_entry(rm, n, x, ld, i, j, xi[j]);
    }
}

void sq_block_var_avx2(float *s, const float *x, const float *y, int ld, int n, int cols)
{
    if (cols < 8) {
        for (int m = 0; m < cols; m++)
            s[m] = sq_block_variance(x, y, n, ld, m);
        return;
    }
    const __m256 fn = _mm256_set1_ps((float)n);
    for (int m = 0; m < cols; m += 8) {
        const int m0 = m + 8 <= cols ? m : cols - 8;
        __m256 acc = _mm256_setzero_ps();
        for (int k = 0; k < n; k++) {
            const __m256 prod = _mm256_mul_ps(_mm256_loadu_ps(x + (size_t)k * ld + m0),
                                              _mm256_loadu_ps(y + (size_t)k * ld + m0));
            const __m256 zk = _mm256_div_ps(prod, fn);
            acc = k == 0 ? zk : _mm256_add_ps(acc, zk);
        }
        _mm256_storeu_ps(s + m0, acc);
    }
}

/*
 * sq_log2 (math/log2.h) on 4 lanes, for positive normal finite inputs
 * only; *special is set when a lane is anything else.
 */
AI __m256d log2_pd(__m256d x, int *special)
{
    const __m256i u = _mm256_castpd_si256(x);
    const __m256i spec = _mm256_or_si256(
        _mm256_cmpgt_epi64(_mm256_set1_epi64x(0x0010000000000000ll), u),
        _mm256_cmpgt_epi64(u, _mm256_set1_epi64x(0x7fefffffffffffffll)));
    *special = !_mm256_testz_si256(spec, spec);

    __m256i hx = _mm256_add_epi64(_mm256_srli_epi64(u, 32),
                                  _mm256_set1_epi64x(0x3ff00000u - SQ_LOG2_SQRTH_HI));
    const __m256i k = _mm256_sub_epi64(_mm256_srli_epi64(hx, 20), _mm256_set1_epi64x(0x3ff));
    hx = _mm256_add_epi64(_mm256_and_si256(hx, _mm256_set1_epi64x(0xfffff)),
                          _mm256_set1_epi64x(SQ_LOG2_SQRTH_HI));
    const __m256d m = _mm256_castsi256_pd(_mm256_or_si256(
        _mm256_slli_epi64(hx, 32), _mm256_and_si256(u, _mm256_set1_epi64x(0xffffffffll))));
    const __m256i kperm = _mm256_permutevar8x32_epi32(k, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
    const __m256d y = _mm256_cvtepi32_pd(_mm256_castsi256_si128(kperm));

#define C(v) _mm256_set1_pd(v)
#define ADD _mm256_add_pd
#define SUB _mm256_sub_pd
#define MUL _mm256_mul_pd
    const __m256d f = SUB(m, C(1.0));
    const __m256d hfsq = MUL(MUL(C(0.5), f), f);
    const __m256d s = _mm256_div_pd(f, ADD(C(2.0), f));
    const __m256d z = MUL(s, s);
    const __m256d w = MUL(z, z);
    const __m256d t1 =
        MUL(w, ADD(C(SQ_LOG2_LG2), MUL(w, ADD(C(SQ_LOG2_LG4), MUL(w, C(SQ_LOG2_LG6))))));
    const __m256d t2 = MUL(
        z, ADD(C(SQ_LOG2_LG1),
               MUL(w, ADD(C(SQ_LOG2_LG3), MUL(w, ADD(C(SQ_LOG2_LG5), MUL(w, C(SQ_LOG2_LG7))))))));
    const __m256d r = ADD(t2, t1);
    __m256d hi = SUB(f, hfsq);
    hi = _mm256_castsi256_pd(_mm256_and_si256(_mm256_castpd_si256(hi),
                                              _mm256_set1_epi64x((long long)0xffffffff00000000ull)));
    const __m256d lo = ADD(SUB(SUB(f, hi), hfsq), MUL(s, ADD(hfsq, r)));
    const __m256d val_hi = MUL(hi, C(SQ_LOG2_INV_LN2_HI));
    __m256d val_lo = ADD(MUL(ADD(lo, hi), C(SQ_LOG2_INV_LN2_LO)), MUL(lo, C(SQ_LOG2_INV_LN2_HI)));
    const __m256d sum = ADD(y, val_hi);
    val_lo = ADD(val_lo, ADD(SUB(y, sum), val_hi));
    return ADD(val_lo, sum);
#undef C
#undef ADD
#undef SUB
#undef MUL
}

/* e + (log2(arg) + log2(2 pi e)) for 4 blocks, with the scalar sq_log2 for special lanes. */
AI __m256d entropy_term(__m256d ed, __m256d argd)
{
    int special;
    __m256d lg = log2_pd(argd, &special);
    if (special) {
        double a[4], l[4];
        _mm256_storeu_pd(a, argd);
        for (int i = 0; i < 4; i++)
            l[i] = sq_log2(a[i]);
        lg = _mm256_loadu_pd(l);
    }
    return _mm256_add_pd(ed, _mm256_add_pd(lg, _mm256_set1_pd(SQ_LOG2_2PIE)));
}

void sq_entropy_avx2(float *e, const float *lambda, int n, const float *s, int nb, float sigma_nn)
{
    if (nb < 8) {
        for (int m = 0; m < nb; m++)
            e[m] = sq_block_entropy(lambda, n, s[m], sigma_nn);
        return;
    }
    const __m256 sn = _mm256_set1_ps(sigma_nn);
    for (int m = 0; m < nb; m += 8) {
        const int m0 = m + 8 <= nb ? m : nb - 8;
        const __m256 sv = _mm256_loadu_ps(s + m0);
        __m256 ev = _mm256_setzero_ps();
        for (int k = 0; k < n; k++) {
            const float l = lambda[k] < 0.0f ? 0.0f : lambda[k];
            const __m256 arg = _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(l), sv), sn);
            const __m256d lo = entropy_term(_mm256_cvtps_pd(_mm256_castps256_ps128(ev)),
                                            _mm256_cvtps_pd(_mm256_castps256_ps128(arg)));
            const __m256d hi = entropy_term(_mm256_cvtps_pd(_mm256_extractf128_ps(ev, 1)),
                                            _mm256_cvtps_pd(_mm256_extractf128_ps(arg, 1)));
            ev = _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
        }
        _mm256_storeu_ps(e + m0, ev);
    }
}
