/*
 * AVX-512 filters: 16 columns (or outputs) per vector, each lane running the
 * scalar sequence of math/filter.h (taps in increasing k, product rounded,
 * then added; never FMA), as in filter_avx2.c. Tails use masked loads and
 * stores instead of overlapping vectors: masked-off lanes read nothing and
 * write nothing, so any width and span works without a scalar remainder.
 */
#include <math.h>
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

/* Prefetch (L2) the line holding byte b of rows nx[0 .. nt) (and np's). */
AI void pf_rows(int nt, const void *const *nx, const void *const *np, ptrdiff_t b)
{
    for (int t = 0; t < nt; t++) {
        _mm_prefetch((const char *)nx[t] + b, _MM_HINT_T1);
        if (np)
            _mm_prefetch((const char *)np[t] + b, _MM_HINT_T1);
    }
}

/* Adds taps k0 .. k0 + nt - 1 to the partial sums dst[a .. e) (k0 = 0: from +0);
 * cn, pn (or NULL): the rows of the next operating row, prefetched alongside. */
AI void rows_pass(int mode, int nt, float *dst, const void *const *cr, const void *const *pr,
                  const void *const *cn, const void *const *pn, const float *g, int k0, int a,
                  int e, __m512 scale)
{
    __m512 gk[4];
    const void *ck[4], *pk[4], *cx[4], *px[4];
    const int bps = mode == SRC_U16 || mode == SRC_U16_DIFF ? 2 : 1;
    for (int t = 0; t < nt; t++) {
        gk[t] = _mm512_set1_ps(g[k0 + t]);
        ck[t] = cr[k0 + t];
        pk[t] = pr ? pr[k0 + t] : NULL;
        cx[t] = cn ? cn[k0 + t] : NULL;
        px[t] = pn ? pn[k0 + t] : NULL;
    }
    for (int c = a; c < e; c += 16) {
        if (cn && !(((c - a) * bps) & 63))
            pf_rows(nt, cx, pn ? px : NULL, (ptrdiff_t)c * bps);
        const __mmask16 m = sq_mask16(e - c);
        __m512 a0 = k0 ? _mm512_maskz_loadu_ps(m, dst + c) : _mm512_setzero_ps();
        for (int t = 0; t < nt; t++)
            a0 = _mm512_add_ps(a0, _mm512_mul_ps(gk[t], load16(mode, ck[t], pk[t], c, scale, m)));
        _mm512_mask_storeu_ps(dst + c, m, a0);
    }
}

AI void vfilt_run(int mode, float *dst, const void *const *cr, const void *const *pr,
                  const void *const *cn, const void *const *pn, const float *g, int taps,
                  const int32_t *spans, int nspans, float scale)
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
                case 1: rows_pass(mode, 1, dst, cr, pr, cn, pn, g, k, a, e, vs); break;
                case 2: rows_pass(mode, 2, dst, cr, pr, cn, pn, g, k, a, e, vs); break;
                case 3: rows_pass(mode, 3, dst, cr, pr, cn, pn, g, k, a, e, vs); break;
                default: rows_pass(mode, 4, dst, cr, pr, cn, pn, g, k, a, e, vs); break;
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

/*
 * The raw rows vfilt_8bpc/16bpc read are prefetched (L2) one operating row
 * ahead, 16 rows down (the backend's next call), while long spans are
 * filtered: the pass otherwise waits on memory (frames far larger than
 * the caches). A hint only: those rows exist (mirrored like these).
 */
void SQ_X512(sq_vfilt_8bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                            const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,
                            const float *g, int taps, const int32_t *spans, int nspans, int w)
{
    const void *cr[SQ_MAX_TAPS], *pr[SQ_MAX_TAPS], *cn[SQ_MAX_TAPS], *pn[SQ_MAX_TAPS];
    const int nx = row + (1 << SQ_DECIM_SHIFT) < h ? row + (1 << SQ_DECIM_SHIFT) : row;
    (void)w;
    row_ptrs(cr, cur, cur_stride, h, row, taps);
    row_ptrs(cn, cur, cur_stride, h, nx, taps);
    if (prev) {
        row_ptrs(pr, prev, prev_stride, h, row, taps);
        row_ptrs(pn, prev, prev_stride, h, nx, taps);
        vfilt_run(SRC_U8_DIFF, dst, cr, pr, cn, pn, g, taps, spans, nspans, 1.0f);
    } else {
        vfilt_run(SRC_U8, dst, cr, NULL, cn, NULL, g, taps, spans, nspans, 1.0f);
    }
}

