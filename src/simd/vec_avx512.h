/*
 * The vector operations of the kernel templates (src/simd/) for AVX-512
 * F/BW/DQ/VL (x86/cov_avx512.c, filter_avx512.c, linalg_avx512.c). vf: 16
 * floats, vd: 8 doubles, fv: vf, vi: 32 words. Tails are masked
 * (V_MASKED 1): a vmask holds the lanes a load reads and a store writes,
 * the others read nothing and write nothing. Over x86/simd512.h, so the
 * emulated test build (SQ_AVX512_EMU) takes the same source on SIMDe.
 */
#ifndef SQ_SIMD_VEC_AVX512_H
#define SQ_SIMD_VEC_AVX512_H

#include <stdint.h>
#include <string.h>

#include "simd/vec_ops.h"
#include "x86/dsp_x86.h"
#include "x86/simd512.h"

#define V_AI AI
#ifdef SQ_VNNI
#define V_NAME(name) SQ_X512V(name)
#else
#define V_NAME(name) SQ_X512(name)
#endif
#define VF_N 16
#define VD_N 8
#define FV_N 16
#define VI_N16 32
#define V_MASKED 1
#define V_PREFETCH 1
#define V_ROWS_UNROLL 1
#define V_COV_SUMS_NV 3
#define V_COV_BAND 1

typedef __m512 vf;
typedef __m512d vd;
typedef __m512i vi;
typedef __mmask16 vmask;

#define V_ALL ((__mmask16)0xffff)

V_AI vmask v_mask(int n) { return sq_mask16(n); }
SQ_V_BASIC(vf, float, vf, _mm512_set1_ps, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_add_ps,
           _mm512_sub_ps, _mm512_mul_ps, _mm512_div_ps)
SQ_V_BASIC(vd, double, vd, _mm512_set1_pd, _mm512_loadu_pd, _mm512_storeu_pd, _mm512_add_pd,
           _mm512_sub_pd, _mm512_mul_pd, _mm512_div_pd)
V_AI vf vf_loadt(const float *p, vmask m) { return _mm512_maskz_loadu_ps(m, p); }
/* masked-off lanes hold other */
V_AI vf vf_loadt_or(const float *p, vmask m, float other)
{
    return _mm512_mask_loadu_ps(_mm512_set1_ps(other), m, p);
}
V_AI void vf_storet(float *p, vf v, vmask m) { _mm512_mask_storeu_ps(p, m, v); }
V_AI vd vd_load_f32(const float *p) { return _mm512_cvtps_pd(_mm256_loadu_ps(p)); }
V_AI vd vf_lo_vd(vf v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); }
V_AI vd vf_hi_vd(vf v)
{
    return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}
V_AI vf vd2_vf(vd lo, vd hi)
{
    return _mm512_castpd_ps(_mm512_insertf64x4(
        _mm512_castps_pd(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo))),
        _mm256_castps_pd(_mm512_cvtpd_ps(hi)), 1));
}

/* Lanes 128-bit blocks of a and b (imm as vshuff64x2), through the i32x4 form. */
#define SQ_V_SHUF128(a, b, imm)                                                              \
    _mm512_castsi512_pd(_mm512_shuffle_i32x4(_mm512_castpd_si512(a), _mm512_castpd_si512(b), \
                                             (imm)))

