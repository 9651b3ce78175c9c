/*
 * The per-pixel terms of libvmaf's integer VIF (spec vmaf-integer-features
 * 4.4) for simd/vif_tmpl.h, in VD_N double lanes: the sigmas are exact
 * there, the gain, sv and (g g) sigma1 take the scalar code's operations in
 * its order (sv and the product truncated toward zero as its conversions
 * do; n2 < 2^53 adds exactly), and 2048 log2 of an integer v >= 2^16 is its
 * exponent k + 15 and the table at v >> k, whose index is the top 15 bits
 * of v's mantissa (integer lanes, no conversion), read by vq_gather_u16
 * (levels with V_PERM16 compute the entry: vi_logd). The pixel's cases
 * are masks, its terms (integers) summed in double lanes.
 * A vector whose sigma1 are all below the noise skips the logs (vi_sig);
 * levels with vs_compress pack the pixels that take logs instead.
 */
#ifndef SQ_SIMD_VIF_TERMS_TMPL_H
#define SQ_SIMD_VIF_TERMS_TMPL_H


/* mu^2 of u32 means: (m m + 2^31) >> 32 in 64-bit halves, low words packed back. */
static inline vs vi_sq32(vs a, vs b)
{
    const vq h = vq_set1((int64_t)1 << 31);
    return vs_pack_lo(vq_srl(vq_add(vq_mul_u(vq_even(a), vq_even(b)), h), 32),
                      vq_srl(vq_add(vq_mul_u(vq_odd(a), vq_odd(b)), h), 32));
}

/*
 * 2048 log2 of an integer v in [2^16, 2^53) through the table, integer
 * lanes: with k = exponent - 15, v >> k is 1 and the top 15 bits of the
 * mantissa, so the index (v >> k) - 2^15 is those bits as they are.
 */
static inline vq vi_log(vd v, const uint16_t *lt)
{
    const vq b = vd_bits(v);
    const vq k = vq_sub(vq_srl(b, 52), vq_set1(1023 + 15));
    const vq i = vq_and(vq_srl(b, 52 - 15), vq_set1(32767));
    return vq_add(vq_gather_u16(lt, i), vq_sllv(k, vq_set1(11)));
}

#ifdef V_PERM16
/*
 * vi_log without the gather, whose one instruction costs more than the ~17
 * here: 2048 log2 of an integer v in [2^16, 2^53) as a double. The table's
 * entry for v's index i is 2048 f32(log2 i) rounded half away from zero
 * (spec 4.4): any y within 7.3e-9 of log2 i, rounded to float, gives that
 * entry (tools/gen_vif_log2.py computes the margin and the constants). So
 * from x = 1 + (i - 2^15) / 2^15 (v's top 15 mantissa bits under exponent
 * 0): its 16th of [1, 2) gives c ~ 1/x and t = 15 - log2 c from registers,
 * log2 (x c) = log2 (1 + r), |r| <= 1/32, by a degree-4 polynomial
 * (error below 4.8e-10, 15 times inside the margin), and t plus it,
 * rounded to float, gives the entry. Returns the entry plus 2048 times v's
 * exponent plus SQ_VI_LOG_BIAS: 2048 log2 v + 2048 15 + the bias, which
 * the terms' differences cancel. checkkernel's vif_log compares every i at
 * every exponent.
 */
