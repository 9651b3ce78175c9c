/*
 * The AVX-512 files include this instead of <immintrin.h>. With
 * SQ_AVX512_EMU (the checkkernel_avx512emu test only) the same sources are
 * compiled against SIMDe's portable AVX-512, so a machine without AVX-512
 * still checks their lane logic bit for bit; the functions then carry the
 * suffix _avx512emu and never reach the library.
 */
#ifndef SQ_X86_SIMD512_H
#define SQ_X86_SIMD512_H

#define AI static inline __attribute__((always_inline))

#ifdef SQ_AVX512_EMU
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#include <string.h>
typedef simde__mmask8 __mmask8;
typedef simde__mmask16 __mmask16;
typedef simde__mmask32 __mmask32;
typedef simde__mmask64 __mmask64;
/*
 * Masked loads and stores, for SIMDe versions without them: lane by lane,
 * touching only the lanes of the mask (as the instructions do, which never
 * fault on the others).
 */
#define SQ_EMU_MASKZ(name, vec, lanes, bytes, mask_t, loadu)                     \
    AI vec name(mask_t m, const void *p)                                          \
    {                                                                             \
        unsigned char t[lanes * bytes];                                           \
        memset(t, 0, sizeof(t));                                                  \
        for (int i = 0; i < lanes; i++)                                           \
            if ((m >> i) & 1)                                                     \
                memcpy(t + i * bytes, (const unsigned char *)p + i * bytes, bytes); \
        return loadu((const void *)t);                                            \
    }
