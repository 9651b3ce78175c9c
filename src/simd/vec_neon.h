/*
 * The vector operations of the kernel templates (src/simd/) for arm64
 * Advanced SIMD (arm/cov_neon.c, filter_neon.c, linalg_neon.c). vf: 4
 * floats, vd: 2 doubles, vi: 8 words; fv, the filters' column vector, is two
 * vf (8 columns, so a row of 8-bit samples is read 8 bytes at a time). A
 * multiply and an add are vmulq + vaddq, never vfmaq (and -ffp-contract=off
 * keeps the compiler from fusing them into fmla). Tails move the last
 * vector back (V_MASKED 0).
 */
#ifndef SQ_SIMD_VEC_NEON_H
#define SQ_SIMD_VEC_NEON_H

#include <arm_neon.h>
#include <stdint.h>
#include <string.h>

#include "arm/dsp_arm.h"
#include "simd/vec_ops.h"

#define V_AI static inline __attribute__((always_inline))
#define V_NAME(name) SQ_NEON(name)
#define VF_N 4
#define VD_N 2
#define FV_N 8
#define VI_N16 8
#define V_MASKED 0
#define V_PREFETCH 0
#define V_ROWS_UNROLL 1
#define V_COV_SUMS_NV 3
#define V_COV_BAND 0

typedef float32x4_t vf;
typedef float64x2_t vd;
typedef struct {
    float32x4_t lo, hi;
} fv;
typedef uint16x8_t vi;

#define V_ALL 0

SQ_V_BASIC(vf, float, vf, vdupq_n_f32, vld1q_f32, vst1q_f32, vaddq_f32, vsubq_f32, vmulq_f32,
           vdivq_f32)
SQ_V_BASIC(vd, double, vd, vdupq_n_f64, vld1q_f64, vst1q_f64, vaddq_f64, vsubq_f64, vmulq_f64,
           vdivq_f64)
SQ_V_MOVE_BACK
V_AI vd vd_load_f32(const float *p) { return vcvt_f64_f32(vld1_f32(p)); }
V_AI vd vf_lo_vd(vf v) { return vcvt_f64_f32(vget_low_f32(v)); }
V_AI vd vf_hi_vd(vf v) { return vcvt_high_f64_f32(v); }
V_AI vf vd2_vf(vd lo, vd hi) { return vcvt_high_f32_f64(vcvt_f32_f64(lo), hi); }

/* v[j] lane i becomes v[i] lane j (2 x 2) */
V_AI void vd_transpose(vd *v)
{
    const vd t0 = vzip1q_f64(v[0], v[1]), t1 = vzip2q_f64(v[0], v[1]);
    v[0] = t0;
    v[1] = t1;
}

/* v[j] lane i becomes v[i] lane j (4 x 4) */
V_AI void vf_transpose(vf *v)
{
    const float32x4_t t0 = vtrn1q_f32(v[0], v[1]), t1 = vtrn2q_f32(v[0], v[1]);
    const float32x4_t t2 = vtrn1q_f32(v[2], v[3]), t3 = vtrn2q_f32(v[2], v[3]);
    v[0] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    v[1] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
    v[2] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    v[3] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
}

/* lane i: p[16 i] */
V_AI vf vf_gather16(const float *p)
{
    vf v = vdupq_n_f32(p[0]);
    v = vsetq_lane_f32(p[16], v, 1);
    v = vsetq_lane_f32(p[32], v, 2);
    return vsetq_lane_f32(p[48], v, 3);
}

/* As vec_avx2.h's: sq_log2's exponent split, *special for lanes it does not take. */
V_AI vd vd_log2_split(vd x, unsigned hi_off, unsigned hi_base, vd *kd, int *special)
{
    const uint64x2_t u = vreinterpretq_u64_f64(x);
    const uint64x2_t spec = vorrq_u64(vcltq_u64(u, vdupq_n_u64(0x0010000000000000ull)),
                                      vcgtq_u64(u, vdupq_n_u64(0x7fefffffffffffffull)));
    *special = (vgetq_lane_u64(spec, 0) | vgetq_lane_u64(spec, 1)) != 0;
    uint64x2_t hx = vaddq_u64(vshrq_n_u64(u, 32), vdupq_n_u64(hi_off));
    const int64x2_t k = vsubq_s64(vreinterpretq_s64_u64(vshrq_n_u64(hx, 20)), vdupq_n_s64(0x3ff));
    hx = vaddq_u64(vandq_u64(hx, vdupq_n_u64(0xfffff)), vdupq_n_u64(hi_base));
    *kd = vcvtq_f64_s64(k); /* |k| < 2^11: exact */
    return vreinterpretq_f64_u64(
        vorrq_u64(vshlq_n_u64(hx, 32), vandq_u64(u, vdupq_n_u64(0xffffffffull))));
}

