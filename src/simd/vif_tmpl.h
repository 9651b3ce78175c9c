/*
 * libvmaf's integer VIF rows (math/vmaf_vif.h, spec vmaf-integer-features
 * 4.3, 4.4) over VS_N 32-bit lanes and their 64-bit halves, written once
 * for every SIMD level: included by x86/vif_avx2.c, x86/vif_avx512.c,
 * x86/vif_avx512vnni.c and arm/vif_neon.c after their simd/vec_*.h. Every
 * sum is an integer, so lanes give the scalar bits whatever the order:
 *
 * - the means: f a <= 2^16 (2^16 - 1) and their sum below 2^32, exact in
 *   wrapping u32 lanes (vs_mul keeps the low 32 bits, all there are);
 * - the second moments: (f a) b up to 2^48, as vq_mul_u of the u32 f a
 *   and b in the even and odd 64-bit halves, summed there, shifted and
 *   packed back (every result fits u32), except at scale 0 for samples
 *   below 2^15, whose products split into u16 halves that take the taps
 *   in pairs of int16 (vi_vrow_zip; the decimation into scale 1 likewise,
 *   vi_sub_row_zip);
 * - the horizontal pass: the same for the means, f t (u32 t) in 64-bit
 *   halves for the moments; mu^2 as vq_mul_u of the u32 means.
 *
 * The per-pixel terms: simd/vif_terms_tmpl.h. Columns past the last whole
 * vector take the math's scalar rows.
 */
#include <stddef.h>
#include <stdint.h>

#include "cpu/dsp.h"
#include "math/vmaf_vif.h"

/* a's even and odd 64-bit halves times the u32 lanes of b: added to e and o. */
#define VI_MAC64(e, o, a, b)                                    \
    do {                                                        \
        e = vq_add(e, vq_mul_u(vq_even(a), vq_even(b)));        \
        o = vq_add(o, vq_mul_u(vq_odd(a), vq_odd(b)));          \
    } while (0)

/* (e, o) + rnd >> sh, packed back into u32 lanes in element order. */
static inline vs vi_round_pack(vq e, vq o, vq rnd, int sh)
{
    return vs_pack_lo(vq_srl(vq_add(e, rnd), sh), vq_srl(vq_add(o, rnd), sh));
}

/*
 * sq_vif_vrow's columns [0, n) at scale 0 for samples below 2^15 (bpc <=
 * 15) with the taps in pairs: lane j holds rows k and k + 1 of column j as
 * its int16 halves, so vs_dp16 sums the means exactly (Sum f a < 2^31). A
 * product p (a^2, b^2, ab) is 2^16 ph + pl, its u16 halves: pl less 2^15
 * fits int16, |Sum f (pl - 2^15)| <= 2^15 Sum f (Sum f = 2^16), and 2^15
 * Sum f added back in wrapping u32 gives Sum f pl < 2^32; ph < 2^14 (0 at
 * 8 bits, where wide is 0 and it is not taken) sums below 2^30. As 2^16 is
 * a multiple of 2^ssq (ssq = 2 (bpc - 8) <= 14), the moment (2^16 Sum f ph
 * + Sum f pl + rnd) >> ssq is 2^(16 - ssq) Sum f ph + ((Sum f pl + rnd) >>
 * ssq), in wrapping u32 as the scalar code's u32 conversion (Sum f pl + rnd
 * stays below 2^32). The odd last tap pairs with a zero row. Returns the
 * columns written: n, or 0 for rows narrower than 2 VS_N or, past 8 bits,
 * with a sample of 2^15 or more (above the depth: not checked, and libvmaf
 * computes with it), which the u32 lanes take.
 */