/* v[j] lane i becomes v[i] lane j (8 x 8) */
V_AI void vd_transpose(vd *v)
{
    __m512d t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_pd(v[2 * i], v[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_pd(v[2 * i], v[2 * i + 1]);
    }
    /* t0 [00 10 02 12 ..], t1 [01 11 03 13 ..], t2 [20 30 22 32 ..], ... */
    u[0] = SQ_V_SHUF128(t[0], t[2], 0x88); /* 00 10 04 14 20 30 24 34 */
    u[1] = SQ_V_SHUF128(t[0], t[2], 0xdd); /* 02 12 06 16 22 32 26 36 */
    u[2] = SQ_V_SHUF128(t[1], t[3], 0x88); /* 01 11 05 15 21 31 25 35 */
    u[3] = SQ_V_SHUF128(t[1], t[3], 0xdd); /* 03 13 07 17 23 33 27 37 */
    u[4] = SQ_V_SHUF128(t[4], t[6], 0x88);
    u[5] = SQ_V_SHUF128(t[4], t[6], 0xdd);
    u[6] = SQ_V_SHUF128(t[5], t[7], 0x88);
    u[7] = SQ_V_SHUF128(t[5], t[7], 0xdd);
    v[0] = SQ_V_SHUF128(u[0], u[4], 0x88);
    v[4] = SQ_V_SHUF128(u[0], u[4], 0xdd);
    v[2] = SQ_V_SHUF128(u[1], u[5], 0x88);
    v[6] = SQ_V_SHUF128(u[1], u[5], 0xdd);
    v[1] = SQ_V_SHUF128(u[2], u[6], 0x88);
    v[5] = SQ_V_SHUF128(u[2], u[6], 0xdd);
    v[3] = SQ_V_SHUF128(u[3], u[7], 0x88);
    v[7] = SQ_V_SHUF128(u[3], u[7], 0xdd);
}

/* As vec_avx2.h's: sq_log2's exponent split, *special for lanes it does not take. */
V_AI vd vd_log2_split(vd x, unsigned hi_off, unsigned hi_base, vd *kd, int *special)
{
    const __m512i u = _mm512_castpd_si512(x);
    const __mmask8 spec = _mm512_cmplt_epu64_mask(u, _mm512_set1_epi64(0x0010000000000000ll)) |
                          _mm512_cmpgt_epu64_mask(u, _mm512_set1_epi64(0x7fefffffffffffffll));
    *special = spec != 0;
    __m512i hx = _mm512_add_epi64(_mm512_srli_epi64(u, 32), _mm512_set1_epi64(hi_off));
    const __m512i k = _mm512_sub_epi64(_mm512_srli_epi64(hx, 20), _mm512_set1_epi64(0x3ff));
    hx = _mm512_add_epi64(_mm512_and_si512(hx, _mm512_set1_epi64(0xfffff)),
                          _mm512_set1_epi64(hi_base));
    *kd = _mm512_cvtepi64_pd(k); /* AVX512DQ; |k| < 2^11, exact */
    return _mm512_castsi512_pd(_mm512_or_si512(
        _mm512_slli_epi64(hx, 32), _mm512_and_si512(u, _mm512_set1_epi64(0xffffffffll))));
}

V_AI vd vd_hi32(vd x)
{
    return _mm512_castsi512_pd(_mm512_and_si512(
        _mm512_castpd_si512(x), _mm512_set1_epi64((long long)0xffffffff00000000ull)));
}

/*
 * The double lanes of the ADM kernels (simd/adm_tmpl.h): int32 in and out
 * (exact: the values are integers), floor and truncation, rounding to
 * float and back, and vdm, a lane mask with its logic and select.
 */
typedef __mmask8 vdm;
V_AI vd vd_load_i32(const int32_t *p) { return _mm512_cvtepi32_pd(_mm256_loadu_si256((const __m256i *)p)); }
V_AI void vd_store_i32(int32_t *p, vd v) { _mm256_storeu_si256((__m256i *)p, _mm512_cvttpd_epi32(v)); }
/* roundscale's immediates as one literal: SIMDe's macro (the emulated
 * build) shifts an unparenthesised imm8, so "a | b" would also scale */
V_AI vd vd_floor(vd v) { return _mm512_roundscale_pd(v, 0x09); } /* down, no exceptions */
V_AI vd vd_trunc(vd v) { return _mm512_roundscale_pd(v, 0x0b); } /* toward 0, no exceptions */
V_AI vd vd_f32(vd v) { return _mm512_cvtps_pd(_mm512_cvtpd_ps(v)); }
V_AI vd vd_min(vd a, vd b) { return _mm512_min_pd(a, b); }
V_AI vd vd_max(vd a, vd b) { return _mm512_max_pd(a, b); }
V_AI vd vd_abs(vd v) { return _mm512_abs_pd(v); }
V_AI vdm vd_eq(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
V_AI vdm vd_lt(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ); }
V_AI vdm vd_le(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ); }
V_AI vdm vdm_and(vdm a, vdm b) { return (vdm)(a & b); }
V_AI vdm vdm_or(vdm a, vdm b) { return (vdm)(a | b); }
V_AI vdm vdm_andn(vdm a, vdm b) { return (vdm)(a & ~b); } /* a and not b */
V_AI vd vd_sel(vdm m, vd t, vd f) { return _mm512_mask_blend_pd(m, f, t); }

