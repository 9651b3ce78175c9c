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

#include "math/prelude.h"

/*
 * The constants of the method, named so the AVX2 lanes (src/x86/linalg_avx2.c)
 * take the same bits: a retyped digit there would break bit-identity only on
 * the machines that have AVX2.
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
/* High word of sqrt(2)/2: where the mantissa range starts. */
#define SQ_LOG2_SQRTH_HI 0x3fe6a09eu

SQ_FN double sq_log2(double x)
{
    const double lg1 = SQ_LOG2_LG1, lg2 = SQ_LOG2_LG2, lg3 = SQ_LOG2_LG3, lg4 = SQ_LOG2_LG4,
                 lg5 = SQ_LOG2_LG5, lg6 = SQ_LOG2_LG6, lg7 = SQ_LOG2_LG7;
    const double inv_ln2_hi = SQ_LOG2_INV_LN2_HI;
    const double inv_ln2_lo = SQ_LOG2_INV_LN2_LO;

    uint64_t u = sq_f64_bits(x);
    int k = 0;
    if (u >> 63) /* negative or -0 */
        return (u << 1) == 0 ? -1.0 / 0.0 : (x - x) / 0.0;
    if (u < 0x0010000000000000ull) { /* zero or subnormal */
        if (u == 0)
            return -1.0 / 0.0;
        x *= 18014398509481984.0; /* 2^54 */
        k = -54;
        u = sq_f64_bits(x);
    }
    if (u >= 0x7ff0000000000000ull) /* inf or nan */
        return x + x;

    /* Normalise the mantissa into [sqrt(2)/2, sqrt(2)). */
    uint32_t hx = (uint32_t)(u >> 32);
    hx += 0x3ff00000u - SQ_LOG2_SQRTH_HI;
    k += (int)(hx >> 20) - 0x3ff;
    hx = (hx & 0x000fffffu) + SQ_LOG2_SQRTH_HI;
    const double m = sq_bits_f64(((uint64_t)hx << 32) | (u & 0xffffffffull));

    const double f = m - 1.0;
    const double hfsq = 0.5 * f * f;
    const double s = f / (2.0 + f);
    const double z = s * s;
    const double w = z * z;
    const double t1 = w * (lg2 + w * (lg4 + w * lg6));
    const double t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)));
    const double r = t2 + t1;

    /* hi keeps only the upper 20 mantissa bits so hi * inv_ln2_hi is exact. */
    double hi = f - hfsq;
    hi = sq_bits_f64(sq_f64_bits(hi) & 0xffffffff00000000ull);
    const double lo = (f - hi) - hfsq + s * (hfsq + r);

    double val_hi = hi * inv_ln2_hi;
    double val_lo = (lo + hi) * inv_ln2_lo + lo * inv_ln2_hi;
    const double y = (double)k;
    const double sum = y + val_hi;
    val_lo += (y - sum) + val_hi;
    val_hi = sum;
    return val_lo + val_hi;
}

#endif
