/*
 * libvmaf's integer ADM on the GPU (SQ_JOB_ADM jobs, SqGpuAdm): the math
 * core's per-sample steps (math/vmaf_adm*.h), one launch per scale for
 * each kernel but the fold (SqKArgs.scale). The rows of the pooling sums
 * are integers, summed by any split of the columns; the one float step of
 * each value (sq_va_den_norm, sq_va_num_norm) runs once on the rows'
 * integer total, as on the CPU. Included by gpu/kernels.h.
 */
#ifndef SQ_GPU_KERNELS_ADM_H
#define SQ_GPU_KERNELS_ADM_H

#include "math/vmaf_adm_pool.h"

SQ_DFN const SQ_GLOBAL SqGpuAdm *sq_gk_adm(SQ_GLOBAL unsigned char *arena, const SqKArgs *ka,
                                           int i)
{
    return SQ_GK_PTR(const SqGpuAdm, ka->adms) + i;
}

/* Part k (SQ_GPU_ADM_*) of job a's scratch. */
SQ_DFN SQ_GLOBAL int32_t *sq_gk_adm_part(SQ_GLOBAL unsigned char *arena,
                                         const SQ_GLOBAL SqGpuAdm *a, int k)
{
    return SQ_GK_PTR(int32_t, a->scratch + sq_gpu_adm_at(a->w, a->h, k));
}

/* The input of scale s: the plane, then each scale's band a. */
SQ_DFN void sq_gk_adm_size(const SQ_GLOBAL SqGpuAdm *a, int s, int *w, int *h)
{
    *w = a->w;
    *h = a->h;
    for (int k = 0; k < s; k++) {
        *w = (*w + 1) / 2;
        *h = (*h + 1) / 2;
    }
}

/* skip_scale0's scale 0 keeps only band a: nothing past the DWT runs. */
SQ_DFN int sq_gk_adm_scored(const SQ_GLOBAL SqGpuAdm *a, int s)
{
    return !(s == 0 && a->va.skip_scale0);
}

/* Block (rows, 2 job + side): the vertical pass of one side (no barrier). */
SQ_KERNEL_BEGIN(adm_dwt_v, 256)
{
    if (SQ_BY >= 2 * ka.nadms)
        return;
    const SQ_GLOBAL SqGpuAdm *a = sq_gk_adm(arena, &ka, SQ_BY >> 1);
    const int side = SQ_BY & 1, s = ka.scale;
    int w, h, i0, i1;
    sq_gk_adm_size(a, s, &w, &h);
    sq_gk_rows(SQ_BX, (h + 1) / 2, 1, &i0, &i1);
    SQ_GLOBAL int32_t *vl = sq_gk_adm_part(arena, a, SQ_GPU_ADM_LO + 2 * side);
    SQ_GLOBAL int32_t *vh = sq_gk_adm_part(arena, a, SQ_GPU_ADM_LO + 2 * side + 1);
    /* scales 1..3 read the previous scale's band a, which this scale's horizontal pass overwrites */
    const SQ_GLOBAL int32_t *ba = sq_gk_adm_part(arena, a, SQ_GPU_ADM_BAND + 4 * side + SQ_VA_A);
    for (int i = i0; i < i1; i++)
        for (int j = SQ_TID; j < w; j += SQ_NTH) {
            const int64_t row = (int64_t)i * w;
            if (s == 0)
                sq_va_dwt_v0(arena + a->pic[side], a->stride[side], a->acc[side], h, a->bpc, i, j,
                             vl + row, vh + row);
            else
                sq_va_dwt_vs(ba, w, h, s, i, j, vl + row, vh + row);
        }
}

/* Block (rows, 2 job + side): the horizontal pass into the side's four bands (no barrier). */
SQ_KERNEL_BEGIN(adm_dwt_h, 256)
{
    if (SQ_BY >= 2 * ka.nadms)
        return;
    const SQ_GLOBAL SqGpuAdm *a = sq_gk_adm(arena, &ka, SQ_BY >> 1);
    const int side = SQ_BY & 1, s = ka.scale;
    int w, h, i0, i1;
    sq_gk_adm_size(a, s, &w, &h);
    const int w2 = (w + 1) / 2;
    sq_gk_rows(SQ_BX, (h + 1) / 2, 1, &i0, &i1);
    const SQ_GLOBAL int32_t *vl = sq_gk_adm_part(arena, a, SQ_GPU_ADM_LO + 2 * side);
    const SQ_GLOBAL int32_t *vh = sq_gk_adm_part(arena, a, SQ_GPU_ADM_LO + 2 * side + 1);
    SQ_GLOBAL int32_t *band[4];
    for (int b = 0; b < 4; b++)
        band[b] = sq_gk_adm_part(arena, a, SQ_GPU_ADM_BAND + 4 * side + b);
    const int only_a = !sq_gk_adm_scored(a, s);
    for (int i = i0; i < i1; i++)
        for (int c = SQ_TID; c < w2; c += SQ_NTH)
            sq_va_dwt_h(vl + (int64_t)i * w, vh + (int64_t)i * w, w, s, c, only_a, band,
                        (int64_t)i * w2 + c);
}

