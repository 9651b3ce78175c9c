/*
 * The doubles of the math core (spec 4), through one set of helpers so the
 * same source runs with hardware doubles (C, CUDA, HIP, OpenCL with fp64)
 * or with the integer binary64 of softdouble.h (SQ_SOFT_F64: OpenCL
 * devices without cl_khr_fp64). Both give the same bits.
 *
 * sq_f64 is double, or in soft builds a struct around the bits: a struct,
 * so that a stray + or (double) on one fails to compile instead of doing
 * integer arithmetic. Constants are written with SQ_D(bits, value): the
 * value for hardware, the bits for soft builds (tests/math checks that
 * they agree), since a soft program must hold no double literal.
 */
#ifndef SQ_MATH_F64_H
#define SQ_MATH_F64_H

#include "math/prelude.h"

#if defined(SQ_SOFT_F64)
#include "math/softdouble.h"

typedef struct SqSoftF64 {
    uint64_t u;
} sq_f64;

SQ_FN sq_f64 sq_d_from_bits(uint64_t u) { sq_f64 r; r.u = u; return r; }
SQ_FN uint64_t sq_d_bits(sq_f64 x) { return x.u; }
#define SQ_D(bits, value) sq_d_from_bits(bits)

SQ_FN sq_f64 sq_d_add(sq_f64 a, sq_f64 b) { return sq_d_from_bits(sq_sd_add(a.u, b.u)); }
SQ_FN sq_f64 sq_d_sub(sq_f64 a, sq_f64 b) { return sq_d_from_bits(sq_sd_sub(a.u, b.u)); }
SQ_FN sq_f64 sq_d_mul(sq_f64 a, sq_f64 b) { return sq_d_from_bits(sq_sd_mul(a.u, b.u)); }
SQ_FN sq_f64 sq_d_div(sq_f64 a, sq_f64 b) { return sq_d_from_bits(sq_sd_div(a.u, b.u)); }
SQ_FN sq_f64 sq_d_sqrt(sq_f64 a) { return sq_d_from_bits(sq_sd_sqrt(a.u)); }
SQ_FN sq_f64 sq_d_fabs(sq_f64 a) { return sq_d_from_bits(a.u & ~SQ_SD_SIGN); }
SQ_FN int sq_d_lt(sq_f64 a, sq_f64 b) { return sq_sd_lt(a.u, b.u); }
SQ_FN sq_f64 sq_d_from_float(float x) { return sq_d_from_bits(sq_sd_from_f32(sq_f32_bits(x))); }
SQ_FN float sq_d_to_float(sq_f64 x) { return sq_bits_f32(sq_sd_to_f32(x.u)); }
SQ_FN sq_f64 sq_d_from_int(int64_t v) { return sq_d_from_bits(sq_sd_from_i64(v)); }
SQ_FN sq_f64 sq_d_mul_ff(float a, float b)
{
    return sq_d_from_bits(sq_sd_mul_f32(sq_f32_bits(a), sq_f32_bits(b)));
}

#else

typedef double sq_f64;

SQ_FN sq_f64 sq_d_from_bits(uint64_t u) { return sq_bits_f64(u); }
SQ_FN uint64_t sq_d_bits(sq_f64 x) { return sq_f64_bits(x); }
#define SQ_D(bits, value) (value)

SQ_FN sq_f64 sq_d_add(sq_f64 a, sq_f64 b) { return a + b; }
SQ_FN sq_f64 sq_d_sub(sq_f64 a, sq_f64 b) { return a - b; }
SQ_FN sq_f64 sq_d_mul(sq_f64 a, sq_f64 b) { return a * b; }
SQ_FN sq_f64 sq_d_div(sq_f64 a, sq_f64 b) { return a / b; }
SQ_FN sq_f64 sq_d_sqrt(sq_f64 a) { return sq_sqrt(a); }
SQ_FN sq_f64 sq_d_fabs(sq_f64 a) { return sq_fabs(a); }
SQ_FN int sq_d_lt(sq_f64 a, sq_f64 b) { return a < b; }
SQ_FN sq_f64 sq_d_from_float(float x) { return (double)x; }
SQ_FN float sq_d_to_float(sq_f64 x) { return (float)x; }
SQ_FN sq_f64 sq_d_from_int(int64_t v) { return (double)v; }
/* (double)a * (double)b: exact, which the soft version uses to skip rounding. */
SQ_FN sq_f64 sq_d_mul_ff(float a, float b) { return (double)a * (double)b; }

#endif

/* Shorthands of the mixed float/double expressions of the core. */
SQ_FN sq_f64 sq_d_absf(float x) { return sq_d_fabs(sq_d_from_float(x)); }
SQ_FN float sq_sqrtf_d(float x) { return sq_d_to_float(sq_d_sqrt(sq_d_from_float(x))); }

/* Constants of the core, value and bits (checked against each other in tests/math). */
#define SQ_D_ZERO SQ_D(0x0000000000000000ull, 0.0)
#define SQ_D_HALF SQ_D(0x3fe0000000000000ull, 0.5)
#define SQ_D_ONE SQ_D(0x3ff0000000000000ull, 1.0)
#define SQ_D_TWO SQ_D(0x4000000000000000ull, 2.0)
#define SQ_D_QUARTER SQ_D(0x3fd0000000000000ull, 0.25)
#define SQ_D_3QUARTERS SQ_D(0x3fe8000000000000ull, 0.75)
#define SQ_D_MHALF SQ_D(0xbfe0000000000000ull, -0.5)
#define SQ_D_1EM6 SQ_D(0x3eb0c6f7a0b5ed8dull, 1e-6)
#define SQ_D_LOG2_2PIE SQ_D(SQ_LOG2_2PIE_BITS, SQ_LOG2_2PIE)

#endif
