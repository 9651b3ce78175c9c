/*
 * The vector operations the kernel templates of src/simd/ are written in,
 * for AVX2 (x86/cov_avx2.c, filter_avx2.c, linalg_avx2.c; built with
 * -mavx2, never -mfma: a multiply and an add stay two roundings). vf: 8
 * floats, vd: 4 doubles, fv: the filters' column vector (vf here), vi: 16
 * words. Tails move the last vector back over outputs already computed
 * (V_MASKED 0): a vmask is only carried along.
 */
#ifndef SQ_SIMD_VEC_AVX2_H
#define SQ_SIMD_VEC_AVX2_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "simd/vec_ops.h"
#include "x86/dsp_x86.h"

#define V_AI static inline __attribute__((always_inline))
#define V_NAME(name) SQ_AVX2(name)
#define VF_N 8
#define VD_N 4
#define FV_N 8
#define VI_N16 16
#define V_MASKED 0
#define V_PREFETCH 1
/* vectors a row pass of the vertical filter adds per step */
#define V_ROWS_UNROLL 2
/* vectors of columns cov_sums adds to all five window sums per chunk */
#define V_COV_SUMS_NV 2
/* cov_rows reads the rows of a lag from a copied band (AVX-512 only) */
#define V_COV_BAND 0

typedef __m256 vf;
typedef __m256d vd;
typedef __m256i vi;

#define V_ALL 0

SQ_V_BASIC(vf, float, vf, _mm256_set1_ps, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_add_ps,
           _mm256_sub_ps, _mm256_mul_ps, _mm256_div_ps)
SQ_V_BASIC(vd, double, vd, _mm256_set1_pd, _mm256_loadu_pd, _mm256_storeu_pd, _mm256_add_pd,
           _mm256_sub_pd, _mm256_mul_pd, _mm256_div_pd)
SQ_V_MOVE_BACK
/* VD_N floats widened (exact) */
V_AI vd vd_load_f32(const float *p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
V_AI vd vf_lo_vd(vf v) { return _mm256_cvtps_pd(_mm256_castps256_ps128(v)); }
V_AI vd vf_hi_vd(vf v) { return _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)); }
V_AI vf vd2_vf(vd lo, vd hi) { return _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)); }

