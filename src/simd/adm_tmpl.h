/*
 * libvmaf's integer ADM, scale 0's decouple and CSF (math/vmaf_adm.h's
 * sq_va_decouple_at and sq_va_csf_at) over a run of band positions, the
 * restored values in double lanes. At scale 0 the bands are int16, so
 * every i64 product and sum of the scalar code is an integer below 2^53,
 * exact in a double: its shifts become floors of exact quotients by powers
 * of two, its casts to float one rounding of the same exact value; its
 * int16 stores of the restored value change nothing for egl >= 0 (the
 * option's range is [1, 100]), and those after it are in 32-bit lanes.
 * Scales 1..3 multiply past 2^53: their kernel (sq_adm_decs) takes the
 * products in 64-bit integer lanes (vq) and only values below 2^47 in
 * doubles. Also the DWT (simd/adm_dwt_tmpl.h) and the pooling
 * (simd/adm_pool_tmpl.h).
 *
 * Included by an ISA's file after its vec_*.h (V_NAME names the function).
 */
#include "math/vmaf_adm_pool.h"
#include "simd/adm_dwt_tmpl.h"
#include "simd/adm_pool_tmpl.h"

/* floor((x + add) / 2^sh) of an exact integer x: C's (x + add) >> sh on an i64 */
V_AI vd vd_shr(vd x, double add, double inv)
{
    return vd_floor(vd_mul(vd_add(x, vd_set1(add)), vd_set1(inv)));
}

/*
 * sq_va_restore's end, every scale: rst = k * o in Q15, then inside the
 * angle the enhancement limit (egl >= 0 keeps trunc(g) between 0 and t: at
 * scale 0 no int16 wrap either). oz: the lanes where o is 0.
 */
V_AI vd adm_limit(vd k, vd o, vd t, vdm oz, vdm angle, vd egl)
{
    const vd zero = vd_zero();
    const vd rst = vd_shr(vd_mul(k, o), 16384.0, 0x1p-15);
    const vd g = vd_mul(rst, egl);
    const vdm pos = vd_lt(zero, o);
    const vdm keep = vdm_or(vdm_and(pos, vd_lt(g, t)), vdm_andn(vd_lt(t, g), pos));
    const vdm lim = vdm_andn(vdm_and(angle, vd_lt(zero, k)), oz);
    return vd_sel(lim, vd_sel(keep, vd_trunc(g), t), rst);
}

/* sq_va_restore at scale 0 (the gain, its clamp, the angle's enhancement limit) */
V_AI vd adm_restore0(vd o, vd t, vdm angle, vd egl)
{
    const vd zero = vd_zero(), full = vd_set1(32768.0);
    const vdm oz = vd_eq(o, zero);
    const vd q = vd_trunc(vd_div(vd_set1(1073741824.0), vd_sel(oz, vd_set1(1.0), o)));
    vd k = vd_shr(vd_mul(q, t), 16384.0, 0x1p-15);
    k = vd_sel(oz, full, vd_min(vd_max(k, zero), full));
    /* k in [0, 2^15] and int16 o: rst is in int16's range already (no wrap) */
    return adm_limit(k, o, t, oz, angle, egl);
}

/*
 * sq_va_angle after its sums: dpf, omf, tmf are the i64 sums o.t, o.o, t.t
 * rounded to float (every scale's kernel rounds its own way); the lanes
 * where the vectors are within one degree.
 */
V_AI vdm adm_angle(vd dpf, vd omf, vd tmf)
{
    const vd s12 = vd_set1(0x1p-12);
    const vd dp = vd_mul(dpf, s12), om = vd_mul(omf, s12), tm = vd_mul(tmf, s12);
    const vd rhs = vd_mul(vd_mul(vd_set1((double)0x1.ffd814p-1f), om), tm);
    return vdm_and(vd_le(vd_zero(), dp), vd_le(rhs, vd_mul(dp, dp)));
}

