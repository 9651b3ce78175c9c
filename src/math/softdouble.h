/*
 * IEEE 754 binary64 on 64-bit integers, for OpenCL devices without
 * cl_khr_fp64 (spec 4: the few doubles of SpEED). Every operation takes and
 * returns the bits of a double and rounds to nearest, ties to even, with
 * subnormals, signed zeros and infinities as the hardware has them.
 *
 * NaNs follow x86 SSE, the reference the CPU test compares with: a NaN
 * operand comes back quieted (the first one when both are NaN) and an
 * invalid operation gives the default NaN 0xfff8000000000000. Payloads are
 * the only thing a GPU's own doubles may do differently; no score depends
 * on them (a NaN score is a NaN whatever its bits).
 *
 * Internal form of a result before rounding: a significand sig (any
 * nonzero 64-bit value) and a biased exponent e, value sig * 2^(e - 1085),
 * so that a sig normalised to bit 62 has e as its biased exponent; bit 0
 * of sig doubles as the sticky bit of what was shifted out.
 */
#ifndef SQ_MATH_SOFTDOUBLE_H
#define SQ_MATH_SOFTDOUBLE_H

#include "math/prelude.h"

#define SQ_SD_SIGN 0x8000000000000000ull
#define SQ_SD_INF 0x7ff0000000000000ull
#define SQ_SD_QUIET 0x0008000000000000ull
#define SQ_SD_FRAC 0x000fffffffffffffull
#define SQ_SD_HIDDEN 0x0010000000000000ull
#define SQ_SD_DEFAULT_NAN 0xfff8000000000000ull

SQ_FN int sq_sd_clz64(uint64_t x)
{
#if defined(__OPENCL_VERSION__)
    return (int)clz(x);
#elif defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return __clzll((long long)x);
#elif defined(__GNUC__) && !defined(SQ_SD_PORTABLE) /* SQ_SD_PORTABLE: tests of the fallbacks */
    return x ? __builtin_clzll(x) : 64;
#else
    int n = 0;
    for (uint64_t bit = SQ_SD_SIGN; bit && !(x & bit); bit >>= 1)
        n++;
    return n;
#endif
}

