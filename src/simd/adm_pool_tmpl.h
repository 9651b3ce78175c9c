/*
 * libvmaf's integer ADM pooling (math/vmaf_adm_pool.h, sq_va_scale_pool)
 * over VS_N 32-bit lanes and their 64-bit halves (vq), written once for
 * AVX2, AVX-512 and NEON: the denominator (sq_va_den), the masking rows
 * (sq_va_cm_rows_sum) and a row of the AIM pass's CSF (sq_va_csf_sum_at). Included
 * by simd/adm_tmpl.h.
 *
 * Every lane does the scalar code's integer operations, only narrower
 * where the narrowing is exact:
 * - scale 0's planes hold int16 values (libvmaf stores them so), so
 *   X * ir (ir < 2^16), the CSF products and k |a| of the fine mask and
 *   the centre term are exact in 32-bit lanes, and a truncation to int32
 *   is the low half anyway;
 * - a truncation of an i64 to int32 keeps bits that any shift of 28 or 32
 *   leaves in the low half, so logical shifts of 64-bit lanes do;
 * - scales 1..3's X * ir (ir up to 2^32 - 1) is the signed 32 x 32 product
 *   with ir's int32 pattern plus X * 2^32 when ir >= 2^31, and the latter
 *   adds exactly X * 16 after the shift by 28;
 * - the masked value x lies in [0, 2^31): x^2 is an unsigned 32 x 32
 *   product, (i32)xsq * x a signed one (xsq may wrap negative, as in C),
 *   and the last shift is arithmetic;
 * - the thresholds and the row sums wrap (u32, i64) as the scalar ones do,
 *   so the order of their additions is free.
 * Columns whose neighbours the mirror moves, and a row's last columns
 * short of a vector, take the scalar code.
 */
#include "math/vmaf_adm_pool.h"

/* the high half of |a| * k - 2^31: scales 1..3's fine mask and centre term */
V_AI vs adm_mulhi(vs a, int64_t k)
{
    /* vs_abs leaves INT32_MIN's pattern, 2^31 unsigned: the i64 magnitude */
    const vs u = vs_abs(a);
    const vq kv = vq_set1(k), rnd = vq_set1(SQ_VA_RND32);
    return vs_pack_hi(vq_add(vq_mul_u(vq_even(u), kv), rnd),
                      vq_add(vq_mul_u(vq_odd(u), kv), rnd));
}

/* scale 0: i16((k |a| + 2048) >> 12) */
V_AI vs adm_q12(vs a, int32_t k)
{
    return adm_i16(vs_sra(vs_add(vs_mul(vs_abs(a), vs_set1(k)), vs_set1(2048)), 12));
}

V_AI vs adm_centre(int s0, vs a)
{
    return s0 ? adm_q12(a, 8738) : adm_mulhi(a, 286331153);
}

V_AI vs adm_fine(int s0, vs a)
{
    return s0 ? adm_q12(a, 4369) : adm_mulhi(a, 143165577);
}

/* (int32)((x * ir + 2^27) >> 28): scales 1..3's CSF */
V_AI vs adm_csf28(vs x, uint32_t ir)
{
    const vq k = vq_set1((int64_t)ir), rnd = vq_set1((int64_t)1 << 27);
    const vq e = vq_srl(vq_add(vq_mul_s(vq_even(x), k), rnd), 28);
    const vq o = vq_srl(vq_add(vq_mul_s(vq_odd(x), k), rnd), 28);
    const vs v = vs_pack_lo(e, o);
    return ir >> 31 ? vs_add(v, vs_sll(x, 4)) : v;
}

/* scale 0's CSF of orientation th */
V_AI vs adm_csf0(vs x, int th, uint32_t ir)
{
    const vs p = vs_mul(x, vs_set1((int32_t)ir));
    return th < 2 ? adm_i16(vs_sra(vs_add(p, vs_set1(16384)), 15))
                  : adm_i16(vs_sra(vs_add(p, vs_set1(65535)), 17));
}

/* sq_va_cm_val's last steps on x in [0, 2^31), the lanes' values added pairwise */
V_AI vq adm_cube(vs x, int q, int c)
{
    const vq rq = vq_set1((int64_t)1 << (q - 1)), rc = vq_set1(sq_va_half(c));
    const vq xe = vq_even(x), xo = vq_odd(x);
    const vq se = vq_srl(vq_add(vq_mul_u(xe, xe), rq), q);
    const vq so = vq_srl(vq_add(vq_mul_u(xo, xo), rq), q);
    return vq_add(vq_sra(vq_add(vq_mul_s(se, xe), rc), c), vq_sra(vq_add(vq_mul_s(so, xo), rc), c));
}