/* The planes of one ADM job at scale s: its bands, r, e, A, F; w, h the bands' size. */
typedef struct SqGkAdmPlanes {
    const SQ_GLOBAL int32_t *ob[4], *tb[4];
    SQ_GLOBAL int32_t *r[3], *e[3], *A[3], *F[3];
    int w, h;
} SqGkAdmPlanes;

SQ_DFN void sq_gk_adm_planes(SQ_GLOBAL unsigned char *arena, const SQ_GLOBAL SqGpuAdm *a, int s,
                             SqGkAdmPlanes *p)
{
    sq_gk_adm_size(a, s, &p->w, &p->h);
    p->w = (p->w + 1) / 2;
    p->h = (p->h + 1) / 2;
    for (int b = 0; b < 4; b++) {
        p->ob[b] = sq_gk_adm_part(arena, a, SQ_GPU_ADM_BAND + b);
        p->tb[b] = sq_gk_adm_part(arena, a, SQ_GPU_ADM_BAND + 4 + b);
    }
    for (int th = 0; th < 3; th++) {
        p->r[th] = sq_gk_adm_part(arena, a, SQ_GPU_ADM_R + th);
        p->e[th] = sq_gk_adm_part(arena, a, SQ_GPU_ADM_R + 3 + th);
        p->A[th] = sq_gk_adm_part(arena, a, SQ_GPU_ADM_R + 6 + th);
        p->F[th] = sq_gk_adm_part(arena, a, SQ_GPU_ADM_R + 9 + th);
    }
}

/*
 * Block (rows, job), over the decouple's extended region: aim 0, the
 * decouple and the CSF of e (the DLM pass's A, F); aim 1, the CSF of r
 * over them (the AIM pass's), once the DLM rows are summed (no barrier).
 */
SQ_DFN void sq_gk_adm_csf(SQ_GLOBAL unsigned char *arena, const SqKArgs *ka, int aim, int bx,
                          int job)
{
    if (job >= ka->nadms)
        return;
    const SQ_GLOBAL SqGpuAdm *a = sq_gk_adm(arena, ka, job);
    const int s = ka->scale;
    if (!sq_gk_adm_scored(a, s) || (aim && a->va.skip_aim))
        return;
    SqGkAdmPlanes p;
    sq_gk_adm_planes(arena, a, s, &p);
    const int L = sq_va_ext_lo(p.w), R = sq_va_ext_hi(p.w), T = sq_va_ext_lo(p.h),
              B = sq_va_ext_hi(p.h);
    int i0, i1;
    sq_gk_rows(bx, B - T, 1, &i0, &i1);
    const SqVaScale sc = a->va.s[s];
    const sq_f64 egl = a->va.egl;
    for (int i = T + i0; i < T + i1; i++)
        for (int j = L + SQ_TID; j < R; j += SQ_NTH) {
            const int64_t x = (int64_t)i * p.w + j;
            if (!aim)
                sq_va_decouple_at(s, p.ob, p.tb, x, egl, p.r, p.e);
            sq_va_csf_at(s, &sc, (const SQ_GLOBAL int32_t *const *)(aim ? p.r : p.e), x, p.A,
                         p.F);
        }
}

SQ_KERNEL_BEGIN(adm_dec, 256)
{
    sq_gk_adm_csf(arena, &ka, 0, SQ_BX, SQ_BY);
}

SQ_KERNEL_BEGIN(adm_csf, 256)
{
    sq_gk_adm_csf(arena, &ka, 1, SQ_BX, SQ_BY);
}

/*
 * Block (row, job): one pooling row's sums, each rounded as the CPU rounds
 * its rows, into the job's row sums: aim 0, the denominator and the DLM
 * numerator (X = r over the decouple's A, F); aim 1, the AIM numerator
 * (X = e over the CSF of r). Integer sums (the int64 ones wrap alike as u64).
 */
