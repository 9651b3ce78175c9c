/*
 * The anti-alias filters and the local mean, written once for every SIMD
 * level: included by x86/filter_avx2.c, x86/filter_avx512.c and
 * arm/filter_neon.c after their simd/vec_*.h. FV_N columns (or VF_N
 * outputs) per vector, each lane doing the scalar sequence of
 * math/filter.h: taps in increasing k, product rounded to float, then added
 * (a multiply, then an add; never FMA). Sample conversion is exact in
 * float for every bit depth, so the integer forms of the vec headers
 * ((float)(v - 128), (float)(p - c) * scale) give the same bits as the math
 * core's (float)v * scale + -128 and its difference. Tails: the last vector
 * moves back over complete columns, or with V_MASKED is masked (any width
 * and span, no scalar remainder). SQ_T_NO_F32 leaves out vfilt_f32 and
 * hfilt_dec (AVX-512 keeps AVX2's: x86/init_avx512.c).
 */
#include <string.h>

#include "cpu/dsp.h"
#include "math/filter.h"

enum { SRC_U8, SRC_U8_DIFF, SRC_U16, SRC_U16_DIFF, SRC_F32 };

/* FV_N converted samples at column c (lanes outside m: read nothing). */
V_AI fv load_src(int mode, const void *cur, const void *prev, int c, fv scale, vmask m)
{
    const uint8_t *cb = (const uint8_t *)cur, *pb = (const uint8_t *)prev;
    switch (mode) {
    case SRC_U8:
        return fv_u8_m128(cb + c, m);
    case SRC_U8_DIFF:
        return fv_u8_diff(pb + c, cb + c, m);
    case SRC_U16:
        return fv_add(fv_mul(fv_u16(cb + 2 * (ptrdiff_t)c, m), scale), fv_set1(-128.0f));
    case SRC_U16_DIFF:
        return fv_mul(fv_u16_diff(pb + 2 * (ptrdiff_t)c, cb + 2 * (ptrdiff_t)c, m), scale);
    default:
        return fv_loadt((const float *)cur + c, m);
    }
}

/*
 * speedqa_send refuses 16-bit planes at odd addresses or strides, so this
 * load is aligned; memcpy only keeps it clear of strict aliasing, as the
 * row arrives as bytes.
 */
V_AI uint32_t u16_at(const void *row, int c)
{
    uint16_t v;
    memcpy(&v, (const uint8_t *)row + 2 * (ptrdiff_t)c, sizeof(v));
    return v;
}

#if !V_MASKED
V_AI float load1(int mode, const void *cur, const void *prev, int c, float scale)
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
#endif

/* nv (1..4) vectors of complete columns at c, the last one's lanes mt. */
V_AI void cols(int mode, int nv, float *dst, const void *const *cr, const void *const *pr,
               const float *g, int taps, int c, fv scale, vmask mt)
{
    fv a[4];
    for (int q = 0; q < nv; q++)
        a[q] = fv_zero();
    for (int k = 0; k < taps; k++) {
        const fv gk = fv_set1(g[k]);
        const void *p = pr ? pr[k] : NULL;
        for (int q = 0; q < nv; q++)
            a[q] = fv_add(a[q], fv_mul(gk, load_src(mode, cr[k], p, c + FV_N * q, scale,
                                                    q == nv - 1 ? mt : V_ALL)));
    }
    for (int q = 0; q < nv; q++)
        fv_storet(dst + c + FV_N * q, a[q], q == nv - 1 ? mt : V_ALL);
}

/* Prefetch (L2) the line holding byte b of rows nx[0 .. nt) (and np's). */
V_AI void pf_rows(int nt, const void *const *nx, const void *const *np, ptrdiff_t b)
{
    for (int t = 0; t < nt; t++) {
        v_prefetch_l2((const char *)nx[t] + b);
        if (np)
            v_prefetch_l2((const char *)np[t] + b);
    }
}