V_AI int vi_vrow_zip(const uint8_t *const *xr, const uint8_t *const *yr, int n, uint32_t *const *t,
                     int bpc, int wide)
{
    const int r = sq_vi_half(0), ssq = sq_vi_sq_shift(0, bpc);
    const vs off = vs_set1((int32_t)0x80008000u), back = vs_set1((int32_t)(32768u * sq_vi_tap_sum(0)));
    const vs rmu = vs_set1((int32_t)sq_vi_rnd(bpc)), rsq = vs_set1((int32_t)sq_vi_rnd(ssq));
    vs seen = vs_set1(0); /* the OR of the samples read (past 8 bits) */
    if (n < 2 * VS_N)
        return 0;
    /* 2 VS_N columns a step, two rows' samples zipped into the pairs (no shifts to pair
     * them); the last step moves back over columns already written (the same values) */
    for (int j0 = 0; j0 < n; j0 += 2 * VS_N) {
        const int j = j0 + 2 * VS_N <= n ? j0 : n - 2 * VS_N;
        vs m1[2], m2[2], xx[2], yy[2], xy[2], xh[2], yh[2], ch[2];
        for (int e = 0; e < 2; e++) {
            m1[e] = m2[e] = xh[e] = yh[e] = ch[e] = vs_set1(0);
            xx[e] = yy[e] = xy[e] = back;
        }
        for (int k = 0; k <= 2 * r; k += 2) {
            const int f0 = (int)sq_vi_tap(0, k), f1 = k < 2 * r ? (int)sq_vi_tap(0, k + 1) : 0;
            const vs z = vs_set1(0);
            const vs x0 = vs_load((const int32_t *)(xr[k] + 2 * j)),
                     x1 = k < 2 * r ? vs_load((const int32_t *)(xr[k + 1] + 2 * j)) : z,
                     y0 = vs_load((const int32_t *)(yr[k] + 2 * j)),
                     y1 = k < 2 * r ? vs_load((const int32_t *)(yr[k + 1] + 2 * j)) : z;
            vs a[2], b[2];
            vs_zip16(x0, x1, &a[0], &a[1]);
            vs_zip16(y0, y1, &b[0], &b[1]);
            if (wide)
                seen = vs_or(seen, vs_or(vs_or(x0, x1), vs_or(y0, y1)));
            for (int e = 0; e < 2; e++) {
                m1[e] = vs_dp16(m1[e], a[e], f0, f1);
                m2[e] = vs_dp16(m2[e], b[e], f0, f1);
                xx[e] = vs_dp16(xx[e], vs_xor(vs_mullo16(a[e], a[e]), off), f0, f1);
                yy[e] = vs_dp16(yy[e], vs_xor(vs_mullo16(b[e], b[e]), off), f0, f1);
                xy[e] = vs_dp16(xy[e], vs_xor(vs_mullo16(a[e], b[e]), off), f0, f1);
                if (wide) {
                    xh[e] = vs_dp16(xh[e], vs_mulhi16u(a[e], a[e]), f0, f1);
                    yh[e] = vs_dp16(yh[e], vs_mulhi16u(b[e], b[e]), f0, f1);
                    ch[e] = vs_dp16(ch[e], vs_mulhi16u(a[e], b[e]), f0, f1);
                }
            }
        }
        for (int e = 0; wide && e < 2; e++) {
            xx[e] = vs_add(vs_sll(xh[e], 16 - ssq), vs_srl(vs_add(xx[e], rsq), ssq));
            yy[e] = vs_add(vs_sll(yh[e], 16 - ssq), vs_srl(vs_add(yy[e], rsq), ssq));
            xy[e] = vs_add(vs_sll(ch[e], 16 - ssq), vs_srl(vs_add(xy[e], rsq), ssq));
        }
        vs_store_unzip((int32_t *)t[0] + j, vs_srl(vs_add(m1[0], rmu), bpc), vs_srl(vs_add(m1[1], rmu), bpc));
        vs_store_unzip((int32_t *)t[1] + j, vs_srl(vs_add(m2[0], rmu), bpc), vs_srl(vs_add(m2[1], rmu), bpc));
        vs_store_unzip((int32_t *)t[2] + j, xx[0], xx[1]);
        vs_store_unzip((int32_t *)t[3] + j, yy[0], yy[1]);
        vs_store_unzip((int32_t *)t[4] + j, xy[0], xy[1]);
    }
    return wide && vs_any(vs_and(seen, vs_set1((int32_t)0x80008000u))) ? 0 : n;
}

