/*
 * AVX-512 versions of the dense linear algebra of est_params (as in
 * linalg_avx2.c): lanes are independent outputs (columns j, blocks m), each
 * running the scalar sequence of math/eigen.h, solve.h and score.h. The last
 * vector of a row is masked, so no output is computed twice.
 */
#include <string.h>

#include "math/eigen.h"
#include "math/log2.h"
#include "math/score.h"
#include "math/solve.h"
#include "x86/dsp_x86.h"
#include "x86/simd512.h"

/*
 * nv (1..4) vectors of columns j .. of nr (1 or 2) output rows, the last
 * vector masked by mt: two rows share the loads of r and keep 8 sums in
 * flight (as linalg_avx2.c, where that measured 1.16x).
 */
AI void mm_rows(float *o, ptrdiff_t ldo, const float *li, ptrdiff_t ldl, const float *r,
                ptrdiff_t ldr, int depth, int j, int nv, int nr, __mmask16 mt)
{
    __m512 a[2][4];
    for (int q = 0; q < 4; q++)
        a[0][q] = a[1][q] = _mm512_setzero_ps();
    for (int k = 0; k < depth; k++) {
        const float *rk = r + k * ldr + j;
        const __m512 l0 = _mm512_set1_ps(li[k]);
        const __m512 l1 = nr > 1 ? _mm512_set1_ps(li[ldl + k]) : l0;
        for (int q = 0; q < nv; q++) {
            const __m512 x = _mm512_maskz_loadu_ps(q == nv - 1 ? mt : 0xffff, rk + 16 * q);
            a[0][q] = _mm512_add_ps(a[0][q], _mm512_mul_ps(l0, x));
            if (nr > 1)
                a[1][q] = _mm512_add_ps(a[1][q], _mm512_mul_ps(l1, x));
        }
    }
    for (int q = 0; q < nv; q++) {
        _mm512_mask_storeu_ps(o + j + 16 * q, q == nv - 1 ? mt : 0xffff, a[0][q]);
        if (nr > 1)
            _mm512_mask_storeu_ps(o + ldo + j + 16 * q, q == nv - 1 ? mt : 0xffff, a[1][q]);
    }
}

#define MM_NV(nr)                                                                         \
    switch (nv) {                                                                         \
    case 4: mm_rows(out + i * ldo, ldo, l + i * ldl, ldl, r, ldr, depth, j, 4, nr, mt); break; \
    case 3: mm_rows(out + i * ldo, ldo, l + i * ldl, ldl, r, ldr, depth, j, 3, nr, mt); break; \
    case 2: mm_rows(out + i * ldo, ldo, l + i * ldl, ldl, r, ldr, depth, j, 2, nr, mt); break; \
    default: mm_rows(out + i * ldo, ldo, l + i * ldl, ldl, r, ldr, depth, j, 1, nr, mt); break; \
    }

void SQ_X512(sq_matmul)(float *out, ptrdiff_t ldo, const float *l, ptrdiff_t ldl,
                        const float *r, ptrdiff_t ldr, int rows, int cols, int depth)
{
    for (int j = 0; j < cols; j += 64) {
        const int left = cols - j, nv = left >= 64 ? 4 : (left + 15) / 16;
        const __mmask16 mt = sq_mask16(left - 16 * (nv - 1));
        int i = 0;
        for (; i + 2 <= rows; i += 2)
            MM_NV(2)
        for (; i < rows; i++)
            MM_NV(1)
    }
}
#undef MM_NV

/*
 * block_rows: an operating row holds the samples of 5 rows of y (c = 0 ..
 * 4) interleaved, sample c of block bj at 5 bj + c. 16 blocks at a time:
 * their 80 samples in 5 vectors, and per c the 16 picked out of the three
 * pairs of them that hold them, with masked loads and stores for the last
 * blocks of a row.
 */
