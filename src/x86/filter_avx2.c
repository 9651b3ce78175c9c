/*
 * AVX2 filters: 8 columns (or 8 outputs) per vector, each lane doing the
 * scalar sequence of math/filter.h: taps in increasing k, product rounded
 * to float, then added (_mm256_mul_ps, then _mm256_add_ps; never FMA).
 * Sample conversion is exact in float for every bit depth, so the integer
 * forms used here ((float)(v - 128), (float)(p - c) * scale) give the same
 * bits as the math core's (float)v * scale + -128 and its difference.
 */
#include <immintrin.h>
#include <string.h>

#include "cpu/dsp.h"
#include "math/filter.h"
#include "x86/dsp_x86.h"

#define AI static inline __attribute__((always_inline))

enum { SRC_U8, SRC_U8_DIFF, SRC_U16, SRC_U16_DIFF, SRC_F32 };

AI __m256 load8(int mode, const void *cur, const void *prev, int c, __m256 scale)
{
    const __m256 m128 = _mm256_set1_ps(-128.0f);
    switch (mode) {
    case SRC_U8: {
        __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)((const uint8_t *)cur + c)));
        return _mm256_cvtepi32_ps(_mm256_sub_epi32(v, _mm256_set1_epi32(128)));
    }
    case SRC_U8_DIFF: {
        __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)((const uint8_t *)cur + c)));
        __m256i p = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)((const uint8_t *)prev + c)));
        return _mm256_cvtepi32_ps(_mm256_sub_epi32(p, v));
    }
    case SRC_U16: {
        __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)((const uint8_t *)cur + 2 * c)));
        return _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(v), scale), m128);
    }
    case SRC_U16_DIFF: {
        __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)((const uint8_t *)cur + 2 * c)));
        __m256i p = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)((const uint8_t *)prev + 2 * c)));
        return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(p, v)), scale);
    }
    default:
        return _mm256_loadu_ps((const float *)cur + c);
    }
}

/*
 * speedqa_send refuses 16-bit planes at odd addresses or strides, so this
 * load is aligned; memcpy only keeps it clear of strict aliasing, as the
 * row arrives as bytes.
 */
AI uint32_t u16_at(const void *row, int c)
{
    uint16_t v;
    memcpy(&v, (const uint8_t *)row + 2 * (ptrdiff_t)c, sizeof(v));
    return v;
}

AI float load1(int mode, const void *cur, const void *prev, int c, float scale)
{
    switch (mode) {
    case SRC_U8:
        return sq_sample_to_float(((const uint8_t *)cur)[c], 1.0f);
    case SRC_U8_DIFF:
        return sq_sample_to_float(((const uint8_t *)prev)[c], 1.0f) -
               sq_sample_to_float(((const uint8_t *)cur)[c], 1.0f);
    case SRC_U16:
        return sq_sample_to_float(u16_at(cur, c), scale);
    case SRC_U16_DIFF:
        return sq_sample_to_float(u16_at(prev, c), scale) - sq_sample_to_float(u16_at(cur, c), scale);
    default:
        return ((const float *)cur)[c];
    }
}

/* 32 columns at c. */
AI void cols32(int mode, float *dst, const void *const *cr, const void *const *pr,
               const float *g, int taps, int c, __m256 scale)
{
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int k = 0; k < taps; k++) {
        const __m256 gk = _mm256_set1_ps(g[k]);
        const void *p = pr ? pr[k] : NULL;
        a0 = _mm256_add_ps(a0, _mm256_mul_ps(gk, load8(mode, cr[k], p, c, scale)));
        a1 = _mm256_add_ps(a1, _mm256_mul_ps(gk, load8(mode, cr[k], p, c + 8, scale)));
        a2 = _mm256_add_ps(a2, _mm256_mul_ps(gk, load8(mode, cr[k], p, c + 16, scale)));
        a3 = _mm256_add_ps(a3, _mm256_mul_ps(gk, load8(mode, cr[k], p, c + 24, scale)));
    }
    _mm256_storeu_ps(dst + c, a0);
    _mm256_storeu_ps(dst + c + 8, a1);
    _mm256_storeu_ps(dst + c + 16, a2);
    _mm256_storeu_ps(dst + c + 24, a3);
}

AI void cols8(int mode, float *dst, const void *const *cr, const void *const *pr,
              const float *g, int taps, int c, __m256 scale)
{
    __m256 a0 = _mm256_setzero_ps();
    for (int k = 0; k < taps; k++)
        a0 = _mm256_add_ps(a0, _mm256_mul_ps(_mm256_set1_ps(g[k]),
                                             load8(mode, cr[k], pr ? pr[k] : NULL, c, scale)));
    _mm256_storeu_ps(dst + c, a0);
}

