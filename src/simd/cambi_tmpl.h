/*
 * libvmaf's CAMBI (math/vmaf_cambi_scale.h) over VS_N 32-bit and VW_N
 * 16-bit lanes, written once for every SIMD level: included by
 * x86/cambi_avx2.c, x86/cambi_avx512.c and arm/cambi_neon.c after their
 * simd/vec_*.h. Every kernel is integer but the c-values' one f32
 * conversion and one f32 multiply per term, each lane doing the scalar
 * operations on its own pixel; tails take the scalar code, which is the
 * definition.
 *
 * hist_move: most columns of a row change nothing (the pixel leaving and
 * the one entering fall in the same histogram row, or neither is counted),
 * so VS_N columns' bins are compared at once and only the lanes that
 * change are visited, through bit masks (one for the pixels in, one for
 * those out): a branch per lane on whether it changes, and on which of the
 * two pixels count, was mispredicted where changes are scattered. A counted pixel's +-1 over the 2 pad + 1 counters
 * of its window goes as aligned vector blocks (vc_range) where the window
 * is inside the row. Counter updates commute (u16, mod 2^16): any order
 * gives the scalar code's counters.
 *
 * cvalue_row: a c-value is the largest w[d] p0 pm R[p0 + pm] over the terms
 * d that count (sq_vc_counts, the same test whatever first[] says), so each
 * lane takes every d with its own count mask. The f32 terms are not
 * negative, and R[] is finite with R[0] = 0, so every term is a finite
 * non-negative float (+0 at worst); such floats order as their bits do as
 * int32, and the running maximum is an integer max of bits, with a lane's
 * term that does not count replaced by +0 (which never wins, as in the
 * scalar code's strict comparison). Lanes whose term does not count gather
 * counters of their own value's column (in bounds: values are at most
 * 1024) and R[0]. A vector whose masked pixels share one value (flat areas,
 * where the mask is) loads its counters instead (vc_flat), and so does one
 * whose masked pixels hold two values (vc_pair: most of the others, at the
 * edges of bands), picking each lane's from its value's rows.
 *
 * The preprocessing's and mask's rows, and the pooling's passes: below.
 */
#include <stdint.h>
#include <string.h>

#include "cpu/dsp.h"
#include "math/vmaf_cambi_pool.h"