void SQ_X512(sq_block_rows)(float *y, const float *img, int op_w, int nbh, int nbv)
{
    const int nb = nbh * nbv;
    const __m512i t = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i t5 = _mm512_mullo_epi32(t, _mm512_set1_epi32(5));
    for (int bi = 0; bi < nbv; bi++)
        for (int r = 0; r < SQ_BLOCK; r++) {
            const float *src = img + (size_t)(bi * SQ_BLOCK + r) * op_w;
            float *dst = y + (size_t)r * SQ_BLOCK * nb + (size_t)bi * nbh;
            for (int bj = 0; bj < nbh; bj += 16) {
                const float *p = src + 5 * bj;
                const int left = op_w - 5 * bj; /* samples of the row from p */
                __m512 v[5];
                for (int q = 0; q < 5; q++) {
                    const int lq = left - 16 * q;
                    v[q] = _mm512_maskz_loadu_ps(lq > 0 ? sq_mask16(lq) : 0, p + 16 * q);
                }
                const __mmask16 ms = sq_mask16(nbh - bj);
                for (int c = 0; c < SQ_BLOCK; c++) {
                    /* sample 5 i + c lies in v[(5 i + c) / 16]: pairs (0, 1), (2, 3), 4 */
                    const __m512i idx = _mm512_add_epi32(t5, _mm512_set1_epi32(c));
                    const __mmask16 hi2 = _mm512_cmpge_epi32_mask(idx, _mm512_set1_epi32(32));
                    const __mmask16 hi4 = _mm512_cmpge_epi32_mask(idx, _mm512_set1_epi32(64));
                    __m512 o = _mm512_permutex2var_ps(v[0], idx, v[1]);
                    o = _mm512_mask_mov_ps(o, hi2, _mm512_permutex2var_ps(v[2], idx, v[3]));
                    o = _mm512_mask_mov_ps(o, hi4, _mm512_permutexvar_ps(idx, v[4]));
                    _mm512_mask_storeu_ps(dst + (size_t)c * nb + bj, ms, o);
                }
            }
        }
}

void SQ_X512(sq_backsub)(float *x, int ld, const float *rm, int n, int cols)
{
    for (int i = n - 1; i >= 0; i--) {
        float *xi = x + (size_t)i * ld;
        const __m512 dg = _mm512_set1_ps(rm[i * n + i]);
        int j = 0;
        for (; j + 64 <= cols; j += 64) {
            __m512 t0 = _mm512_loadu_ps(xi + j), t1 = _mm512_loadu_ps(xi + j + 16);
            __m512 t2 = _mm512_loadu_ps(xi + j + 32), t3 = _mm512_loadu_ps(xi + j + 48);
            for (int k = i + 1; k < n; k++) {
                const __m512 rk = _mm512_set1_ps(rm[i * n + k]);
                const float *xk = x + (size_t)k * ld + j;
                t0 = _mm512_sub_ps(t0, _mm512_mul_ps(_mm512_loadu_ps(xk), rk));
                t1 = _mm512_sub_ps(t1, _mm512_mul_ps(_mm512_loadu_ps(xk + 16), rk));
                t2 = _mm512_sub_ps(t2, _mm512_mul_ps(_mm512_loadu_ps(xk + 32), rk));
                t3 = _mm512_sub_ps(t3, _mm512_mul_ps(_mm512_loadu_ps(xk + 48), rk));
            }
            _mm512_storeu_ps(xi + j, _mm512_div_ps(t0, dg));
            _mm512_storeu_ps(xi + j + 16, _mm512_div_ps(t1, dg));
            _mm512_storeu_ps(xi + j + 32, _mm512_div_ps(t2, dg));
            _mm512_storeu_ps(xi + j + 48, _mm512_div_ps(t3, dg));
        }
        for (; j < cols; j += 16) {
            const __mmask16 m = sq_mask16(cols - j);
            __m512 t0 = _mm512_maskz_loadu_ps(m, xi + j);
            for (int k = i + 1; k < n; k++)
                t0 = _mm512_sub_ps(t0, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + (size_t)k * ld + j),
                                                     _mm512_set1_ps(rm[i * n + k])));
            _mm512_mask_storeu_ps(xi + j, m, _mm512_div_ps(t0, dg));
        }
    }
}