/* v[j] lane i becomes v[i] lane j (4 x 4) */
V_AI void vd_transpose(vd *v)
{
    const __m256d t0 = _mm256_unpacklo_pd(v[0], v[1]), t1 = _mm256_unpackhi_pd(v[0], v[1]);
    const __m256d t2 = _mm256_unpacklo_pd(v[2], v[3]), t3 = _mm256_unpackhi_pd(v[2], v[3]);
    v[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    v[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    v[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    v[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

/* v[j] lane i becomes v[i] lane j (8 x 8) */
V_AI void vf_transpose(vf *v)
{
    __m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpackhi_ps(v[0], v[1]);
    __m256 t2 = _mm256_unpacklo_ps(v[2], v[3]), t3 = _mm256_unpackhi_ps(v[2], v[3]);
    __m256 t4 = _mm256_unpacklo_ps(v[4], v[5]), t5 = _mm256_unpackhi_ps(v[4], v[5]);
    __m256 t6 = _mm256_unpacklo_ps(v[6], v[7]), t7 = _mm256_unpackhi_ps(v[6], v[7]);
    __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xee);
    __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xee);
    __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xee);
    __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xee);
    v[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    v[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    v[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    v[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    v[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    v[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    v[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    v[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

/* lane i: p[16 i] */
V_AI vf vf_gather16(const float *p)
{
    return _mm256_setr_ps(p[0], p[16], p[32], p[48], p[64], p[80], p[96], p[112]);
}

/*
 * sq_log2's split of a positive normal x into m in [sqrt(1/2), sqrt(2)) and
 * its exponent k (as a double, exact): the integer half of the lanes'
 * log2 (simd/log2_tmpl.h). *special: a lane is not a positive normal finite.
 */
V_AI vd vd_log2_split(vd x, unsigned hi_off, unsigned hi_base, vd *kd, int *special)
{
    const __m256i u = _mm256_castpd_si256(x);
    const __m256i spec = _mm256_or_si256(
        _mm256_cmpgt_epi64(_mm256_set1_epi64x(0x0010000000000000ll), u),
        _mm256_cmpgt_epi64(u, _mm256_set1_epi64x(0x7fefffffffffffffll)));
    *special = !_mm256_testz_si256(spec, spec);
    __m256i hx = _mm256_add_epi64(_mm256_srli_epi64(u, 32), _mm256_set1_epi64x(hi_off));
    const __m256i k = _mm256_sub_epi64(_mm256_srli_epi64(hx, 20), _mm256_set1_epi64x(0x3ff));
    hx = _mm256_add_epi64(_mm256_and_si256(hx, _mm256_set1_epi64x(0xfffff)),
                          _mm256_set1_epi64x(hi_base));
    const __m256i kperm = _mm256_permutevar8x32_epi32(k, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
    *kd = _mm256_cvtepi32_pd(_mm256_castsi256_si128(kperm));
    return _mm256_castsi256_pd(_mm256_or_si256(
        _mm256_slli_epi64(hx, 32), _mm256_and_si256(u, _mm256_set1_epi64x(0xffffffffll))));
}

/* The high 32 bits of each lane, the low ones cleared. */
V_AI vd vd_hi32(vd x)
{
    return _mm256_castsi256_pd(_mm256_and_si256(
        _mm256_castpd_si256(x), _mm256_set1_epi64x((long long)0xffffffff00000000ull)));
}

/*
 * The double lanes of the ADM kernels (simd/adm_tmpl.h): int32 in and out
 * (exact: the values are integers), floor and truncation, rounding to
 * float and back, and vdm, a lane mask with its logic and select.
 */
typedef __m256d vdm;
V_AI vd vd_load_i32(const int32_t *p) { return _mm256_cvtepi32_pd(_mm_loadu_si128((const __m128i *)p)); }
V_AI void vd_store_i32(int32_t *p, vd v) { _mm_storeu_si128((__m128i *)p, _mm256_cvttpd_epi32(v)); }
V_AI vd vd_floor(vd v) { return _mm256_round_pd(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
V_AI vd vd_trunc(vd v) { return _mm256_round_pd(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
V_AI vd vd_f32(vd v) { return _mm256_cvtps_pd(_mm256_cvtpd_ps(v)); }
V_AI vd vd_min(vd a, vd b) { return _mm256_min_pd(a, b); }
V_AI vd vd_max(vd a, vd b) { return _mm256_max_pd(a, b); }
V_AI vd vd_abs(vd v) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), v); }
V_AI vdm vd_eq(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
V_AI vdm vd_lt(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
V_AI vdm vd_le(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }
V_AI vdm vdm_and(vdm a, vdm b) { return _mm256_and_pd(a, b); }
V_AI vdm vdm_or(vdm a, vdm b) { return _mm256_or_pd(a, b); }
V_AI vdm vdm_andn(vdm a, vdm b) { return _mm256_andnot_pd(b, a); } /* a and not b */
V_AI vd vd_sel(vdm m, vd t, vd f) { return _mm256_blendv_pd(f, t, m); }

#include "simd/fv_vf.h"

/* FV_N samples as floats: (v - 128), prev - cur, a 16-bit v, prev - cur of 16-bit. */
V_AI fv fv_u8_m128(const uint8_t *p, vmask m)
{
    (void)m;
    const __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
    return _mm256_cvtepi32_ps(_mm256_sub_epi32(v, _mm256_set1_epi32(128)));
}
V_AI fv fv_u8_diff(const uint8_t *prev, const uint8_t *cur, vmask m)
{
    (void)m;
    const __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)cur));
    const __m256i p = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)prev));
    return _mm256_cvtepi32_ps(_mm256_sub_epi32(p, v));
}
V_AI fv fv_u16(const uint8_t *p, vmask m)
{
    (void)m;
    return _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)));
}
V_AI fv fv_u16_diff(const uint8_t *prev, const uint8_t *cur, vmask m)
{
    (void)m;
    const __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)cur));
    const __m256i p = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)prev));
    return _mm256_cvtepi32_ps(_mm256_sub_epi32(p, v));
}