void SQ_X512(sq_vfilt_16bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                             const uint8_t *prev, ptrdiff_t prev_stride, float scale, int h,
                             int row, const float *g, int taps, const int32_t *spans, int nspans,
                             int w)
{
    const void *cr[SQ_MAX_TAPS], *pr[SQ_MAX_TAPS], *cn[SQ_MAX_TAPS], *pn[SQ_MAX_TAPS];
    const int nx = row + (1 << SQ_DECIM_SHIFT) < h ? row + (1 << SQ_DECIM_SHIFT) : row;
    (void)w;
    row_ptrs(cr, cur, cur_stride, h, row, taps);
    row_ptrs(cn, cur, cur_stride, h, nx, taps);
    if (prev) {
        row_ptrs(pr, prev, prev_stride, h, row, taps);
        row_ptrs(pn, prev, prev_stride, h, nx, taps);
        vfilt_run(SRC_U16_DIFF, dst, cr, pr, cn, pn, g, taps, spans, nspans, scale);
    } else {
        vfilt_run(SRC_U16, dst, cr, NULL, cn, NULL, g, taps, spans, nspans, scale);
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

/*
 * vhfilt_8bpc: both anti-alias passes of one operating row, computing the
 * vertical pass only at the columns the decimated horizontal pass reads:
 * output j reads columns 16 j - r .. 16 j + r, taps of the 16 (9 of 16 at
 * the default taps 9). Outputs go 16 at a time: four windows of 64 bytes
 * per source row, each holding four outputs' columns; vpermb (AVX-512
 * VBMI) picks the samples a vector needs into its 32-bit lanes, zero
 * extended. A vector holds 4 offsets o (its 128-bit lanes) of the 4 outputs
 * of one window (its 32-bit lanes), so after the vertical taps a 4 x 4
 * transpose of 128-bit lanes gives one vector per offset over the 16
 * outputs, and the horizontal pass is taps multiplies and adds; offsets
 * past the last multiple of 4 take one vector over all 16 outputs, picked
 * from the 4 windows. A temporal difference prev - cur is picked from both
 * rows at once (vpermt2b: each 32-bit lane holds [prev, 0, cur, 0]) and
 * finished by vpmaddwd with (1, -1), exactly the integer prev - cur. Every
 * lane adds taps in increasing k from +0, products rounded (no FMA), as
 * sq_vfilter_raw and sq_hfilter_f32. Taps 9..15 (radius 4..7: a window of
 * 4 outputs fits 64 bytes, and fewer columns are worth picking); the
 * first output and outputs whose columns pass the right edge (mirrored
 * columns) are computed one by one (vh_edge); returns -1 for other taps or
 * fewer than 16 interior outputs. While a row is filtered, the same bytes
 * of the next operating row's source rows (16 rows down, the backend's
 * next call) are prefetched into L2: the passes wait on memory otherwise
 * (the rows come from frames far larger than the caches), and with the
 * hint the API bench's time drops by a third.
 */
#ifdef SQ_AVX512_EMU
#define SQ_VBMI
#else
#define SQ_VBMI __attribute__((target("avx512vbmi")))
#endif

#define VH_MAXT 15

/*
 * One output whose columns mirror at an edge: the vertical pass at the 16
 * columns from lo, which hold every column it reads (2 r + 1 <= 15 of
 * them, mirrored ones included), then its horizontal taps.
 */
static float vh_edge(const void *const *cr, const void *const *pr, const float *g, int taps,
                     int w, int j)
{
    const int r = taps >> 1;
    int lo = (j << SQ_DECIM_SHIFT) - r;
    lo = lo > w - 16 ? w - 16 : lo;
    lo = lo < 0 ? 0 : lo;
    __m512 acc = _mm512_setzero_ps();
    for (int k = 0; k < taps; k++) {
        const __m512 x = pr ? load16(SRC_U8_DIFF, cr[k], pr[k], lo, _mm512_set1_ps(1.0f), 0xffff)
                            : load16(SRC_U8, cr[k], NULL, lo, _mm512_set1_ps(1.0f), 0xffff);
        acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_set1_ps(g[k]), x));
    }
    float v[16];
    _mm512_storeu_ps(v, acc);
    float out = 0.0f;
    for (int k = 0; k < taps; k++) {
        const float prod = g[k] * v[sq_mirror((j << SQ_DECIM_SHIFT) - r + k, w) - lo];
        out = out + prod;
    }
    return out;
}