static const int32_t vc_iota[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

/* The VS_N columns from j of row r: each one's histogram row, or -1 (sq_vc_hist_bin). */
V_AI vs vc_bins(const uint16_t *img, const uint8_t *mask, int w, int h, int r, int j, vs nd1,
                vs lo1, vs hi1)
{
    if (r < 0 || r >= h)
        return vs_set1(-1);
    const int64_t o = (int64_t)r * w + j;
    const vs v = vs_u16((const uint8_t *)(img + o));
    const vs m = vs_u8(mask + o);
    const vs in = vs_and(vs_gt(m, vs_set1(0)), vs_and(vs_gt(v, lo1), vs_gt(hi1, v)));
    /* in ? v + nd : -1 */
    return vs_sub(vs_and(vs_add(v, nd1), in), vs_set1(1));
}

/*
 * The window's +-1 as whole vectors at addresses multiple of a vector:
 * consecutive columns of one value update overlapping windows, and a
 * vector loaded from a place a vector at another offset was just stored to
 * waits for the store (no forwarding between misaligned overlaps). Aligned,
 * every load of a block is the same block as the stores before it. ones:
 * VW_N zeros, n ones, 2 VW_N zeros; a block's increments are the VW_N
 * entries from VW_N - (its offset from the window's first counter).
 */
typedef struct VcOnes {
    int16_t v[3 * 64 + 66];
    int nb;
} VcOnes;

/*
 * Every window takes nb blocks, the most any offset needs: a count that
 * depends on the offset was a branch mispredicted half the time. The
 * blocks past a window's last add 0; they end fewer than 2 VW_N (at most
 * SQ_VC_HIST_SLACK) counters past it, and n <= 65 (ws^2 < SQ_VC_RECIP_N)
 * keeps the increments read inside v.
 */
static void vc_ones(VcOnes *o, int n)
{
    memset(o->v, 0, sizeof(o->v));
    for (int k = 0; k < n; k++)
        o->v[VW_N + k] = 1;
    o->nb = (VW_N - 1 + n + VW_N - 1) / VW_N;
}

/* sign (+-1) to the counters of histogram row bin within pad of column j. */
V_AI void vc_range(uint16_t *hist, int w, int bin, int j, int pad, int sign, const VcOnes *o)
{
    if (j - pad < 0 || j + pad >= w) {
        sq_vc_hist_range(hist, w, bin, j, pad, sign);
        return;
    }
    uint16_t *first = hist + (int64_t)bin * w + j - pad;
    const int off = (int)(((uintptr_t)first / 2) % VW_N);
    int16_t *blk = (int16_t *)(first - off);
    const int16_t *inc = o->v + VW_N - off;
    for (int b = 0; b < o->nb; b++) {
        const vw a = vw_load(blk + b * VW_N), d = vw_load(inc + b * VW_N);
        vw_store(blk + b * VW_N, sign > 0 ? vw_add(a, d) : vw_sub(a, d));
    }
}

/* The lanes of bits (each of bin[k]) to their windows, sign. */
V_AI void vc_lanes(uint16_t *hist, int w, int j, uint32_t bits, const int32_t *bin, int pad,
                   int sign, const VcOnes *o)
{
    for (; bits; bits &= bits - 1) {
        const int k = __builtin_ctz(bits);
        vc_range(hist, w, bin[k], j + k, pad, sign, o);
    }
}

/* Column j's change (sq_vc_hist_move's body): ba, br its bins in and out. */
V_AI void vc_change(uint16_t *hist, int w, int j, int pad, int ba, int br, const VcOnes *o)
{
    if (ba == br)
        return;
    if (ba >= 0)
        vc_range(hist, w, ba, j, pad, 1, o);
    if (br >= 0)
        vc_range(hist, w, br, j, pad, -1, o);
}

void V_NAME(sq_vc_hist_move)(const uint16_t *img, const uint8_t *mask, int w, int h, int add,
                             int rem, int pad, int nd, int lo, int hi, uint16_t *hist)
{
    if ((add < 0 || add >= h) && (rem < 0 || rem >= h))
        return;
    const vs nd1 = vs_set1(nd + 1), lo1 = vs_set1(lo - 1), hi1 = vs_set1(hi + 1);
    int32_t ba[VS_N], br[VS_N];
    VcOnes ones;
    vc_ones(&ones, 2 * pad + 1);
    int j = 0;
    for (; j + VS_N <= w; j += VS_N) {
        const vs a = vc_bins(img, mask, w, h, add, j, nd1, lo1, hi1);
        const vs r = vc_bins(img, mask, w, h, rem, j, nd1, lo1, hi1);
        /* the lanes whose bins differ: a's counted ones (bin >= 0) in, r's out */
        const uint32_t diff = vs_signs(vs_or(vs_gt(a, r), vs_gt(r, a)));
        if (!diff)
            continue;
        vs_store(ba, a);
        vs_store(br, r);
        vc_lanes(hist, w, j, diff & ~vs_signs(a), ba, pad, 1, &ones);
        vc_lanes(hist, w, j, diff & ~vs_signs(r), br, pad, -1, &ones);
    }
    for (; j < w; j++)
        vc_change(hist, w, j, pad, sq_vc_hist_bin(img, mask, w, h, add, j, nd, lo, hi),
                  sq_vc_hist_bin(img, mask, w, h, rem, j, nd, lo, hi), &ones);
}

/*
 * best with term d of VS_N lanes (m: the lanes it counts in), w[d] p0 pm
 * R[p0 + pm] as bits, else 0. A lane whose pm is 0 has the term +0, which
 * never wins (best is at least +0): when every counted lane's is, the
 * term, its gather of R[] above all, is skipped (most terms, in flat areas).
 */
V_AI vs vc_term(vs best, vs p0, vs p1, vs p2, vs m, int weight, const float *recip)
{
    const vs pm = vs_max(p1, p2);
    if (!vs_any(vs_and(m, vs_gt(pm, vs_set1(0)))))
        return best;
    const vs prod = vs_mul(vs_mul(vs_set1(weight), p0), pm);
    const vf r = vf_gather(recip, vs_and(vs_add(p0, pm), m));
    return vs_max(best, vs_and(vf_bits(vf_mul(vs_to_vf(prod), r)), m));
}

/*
 * VS_N pixels of one value v (flat areas, where the mask is): their
 * counters are VS_N consecutive ones of each histogram row, loaded, not
 * gathered, and the terms that count are v's (first[]).
 */
V_AI vs vc_flat(const uint16_t *hist, int w, int j, int v, vs m, const uint8_t *first,
                const SqVcParams *p, const float *recip)
{
    const int nd = p->nd, d0 = first[v];
    vs best = vs_set1(0);
    if (d0 == nd)
        return best;
    const uint16_t *h0 = hist + (int64_t)(v + nd) * w + j;
    const vs p0 = vs_u16((const uint8_t *)h0);
    for (int d = d0 == SQ_VC_ANY ? 0 : d0; d < nd; d++) {
        if (!sq_vc_counts(p, v, d))
            continue;
        const int64_t off = (int64_t)(d + 1) * w;
        best = vc_term(best, p0, vs_u16((const uint8_t *)(h0 + off)),
                       vs_u16((const uint8_t *)(h0 - off)), m, p->weight[d], recip);
    }
    return best;
}

/* The lanes of m whose term d counts (sq_vc_counts: va <= tvi[d] and va + d + 1 > vlt_luma). */
V_AI vs vc_counted(vs m, vs va, int d, const SqVcParams *p)
{
    return vs_and(m, vs_and(vs_gt(vs_set1(p->tvi[d] + 1), va),
                            vs_gt(vs_add(va, vs_set1(d + 1)), vs_set1(p->vlt_luma))));
}

/* VS_N counters from a, those of lanes sb from b. */
V_AI vs vc_pick(const uint16_t *a, const uint16_t *b, vs sb)
{
    const vs x = vs_u16((const uint8_t *)a);
    return vs_add(x, vs_and(vs_sub(vs_u16((const uint8_t *)b), x), sb));
}

/*
 * VS_N pixels whose masked lanes hold two values a and b (sb: the lanes of
 * b; the edges of bands): each lane's counters are its own value's, as the
 * gathers read them, loaded from both values' rows and picked. Unmasked
 * lanes, and lanes whose term does not count, pick counters of either
 * value (in bounds: both are values of the image): vc_term zeroes them.
 */
V_AI vs vc_pair(const uint16_t *hist, int w, int j, vs va, int a, int b, vs sb, vs m,
                const SqVcParams *p, const float *recip)
{
    const int nd = p->nd;
    const uint16_t *ha = hist + (int64_t)(a + nd) * w + j, *hb = hist + (int64_t)(b + nd) * w + j;
    const vs p0 = vc_pick(ha, hb, sb);
    vs best = vs_set1(0);
    for (int d = 0; d < nd; d++) {
        const vs cnt = vc_counted(m, va, d, p);
        if (!vs_any(cnt))
            continue;
        const int64_t off = (int64_t)(d + 1) * w;
        best = vc_term(best, p0, vc_pick(ha + off, hb + off, sb), vc_pick(ha - off, hb - off, sb),
                       cnt, p->weight[d], recip);
    }
    return best;
}

/* The lanes of v other than x, as an all-ones mask. */
V_AI vs vc_ne(vs v, int x)
{
    const vs vx = vs_set1(x);
    return vs_or(vs_gt(v, vx), vs_gt(vx, v));
}

void V_NAME(sq_vc_cvalue_row)(const uint16_t *img, const uint8_t *mask, const uint16_t *hist,
                              int w, int i, const uint8_t *first, const SqVcParams *p,
                              const float *recip, float *c)
{
    const int64_t o = (int64_t)i * w;
    const int nd = p->nd;
    const vs width = vs_set1(w), zero = vs_set1(0);
    int j = 0;
    for (; j + VS_N <= w; j += VS_N) {
        const vs m = vs_gt(vs_u8(mask + o + j), zero);
        const uint32_t mb = vs_signs(m);
        if (!mb) {
            vf_store(c + o + j, vf_zero());
            continue;
        }
        const vs v = vs_u16((const uint8_t *)(img + o + j));
        /* the masked lanes' values all v0: unmasked lanes' terms are 0 whatever they read */
        const int v0 = img[o + j + __builtin_ctz(mb)];
        const uint32_t ne0 = mb & vs_signs(vc_ne(v, v0));
        if (!ne0) {
            vf_store(c + o + j, vs_as_vf(vc_flat(hist, w, j, v0, m, first, p, recip)));
            continue;
        }
        const vs va = vs_add(v, vs_set1(nd));
        const int v1 = img[o + j + __builtin_ctz(ne0)];
        const vs ne1 = vc_ne(v, v1);
        if (!(ne0 & vs_signs(ne1))) {
            const vs sb = vs_sub(vs_set1(-1), ne1);
            vf_store(c + o + j, vs_as_vf(vc_pair(hist, w, j, va, v0, v1, sb, m, p, recip)));
            continue;
        }
        const vs col = vs_add(vs_load(vc_iota), vs_set1(j));
        const vs p0 = vs_gather_u16(hist, vs_add(vs_mul(va, width), col));
        vs best = zero;
        for (int d = 0; d < nd; d++) {
            const vs cnt = vc_counted(m, va, d, p);
            if (!vs_any(cnt))
                continue;
            const vs p1 = vs_gather_u16(hist, vs_add(vs_mul(vs_add(va, vs_set1(d + 1)), width), col));
            const vs p2 = vs_gather_u16(hist, vs_add(vs_mul(vs_sub(va, vs_set1(d + 1)), width), col));
            best = vc_term(best, p0, p1, p2, cnt, p->weight[d], recip);
        }
        vf_store(c + o + j, vs_as_vf(best));
    }
    for (; j < w; j++)
        c[o + j] = sq_vc_cvalue_at(img, mask, hist, w, i, j, first, p, recip);
}

#include "simd/cambi_pool_tmpl.h"

/*
 * The preprocessing's and the mask's rows in 16-bit lanes: values are
 * 10-bit codes (at most 1024), so the dither's four-value sums fit, and
 * the mask's 7x7 sums are at most 49. The dither loads a vector's
 * neighbours before storing it, as the scalar code reads its right
 * neighbour before writing it.
 */
/* 8-bit planar samples as 10-bit codes (v << 2) in 16-bit lanes; other layouts the math's row. */
void V_NAME(sq_vc_convert_row)(const uint8_t *src, int64_t stride, int acc, int bpc, int w, int i,
                               uint16_t *img)
{
    if (acc != 0 || bpc != 8) {
        sq_vc_convert_row(src, stride, acc, bpc, w, i, img);
        return;
    }
    const uint8_t *row = src + (int64_t)i * stride;
    int16_t *out = (int16_t *)(img + (int64_t)i * w);
    int j = 0;
    for (; j + VW_N <= w; j += VW_N) {
        const vw v = vw_u8(row + j), d = vw_add(v, v);
        vw_store(out + j, vw_add(d, d));
    }
    for (; j < w; j++)
        out[j] = (int16_t)(row[j] << 2);
}

void V_NAME(sq_vc_dither_row)(uint16_t *img, int w, int h, int i)
{
    uint16_t *p = img + (int64_t)i * w;
    int16_t *ps = (int16_t *)p;
    const int16_t *qs = ps + w;
    const int last = i == h - 1;
    int j = 0;
    for (; j + VW_N < w; j += VW_N) {
        const vw s = vw_add(vw_load(ps + j), vw_load(ps + j + 1));
        if (last)
            vw_store(ps + j, vw_srl(s, 1));
        else
            vw_store(ps + j, vw_srl(vw_add(s, vw_add(vw_load(qs + j), vw_load(qs + j + 1))), 2));
    }
    for (; j < w; j++)
        p[j] = sq_vc_dither_at(p, w, last, j);
}

void V_NAME(sq_vc_zero_row)(const uint16_t *img, int w, int h, int i, uint8_t *zero)
{
    const uint16_t *p = img + (int64_t)i * w;
    const int16_t *ps = (const int16_t *)p, *qs = ps + w;
    uint8_t *z = zero + (int64_t)i * w;
    const int last = i == h - 1;
    const vw one = vw_set1(1);
    int j = 0;
    for (; j + VW_N < w; j += VW_N) {
        const vw a = vw_load(ps + j);
        vw e = vw_eq(a, vw_load(ps + j + 1));
        if (!last)
            e = vw_and(e, vw_eq(a, vw_load(qs + j)));
        vw_store_u8(z + j, vw_and(e, one));
    }
    for (; j < w; j++)
        z[j] = sq_vc_zero_at(p, w, last, j);
}

/* colsum[j] + add[j] - rem[j] at each of w columns, modulo 2^16 (rows of Z: 0 or 1). */
void V_NAME(sq_vc_colsum_move)(const uint8_t *add, const uint8_t *rem, int w, uint16_t *colsum)
{
    int16_t *cs = (int16_t *)colsum;
    int j = 0;
    for (; j + VW_N <= w; j += VW_N)
        vw_store(cs + j, vw_sub(vw_add(vw_load(cs + j), vw_u8(add + j)), vw_u8(rem + j)));
    for (; j < w; j++)
        sq_vc_colsum_move_at(add, rem, j, colsum);
}

/*
 * sq_vc_decimate_row: the even samples of row 2i as u32 pairs with their
 * high halves dropped (images), the even bytes as 16-bit lanes' low
 * halves (masks). Each vector is loaded before its store, which lands
 * below every sample still to be read (row 0 in place).
 */
void V_NAME(sq_vc_decimate_row)(uint16_t *img, uint8_t *mask, int pw, int cw, int i)
{
    const int64_t from = (int64_t)2 * i * pw, to = (int64_t)i * cw;
    const vs lo16 = vs_set1(0xffff);
    int j = 0;
    for (; 2 * (j + VS_N) <= pw; j += VS_N)
        vs_store16((int16_t *)img + to + j, vs_and(vs_load((const int32_t *)(img + from) + j), lo16));
    for (; j < cw; j++)
        img[to + j] = img[from + 2 * j];
    for (j = 0; 2 * (j + VW_N) <= pw; j += VW_N)
        vw_store_u8(mask + to + j, vw_lo8(mask + from + 2 * j));
    for (; j < cw; j++)
        mask[to + j] = mask[from + 2 * j];
}

void V_NAME(sq_vc_mask_row)(const uint16_t *colsum, int w, int i, int mask_index, uint8_t *mask)
{
    const int mh = SQ_VC_MASK_SIDE >> 1;
    const int16_t *cs = (const int16_t *)colsum;
    uint8_t *m = mask + (int64_t)i * w;
    const vw mi = vw_set1((int16_t)(mask_index < -32768 ? -32768 : mask_index > 32767 ? 32767 : mask_index));
    const vw one = vw_set1(1);
    int j = 0;
    for (; j < mh && j < w; j++)
        m[j] = (uint8_t)(sq_vc_mask_sum(colsum, w, j) > mask_index);
    for (; j + VW_N + mh <= w; j += VW_N) {
        vw s = vw_load(cs + j - mh);
        for (int k = 1 - mh; k <= mh; k++)
            s = vw_add(s, vw_load(cs + j + k));
        vw_store_u8(m + j, vw_and(vw_gt(s, mi), one));
    }
    for (; j < w; j++)
        m[j] = (uint8_t)(sq_vc_mask_sum(colsum, w, j) > mask_index);
}

/*
 * The mode filter's rows (sq_vc_mode_h, and sq_vc_mode3 of three rows) in
 * 16-bit lanes: values are at most 1024, so the signed compares order them
 * as the scalar code's unsigned ones (vc_sel: exact modulo 2^16).
 */
/* m ? x : y lane by lane (m all ones or 0), as y + ((x - y) & m), exact modulo 2^16. */
V_AI vw vc_sel(vw x, vw y, vw m)
{
    return vw_add(y, vw_and(vw_sub(x, y), m));
}

/* sq_vc_mode3 lane by lane: a if it equals b or c, else b if b == c, else the smallest. */
V_AI vw vc_mode3(vw a, vw b, vw c)
{
    const vw ab = vc_sel(b, a, vw_gt(a, b));
    const vw r = vc_sel(b, vc_sel(c, ab, vw_gt(ab, c)), vw_eq(b, c));
    return vc_sel(a, vc_sel(a, r, vw_eq(a, c)), vw_eq(a, b));
}

void V_NAME(sq_vc_mode_h)(const uint16_t *src, int w, uint16_t *dst)
{
    const int16_t *s = (const int16_t *)src;
    if (w < VW_N + 2) {
        sq_vc_mode_h(src, w, dst);
        return;
    }
    dst[0] = src[0];
    int j = 1;
    for (; j + VW_N < w; j += VW_N)
        vw_store((int16_t *)dst + j, vc_mode3(vw_load(s + j - 1), vw_load(s + j), vw_load(s + j + 1)));
    for (; j < w - 1; j++)
        dst[j] = sq_vc_mode3(src[j - 1], src[j], src[j + 1]);
    dst[w - 1] = src[w - 1];
}

void V_NAME(sq_vc_mode_v)(const uint16_t *a, const uint16_t *b, const uint16_t *c, int w,
                          uint16_t *out)
{
    int j = 0;
    for (; j + VW_N <= w; j += VW_N)
        vw_store((int16_t *)out + j, vc_mode3(vw_load((const int16_t *)a + j),
                                              vw_load((const int16_t *)b + j),
                                              vw_load((const int16_t *)c + j)));
    for (; j < w; j++)
        out[j] = sq_vc_mode3(a[j], b[j], c[j]);
}