#define SQ_VI_LOG_BIAS 6755399441055744.0
V_AI vd vi_logd(vd v)
{
    static const double inv[16] = {
        0x1.f07c1f07c1f08p-1, 0x1.d41d41d41d41dp-1, 0x1.bacf914c1bad0p-1, 0x1.a41a41a41a41ap-1,
        0x1.8f9c18f9c18fap-1, 0x1.7d05f417d05f4p-1, 0x1.6c16c16c16c17p-1, 0x1.5c9882b931057p-1,
        0x1.4e5e0a72f0539p-1, 0x1.4141414141414p-1, 0x1.3521cfb2b78c1p-1, 0x1.29e4129e4129ep-1,
        0x1.1f7047dc11f70p-1, 0x1.15b1e5f75270dp-1, 0x1.0c9714fbcda3bp-1, 0x1.0410410410410p-1,
    };
    static const double t15[16] = {
        0x1.e16bad3758efep+3, 0x1.e4231623369e8p+3, 0x1.e6b3d78b6d3b2p+3, 0x1.e92203d58703ap+3,
        0x1.eb7110e6ce867p+3, 0x1.eda3f5fb9c415p+3, 0x1.efbd42b465836p+3, 0x1.f1bf311e95d01p+3,
        0x1.f3abb3faa0216p+3, 0x1.f5848226989d3p+3, 0x1.f74b1fd64e075p+3, 0x1.f900e6160002dp+3,
        0x1.faa708f58014dp+3, 0x1.fc3e9ca2e1a05p+3, 0x1.fdc899ab3ff57p+3, 0x1.ff45e08bcf065p+3,
    };
    /* log2 (1 + r) ~ r (cf[0] + r (cf[1] + r (cf[2] + r cf[3]))) on |r| <= 0.0304 (Chebyshev) */
    static const double cf[4] = {
        0x1.71547507b088bp+0, -0x1.7154742afaefap-1, 0x1.ecc80d48c1164p-2, -0x1.719d53df5538ep-2,
    };
    const vq b = vd_bits(v);
    const vq seg = vq_srl(b, 48); /* the top 4 mantissa bits lowest: the lookup's index */
    const vd x = vq_bits(vq_or(vq_and(b, vq_set1(0x000fffe000000000)), vq_set1(0x3ff0000000000000)));
    const vd r = vd_fma(x, vd_perm16(vd_load(inv), vd_load(inv + 8), seg), vd_set1(-1.0));
    vd p = vd_set1(cf[3]);
    for (int n = 2; n >= 0; n--)
        p = vd_fma(p, r, vd_set1(cf[n]));
    const vd y = vd_fma(p, r, vd_perm16(vd_load(t15), vd_load(t15 + 8), seg));
    /* y rounded to float: to a multiple of 2^-20 (a float's spacing in [8, 16)), to even, as
     * the conversion rounds, by adding and taking back 1.5 2^32 (whose spacing is 2^-20) */
    const vd c = vd_set1(6442450944.0);
    const vd f = vd_sub(vd_add(y, c), c);
    /* floor(2048 f + 1/2) = 2048 f + 2^-10 rounded to nearest (2048 f is a multiple of 2^-9,
     * so no tie), as added to SQ_VI_LOG_BIAS (1.5 2^52, spacing 1): the bias stays */
    const vd e = vd_add(vd_fma(f, vd_set1(2048.0), vd_set1(0x1p-10)), vd_set1(SQ_VI_LOG_BIAS));
    return vd_fma(vd_getexp(v), vd_set1(2048.0), e);
}
#endif

/*
 * VD_N pixels' log terms (sq_vi_pixel's num_log and den_log) added to a0,
 * a1, each masked to the pixels it has (mden: sigma1 >= SQ_VI_NSQ): a lane
 * without a term takes its logs of 2^17, whose 2048 log2 is the den
 * term's 2048 * 17, so both terms are 0 there. The terms are integers
 * below 2^31 and a row's sums below 2^53, so double lanes add them exactly
 * in any order. Returns mden.
 */
V_AI vdm vi_logs(vd s1, vd s2, vd s12, double egl, const uint16_t *lt, vd *a0, vd *a1)
{
    const vd zero = vd_set1(0.0), nsq = vd_set1((double)SQ_VI_NSQ), safe = vd_set1(131072.0);
    const vd eps = vd_mul(vd_set1(65536.0), vd_set1(1e-10)); /* as the math's constant */
    const vdm mden = vd_le(nsq, s1);
    const vdm mnum = vdm_and(mden, vdm_and(vd_lt(zero, s12), vd_lt(zero, s2)));
    vd g = vd_div(s12, vd_add(s1, eps));
    const vd sv = vd_max(vd_trunc(vd_sub(s2, vd_mul(g, s12))), zero);
    g = vd_min(g, vd_set1(egl));
    const vd n1 = vd_add(sv, nsq);
    const vd n2 = vd_add(vd_trunc(vd_mul(vd_mul(g, g), s1)), n1);
#ifdef V_PERM16
    (void)lt;
    const vd den = vd_sub(vi_logd(vd_sel(mden, vd_add(s1, nsq), safe)),
                          vd_set1(SQ_VI_LOG_BIAS + 2048.0 * (17 + 15)));
    const vd num = vd_sub(vi_logd(vd_sel(mnum, n2, safe)), vi_logd(vd_sel(mnum, n1, safe)));
    *a0 = vd_add(*a0, num);
    *a1 = vd_add(*a1, den);
#else
    const vq den = vq_sub(vi_log(vd_sel(mden, vd_add(s1, nsq), safe), lt), vq_set1(2048 * 17));
    const vq num = vq_sub(vi_log(vd_sel(mnum, n2, safe), lt), vi_log(vd_sel(mnum, n1, safe), lt));
    *a0 = vd_add(*a0, vq_to_vd(num));
    *a1 = vd_add(*a1, vq_to_vd(den));
#endif
    return mden;
}

/*
 * sq_vi_pixel of n (a multiple of VD_N) pixels' sigmas g1, g2, g12 into the
 * lanes of acc[4] (num_log, den_log, num_nonlog, den_nonlog): branchless,
 * the masks selecting each term or 0.
 */
