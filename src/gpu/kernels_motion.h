/*
 * libvmaf's integer motion on the GPU (SQ_JOB_SAD jobs, SqGpuSad): the
 * math core's vertical and horizontal passes (math/vmaf_motion.h) per
 * sample, then integer sums, which any order and block size add up to the
 * same u64 as the CPU's rows. Included by gpu/kernels.h, after its
 * built-ins and helpers.
 */
#ifndef SQ_GPU_KERNELS_MOTION_H
#define SQ_GPU_KERNELS_MOTION_H

#include "math/vmaf_motion.h"

SQ_DFN const SQ_GLOBAL SqGpuSad *sq_gk_sad(SQ_GLOBAL unsigned char *arena, const SqKArgs *ka,
                                           int i)
{
    return SQ_GK_PTR(const SqGpuSad, ka->sads) + i;
}

/* Block (rows, job): the vertical pass of prev - cur (no barrier). */
SQ_KERNEL_BEGIN(sad_vert, 256)
{
    if (SQ_BY >= ka.nsads)
        return;
    const SQ_GLOBAL SqGpuSad *s = sq_gk_sad(arena, &ka, SQ_BY);
    int i0, i1;
    sq_gk_rows(SQ_BX, s->h, 1, &i0, &i1);
    SQ_GLOBAL int32_t *vert = SQ_GK_PTR(int32_t, s->vert);
    for (int i = i0; i < i1; i++) {
        int64_t po[5], co[5];
        sq_vm_row_offs(i, s->h, s->prev_stride, po);
        sq_vm_row_offs(i, s->h, s->cur_stride, co);
        for (int j = SQ_TID; j < s->w; j += SQ_NTH)
            vert[(int64_t)i * s->w + j] = sq_vm_vert_px(arena + s->prev, po, s->prev_acc, arena + s->cur,
                                                        co, s->cur_acc, s->bpc, j);
    }
}

/* Block (row, job): the row's SAD, libvmaf's u32 row sum (no wrap below w = 65000). */
SQ_KERNEL_BEGIN(sad_rows, 256)
{
    SQ_SHARED uint64_t part[SQ_GK_MAXTH];
    const int job = SQ_BY < ka.nsads ? SQ_BY : 0, i = SQ_BX;
    const SQ_GLOBAL SqGpuSad *s = sq_gk_sad(arena, &ka, job);
    const int live = SQ_BY < ka.nsads && i < s->h;
    const SQ_GLOBAL int32_t *row = SQ_GK_PTR(const int32_t, s->vert + (int64_t)i * s->w * 4);
    uint64_t acc = 0;
    for (int j = SQ_TID; live && j < s->w; j += SQ_NTH)
        acc += j >= 2 && j < s->w - 2 ? sq_vm_abs_h_mid(row, j) : sq_vm_abs_h(row, s->w, j);
    part[SQ_TID] = acc;
    sq_gk_sum_n(part, 1);
    if (live && SQ_TID == 0)
        SQ_GK_PTR(uint64_t, s->rows)[i] = part[0];
}

/* Block (job): the plane's SAD, the sum of its rows, into its result. */
SQ_KERNEL_BEGIN(sad_sum, 256)
{
    SQ_SHARED uint64_t part[SQ_GK_MAXTH];
    const int job = SQ_BX < ka.nsads ? SQ_BX : 0;
    const SQ_GLOBAL SqGpuSad *s = sq_gk_sad(arena, &ka, job);
    const int live = SQ_BX < ka.nsads;
    const SQ_GLOBAL uint64_t *rows = SQ_GK_PTR(const uint64_t, s->rows);
    uint64_t acc = 0;
    for (int i = SQ_TID; live && i < s->h; i += SQ_NTH)
        acc += rows[i];
    part[SQ_TID] = acc;
    sq_gk_sum_n(part, 1);
    if (live && SQ_TID == 0) {
        SQ_GLOBAL SqGpuResult *res = SQ_GK_PTR(SqGpuResult, ka.results) + s->result;
        res->sum[0] = (uint32_t)part[0];
        res->sum[1] = (uint32_t)(part[0] >> 32);
    }
}

#endif