/* Prefetch (L2) the line holding byte b of rows nx[0 .. nt) (and np's). */
AI void pf_rows(int nt, const void *const *nx, const void *const *np, ptrdiff_t b)
{
    for (int t = 0; t < nt; t++) {
        _mm_prefetch((const char *)nx[t] + b, _MM_HINT_T1);
        if (np)
            _mm_prefetch((const char *)np[t] + b, _MM_HINT_T1);
    }
}

/* Adds taps k0 .. k0 + nt - 1 to the partial sums dst[a .. e8) (k0 = 0: from +0);
 * cn, pn (or NULL): the rows of the next operating row, prefetched alongside. */
AI void rows_pass(int mode, int nt, float *dst, const void *const *cr, const void *const *pr,
                  const void *const *cn, const void *const *pn, const float *g, int k0, int a,
                  int e8, __m256 scale)
{
    __m256 gk[4];
    const void *ck[4], *pk[4], *cx[4], *px[4];
    const int bps = mode == SRC_U16 || mode == SRC_U16_DIFF ? 2 : 1;
    for (int t = 0; t < nt; t++) {
        gk[t] = _mm256_set1_ps(g[k0 + t]);
        ck[t] = cr[k0 + t];
        pk[t] = pr ? pr[k0 + t] : NULL;
        cx[t] = cn ? cn[k0 + t] : NULL;
        px[t] = pn ? pn[k0 + t] : NULL;
    }
    int c = a;
    for (; c + 16 <= e8; c += 16) {
        if (cn && !(((c - a) * bps) & 63))
            pf_rows(nt, cx, pn ? px : NULL, (ptrdiff_t)c * bps);
        __m256 a0 = k0 ? _mm256_loadu_ps(dst + c) : _mm256_setzero_ps();
        __m256 a1 = k0 ? _mm256_loadu_ps(dst + c + 8) : _mm256_setzero_ps();
        for (int t = 0; t < nt; t++) {
            a0 = _mm256_add_ps(a0, _mm256_mul_ps(gk[t], load8(mode, ck[t], pk[t], c, scale)));
            a1 = _mm256_add_ps(a1, _mm256_mul_ps(gk[t], load8(mode, ck[t], pk[t], c + 8, scale)));
        }
        _mm256_storeu_ps(dst + c, a0);
        _mm256_storeu_ps(dst + c + 8, a1);
    }
    for (; c < e8; c += 8) {
        __m256 a0 = k0 ? _mm256_loadu_ps(dst + c) : _mm256_setzero_ps();
        for (int t = 0; t < nt; t++)
            a0 = _mm256_add_ps(a0, _mm256_mul_ps(gk[t], load8(mode, ck[t], pk[t], c, scale)));
        _mm256_storeu_ps(dst + c, a0);
    }
}

AI void vfilt_run(int mode, float *dst, const void *const *cr, const void *const *pr,
                  const void *const *cn, const void *const *pn, const float *g, int taps,
                  const int32_t *spans, int nspans, int w, float scale)
{
    const __m256 vs = _mm256_set1_ps(scale);
    for (int s = 0; s < nspans;) {
        int a = spans[2 * s], e = spans[2 * s + 1];
        /* A gap narrower than a vector costs less computed than skipped. */
        for (s++; s < nspans && spans[2 * s] - e < 8; s++)
            e = spans[2 * s + 1];
        if (w < 8) {
            for (int c = a; c < e; c++) {
                float acc = 0.0f;
                for (int k = 0; k < taps; k++) {
                    float prod = g[k] * load1(mode, cr[k], pr ? pr[k] : NULL, c, scale);
                    acc = acc + prod;
                }
                dst[c] = acc;
            }
            continue;
        }
        int c = a;
        if (e - a >= 64) {
            /* Long span: a few source rows at a time, the partial sums in
             * dst (same per-column order), so rows stream sequentially. */
            const int e8 = a + ((e - a) & ~7), np = (taps + 3) / 4;
            for (int p = 0, k = 0; p < np; p++) {
                const int t = (taps - k) / (np - p); /* 1..4 taps this pass */
                switch (t) {
                case 1: rows_pass(mode, 1, dst, cr, pr, cn, pn, g, k, a, e8, vs); break;
                case 2: rows_pass(mode, 2, dst, cr, pr, cn, pn, g, k, a, e8, vs); break;
                case 3: rows_pass(mode, 3, dst, cr, pr, cn, pn, g, k, a, e8, vs); break;
                default: rows_pass(mode, 4, dst, cr, pr, cn, pn, g, k, a, e8, vs); break;
                }
                k += t;
            }
            if (e8 < e) /* complete columns, overwriting the partial ones */
                cols8(mode, dst, cr, pr, g, taps, e - 8, vs);
            continue;
        }
        for (; c + 32 <= e; c += 32)
            cols32(mode, dst, cr, pr, g, taps, c, vs);
        for (; c + 8 <= e; c += 8)
            cols8(mode, dst, cr, pr, g, taps, c, vs);
        if (c < e)
            cols8(mode, dst, cr, pr, g, taps, e >= 8 ? e - 8 : 0, vs);
    }
}