/* sq_va_cm_val of VS_N positions against their thresholds t */
V_AI vq adm_cm_vec(int s0, int th, uint32_t ir, vs X, vs t, int c)
{
    vs d;
    if (s0)
        d = vs_sub(vs_abs(vs_mul(X, vs_set1((int32_t)ir))), vs_sll(t, th < 2 ? 10 : 12));
    else
        d = vs_sub(vs_abs(adm_csf28(X, ir)), t);
    return adm_cube(vs_max(d, vs_set1(0)), s0 && th < 2 ? 29 : 30, c);
}

/* sq_va_cm_rows_sum's term of position j into inner (the scalar columns) */
static void adm_cm_at(int scale, const SqVaScale *p, const int32_t *const *X,
                      const int32_t *const *A, const uint32_t *S, int w, int64_t mid,
                      const uint32_t *vsum, int j, const int *c, int64_t *inner)
{
    uint32_t t = vsum[sq_va_mirror(j - 1, w)] + vsum[j] + vsum[sq_va_mirror(j + 1, w)] - S[mid + j];
    for (int th = 0; th < 3; th++)
        t += (uint32_t)sq_va_centre(scale, A[th][mid + j]);
    for (int th = 0; th < 3; th++)
        inner[th] = sq_va_wadd(inner[th],
                               sq_va_cm_val(scale, th, p->ir[th], X[th][mid + j], (int32_t)t, c[th]));
}

/* positions [j0, j1) (a multiple of VS_N, neighbours in place) into inner */
V_AI void adm_cm_span(int s0, const uint32_t *ir, const int32_t *const *X,
                      const int32_t *const *A, const int32_t *S, int64_t mid,
                      const uint32_t *vsum, int j0, int j1, const int *c, int64_t *inner)
{
    vq acc[3] = { vq_set1(0), vq_set1(0), vq_set1(0) };
    for (int j = j0; j < j1; j += VS_N) {
        const int32_t *v = (const int32_t *)vsum + j;
        vs t = vs_sub(vs_add(vs_add(vs_load(v - 1), vs_load(v)), vs_load(v + 1)),
                      vs_load(S + mid + j));
        for (int th = 0; th < 3; th++)
            t = vs_add(t, adm_centre(s0, vs_load(A[th] + mid + j)));
        for (int th = 0; th < 3; th++)
            acc[th] = vq_add(acc[th], adm_cm_vec(s0, th, ir[th], vs_load(X[th] + mid + j), t, c[th]));
    }
    for (int th = 0; th < 3; th++)
        inner[th] = sq_va_wadd(inner[th], (int64_t)vq_hsum(acc[th]));
}

/* vsum[k] for k in [k0, k1): the u32 sums of S over the rows up, mid, dn */
static void adm_colsums(const int32_t *S, int64_t up, int64_t mid, int64_t dn, int k0, int k1,
                        uint32_t *vsum)
{
    int k = k0;
    for (; k + VS_N <= k1; k += VS_N)
        vs_store((int32_t *)vsum + k, vs_add(vs_add(vs_load(S + up + k), vs_load(S + mid + k)),
                                             vs_load(S + dn + k)));
    for (; k < k1; k++)
        vsum[k] = (uint32_t)S[up + k] + (uint32_t)S[mid + k] + (uint32_t)S[dn + k];
}

void V_NAME(sq_adm_cm_row)(int scale, const uint32_t *ir, const int32_t *const *X,
                           const int32_t *const *A, const uint32_t *S, int w, int h,
                           int64_t up, int64_t mid, int64_t dn, int64_t *acc, uint32_t *vsum)
{
    const SqVaScale sc = { { ir[0], ir[1], ir[2] }, { 0.0, 0.0, 0.0 } };
    const int l = sq_va_pool_lo(w), r = sq_va_pool_hi(w), rho = sq_va_ceil_log2(h);
    const int c[3] = { sq_va_cm_shift(scale, 0, w), sq_va_cm_shift(scale, 1, w),
                       sq_va_cm_shift(scale, 2, w) };
    if (c[0] < 0) {
        /* bands under 9 wide at scale 0: a negative shift, the scalar code's to define */
        sq_va_cm_rows_sum(scale, &sc, X, A, S, w, h, up, mid, dn, acc, vsum);
        return;
    }
    /* the pointers in locals: the stores to vsum cannot reload them */
    const int32_t *x3[3] = { X[0], X[1], X[2] }, *a3[3] = { A[0], A[1], A[2] };
    const int32_t *s32 = (const int32_t *)S;
    adm_colsums(s32, up, mid, dn, sq_imax(l - 1, 0), sq_imin(r + 1, w), vsum);
    int64_t inner[3] = { 0, 0, 0 };
    /* [a, b): the columns whose two neighbours are in place */
    const int a = sq_imax(l, 1), b = sq_imin(r, w - 1);
    int j = l;
    for (; j < r && j < a; j++)
        adm_cm_at(scale, &sc, X, A, S, w, mid, vsum, j, c, inner);
    const int n = b > j ? (b - j) / VS_N * VS_N : 0;
    if (n && scale == 0)
        adm_cm_span(1, ir, x3, a3, s32, mid, vsum, j, j + n, c, inner);
    else if (n)
        adm_cm_span(0, ir, x3, a3, s32, mid, vsum, j, j + n, c, inner);
    for (j += n; j < r; j++)
        adm_cm_at(scale, &sc, X, A, S, w, mid, vsum, j, c, inner);
    for (int th = 0; th < 3; th++)
        acc[th] = sq_va_wadd(acc[th], sq_va_cm_round(inner[th], rho));
}