void V_NAME(sq_vif_vrow)(const uint16_t *x, ptrdiff_t xs, const uint16_t *y, ptrdiff_t ys,
                         int w, int h, int s, int bpc, int i, uint32_t *const *t)
{
    const int r = sq_vi_half(s), smu = sq_vi_mu_shift(s, bpc), ssq = sq_vi_sq_shift(s, bpc);
    const uint8_t *xr[17], *yr[17];
    for (int k = 0; k <= 2 * r; k++) {
        const int64_t row = sq_mirror(i - r + k, h);
        xr[k] = (const uint8_t *)(x + row * xs);
        yr[k] = (const uint8_t *)(y + row * ys);
    }
    const vs rmu = vs_set1((int32_t)(uint32_t)sq_vi_rnd(smu));
    const vq rsq = vq_set1((int64_t)sq_vi_rnd(ssq));
    int j = s ? 0 : bpc == 8 ? vi_vrow_zip(xr, yr, w, t, 8, 0) : bpc <= 15 ? vi_vrow_zip(xr, yr, w, t, bpc, 1) : 0;
    for (; j + VS_N <= w; j += VS_N) {
        vs m1 = vs_set1(0), m2 = vs_set1(0);
        vq xe = vq_set1(0), xo = xe, ye = xe, yo = xe, ce = xe, co = xe;
        for (int k = 0; k <= 2 * r; k++) {
            const vs f = vs_set1((int32_t)sq_vi_tap(s, k));
            const vs a = vs_u16(xr[k] + 2 * j), b = vs_u16(yr[k] + 2 * j);
            const vs fa = vs_mul(f, a), fb = vs_mul(f, b);
            m1 = vs_add(m1, fa);
            m2 = vs_add(m2, fb);
            VI_MAC64(xe, xo, fa, a);
            VI_MAC64(ye, yo, fb, b);
            VI_MAC64(ce, co, fa, b);
        }
        vs_store((int32_t *)t[0] + j, vs_srl(vs_add(m1, rmu), smu));
        vs_store((int32_t *)t[1] + j, vs_srl(vs_add(m2, rmu), smu));
        vs_store((int32_t *)t[2] + j, vi_round_pack(xe, xo, rsq, ssq));
        vs_store((int32_t *)t[3] + j, vi_round_pack(ye, yo, rsq, ssq));
        vs_store((int32_t *)t[4] + j, vi_round_pack(ce, co, rsq, ssq));
    }
    if (j < w) {
        const SqViRows tr = { t[0], t[1], t[2], t[3], t[4] };
        sq_vi_vrow(x, xs, y, ys, h, s, bpc, i, j, w, tr);
    }
}

#include "simd/vif_terms_tmpl.h"


/*
 * The horizontal pass splits each second moment t = 2^16 th + tl (th, tl
 * < 2^16): the taps sum to 2^16, so Sum f th and Sum f tl stay below 2^32
 * in u32 lanes, each symmetric pair f (a + b) too, and
 *   (Sum f t + 2^15) >> 16 = Sum f th + ((Sum f tl + 2^15) >> 16)
 * (Sum f tl + 2^15 does not wrap), the scalar code's u32 for any t. The
 * means take the pairs in wrapping u32 lanes as they are (mod 2^32, as
 * the scalar sums). A chunk of VI_CH outputs splits its columns once.
 */
#define VI_CH (16 * VS_N)
#define VI_SPLIT (VI_CH + 16 + VS_N)

/* Columns [c0, c0 + n) of the moment rows t[2..4] as th, tl into sp[0..5]. */
static void vi_split(const uint32_t *const *t, int c0, int n, int32_t (*sp)[VI_SPLIT])
{
    const vs lo = vs_set1(0xffff);
    int c = 0;
    for (; c + VS_N <= n; c += VS_N)
        for (int m = 0; m < 3; m++) {
            const vs v = vs_load((const int32_t *)t[2 + m] + c0 + c);
            vs_store(sp[2 * m] + c, vs_srl(v, 16));
            vs_store(sp[2 * m + 1] + c, vs_and(v, lo));
        }
    for (; c < n; c++)
        for (int m = 0; m < 3; m++) {
            const uint32_t v = t[2 + m][c0 + c];
            sp[2 * m][c] = (int32_t)(v >> 16);
            sp[2 * m + 1][c] = (int32_t)(v & 0xffff);
        }
}