/*
 * sq_log2 (math/log2.h) on 8 lanes, for positive normal finite inputs
 * only; *special is set when a lane is anything else.
 */
AI __m512d log2_pd(__m512d x, int *special)
{
    const __m512i u = _mm512_castpd_si512(x);
    const __mmask8 spec =
        _mm512_cmplt_epu64_mask(u, _mm512_set1_epi64(0x0010000000000000ll)) |
        _mm512_cmpgt_epu64_mask(u, _mm512_set1_epi64(0x7fefffffffffffffll));
    *special = spec != 0;

    __m512i hx = _mm512_add_epi64(_mm512_srli_epi64(u, 32),
                                  _mm512_set1_epi64(0x3ff00000u - SQ_LOG2_SQRTH_HI));
    const __m512i k = _mm512_sub_epi64(_mm512_srli_epi64(hx, 20), _mm512_set1_epi64(0x3ff));
    hx = _mm512_add_epi64(_mm512_and_si512(hx, _mm512_set1_epi64(0xfffff)),
                          _mm512_set1_epi64(SQ_LOG2_SQRTH_HI));
    const __m512d m = _mm512_castsi512_pd(_mm512_or_si512(
        _mm512_slli_epi64(hx, 32), _mm512_and_si512(u, _mm512_set1_epi64(0xffffffffll))));
    const __m512d y = _mm512_cvtepi64_pd(k); /* AVX512DQ; |k| < 2^11, exact */

#define C(v) _mm512_set1_pd(v)
#define ADD _mm512_add_pd
#define SUB _mm512_sub_pd
#define MUL _mm512_mul_pd
    const __m512d f = SUB(m, C(1.0));
    const __m512d hfsq = MUL(MUL(C(0.5), f), f);
    const __m512d s = _mm512_div_pd(f, ADD(C(2.0), f));
    const __m512d z = MUL(s, s);
    const __m512d w = MUL(z, z);
    const __m512d t1 =
        MUL(w, ADD(C(SQ_LOG2_LG2), MUL(w, ADD(C(SQ_LOG2_LG4), MUL(w, C(SQ_LOG2_LG6))))));
    const __m512d t2 = MUL(
        z, ADD(C(SQ_LOG2_LG1),
               MUL(w, ADD(C(SQ_LOG2_LG3), MUL(w, ADD(C(SQ_LOG2_LG5), MUL(w, C(SQ_LOG2_LG7))))))));
    const __m512d r = ADD(t2, t1);
    __m512d hi = SUB(f, hfsq);
    hi = _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(hi),
                                              _mm512_set1_epi64((long long)0xffffffff00000000ull)));
    const __m512d lo = ADD(SUB(SUB(f, hi), hfsq), MUL(s, ADD(hfsq, r)));
    const __m512d val_hi = MUL(hi, C(SQ_LOG2_INV_LN2_HI));
    __m512d val_lo = ADD(MUL(ADD(lo, hi), C(SQ_LOG2_INV_LN2_LO)), MUL(lo, C(SQ_LOG2_INV_LN2_HI)));
    const __m512d sum = ADD(y, val_hi);
    val_lo = ADD(val_lo, ADD(SUB(y, sum), val_hi));
    return ADD(val_lo, sum);
#undef C
#undef ADD
#undef SUB
#undef MUL
}

/* e + (log2(arg) + log2(2 pi e)) for 8 blocks, with the scalar sq_log2 for special lanes. */
AI __m512d entropy_term(__m512d ed, __m512d argd)
{
    int special;
    __m512d lg = log2_pd(argd, &special);
    if (special) {
        double a[8], l[8];
        _mm512_storeu_pd(a, argd);
        for (int i = 0; i < 8; i++)
            l[i] = sq_log2(a[i]);
        lg = _mm512_loadu_pd(l);
    }
    return _mm512_add_pd(ed, _mm512_add_pd(lg, _mm512_set1_pd(SQ_LOG2_2PIE)));
}

