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
    d->vfilt_8bpc = sq_vfilt_8bpc_neon;
    d->vfilt_16bpc = sq_vfilt_16bpc_neon;
    d->or_16bpc = sq_or_16bpc_neon;
    d->vfilt_f32 = sq_vfilt_f32_neon;
    d->hfilt_dec = sq_hfilt_dec_neon;
    d->local_mean = sq_local_mean_neon;
    d->cov_rows = sq_cov_rows_neon;
    d->cov_sums = sq_cov_sums_neon;
    d->tridiag = sq_tridiag_neon;
    d->matmul = sq_matmul_neon;
    d->backsub = sq_backsub_neon;
    d->block_var = sq_block_var_neon;
    d->entropy = sq_entropy_neon;
    d->vgran = 8;
}
