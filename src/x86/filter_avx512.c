/*
 * AVX-512 filters: 16 columns (or outputs) per vector, each lane running the
 * scalar sequence of math/filter.h (taps in increasing k, product rounded,
 * then added; never FMA), as in filter_avx2.c. Tails use masked loads and
 * stores instead of overlapping vectors: masked-off lanes read nothing and
 * write nothing, so any width and span works without a scalar remainder.
 */
#include <string.h>

#include "cpu/dsp.h"
#include "math/filter.h"
#include "x86/dsp_x86.h"
#include "x86/simd512.h"

enum { SRC_U8, SRC_U8_DIFF, SRC_U16, SRC_U16_DIFF, SRC_F32 };

/* 16 converted samples at column c, lanes outside m read nothing (zero). */
AI __m512 load16(int mode, const void *cur, const void *prev, int c, __m512 scale, __mmask16 m)
{
    const uint8_t *cb = (const uint8_t *)cur, *pb = (const uint8_t *)prev;
    switch (mode) {
    case SRC_U8: {
        __m512i v = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, cb + c));
        return _mm512_cvtepi32_ps(_mm512_sub_epi32(v, _mm512_set1_epi32(128)));
    }
    case SRC_U8_DIFF: {
        __m512i v = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, cb + c));
        __m512i p = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, pb + c));
        return _mm512_cvtepi32_ps(_mm512_sub_epi32(p, v));
    }
    case SRC_U16: {
        __m512i v = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, cb + 2 * (ptrdiff_t)c));
        return _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(v), scale), _mm512_set1_ps(-128.0f));
    }
    case SRC_U16_DIFF: {
        __m512i v = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, cb + 2 * (ptrdiff_t)c));
        __m512i p = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, pb + 2 * (ptrdiff_t)c));
        return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(p, v)), scale);
    }
    default:
        return _mm512_maskz_loadu_ps(m, (const float *)cur + c);
    }
}

/* nv (1..4) vectors of complete columns at c, the last one masked by mt. */
AI void cols(int mode, int nv, float *dst, const void *const *cr, const void *const *pr,
             const float *g, int taps, int c, __m512 scale, __mmask16 mt)
{
    __m512 a[4];
    for (int q = 0; q < nv; q++)
        a[q] = _mm512_setzero_ps();
    for (int k = 0; k < taps; k++) {
        const __m512 gk = _mm512_set1_ps(g[k]);
        const void *p = pr ? pr[k] : NULL;
        for (int q = 0; q < nv; q++)
            a[q] = _mm512_add_ps(a[q], _mm512_mul_ps(gk, load16(mode, cr[k], p, c + 16 * q, scale,
                                                                q == nv - 1 ? mt : 0xffff)));
    }
    for (int q = 0; q < nv; q++)
        _mm512_mask_storeu_ps(dst + c + 16 * q, q == nv - 1 ? mt : 0xffff, a[q]);
}

/* Adds taps k0 .. k0 + nt - 1 to the partial sums dst[a .. e) (k0 = 0: from +0). */
AI void rows_pass(int mode, int nt, float *dst, const void *const *cr, const void *const *pr,
                  const float *g, int k0, int a, int e, __m512 scale)
{
    __m512 gk[4];
    const void *ck[4], *pk[4];
    for (int t = 0; t < nt; t++) {
        gk[t] = _mm512_set1_ps(g[k0 + t]);
        ck[t] = cr[k0 + t];
        pk[t] = pr ? pr[k0 + t] : NULL;
    }
    for (int c = a; c < e; c += 16) {
        const __mmask16 m = sq_mask16(e - c);
        __m512 a0 = k0 ? _mm512_maskz_loadu_ps(m, dst + c) : _mm512_setzero_ps();
        for (int t = 0; t < nt; t++)
            a0 = _mm512_add_ps(a0, _mm512_mul_ps(gk[t], load16(mode, ck[t], pk[t], c, scale, m)));
        _mm512_mask_storeu_ps(dst + c, m, a0);
    }
}