V_AI vd vd_hi32(vd x)
{
    return vreinterpretq_f64_u64(
        vandq_u64(vreinterpretq_u64_f64(x), vdupq_n_u64(0xffffffff00000000ull)));
}

/*
 * The double lanes of the ADM kernels (simd/adm_tmpl.h): int32 in and out
 * (exact: the values are integers), floor and truncation, rounding to
 * float and back, and vdm, a lane mask with its logic and select.
 */
typedef uint64x2_t vdm;
V_AI vd vd_load_i32(const int32_t *p) { return vcvtq_f64_s64(vmovl_s32(vld1_s32(p))); }
V_AI void vd_store_i32(int32_t *p, vd v) { vst1_s32(p, vmovn_s64(vcvtq_s64_f64(v))); }
V_AI vd vd_floor(vd v) { return vrndmq_f64(v); }
V_AI vd vd_trunc(vd v) { return vrndq_f64(v); }
V_AI vd vd_f32(vd v) { return vcvt_f64_f32(vcvt_f32_f64(v)); }
V_AI vd vd_min(vd a, vd b) { return vminq_f64(a, b); }
V_AI vd vd_max(vd a, vd b) { return vmaxq_f64(a, b); }
V_AI vd vd_abs(vd v) { return vabsq_f64(v); }
V_AI vdm vd_eq(vd a, vd b) { return vceqq_f64(a, b); }
V_AI vdm vd_lt(vd a, vd b) { return vcltq_f64(a, b); }
V_AI vdm vd_le(vd a, vd b) { return vcleq_f64(a, b); }
V_AI vdm vdm_and(vdm a, vdm b) { return vandq_u64(a, b); }
V_AI vdm vdm_or(vdm a, vdm b) { return vorrq_u64(a, b); }
V_AI vdm vdm_andn(vdm a, vdm b) { return vbicq_u64(a, b); } /* a and not b */
V_AI vd vd_sel(vdm m, vd t, vd f) { return vbslq_f64(m, t, f); }

V_AI fv fv_make(float32x4_t lo, float32x4_t hi)
{
    fv r = { lo, hi };
    return r;
}
V_AI fv fv_zero(void) { return fv_make(vdupq_n_f32(0.0f), vdupq_n_f32(0.0f)); }
V_AI fv fv_set1(float x) { return fv_make(vdupq_n_f32(x), vdupq_n_f32(x)); }
V_AI fv fv_loadt(const float *p, vmask m)
{
    (void)m;
    return fv_make(vld1q_f32(p), vld1q_f32(p + 4));
}
V_AI void fv_storet(float *p, fv v, vmask m)
{
    (void)m;
    vst1q_f32(p, v.lo);
    vst1q_f32(p + 4, v.hi);
}
V_AI fv fv_add(fv a, fv b) { return fv_make(vaddq_f32(a.lo, b.lo), vaddq_f32(a.hi, b.hi)); }
V_AI fv fv_sub(fv a, fv b) { return fv_make(vsubq_f32(a.lo, b.lo), vsubq_f32(a.hi, b.hi)); }
V_AI fv fv_mul(fv a, fv b) { return fv_make(vmulq_f32(a.lo, b.lo), vmulq_f32(a.hi, b.hi)); }

V_AI fv fv_s16(int16x8_t v)
{
    return fv_make(vcvtq_f32_s32(vmovl_s16(vget_low_s16(v))), vcvtq_f32_s32(vmovl_high_s16(v)));
}