static void row_ptrs(const void **out, const uint8_t *base, ptrdiff_t stride, int h, int row,
                     int taps)
{
    const int r = taps >> 1;
    for (int k = 0; k < taps; k++)
        out[k] = base + (ptrdiff_t)sq_mirror(row - r + k, h) * stride;
}

/*
 * The raw rows vfilt_8bpc/16bpc read are prefetched (L2) one operating row
 * ahead, 16 rows down (the backend's next call), while long spans are
 * filtered: the pass otherwise waits on memory (frames far larger than
 * the caches). A hint only: those rows exist (mirrored like these).
 */
void sq_vfilt_8bpc_avx2(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                        const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,
                        const float *g, int taps, const int32_t *spans, int nspans, int w)
{
    const void *cr[SQ_MAX_TAPS], *pr[SQ_MAX_TAPS], *cn[SQ_MAX_TAPS], *pn[SQ_MAX_TAPS];
    const int nx = row + (1 << SQ_DECIM_SHIFT) < h ? row + (1 << SQ_DECIM_SHIFT) : row;
    row_ptrs(cr, cur, cur_stride, h, row, taps);
    row_ptrs(cn, cur, cur_stride, h, nx, taps);
    if (prev) {
        row_ptrs(pr, prev, prev_stride, h, row, taps);
        row_ptrs(pn, prev, prev_stride, h, nx, taps);
        vfilt_run(SRC_U8_DIFF, dst, cr, pr, cn, pn, g, taps, spans, nspans, w, 1.0f);
    } else {
        vfilt_run(SRC_U8, dst, cr, NULL, cn, NULL, g, taps, spans, nspans, w, 1.0f);
    }
}

void sq_or_16bpc_avx2(uint32_t *acc, const uint8_t *row, int w)
{
    __m256i b0 = _mm256_setzero_si256(), b1 = b0;
    int x = 0;
    for (; x + 32 <= w; x += 32) {
        b0 = _mm256_or_si256(b0, _mm256_loadu_si256((const __m256i *)(row + 2 * (ptrdiff_t)x)));
        b1 = _mm256_or_si256(b1, _mm256_loadu_si256((const __m256i *)(row + 2 * (ptrdiff_t)x + 32)));
    }
    uint32_t bits = *acc;
    for (; x < w; x++)
        bits |= u16_at(row, x);
    uint16_t lanes[16];
    _mm256_storeu_si256((__m256i *)lanes, _mm256_or_si256(b0, b1));
    for (int i = 0; i < 16; i++)
        bits |= lanes[i];
    *acc = bits;
}

void sq_vfilt_16bpc_avx2(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                         const uint8_t *prev, ptrdiff_t prev_stride, float scale, int h, int row,
                         const float *g, int taps, const int32_t *spans, int nspans, int w)
{
    const void *cr[SQ_MAX_TAPS], *pr[SQ_MAX_TAPS], *cn[SQ_MAX_TAPS], *pn[SQ_MAX_TAPS];
    const int nx = row + (1 << SQ_DECIM_SHIFT) < h ? row + (1 << SQ_DECIM_SHIFT) : row;
    row_ptrs(cr, cur, cur_stride, h, row, taps);
    row_ptrs(cn, cur, cur_stride, h, nx, taps);
    if (prev) {
        row_ptrs(pr, prev, prev_stride, h, row, taps);
        row_ptrs(pn, prev, prev_stride, h, nx, taps);
        vfilt_run(SRC_U16_DIFF, dst, cr, pr, cn, pn, g, taps, spans, nspans, w, scale);
    } else {
        vfilt_run(SRC_U16, dst, cr, NULL, cn, NULL, g, taps, spans, nspans, w, scale);
    }
}

void sq_vfilt_f32_avx2(float *dst, const float *img, ptrdiff_t stride, int h, int row,
                       const float *g, int taps, const int32_t *spans, int nspans, int w)
{
    const void *cr[SQ_MAX_TAPS];
    row_ptrs(cr, (const uint8_t *)img, stride * (ptrdiff_t)sizeof(float), h, row, taps);
    vfilt_run(SRC_F32, dst, cr, NULL, NULL, NULL, g, taps, spans, nspans, w, 1.0f);
}