AI void vfilt_run(int mode, float *dst, const void *const *cr, const void *const *pr,
                  const float *g, int taps, const int32_t *spans, int nspans, float scale)
{
    const __m512 vs = _mm512_set1_ps(scale);
    for (int s = 0; s < nspans;) {
        int a = spans[2 * s], e = spans[2 * s + 1];
        /* A gap narrower than a vector costs less computed than skipped. */
        for (s++; s < nspans && spans[2 * s] - e < 16; s++)
            e = spans[2 * s + 1];
        if (e - a >= 128) {
            /* Long span: a few source rows at a time, the partial sums in
             * dst (same per-column order), so rows stream sequentially. */
            const int np = (taps + 3) / 4;
            for (int p = 0, k = 0; p < np; p++) {
                const int t = (taps - k) / (np - p); /* 1..4 taps this pass */
                switch (t) {
                case 1: rows_pass(mode, 1, dst, cr, pr, g, k, a, e, vs); break;
                case 2: rows_pass(mode, 2, dst, cr, pr, g, k, a, e, vs); break;
                case 3: rows_pass(mode, 3, dst, cr, pr, g, k, a, e, vs); break;
                default: rows_pass(mode, 4, dst, cr, pr, g, k, a, e, vs); break;
                }
                k += t;
            }
            continue;
        }
        int c = a;
        for (; c + 64 <= e; c += 64)
            cols(mode, 4, dst, cr, pr, g, taps, c, vs, 0xffff);
        for (; c < e; c += 16)
            cols(mode, 1, dst, cr, pr, g, taps, c, vs, sq_mask16(e - c));
    }
}

static void row_ptrs(const void **out, const uint8_t *base, ptrdiff_t stride, int h, int row,
                     int taps)
{
    const int r = taps >> 1;
    for (int k = 0; k < taps; k++)
        out[k] = base + (ptrdiff_t)sq_mirror(row - r + k, h) * stride;
}

void SQ_X512(sq_vfilt_8bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                            const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,
                            const float *g, int taps, const int32_t *spans, int nspans, int w)
{
    const void *cr[SQ_MAX_TAPS], *pr[SQ_MAX_TAPS];
    (void)w;
    row_ptrs(cr, cur, cur_stride, h, row, taps);
    if (prev) {
        row_ptrs(pr, prev, prev_stride, h, row, taps);
        vfilt_run(SRC_U8_DIFF, dst, cr, pr, g, taps, spans, nspans, 1.0f);
    } else {
        vfilt_run(SRC_U8, dst, cr, NULL, g, taps, spans, nspans, 1.0f);
    }
}

void SQ_X512(sq_vfilt_16bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                             const uint8_t *prev, ptrdiff_t prev_stride, float scale, int h,
                             int row, const float *g, int taps, const int32_t *spans, int nspans,
                             int w)
{
    const void *cr[SQ_MAX_TAPS], *pr[SQ_MAX_TAPS];
    (void)w;
    row_ptrs(cr, cur, cur_stride, h, row, taps);
    if (prev) {
        row_ptrs(pr, prev, prev_stride, h, row, taps);
        vfilt_run(SRC_U16_DIFF, dst, cr, pr, g, taps, spans, nspans, scale);
    } else {
        vfilt_run(SRC_U16, dst, cr, NULL, g, taps, spans, nspans, scale);
    }
}

void SQ_X512(sq_or_16bpc)(uint32_t *acc, const uint8_t *row, int w)
{
    __m512i b0 = _mm512_setzero_si512(), b1 = b0;
    int x = 0;
    for (; x + 64 <= w; x += 64) {
        b0 = _mm512_or_si512(b0, _mm512_loadu_si512(row + 2 * (ptrdiff_t)x));
        b1 = _mm512_or_si512(b1, _mm512_loadu_si512(row + 2 * (ptrdiff_t)x + 64));
    }
    for (; x < w; x += 32)
        b0 = _mm512_or_si512(b0, _mm512_maskz_loadu_epi16((__mmask32)(w - x >= 32 ? 0xffffffffu
                                                                     : (1u << (w - x)) - 1u),
                                                          row + 2 * (ptrdiff_t)x));
    uint16_t lanes[32];
    _mm512_storeu_si512(lanes, _mm512_or_si512(b0, b1));
    uint32_t bits = *acc;
    for (int i = 0; i < 32; i++)
        bits |= lanes[i];
    *acc = bits;
}

void SQ_X512(sq_local_mean)(float *dst, const float *op, const float *mrow, int w,
                            const float *g, int taps)
{
    const int r = taps >> 1;
    int j = 0;
    /* Interior outputs [r, w - r) need no mirror. */
    if (w - 2 * r >= 16) {
        for (; j < r; j++)
            dst[j] = sq_local_mean_at(mrow, w, op, g, taps, j);
        for (; j < w - r; j += 16) {
            const __mmask16 m = sq_mask16(w - r - j);
            __m512 acc = _mm512_setzero_ps();
            for (int k = 0; k < taps; k++)
                acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_set1_ps(g[k]),
                                                       _mm512_maskz_loadu_ps(m, mrow + j - r + k)));
            _mm512_mask_storeu_ps(dst + j, m, _mm512_sub_ps(_mm512_maskz_loadu_ps(m, op + j), acc));
        }
        j = w - r;
    }
    for (; j < w; j++)
        dst[j] = sq_local_mean_at(mrow, w, op, g, taps, j);
}