/* Adds taps k0 .. k0 + nt - 1 to the partial sums dst[a .. e) (k0 = 0: from +0),
 * V_ROWS_UNROLL vectors a step; e - a is whole vectors unless V_MASKED. cn,
 * pn (or NULL): the rows of the next operating row, prefetched alongside. */
V_AI void rows_pass(int mode, int nt, float *dst, const void *const *cr, const void *const *pr,
                    const void *const *cn, const void *const *pn, const float *g, int k0, int a,
                    int e, fv scale)
{
    enum { U = V_ROWS_UNROLL };
    fv gk[4];
    const void *ck[4], *pk[4], *cx[4], *px[4];
    const int bps = mode == SRC_U16 || mode == SRC_U16_DIFF ? 2 : 1;
    for (int t = 0; t < nt; t++) {
        gk[t] = fv_set1(g[k0 + t]);
        ck[t] = cr[k0 + t];
        pk[t] = pr ? pr[k0 + t] : NULL;
        cx[t] = cn ? cn[k0 + t] : NULL;
        px[t] = pn ? pn[k0 + t] : NULL;
    }
    int c = a;
    for (; c + U * FV_N <= e; c += U * FV_N) {
        if (V_PREFETCH && cn && !(((c - a) * bps) & 63))
            pf_rows(nt, cx, pn ? px : NULL, (ptrdiff_t)c * bps);
        fv acc[U];
        for (int u = 0; u < U; u++)
            acc[u] = k0 ? fv_loadt(dst + c + FV_N * u, V_ALL) : fv_zero();
        for (int t = 0; t < nt; t++)
            for (int u = 0; u < U; u++)
                acc[u] = fv_add(acc[u], fv_mul(gk[t], load_src(mode, ck[t], pk[t], c + FV_N * u,
                                                               scale, V_ALL)));
        for (int u = 0; u < U; u++)
            fv_storet(dst + c + FV_N * u, acc[u], V_ALL);
    }
    for (; c < e; c += FV_N) {
        const vmask m = v_mask(e - c);
        fv a0 = k0 ? fv_loadt(dst + c, m) : fv_zero();
        for (int t = 0; t < nt; t++)
            a0 = fv_add(a0, fv_mul(gk[t], load_src(mode, ck[t], pk[t], c, scale, m)));
        fv_storet(dst + c, a0, m);
    }
}

/* The columns of one span [a, e) of at least FV_N (or any, with V_MASKED). */
V_AI void vfilt_span(int mode, float *dst, const void *const *cr, const void *const *pr,
                     const void *const *cn, const void *const *pn, const float *g, int taps,
                     int a, int e, fv vs)
{
    if (e - a >= 8 * FV_N) {
        /* Long span: a few source rows at a time, the partial sums in dst
         * (same per-column order), so rows stream sequentially. */
        const int ev = V_MASKED ? e : a + ((e - a) & ~(FV_N - 1)), np = (taps + 3) / 4;
        for (int p = 0, k = 0; p < np; p++) {
            const int t = (taps - k) / (np - p); /* 1..4 taps this pass */
            switch (t) {
            case 1: rows_pass(mode, 1, dst, cr, pr, cn, pn, g, k, a, ev, vs); break;
            case 2: rows_pass(mode, 2, dst, cr, pr, cn, pn, g, k, a, ev, vs); break;
            case 3: rows_pass(mode, 3, dst, cr, pr, cn, pn, g, k, a, ev, vs); break;
            default: rows_pass(mode, 4, dst, cr, pr, cn, pn, g, k, a, ev, vs); break;
            }
            k += t;
        }
        if (ev < e) /* complete columns, overwriting the partial ones */
            cols(mode, 1, dst, cr, pr, g, taps, e - FV_N, vs, V_ALL);
        return;
    }
    int c = a;
    for (; c + 4 * FV_N <= e; c += 4 * FV_N)
        cols(mode, 4, dst, cr, pr, g, taps, c, vs, V_ALL);
    for (; c + (V_MASKED ? 1 : FV_N) <= e; c += FV_N)
        cols(mode, 1, dst, cr, pr, g, taps, c, vs, v_mask(e - c));
    if (c < e)
        cols(mode, 1, dst, cr, pr, g, taps, e - FV_N, vs, V_ALL);
}