AI __m512 sq_emu_loadu_ps(const void *p) { return _mm512_loadu_ps((const float *)p); }
AI __m512d sq_emu_loadu_pd(const void *p) { return _mm512_loadu_pd((const double *)p); }
AI __m128i sq_emu_loadu_128(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
AI __m256i sq_emu_loadu_256(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
AI __m512i sq_emu_loadu_512(const void *p) { return _mm512_loadu_si512(p); }
SQ_EMU_MASKZ(sq_emu_maskz_loadu_ps, __m512, 16, 4, __mmask16, sq_emu_loadu_ps)
SQ_EMU_MASKZ(sq_emu_maskz_loadu_pd, __m512d, 8, 8, __mmask8, sq_emu_loadu_pd)
SQ_EMU_MASKZ(sq_emu_maskz_loadu_epi8_128, __m128i, 16, 1, __mmask16, sq_emu_loadu_128)
SQ_EMU_MASKZ(sq_emu_maskz_loadu_epi16_256, __m256i, 16, 2, __mmask16, sq_emu_loadu_256)
SQ_EMU_MASKZ(sq_emu_maskz_loadu_epi16_512, __m512i, 32, 2, __mmask32, sq_emu_loadu_512)
SQ_EMU_MASKZ(sq_emu_maskz_loadu_epi8_512, __m512i, 64, 1, __mmask64, sq_emu_loadu_512)
AI __m512 sq_emu_mask_loadu_ps(__m512 src, __mmask16 m, const void *p)
{
    return _mm512_mask_mov_ps(src, m, sq_emu_maskz_loadu_ps(m, p));
}
AI void sq_emu_mask_storeu_ps(void *p, __mmask16 m, __m512 v)
{
    float t[16];
    _mm512_storeu_ps(t, v);
    for (int i = 0; i < 16; i++)
        if ((m >> i) & 1)
            memcpy((unsigned char *)p + 4 * i, t + i, 4);
}
AI void sq_emu_mask_storeu_pd(void *p, __mmask8 m, __m512d v)
{
    double t[8];
    _mm512_storeu_pd(t, v);
    for (int i = 0; i < 8; i++)
        if ((m >> i) & 1)
            memcpy((unsigned char *)p + 8 * i, t + i, 8);
}
#undef _mm512_maskz_loadu_ps
#undef _mm512_maskz_loadu_pd
#undef _mm_maskz_loadu_epi8
#undef _mm256_maskz_loadu_epi16
#undef _mm512_maskz_loadu_epi16
#undef _mm512_maskz_loadu_epi8
#undef _mm512_mask_loadu_ps
#undef _mm512_mask_storeu_ps
#undef _mm512_mask_storeu_pd
#define _mm512_maskz_loadu_ps sq_emu_maskz_loadu_ps
#define _mm512_maskz_loadu_pd sq_emu_maskz_loadu_pd
#define _mm_maskz_loadu_epi8 sq_emu_maskz_loadu_epi8_128
#define _mm256_maskz_loadu_epi16 sq_emu_maskz_loadu_epi16_256
#define _mm512_maskz_loadu_epi16 sq_emu_maskz_loadu_epi16_512
#define _mm512_maskz_loadu_epi8 sq_emu_maskz_loadu_epi8_512
#define _mm512_mask_loadu_ps sq_emu_mask_loadu_ps
#define _mm512_mask_storeu_ps sq_emu_mask_storeu_ps
#define _mm512_mask_storeu_pd sq_emu_mask_storeu_pd
/* Conversions and compares this SIMDe may lack, lane by lane. */
#define SQ_EMU_CONV(name, tout, nout, tin, tsrc, ttmp, store, load)  \
    AI tout name(tin v)                                                \
    {                                                                  \
        tsrc a[nout];                                                  \
        ttmp b[nout];                                                  \
        store((void *)a, v);                                           \
        for (int i = 0; i < nout; i++)                                 \
            b[i] = (ttmp)a[i];                                         \
        return load((const void *)b);                                  \
    }
AI void sq_emu_st128(void *p, __m128i v) { _mm_storeu_si128((__m128i *)p, v); }
AI void sq_emu_st256(void *p, __m256i v) { _mm256_storeu_si256((__m256i *)p, v); }
AI void sq_emu_st512(void *p, __m512i v) { _mm512_storeu_si512(p, v); }
AI void sq_emu_st512ps(void *p, __m512 v) { _mm512_storeu_ps((float *)p, v); }
AI void sq_emu_st256ps(void *p, __m256 v) { _mm256_storeu_ps((float *)p, v); }
AI void sq_emu_st512pd(void *p, __m512d v) { _mm512_storeu_pd((double *)p, v); }
AI __m256 sq_emu_ld256ps(const void *p) { return _mm256_loadu_ps((const float *)p); }
SQ_EMU_CONV(sq_emu_cvtepu8_epi32, __m512i, 16, __m128i, uint8_t, int32_t, sq_emu_st128, sq_emu_loadu_512)
SQ_EMU_CONV(sq_emu_cvtepu8_epi16, __m512i, 32, __m256i, uint8_t, int16_t, sq_emu_st256, sq_emu_loadu_512)
SQ_EMU_CONV(sq_emu_cvtepu16_epi32, __m512i, 16, __m256i, uint16_t, int32_t, sq_emu_st256, sq_emu_loadu_512)
SQ_EMU_CONV(sq_emu_cvtepi32_ps, __m512, 16, __m512i, int32_t, float, sq_emu_st512, sq_emu_loadu_ps)
SQ_EMU_CONV(sq_emu_cvtepi64_pd, __m512d, 8, __m512i, int64_t, double, sq_emu_st512, sq_emu_loadu_pd)
SQ_EMU_CONV(sq_emu_cvtps_pd, __m512d, 8, __m256, float, double, sq_emu_st256ps, sq_emu_loadu_pd)
SQ_EMU_CONV(sq_emu_cvtpd_ps, __m256, 8, __m512d, double, float, sq_emu_st512pd, sq_emu_ld256ps)
SQ_EMU_CONV(sq_emu_cvtepi32_pd, __m512d, 8, __m256i, int32_t, double, sq_emu_st256, sq_emu_loadu_pd)
SQ_EMU_CONV(sq_emu_cvttpd_epi32, __m256i, 8, __m512d, double, int32_t, sq_emu_st512pd, sq_emu_loadu_256)
SQ_EMU_CONV(sq_emu_cvtepi32_epi64, __m512i, 8, __m256i, int32_t, int64_t, sq_emu_st256, sq_emu_loadu_512)
SQ_EMU_CONV(sq_emu_cvtepi64_ps, __m256, 8, __m512i, int64_t, float, sq_emu_st512, sq_emu_ld256ps)
/* Nor 64-bit arithmetic shifts (vpsraq, vpsravq). */
AI __m512i sq_emu_srav_epi64(__m512i v, __m512i n)
{
    int64_t a[8], c[8];
    _mm512_storeu_si512(a, v);
    _mm512_storeu_si512(c, n);
    for (int i = 0; i < 8; i++)
        a[i] >>= (uint64_t)c[i] > 63 ? 63 : c[i];
    return _mm512_loadu_si512(a);
}
AI __m512i sq_emu_sra_epi64(__m512i v, __m128i n)
{
    return sq_emu_srav_epi64(v, _mm512_set1_epi64(_mm_cvtsi128_si64(n)));
}
#undef _mm512_cvtepi32_epi64
#define _mm512_cvtepi32_epi64 sq_emu_cvtepi32_epi64
#undef _mm512_cvtepi64_ps
#define _mm512_cvtepi64_ps sq_emu_cvtepi64_ps
#undef _mm512_srav_epi64
#define _mm512_srav_epi64 sq_emu_srav_epi64
#undef _mm512_sra_epi64
#define _mm512_sra_epi64 sq_emu_sra_epi64
AI __mmask8 sq_emu_cmp_epu64(__m512i x, __m512i y, int gt)
{
    uint64_t a[8], b[8];
    unsigned m = 0;
    _mm512_storeu_si512(a, x);
    _mm512_storeu_si512(b, y);
    for (int i = 0; i < 8; i++)
        m |= (unsigned)(gt ? a[i] > b[i] : a[i] < b[i]) << i;
    return (__mmask8)m;
}
/* This SIMDe has no 32-bit arithmetic shift by a count (vpsrad). */
AI __m512i sq_emu_sra_epi32(__m512i v, __m128i n)
{
    int32_t a[16];
    const int s = _mm_cvtsi128_si32(n);
    _mm512_storeu_si512(a, v);
    for (int i = 0; i < 16; i++)
        a[i] >>= s > 31 ? 31 : s;
    return _mm512_loadu_si512(a);
}
#undef _mm512_sra_epi32
#define _mm512_sra_epi32 sq_emu_sra_epi32
#undef _mm512_cvtepu8_epi32
#define _mm512_cvtepu8_epi32 sq_emu_cvtepu8_epi32
#undef _mm512_cvtepu8_epi16
#define _mm512_cvtepu8_epi16 sq_emu_cvtepu8_epi16
#undef _mm512_cvtepu16_epi32
#define _mm512_cvtepu16_epi32 sq_emu_cvtepu16_epi32
#undef _mm512_cvtepi32_ps
#define _mm512_cvtepi32_ps sq_emu_cvtepi32_ps
#undef _mm512_cvtepi64_pd
#define _mm512_cvtepi64_pd sq_emu_cvtepi64_pd
#undef _mm512_cvtps_pd
#define _mm512_cvtps_pd sq_emu_cvtps_pd
#undef _mm512_cvtpd_ps
#define _mm512_cvtpd_ps sq_emu_cvtpd_ps
#undef _mm512_cvtepi32_pd
#define _mm512_cvtepi32_pd sq_emu_cvtepi32_pd
#undef _mm512_cvttpd_epi32
#define _mm512_cvttpd_epi32 sq_emu_cvttpd_epi32
/* This SIMDe's alias of _mm512_madd_epi16 takes the masked form's arguments. */
#undef _mm512_madd_epi16
#define _mm512_madd_epi16 simde_mm512_madd_epi16
#define _mm512_cmplt_epu64_mask(x, y) sq_emu_cmp_epu64(x, y, 0)
#define _mm512_cmpgt_epu64_mask(x, y) sq_emu_cmp_epu64(x, y, 1)
#else
#include <immintrin.h>
#endif

/* Mask of the first n (0..16) lanes. */
AI __mmask16 sq_mask16(int n)
{
    return (__mmask16)(n >= 16 ? 0xffffu : (1u << n) - 1u);
}

AI __mmask8 sq_mask8(int n)
{
    return (__mmask8)(n >= 8 ? 0xffu : (1u << n) - 1u);
}

#endif