/* VD_N restored values from offset j of the row's bands */
V_AI void adm_dec0_vec(const int32_t *const *ob, const int32_t *const *tb, int j, vd egl,
                       int32_t *const *r)
{
    const vd oh = vd_load_i32(ob[SQ_VA_H] + j), ov = vd_load_i32(ob[SQ_VA_V] + j);
    const vd th = vd_load_i32(tb[SQ_VA_H] + j), tv = vd_load_i32(tb[SQ_VA_V] + j);
    const vdm angle = adm_angle(vd_f32(vd_add(vd_mul(oh, th), vd_mul(ov, tv))),
                                vd_f32(vd_add(vd_mul(oh, oh), vd_mul(ov, ov))),
                                vd_f32(vd_add(vd_mul(th, th), vd_mul(tv, tv))));
    for (int o = 0; o < 3; o++) {
        const int b = sq_va_band_of(o);
        const vd t = o == 0 ? th : o == 1 ? tv : vd_load_i32(tb[b] + j);
        const vd rst = adm_restore0(o == 0 ? oh : o == 1 ? ov : vd_load_i32(ob[b] + j), t, angle, egl);
        vd_store_i32(r[o] + j, rst);
    }
}

/*
 * VS_N positions from j: e = i16(t - r), its CSF and the fine masks' sum
 * (S), in 32-bit lanes (int16 values: every product fits,
 * simd/adm_pool_tmpl.h)
 */
V_AI void adm_dec0_csf(const int32_t *const *tb, int j, const uint32_t *ir, int32_t *const *r,
                       int32_t *const *e, int32_t *const *A, int32_t *S)
{
    vs f = vs_set1(0);
    for (int o = 0; o < 3; o++) {
        const vs err = adm_i16(vs_sub(vs_load(tb[sq_va_band_of(o)] + j), vs_load(r[o] + j)));
        const vs a = adm_csf0(err, o, ir[o]);
        vs_store(e[o] + j, err);
        vs_store(A[o] + j, a);
        f = vs_add(f, adm_fine(1, a));
    }
    vs_store(S + j, f);
}

/*
 * Scale 0 in 32-bit lanes, for an integer enhancement limit E in [0, 2^15)
 * (1 and libvmaf's default 100 among them), VS_N positions at a time. The
 * int16 bands keep every step within 32 bits:
 * - the angle's sums o.t, o.o, t.t are sums of two int16 products
 *   (vs_madd16v); only all four at -32768 reach 2^31, which wraps to
 *   INT32_MIN, a value the sums never take otherwise (they are >= -2^31 +
 *   2^16), so its float's sign is flipped back (adm_sumf);
 * - q = trunc(2^30 / o) (adm_div0), |q| <= 2^30, splits as q = qh 2^15 +
 *   ql, ql in [0, 2^15): (q t + 2^14) >> 15 = qh t + ((ql t + 2^14) >> 15),
 *   |qh t| <= 2^30, ql t < 2^30;
 * - k in [0, 2^15] times int16 o is within 2^30, and rst = (k o + 2^14) >>
 *   15 within int16 (no wrap); g = rst E below 2^30 is the double product
 *   exactly, its truncation itself;
 * - where o is 0, rst is 0 whatever k (the scalar code's 32768 changes
 *   nothing there, and the limit does not apply), so k needs no select.
 */

/*
 * adm_angle on the float sums themselves: dividing them by 4096 scales
 * every product by a power of two (the values are integers or 0, far from
 * underflow), so each rounding and the comparison come out alike
 */
V_AI vdm adm_angle_f(vd dpf, vd omf, vd tmf)
{
    const vd rhs = vd_mul(vd_mul(vd_set1((double)0x1.ffd814p-1f), omf), tmf);
    return vdm_and(vd_le(vd_zero(), dpf), vd_le(rhs, vd_mul(dpf, dpf)));
}

/* (float) of an angle sum from its 32-bit lane: INT32_MIN stands for +2^31 */
V_AI vf adm_sumf(vs v)
{
    const vs fix = vs_and(vs_gt(vs_set1(-INT32_MAX), v), vs_set1(INT32_MIN));
    return vs_as_vf(vs_xor(vf_bits(vs_to_vf(v)), fix));
}

/*
 * floor(2^30 / m) for m in [1, 2^15] in float lanes: f = fl(2^30 / m) is
 * within 2^30 / m * 2^-24 <= 64 of the quotient, so r = 2^30 - trunc(f) m
 * is exact (|r| <= 65 m < 2^22, no int32 wrap either), and floor(fl(r /
 * m)) is floor(r / m): a quotient that is not an integer lies 1 / m >=
 * 2^-15 from one, the rounding moves it by at most 65 * 2^-24. checkkernel
 * runs every m (adm_dec0 with every int16 o).
 */