#include "simd/fv_vf.h"

/* The lanes of m as floats: (v - 128), prev - cur, a 16-bit v, prev - cur of 16-bit. */
V_AI fv fv_u8_m128(const uint8_t *p, vmask m)
{
    const __m512i v = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, p));
    return _mm512_cvtepi32_ps(_mm512_sub_epi32(v, _mm512_set1_epi32(128)));
}
V_AI fv fv_u8_diff(const uint8_t *prev, const uint8_t *cur, vmask m)
{
    const __m512i v = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, cur));
    const __m512i p = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, prev));
    return _mm512_cvtepi32_ps(_mm512_sub_epi32(p, v));
}
V_AI fv fv_u16(const uint8_t *p, vmask m)
{
    return _mm512_cvtepi32_ps(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p)));
}
V_AI fv fv_u16_diff(const uint8_t *prev, const uint8_t *cur, vmask m)
{
    const __m512i v = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, cur));
    const __m512i p = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, prev));
    return _mm512_cvtepi32_ps(_mm512_sub_epi32(p, v));
}

V_AI void v_prefetch_l2(const void *p) { _mm_prefetch((const char *)p, _MM_HINT_T1); }

V_AI vi vi_zero(void) { return _mm512_setzero_si512(); }
V_AI vi vi_load(const uint8_t *p) { return _mm512_loadu_si512(p); }
/* the first n (< VI_N16) words at p, zero above */
V_AI vi vi_load16n(const uint8_t *p, int n)
{
    return _mm512_maskz_loadu_epi16((__mmask32)(n >= 32 ? 0xffffffffu : (1u << n) - 1u), p);
}
V_AI vi vi_or(vi a, vi b) { return _mm512_or_si512(a, b); }
V_AI void vi_store16(uint16_t *p, vi v) { _mm512_storeu_si512(p, v); }

/* vs: VS_N 32-bit integer lanes, as vec_avx2.h's (simd/motion_tmpl.h). */
#define VS_N 16
typedef __m512i vs;
V_AI vs vs_set1(int32_t x) { return _mm512_set1_epi32(x); }
V_AI vs vs_load(const int32_t *p) { return _mm512_loadu_si512(p); }
V_AI void vs_store(int32_t *p, vs v) { _mm512_storeu_si512(p, v); }
#ifdef SQ_AVX512_EMU
/* SIMDe's portable lanes are C int, where overflow is undefined; the
 * kernels rely on the hardware's wrapping (u32 sums, int32 truncations) */
#define VS_WRAP(name, op)                                       \
    V_AI vs name(vs a, vs b)                                    \
    {                                                           \
        uint32_t x[16], y[16];                                  \
        _mm512_storeu_si512(x, a);                              \
        _mm512_storeu_si512(y, b);                              \
        for (int k = 0; k < 16; k++)                            \
            x[k] = x[k] op y[k];                                \
        return _mm512_loadu_si512(x);                           \
    }
VS_WRAP(vs_add, +)
VS_WRAP(vs_sub, -)
VS_WRAP(vs_mul, *)
#undef VS_WRAP
#else
V_AI vs vs_add(vs a, vs b) { return _mm512_add_epi32(a, b); }
V_AI vs vs_sub(vs a, vs b) { return _mm512_sub_epi32(a, b); }
V_AI vs vs_mul(vs a, vs b) { return _mm512_mullo_epi32(a, b); }
#endif
V_AI vs vs_and(vs a, vs b) { return _mm512_and_si512(a, b); }
V_AI vs vs_or(vs a, vs b) { return _mm512_or_si512(a, b); }
V_AI vs vs_abs(vs v) { return _mm512_abs_epi32(v); }
V_AI vs vs_sra(vs v, int n) { return _mm512_sra_epi32(v, _mm_cvtsi32_si128(n)); }
V_AI vs vs_srl(vs v, int n) { return _mm512_srl_epi32(v, _mm_cvtsi32_si128(n)); }
V_AI vs vs_u8(const uint8_t *p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p)); }
V_AI vs vs_u16(const uint8_t *p)
{
    return _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
}
V_AI uint32_t vs_hsum(vs v)
{
    const __m256i h = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return (uint32_t)_mm_cvtsi128_si32(s);
}
/* CAMBI's lanes, as vec_avx2.h's. */
V_AI vs vs_gt(vs a, vs b) { return _mm512_maskz_set1_epi32(_mm512_cmpgt_epi32_mask(a, b), -1); }
V_AI vs vs_max(vs a, vs b) { return _mm512_max_epi32(a, b); }
V_AI int vs_any(vs v) { return _mm512_test_epi32_mask(v, v) != 0; }
/*
 * The lanes of v where m is set (all ones), packed at p in lane order
 * (VS_N int32 written); returns their count. Levels with it define
 * V_COMPRESS (simd/vif_tmpl.h packs the pixels that take logs).
 */
