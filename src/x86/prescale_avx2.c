/*
 * AVX2 speed_prescale rows: 8 outputs x per vector. The per-output tables
 * (SQ_PS_TAPS indices and weights per x) and the source samples are read
 * with gathers (exact loads); each lane then runs sq_prescale_at's float
 * sequence for its x: same weight products, same accumulation order, no
 * FMA. The row weights (wy) and row pointers are common to all lanes.
 *
 * Gathers are slow on the development CPU (AMD EPYC, Zen): measured with
 * `checkkernel --bench`, 480 outputs, C vs AVX2: nearest 502 / 523 ns,
 * bilinear 1083 / 1651, bicubic 3908 / 5445, lanczos4 31450 / 22088. So
 * only lanczos4 (81 products an output) takes the vector path; the others
 * stay scalar.
 */
#include <immintrin.h>

#include "math/prescale.h"
#include "x86/dsp_x86.h"

#define AI static inline __attribute__((always_inline))

/* Lane i: element t of output x0 + i's table (stride SQ_PS_TAPS). */
AI __m256 tab_ps(const float *tab, __m256i base, int t)
{
    return _mm256_i32gather_ps(tab + t, base, 4);
}

AI __m256i tab_epi32(const int32_t *tab, __m256i base, int t)
{
    return _mm256_i32gather_epi32((const int *)(tab + t), base, 4);
}

AI __m256 at(const float *row, __m256i idx)
{
    return _mm256_i32gather_ps(row, idx, 4);
}

void sq_prescale_row_avx2(float *dst, const float *src, ptrdiff_t stride, int method,
                          const int32_t *iy, const float *wy, const int32_t *ix, const float *wx,
                          int w)
{
    const __m256i lane9 = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                             _mm256_set1_epi32(SQ_PS_TAPS));
    const int vend = method == SQ_PS_LANCZOS4 ? w : 0;
    int x = 0;
    for (; x + 8 <= vend; x += 8) {
        const __m256i base = _mm256_add_epi32(lane9, _mm256_set1_epi32(x * SQ_PS_TAPS));
        __m256 out;
        if (method == SQ_PS_NEAREST) {
            out = at(src + (ptrdiff_t)iy[0] * stride, tab_epi32(ix, base, 0));
        } else if (method == SQ_PS_BILINEAR) {
            const float *r1 = src + (ptrdiff_t)iy[0] * stride, *r2 = src + (ptrdiff_t)iy[1] * stride;
            const __m256i i0 = tab_epi32(ix, base, 0), i1 = tab_epi32(ix, base, 1);
            const __m256 dx = tab_ps(wx, base, 0), dy = _mm256_set1_ps(wy[0]);
            const __m256 ody = _mm256_set1_ps(1.0f - wy[0]);
            const __m256 odx = _mm256_sub_ps(_mm256_set1_ps(1.0f), dx);
            const __m256 w11 = _mm256_mul_ps(ody, odx), w12 = _mm256_mul_ps(ody, dx);
            const __m256 w21 = _mm256_mul_ps(dy, odx), w22 = _mm256_mul_ps(dy, dx);
            __m256 acc = _mm256_mul_ps(w11, at(r1, i0));
            acc = _mm256_add_ps(acc, _mm256_mul_ps(w12, at(r1, i1)));
            acc = _mm256_add_ps(acc, _mm256_mul_ps(w21, at(r2, i0)));
            out = _mm256_add_ps(acc, _mm256_mul_ps(w22, at(r2, i1)));
        } else {
            const int nt = method == SQ_PS_BICUBIC ? 4 : 9;
            __m256i idx[9];
            __m256 wxv[9];
            for (int i = 0; i < nt; i++) {
                idx[i] = tab_epi32(ix, base, i);
                wxv[i] = tab_ps(wx, base, i);
            }
            __m256 val = _mm256_setzero_ps(), wsum = val;
            for (int j = 0; j < nt; j++) {
                const float *row = src + (ptrdiff_t)iy[j] * stride;
                const __m256 wj = _mm256_set1_ps(wy[j]);
                for (int i = 0; i < nt; i++) {
                    const __m256 wt = _mm256_mul_ps(wxv[i], wj);
                    if (nt == 9)
                        wsum = _mm256_add_ps(wsum, wt);
                    val = _mm256_add_ps(val, _mm256_mul_ps(at(row, idx[i]), wt));
                }
            }
            out = nt == 9 ? _mm256_div_ps(val, wsum) : val;
        }
        _mm256_storeu_ps(dst + x, out);
    }
    for (; x < w; x++)
        dst[x] = sq_prescale_at(src, stride, method, iy, wy, ix + (ptrdiff_t)x * SQ_PS_TAPS,
                                wx + (ptrdiff_t)x * SQ_PS_TAPS);
}