/* High 64 bits of a * b (the low half is a * b itself). */
SQ_FN uint64_t sq_sd_mulhi(uint64_t a, uint64_t b)
{
#if defined(__OPENCL_VERSION__)
    return mul_hi(a, b);
#elif defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return __umul64hi(a, b);
#elif defined(__SIZEOF_INT128__) && !defined(SQ_SD_PORTABLE)
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#else
    const uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

/* x >> n with every bit shifted out ORed into bit 0 (n >= 0). */
SQ_FN uint64_t sq_sd_shr_sticky(uint64_t x, int n)
{
    if (n == 0)
        return x;
    if (n >= 64)
        return x != 0;
    return (x >> n) | ((x << (64 - n)) != 0);
}

SQ_FN int sq_sd_isnan(uint64_t a) { return (a & ~SQ_SD_SIGN) > SQ_SD_INF; }

/* The NaN result of an operation with NaN operands (a is known NaN or b is). */
SQ_FN uint64_t sq_sd_nan2(uint64_t a, uint64_t b)
{
    return (sq_sd_isnan(a) ? a : b) | SQ_SD_QUIET;
}

/* Round sig * 2^(e - 1085) to a double of sign `sign` (sig != 0). */
SQ_FN uint64_t sq_sd_round_pack(uint64_t sign, int e, uint64_t sig)
{
    if (sig >> 63) {
        sig = (sig >> 1) | (sig & 1);
        e++;
    } else {
        const int lz = sq_sd_clz64(sig) - 1;
        sig <<= lz;
        e -= lz;
    }
    if (e >= 0x7ff)
        return sign | SQ_SD_INF;
    if (e <= 0) {
        sig = sq_sd_shr_sticky(sig, 1 - e);
        e = 0;
    }
    const uint64_t rb = sig & 0x3ff;
    uint64_t m = sig >> 10;
    if (rb > 0x200 || (rb == 0x200 && (m & 1)))
        m++;
    if (e == 0) /* a carry into bit 52 makes it the smallest normal, as it should */
        return sign | m;
    /* m's hidden bit adds one to the exponent field; a carry to 2^53 adds one more. */
    const uint64_t bits = ((uint64_t)(e - 1) << 52) + m;
    return sign | (bits >= SQ_SD_INF ? SQ_SD_INF : bits);
}

/* Significand with the hidden bit and the exponent of a finite nonzero operand. */
SQ_FN uint64_t sq_sd_unpack(uint64_t a, int *e)
{
    const int ef = (int)((a >> 52) & 0x7ff);
    *e = ef ? ef : 1;
    return ef ? (a & SQ_SD_FRAC) | SQ_SD_HIDDEN : a & SQ_SD_FRAC;
}

/* As sq_sd_unpack, with a subnormal's significand shifted up to bit 52. */
SQ_FN uint64_t sq_sd_unpack_norm(uint64_t a, int *e)
{
    uint64_t m = sq_sd_unpack(a, e);
    const int sh = sq_sd_clz64(m) - 11;
    *e -= sh;
    return m << sh;
}

SQ_FN uint64_t sq_sd_add(uint64_t a, uint64_t b)
{
    const uint64_t aa = a & ~SQ_SD_SIGN, ab = b & ~SQ_SD_SIGN;
    if (aa >= SQ_SD_INF || ab >= SQ_SD_INF) {
        if (aa > SQ_SD_INF || ab > SQ_SD_INF)
            return sq_sd_nan2(a, b);
        if (aa == ab && a != b) /* inf - inf */
            return SQ_SD_DEFAULT_NAN;
        return aa == SQ_SD_INF ? a : b;
    }
    if (aa == 0 && ab == 0) /* -0 only when both are */
        return a & b;
    /* x has the larger magnitude; the result takes its sign. */
    const uint64_t x = aa >= ab ? a : b, y = aa >= ab ? b : a;
    int ex, ey;
    const uint64_t mx = sq_sd_unpack(x, &ex) << 9, my0 = sq_sd_unpack(y, &ey) << 9;
    const uint64_t my = sq_sd_shr_sticky(my0, ex - ey);
    const uint64_t sig = ((a ^ b) & SQ_SD_SIGN) ? mx - my : mx + my;
    if (sig == 0) /* x - x is +0 when rounding to nearest */
        return 0;
    return sq_sd_round_pack(x & SQ_SD_SIGN, ex + 1, sig);
}

SQ_FN uint64_t sq_sd_sub(uint64_t a, uint64_t b)
{
    /* a - b is a + (-b) except that a NaN b keeps its own sign. */
    return sq_sd_isnan(b) ? sq_sd_add(a, b) : sq_sd_add(a, b ^ SQ_SD_SIGN);
}

SQ_FN uint64_t sq_sd_mul(uint64_t a, uint64_t b)
{
    const uint64_t aa = a & ~SQ_SD_SIGN, ab = b & ~SQ_SD_SIGN, sign = (a ^ b) & SQ_SD_SIGN;
    if (aa > SQ_SD_INF || ab > SQ_SD_INF)
        return sq_sd_nan2(a, b);
    if (aa == SQ_SD_INF || ab == SQ_SD_INF)
        return aa == 0 || ab == 0 ? SQ_SD_DEFAULT_NAN : sign | SQ_SD_INF;
    if (aa == 0 || ab == 0)
        return sign;
    int ea, eb;
    const uint64_t ma = sq_sd_unpack_norm(a, &ea), mb = sq_sd_unpack_norm(b, &eb);
    /* ma * mb lies in [2^104, 2^106): keep its top bits from 2^42, the rest as sticky. */
    const uint64_t lo = ma * mb, hi = sq_sd_mulhi(ma, mb);
    const uint64_t sig = (hi << 22) | (lo >> 42) | ((lo << 22) != 0);
    return sq_sd_round_pack(sign, ea + eb - 1023, sig);
}

SQ_FN uint64_t sq_sd_div(uint64_t a, uint64_t b)
{
    const uint64_t aa = a & ~SQ_SD_SIGN, ab = b & ~SQ_SD_SIGN, sign = (a ^ b) & SQ_SD_SIGN;
    if (aa > SQ_SD_INF || ab > SQ_SD_INF)
        return sq_sd_nan2(a, b);
    if (aa == SQ_SD_INF)
        return ab == SQ_SD_INF ? SQ_SD_DEFAULT_NAN : sign | SQ_SD_INF;
    if (ab == SQ_SD_INF)
        return sign;
    if (ab == 0)
        return aa == 0 ? SQ_SD_DEFAULT_NAN : sign | SQ_SD_INF;
    if (aa == 0)
        return sign;
    int ea, eb;
    uint64_t ma = sq_sd_unpack_norm(a, &ea);
    const uint64_t mb = sq_sd_unpack_norm(b, &eb);
    if (ma < mb) {
        ma <<= 1;
        ea--;
    }
    /* Restoring division: 55 quotient bits of ma / mb in [1, 2), the remainder as sticky. */
    uint64_t q = 0, rem = ma;
    for (int i = 0; i < 55; i++) {
        q <<= 1;
        if (rem >= mb) {
            rem -= mb;
            q |= 1;
        }
        rem <<= 1;
    }
    return sq_sd_round_pack(sign, ea - eb + 1023, (q << 8) | (rem != 0));
}

SQ_FN uint64_t sq_sd_sqrt(uint64_t a)
{
    if (sq_sd_isnan(a))
        return a | SQ_SD_QUIET;
    if ((a & ~SQ_SD_SIGN) == 0) /* sqrt(-0) = -0 */
        return a;
    if (a >> 63)
        return SQ_SD_DEFAULT_NAN;
    if (a == SQ_SD_INF)
        return a;
    int e;
    uint64_t m = sq_sd_unpack_norm(a, &e);
    int ex = e - 1075; /* a = m * 2^ex, made even so the root halves it exactly */
    if (ex & 1) {
        m <<= 1;
        ex--;
    }
    /* Digit-by-digit root of m * 2^56 (55 bit pairs, m < 2^54): a 55-bit root. */
    uint64_t root = 0, rem = 0;
    for (int i = 0; i < 55; i++) {
        const int at = 52 - 2 * i;
        const uint64_t pair = at >= 0 ? (m >> at) & 3 : 0;
        rem = (rem << 2) | pair;
        const uint64_t trial = (root << 2) | 1;
        root <<= 1;
        if (rem >= trial) {
            rem -= trial;
            root |= 1;
        }
    }
    return sq_sd_round_pack(0, (ex - 56) / 2 + 1077, (root << 8) | (rem != 0));
}

/* a < b, a <= b, a == b: false on a NaN, -0 equal to +0. */
SQ_FN int sq_sd_lt(uint64_t a, uint64_t b)
{
    if (sq_sd_isnan(a) || sq_sd_isnan(b) || ((a | b) & ~SQ_SD_SIGN) == 0)
        return 0;
    if ((a ^ b) & SQ_SD_SIGN)
        return (int)(a >> 63);
    return a >> 63 ? a > b : a < b;
}

SQ_FN int sq_sd_le(uint64_t a, uint64_t b)
{
    if (sq_sd_isnan(a) || sq_sd_isnan(b))
        return 0;
    if (((a | b) & ~SQ_SD_SIGN) == 0)
        return 1;
    if ((a ^ b) & SQ_SD_SIGN)
        return (int)(a >> 63);
    return a >> 63 ? a >= b : a <= b;
}

SQ_FN int sq_sd_eq(uint64_t a, uint64_t b)
{
    if (sq_sd_isnan(a) || sq_sd_isnan(b))
        return 0;
    return a == b || ((a | b) & ~SQ_SD_SIGN) == 0;
}

/* Exact widening of the bits of a float. */
SQ_FN uint64_t sq_sd_from_f32(uint32_t f)
{
    const uint64_t sign = (uint64_t)(f >> 31) << 63, frac = f & 0x7fffffu;
    const uint32_t ef = (f >> 23) & 0xff;
    if (ef == 0xff)
        return sign | SQ_SD_INF | (frac ? SQ_SD_QUIET | (frac << 29) : 0);
    if (ef == 0) {
        if (frac == 0)
            return sign;
        const int p = 63 - sq_sd_clz64(frac); /* leading bit: the value is 2^(p - 149) * 1.f */
        return sign | ((uint64_t)(p + 874) << 52) | ((frac << (52 - p)) & SQ_SD_FRAC);
    }
    return sign | ((uint64_t)(ef + 896) << 52) | (frac << 29);
}

/* Rounding to the bits of a float, to nearest even. */
SQ_FN uint32_t sq_sd_to_f32(uint64_t a)
{
    const uint32_t sign = (uint32_t)(a >> 63) << 31;
    const int ed = (int)((a >> 52) & 0x7ff);
    if (ed == 0x7ff)
        return sign | 0x7f800000u | ((a & SQ_SD_FRAC) ? 0x400000u | (uint32_t)((a & SQ_SD_FRAC) >> 29) : 0);
    if ((a & ~SQ_SD_SIGN) == 0)
        return sign;
    int e;
    const uint64_t m = sq_sd_unpack_norm(a, &e);
    const int ef = e - 896; /* float biased exponent of m's leading bit */
    if (ef >= 0xff)
        return sign | 0x7f800000u;
    const int shift = 29 + (ef <= 0 ? 1 - ef : 0);
    if (shift >= 54) /* below half the smallest subnormal */
        return sign;
    uint64_t q = m >> shift;
    const uint64_t rem = m & ((1ull << shift) - 1), tie = 1ull << (shift - 1);
    if (rem > tie || (rem == tie && (q & 1)))
        q++;
    if (ef <= 0)
        return sign | (uint32_t)q;
    const uint64_t bits = ((uint64_t)(ef - 1) << 23) + q;
    return sign | (bits >= 0x7f800000u ? 0x7f800000u : (uint32_t)bits);
}

/*
 * (double)a * (double)b of two floats, from their bits: the product of two
 * 24-bit significands is exact in a double and its exponent stays far
 * inside the normal range, so two normal floats need no rounding at all.
 */
SQ_FN uint64_t sq_sd_mul_f32(uint32_t a, uint32_t b)
{
    const uint32_t ea = (a >> 23) & 0xff, eb = (b >> 23) & 0xff;
    if (ea == 0 || eb == 0 || ea == 0xff || eb == 0xff) /* zeros, subnormals, inf, NaN */
        return sq_sd_mul(sq_sd_from_f32(a), sq_sd_from_f32(b));
    const uint64_t p = (uint64_t)((a & 0x7fffffu) | 0x800000u) * ((b & 0x7fffffu) | 0x800000u);
    const int top = (int)(p >> 47); /* p in [2^46, 2^48): leading bit 46 + top */
    const uint64_t sign = (uint64_t)((a ^ b) >> 31) << 63;
    /* value = p * 2^(ea + eb - 300) = 1.f * 2^(46 + top + ea + eb - 300) */
    return sign | ((uint64_t)(46 + top + (int)(ea + eb) - 300 + 1023) << 52) |
           ((p << (6 - top)) & SQ_SD_FRAC);
}

SQ_FN uint64_t sq_sd_from_i64(int64_t v)
{
    if (v == 0)
        return 0;
    const uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    return sq_sd_round_pack(v < 0 ? SQ_SD_SIGN : 0, 1085, mag);
}

#endif