V_AI void v_prefetch_l2(const void *p) { _mm_prefetch((const char *)p, _MM_HINT_T1); }

V_AI vi vi_zero(void) { return _mm256_setzero_si256(); }
V_AI vi vi_load(const uint8_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
V_AI vi vi_or(vi a, vi b) { return _mm256_or_si256(a, b); }
V_AI void vi_store16(uint16_t *p, vi v) { _mm256_storeu_si256((__m256i *)p, v); }

/*
 * vs: VS_N 32-bit integer lanes (simd/motion_tmpl.h). mul keeps the low 32
 * bits of the product, add and sub wrap: the template's u32 sums rely on it.
 */
#define VS_N 8
typedef __m256i vs;
V_AI vs vs_set1(int32_t x) { return _mm256_set1_epi32(x); }
V_AI vs vs_load(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
V_AI void vs_store(int32_t *p, vs v) { _mm256_storeu_si256((__m256i *)p, v); }
V_AI vs vs_add(vs a, vs b) { return _mm256_add_epi32(a, b); }
V_AI vs vs_sub(vs a, vs b) { return _mm256_sub_epi32(a, b); }
V_AI vs vs_mul(vs a, vs b) { return _mm256_mullo_epi32(a, b); }
V_AI vs vs_and(vs a, vs b) { return _mm256_and_si256(a, b); }
V_AI vs vs_or(vs a, vs b) { return _mm256_or_si256(a, b); }
V_AI vs vs_abs(vs v) { return _mm256_abs_epi32(v); }
V_AI vs vs_sra(vs v, int n) { return _mm256_sra_epi32(v, _mm_cvtsi32_si128(n)); }
V_AI vs vs_srl(vs v, int n) { return _mm256_srl_epi32(v, _mm_cvtsi32_si128(n)); }
/* VS_N bytes / 16-bit samples from p, zero extended */
V_AI vs vs_u8(const uint8_t *p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)); }
V_AI vs vs_u16(const uint8_t *p) { return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)); }
/* the lanes' sum mod 2^32 */
V_AI uint32_t vs_hsum(vs v)
{
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return (uint32_t)_mm_cvtsi128_si32(s);
}

V_AI vs vs_max(vs a, vs b) { return _mm256_max_epi32(a, b); }
V_AI vs vs_sll(vs v, int n) { return _mm256_sll_epi32(v, _mm_cvtsi32_si128(n)); }

/*
 * vq: the VS_N / 2 64-bit lanes of a vs register (simd/adm_pool_tmpl.h).
 * vq_even / vq_odd put a vs's even / odd 32-bit elements in the low
 * halves, which is all vq_mul_u / vq_mul_s (32 x 32 -> 64, unsigned /
 * signed) read; vs_pack_lo / vs_pack_hi take the low / high halves of the
 * even and odd lanes back into element order. add and shifts wrap as u64.
 */
typedef __m256i vq;
V_AI vq vq_even(vs v) { return v; }
V_AI vq vq_odd(vs v) { return _mm256_srli_epi64(v, 32); }
V_AI vs vs_pack_lo(vq e, vq o) { return _mm256_blend_epi32(e, _mm256_slli_epi64(o, 32), 0xaa); }
V_AI vs vs_pack_hi(vq e, vq o) { return _mm256_blend_epi32(_mm256_srli_epi64(e, 32), o, 0xaa); }
V_AI vq vq_set1(int64_t x) { return _mm256_set1_epi64x(x); }
V_AI vq vq_add(vq a, vq b) { return _mm256_add_epi64(a, b); }
V_AI vq vq_mul_u(vq a, vq b) { return _mm256_mul_epu32(a, b); }
V_AI vq vq_mul_s(vq a, vq b) { return _mm256_mul_epi32(a, b); }
V_AI vq vq_srl(vq v, int n) { return _mm256_srl_epi64(v, _mm_cvtsi32_si128(n)); }
/* no vpsraq below AVX-512: the logical shift of the one's complement of negative lanes */
V_AI vq vq_sra(vq v, int n)
{
    const __m256i m = _mm256_cmpgt_epi64(_mm256_setzero_si256(), v);
    return _mm256_xor_si256(_mm256_srl_epi64(_mm256_xor_si256(v, m), _mm_cvtsi32_si128(n)), m);
}
V_AI vq vq_sub(vq a, vq b) { return _mm256_sub_epi64(a, b); }
V_AI vq vq_and(vq a, vq b) { return _mm256_and_si256(a, b); }
V_AI vq vq_xor(vq a, vq b) { return _mm256_xor_si256(a, b); }
V_AI vq vq_sllv(vq v, vq n) { return _mm256_sllv_epi64(v, n); }
V_AI vq vq_srav(vq v, vq n)
{
    const __m256i m = _mm256_cmpgt_epi64(_mm256_setzero_si256(), v);
    return _mm256_xor_si256(_mm256_srlv_epi64(_mm256_xor_si256(v, m), n), m);
}
V_AI vq vq_min(vq a, vq b) { return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b)); }
V_AI vq vq_max(vq a, vq b) { return _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b)); }
/* VD_N int32 at p, sign extended */
V_AI vq vq_load_i32(const int32_t *p) { return _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)p)); }
/*
 * a's and then b's elements as int16 in order, pairs in 32-bit lanes:
 * saturation is no change for values in int16's range, the only ones it
 * is given (simd/adm_dwt_tmpl.h)
 */