V_AI vs adm_div0(vs m)
{
    const vf mf = vs_to_vf(m);
    const vs qi = vf_cvtt(vf_div(vf_set1(1073741824.0f), mf));
    const vs r = vs_sub(vs_set1(1 << 30), vs_mul(qi, m));
    return vs_add(qi, vf_cvtt(vf_floor(vf_div(vs_to_vf(r), mf))));
}

/* sq_va_restore at scale 0 of int16 o, t; angle: lanes of all ones within the angle */
V_AI vs adm_restore0i(vs o, vs t, vs angle, vs egl, int e1)
{
    const vs zero = vs_set1(0), sg = vs_sra(o, 31), m = vs_abs(o);
    const vs q0 = adm_div0(vs_max(m, vs_set1(1)));
    const vs q = vs_sub(vs_xor(q0, sg), sg);
    const vs qh = vs_sra(q, 15), ql = vs_and(q, vs_set1(32767));
    vs k = vs_add(vs_mul(qh, t), vs_sra(vs_add(vs_mul(ql, t), vs_set1(16384)), 15));
    k = vs_min(vs_max(k, zero), vs_set1(32768));
    const vs rst = vs_sra(vs_add(vs_mul(k, o), vs_set1(16384)), 15);
    const vs g = e1 ? rst : vs_mul(rst, egl); /* e1: E = 1, the v1.0.16 models' */
    /* the limit's lanes: k > 0 and o != 0, both >= 0 in magnitude, so their minimum > 0 */
    const vs lim = vs_and(angle, vs_gt(vs_min(k, m), zero));
    /* inside it: o > 0 keeps g below t (min), o < 0 above t (max) */
    return vs_sel(lim, vs_sel(vs_gt(o, zero), vs_min(g, t), vs_max(g, t)), rst);
}

/* VS_N positions from j: r, e, A and S at once (integer egl) */
V_AI void adm_dec0_int(const int32_t *const *ob, const int32_t *const *tb, int j, vs egl, int e1,
                       const uint32_t *ir, int32_t *const *r, int32_t *const *e,
                       int32_t *const *A, int32_t *S)
{
    const vs m16 = vs_set1(0xffff);
    const vs oh = vs_load(ob[SQ_VA_H] + j), ov = vs_load(ob[SQ_VA_V] + j);
    const vs th = vs_load(tb[SQ_VA_H] + j), tv = vs_load(tb[SQ_VA_V] + j);
    /* (h, v) as int16 pairs */
    const vs po = vs_or(vs_and(oh, m16), vs_sll(ov, 16)), pt = vs_or(vs_and(th, m16), vs_sll(tv, 16));
    const vf dp = adm_sumf(vs_madd16v(po, pt)), om = adm_sumf(vs_madd16v(po, po)),
             tm = adm_sumf(vs_madd16v(pt, pt));
    const vs angle = vdm2_vs(adm_angle_f(vf_lo_vd(dp), vf_lo_vd(om), vf_lo_vd(tm)),
                             adm_angle_f(vf_hi_vd(dp), vf_hi_vd(om), vf_hi_vd(tm)));
    vs f = vs_set1(0);
    for (int o = 0; o < 3; o++) {
        const int b = sq_va_band_of(o);
        const vs t = o == 0 ? th : o == 1 ? tv : vs_load(tb[b] + j);
        const vs rst = adm_restore0i(o == 0 ? oh : o == 1 ? ov : vs_load(ob[b] + j), t, angle, egl, e1);
        const vs err = adm_i16(vs_sub(t, rst));
        const vs a = adm_csf0(err, o, ir[o]);
        vs_store(r[o] + j, rst);
        vs_store(e[o] + j, err);
        vs_store(A[o] + j, a);
        f = vs_add(f, adm_fine(1, a));
    }
    vs_store(S + j, f);
}

/* positions [0, n >= VS_N) by adm_dec0_int, the last vector moved back */
V_AI void adm_dec0_ints(const int32_t *const *ob, const int32_t *const *tb, int n, vs egl, int e1,
                        const uint32_t *ir, int32_t *const *r, int32_t *const *e,
                        int32_t *const *A, int32_t *S)
{
    int j = 0;
    for (; j + VS_N <= n; j += VS_N)
        adm_dec0_int(ob, tb, j, egl, e1, ir, r, e, A, S);
    if (j < n)
        adm_dec0_int(ob, tb, n - VS_N, egl, e1, ir, r, e, A, S);
}

