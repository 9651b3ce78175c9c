/*
 * The AVX-512 rung of the init ladder: which slots take their 512-bit
 * version. Kept separate so the emulated test build (x86/simd512.h) checks
 * exactly the table the library installs.
 *
 * Width per slot: hfilt_dec stays AVX2 (a 16-output version needs a 16 x 16
 * transpose per 16 outputs for a pass that is ~5% of the time). The others
 * take 512 bits; the development machine of issue #14 had no AVX-512 (an
 * AMD EPYC guest without it), so the choice is not a measurement on it:
 * `checkkernel --bench` prints C / AVX2 / AVX-512 per slot on a machine that
 * has it, and a slot where AVX2 is faster goes back to it here.
 */
#include "cpu/dsp.h"
#include "x86/dsp_x86.h"

void SQ_X512(sq_dsp_fill)(SqDsp *d)
{
    d->vfilt_8bpc = SQ_X512(sq_vfilt_8bpc);
    d->vfilt_16bpc = SQ_X512(sq_vfilt_16bpc);
    d->or_16bpc = SQ_X512(sq_or_16bpc);
    d->vfilt_f32 = SQ_X512(sq_vfilt_f32);
    d->local_mean = SQ_X512(sq_local_mean);
    d->cov_rows = SQ_X512(sq_cov_rows);
    d->cov_sums = SQ_X512(sq_cov_sums);
    d->tridiag = SQ_X512(sq_tridiag);
    d->matmul = SQ_X512(sq_matmul);
    d->backsub = SQ_X512(sq_backsub);
    d->block_var = SQ_X512(sq_block_var);
    d->entropy = SQ_X512(sq_entropy);
    d->vgran = 16;
}