V_AI vs vs_pack16(vs a, vs b) { return _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xd8); }
/* k0 x + k1 y of each lane's int16 pair (x low, y high) */
V_AI vs vs_madd16(vs p, int k0, int k1)
{
    return _mm256_madd_epi16(p, _mm256_set1_epi32((int32_t)((uint32_t)k1 << 16 | ((uint32_t)k0 & 0xffff))));
}
/*
 * The 2 VS_N u16 of a and of b as VS_N int16 pairs (a's low) in lo and hi,
 * in vpunpck's order (lo: columns 0-3, 8-11; hi the others); vs_store_unzip
 * puts such lo, hi lanes back in column order.
 */
V_AI void vs_zip16(vs a, vs b, vs *lo, vs *hi)
{
    *lo = _mm256_unpacklo_epi16(a, b);
    *hi = _mm256_unpackhi_epi16(a, b);
}
/* lo, hi of vs_zip16's order (values in [0, 65535]) as 2 VS_N u16 at p in column order */
V_AI void vs_store16_unzip(int16_t *p, vs lo, vs hi) { _mm256_storeu_si256((__m256i *)p, _mm256_packus_epi32(lo, hi)); }
V_AI void vs_store_unzip(int32_t *p, vs lo, vs hi)
{
    _mm256_storeu_si256((__m256i *)p, _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256((__m256i *)(p + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
}
/* acc + vs_madd16(p, k0, k1) */
V_AI vs vs_dp16(vs acc, vs p, int k0, int k1) { return _mm256_add_epi32(acc, vs_madd16(p, k0, k1)); }
/* VS_N lanes from 2 VS_N int16 at p: lane k holds p[2k] (low half) and p[2k + 1] */
V_AI vs vs_load16x2(const int16_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
/* the low 16 bits of each lane (an int16 store's wrap), VS_N int16 at p */
V_AI void vs_store16(int16_t *p, vs v)
{
    const __m256i b = _mm256_shuffle_epi8(v, _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1,
                                                              0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1));
    _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(_mm256_permute4x64_epi64(b, 0x08)));
}
/* a.x b.x + a.y b.y of each lane's int16 pairs (x low, y high): scale 0's angle sums */
V_AI vs vs_madd16v(vs a, vs b) { return _mm256_madd_epi16(a, b); }
V_AI vs vs_xor(vs a, vs b) { return _mm256_xor_si256(a, b); }
/* the low 16 bits of the products of the 16-bit halves */
V_AI vs vs_mullo16(vs a, vs b) { return _mm256_mullo_epi16(a, b); }
/* the high 16 bits of the products of the 16-bit halves as u16 */
V_AI vs vs_mulhi16u(vs a, vs b) { return _mm256_mulhi_epu16(a, b); }
V_AI vs vs_min(vs a, vs b) { return _mm256_min_epi32(a, b); }
/* t where m's lane is all ones, f where it is zero */
V_AI vs vs_sel(vs m, vs t, vs f) { return _mm256_blendv_epi8(f, t, m); }
/* float lanes to int32, truncated (values within int32) */
V_AI vs vf_cvtt(vf v) { return _mm256_cvttps_epi32(v); }
V_AI vf vf_floor(vf v) { return _mm256_round_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
/* the lane masks of lo's and then hi's doubles as VS_N 32-bit lanes of all ones or zero */
V_AI vs vdm2_vs(vdm lo, vdm hi)
{
    const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    return _mm256_blend_epi32(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(lo), idx),
                              _mm256_permutevar8x32_epi32(_mm256_castpd_si256(hi), idx), 0xf0);
}
/* the low halves of v's lanes, VD_N int32 at p */
V_AI void vq_store_i32(int32_t *p, vq v)
{
    const __m256i lo = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
    _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(lo));
}
/* conversions between vq and vd lanes of integers below 2^31 in magnitude */
V_AI vq vd_to_vq(vd v) { return _mm256_cvtepi32_epi64(_mm256_cvttpd_epi32(v)); }
V_AI vd vq_to_vd(vq v)
{
    const __m256i lo = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
    return _mm256_cvtepi32_pd(_mm256_castsi256_si128(lo));
}
V_AI vq vd_bits(vd v) { return _mm256_castpd_si256(v); }
V_AI vd vq_bits(vq v) { return _mm256_castsi256_pd(v); }
/*
 * (float)v of i64 lanes, one rounding as C's conversion, widened back. No
 * vcvtqq2ps: magnitudes from 2^52 are first rounded to odd at 2^11 (the
 * bits below become a sticky bit 0), which leaves at least 42 bits, so the
 * one rounding to float that follows is the correct one; below 2^52 the
 * magnitude converts exactly through the exponent of 2^52.
 */
V_AI vd vq_f32d(vq v)
{
    const __m256i z = _mm256_setzero_si256(), neg = _mm256_cmpgt_epi64(z, v);
    const __m256i m = _mm256_sub_epi64(_mm256_xor_si256(v, neg), neg);
    const __m256i big = _mm256_cmpgt_epi64(m, _mm256_set1_epi64x((1ll << 52) - 1));
    const __m256i inexact = _mm256_cmpeq_epi64(_mm256_and_si256(m, _mm256_set1_epi64x(0x7ff)), z);
    const __m256i odd = _mm256_or_si256(_mm256_srli_epi64(m, 11),
                                        _mm256_andnot_si256(inexact, _mm256_set1_epi64x(1)));
    const __m256d p52 = _mm256_set1_pd(0x1p52);
    const __m256i u = _mm256_blendv_epi8(m, odd, big);
    __m256d d = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(u, _mm256_castpd_si256(p52))), p52);
    d = _mm256_mul_pd(d, _mm256_blendv_pd(_mm256_set1_pd(1.0), _mm256_set1_pd(2048.0),
                                          _mm256_castsi256_pd(big)));
    d = _mm256_xor_pd(d, _mm256_and_pd(_mm256_castsi256_pd(neg), _mm256_set1_pd(-0.0)));
    return _mm256_cvtps_pd(_mm256_cvtpd_ps(d));
}
V_AI uint64_t vq_hsum(vq v)
{
    __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi64(s, _mm_unpackhi_epi64(s, s));
    return (uint64_t)_mm_cvtsi128_si64(s);
}