/* 4 x 4 transpose of 128-bit lanes: out[q] lane a = in[a] lane q. */
AI void vh_transpose4(__m512 *out, const __m512 *in)
{
    const __m512i v0 = _mm512_castps_si512(in[0]), v1 = _mm512_castps_si512(in[1]);
    const __m512i v2 = _mm512_castps_si512(in[2]), v3 = _mm512_castps_si512(in[3]);
    const __m512i t0 = _mm512_shuffle_i32x4(v0, v1, 0x44), t1 = _mm512_shuffle_i32x4(v0, v1, 0xee);
    const __m512i t2 = _mm512_shuffle_i32x4(v2, v3, 0x44), t3 = _mm512_shuffle_i32x4(v2, v3, 0xee);
    out[0] = _mm512_castsi512_ps(_mm512_shuffle_i32x4(t0, t2, 0x88));
    out[1] = _mm512_castsi512_ps(_mm512_shuffle_i32x4(t0, t2, 0xdd));
    out[2] = _mm512_castsi512_ps(_mm512_shuffle_i32x4(t1, t3, 0x88));
    out[3] = _mm512_castsi512_ps(_mm512_shuffle_i32x4(t1, t3, 0xdd));
}

/* The bytes idx picks of cw (and pw, diff) into their 32-bit lanes, zeros
 * elsewhere (vh_value finishes them). */
SQ_VBMI AI __m512i vh_pick(int diff, __mmask64 k, __m512i idx, __m512i cw, __m512i pw)
{
    if (diff)
        return _mm512_maskz_permutex2var_epi8(k, pw, idx, cw);
    return _mm512_maskz_permutexvar_epi8(k, idx, cw);
}

/*
 * The sample as a float: prev - cur (lane [prev, 0, cur, 0]); or, without
 * a difference, (v - 128) 2^24: the window's bytes were XORed with 0x80
 * (v - 128 as a signed byte) and picked into the top byte of the lane, and
 * the taps are scaled by 2^-24 to match (vh_run): both scalings are exact,
 * so every product is g (v - 128) rounded, as in the math core.
 */
AI __m512 vh_value(int diff, __m512i x)
{
    if (diff)
        return _mm512_cvtepi32_ps(_mm512_madd_epi16(x, _mm512_set1_epi32((int)0xffff0001u)));
    return _mm512_cvtepi32_ps(x);
}

/* diff indices: byte 0 picks prev's byte b (table pw, 0..63), byte 2 cur's
 * (table cw, 64 + b). */
AI __m512i vh_pair(__m512i b)
{
    return _mm512_or_si512(b, _mm512_slli_epi32(_mm512_add_epi32(b, _mm512_set1_epi32(64)), 16));
}

