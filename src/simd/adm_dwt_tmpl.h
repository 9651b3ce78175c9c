/*
 * libvmaf's integer ADM DWT (math/vmaf_adm_dwt.h, sq_va_dwt_plane) for the
 * SIMD levels. Scales 0 and 1 take their taps in pairs of int16
 * (vs_madd16), their vertical rows kept as int16 (other layouts of scale
 * 0: column by column). Scales 2 and 3
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

/* VD_N outputs of adm_dwt_hs_row from column c on */
V_AI void adm_dwt_hs_vec(const int32_t *lo, const int32_t *hi, int c, vq add, int s,
                         int32_t *const *b)
{
    const vs l01 = vs_load(lo + 2 * c - 1), l23 = vs_load(lo + 2 * c + 1);
    const vs g01 = vs_load(hi + 2 * c - 1), g23 = vs_load(hi + 2 * c + 1);
    const vq l0 = vq_even(l01), l1 = vq_odd(l01), l2 = vq_even(l23), l3 = vq_odd(l23);
    const vq g0 = vq_even(g01), g1 = vq_odd(g01), g2 = vq_even(g23), g3 = vq_odd(g23);
    vq_store_i32(b[SQ_VA_A] + c, adm_taps(l0, l1, l2, l3, 15826, 27411, 7345, -4240, add, s));
    vq_store_i32(b[SQ_VA_V] + c, adm_taps(l0, l1, l2, l3, -4240, -7345, 27411, -15826, add, s));
    vq_store_i32(b[SQ_VA_H] + c, adm_taps(g0, g1, g2, g3, 15826, 27411, 7345, -4240, add, s));
    vq_store_i32(b[SQ_VA_D] + c, adm_taps(g0, g1, g2, g3, -4240, -7345, 27411, -15826, add, s));
}

/*
 * sq_va_dwt_h_row at scales 1..3: a vector of VS_N int32 read from 2c - 1
 * holds in its 64-bit lanes the taps 0 (low halves) and 1 (high halves)
 * of VD_N outputs from c on, one read from 2c + 1 their taps 2 and 3; the
 * last vector moves back over columns already written (the same values
 * again). The columns whose taps the mirror moves take the math's code.
 */