/*
 * CAMBI's lanes (simd/cambi_tmpl.h): compare to an all-ones mask, signed
 * max, any lane nonzero, gathers (a 16-bit one reads 32 bits at its
 * element: one element past it must be readable), the float conversion
 * (rounding to nearest, as C's) and the bit casts.
 */
V_AI vs vs_gt(vs a, vs b) { return _mm256_cmpgt_epi32(a, b); }
V_AI int vs_any(vs v) { return !_mm256_testz_si256(v, v); }
/* bit k: lane k is negative (its sign bit) */
V_AI uint32_t vs_signs(vs v) { return (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(v)); }
V_AI vs vs_gather_u16(const uint16_t *base, vs idx)
{
    return _mm256_and_si256(_mm256_i32gather_epi32((const int *)base, idx, 2), _mm256_set1_epi32(0xffff));
}
V_AI vf vf_gather(const float *base, vs idx) { return _mm256_i32gather_ps(base, idx, 4); }
/* lt[idx] of each 64-bit lane: the 32 bits at lt + idx, its low half (the table is
 * allocated one entry past its last, SQ_VI_LT_ALLOC) */
V_AI vq vq_gather_u16(const uint16_t *lt, vq idx)
{
    const __m128i w = _mm256_i64gather_epi32((const int *)lt, idx, 2);
    return _mm256_cvtepu32_epi64(_mm_and_si128(w, _mm_set1_epi32(0xffff)));
}
V_AI vf vs_to_vf(vs v) { return _mm256_cvtepi32_ps(v); }
V_AI vs vf_bits(vf v) { return _mm256_castps_si256(v); }
V_AI vf vs_as_vf(vs v) { return _mm256_castsi256_ps(v); }