/* taps is a constant in each instance (vh_taps): the accumulators stay in registers. */
SQ_VBMI AI void vh_run(int diff, float *dst, const uint8_t *const *cr, const uint8_t *const *pr,
                       const uint8_t *const *cn, const uint8_t *const *pn, const float *g,
                       int taps, int w, int jend)
{
    const int r = taps >> 1, nc = taps >> 2, nrem = taps & 3;
    /* Byte indices (in the lowest byte of 32-bit lane i; others picked as
     * zero by the masks): chunk c, lane i = 4 o' + l: window byte
     * 16 l + 4 c + o'; remainder offset o, lane i = output i: byte
     * 16 (i & 3) + o of window i >> 2. diff: prev's byte (table pw, +64) at
     * byte 0 of the lane, cur's at byte 2. */
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i l16 = _mm512_slli_epi32(_mm512_and_si512(lane, _mm512_set1_epi32(3)), 4);
    const __m512i cidx = _mm512_add_epi32(l16, _mm512_srli_epi32(lane, 2));
    __m512i idx[VH_MAXT];
    for (int c = 0; c < nc; c++) {
        const __m512i b = _mm512_add_epi32(cidx, _mm512_set1_epi32(4 * c));
        idx[c] = diff ? vh_pair(b) : _mm512_slli_epi32(b, 24);
    }
    for (int m = 0; m < nrem; m++) {
        const __m512i b = _mm512_add_epi32(l16, _mm512_set1_epi32(4 * nc + m));
        idx[nc + m] = diff ? vh_pair(b) : _mm512_slli_epi32(b, 24);
    }
    /* diff: bytes 0 and 2 of each lane; else byte 3 */
    const __mmask64 kall = diff ? 0x5555555555555555ull : 0x8888888888888888ull;
    const float gscale = diff ? 1.0f : 0x1p-24f;
    for (int j0 = 1; j0 < jend; j0 += 16) {
        if (j0 + 16 > jend)
            j0 = jend - 16; /* the last block moves back over computed outputs */
        __mmask64 lm[4];
        ptrdiff_t wb[4];
        for (int a = 0; a < 4; a++) {
            wb[a] = ((ptrdiff_t)(j0 + 4 * a) << SQ_DECIM_SHIFT) - r;
            const ptrdiff_t lim = w - wb[a]; /* > 2 r: the window's outputs are interior */
            lm[a] = lim >= 64 ? ~0ull : (1ull << lim) - 1;
        }
        __m512 acc[VH_MAXT];
        for (int v = 0; v < taps; v++)
            acc[v] = _mm512_setzero_ps();
        for (int k = 0; k < taps; k++) {
            const __m512 gk = _mm512_set1_ps(g[k] * gscale);
            __m512i cw[4], pw[4];
            for (int a = 0; a < 4; a++) {
                cw[a] = _mm512_maskz_loadu_epi8(lm[a], cr[k] + wb[a]);
                pw[a] = diff ? _mm512_maskz_loadu_epi8(lm[a], pr[k] + wb[a]) : cw[a];
                if (!diff)
                    cw[a] = _mm512_xor_si512(cw[a], _mm512_set1_epi8((char)0x80));
            }
            /* the same bytes of the next operating row's source rows: a
             * hint only (the rows exist: mirrored like these) */
            _mm_prefetch((const char *)cn[k] + wb[0], _MM_HINT_T1);
            _mm_prefetch((const char *)cn[k] + wb[0] + 64, _MM_HINT_T1);
            _mm_prefetch((const char *)cn[k] + wb[0] + 128, _MM_HINT_T1);
            _mm_prefetch((const char *)cn[k] + wb[0] + 192, _MM_HINT_T1);
            if (diff) {
                _mm_prefetch((const char *)pn[k] + wb[0], _MM_HINT_T1);
                _mm_prefetch((const char *)pn[k] + wb[0] + 64, _MM_HINT_T1);
                _mm_prefetch((const char *)pn[k] + wb[0] + 128, _MM_HINT_T1);
                _mm_prefetch((const char *)pn[k] + wb[0] + 192, _MM_HINT_T1);
            }
            for (int c = 0; c < nc; c++)
                for (int a = 0; a < 4; a++) {
                    const __m512 x = vh_value(diff, vh_pick(diff, kall, idx[c], cw[a], pw[a]));
                    acc[4 * c + a] = _mm512_add_ps(acc[4 * c + a], _mm512_mul_ps(gk, x));
                }
            for (int m = 0; m < nrem; m++) {
                __m512i x = vh_pick(diff, kall & 0xffffull, idx[nc + m], cw[0], pw[0]);
                for (int a = 1; a < 4; a++)
                    x = _mm512_or_si512(x, vh_pick(diff, kall & (0xffffull << (16 * a)),
                                                   idx[nc + m], cw[a], pw[a]));
                acc[4 * nc + m] = _mm512_add_ps(acc[4 * nc + m],
                                                _mm512_mul_ps(gk, vh_value(diff, x)));
            }
        }
        /* acc[4 c + a] lane (o', l): offset 4 c + o' of output j0 + 4 a + l */
        __m512 hv[VH_MAXT];
        for (int c = 0; c < nc; c++)
            vh_transpose4(hv + 4 * c, acc + 4 * c);
        for (int m = 0; m < nrem; m++)
            hv[4 * nc + m] = acc[4 * nc + m];
        __m512 out = _mm512_setzero_ps();
        for (int o = 0; o < taps; o++)
            out = _mm512_add_ps(out, _mm512_mul_ps(_mm512_set1_ps(g[o]), hv[o]));
        _mm512_storeu_ps(dst + j0, out);
    }
}