#define V_COMPRESS 1
V_AI int vs_compress(int32_t *p, vs m, vs v)
{
    const __mmask16 k = _mm512_test_epi32_mask(m, m);
    _mm512_storeu_si512(p, _mm512_maskz_compress_epi32(k, v));
    return __builtin_popcount((unsigned)k);
}
V_AI uint32_t vs_signs(vs v) { return (uint32_t)_mm512_cmpgt_epi32_mask(_mm512_setzero_si512(), v); }
#ifdef SQ_AVX512_EMU
/* SIMDe has no 512-bit gathers: lane by lane, 16 bits read (no element past it) */
V_AI vs vs_gather_u16(const uint16_t *base, vs idx)
{
    int32_t i[16], t[16];
    _mm512_storeu_si512(i, idx);
    for (int k = 0; k < 16; k++)
        t[k] = base[i[k]];
    return _mm512_loadu_si512(t);
}
V_AI vf vf_gather(const float *base, vs idx)
{
    int32_t i[16];
    float t[16];
    _mm512_storeu_si512(i, idx);
    for (int k = 0; k < 16; k++)
        t[k] = base[i[k]];
    return _mm512_loadu_ps(t);
}
#else
V_AI vs vs_gather_u16(const uint16_t *base, vs idx)
{
    return _mm512_and_si512(_mm512_i32gather_epi32(idx, (const void *)base, 2),
                            _mm512_set1_epi32(0xffff));
}
V_AI vf vf_gather(const float *base, vs idx) { return _mm512_i32gather_ps(idx, (const void *)base, 4); }
#endif
V_AI vf vs_to_vf(vs v) { return _mm512_cvtepi32_ps(v); }
V_AI vs vf_bits(vf v) { return _mm512_castps_si512(v); }
V_AI vf vs_as_vf(vs v) { return _mm512_castsi512_ps(v); }

V_AI vs vs_sll(vs v, int n) { return _mm512_sll_epi32(v, _mm_cvtsi32_si128(n)); }

/* vq: 64-bit lanes, as vec_avx2.h's (simd/adm_pool_tmpl.h). */
typedef __m512i vq;
V_AI vq vq_even(vs v) { return v; }
V_AI vq vq_odd(vs v) { return _mm512_srli_epi64(v, 32); }
V_AI vs vs_pack_lo(vq e, vq o) { return _mm512_mask_blend_epi32(0xaaaa, e, _mm512_slli_epi64(o, 32)); }
V_AI vs vs_pack_hi(vq e, vq o) { return _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64(e, 32), o); }
V_AI vq vq_set1(int64_t x) { return _mm512_set1_epi64(x); }
V_AI vq vq_add(vq a, vq b) { return _mm512_add_epi64(a, b); }
V_AI vq vq_mul_u(vq a, vq b) { return _mm512_mul_epu32(a, b); }
V_AI vq vq_mul_s(vq a, vq b) { return _mm512_mul_epi32(a, b); }
V_AI vq vq_srl(vq v, int n) { return _mm512_srl_epi64(v, _mm_cvtsi32_si128(n)); }
V_AI vq vq_sra(vq v, int n) { return _mm512_sra_epi64(v, _mm_cvtsi32_si128(n)); }
V_AI vq vq_sub(vq a, vq b) { return _mm512_sub_epi64(a, b); }
V_AI vq vq_and(vq a, vq b) { return _mm512_and_si512(a, b); }
V_AI vq vq_xor(vq a, vq b) { return _mm512_xor_si512(a, b); }
V_AI vq vq_sllv(vq v, vq n) { return _mm512_sllv_epi64(v, n); }
V_AI vq vq_srav(vq v, vq n) { return _mm512_srav_epi64(v, n); }
V_AI vq vq_min(vq a, vq b) { return _mm512_min_epi64(a, b); }
V_AI vq vq_max(vq a, vq b) { return _mm512_max_epi64(a, b); }
/* VD_N int32 at p, sign extended */
V_AI vq vq_load_i32(const int32_t *p) { return _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)p)); }
/* lt[idx] of each 64-bit lane, as vec_avx2.h's (SQ_VI_LT_ALLOC: one entry past the table); SIMDe: lane by lane */
#ifdef SQ_AVX512_EMU
V_AI vq vq_gather_u16(const uint16_t *lt, vq idx)
{
    int64_t i[8], t[8];
    _mm512_storeu_si512(i, idx);
    for (int k = 0; k < 8; k++)
        t[k] = lt[i[k]];
    return _mm512_loadu_si512(t);
}
#else
V_AI vq vq_gather_u16(const uint16_t *lt, vq idx)
{
    const __m256i w = _mm512_i64gather_epi32(idx, (const void *)lt, 2);
    return _mm512_cvtepu32_epi64(_mm256_and_si256(w, _mm256_set1_epi32(0xffff)));
}
#endif
/*
 * VIF's log2 without gathers (simd/vif_terms_tmpl.h): a 16-entry table of
 * doubles in two registers, indexed by the low 4 bits of each lane of idx,
 * and a fused multiply-add (one rounding, as IEEE defines it everywhere).
 */