/* FV_N samples as floats: (v - 128), prev - cur, a 16-bit v, prev - cur of 16-bit. */
V_AI fv fv_u8_m128(const uint8_t *p, vmask m)
{
    (void)m;
    return fv_s16(vsubq_s16(vreinterpretq_s16_u16(vmovl_u8(vld1_u8(p))), vdupq_n_s16(128)));
}
V_AI fv fv_u8_diff(const uint8_t *prev, const uint8_t *cur, vmask m)
{
    (void)m;
    return fv_s16(vreinterpretq_s16_u16(vsubl_u8(vld1_u8(prev), vld1_u8(cur))));
}
V_AI fv fv_u16(const uint8_t *p, vmask m)
{
    uint16x8_t v;
    (void)m;
    memcpy(&v, p, sizeof(v));
    return fv_make(vcvtq_f32_u32(vmovl_u16(vget_low_u16(v))), vcvtq_f32_u32(vmovl_high_u16(v)));
}
V_AI fv fv_u16_diff(const uint8_t *prev, const uint8_t *cur, vmask m)
{
    uint16x8_t v, p;
    (void)m;
    memcpy(&v, cur, sizeof(v));
    memcpy(&p, prev, sizeof(p));
    const int32x4_t lo = vreinterpretq_s32_u32(vsubl_u16(vget_low_u16(p), vget_low_u16(v)));
    const int32x4_t hi = vreinterpretq_s32_u32(vsubl_high_u16(p, v));
    return fv_make(vcvtq_f32_s32(lo), vcvtq_f32_s32(hi));
}

V_AI void v_prefetch_l2(const void *p) { (void)p; }

V_AI vi vi_zero(void) { return vdupq_n_u16(0); }
V_AI vi vi_load(const uint8_t *p)
{
    vi v;
    memcpy(&v, p, sizeof(v));
    return v;
}
V_AI vi vi_or(vi a, vi b) { return vorrq_u16(a, b); }
V_AI void vi_store16(uint16_t *p, vi v) { vst1q_u16(p, v); }

/* vs: VS_N 32-bit integer lanes, as vec_avx2.h's (simd/motion_tmpl.h). */
#define VS_N 4
typedef int32x4_t vs;
V_AI vs vs_set1(int32_t x) { return vdupq_n_s32(x); }
V_AI vs vs_load(const int32_t *p) { return vld1q_s32(p); }
V_AI void vs_store(int32_t *p, vs v) { vst1q_s32(p, v); }
V_AI vs vs_add(vs a, vs b) { return vaddq_s32(a, b); }
V_AI vs vs_sub(vs a, vs b) { return vsubq_s32(a, b); }
V_AI vs vs_mul(vs a, vs b) { return vmulq_s32(a, b); }
V_AI vs vs_and(vs a, vs b) { return vandq_s32(a, b); }
V_AI vs vs_or(vs a, vs b) { return vorrq_s32(a, b); }
V_AI vs vs_abs(vs v) { return vabsq_s32(v); }
V_AI vs vs_sra(vs v, int n) { return vshlq_s32(v, vdupq_n_s32(-n)); }
V_AI vs vs_srl(vs v, int n)
{
    return vreinterpretq_s32_u32(vshlq_u32(vreinterpretq_u32_s32(v), vdupq_n_s32(-n)));
}
V_AI vs vs_u8(const uint8_t *p)
{
    uint32_t t;
    memcpy(&t, p, sizeof(t));
    const uint16x8_t w = vmovl_u8(vreinterpret_u8_u32(vdup_n_u32(t)));
    return vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(w)));
}
V_AI vs vs_u16(const uint8_t *p)
{
    uint16x4_t v;
    memcpy(&v, p, sizeof(v));
    return vreinterpretq_s32_u32(vmovl_u16(v));
}
V_AI uint32_t vs_hsum(vs v) { return vaddvq_u32(vreinterpretq_u32_s32(v)); }
/* CAMBI's lanes, as vec_avx2.h's (no gather instruction: lane by lane). */
V_AI vs vs_gt(vs a, vs b) { return vreinterpretq_s32_u32(vcgtq_s32(a, b)); }
V_AI vs vs_max(vs a, vs b) { return vmaxq_s32(a, b); }
V_AI int vs_any(vs v) { return vmaxvq_u32(vreinterpretq_u32_s32(v)) != 0; }
V_AI uint32_t vs_signs(vs v)
{
    static const uint32_t bit[4] = { 1, 2, 4, 8 };
    return vaddvq_u32(vandq_u32(vreinterpretq_u32_s32(vshrq_n_s32(v, 31)), vld1q_u32(bit)));
}
V_AI vs vs_gather_u16(const uint16_t *base, vs idx)
{
    int32_t i[4], t[4];
    vst1q_s32(i, idx);
    for (int k = 0; k < 4; k++)
        t[k] = base[i[k]];
    return vld1q_s32(t);
}
V_AI vf vf_gather(const float *base, vs idx)
{
    int32_t i[4];
    float t[4];
    vst1q_s32(i, idx);
    for (int k = 0; k < 4; k++)
        t[k] = base[i[k]];
    return vld1q_f32(t);
}
V_AI vf vs_to_vf(vs v) { return vcvtq_f32_s32(v); }
V_AI vs vf_bits(vf v) { return vreinterpretq_s32_f32(v); }
V_AI vf vs_as_vf(vs v) { return vreinterpretq_f32_s32(v); }

