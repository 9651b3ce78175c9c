/*
 * x86 CPU detection and the DSP init ladder. Built with the baseline flags:
 * only the *_avx2.c and *_avx512.c libraries are compiled with their ISA's
 * flags, and their functions are reached only through the table, after cpuid
 * and the OS (XCR0) said yes.
 */
#include <cpuid.h>
#include <pthread.h>
#include <stdint.h>

#include "cpu/dsp.h"
#include "speedqa/speedqa.h"
#include "x86/dsp_x86.h"

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static void fill_avx2(SqDsp *d);

unsigned sq_arch_cpu_flags(void)
{
    unsigned a, b, c, d, flags = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    const int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (!osxsave || !avx)
        return 0;
    if ((xgetbv0() & 0x6) != 0x6) /* XMM and YMM state enabled by the OS */
        return 0;
    if (__get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    if ((b >> 5) & 1)
        flags |= SPEEDQA_CPU_AVX2;
#ifdef SQ_HAVE_AVX512
    /* F (16), DQ (17), BW (30), VL (31); the OS saves opmask, ZMM0-15
     * upper halves and ZMM16-31 (XCR0 bits 5, 6, 7) besides XMM/YMM. */
    const unsigned need = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);
    if ((b & need) == need && (xgetbv0() & 0xe6) == 0xe6)
        flags |= SPEEDQA_CPU_AVX512;
#endif
    return flags;
}

#ifdef SQ_HAVE_AVX512
/* AVX-512 VBMI (CPUID.7.0 ECX bit 1) and VNNI (ECX bit 11), parts of the
 * AVX-512 level's table where present (their XCR0 state is the level's).
 * Asked once: a CPUID costs a VM exit, and every side's table is filled at
 * open. */
static pthread_once_t ext_once = PTHREAD_ONCE_INIT;
static unsigned ext_word;

static void ext_init(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) < 7)
        return;
    __cpuid_count(7, 0, a, b, c, d);
    ext_word = ((c >> 1) & 1 ? SQ_X86_VBMI : 0) | ((c >> 11) & 1 ? SQ_X86_VNNI : 0);
}

unsigned sq_x86_ext(void)
{
    pthread_once(&ext_once, ext_init);
    return ext_word;
}
#endif

void sq_dsp_init_arch(SqDsp *d, unsigned flags)
{
    if (flags & SPEEDQA_CPU_AVX2)
        fill_avx2(d);
#ifdef SQ_HAVE_AVX512
    if (flags & SPEEDQA_CPU_AVX512)
        sq_dsp_fill_avx512(d, sq_x86_ext());
#endif
}

static void fill_avx2(SqDsp *d)
{
    SQ_SIMD_FILL_ALL(d, SQ_AVX2);
    d->prescale_row = sq_prescale_row_avx2;
    d->vgran = 8;
}