#define V_PERM16 1
V_AI vd vd_perm16(vd lo, vd hi, vq idx) { return _mm512_permutex2var_pd(lo, idx, hi); }
V_AI vd vd_fma(vd a, vd b, vd c) { return _mm512_fmadd_pd(a, b, c); }
V_AI vq vq_or(vq a, vq b) { return _mm512_or_si512(a, b); }
/* floor(log2 |v|) of normal doubles, exact (SIMDe lacks getexp: from the exponent's bits) */
#ifdef SQ_AVX512_EMU
V_AI vd vd_getexp(vd v)
{
    const __m512i e = _mm512_srli_epi64(_mm512_castpd_si512(v), 52);
    return _mm512_sub_pd(_mm512_castsi512_pd(_mm512_or_si512(e, _mm512_set1_epi64(0x4330000000000000))),
                         _mm512_set1_pd(4503599627370496.0 + 1023.0));
}
#else
V_AI vd vd_getexp(vd v) { return _mm512_getexp_pd(v); }
#endif
/* a's and then b's elements as int16 (saturating: as vec_avx2.h's), pairs in 32-bit lanes */
V_AI vs vs_pack16(vs a, vs b)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtsepi32_epi16(a)),
                              _mm512_cvtsepi32_epi16(b), 1);
}
/* k0 x + k1 y of each lane's int16 pair (x low, y high) */
V_AI vs vs_madd16(vs p, int k0, int k1)
{
    return _mm512_madd_epi16(p, _mm512_set1_epi32((int32_t)((uint32_t)k1 << 16 | ((uint32_t)k0 & 0xffff))));
}
/*
 * The 2 VS_N u16 of a and of b as VS_N int16 pairs (a's low) in lo and hi,
 * in vpunpck's order (lo: columns 0-3, 8-11, 16-19, 24-27; hi the others);
 * vs_store_unzip puts such lo, hi lanes back in column order.
 */
