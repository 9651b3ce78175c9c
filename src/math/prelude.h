/*
 * The one prelude of the shared math core. Everything under src/math/ is
 * compiled unchanged by a C11 compiler, nvcc/hipcc (as CUDA/HIP device and
 * host code) and an OpenCL C 1.2 compiler, so it uses only what all of them
 * have: no libc except through the wrappers below, no VLAs, no recursion,
 * no allocation. All arithmetic that matters for the numbers is IEEE
 * + - * / sqrt with contraction off, which rounds the same everywhere.
 */
#ifndef SQ_MATH_PRELUDE_H
#define SQ_MATH_PRELUDE_H

#if defined(__OPENCL_VERSION__)
#if !defined(SQ_SOFT_F64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#pragma OPENCL FP_CONTRACT OFF
#define SQ_FN static inline
#define SQ_GLOBAL __global
typedef uchar uint8_t;
typedef ushort uint16_t;
typedef int int32_t;
typedef uint uint32_t;
typedef long int64_t;
typedef ulong uint64_t;
#define sq_fabsf(x) fabs((float)(x))
SQ_FN uint32_t sq_f32_bits(float x) { return as_uint(x); }
SQ_FN float sq_bits_f32(uint32_t u) { return as_float(u); }
/* A soft-double program (math/f64.h) holds no double at all. */
#if !defined(SQ_SOFT_F64)
/* OpenCL's fabs/sqrt are overloaded on float: force the double versions
 * the C build uses (C promotes float arguments of fabs/sqrt to double). */
#define sq_sqrt(x) sqrt((double)(x))
#define sq_floor(x) floor((double)(x))
#define sq_ceil(x) ceil((double)(x))
#define sq_fabs(x) fabs((double)(x))
SQ_FN uint64_t sq_f64_bits(double x) { return as_ulong(x); }
SQ_FN double sq_bits_f64(uint64_t u) { return as_double(u); }
#endif
#else
#if defined(__CUDACC__) || defined(__HIPCC__)
#define SQ_FN static __host__ __device__ inline
#else
#define SQ_FN static inline
#include <math.h>
#endif
#include <stdint.h>
#include <string.h>
#define SQ_GLOBAL
#define sq_fabsf(x) fabsf(x)
#if !defined(SQ_SOFT_F64)
#define sq_sqrt(x) sqrt((double)(x))
#define sq_floor(x) floor((double)(x))
#define sq_ceil(x) ceil((double)(x))
#define sq_fabs(x) fabs((double)(x))
#endif
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#if !defined(SQ_SOFT_F64)
SQ_FN uint64_t sq_f64_bits(double x) { return (uint64_t)__double_as_longlong(x); }
SQ_FN double sq_bits_f64(uint64_t u) { return __longlong_as_double((long long)u); }
#endif
SQ_FN uint32_t sq_f32_bits(float x) { return (uint32_t)__float_as_uint(x); }
SQ_FN float sq_bits_f32(uint32_t u) { return __uint_as_float(u); }
#else
#if !defined(SQ_SOFT_F64)
SQ_FN uint64_t sq_f64_bits(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
SQ_FN double sq_bits_f64(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }
#endif
SQ_FN uint32_t sq_f32_bits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
SQ_FN float sq_bits_f32(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
#endif
#endif

/* log2(2*pi*e): the Gaussian entropy constant of the SpEED entropy term (and its bits). */
#define SQ_LOG2_2PIE 4.094191170361282
#define SQ_LOG2_2PIE_BITS 0x40106073a671183dull

/* Fixed block geometry of SpEED: 5x5 blocks, 2^4 decimation. */
#define SQ_BLOCK 5
#define SQ_DECIM_SHIFT 4
#define SQ_MAX_TAPS 35

SQ_FN int sq_imin(int a, int b) { return a < b ? a : b; }
SQ_FN int sq_imax(int a, int b) { return a > b ? a : b; }

/* Index of the highest set bit of v > 0: each target's count-leading-zeros. */
SQ_FN int sq_msb64(uint64_t v)
{
#if defined(__OPENCL_VERSION__)
    return 63 - (int)clz(v);
#elif defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return 63 - __clzll((long long)v);
#elif defined(__GNUC__)
    return 63 - __builtin_clzll(v);
#else
    int m = 0;
    while (v >> (m + 1))
        m++;
    return m;
#endif
}

#endif