/* Sum f[k] a[k] over k = 0 .. 2r for VS_N outputs (a at each one's first tap), by symmetric pairs. */
V_AI vs vi_taps(const int32_t *a, int r, const uint32_t *ft)
{
    vs s = vs_mul(vs_set1((int32_t)ft[r]), vs_load(a + r));
    for (int k = 0; k < r; k++)
        s = vs_add(s, vs_mul(vs_set1((int32_t)ft[k]), vs_add(vs_load(a + k), vs_load(a + 2 * r - k))));
    return s;
}

/* A moment's (Sum f t + 2^15) >> 16 from its split rows hi, lo (u32, wrapping). */
V_AI vs vi_moment(const int32_t *hi, const int32_t *lo, int r, const uint32_t *ft)
{
    return vs_add(vi_taps(hi, r, ft), vs_srl(vs_add(vi_taps(lo, r, ft), vs_set1(32768)), 16));
}

/*
 * The horizontal pass at scales 0..2 (taps below 2^15) in int16 tap pairs:
 * the means (below 2^16: vif_vrow's) and the moments' halves th, tl as
 * eight rows of int16 less 2^15 (q), and VS_N outputs of one parity at a
 * time: a u32 read from column c - r + k of q holds that output's taps k
 * and k + 1 for the output c, and those of c + 2, c + 4, ... in the next
 * lanes, so vs_madd16 sums two taps a lane; 2^15 Sum f back in wrapping
 * u32 gives Sum f v, below 2^32 for v < 2^16. The order of the pixels is
 * free: their terms are integers summed exactly.
 */
#define VI_CH16 (8 * VS_N)
#define VI_Q (2 * VI_CH16 + 2 * 8)

/* Columns [c0, c0 + n) of t as q's eight int16 rows (v - 2^15): m1, m2, then th, tl of xx, yy, xy. */
static void vi_split16(const uint32_t *const *t, int c0, int n, int16_t (*q)[VI_Q])
{
    const vs lo = vs_set1(0xffff), off = vs_set1(0x8000);
    int c = 0;
    for (; c + VS_N <= n; c += VS_N)
        for (int m = 0; m < 5; m++) {
            const vs v = vs_load((const int32_t *)t[m] + c0 + c);
            if (m < 2) {
                vs_store16(q[m] + c, vs_xor(v, off));
                continue;
            }
            vs_store16(q[2 * m - 2] + c, vs_xor(vs_srl(v, 16), off));
            vs_store16(q[2 * m - 1] + c, vs_xor(vs_and(v, lo), off));
        }
    for (; c < n; c++)
        for (int m = 0; m < 5; m++) {
            const uint32_t v = t[m][c0 + c];
            if (m < 2) {
                q[m][c] = (int16_t)(v ^ 0x8000u);
                continue;
            }
            q[2 * m - 2][c] = (int16_t)((v >> 16) ^ 0x8000u);
            q[2 * m - 1][c] = (int16_t)((v & 0xffff) ^ 0x8000u);
        }
}

/*
 * Sum f_k v_k of VS_N outputs of one parity from each of q's eight rows at
 * b, their first tap (u32 lanes, back added): tap pairs outside, rows
 * inside, so the eight sums are eight independent chains (vs_dp16 is one
 * instruction of several cycles' latency with VNNI). r is a constant where
 * vi_hrow16_r is inlined.
 */
V_AI void vi_taps16(int16_t (*q)[VI_Q], int b, int r, const uint32_t *ft, vs back, vs v[8])
{
    for (int m = 0; m < 8; m++)
        v[m] = back;
    for (int k = 0; k < 2 * r; k += 2)
        for (int m = 0; m < 8; m++)
            v[m] = vs_dp16(v[m], vs_load((const int32_t *)(q[m] + b + k)), (int)ft[k], (int)ft[k + 1]);
    /* the odd last tap as the high half of the pair before it */
    for (int m = 0; m < 8; m++)
        v[m] = vs_dp16(v[m], vs_load((const int32_t *)(q[m] + b + 2 * r - 1)), 0, (int)ft[2 * r]);
}