V_AI vs vs_sll(vs v, int n) { return vshlq_s32(v, vdupq_n_s32(n)); }

/* vq: 64-bit lanes, as vec_avx2.h's (simd/adm_pool_tmpl.h); trn1/trn2 pack the halves. */
typedef int64x2_t vq;
V_AI vq vq_even(vs v) { return vreinterpretq_s64_s32(v); }
V_AI vq vq_odd(vs v) { return vreinterpretq_s64_u64(vshrq_n_u64(vreinterpretq_u64_s32(v), 32)); }
V_AI vs vs_pack_lo(vq e, vq o) { return vtrn1q_s32(vreinterpretq_s32_s64(e), vreinterpretq_s32_s64(o)); }
V_AI vs vs_pack_hi(vq e, vq o) { return vtrn2q_s32(vreinterpretq_s32_s64(e), vreinterpretq_s32_s64(o)); }
V_AI vq vq_set1(int64_t x) { return vdupq_n_s64(x); }
V_AI vq vq_add(vq a, vq b) { return vaddq_s64(a, b); }
V_AI vq vq_mul_u(vq a, vq b)
{
    return vreinterpretq_s64_u64(vmull_u32(vmovn_u64(vreinterpretq_u64_s64(a)),
                                           vmovn_u64(vreinterpretq_u64_s64(b))));
}
V_AI vq vq_mul_s(vq a, vq b) { return vmull_s32(vmovn_s64(a), vmovn_s64(b)); }
V_AI vq vq_srl(vq v, int n)
{
    return vreinterpretq_s64_u64(vshlq_u64(vreinterpretq_u64_s64(v), vdupq_n_s64(-n)));
}
V_AI vq vq_sra(vq v, int n) { return vshlq_s64(v, vdupq_n_s64(-n)); }
V_AI uint64_t vq_hsum(vq v) { return vaddvq_u64(vreinterpretq_u64_s64(v)); }
V_AI vq vq_sub(vq a, vq b) { return vsubq_s64(a, b); }
V_AI vq vq_and(vq a, vq b) { return vandq_s64(a, b); }
V_AI vq vq_xor(vq a, vq b) { return veorq_s64(a, b); }
V_AI vq vq_sllv(vq v, vq n) { return vshlq_s64(v, n); }
/* lt[idx] of each 64-bit lane (no gather instruction: lane by lane) */
V_AI vq vq_gather_u16(const uint16_t *lt, vq idx)
{
    const int64_t t[2] = { lt[vgetq_lane_s64(idx, 0)], lt[vgetq_lane_s64(idx, 1)] };
    return vld1q_s64(t);
}
V_AI vq vq_srav(vq v, vq n) { return vshlq_s64(v, vnegq_s64(n)); }
V_AI vq vq_min(vq a, vq b) { return vbslq_s64(vcgtq_s64(a, b), b, a); }
V_AI vq vq_max(vq a, vq b) { return vbslq_s64(vcgtq_s64(a, b), a, b); }
V_AI vq vq_load_i32(const int32_t *p) { return vmovl_s32(vld1_s32(p)); }
/* the low 16 bits of a's and then b's elements in order, as pairs in 32-bit lanes */
V_AI vs vs_pack16(vs a, vs b)
{
    return vreinterpretq_s32_s16(vuzp1q_s16(vreinterpretq_s16_s32(a), vreinterpretq_s16_s32(b)));
}
/* k0 x + k1 y of each lane's int16 pair (x low, y high) */
V_AI vs vs_madd16(vs p, int k0, int k1)
{
    const int16x8_t x = vreinterpretq_s16_s32(p);
    const int16x4_t k = vreinterpret_s16_s32(vdup_n_s32((int32_t)((uint32_t)k1 << 16 | ((uint32_t)k0 & 0xffff))));
    return vpaddq_s32(vmull_s16(vget_low_s16(x), k), vmull_high_s16(x, vcombine_s16(k, k)));
}
/*
 * The 2 VS_N u16 of a and of b as VS_N int16 pairs (a's low) in lo and hi,
 * lo the first VS_N columns; vs_store_unzip stores lo, hi in column order.
 */
