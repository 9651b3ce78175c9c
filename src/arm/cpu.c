/*
 * arm64 detection and the DSP init ladder. Advanced SIMD (NEON) is part of
 * the arm64 base architecture, so it is always there; the *_neon.c library
 * is built with -ffp-contract=off like everything else: its vmulq/vaddq
 * pairs must stay two roundings, never one fmla.
 */
#include "arm/dsp_arm.h"
#include "cpu/dsp.h"
#include "speedqa/speedqa.h"

unsigned sq_arch_cpu_flags(void)
{
    return SPEEDQA_CPU_NEON;
}

void sq_dsp_init_arch(SqDsp *d, unsigned flags)
{
    if (!(flags & SPEEDQA_CPU_NEON))
        return;
    SQ_SIMD_FILL_ALL(d, SQ_NEON);
    d->vgran = 8;
}