void SQ_X512(sq_entropy)(float *e, const float *lambda, int n, const float *s, int nb,
                         float sigma_nn)
{
    const __m512 sn = _mm512_set1_ps(sigma_nn);
    for (int m = 0; m < nb; m += 16) {
        const __mmask16 k16 = sq_mask16(nb - m);
        /* masked-off lanes hold s = 1: a normal argument, no special path */
        const __m512 sv = _mm512_mask_loadu_ps(_mm512_set1_ps(1.0f), k16, s + m);
        __m512 ev = _mm512_setzero_ps();
        for (int k = 0; k < n; k++) {
            const float l = lambda[k] < 0.0f ? 0.0f : lambda[k];
            const __m512 arg = _mm512_add_ps(_mm512_mul_ps(_mm512_set1_ps(l), sv), sn);
            const __m512d lo = entropy_term(_mm512_cvtps_pd(_mm512_castps512_ps256(ev)),
                                            _mm512_cvtps_pd(_mm512_castps512_ps256(arg)));
            const __m512d hi = entropy_term(
                _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(ev), 1))),
                _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(arg), 1))));
            ev = _mm512_castpd_ps(_mm512_insertf64x4(
                _mm512_castps_pd(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo))),
                _mm256_castps_pd(_mm512_cvtpd_ps(hi)), 1));
        }
        _mm512_mask_storeu_ps(e + m, k16, ev);
    }
}

/*
 * pool_terms for wvm 0 (the default; other modes take the math core's
 * sq_pool_term one block at a time): 8 blocks per vector, each lane
 * sq_pool_term's operations, both log2 through log2_pd. Blocks with both
 * entropies below base are 0; a vector with a lane log2_pd does not take
 * (1 + s not a positive normal) is done by sq_pool_term.
 */
void SQ_X512(sq_pool_terms)(float *t, const float *er, const float *sr, const float *ed,
                            const float *sd, int nb, float base, int wvm)
{
    int m = 0;
    if (wvm == 0)
        for (; m + 8 <= nb; m += 8) {
            const __m256 ver = _mm256_loadu_ps(er + m), ved = _mm256_loadu_ps(ed + m);
            const __m256 one = _mm256_set1_ps(1.0f), vb = _mm256_set1_ps(base);
            const __mmask8 zero = _mm256_cmp_ps_mask(ver, vb, _CMP_LT_OQ) &
                                  _mm256_cmp_ps_mask(ved, vb, _CMP_LT_OQ);
            if (zero == 0xff) {
                _mm256_storeu_ps(t + m, _mm256_setzero_ps());
                continue;
            }
            int sr_special, sd_special;
            const __m512d lr =
                log2_pd(_mm512_cvtps_pd(_mm256_add_ps(one, _mm256_loadu_ps(sr + m))), &sr_special);
            const __m512d ld =
                log2_pd(_mm512_cvtps_pd(_mm256_add_ps(one, _mm256_loadu_ps(sd + m))), &sd_special);
            if (sr_special || sd_special) {
                for (int i = m; i < m + 8; i++)
                    t[i] = sq_pool_term(er[i], sr[i], ed[i], sd[i], base, wvm);
                continue;
            }
            const __m256 a = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_cvtps_pd(ver), lr));
            const __m256 b = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_cvtps_pd(ved), ld));
            const __m256 d = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), _mm256_sub_ps(a, b));
            _mm256_storeu_ps(t + m, _mm256_maskz_mov_ps((__mmask8)~zero, d));
        }
    for (; m < nb; m++)
        t[m] = sq_pool_term(er[m], sr[m], ed[m], sd[m], base, wvm);
}
