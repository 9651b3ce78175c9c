/*
 * The AVX-512 rung of the init ladder: which slots take their 512-bit
 * version. Kept separate so the emulated test build (x86/simd512.h) checks
 * exactly the table the library installs.
 *
 * Width per slot, from `checkkernel --bench` on the lent H200 machine's
 * Xeon (AVX-512, 2026-12-01; ns per call, AVX2 -> AVX-512): 512 bits pay for
 * vfilt_8bpc (1516 -> 1434, diff 1988 -> 1858), vfilt_16bpc (2361 -> 1664,
 * diff 2931 -> 2406), local_mean (48 -> 35), cov_rows (40316 -> 33304),
 * matmul (7112 -> 4953), backsub (3908 -> 3756) and entropy (23830 ->
 * 18908); AVX2 stays faster for vfilt_f32 (27 vs 59), tridiag (3935 vs
 * 4959), block_var (1641 vs 1944) and hfilt_dec (151 vs 158), so those
 * slots keep the AVX2 rung's versions. cov_sums takes the 512-bit version
 * that adds each row to all five window sums at once (this VM's Xeon,
 * 2026-12-02: see simd/cov_tmpl.h); block_rows (the solve's right-hand
 * sides, copies C does one by one) and pool_terms (the pooling's log2s,
 * 8 blocks a vector as entropy's) exist at this level only. or_16bpc (not
 * timed) takes 512 bits with vfilt_16bpc, whose rows it reads.
 * vhfilt_8bpc (both anti-alias passes, vertical only at the columns the
 * decimated pass reads) needs VBMI too (vpermb); without it the table keeps
 * the two passes. motion_sad (this VM's AMD EPYC, 2026-12-05, 1920x1080
 * planes, AVX2 -> AVX-512): 8-bit 0.85 -> 0.75 ms, 10-bit 1.39 -> 1.16 ms.
 * CAMBI (this VM's AMD EPYC, 2026-12-05, the 1080p x264crf28 clip with the
 * v1.0.16 options, ms per frame): vc_cvalue_row keeps AVX2's (C 1.6, AVX2
 * 1.4, AVX-512 1.7: its gathers of 16 cost more than two of 8; again with
 * vc_pair's loads and the skipped terms of pm = 0, whole feature 4.6 vs
 * 4.8 ms); the other vc_ slots take 512 bits.
 */
#include "cpu/dsp.h"
#include "x86/dsp_x86.h"

void SQ_X512(sq_dsp_fill)(SqDsp *d, unsigned ext)
{
    if (ext & SQ_X86_VBMI)
        d->vhfilt_8bpc = SQ_X512(sq_vhfilt_8bpc);
    d->vfilt_8bpc = SQ_X512(sq_vfilt_8bpc);
    d->vfilt_16bpc = SQ_X512(sq_vfilt_16bpc);
    d->or_16bpc = SQ_X512(sq_or_16bpc);
    d->local_mean = SQ_X512(sq_local_mean);
    d->cov_rows = SQ_X512(sq_cov_rows);
    d->cov_sums = SQ_X512(sq_cov_sums);
    d->matmul = SQ_X512(sq_matmul);
    d->backsub = SQ_X512(sq_backsub);
    d->block_rows = SQ_X512(sq_block_rows);
    d->entropy = SQ_X512(sq_entropy);
    d->pool_terms = SQ_X512(sq_pool_terms);
    d->motion_sad = SQ_X512(sq_motion_sad);
    d->adm_dec0 = SQ_X512(sq_adm_dec0);
    d->adm_decs = SQ_X512(sq_adm_decs);
    d->adm_dwt = SQ_X512(sq_adm_dwt);
    d->adm_den_row = SQ_X512(sq_adm_den_row);
    d->adm_csf_row = SQ_X512(sq_adm_csf_row);
    d->adm_cm_row = SQ_X512(sq_adm_cm_row);
    d->vc_hist_move = SQ_X512(sq_vc_hist_move);
    d->vc_convert_row = SQ_X512(sq_vc_convert_row);
    d->vc_dither_row = SQ_X512(sq_vc_dither_row);
    d->vc_zero_row = SQ_X512(sq_vc_zero_row);
    d->vc_mask_row = SQ_X512(sq_vc_mask_row);
    d->vc_count_hi = SQ_X512(sq_vc_count_hi);
    d->vc_sum_hi = SQ_X512(sq_vc_sum_hi);
    d->vc_mode_h = SQ_X512(sq_vc_mode_h);
    d->vc_colsum_move = SQ_X512(sq_vc_colsum_move);
    d->vc_decimate_row = SQ_X512(sq_vc_decimate_row);
    d->vc_mode_v = SQ_X512(sq_vc_mode_v);
    d->vif_vrow = SQ_X512(sq_vif_vrow);
    d->vif_hrow = SQ_X512(sq_vif_hrow);
    d->vif_sub_row = SQ_X512(sq_vif_sub_row);
    d->vif_log = SQ_X512(sq_vif_log);
    if (ext & SQ_X86_VNNI) {
        d->vif_vrow = SQ_X512V(sq_vif_vrow);
        d->vif_hrow = SQ_X512V(sq_vif_hrow);
        d->vif_sub_row = SQ_X512V(sq_vif_sub_row);
        d->vif_log = SQ_X512V(sq_vif_log);
    }
    d->vgran = 16;
}