/*
 * Columns [0, wv) (wv a multiple of 2 VS_N) at scale s of half-width r
 * (0..2); returns wv. With V_COMPRESS the pixels without logs are counted
 * in *flat (den_nonlog), not in sums[3].
 */
V_AI int vi_hrow16_r(const uint32_t *const *t, int w, int s, int r, double egl,
                     const uint16_t *lt, vd *sums, int64_t *flat)
{
    const int wv = w - w % (2 * VS_N);
    uint32_t ft[17];
    sq_vi_taps(s, ft);
    const vs back = vs_set1((int32_t)(32768u * sq_vi_tap_sum(s))), half = vs_set1(32768);
    int16_t q[8][VI_Q];
#ifdef V_COMPRESS
    ViPack pk;
    int pn = 0, np = 0;
    vd s2 = vd_set1(0.0);
#else
    (void)flat;
#endif
    for (int j0 = 0; j0 < wv; j0 += 2 * VI_CH16) {
        const int cn = wv - j0 < 2 * VI_CH16 ? wv - j0 : 2 * VI_CH16;
        vi_split16(t, j0 - r, cn + 2 * r, q);
        for (int o = 0; o < cn; o += 2 * VS_N)
            for (int par = 0; par < 2; par++) {
                vs v[8];
                vi_taps16(q, o + par, r, ft, back, v);
                /* (Sum f t + 2^15) >> 16 = Sum f th + ((Sum f tl + 2^15) >> 16) */
                for (int m = 0; m < 3; m++)
                    v[2 + m] = vs_add(v[2 + 2 * m], vs_srl(vs_add(v[3 + 2 * m], half), 16));
#ifdef V_COMPRESS
                pn += vi_sig_pack(v[0], v[1], v[2], v[3], v[4], pk.g1 + pn, pk.g2 + pn,
                                  pk.g12 + pn, &s2);
#else
                vi_sig(v[0], v[1], v[2], v[3], v[4], egl, lt, sums);
#endif
            }
#ifdef V_COMPRESS
        pk.n = pn;
        np += pn;
        vi_logterms(&pk, egl, lt, sums);
        pn = 0;
#endif
    }
#ifdef V_COMPRESS
    sums[2] = vd_add(sums[2], s2);
    *flat += wv - np;
#endif
    return wv;
}

/* Columns [0, wv) at scales 0..2, each scale's taps unrolled; returns wv. */
static int vi_hrow16(const uint32_t *const *t, int w, int s, double egl, const uint16_t *lt,
                     vd *sums, int64_t *flat)
{
    switch (s) {
    case 0:
        return vi_hrow16_r(t, w, 0, 8, egl, lt, sums, flat);
    case 1:
        return vi_hrow16_r(t, w, 1, 4, egl, lt, sums, flat);
    default:
        return vi_hrow16_r(t, w, 2, 2, egl, lt, sums, flat);
    }
}

/* Columns [0, wv) (wv a multiple of VS_N) at any scale, the taps in u32 lanes; returns wv. */
static int vi_hrow32(const uint32_t *const *t, int w, int s, double egl, const uint16_t *lt,
                     vd *sums)
{
    const int r = sq_vi_half(s), wv = w - w % VS_N;
    uint32_t ft[17];
    sq_vi_taps(s, ft);
    int32_t sp[6][VI_SPLIT];
    for (int j0 = 0; j0 < wv; j0 += VI_CH) {
        const int cn = wv - j0 < VI_CH ? wv - j0 : VI_CH;
        vi_split(t, j0 - r, cn + 2 * r, sp);
        for (int j = j0; j < j0 + cn; j += VS_N) {
            const int o = j - j0;
            const vs m1 = vi_taps((const int32_t *)t[0] + j - r, r, ft);
            const vs m2 = vi_taps((const int32_t *)t[1] + j - r, r, ft);
            vi_sig(m1, m2, vi_moment(sp[0] + o, sp[1] + o, r, ft),
                   vi_moment(sp[2] + o, sp[3] + o, r, ft), vi_moment(sp[4] + o, sp[5] + o, r, ft),
                   egl, lt, sums);
        }
    }
    return wv;
}