/*
 * Positions [0, n) of one row: ob, tb the bands at the row's first position,
 * r, e, A likewise (by orientation h, v, d) and S, ir the scale's three CSF
 * factors. The restored values in double lanes over the row, then e, A and
 * S in 32-bit lanes. Rows shorter than VS_N take the scalar code; the last
 * vector of either pass moves back over positions already written (the
 * same values again).
 */
void V_NAME(sq_adm_dec0)(const int32_t *const *ob, const int32_t *const *tb, int n, double egl,
                    const uint32_t *ir, int32_t *const *r, int32_t *const *e, int32_t *const *A,
                    uint32_t *S)
{
    if (n < VS_N) {
        const SqVaScale sc = { { ir[0], ir[1], ir[2] }, { 0.0, 0.0, 0.0 } };
        for (int j = 0; j < n; j++) {
            sq_va_decouple_at(0, ob, tb, j, egl, r, e);
            sq_va_csf_sum_at(0, &sc, (const int32_t *const *)e, j, A, S);
        }
        return;
    }
    /* the pointers in locals: stores through them cannot change locals, so they stay in registers */
    const int32_t *o4[4] = { ob[0], ob[1], ob[2], ob[3] }, *t4[4] = { tb[0], tb[1], tb[2], tb[3] };
    int32_t *r3[3] = { r[0], r[1], r[2] }, *e3[3] = { e[0], e[1], e[2] };
    int32_t *a3[3] = { A[0], A[1], A[2] }, *s1 = (int32_t *)S;
    int j = 0;
    if (egl >= 0.0 && egl < 32768.0 && egl == (double)(int32_t)egl) {
        const vs ge = vs_set1((int32_t)egl);
        if (egl == 1.0)
            adm_dec0_ints(o4, t4, n, ge, 1, ir, r3, e3, a3, s1);
        else
            adm_dec0_ints(o4, t4, n, ge, 0, ir, r3, e3, a3, s1);
        return;
    }
    const vd g = vd_set1(egl);
    for (; j + VD_N <= n; j += VD_N)
        adm_dec0_vec(o4, t4, j, g, r3);
    if (j < n)
        adm_dec0_vec(o4, t4, n - VD_N, g, r3);
    for (j = 0; j + VS_N <= n; j += VS_N)
        adm_dec0_csf(t4, j, ir, r3, e3, a3, s1);
    if (j < n)
        adm_dec0_csf(t4, n - VS_N, ir, r3, e3, a3, s1);
}

/*
 * sq_va_restore at scales 1..3: o, t as doubles (exact) and as vq lanes.
 * The gain's products reach 2^61, so they are vq's; the rounding of |o| to
 * 15 bits takes its power of two from the double's exponent: p2 =
 * max(2^floor(log2 |o|), 2^14) is 2^(14 + sh), so q = floor(|o| 2^14 / p2
 * + 1/2) and k = ((div(q) t) s + p2) >> (15 + sh). k o stays below 2^47.
 */
V_AI vd adm_restore_s(vd od, vq oq, vd td, vq tq, vdm angle, vd egl)
{
    const vd zero = vd_zero(), full = vd_set1(32768.0);
    const vdm oz = vd_eq(od, zero);
    const vd m = vd_abs(vd_sel(oz, vd_set1(1.0), od));
    const vd p2 = vd_max(vq_bits(vq_and(vd_bits(m), vq_set1(0x7ff0000000000000ll))),
                         vd_set1(16384.0));
    /* 2^14 / p2 for p2 = 2^e >= 2^14: 2^(14 - e), its exponent field 1023 + 14 - e */
    const vd inv = vq_bits(vq_sub(vq_set1((int64_t)0x80C0000000000000ull), vd_bits(p2)));
    const vd q = vd_floor(vd_add(vd_mul(m, inv), vd_set1(0.5)));
    const vq div = vd_to_vq(vd_trunc(vd_div(vd_set1(1073741824.0), q)));
    const vq sgn = vq_sra(oq, 63);
    const vq num = vq_sub(vq_xor(vq_mul_s(div, tq), sgn), sgn);
    const vq sh = vq_sub(vq_srl(vd_bits(p2), 52), vq_set1(1022)); /* 15 + sh */
    vq k = vq_srav(vq_add(num, vq_sllv(vq_set1(1), vq_sub(sh, vq_set1(1)))), sh);
    k = vq_max(vq_min(k, vq_set1(32768)), vq_set1(0));
    const vd kd = vd_sel(oz, full, vq_to_vd(k));
    return adm_limit(kd, od, td, oz, angle, egl);
}

