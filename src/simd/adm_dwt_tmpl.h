/*
 * libvmaf's integer ADM DWT (math/vmaf_adm_dwt.h, sq_va_dwt_plane) for the
 * SIMD levels. Scale 0 takes its taps in pairs of int16 (vs_madd16) for
 * bytes and in the horizontal pass, in 64-bit lanes for 16-bit containers
 * (other layouts: the math's vertical row built for the ISA). Scales 1..3
 * compute their i64 tap sums in 64-bit lanes (vq): their inputs are int32
 * and the taps below 2^15, so each product is a signed 32 x 32 -> 64
 * multiply and the sum is exact; the int32 results are the low halves
 * after the shift (at most 16), which a logical shift leaves as the
 * arithmetic one does. Included by simd/adm_tmpl.h.
 */
#include "math/vmaf_adm_dwt.h"

/* v stored into an int16 (wrapping) */
V_AI vs adm_i16(vs v)
{
    return vs_sra(vs_sll(v, 16), 16);
}

/* sum of the taps k0..k3 over x0..x3, rounded by add and shifted by s, in vq lanes */
V_AI vq adm_taps(vq x0, vq x1, vq x2, vq x3, int k0, int k1, int k2, int k3, vq add, int s)
{
    const vq a = vq_add(vq_mul_s(x0, vq_set1(k0)), vq_mul_s(x1, vq_set1(k1)));
    const vq b = vq_add(vq_mul_s(x2, vq_set1(k2)), vq_mul_s(x3, vq_set1(k3)));
    return vq_srl(vq_add(vq_add(a, b), add), s);
}

/* sq_va_dwt_vs_row: the vertical pass of output row i over the previous scale's a */
static void adm_dwt_vs_row(const int32_t *src, int w, int h, int scale, int i, int32_t *lo,
                           int32_t *hi)
{
    const int32_t *r0 = src + (int64_t)sq_va_mirror(2 * i - 1, h) * w,
                  *r1 = src + (int64_t)sq_va_mirror(2 * i, h) * w,
                  *r2 = src + (int64_t)sq_va_mirror(2 * i + 1, h) * w,
                  *r3 = src + (int64_t)sq_va_mirror(2 * i + 2, h) * w;
    /* the next output row's two new rows into L2 meanwhile: the previous scale's a has
     * left the cache since its DWT wrote it */
    const int32_t *n2 = src + (int64_t)sq_imin(2 * i + 3, h - 1) * w,
                  *n3 = src + (int64_t)sq_imin(2 * i + 4, h - 1) * w;
    const int s = sq_va_vshift(scale);
    const vq add = vq_set1(sq_va_half(s));
    int j = 0;
    for (; j + VS_N <= w; j += VS_N) {
        v_prefetch_l2(n2 + j);
        v_prefetch_l2(n3 + j);
        const vs x0 = vs_load(r0 + j), x1 = vs_load(r1 + j), x2 = vs_load(r2 + j),
                 x3 = vs_load(r3 + j);
        const vq e0 = vq_even(x0), e1 = vq_even(x1), e2 = vq_even(x2), e3 = vq_even(x3);
        const vq o0 = vq_odd(x0), o1 = vq_odd(x1), o2 = vq_odd(x2), o3 = vq_odd(x3);
        vs_store(lo + j, vs_pack_lo(adm_taps(e0, e1, e2, e3, 15826, 27411, 7345, -4240, add, s),
                                    adm_taps(o0, o1, o2, o3, 15826, 27411, 7345, -4240, add, s)));
        vs_store(hi + j, vs_pack_lo(adm_taps(e0, e1, e2, e3, -4240, -7345, 27411, -15826, add, s),
                                    adm_taps(o0, o1, o2, o3, -4240, -7345, 27411, -15826, add, s)));
    }
    for (; j < w; j++)
        sq_va_dwt_vs(src, w, h, scale, i, j, lo, hi);
}

/*
 * sq_va_dwt_h_row at scales 1..3: a vector of VS_N int32 read from 2c - 1
 * holds in its 64-bit lanes the taps 0 (low halves) and 1 (high halves)
 * of VD_N outputs from c on, one read from 2c + 1 their taps 2 and 3. The
 * columns whose taps the mirror moves take the math's code.
 */
