/*
 * AVX-512 dense linear algebra: simd/linalg_tmpl.h over simd/vec_avx512.h
 * (matmul, backsub, entropy; the level keeps AVX2's tridiag and block_var,
 * x86/init_avx512.c), and two slots only this level has: block_rows and
 * pool_terms (whose log2s are the template's log2_pd).
 */
#include "simd/vec_avx512.h"
#define SQ_T_NO_TRIDIAG
#define SQ_T_NO_BLOCK_VAR
#include "simd/linalg_tmpl.h"

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