/* VD_N restored values from offset j (scales 1..3): the angle's i64 sums in vq */
V_AI void adm_decs_vec(const int32_t *const *ob, const int32_t *const *tb, int j, vd egl,
                       int32_t *const *r)
{
    const vq oh = vq_load_i32(ob[SQ_VA_H] + j), ov = vq_load_i32(ob[SQ_VA_V] + j);
    const vq th = vq_load_i32(tb[SQ_VA_H] + j), tv = vq_load_i32(tb[SQ_VA_V] + j);
    const vdm angle = adm_angle(vq_f32d(vq_add(vq_mul_s(oh, th), vq_mul_s(ov, tv))),
                                vq_f32d(vq_add(vq_mul_s(oh, oh), vq_mul_s(ov, ov))),
                                vq_f32d(vq_add(vq_mul_s(th, th), vq_mul_s(tv, tv))));
    for (int o = 0; o < 3; o++) {
        const int b = sq_va_band_of(o);
        const vq oq = o == 0 ? oh : o == 1 ? ov : vq_load_i32(ob[b] + j);
        const vq tq = o == 0 ? th : o == 1 ? tv : vq_load_i32(tb[b] + j);
        const vd rst = adm_restore_s(vd_load_i32(ob[b] + j), oq, vd_load_i32(tb[b] + j), tq,
                                     angle, egl);
        vd_store_i32(r[o] + j, rst);
    }
}

/* VS_N positions from j: e = t - r (wrapping, as the int32 cast), its CSF, the fine masks' sum S */
V_AI void adm_decs_csf(const int32_t *const *tb, int j, const uint32_t *ir, int32_t *const *r,
                       int32_t *const *e, int32_t *const *A, int32_t *S)
{
    vs f = vs_set1(0);
    for (int o = 0; o < 3; o++) {
        const vs err = vs_sub(vs_load(tb[sq_va_band_of(o)] + j), vs_load(r[o] + j));
        const vs a = adm_csf28(err, ir[o]);
        vs_store(e[o] + j, err);
        vs_store(A[o] + j, a);
        f = vs_add(f, adm_fine(0, a));
    }
    vs_store(S + j, f);
}

/*
 * adm_dec0's row at scales 1..3 (which compute alike): the restored values
 * over the row in VD_N lanes, then e, A and S in VS_N lanes. Rows shorter
 * than VS_N take the scalar code; the last vector of either pass moves back
 * over positions already written (the same values again).
 */
void V_NAME(sq_adm_decs)(const int32_t *const *ob, const int32_t *const *tb, int n, double egl,
                         const uint32_t *ir, int32_t *const *r, int32_t *const *e,
                         int32_t *const *A, uint32_t *S)
{
    if (n < VS_N) {
        const SqVaScale sc = { { ir[0], ir[1], ir[2] }, { 0.0, 0.0, 0.0 } };
        for (int j = 0; j < n; j++) {
            sq_va_decouple_at(1, ob, tb, j, egl, r, e);
            sq_va_csf_sum_at(1, &sc, (const int32_t *const *)e, j, A, S);
        }
        return;
    }
    /* the pointers in locals: stores through them cannot change locals, so they stay in registers */
    const int32_t *o4[4] = { ob[0], ob[1], ob[2], ob[3] }, *t4[4] = { tb[0], tb[1], tb[2], tb[3] };
    int32_t *r3[3] = { r[0], r[1], r[2] }, *e3[3] = { e[0], e[1], e[2] };
    int32_t *a3[3] = { A[0], A[1], A[2] }, *s1 = (int32_t *)S;
    const vd g = vd_set1(egl);
    int j = 0;
    for (; j + VD_N <= n; j += VD_N)
        adm_decs_vec(o4, t4, j, g, r3);
    if (j < n)
        adm_decs_vec(o4, t4, n - VD_N, g, r3);
    for (j = 0; j + VS_N <= n; j += VS_N)
        adm_decs_csf(t4, j, ir, r3, e3, a3, s1);
    if (j < n)
        adm_decs_csf(t4, n - VS_N, ir, r3, e3, a3, s1);
}