static void adm_dwt_hs_row(const int32_t *lo, const int32_t *hi, int w, int scale,
                           int32_t *const *band, int64_t at)
{
    const int w2 = (w + 1) / 2, c1 = sq_imax(1, sq_imin((w - 1) / 2, w2));
    const int s = sq_va_hshift(scale);
    const vq add = vq_set1(sq_va_half(s));
    int32_t *ba = band[SQ_VA_A] + at, *bv = band[SQ_VA_V] + at, *bh = band[SQ_VA_H] + at,
            *bd = band[SQ_VA_D] + at;
    sq_va_dwt_h(lo, hi, w, scale, 0, 0, band, at);
    int c = 1;
    for (; c + VD_N <= c1; c += VD_N) {
        const vs l01 = vs_load(lo + 2 * c - 1), l23 = vs_load(lo + 2 * c + 1);
        const vs g01 = vs_load(hi + 2 * c - 1), g23 = vs_load(hi + 2 * c + 1);
        const vq l0 = vq_even(l01), l1 = vq_odd(l01), l2 = vq_even(l23), l3 = vq_odd(l23);
        const vq g0 = vq_even(g01), g1 = vq_odd(g01), g2 = vq_even(g23), g3 = vq_odd(g23);
        vq_store_i32(ba + c, adm_taps(l0, l1, l2, l3, 15826, 27411, 7345, -4240, add, s));
        vq_store_i32(bv + c, adm_taps(l0, l1, l2, l3, -4240, -7345, 27411, -15826, add, s));
        vq_store_i32(bh + c, adm_taps(g0, g1, g2, g3, 15826, 27411, 7345, -4240, add, s));
        vq_store_i32(bd + c, adm_taps(g0, g1, g2, g3, -4240, -7345, 27411, -15826, add, s));
    }
    for (; c < w2; c++)
        sq_va_dwt_h(lo, hi, w, scale, c, 0, band, at + c);
}

/*
 * one band of scale 0: i16((k0 x0 + k1 x1 + k2 x2 + k3 x3 + 2^15) >> 16) of
 * int16 pairs, without the i16: |sum| <= 54822 * 2^15, so the result is
 * within +-27412 already
 */
V_AI vs adm_taps0(vs p01, vs p23, int k0, int k1, int k2, int k3)
{
    const vs s = vs_add(vs_madd16(p01, k0, k1), vs_madd16(p23, k2, k3));
    return vs_sra(vs_add(s, vs_set1(32768)), 16);
}

/*
 * sq_va_dwt_v0_row for 16-bit containers (any shift, no step): samples
 * below 2^16 make tap sums past 2^31, so they are vq's (the shift by bpc <=
 * 16 leaves the low halves a logical shift gives).
 */
static void adm_dwt_v16_row(const uint8_t *src, ptrdiff_t stride, int acc, int h, int bpc, int i,
                            int w, int32_t *lo, int32_t *hi)
{
    const uint8_t *r[4];
    sq_va_taprows(src, stride, h, i, r);
    const int sh = (acc >> 2) & 15;
    const int64_t rnd = (int64_t)1 << (bpc - 1);
    const vq al = vq_set1(rnd - 46342 * rnd), ah = vq_set1(rnd);
    int j = 0;
    for (; j + VS_N <= w; j += VS_N) {
        vs x[4];
        for (int k = 0; k < 4; k++)
            x[k] = vs_srl(vs_u16(r[k] + 2 * (ptrdiff_t)j), sh);
        const vq e0 = vq_even(x[0]), e1 = vq_even(x[1]), e2 = vq_even(x[2]), e3 = vq_even(x[3]);
        const vq o0 = vq_odd(x[0]), o1 = vq_odd(x[1]), o2 = vq_odd(x[2]), o3 = vq_odd(x[3]);
        const vq le = adm_taps(e0, e1, e2, e3, 15826, 27411, 7345, -4240, al, bpc);
        const vq lo_ = adm_taps(o0, o1, o2, o3, 15826, 27411, 7345, -4240, al, bpc);
        const vq he = adm_taps(e0, e1, e2, e3, -4240, -7345, 27411, -15826, ah, bpc);
        const vq ho = adm_taps(o0, o1, o2, o3, -4240, -7345, 27411, -15826, ah, bpc);
        vs_store(lo + j, adm_i16(vs_pack_lo(le, lo_)));
        vs_store(hi + j, adm_i16(vs_pack_lo(he, ho)));
    }
    for (; j < w; j++)
        sq_va_dwt_v0(src, stride, acc, h, bpc, i, j, lo, hi);
}

/*
 * sq_va_dwt_v0_row for bytes (bpc 8): the samples of rows 0, 1 and 2, 3
 * as int16 pairs, their tap sums by vs_madd16 (|sum| <= 54822 * 255);
 * other layouts take the math's row.
 */