static void adm_dwt_hs_row(const int32_t *lo, const int32_t *hi, int w, int scale,
                           int32_t *const *band, int64_t at)
{
    const int w2 = (w + 1) / 2, c1 = sq_imax(1, sq_imin((w - 1) / 2, w2));
    const int s = sq_va_hshift(scale);
    const vq add = vq_set1(sq_va_half(s));
    int32_t *const b[4] = { band[SQ_VA_A] + at, band[SQ_VA_V] + at, band[SQ_VA_H] + at,
                            band[SQ_VA_D] + at };
    sq_va_dwt_h(lo, hi, w, scale, 0, 0, band, at);
    int c = 1;
    for (; c + VD_N <= c1; c += VD_N)
        adm_dwt_hs_vec(lo, hi, c, add, s, b);
    if (c < c1 && c1 - VD_N >= 1) {
        adm_dwt_hs_vec(lo, hi, c1 - VD_N, add, s, b);
        c = c1;
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
 * one band of scale 1 from its inputs' halves (adm_dwt_v1_row): x = H 2^16
 * + L, so (sum k x + 2^14) >> 15 = 2 sum k H + ((sum k L + 2^14) >> 15),
 * both sums exact in 32 bits (|H| <= 27412, |L| <= 2^15); the lanes wrap,
 * which leaves the low 32 bits, the int32 cast's
 */
V_AI vs adm_taps1(vs h01, vs h23, vs l01, vs l23, int k0, int k1, int k2, int k3)
{
    const vs sh = vs_add(vs_madd16(h01, k0, k1), vs_madd16(h23, k2, k3));
    const vs sl = vs_add(vs_madd16(l01, k0, k1), vs_madd16(l23, k2, k3));
    return vs_add(vs_add(sh, sh), vs_sra(vs_add(sl, vs_set1(16384)), 15));
}

/* sq_va_dwt_v0 at column j into int16 rows (libvmaf's int16 store) */
static void adm_v0_col(const uint8_t *src, ptrdiff_t stride, int acc, int h, int bpc, int i,
                       int j, int16_t *lo, int16_t *hi)
{
    int32_t l;
    hi[j] = (int16_t)sq_va_dwt_v0_at(src, stride, acc, h, bpc, i, j, &l);
    lo[j] = (int16_t)l;
}

/*
 * sq_va_dwt_v0_row for 16-bit containers (any shift, no step), in 32-bit
 * lanes: a sample x < 2^16 is y + 2^15 with y = x - 2^15 an int16, so rows
 * 0, 1 and 2, 3 pair up for vs_madd16 and sum k y is exact (|.| <= 54822 *
 * 2^15 < 2^31). The high-pass taps sum to 0, the low-pass ones to 46342,
 * so lo's numerator is sum k y + C, C = 46342 (2^15 - rnd) + rnd >= 0;
 * with C = Cq 2^bpc + Cr, (sum + C) >> bpc = ((sum + Cr) >> bpc) + Cq,
 * every term within int32. vs_store16 wraps as libvmaf's int16 store.
 */
static void adm_dwt_v16_row(const uint8_t *src, ptrdiff_t stride, int acc, int h, int bpc, int i,
                            int w, int16_t *lo, int16_t *hi)
{
    const uint8_t *r[4];
    sq_va_taprows(src, stride, h, i, r);
    const int sh = (acc >> 2) & 15;
    const int32_t rnd = 1 << (bpc - 1);
    const int64_t C = 46342 * (int64_t)(32768 - rnd) + rnd;
    const vs cq = vs_set1((int32_t)(C >> bpc)), cr = vs_set1((int32_t)(C & (((int64_t)1 << bpc) - 1)));
    const vs rh = vs_set1(rnd), flip = vs_set1((int32_t)0x80008000u);
    int j = 0;
    for (; j + VS_N <= w; j += VS_N) {
        vs x[4];
        for (int k = 0; k < 4; k++)
            x[k] = vs_srl(vs_u16(r[k] + 2 * (ptrdiff_t)j), sh);
        const vs p01 = vs_xor(vs_or(x[0], vs_sll(x[1], 16)), flip);
        const vs p23 = vs_xor(vs_or(x[2], vs_sll(x[3], 16)), flip);
        const vs sl = vs_add(vs_madd16(p01, 15826, 27411), vs_madd16(p23, 7345, -4240));
        const vs shp = vs_add(vs_madd16(p01, -4240, -7345), vs_madd16(p23, 27411, -15826));
        vs_store16(lo + j, vs_add(vs_sra(vs_add(sl, cr), bpc), cq));
        vs_store16(hi + j, vs_sra(vs_add(shp, rh), bpc));
    }
    for (; j < w; j++)
        adm_v0_col(src, stride, acc, h, bpc, i, j, lo, hi);
}

/*
 * sq_va_dwt_v0_row into int16 rows: for bytes (bpc 8) the samples of rows
 * 0, 1 and 2, 3 as int16 pairs, their tap sums by vs_madd16 (|sum| <=
 * 54822 * 255); other layouts column by column.
 */
static void adm_dwt_v0_row(const uint8_t *src, ptrdiff_t stride, int acc, int h, int bpc, int i,
                           int w, int16_t *lo, int16_t *hi)
{
    if ((acc & ~(15 << 2)) == SQ_ACC_16) {
        adm_dwt_v16_row(src, stride, acc, h, bpc, i, w, lo, hi);
        return;
    }
    int j = 0;
    if (acc == 0 && bpc == 8) {
        const uint8_t *r[4];
        sq_va_taprows(src, stride, h, i, r);
        /* the next row's two new rows into L2 meanwhile: a frame's samples come from memory */
        const uint8_t *n2 = src + (int64_t)sq_imin(2 * i + 3, h - 1) * stride,
                      *n3 = src + (int64_t)sq_imin(2 * i + 4, h - 1) * stride;
        const vs rl = vs_set1(128 - 46342 * 128), rh = vs_set1(128);
        /* VW_N columns as two halves of pairs; vw_pack's saturation wraps nothing: 8-bit sums
         * give lo in [-27.4k, 27.2k], hi within +-27.3k */
        for (; j + VW_N <= w; j += VW_N) {
            v_prefetch_l2(n2 + j);
            v_prefetch_l2(n3 + j);
            vs p01x, p01y, p23x, p23y;
            vw_pair(vw_u8(r[0] + j), vw_u8(r[1] + j), &p01x, &p01y);
            vw_pair(vw_u8(r[2] + j), vw_u8(r[3] + j), &p23x, &p23y);
            const vs lx = vs_add(vs_madd16(p01x, 15826, 27411), vs_madd16(p23x, 7345, -4240));
            const vs ly = vs_add(vs_madd16(p01y, 15826, 27411), vs_madd16(p23y, 7345, -4240));
            const vs hx = vs_add(vs_madd16(p01x, -4240, -7345), vs_madd16(p23x, 27411, -15826));
            const vs hy = vs_add(vs_madd16(p01y, -4240, -7345), vs_madd16(p23y, 27411, -15826));
            vw_store(lo + j, vw_pack(vs_sra(vs_add(lx, rl), 8), vs_sra(vs_add(ly, rl), 8)));
            vw_store(hi + j, vw_pack(vs_sra(vs_add(hx, rh), 8), vs_sra(vs_add(hy, rh), 8)));
        }
        for (; j + VS_N <= w; j += VS_N) {
            v_prefetch_l2(n2 + j);
            v_prefetch_l2(n3 + j);
            const vs p01 = vs_or(vs_u8(r[0] + j), vs_sll(vs_u8(r[1] + j), 16));
            const vs p23 = vs_or(vs_u8(r[2] + j), vs_sll(vs_u8(r[3] + j), 16));
            const vs sl = vs_add(vs_madd16(p01, 15826, 27411), vs_madd16(p23, 7345, -4240));
            const vs sh = vs_add(vs_madd16(p01, -4240, -7345), vs_madd16(p23, 27411, -15826));
            vs_store16(lo + j, vs_sra(vs_add(sl, rl), 8));
            vs_store16(hi + j, vs_sra(vs_add(sh, rh), 8));
        }
    }
    for (; j < w; j++)
        adm_v0_col(src, stride, acc, h, bpc, i, j, lo, hi);
}

/* x = H 2^16 + L with H, L in int16 for |x| <= 54822 * 2^15: H = (x + 2^15) >> 16, L = i16(x) */
static void adm_split(int32_t x, int16_t *H, int16_t *L)
{
    *H = (int16_t)(((int64_t)x + 32768) >> 16);
    *L = (int16_t)sq_va_i16(x);
}

/*
 * sq_va_dwt_vs_row at scale 1 (shift 0, no rounding). Its input, scale 0's
 * a, holds int16 values (the DWT stores them so), so rows 0, 1 and 2, 3 pair
 * up for vs_madd16 and the sums are exact in 32 bits (|sum| <= 54822 *
 * 2^15 < 2^31). Each sum goes out as adm_split's halves, the pairs of
 * adm_taps1: q[0], q[1] of lo, q[2], q[3] of hi.
 */
static void adm_dwt_v1_row(const int32_t *src, int w, int h, int i, int16_t *const *q)
{
    const int32_t *r0 = src + (int64_t)sq_va_mirror(2 * i - 1, h) * w,
                  *r1 = src + (int64_t)sq_va_mirror(2 * i, h) * w,
                  *r2 = src + (int64_t)sq_va_mirror(2 * i + 1, h) * w,
                  *r3 = src + (int64_t)sq_va_mirror(2 * i + 2, h) * w;
    /* the next output row's two new rows into L2 meanwhile (as adm_dwt_vs_row) */
    const int32_t *n2 = src + (int64_t)sq_imin(2 * i + 3, h - 1) * w,
                  *n3 = src + (int64_t)sq_imin(2 * i + 4, h - 1) * w;
    const vs m16 = vs_set1(0xffff), half = vs_set1(32768);
    int j = 0;
    for (; j + VS_N <= w; j += VS_N) {
        v_prefetch_l2(n2 + j);
        v_prefetch_l2(n3 + j);
        const vs p01 = vs_or(vs_and(vs_load(r0 + j), m16), vs_sll(vs_load(r1 + j), 16));
        const vs p23 = vs_or(vs_and(vs_load(r2 + j), m16), vs_sll(vs_load(r3 + j), 16));
        const vs sl = vs_add(vs_madd16(p01, 15826, 27411), vs_madd16(p23, 7345, -4240));
        const vs sh = vs_add(vs_madd16(p01, -4240, -7345), vs_madd16(p23, 27411, -15826));
        vs_store16(q[0] + j, vs_sra(vs_add(sl, half), 16));
        vs_store16(q[1] + j, sl);
        vs_store16(q[2] + j, vs_sra(vs_add(sh, half), 16));
        vs_store16(q[3] + j, sh);
    }
    for (; j < w; j++) {
        const int64_t x0 = r0[j], x1 = r1[j], x2 = r2[j], x3 = r3[j];
        adm_split((int32_t)(15826 * x0 + 27411 * x1 + 7345 * x2 - 4240 * x3), q[0] + j, q[1] + j);
        adm_split((int32_t)(-4240 * x0 - 7345 * x1 + 27411 * x2 - 15826 * x3), q[2] + j, q[3] + j);
    }
}

/*
 * sq_va_dwt_h at column c of int16 rows: scale 0's lo, hi (q[0], q[1]) or
 * scale 1's halves (q[0..3], adm_dwt_v1_row)
 */
static void adm_h16_col(int16_t *const *q, int w, int scale, int c, int only_a,
                        int32_t *const *band, int64_t at)
{
    int64_t s[4] = { 0, 0, 0, 0 };
    for (int k = 0; k < 4; k++) {
        const int m = sq_va_mirror(2 * c - 1 + k, w);
        const int64_t l = scale ? (int64_t)q[0][m] * 65536 + q[1][m] : q[0][m];
        const int64_t g = scale ? (int64_t)q[2][m] * 65536 + q[3][m] : q[1][m];
        s[SQ_VA_A] += sq_va_lo(k) * l;
        s[SQ_VA_V] += sq_va_hi(k) * l;
        s[SQ_VA_H] += sq_va_lo(k) * g;
        s[SQ_VA_D] += sq_va_hi(k) * g;
    }
    const int sh = scale ? sq_va_hshift(scale) : 16;
    for (int b = 0; b < (only_a ? 1 : 4); b++) {
        const int64_t v = (s[b] + ((int64_t)1 << (sh - 1))) >> sh;
        band[b][at] = scale ? (int32_t)v : sq_va_i16(v);
    }
}

/* VS_N outputs of adm_dwt_h16_row from column c on: scale 0's (a alone with only_a) */
V_AI void adm_dwt_h0_vec(int16_t *const *q, int c, int only_a, int32_t *const *b)
{
    const int16_t *l = q[0] + 2 * c - 1, *g = q[1] + 2 * c - 1;
    const vs l01 = vs_load16x2(l), l23 = vs_load16x2(l + 2);
    vs_store(b[SQ_VA_A] + c, adm_taps0(l01, l23, 15826, 27411, 7345, -4240));
    if (only_a)
        return;
    const vs g01 = vs_load16x2(g), g23 = vs_load16x2(g + 2);
    vs_store(b[SQ_VA_V] + c, adm_taps0(l01, l23, -4240, -7345, 27411, -15826));
    vs_store(b[SQ_VA_H] + c, adm_taps0(g01, g23, 15826, 27411, 7345, -4240));
    vs_store(b[SQ_VA_D] + c, adm_taps0(g01, g23, -4240, -7345, 27411, -15826));
}

/* VS_N outputs of adm_dwt_h16_row from column c on: scale 1's, from adm_split's halves */
V_AI void adm_dwt_h1_vec(int16_t *const *q, int c, int32_t *const *b)
{
    const int x = 2 * c - 1;
    const vs lh01 = vs_load16x2(q[0] + x), lh23 = vs_load16x2(q[0] + x + 2);
    const vs ll01 = vs_load16x2(q[1] + x), ll23 = vs_load16x2(q[1] + x + 2);
    const vs gh01 = vs_load16x2(q[2] + x), gh23 = vs_load16x2(q[2] + x + 2);
    const vs gl01 = vs_load16x2(q[3] + x), gl23 = vs_load16x2(q[3] + x + 2);
    vs_store(b[SQ_VA_A] + c, adm_taps1(lh01, lh23, ll01, ll23, 15826, 27411, 7345, -4240));
    vs_store(b[SQ_VA_V] + c, adm_taps1(lh01, lh23, ll01, ll23, -4240, -7345, 27411, -15826));
    vs_store(b[SQ_VA_H] + c, adm_taps1(gh01, gh23, gl01, gl23, 15826, 27411, 7345, -4240));
    vs_store(b[SQ_VA_D] + c, adm_taps1(gh01, gh23, gl01, gl23, -4240, -7345, 27411, -15826));
}

/*
 * sq_va_dwt_h_row at scales 0 and 1 over int16 rows: VS_N lanes read from
 * 2c - 1 hold the taps 0, 1 of the outputs from c on as int16 pairs, those
 * read from 2c + 1 the taps 2, 3 (no packing); the last vector moves back
 * over columns already written (the same values again). The columns whose
 * taps the mirror moves take adm_h16_col.
 */
static void adm_dwt_h16_row(int16_t *const *q, int w, int scale, int only_a, int32_t *const *band,
                            int64_t at)
{
    const int w2 = (w + 1) / 2, c1 = sq_imax(1, sq_imin((w - 1) / 2, w2));
    int32_t *const b[4] = { band[SQ_VA_A] + at, band[SQ_VA_V] + at, band[SQ_VA_H] + at,
                            band[SQ_VA_D] + at };
    adm_h16_col(q, w, scale, 0, only_a, band, at);
    int c = 1;
    for (; scale == 0 && c + VS_N <= c1; c += VS_N)
        adm_dwt_h0_vec(q, c, only_a, b);
    for (; scale && c + VS_N <= c1; c += VS_N)
        adm_dwt_h1_vec(q, c, b);
    if (c < c1 && c1 - VS_N >= 1) {
        if (scale)
            adm_dwt_h1_vec(q, c1 - VS_N, b);
        else
            adm_dwt_h0_vec(q, c1 - VS_N, only_a, b);
        c = c1;
    }
    for (; c < w2; c++)
        adm_h16_col(q, w, scale, c, only_a, band, at + c);
}

/*
 * Scales 0 and 1 keep their vertical rows as int16 in lo and hi (scale 0 a
 * row of w in each, scale 1 two: the halves of adm_split); scale 1 takes
 * scale 0's a (int16 values) as src, the only input the driver gives it.
 */
void V_NAME(sq_adm_dwt)(const uint8_t *src8, ptrdiff_t stride, int acc, int bpc, const int32_t *src,
                        int w, int h, int scale, int only_a, int i0, int i1, int32_t *lo,
                        int32_t *hi, int32_t *const *band)
{
    const int w2 = (w + 1) / 2;
    int16_t *const l16 = (int16_t *)lo, *const h16 = (int16_t *)hi;
    int16_t *const q0[2] = { l16, h16 }, *const q1[4] = { l16, l16 + w, h16, h16 + w };
    for (int i = i0; scale == 0 && i < i1; i++) {
        adm_dwt_v0_row(src8, stride, acc, h, bpc, i, w, l16, h16);
        adm_dwt_h16_row(q0, w, 0, only_a, band, (int64_t)(i - i0) * w2);
    }
    for (int i = i0; scale == 1 && i < i1; i++) {
        adm_dwt_v1_row(src, w, h, i, q1);
        adm_dwt_h16_row(q1, w, 1, 0, band, (int64_t)(i - i0) * w2);
    }
    for (int i = i0; scale > 1 && i < i1; i++) {
        adm_dwt_vs_row(src, w, h, scale, i, lo, hi);
        adm_dwt_hs_row(lo, hi, w, scale, band, (int64_t)(i - i0) * w2);
    }
}