void V_NAME(sq_vif_hrow)(const uint32_t *const *t, int w, int s, double egl, const uint16_t *lt,
                         int64_t *acc)
{
    vd sums[4] = { vd_set1(0.0), vd_set1(0.0), vd_set1(0.0), vd_set1(0.0) };
    /* scale 3's largest tap (43728) does not fit an int16 pair */
    int64_t flat = 0;
    const int j = s < 3 ? vi_hrow16(t, w, s, egl, lt, sums, &flat) : vi_hrow32(t, w, s, egl, lt, sums);
    int64_t lane[4] = { acc[0], acc[1], acc[2], acc[3] + flat };
    for (int q = 0; q < 4; q++) {
        double v[VD_N];
        vd_store(v, sums[q]);
        for (int l = 0; l < VD_N; l++)
            lane[q] += (int64_t)v[l];
    }
    SqViAcc a = { lane[0], lane[1], lane[2], lane[3] };
    const SqViRows tr = { (uint32_t *)t[0], (uint32_t *)t[1], (uint32_t *)t[2], (uint32_t *)t[3],
                          (uint32_t *)t[4] };
    sq_vi_hrow(tr, s, j, w, egl, lt, &a);
    acc[0] = a.num_log;
    acc[1] = a.den_log;
    acc[2] = a.num_nonlog;
    acc[3] = a.den_nonlog;
}

void V_NAME(sq_vif_log)(const uint64_t *v, int n, const uint16_t *lt, int64_t *out)
{
    int k = 0;
    for (; k + VD_N <= n; k += VD_N) {
        double d[VD_N];
        for (int l = 0; l < VD_N; l++)
            d[l] = (double)v[k + l];
#ifdef V_PERM16
        vd_store(d, vd_sub(vi_logd(vd_load(d)), vd_set1(SQ_VI_LOG_BIAS + 2048.0 * 15)));
        for (int l = 0; l < VD_N; l++)
            out[k + l] = (int64_t)d[l];
#else
        int32_t o[VD_N];
        vq_store_i32(o, vi_log(vd_load(d), lt));
        for (int l = 0; l < VD_N; l++)
            out[k + l] = o[l];
#endif
    }
    for (; k < n; k++)
        out[k] = sq_vi_log(lt, v[k]);
}

/* Sum f_k v_k over taps (f0, f1) of 8-bit scale 1 in int16 pairs: p01 holds two rows' or columns' values. */
V_AI vs vi_pair(vs acc, vs p01, int k, int r)
{
    return vs_dp16(acc, p01, (int)sq_vi_tap(1, k), k < 2 * r ? (int)sq_vi_tap(1, k + 1) : 0);
}

/*
 * sq_vif_sub_row into scale 1 from samples below 2^15 (bpc <= 15, w >= 2
 * VS_N): the vertical pass with the taps in int16 pairs of rows, zipped
 * (exact: Sum f a < 2^31), its row t, (Sum f a + 2^(bpc - 1)) >> bpc <
 * 2^16, kept as u16 in t's buffer; the
 * horizontal pass at the kept (even) columns alone, lane j's pairs the
 * u16 columns 2j - r + 2m, 2j - r + 2m + 1 as they lie in memory, less
 * 2^15 to fit int16 (2^15 Sum f added back in wrapping u32, and the
 * rounding's 2^15). The last vector of either pass moves back over
 * columns already written. Returns 0 (nothing written to out) where a
 * sample is 2^15 or more, which the u32 lanes take (as vi_vrow_zip).
 */
