/*
 * AVX-512 filters: simd/filter_tmpl.h over simd/vec_avx512.h (16 columns a
 * vector, masked tails), and vhfilt_8bpc, which has no twin at other levels
 * (it needs VBMI's byte permutes).
 */
#include <math.h>

#include "simd/vec_avx512.h"
#define SQ_T_NO_F32
#include "simd/filter_tmpl.h"

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
        const __m512 x = pr ? load_src(SRC_U8_DIFF, cr[k], pr[k], lo, _mm512_set1_ps(1.0f), V_ALL)
                            : load_src(SRC_U8, cr[k], NULL, lo, _mm512_set1_ps(1.0f), V_ALL);
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