/* 8x8 transpose: row i of the output is lane i of every input. */
AI void transpose8(__m256 *v)
{
    __m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpackhi_ps(v[0], v[1]);
    __m256 t2 = _mm256_unpacklo_ps(v[2], v[3]), t3 = _mm256_unpackhi_ps(v[2], v[3]);
    __m256 t4 = _mm256_unpacklo_ps(v[4], v[5]), t5 = _mm256_unpackhi_ps(v[4], v[5]);
    __m256 t6 = _mm256_unpacklo_ps(v[6], v[7]), t7 = _mm256_unpackhi_ps(v[6], v[7]);
    __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xee);
    __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xee);
    __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xee);
    __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xee);
    v[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    v[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    v[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    v[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    v[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    v[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    v[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    v[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

/*
 * Decimated horizontal pass: outputs j0..j0+7 read src[16 j + o], |o| <= 7.
 * Transposing the 8 x 16 block src[16 j - 8 + q] turns each tap offset
 * into one vector over j (phase q = o + 8).
 */
void sq_hfilt_dec_avx2(float *dst, const float *src, int w, const float *g, int taps, int nout)
{
    const int r = taps >> 1;
    int j = 0;
    if (r <= 4 && nout >= 9 && (nout << SQ_DECIM_SHIFT) <= w) {
        /* Offsets -4..3 from one 8x8 transpose of src[16 j - 4 ..]; offset
         * 4 (taps = 9) from 8 single loads. */
        dst[0] = sq_hfilter_f32(src, w, g, taps, 0);
        for (j = 1; j < nout; j += 8) {
            const int j0 = j + 8 <= nout ? j : nout - 8;
            const float *p = src + (j0 << SQ_DECIM_SHIFT);
            __m256 v[8];
            for (int i = 0; i < 8; i++)
                v[i] = _mm256_loadu_ps(p + (i << SQ_DECIM_SHIFT) - 4);
            transpose8(v);
            __m256 acc = _mm256_setzero_ps();
            for (int k = 0; k < taps && k - r < 4; k++)
                acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_set1_ps(g[k]), v[k - r + 4]));
            if (r == 4) {
                const __m256 x = _mm256_setr_ps(p[4], p[20], p[36], p[52], p[68], p[84], p[100], p[116]);
                acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_set1_ps(g[8]), x));
            }
            _mm256_storeu_ps(dst + j0, acc);
        }
        return;
    }
    if (r <= 7 && nout >= 9 && (nout << SQ_DECIM_SHIFT) <= w) {
        /* j = 0 mirrors at the left edge; 16 (nout - 1) + 7 < w needs no mirror. */
        dst[0] = sq_hfilter_f32(src, w, g, taps, 0);
        for (j = 1; j < nout; j += 8) {
            const int j0 = j + 8 <= nout ? j : nout - 8;
            __m256 lo[8], hi[8];
            for (int i = 0; i < 8; i++) {
                const float *p = src + ((j0 + i) << SQ_DECIM_SHIFT) - 8;
                lo[i] = _mm256_loadu_ps(p);
                hi[i] = _mm256_loadu_ps(p + 8);
            }
            transpose8(lo);
            transpose8(hi);
            __m256 acc = _mm256_setzero_ps();
            for (int k = 0; k < taps; k++) {
                const int q = k - r + 8;
                const __m256 x = q < 8 ? lo[q] : hi[q - 8];
                acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_set1_ps(g[k]), x));
            }
            _mm256_storeu_ps(dst + j0, acc);
        }
        return;
    }
    for (; j < nout; j++)
        dst[j] = sq_hfilter_f32(src, w, g, taps, j << SQ_DECIM_SHIFT);
}

void sq_local_mean_avx2(float *dst, const float *op, const float *mrow, int w,
                        const float *g, int taps)
{
    const int r = taps >> 1;
    int j = 0;
    /* Interior outputs [r, w - r) need no mirror. */
    if (w - 2 * r >= 8) {
        for (; j < r; j++)
            dst[j] = sq_local_mean_at(mrow, w, op, g, taps, j);
        for (; j < w - r; j += 8) {
            const int j0 = j + 8 <= w - r ? j : w - r - 8;
            __m256 acc = _mm256_setzero_ps();
            for (int k = 0; k < taps; k++)
                acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_set1_ps(g[k]),
                                                       _mm256_loadu_ps(mrow + j0 - r + k)));
            _mm256_storeu_ps(dst + j0, _mm256_sub_ps(_mm256_loadu_ps(op + j0), acc));
        }
        j = w - r;
    }
    for (; j < w; j++)
        dst[j] = sq_local_mean_at(mrow, w, op, g, taps, j);
}