static int vi_sub_row_zip(const uint16_t *x, ptrdiff_t xs, int w, int h, int bpc, int i, uint32_t *t,
                           uint16_t *out)
{
    const int r = sq_vi_half(1), n = w / 2;
    const uint8_t *xr[9];
    for (int k = 0; k <= 2 * r; k++)
        xr[k] = (const uint8_t *)(x + (int64_t)sq_mirror(2 * i - r + k, h) * xs);
    uint16_t *p = (uint16_t *)t;
    const vs rnd = vs_set1((int32_t)sq_vi_rnd(bpc)), z = vs_set1(0);
    vs seen = z;
    for (int j = 0; j < w; j += 2 * VS_N) {
        const int c = j + 2 * VS_N <= w ? j : w - 2 * VS_N;
        vs m[2] = { z, z };
        for (int k = 0; k <= 2 * r; k += 2) {
            const vs x0 = vs_load((const int32_t *)(xr[k] + 2 * c)),
                     x1 = k < 2 * r ? vs_load((const int32_t *)(xr[k + 1] + 2 * c)) : z;
            vs a[2];
            vs_zip16(x0, x1, &a[0], &a[1]);
            if (bpc > 8)
                seen = vs_or(seen, vs_or(x0, x1));
            m[0] = vi_pair(m[0], a[0], k, r);
            m[1] = vi_pair(m[1], a[1], k, r);
        }
        vs_store16_unzip((int16_t *)p + c, vs_srl(vs_add(m[0], rnd), bpc), vs_srl(vs_add(m[1], rnd), bpc));
    }
    if (vs_any(vs_and(seen, vs_set1((int32_t)0x80008000u))))
        return 0;
    sq_vi_pad16(p, w, r);
    const vs off = vs_set1((int32_t)0x80008000u);
    const vs back = vs_set1((int32_t)(32768u * sq_vi_tap_sum(1) + 32768u));
    for (int j = 0; j < n; j += VS_N) {
        const int c = j + VS_N <= n ? j : n - VS_N;
        vs m = back;
        for (int k = 0; k <= 2 * r; k += 2)
            m = vi_pair(m, vs_xor(vs_load((const int32_t *)(p + 2 * c - r + k)), off), k, r);
        vs_store16((int16_t *)out + c, vs_srl(m, 16));
    }
    return 1;
}

void V_NAME(sq_vif_sub_row)(const uint16_t *x, ptrdiff_t xs, int w, int h, int s, int bpc,
                            int i, uint32_t *t, uint16_t *out)
{
    if (s == 1 && bpc <= 15 && w >= 2 * VS_N && vi_sub_row_zip(x, xs, w, h, bpc, i, t, out))
        return;
    const int r = sq_vi_half(s), sh = s == 1 ? bpc : 16;
    const uint8_t *xr[9];
    for (int k = 0; k <= 2 * r; k++)
        xr[k] = (const uint8_t *)(x + (int64_t)sq_mirror(2 * i - r + k, h) * xs);
    const vs rnd = vs_set1(1 << (sh - 1)), h16 = vs_set1(32768);
    int j = 0;
    for (; j + VS_N <= w; j += VS_N) {
        vs m = vs_set1(0);
        for (int k = 0; k <= 2 * r; k++)
            m = vs_add(m, vs_mul(vs_set1((int32_t)sq_vi_tap(s, k)), vs_u16(xr[k] + 2 * j)));
        vs_store((int32_t *)t + j, vs_srl(vs_add(m, rnd), sh));
    }
    sq_vi_sub_vrow(x, xs, h, s, bpc, i, j, w, t);
    sq_vi_pad(t, w, r);
    /* the horizontal pass at every column of a vector, its even ones kept */
    const int n = w / 2;
    j = 0;
    for (; 2 * j + VS_N <= 2 * n; j += VS_N / 2) {
        vs m = vs_set1(0);
        for (int k = 0; k <= 2 * r; k++)
            m = vs_add(m, vs_mul(vs_set1((int32_t)sq_vi_tap(s, k)),
                                 vs_load((const int32_t *)t + 2 * j - r + k)));
        int32_t o[VS_N];
        vs_store(o, vs_srl(vs_add(m, h16), 16));
        for (int l = 0; l < VS_N / 2; l++)
            out[j + l] = (uint16_t)o[2 * l];
    }
    sq_vi_sub_hrow(t, s, j, n, out);
}