V_AI void vs_zip16(vs a, vs b, vs *lo, vs *hi)
{
    const int16x8_t x = vreinterpretq_s16_s32(a), y = vreinterpretq_s16_s32(b);
    *lo = vreinterpretq_s32_s16(vzip1q_s16(x, y));
    *hi = vreinterpretq_s32_s16(vzip2q_s16(x, y));
}
/* lo, hi of vs_zip16's order (values in [0, 65535]) as 2 VS_N u16 at p in column order */
V_AI void vs_store16_unzip(int16_t *p, vs lo, vs hi)
{
    vst1q_s16(p, vreinterpretq_s16_u16(vcombine_u16(vqmovun_s32(lo), vqmovun_s32(hi))));
}
V_AI void vs_store_unzip(int32_t *p, vs lo, vs hi)
{
    vst1q_s32(p, lo);
    vst1q_s32(p + 4, hi);
}
/* acc + vs_madd16(p, k0, k1) */
V_AI vs vs_dp16(vs acc, vs p, int k0, int k1) { return vaddq_s32(acc, vs_madd16(p, k0, k1)); }
/* VS_N lanes from 2 VS_N int16 at p: lane k holds p[2k] (low half) and p[2k + 1] */
V_AI vs vs_load16x2(const int16_t *p) { return vreinterpretq_s32_s16(vld1q_s16(p)); }
/* the low 16 bits of each lane (an int16 store's wrap), VS_N int16 at p */
V_AI void vs_store16(int16_t *p, vs v) { vst1_s16(p, vmovn_s32(v)); }
/* a.x b.x + a.y b.y of each lane's int16 pairs (x low, y high): scale 0's angle sums */
V_AI vs vs_madd16v(vs a, vs b)
{
    const int16x8_t x = vreinterpretq_s16_s32(a), y = vreinterpretq_s16_s32(b);
    return vpaddq_s32(vmull_s16(vget_low_s16(x), vget_low_s16(y)), vmull_high_s16(x, y));
}
V_AI vs vs_xor(vs a, vs b) { return veorq_s32(a, b); }
/* the low 16 bits of the products of the 16-bit halves */
V_AI vs vs_mullo16(vs a, vs b)
{
    return vreinterpretq_s32_s16(vmulq_s16(vreinterpretq_s16_s32(a), vreinterpretq_s16_s32(b)));
}
/* the high 16 bits of the products of the 16-bit halves as u16 */
V_AI vs vs_mulhi16u(vs a, vs b)
{
    const uint16x8_t x = vreinterpretq_u16_s32(a), y = vreinterpretq_u16_s32(b);
    const uint32x4_t l = vmull_u16(vget_low_u16(x), vget_low_u16(y)), h = vmull_high_u16(x, y);
    return vreinterpretq_s32_u16(vuzp2q_u16(vreinterpretq_u16_u32(l), vreinterpretq_u16_u32(h)));
}
V_AI vs vs_min(vs a, vs b) { return vminq_s32(a, b); }
/* t where m's lane is all ones, f where it is zero */
V_AI vs vs_sel(vs m, vs t, vs f) { return vbslq_s32(vreinterpretq_u32_s32(m), t, f); }
/* float lanes to int32, truncated (values within int32) */
V_AI vs vf_cvtt(vf v) { return vcvtq_s32_f32(v); }
V_AI vf vf_floor(vf v) { return vrndmq_f32(v); }
/* the lane masks of lo's and then hi's doubles as VS_N 32-bit lanes of all ones or zero */
V_AI vs vdm2_vs(vdm lo, vdm hi)
{
    return vreinterpretq_s32_u32(vuzp1q_u32(vreinterpretq_u32_u64(lo), vreinterpretq_u32_u64(hi)));
}
/* the low halves of v's lanes, VD_N int32 at p */
V_AI void vq_store_i32(int32_t *p, vq v) { vst1_s32(p, vmovn_s64(v)); }
V_AI vq vd_to_vq(vd v) { return vcvtq_s64_f64(v); }
V_AI vd vq_to_vd(vq v) { return vcvtq_f64_s64(v); }
V_AI vq vd_bits(vd v) { return vreinterpretq_s64_f64(v); }
V_AI vd vq_bits(vq v) { return vreinterpretq_f64_s64(v); }
/* (float)v of i64 lanes, one rounding: as vec_avx2.h's, rounding to odd from 2^52 */
V_AI vd vq_f32d(vq v)
{
    const uint64x2_t neg = vcltzq_s64(v);
    const uint64x2_t m = vreinterpretq_u64_s64(vabsq_s64(v));
    const uint64x2_t big = vcgtq_u64(m, vdupq_n_u64((1ull << 52) - 1));
    const uint64x2_t odd = vorrq_u64(vshrq_n_u64(m, 11),
                                     vandq_u64(vtstq_u64(m, vdupq_n_u64(0x7ff)), vdupq_n_u64(1)));
    float64x2_t d = vcvtq_f64_u64(vbslq_u64(big, odd, m));
    d = vmulq_f64(d, vbslq_f64(big, vdupq_n_f64(2048.0), vdupq_n_f64(1.0)));
    d = vbslq_f64(neg, vnegq_f64(d), d);
    return vcvt_f64_f32(vcvt_f32_f64(d));
}