V_AI void vs_zip16(vs a, vs b, vs *lo, vs *hi)
{
    *lo = _mm512_unpacklo_epi16(a, b);
    *hi = _mm512_unpackhi_epi16(a, b);
}
/* lo, hi of vs_zip16's order (values in [0, 65535]) as 2 VS_N u16 at p in column order */
V_AI void vs_store16_unzip(int16_t *p, vs lo, vs hi) { _mm512_storeu_si512(p, _mm512_packus_epi32(lo, hi)); }
V_AI void vs_store_unzip(int32_t *p, vs lo, vs hi)
{
    _mm512_storeu_si512(p, _mm512_permutex2var_epi64(lo, _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11), hi));
    _mm512_storeu_si512(p + 16, _mm512_permutex2var_epi64(lo, _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15), hi));
}
/* acc + vs_madd16(p, k0, k1), one instruction where the file is built for AVX-512 VNNI */
V_AI vs vs_dp16(vs acc, vs p, int k0, int k1)
{
#ifdef SQ_VNNI
    return _mm512_dpwssd_epi32(acc, p, _mm512_set1_epi32((int32_t)((uint32_t)k1 << 16 | ((uint32_t)k0 & 0xffff))));
#else
    return _mm512_add_epi32(acc, vs_madd16(p, k0, k1));
#endif
}
/* VS_N lanes from 2 VS_N int16 at p: lane k holds p[2k] (low half) and p[2k + 1] */
V_AI vs vs_load16x2(const int16_t *p) { return _mm512_loadu_si512(p); }
/* the low 16 bits of each lane (an int16 store's wrap), VS_N int16 at p */
#ifdef SQ_AVX512_EMU
/* SIMDe has no vpmovdw: the wrap first, then the saturating form changes nothing */
V_AI void vs_store16(int16_t *p, vs v)
{
    _mm256_storeu_si256((__m256i *)p, _mm512_cvtsepi32_epi16(vs_sra(vs_sll(v, 16), 16)));
}
#else
V_AI void vs_store16(int16_t *p, vs v) { _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi32_epi16(v)); }
#endif
/* a.x b.x + a.y b.y of each lane's int16 pairs (x low, y high): scale 0's angle sums */
#ifdef SQ_AVX512_EMU
/* SIMDe adds the two products as C int: the one sum past int32 (all four -32768) wraps here */
V_AI vs vs_madd16v(vs a, vs b)
{
    int16_t x[32], y[32];
    uint32_t r[16];
    _mm512_storeu_si512(x, a);
    _mm512_storeu_si512(y, b);
    for (int k = 0; k < 16; k++)
        r[k] = (uint32_t)(x[2 * k] * y[2 * k]) + (uint32_t)(x[2 * k + 1] * y[2 * k + 1]);
    return _mm512_loadu_si512(r);
}
#else
V_AI vs vs_madd16v(vs a, vs b) { return _mm512_madd_epi16(a, b); }
#endif
V_AI vs vs_xor(vs a, vs b) { return _mm512_xor_si512(a, b); }
/* the low 16 bits of the products of the 16-bit halves */
V_AI vs vs_mullo16(vs a, vs b) { return _mm512_mullo_epi16(a, b); }
/* the high 16 bits of the products of the 16-bit halves as u16 */
#ifdef SQ_AVX512_EMU
/* SIMDe has no 512-bit vpmulhuw: two 256-bit halves */
V_AI vs vs_mulhi16u(vs a, vs b)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_mulhi_epu16(_mm512_castsi512_si256(a),
                                                                        _mm512_castsi512_si256(b))),
                              _mm256_mulhi_epu16(_mm512_extracti64x4_epi64(a, 1),
                                                 _mm512_extracti64x4_epi64(b, 1)), 1);
}
#else
V_AI vs vs_mulhi16u(vs a, vs b) { return _mm512_mulhi_epu16(a, b); }
#endif
V_AI vs vs_min(vs a, vs b) { return _mm512_min_epi32(a, b); }
/* t where m's lane is all ones, f where it is zero */
V_AI vs vs_sel(vs m, vs t, vs f) { return _mm512_mask_blend_epi32(_mm512_test_epi32_mask(m, m), f, t); }
/* float lanes to int32, truncated (values within int32) */
#ifdef SQ_AVX512_EMU
/* SIMDe has no 512-bit vcvttps2dq: lane by lane (C's conversion truncates) */
V_AI vs vf_cvtt(vf v)
{
    float f[16];
    int32_t r[16];
    _mm512_storeu_ps(f, v);
    for (int k = 0; k < 16; k++)
        r[k] = (int32_t)f[k];
    return _mm512_loadu_si512(r);
}
#else
V_AI vs vf_cvtt(vf v) { return _mm512_cvttps_epi32(v); }
#endif
V_AI vf vf_floor(vf v) { return _mm512_roundscale_ps(v, 0x09); } /* down, no exceptions */
/* the lane masks of lo's and then hi's doubles as VS_N 32-bit lanes of all ones or zero */
V_AI vs vdm2_vs(vdm lo, vdm hi) { return _mm512_maskz_set1_epi32((__mmask16)(lo | (unsigned)hi << 8), -1); }
/* the low halves of v's lanes, VD_N int32 at p */
V_AI void vq_store_i32(int32_t *p, vq v) { _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi64_epi32(v)); }
/* conversions between vq and vd lanes of integers below 2^31 in magnitude */
V_AI vq vd_to_vq(vd v) { return _mm512_cvtepi32_epi64(_mm512_cvttpd_epi32(v)); }
V_AI vd vq_to_vd(vq v) { return _mm512_cvtepi32_pd(_mm512_cvtepi64_epi32(v)); }
V_AI vq vd_bits(vd v) { return _mm512_castpd_si512(v); }
V_AI vd vq_bits(vq v) { return _mm512_castsi512_pd(v); }
/* (float)v of i64 lanes, one rounding as C's conversion (AVX512DQ), widened back */
V_AI vd vq_f32d(vq v) { return _mm512_cvtps_pd(_mm512_cvtepi64_ps(v)); }
V_AI uint64_t vq_hsum(vq v)
{
    const __m256i h = _mm256_add_epi64(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    __m128i s = _mm_add_epi64(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    s = _mm_add_epi64(s, _mm_unpackhi_epi64(s, s));
    return (uint64_t)_mm_cvtsi128_si64(s);
}

/* vw: VW_N 16-bit lanes, as vec_avx2.h's (vw_taps' order per 128-bit quarter). */
#define VW_N 32
typedef __m512i vw;
V_AI vw vw_u8(const uint8_t *p) { return _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)p)); }
V_AI vw vw_load(const int16_t *p) { return _mm512_loadu_si512(p); }
V_AI vw vw_hi8(const uint8_t *p) { return _mm512_srli_epi16(_mm512_loadu_si512(p), 8); }
V_AI vw vw_lo8(const uint8_t *p) { return _mm512_and_si512(_mm512_loadu_si512(p), _mm512_set1_epi16(255)); }
V_AI void vw_store(int16_t *p, vw v) { _mm512_storeu_si512(p, v); }
V_AI vw vw_add(vw a, vw b) { return _mm512_add_epi16(a, b); }
V_AI vw vw_sub(vw a, vw b) { return _mm512_sub_epi16(a, b); }
V_AI vw vw_set1(int16_t x) { return _mm512_set1_epi16(x); }
V_AI vw vw_srl(vw v, int n) { return _mm512_srl_epi16(v, _mm_cvtsi32_si128(n)); }
V_AI vw vw_and(vw a, vw b) { return _mm512_and_si512(a, b); }
/* from ge and le (SIMDe has no 16-bit eq and gt compares to masks) */
V_AI vw vw_eq(vw a, vw b)
{
    return _mm512_maskz_set1_epi16(_mm512_cmpge_epi16_mask(a, b) & _mm512_cmple_epi16_mask(a, b), -1);
}
V_AI vw vw_gt(vw a, vw b) { return _mm512_maskz_set1_epi16((__mmask32)~_mm512_cmple_epi16_mask(a, b), -1); }
V_AI void vw_store_u8(uint8_t *p, vw v) { _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi16_epi8(v)); }
V_AI void vw_taps(vw a, vw b, vw c, int ta, int tb, int tc, vs *x, vs *y)
{
    const __m512i tab = _mm512_set1_epi32((int32_t)((uint32_t)tb << 16 | (uint32_t)ta));
    const __m512i t0 = _mm512_set1_epi32(tc), z = _mm512_setzero_si512();
    *x = _mm512_add_epi32(_mm512_madd_epi16(_mm512_unpacklo_epi16(a, b), tab),
                          _mm512_madd_epi16(_mm512_unpacklo_epi16(c, z), t0));
    *y = _mm512_add_epi32(_mm512_madd_epi16(_mm512_unpackhi_epi16(a, b), tab),
                          _mm512_madd_epi16(_mm512_unpackhi_epi16(c, z), t0));
}
V_AI vw vw_pack(vs x, vs y) { return _mm512_packs_epi32(x, y); }
/* a's and b's words paired (a low) in 32-bit lanes, x then y in the order vw_pack takes them */
V_AI void vw_pair(vw a, vw b, vs *x, vs *y)
{
    *x = _mm512_unpacklo_epi16(a, b);
    *y = _mm512_unpackhi_epi16(a, b);
}

#endif