SQ_DFN void sq_gk_adm_rows(SQ_GLOBAL unsigned char *arena, const SqKArgs *ka, int aim, int i,
                           int by, SQ_SHARED_PTR uint64_t *part)
{
    const int s = ka->scale;
    const SQ_GLOBAL SqGpuAdm *a = sq_gk_adm(arena, ka, by < ka->nadms ? by : 0);
    SqGkAdmPlanes p;
    sq_gk_adm_planes(arena, a, s, &p);
    const int live = by < ka->nadms && sq_gk_adm_scored(a, s) && !(aim && a->va.skip_aim) &&
                     i >= sq_va_pool_lo(p.h) && i < sq_va_pool_hi(p.h);
    const SqVaScale sc = a->va.s[s];
    int c, rho;
    sq_va_den_shifts(s, p.w, p.h, &c, &rho);
    uint64_t acc[6] = { 0, 0, 0, 0, 0, 0 };
    const SQ_GLOBAL int32_t *const *X = (const SQ_GLOBAL int32_t *const *)(aim ? p.e : p.r);
    for (int j = sq_va_pool_lo(p.w) + SQ_TID; live && j < sq_va_pool_hi(p.w); j += SQ_NTH) {
        int64_t v[3];
        sq_va_cm_at(s, sc.ir, X, (const SQ_GLOBAL int32_t *const *)p.A,
                    (const SQ_GLOBAL int32_t *const *)p.F, p.w, p.h, i, j, v);
        for (int th = 0; th < 3; th++)
            acc[th] += (uint64_t)v[th];
        for (int th = 0; !aim && th < 3; th++)
            acc[3 + th] += sq_va_den_val(s, p.ob[sq_va_band_of(th)][(int64_t)i * p.w + j], c);
    }
    const int n = aim ? 3 : 6;
    for (int k = 0; k < n; k++)
        part[k * SQ_GK_MAXTH + SQ_TID] = acc[k];
    sq_gk_sum_n(part, n);
    if (!live || SQ_TID != 0)
        return;
    const int64_t at = a->scratch + sq_gpu_adm_at(a->w, a->h, SQ_GPU_ADM_ROWS);
    SQ_GLOBAL uint64_t *rows =
        SQ_GK_PTR(uint64_t, at) + (int64_t)(sq_gpu_adm_row0(a->h, s) + i) * SQ_GPU_ADM_SUMS;
    const int rho_cm = sq_va_ceil_log2(p.h);
    for (int th = 0; th < 3; th++) {
        rows[(aim ? 6 : 3) + th] = (uint64_t)sq_va_cm_round((int64_t)part[th * SQ_GK_MAXTH], rho_cm);
        if (!aim)
            rows[th] = sq_va_den_round(part[(3 + th) * SQ_GK_MAXTH], rho);
    }
}

SQ_KERNEL_BEGIN(adm_dlm, 256)
{
    SQ_SHARED uint64_t part[6 * SQ_GK_MAXTH];
    sq_gk_adm_rows(arena, &ka, 0, SQ_BX, SQ_BY, part);
}

SQ_KERNEL_BEGIN(adm_aim, 256)
{
    SQ_SHARED uint64_t part[6 * SQ_GK_MAXTH];
    sq_gk_adm_rows(arena, &ka, 1, SQ_BX, SQ_BY, part);
}

/*
 * Block (0, job): each scale's rows added up, the block's items a row each
 * (integer sums, the same in any order), then its raw values.
 */
SQ_KERNEL_BEGIN(adm_fold, 256)
{
    SQ_SHARED uint64_t part[SQ_GPU_ADM_SUMS * SQ_GK_MAXTH];
    const int live = SQ_BY < ka.nadms;
    const SQ_GLOBAL SqGpuAdm *a = sq_gk_adm(arena, &ka, live ? SQ_BY : 0);
    SQ_GLOBAL SqGpuResult *res = SQ_GK_PTR(SqGpuResult, ka.results) + a->result;
    const SQ_GLOBAL uint64_t *rows =
        SQ_GK_PTR(const uint64_t, a->scratch + sq_gpu_adm_at(a->w, a->h, SQ_GPU_ADM_ROWS));
    int w = a->w, h = a->h;
    for (int s = 0; s < 4; s++) {
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        const int on = live && sq_gk_adm_scored(a, s);
        uint64_t sum[SQ_GPU_ADM_SUMS];
        for (int k = 0; k < SQ_GPU_ADM_SUMS; k++)
            sum[k] = 0;
        const SQ_GLOBAL uint64_t *r0 = rows + (int64_t)sq_gpu_adm_row0(a->h, s) * SQ_GPU_ADM_SUMS;
        for (int i = sq_va_pool_lo(h) + SQ_TID; on && i < sq_va_pool_hi(h); i += SQ_NTH)
            for (int k = 0; k < SQ_GPU_ADM_SUMS; k++)
                sum[k] += r0[(int64_t)i * SQ_GPU_ADM_SUMS + k];
        for (int k = 0; k < SQ_GPU_ADM_SUMS; k++)
            part[k * SQ_GK_MAXTH + SQ_TID] = sum[k];
        sq_gk_sum_n(part, SQ_GPU_ADM_SUMS);
        if (live && SQ_TID == 0) {
            SqVaRaw raw;
            sq_va_scale_raw(w, h, &raw);
            int c, rho;
            sq_va_den_shifts(s, w, h, &c, &rho);
            for (int th = 0; on && th < 3; th++) {
                raw.den[th] = sq_va_den_norm(s, a->va.s[s].rf3[th], part[th * SQ_GK_MAXTH], c, rho);
                raw.num[th] = sq_va_num_norm(s, th, (int64_t)part[(3 + th) * SQ_GK_MAXTH], w, h);
                if (!a->va.skip_aim)
                    raw.aim[th] = sq_va_num_norm(s, th, (int64_t)part[(6 + th) * SQ_GK_MAXTH], w, h);
            }
            res->adm[s] = raw;
        }
        /* part is the next scale's */
        SQ_SYNC();
    }
}

#endif