/*
 * vw: VW_N 16-bit integer lanes, two vs of columns. vw_taps gives
 * ta a + tb b + tc c of every lane exactly (vpmaddwd on (a, b) pairs and
 * (c, 0) pairs), in the order the unpacks leave: x holds columns 0-3 and
 * 8-11, y 4-7 and 12-15; vw_pack (vpackssdw, per 128-bit half) narrows
 * such a pair back to column order.
 */
#define VW_N 16
typedef __m256i vw;
V_AI vw vw_u8(const uint8_t *p) { return _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p)); }
V_AI vw vw_load(const int16_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
/* VW_N 16-bit samples as their high and low bytes */
V_AI vw vw_hi8(const uint8_t *p) { return _mm256_srli_epi16(_mm256_loadu_si256((const __m256i *)p), 8); }
V_AI vw vw_lo8(const uint8_t *p)
{
    return _mm256_and_si256(_mm256_loadu_si256((const __m256i *)p), _mm256_set1_epi16(255));
}
V_AI void vw_store(int16_t *p, vw v) { _mm256_storeu_si256((__m256i *)p, v); }
V_AI vw vw_add(vw a, vw b) { return _mm256_add_epi16(a, b); }
V_AI vw vw_sub(vw a, vw b) { return _mm256_sub_epi16(a, b); }
V_AI vw vw_set1(int16_t x) { return _mm256_set1_epi16(x); }
/* CAMBI's 16-bit lanes: logical shift, compares to all-ones, the low bytes of the lanes stored */
V_AI vw vw_srl(vw v, int n) { return _mm256_srl_epi16(v, _mm_cvtsi32_si128(n)); }
V_AI vw vw_and(vw a, vw b) { return _mm256_and_si256(a, b); }
V_AI vw vw_eq(vw a, vw b) { return _mm256_cmpeq_epi16(a, b); }
V_AI vw vw_gt(vw a, vw b) { return _mm256_cmpgt_epi16(a, b); }
V_AI void vw_store_u8(uint8_t *p, vw v)
{
    const __m256i b = _mm256_permute4x64_epi64(_mm256_packus_epi16(v, v), 0xd8);
    _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(b));
}
V_AI void vw_taps(vw a, vw b, vw c, int ta, int tb, int tc, vs *x, vs *y)
{
    const __m256i tab = _mm256_set1_epi32((int32_t)((uint32_t)tb << 16 | (uint32_t)ta));
    const __m256i t0 = _mm256_set1_epi32(tc), z = _mm256_setzero_si256();
    *x = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), tab),
                          _mm256_madd_epi16(_mm256_unpacklo_epi16(c, z), t0));
    *y = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), tab),
                          _mm256_madd_epi16(_mm256_unpackhi_epi16(c, z), t0));
}
V_AI vw vw_pack(vs x, vs y) { return _mm256_packs_epi32(x, y); }
/* a's and b's words paired (a low) in 32-bit lanes, x then y in the order vw_pack takes them */
V_AI void vw_pair(vw a, vw b, vs *x, vs *y)
{
    *x = _mm256_unpacklo_epi16(a, b);
    *y = _mm256_unpackhi_epi16(a, b);
}

#endif