SQ_VBMI int SQ_X512(sq_vhfilt_8bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                                    const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,
                                    const float *g, int taps, int w, int nout)
{
    const int r = taps >> 1;
    /* interior outputs 1 <= j < jend: 16 j + r < w, no mirrored column */
    int jend = w - 1 - r < 0 ? 0 : ((w - 1 - r) >> SQ_DECIM_SHIFT) + 1;
    jend = jend < nout ? jend : nout;
    if (taps < 9 || taps > VH_MAXT || !(taps & 1) || jend - 1 < 16)
        return -1;
    /* the 2^-24 tap scaling of vh_value must be exact: no tap near subnormal */
    for (int k = 0; !prev && k < taps; k++)
        if (g[k] != 0.0f && !(fabsf(g[k]) >= 0x1p-100f && fabsf(g[k]) <= 0x1p100f))
            return -1;
    const uint8_t *cr[VH_MAXT], *pr[VH_MAXT], *cn[VH_MAXT], *pn[VH_MAXT];
    for (int k = 0; k < taps; k++) {
        const int y = sq_mirror(row - r + k, h);
        cr[k] = cur + (ptrdiff_t)y * cur_stride;
        pr[k] = prev ? prev + (ptrdiff_t)y * prev_stride : NULL;
        /* the next operating row (the backend's next call) reads these */
        const int yn = row + (1 << SQ_DECIM_SHIFT) - r + k < h ? sq_mirror(row + (1 << SQ_DECIM_SHIFT) - r + k, h) : y;
        cn[k] = cur + (ptrdiff_t)yn * cur_stride;
        pn[k] = prev ? prev + (ptrdiff_t)yn * prev_stride : NULL;
    }
    const void *const *ce = (const void *const *)cr, *const *pe = prev ? (const void *const *)pr : NULL;
    switch (taps + !!prev) {
    case 9: vh_run(0, dst, cr, NULL, cn, NULL, g, 9, w, jend); break;
    case 10: vh_run(1, dst, cr, pr, cn, pn, g, 9, w, jend); break;
    case 11: vh_run(0, dst, cr, NULL, cn, NULL, g, 11, w, jend); break;
    case 12: vh_run(1, dst, cr, pr, cn, pn, g, 11, w, jend); break;
    case 13: vh_run(0, dst, cr, NULL, cn, NULL, g, 13, w, jend); break;
    case 14: vh_run(1, dst, cr, pr, cn, pn, g, 13, w, jend); break;
    case 15: vh_run(0, dst, cr, NULL, cn, NULL, g, 15, w, jend); break;
    default: vh_run(1, dst, cr, pr, cn, pn, g, 15, w, jend); break;
    }
    dst[0] = vh_edge(ce, pe, g, taps, w, 0);
    for (int j = jend; j < nout; j++)
        dst[j] = vh_edge(ce, pe, g, taps, w, j);
    return 0;
}
