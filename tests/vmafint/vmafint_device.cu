// Compile check: libvmaf's integer motion, ADM and CAMBI math (src/math/vmaf_*.h)
// must build as CUDA device code like the rest of the core; every entry
// point is instantiated in a kernel.
#include "math/vmaf_adm_pool.h"
#include "math/vmaf_motion.h"
#include "math/vmaf_cambi_pool.h"
#include "math/vmaf_vif.h"

__global__ void sq_vmafint_compile_check(const uint8_t *raw, int32_t *row, double *d, float *f,
                                         SqVaBufs bf, SqVaParams p)
{
    const SqVmOpts o = sq_vm_opts_default();
    row[0] = sq_vm_vert(raw, raw, 64, 0, 32, 8, threadIdx.x, 1);
    row[1] = (int32_t)sq_vm_row_sad(row, 32);
    d[0] = sq_vm_sad_score(sq_vm_plane_sad(raw, raw, 64, SQ_ACC_16, 32, 32, 10, row), 32, 32, &o);
    sq_vm_flush(d, 4, &o, d + 4, d + 8);
    SqVaRaw raw4[4];
    sq_va_frame(raw, raw, 128, 0, 8, 64, 64, &p, &bf, raw4);
    const SqVaScale *sc = &p.s[1];
    sq_va_dwt_h(bf.lo, bf.hi, 64, 1, threadIdx.x, 0, bf.ob, 0);
    sq_va_decouple_at(2, bf.ob, bf.tb, threadIdx.x, p.egl, bf.r, bf.e);
    sq_va_csf_at(3, sc, bf.e, threadIdx.x, bf.A, bf.F);
    f[0] = (float)sq_va_thr(1, bf.A, bf.F, 16, 16, 0, 15);
    int64_t acc[3] = { 0, 0, 0 };
    sq_va_cm_row(1, sc, bf.r, bf.A, bf.F, 16, 16, 3, acc, (uint32_t *)bf.lo);
    f[1] = sq_va_num_norm(1, 2, acc[2], 16, 16);
    sq_va_den(1, sc, bf.ob, 16, 16, f + 2);
    const float c3[3] = { f[0], f[1], f[2] };
    f[5] = sq_va_scale_sum(c3, sq_va_noise(raw4[1].area, p.egl));
    const SqVaScores s = sq_va_scores(f, f + 4, f + 8, 64, 64, p.egl, p.egl);
    d[12] = s.adm3;
}

__global__ void sq_vmafint_cambi_check(const uint8_t *raw, double *d, float *f, SqVcBufs bf,
                                       SqVcParams p)
{
    const int i = threadIdx.x;
    sq_vc_convert_row(raw, 128, SQ_ACC_16, 10, 64, i, bf.img);
    sq_vc_dither_row(bf.img, 64, 64, i);
    sq_vc_zero_row(bf.img, 64, 64, i, bf.zero);
    sq_vc_colsum_row(bf.zero, 64, 64, i, 1, bf.colsum);
    sq_vc_mask_row(bf.colsum, 64, i, sq_vc_mask_index(64, 64), bf.mask);
    sq_vc_decimate(bf.img, bf.mask, 64, 64);
    sq_vc_mode_filter(bf.img, 32, 32, bf.mode);
    sq_vc_hist_move(bf.img, bf.mask, 32, 32, i, i - 9, 4, p.nd, 0, 1024, bf.hist);
    sq_vc_first_table(&p, bf.first);
    sq_vc_cvalue_row(bf.img, bf.mask, bf.hist, 32, i, bf.first, &p, bf.recip, bf.c);
    f[0] = sq_vc_cvalue(bf.hist, 32, i, 100, &p, bf.recip);
    d[0] = sq_vc_pool(bf.c, 1024, 600) + sq_vc_pool_fast(bf.c, 1024, 600, bf.cnt);
    sq_f64 sc[SQ_VC_SCALES];
    d[1] = sq_vc_frame(raw, 64, 0, &p, &bf, sc);
    d[2] = sq_vc_score(sc, &p);
    const SqVcSizes z = sq_vc_sizes(64, 64, 4);
    d[3] = (double)z.hist;
}

__global__ void sq_vmafint_vif_check(const uint16_t *x, const uint16_t *lt, float *f, SqViBufs bf)
{
    SqViRaw raw;
    sq_vi_frame(x, 64, x + 4096, 64, 64, 64, 10, 100.0, threadIdx.x & 1, lt, &bf, &raw);
    f[0] = raw.num[1] + raw.den[2];
}