static void vi_terms(const int32_t *g1, const int32_t *g2, const int32_t *g12, int n, double egl,
                     const uint16_t *lt, vd *acc)
{
    const vd zero = vd_set1(0.0), one = vd_set1(1.0);
    for (int l = 0; l < n; l += VD_N) {
        const vd s2 = vd_load_i32(g2 + l);
        const vdm mden = vi_logs(vd_load_i32(g1 + l), s2, vd_load_i32(g12 + l), egl, lt, &acc[0], &acc[1]);
        acc[2] = vd_add(acc[2], vd_sel(mden, zero, s2));
        acc[3] = vd_add(acc[3], vd_sel(mden, zero, one));
    }
}

#ifdef V_COMPRESS
/*
 * A chunk's sigmas whose sigma1 reach the noise, packed by vi_sig_pack,
 * then their log terms in one pass (vi_logterms): no branch a vector, no
 * logs for flat lanes of mixed vectors, and the pass's iterations are
 * independent, so one's division and gathers overlap the next's.
 */
#define VI_PK (2 * 8 * VS_N + 2 * VD_N)
typedef struct ViPack {
    int32_t g1[VI_PK], g2[VI_PK], g12[VI_PK];
    int n;
} ViPack;

/*
 * The log terms (num_log, den_log into acc[0], acc[1]) of pk's sigmas, all
 * with sigma1 >= SQ_VI_NSQ; the pad to a whole vector has sigma1 0, which
 * the den mask leaves out. Empties pk.
 */
static void vi_logterms(ViPack *pk, double egl, const uint16_t *lt, vd *acc)
{
    for (; pk->n % VD_N; pk->n++)
        pk->g1[pk->n] = pk->g2[pk->n] = pk->g12[pk->n] = 0;
    vd a0 = acc[0], a1 = acc[1];
    for (int l = 0; l < pk->n; l += VD_N)
        vi_logs(vd_load_i32(pk->g1 + l), vd_load_i32(pk->g2 + l), vd_load_i32(pk->g12 + l), egl, lt,
                &a0, &a1);
    acc[0] = a0;
    acc[1] = a1;
    pk->n = 0;
}

/*
 * One vector's sigmas: the flat lanes' sigma2 added to *s2 (their other
 * no-log term is their count), the others packed at g1, g2, g12 (VS_N
 * lanes written); returns how many were packed. Counts and sums stay in
 * the caller's locals: through pk they would be reloaded after every
 * packed store.
 */
V_AI int vi_sig_pack(vs m1, vs m2, vs xx, vs yy, vs xy, int32_t *g1, int32_t *g2, int32_t *g12,
                     vd *s2)
{
    const vs s1 = vs_sub(xx, vi_sq32(m1, m1));
    const vs sg2 = vs_max(vs_sub(yy, vi_sq32(m2, m2)), vs_set1(0));
    const vs s12 = vs_sub(xy, vi_sq32(m1, m2));
    const vs nf = vs_gt(s1, vs_set1(SQ_VI_NSQ - 1));
    int32_t f2[VS_N];
    vs_store(f2, vs_and(vs_xor(nf, vs_set1(-1)), sg2));
    for (int l = 0; l < VS_N; l += VD_N)
        *s2 = vd_add(*s2, vd_load_i32(f2 + l));
    const int c = vs_compress(g1, nf, s1);
    vs_compress(g2, nf, sg2);
    vs_compress(g12, nf, s12);
    return c;
}
#endif

/* One vector's sigmas into the sums: the logs' terms, or for all-flat sigma1 the no-log terms alone. */
V_AI void vi_sig(vs m1, vs m2, vs xx, vs yy, vs xy, double egl, const uint16_t *lt, vd *sums)
{
    const vs s1 = vs_sub(xx, vi_sq32(m1, m1));
    const vs s2 = vs_max(vs_sub(yy, vi_sq32(m2, m2)), vs_set1(0));
    const vs s12 = vs_sub(xy, vi_sq32(m1, m2));
    int32_t g1[VS_N], g2[VS_N], g12[VS_N];
    vs_store(g2, s2);
    if (!vs_any(vs_gt(s1, vs_set1(SQ_VI_NSQ - 1)))) {
        /* every sigma1 below the noise (flat areas, common): no logs to take */
        for (int l = 0; l < VS_N; l += VD_N) {
            sums[2] = vd_add(sums[2], vd_load_i32(g2 + l));
            sums[3] = vd_add(sums[3], vd_set1(1.0));
        }
        return;
    }
    vs_store(g1, s1);
    vs_store(g12, s12);
    vi_terms(g1, g2, g12, VS_N, egl, lt, sums);
}


#endif