static void adm_dwt_v0_row(const uint8_t *src, ptrdiff_t stride, int acc, int h, int bpc, int i,
                           int w, int32_t *lo, int32_t *hi)
{
    if ((acc & ~(15 << 2)) == SQ_ACC_16) {
        adm_dwt_v16_row(src, stride, acc, h, bpc, i, w, lo, hi);
        return;
    }
    if (acc != 0 || bpc != 8) {
        sq_va_dwt_v0_row(src, stride, acc, h, bpc, i, w, lo, hi);
        return;
    }
    const uint8_t *r[4];
    sq_va_taprows(src, stride, h, i, r);
    /* the next row's two new rows into L2 meanwhile: a frame's samples come from memory */
    const uint8_t *n2 = src + (int64_t)sq_imin(2 * i + 3, h - 1) * stride,
                  *n3 = src + (int64_t)sq_imin(2 * i + 4, h - 1) * stride;
    const vs rl = vs_set1(128 - 46342 * 128), rh = vs_set1(128);
    int j = 0;
    for (; j + VS_N <= w; j += VS_N) {
        v_prefetch_l2(n2 + j);
        v_prefetch_l2(n3 + j);
        const vs p01 = vs_or(vs_u8(r[0] + j), vs_sll(vs_u8(r[1] + j), 16));
        const vs p23 = vs_or(vs_u8(r[2] + j), vs_sll(vs_u8(r[3] + j), 16));
        const vs sl = vs_add(vs_madd16(p01, 15826, 27411), vs_madd16(p23, 7345, -4240));
        const vs sh = vs_add(vs_madd16(p01, -4240, -7345), vs_madd16(p23, 27411, -15826));
        vs_store(lo + j, adm_i16(vs_sra(vs_add(sl, rl), 8)));
        vs_store(hi + j, adm_i16(vs_sra(vs_add(sh, rh), 8)));
    }
    for (; j < w; j++)
        sq_va_dwt_v0(src, stride, 0, h, 8, i, j, lo, hi);
}

/*
 * sq_va_dwt_h_row at scale 0: lo and hi hold int16 values, so the taps 0, 1
 * and 2, 3 of VS_N outputs pack into int16 pairs whose tap sums vs_madd16
 * takes exactly (|sum| <= 54822 * 2^15 < 2^31).
 */
static void adm_dwt_h0_row(const int32_t *lo, const int32_t *hi, int w, int only_a,
                           int32_t *const *band, int64_t at)
{
    const int w2 = (w + 1) / 2, c1 = sq_imax(1, sq_imin((w - 1) / 2, w2));
    int32_t *ba = band[SQ_VA_A] + at, *bv = band[SQ_VA_V] + at, *bh = band[SQ_VA_H] + at,
            *bd = band[SQ_VA_D] + at;
    sq_va_dwt_h(lo, hi, w, 0, 0, only_a, band, at);
    int c = 1;
    for (; c + VS_N <= c1; c += VS_N) {
        const int32_t *l = lo + 2 * c - 1, *g = hi + 2 * c - 1;
        const vs l01 = vs_pack16(vs_load(l), vs_load(l + VS_N));
        const vs l23 = vs_pack16(vs_load(l + 2), vs_load(l + VS_N + 2));
        vs_store(ba + c, adm_taps0(l01, l23, 15826, 27411, 7345, -4240));
        if (only_a)
            continue;
        const vs g01 = vs_pack16(vs_load(g), vs_load(g + VS_N));
        const vs g23 = vs_pack16(vs_load(g + 2), vs_load(g + VS_N + 2));
        vs_store(bv + c, adm_taps0(l01, l23, -4240, -7345, 27411, -15826));
        vs_store(bh + c, adm_taps0(g01, g23, 15826, 27411, 7345, -4240));
        vs_store(bd + c, adm_taps0(g01, g23, -4240, -7345, 27411, -15826));
    }
    for (; c < w2; c++)
        sq_va_dwt_h(lo, hi, w, 0, c, only_a, band, at + c);
}

void V_NAME(sq_adm_dwt)(const uint8_t *src8, ptrdiff_t stride, int acc, int bpc, const int32_t *src,
                        int w, int h, int scale, int only_a, int32_t *lo, int32_t *hi,
                        int32_t *const *band)
{
    const int w2 = (w + 1) / 2, h2 = (h + 1) / 2;
    for (int i = 0; scale == 0 && i < h2; i++) {
        adm_dwt_v0_row(src8, stride, acc, h, bpc, i, w, lo, hi);
        adm_dwt_h0_row(lo, hi, w, only_a, band, (int64_t)i * w2);
    }
    for (int i = 0; scale && i < h2; i++) {
        adm_dwt_vs_row(src, w, h, scale, i, lo, hi);
        adm_dwt_hs_row(lo, hi, w, scale, band, (int64_t)i * w2);
    }
}