/* sq_va_csf_sum_at over positions [0, n) of one row (the AIM pass: src = r) */
V_AI void adm_csf_span(int s, const uint32_t *ir, const int32_t *const *src, int n,
                       int32_t *const *A, uint32_t *S)
{
    /* the pointers in locals: the stores cannot reload them */
    const int32_t *x3[3] = { src[0], src[1], src[2] };
    int32_t *a3[3] = { A[0], A[1], A[2] }, *s1 = (int32_t *)S;
    int j = 0;
    for (; j + VS_N <= n; j += VS_N) {
        vs f = vs_set1(0);
        for (int th = 0; th < 3; th++) {
            const vs x = vs_load(x3[th] + j);
            const vs v = s == 0 ? adm_csf0(x, th, ir[th]) : adm_csf28(x, ir[th]);
            vs_store(a3[th] + j, v);
            f = vs_add(f, adm_fine(s == 0, v));
        }
        vs_store(s1 + j, f);
    }
    const SqVaScale sc = { { ir[0], ir[1], ir[2] }, { 0.0, 0.0, 0.0 } };
    for (; j < n; j++)
        sq_va_csf_sum_at(s, &sc, src, j, A, S);
}

void V_NAME(sq_adm_csf_row)(int s, const uint32_t *ir, const int32_t *const *src, int n,
                            int32_t *const *A, uint32_t *S)
{
    if (s == 0)
        adm_csf_span(0, ir, src, n, A, S);
    else
        adm_csf_span(s, ir, src, n, A, S);
}

/* sq_va_den_val of VS_N magnitudes u, the lanes' values added pairwise (u64) */
V_AI vq adm_den_vec(int s0, int q, vs u, int c)
{
    const vq ue = vq_even(u), uo = vq_odd(u);
    if (s0) {
        /* u <= 2^15: u^2 fits the 32-bit lanes */
        const vs u2 = vs_mul(u, u);
        return vq_add(vq_mul_u(vq_even(u2), ue), vq_mul_u(vq_odd(u2), uo));
    }
    /* sq reaches 2^32 (u = 2^31): its high half multiplies apart, mod 2^64 as the u64 code */
    const vq rq = vq_set1((int64_t)1 << q), rc = vq_set1(sq_va_half(c));
    const vq se = vq_srl(vq_add(vq_mul_u(ue, ue), rq), q);
    const vq so = vq_srl(vq_add(vq_mul_u(uo, uo), rq), q);
    const vq pe = vq_add(vq_mul_u(se, ue), vq_sllv(vq_mul_u(vq_srl(se, 32), ue), vq_set1(32)));
    const vq po = vq_add(vq_mul_u(so, uo), vq_sllv(vq_mul_u(vq_srl(so, 32), uo), vq_set1(32)));
    return vq_add(vq_srl(vq_add(pe, rc), c), vq_srl(vq_add(po, rc), c));
}

/* sq_va_den_row: the row's sums in vq lanes, the tails as the math */
V_AI void adm_den_row(int s, const int32_t *const *row, int l, int r, int c, int rho,
                      uint64_t *acc)
{
    const int q = s == 2 ? 30 : 31;
    for (int th = 0; th < 3; th++) {
        const int32_t *o = row[sq_va_band_of(th)];
        vq v = vq_set1(0);
        int j = l;
        for (; j + VS_N <= r; j += VS_N)
            v = vq_add(v, adm_den_vec(s == 0, q, vs_abs(vs_load(o + j)), c));
        uint64_t sum = vq_hsum(v);
        for (; j < r; j++)
            sum += sq_va_den_val(s, o[j], c);
        acc[th] += sq_va_den_round(sum, rho);
    }
}

/* One row of a scored scale's CSF denominator (scale 0 apart, so that its constants reach the loop). */
void V_NAME(sq_adm_den_row)(int s, const int32_t *const *row, int l, int r, int c, int rho,
                            uint64_t *acc)
{
    if (s == 0)
        adm_den_row(0, row, l, r, c, rho, acc);
    else
        adm_den_row(s, row, l, r, c, rho, acc);
}