/* vw: VW_N 16-bit lanes, as vec_avx2.h's; vw_taps' x, y are columns 0-3, 4-7. */
#define VW_N 8
typedef int16x8_t vw;
V_AI vw vw_u8(const uint8_t *p) { return vreinterpretq_s16_u16(vmovl_u8(vld1_u8(p))); }
V_AI vw vw_load(const int16_t *p) { return vld1q_s16(p); }
V_AI vw vw_hi8(const uint8_t *p)
{
    uint16x8_t v;
    memcpy(&v, p, sizeof(v));
    return vreinterpretq_s16_u16(vshrq_n_u16(v, 8));
}
V_AI vw vw_lo8(const uint8_t *p)
{
    uint16x8_t v;
    memcpy(&v, p, sizeof(v));
    return vreinterpretq_s16_u16(vandq_u16(v, vdupq_n_u16(255)));
}
V_AI void vw_store(int16_t *p, vw v) { vst1q_s16(p, v); }
V_AI vw vw_add(vw a, vw b) { return vaddq_s16(a, b); }
V_AI vw vw_sub(vw a, vw b) { return vsubq_s16(a, b); }
V_AI vw vw_set1(int16_t x) { return vdupq_n_s16(x); }
V_AI vw vw_srl(vw v, int n)
{
    return vreinterpretq_s16_u16(vshlq_u16(vreinterpretq_u16_s16(v), vdupq_n_s16((int16_t)-n)));
}
V_AI vw vw_and(vw a, vw b) { return vandq_s16(a, b); }
V_AI vw vw_eq(vw a, vw b) { return vreinterpretq_s16_u16(vceqq_s16(a, b)); }
V_AI vw vw_gt(vw a, vw b) { return vreinterpretq_s16_u16(vcgtq_s16(a, b)); }
V_AI void vw_store_u8(uint8_t *p, vw v) { vst1_u8(p, vmovn_u16(vreinterpretq_u16_s16(v))); }
V_AI void vw_taps(vw a, vw b, vw c, int ta, int tb, int tc, vs *x, vs *y)
{
    int32x4_t l = vmull_n_s16(vget_low_s16(a), (int16_t)ta);
    int32x4_t h = vmull_high_n_s16(a, (int16_t)ta);
    l = vmlal_n_s16(l, vget_low_s16(b), (int16_t)tb);
    h = vmlal_high_n_s16(h, b, (int16_t)tb);
    *x = vmlal_n_s16(l, vget_low_s16(c), (int16_t)tc);
    *y = vmlal_high_n_s16(h, c, (int16_t)tc);
}
V_AI vw vw_pack(vs x, vs y) { return vcombine_s16(vqmovn_s32(x), vqmovn_s32(y)); }
/* a's and b's words paired (a low) in 32-bit lanes, x then y in the order vw_pack takes them */
V_AI void vw_pair(vw a, vw b, vs *x, vs *y)
{
    *x = vreinterpretq_s32_s16(vzip1q_s16(a, b));
    *y = vreinterpretq_s32_s16(vzip2q_s16(a, b));
}

#endif
