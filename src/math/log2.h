/*
 * Double-precision log2, one implementation for every backend. libm, CUDA
 * and OpenCL each round log2 differently in the last bit; the entropy and
 * pooling stages call it thousands of times per frame, so a shared version
 * is what keeps the backends bit-identical. Error stays below 1 ulp of the
 * true value (tests/math/test_log2.c checks it against libm).
 *
 * Method: x = 2^k * m with m in [sqrt(2)/2, sqrt(2)), f = m - 1,
 * ln(1+f) from the odd series in s = f/(2+f) (minimax coefficients), and
 * the conversion to base 2 done in a hi/lo split so k + log2(m) keeps its
 * low bits.
 */
#ifndef SQ_MATH_LOG2_H
#define SQ_MATH_LOG2_H

#include "math/f64.h"
#include "math/prelude.h"

/*
 * The constants of the method, named so the AVX2 lanes (src/x86/linalg_avx2.c)
 * take the same bits: a retyped digit there would break bit-identity only on
 * the machines that have AVX2. The _BITS twins are what a soft-double build
 * (math/f64.h) uses; tests/math/test_softdouble.c checks that they agree.
 */
#define SQ_LOG2_LG1 6.666666666666735130e-01
#define SQ_LOG2_LG2 3.999999999940941908e-01
#define SQ_LOG2_LG3 2.857142874366239149e-01
#define SQ_LOG2_LG4 2.222219843214978396e-01
#define SQ_LOG2_LG5 1.818357216161805012e-01
#define SQ_LOG2_LG6 1.531383769920937332e-01
#define SQ_LOG2_LG7 1.479819860511658591e-01
#define SQ_LOG2_INV_LN2_HI 1.44269504072144627571e+00
#define SQ_LOG2_INV_LN2_LO 1.67517131648865118353e-10
#define SQ_LOG2_LG1_BITS 0x3fe5555555555593ull
#define SQ_LOG2_LG2_BITS 0x3fd999999997fa04ull
#define SQ_LOG2_LG3_BITS 0x3fd2492494229359ull
#define SQ_LOG2_LG4_BITS 0x3fcc71c51d8e78afull
#define SQ_LOG2_LG5_BITS 0x3fc7466496cb03deull
#define SQ_LOG2_LG6_BITS 0x3fc39a09d078c69full
#define SQ_LOG2_LG7_BITS 0x3fc2f112df3e5244ull
#define SQ_LOG2_INV_LN2_HI_BITS 0x3ff7154765200000ull
#define SQ_LOG2_INV_LN2_LO_BITS 0x3de705fc2eefa200ull
/* 2^54, the scale of a subnormal argument. */
#define SQ_LOG2_TWO54_BITS 0x4350000000000000ull
/* High word of sqrt(2)/2: where the mantissa range starts. */
#define SQ_LOG2_SQRTH_HI 0x3fe6a09eu

#define SQ_LOG2_C(name) SQ_D(name##_BITS, name)

SQ_FN sq_f64 sq_log2(sq_f64 x)
{
    const sq_f64 lg1 = SQ_LOG2_C(SQ_LOG2_LG1), lg2 = SQ_LOG2_C(SQ_LOG2_LG2),
                 lg3 = SQ_LOG2_C(SQ_LOG2_LG3), lg4 = SQ_LOG2_C(SQ_LOG2_LG4),
                 lg5 = SQ_LOG2_C(SQ_LOG2_LG5), lg6 = SQ_LOG2_C(SQ_LOG2_LG6),
                 lg7 = SQ_LOG2_C(SQ_LOG2_LG7);
    const sq_f64 inv_ln2_hi = SQ_LOG2_C(SQ_LOG2_INV_LN2_HI);
    const sq_f64 inv_ln2_lo = SQ_LOG2_C(SQ_LOG2_INV_LN2_LO);

    uint64_t u = sq_d_bits(x);
    int k = 0;
    if (u >> 63) /* negative or -0: -inf, or the NaN of (x - x) / 0 */
        return (u << 1) == 0 ? sq_d_div(sq_d_sub(SQ_D_ZERO, SQ_D_ONE), SQ_D_ZERO)
                             : sq_d_div(sq_d_sub(x, x), SQ_D_ZERO);
    if (u < 0x0010000000000000ull) { /* zero or subnormal */
        if (u == 0)
            return sq_d_div(sq_d_sub(SQ_D_ZERO, SQ_D_ONE), SQ_D_ZERO);
        x = sq_d_mul(x, SQ_D(SQ_LOG2_TWO54_BITS, 18014398509481984.0));
        k = -54;
        u = sq_d_bits(x);
    }
    if (u >= 0x7ff0000000000000ull) /* inf or nan */
        return sq_d_add(x, x);

    /* Normalise the mantissa into [sqrt(2)/2, sqrt(2)). */
    uint32_t hx = (uint32_t)(u >> 32);
    hx += 0x3ff00000u - SQ_LOG2_SQRTH_HI;
    k += (int)(hx >> 20) - 0x3ff;
    hx = (hx & 0x000fffffu) + SQ_LOG2_SQRTH_HI;
    const sq_f64 m = sq_d_from_bits(((uint64_t)hx << 32) | (u & 0xffffffffull));

    const sq_f64 f = sq_d_sub(m, SQ_D_ONE);
    const sq_f64 hfsq = sq_d_mul(sq_d_mul(SQ_D_HALF, f), f);
    const sq_f64 s = sq_d_div(f, sq_d_add(SQ_D_TWO, f));
    const sq_f64 z = sq_d_mul(s, s);
    const sq_f64 w = sq_d_mul(z, z);
    const sq_f64 t1 = sq_d_mul(w, sq_d_add(lg2, sq_d_mul(w, sq_d_add(lg4, sq_d_mul(w, lg6)))));
    const sq_f64 t2 = sq_d_mul(
        z, sq_d_add(lg1, sq_d_mul(w, sq_d_add(lg3, sq_d_mul(w, sq_d_add(lg5, sq_d_mul(w, lg7)))))));
    const sq_f64 r = sq_d_add(t2, t1);

    /* hi keeps only the upper 20 mantissa bits so hi * inv_ln2_hi is exact. */
    sq_f64 hi = sq_d_sub(f, hfsq);
    hi = sq_d_from_bits(sq_d_bits(hi) & 0xffffffff00000000ull);
    const sq_f64 lo = sq_d_add(sq_d_sub(sq_d_sub(f, hi), hfsq), sq_d_mul(s, sq_d_add(hfsq, r)));

    sq_f64 val_hi = sq_d_mul(hi, inv_ln2_hi);
    sq_f64 val_lo = sq_d_add(sq_d_mul(sq_d_add(lo, hi), inv_ln2_lo), sq_d_mul(lo, inv_ln2_hi));
    const sq_f64 y = sq_d_from_int(k);
    const sq_f64 sum = sq_d_add(y, val_hi);
    val_lo = sq_d_add(val_lo, sq_d_add(sq_d_sub(y, sum), val_hi));
    val_hi = sum;
    return sq_d_add(val_lo, val_hi);
}

#endif