V_AI void vfilt_run(int mode, float *dst, const void *const *cr, const void *const *pr,
                    const void *const *cn, const void *const *pn, const float *g, int taps,
                    const int32_t *spans, int nspans, int w, float scale)
{
    const fv vs = fv_set1(scale);
    (void)w;
    for (int s = 0; s < nspans;) {
        int a = spans[2 * s], e = spans[2 * s + 1];
        /* A gap narrower than a vector costs less computed than skipped. */
        for (s++; s < nspans && spans[2 * s] - e < FV_N; s++)
            e = spans[2 * s + 1];
#if !V_MASKED
        if (w < FV_N) {
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
        /* a short span at the left edge widens to one vector inside [0, w) */
        if (e < FV_N)
            e = FV_N;
#endif
        vfilt_span(mode, dst, cr, pr, cn, pn, g, taps, a, e, vs);
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
 * filtered (V_PREFETCH): the pass otherwise waits on memory (frames far
 * larger than the caches). A hint only: those rows exist (mirrored like these).
 */
V_AI void vfilt_raw(int mode, float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
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
        vfilt_run(mode + 1, dst, cr, pr, cn, pn, g, taps, spans, nspans, w, scale);
    } else {
        vfilt_run(mode, dst, cr, NULL, cn, NULL, g, taps, spans, nspans, w, scale);
    }
}

void V_NAME(sq_vfilt_8bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                           const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,
                           const float *g, int taps, const int32_t *spans, int nspans, int w)
{
    vfilt_raw(SRC_U8, dst, cur, cur_stride, prev, prev_stride, 1.0f, h, row, g, taps, spans,
              nspans, w);
}

void V_NAME(sq_vfilt_16bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                            const uint8_t *prev, ptrdiff_t prev_stride, float scale, int h,
                            int row, const float *g, int taps, const int32_t *spans, int nspans,
                            int w)
{
    vfilt_raw(SRC_U16, dst, cur, cur_stride, prev, prev_stride, scale, h, row, g, taps, spans,
              nspans, w);
}

void V_NAME(sq_or_16bpc)(uint32_t *acc, const uint8_t *row, int w)
{
    vi b0 = vi_zero(), b1 = b0;
    int x = 0;
    for (; x + 2 * VI_N16 <= w; x += 2 * VI_N16) {
        b0 = vi_or(b0, vi_load(row + 2 * (ptrdiff_t)x));
        b1 = vi_or(b1, vi_load(row + 2 * (ptrdiff_t)x + 2 * VI_N16));
    }
    uint32_t bits = *acc;
#if V_MASKED
    for (; x < w; x += VI_N16)
        b0 = vi_or(b0, vi_load16n(row + 2 * (ptrdiff_t)x, w - x));
#else
    for (; x < w; x++)
        bits |= u16_at(row, x);
#endif
    uint16_t lanes[VI_N16];
    vi_store16(lanes, vi_or(b0, b1));
    for (int i = 0; i < VI_N16; i++)
        bits |= lanes[i];
    *acc = bits;
}

void V_NAME(sq_local_mean)(float *dst, const float *op, const float *mrow, int w,
                           const float *g, int taps)
{
    const int r = taps >> 1;
    int j = 0;
    /* Interior outputs [r, w - r) need no mirror. */
    if (w - 2 * r >= VF_N) {
        for (; j < r; j++)
            dst[j] = sq_local_mean_at(mrow, w, op, g, taps, j);
        for (; j < w - r; j += VF_N) {
            const int j0 = V_MASKED || j + VF_N <= w - r ? j : w - r - VF_N;
            const vmask m = v_mask(w - r - j0);
            vf acc = vf_zero();
            for (int k = 0; k < taps; k++)
                acc = vf_add(acc, vf_mul(vf_set1(g[k]), vf_loadt(mrow + j0 - r + k, m)));
            vf_storet(dst + j0, vf_sub(vf_loadt(op + j0, m), acc), m);
        }
        j = w - r;
    }
    for (; j < w; j++)
        dst[j] = sq_local_mean_at(mrow, w, op, g, taps, j);
}

#ifndef SQ_T_NO_F32
void V_NAME(sq_vfilt_f32)(float *dst, const float *img, ptrdiff_t stride, int h, int row,
                          const float *g, int taps, const int32_t *spans, int nspans, int w)
{
    const void *cr[SQ_MAX_TAPS];
    row_ptrs(cr, (const uint8_t *)img, stride * (ptrdiff_t)sizeof(float), h, row, taps);
    vfilt_run(SRC_F32, dst, cr, NULL, NULL, NULL, g, taps, spans, nspans, w, 1.0f);
}

/*
 * Decimated horizontal pass, VF_N outputs j0 .. at a time: output j reads
 * src[16 j + o], |o| <= r <= 7. Transposing ng VF_N x VF_N blocks of
 * src[16 j - r + q] turns each tap offset into one vector over j; a last
 * lone column (taps 9 over 4 or 8 lanes) is gathered instead. ng is a
 * constant in each instance, so the blocks stay in registers.
 */
/* the most blocks: 15 taps */
#define HDEC_MAXG ((15 + VF_N - 1) / VF_N)

V_AI void hdec_block(float *dst, const float *p, const float *g, int taps, int ng, int lone)
{
    vf v[HDEC_MAXG * VF_N + 1];
    for (int q = 0; q < ng; q++) {
        for (int i = 0; i < VF_N; i++)
            v[VF_N * q + i] = vf_load(p + (i << SQ_DECIM_SHIFT) + VF_N * q);
        vf_transpose(v + VF_N * q);
    }
    if (lone)
        v[taps - 1] = vf_gather16(p + taps - 1);
    vf acc = vf_zero();
    for (int k = 0; k < taps; k++)
        acc = vf_add(acc, vf_mul(vf_set1(g[k]), v[k]));
    vf_store(dst, acc);
}

void V_NAME(sq_hfilt_dec)(float *dst, const float *src, int w, const float *g, int taps,
                          int nout)
{
    const int r = taps >> 1;
    int j = 0;
    if (r <= 7 && nout >= VF_N + 1 && (nout << SQ_DECIM_SHIFT) <= w) {
        /* j = 0 mirrors at the left edge; 16 (nout - 1) + 15 < w needs no
         * mirror, and the columns read stay within offsets -7 .. 14 */
        dst[0] = sq_hfilter_f32(src, w, g, taps, 0);
        const int lone = taps % VF_N == 1, ng = (taps - lone + VF_N - 1) / VF_N;
        for (j = 1; j < nout; j += VF_N) {
            const int j0 = j + VF_N <= nout ? j : nout - VF_N;
            const float *p = src + (j0 << SQ_DECIM_SHIFT) - r;
            switch (ng) {
            case 0: hdec_block(dst + j0, p, g, taps, 0, lone); break;
            case 1: hdec_block(dst + j0, p, g, taps, 1, lone); break;
#if VF_N < 8
            case 2: hdec_block(dst + j0, p, g, taps, 2, lone); break;
            case 3: hdec_block(dst + j0, p, g, taps, 3, lone); break;
#endif
            default: hdec_block(dst + j0, p, g, taps, HDEC_MAXG, lone); break;
            }
        }
        return;
    }
    for (; j < nout; j++)
        dst[j] = sq_hfilter_f32(src, w, g, taps, j << SQ_DECIM_SHIFT);
}
#endif
