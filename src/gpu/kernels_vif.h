/*
 * libvmaf's integer VIF on the GPU (SQ_JOB_VIF jobs, SqGpuVif): the math
 * core's per-sample steps (math/vmaf_vif.h), one launch per scale for the
 * decimation and the statistics (SqKArgs.scale), each in tiles whose
 * vertical values (mirrored columns included, as sq_vi_pad mirrors them)
 * lie in block-shared memory for the horizontal pass. The statistics' four
 * sums are integers, added up in any order to the CPU's values; the one
 * float step (sq_vi_scale_nd) runs once on the totals, as on the CPU.
 * Included by gpu/kernels.h.
 */
#ifndef SQ_GPU_KERNELS_VIF_H
#define SQ_GPU_KERNELS_VIF_H

#include "math/vmaf_vif.h"

SQ_DFN const SQ_GLOBAL SqGpuVif *sq_gk_vif(SQ_GLOBAL unsigned char *arena, const SqKArgs *ka,
                                           int i)
{
    return SQ_GK_PTR(const SqGpuVif, ka->vifs) + (i < ka->nvifs ? i : 0);
}

/* Scale s's u16 plane of side k (0 ref, 1 dis): (w >> s) x (h >> s), stride w >> s. */
SQ_DFN SQ_GLOBAL uint16_t *sq_gk_vif_plane(SQ_GLOBAL unsigned char *arena,
                                           const SQ_GLOBAL SqGpuVif *v, int s, int k)
{
    return SQ_GK_PTR(uint16_t, v->scratch + sq_gpu_vif_at(v->w, v->h, 2 * s + k));
}

/* Side k's scale 0 is its picture's plane itself: plain 16-bit samples at even offsets. */
SQ_DFN int sq_gk_vif_inplace(const SQ_GLOBAL SqGpuVif *v, int k)
{
    return v->acc[k] == SQ_ACC_16 && !(v->pic[k] & 1) && !(v->stride[k] & 1);
}

/* The u16 plane of side k at scale s, its row stride in samples into *xs: at scale 0
 * the picture's plane where it is one (vif_widen skips it), else the scratch's. */
SQ_DFN const SQ_GLOBAL uint16_t *sq_gk_vif_src(SQ_GLOBAL unsigned char *arena,
                                              const SQ_GLOBAL SqGpuVif *v, int s, int k,
                                              int64_t *xs)
{
    if (s == 0 && sq_gk_vif_inplace(v, k)) {
        *xs = v->stride[k] / 2;
        return SQ_GK_PTR(const uint16_t, v->pic[k]);
    }
    *xs = v->w >> s;
    return sq_gk_vif_plane(arena, v, s, k);
}

/* The four sums (SqViAcc's order) of scale s, statistics block `lane`. */
SQ_DFN SQ_GLOBAL uint64_t *sq_gk_vif_sums(SQ_GLOBAL unsigned char *arena,
                                          const SQ_GLOBAL SqGpuVif *v, int s, int lane)
{
    return SQ_GK_PTR(uint64_t, v->scratch + sq_gpu_vif_at(v->w, v->h, SQ_GPU_VIF_SUMS)) +
           ((int64_t)s * SQ_GPU_VIF_SLANES + lane) * 4;
}

/* Block (rows, 2 job + side): scale 0 as a u16 plane, every sample read through its
 * access (as the CPU's copy of a picture that is not planar 16-bit; no barrier). */
SQ_KERNEL_BEGIN(vif_widen, 256)
{
    if (SQ_BY >= 2 * ka.nvifs)
        return;
    const SQ_GLOBAL SqGpuVif *v = sq_gk_vif(arena, &ka, SQ_BY >> 1);
    const int side = SQ_BY & 1;
    if (sq_gk_vif_inplace(v, side))
        return;
    int i0, i1;
    sq_gk_rows(SQ_BX, v->h, 1, &i0, &i1);
    SQ_GLOBAL uint16_t *out = sq_gk_vif_plane(arena, v, 0, side);
    for (int i = i0; i < i1; i++) {
        const SQ_GLOBAL uint8_t *row = arena + v->pic[side] + (int64_t)i * v->stride[side];
        for (int j = SQ_TID; j < v->w; j += SQ_NTH)
            out[(int64_t)i * v->w + j] = (uint16_t)sq_sample(row, j, v->acc[side]);
    }
}

/* Input columns of a decimation tile's vertical values (2 TW - 1 + 2 R, rounded up). */
#define SQ_GK_VIF_SC (2 * SQ_GPU_VIF_TW + 2 * SQ_VI_PAD)

/* A decimation tile's vertical values (rows x vc input columns from 2 j0 - R,
 * mirrored; the input rows' offsets in roff, the taps in ft) into cv. */
SQ_DFN void sq_gk_vif_sub_vtile(SQ_SHARED_PTR const uint32_t *ft, const SQ_GLOBAL uint16_t *x,
                                SQ_SHARED_PTR const int64_t *roff, int w, int j0, int rows,
                                int vc, int s, int bpc, SQ_SHARED_PTR uint32_t *cv)
{
    const int r = sq_vi_half(s);
    for (int e = SQ_TID; e < rows * SQ_GK_VIF_SC; e += SQ_NTH) {
        const int ri = e / SQ_GK_VIF_SC, ci = e - ri * SQ_GK_VIF_SC;
        if (ci >= vc)
            continue;
        const int c = sq_mirror(2 * j0 - r + ci, w);
        uint32_t m = 0;
        for (int k = 0; k <= 2 * r; k++)
            m += ft[k] * (uint32_t)x[roff[2 * ri + k] + c];
        cv[ri * SQ_GK_VIF_SC + ci] = sq_vi_sub_vend(m, s, bpc);
    }
}

/* Its outputs (rows x cols from row i0, column j0 of the w2-wide plane out) from cv. */
SQ_DFN void sq_gk_vif_sub_htile(SQ_SHARED_PTR const uint32_t *ft, SQ_SHARED_PTR const uint32_t *cv,
                                int rows, int cols, int s, SQ_GLOBAL uint16_t *out, int64_t w2,
                                int i0, int j0)
{
    const int r = sq_vi_half(s);
    for (int e = SQ_TID; e < rows * SQ_GPU_VIF_TW; e += SQ_NTH) {
        const int ri = e / SQ_GPU_VIF_TW, cj = e - ri * SQ_GPU_VIF_TW;
        if (cj >= cols)
            continue;
        SQ_SHARED_PTR const uint32_t *o = cv + ri * SQ_GK_VIF_SC + 2 * cj;
        uint32_t m = 0;
        for (int k = 0; k <= 2 * r; k++)
            m += ft[k] * o[k];
        out[(i0 + ri) * w2 + j0 + cj] = sq_vi_sub_hend(m);
    }
}

/*
 * Block (lane, 2 job + side), scale s >= 1: tiles lane, lane +
 * lanes, ... (sq_gpu_vif_lanes) of the side's scale s plane, decimated from its
 * scale s - 1 plane (w x h): the vertical values of the tile's rows at the
 * input columns its outputs reach (sq_gk_vif_sub_vtile), then each output's
 * horizontal value (sq_gk_vif_sub_htile): sq_vi_subsample's steps.
 */
SQ_KERNEL_BEGIN(vif_sub, 256)
{
    SQ_SHARED uint32_t cv[SQ_GPU_VIF_TH * SQ_GK_VIF_SC], ft[2 * SQ_VI_PAD + 1];
    SQ_SHARED int64_t roff[2 * SQ_GPU_VIF_TH + 2 * SQ_VI_PAD];
    const int job = SQ_BY >> 1, side = SQ_BY & 1, lane = SQ_BX, s = ka.scale;
    const SQ_GLOBAL SqGpuVif *v = sq_gk_vif(arena, &ka, job);
    const int w = v->w >> (s - 1), h = v->h >> (s - 1), r = sq_vi_half(s), bpc = v->bpc;
    const int w2 = w / 2, h2 = h / 2, tx = (w2 + SQ_GPU_VIF_TW - 1) / SQ_GPU_VIF_TW;
    const int tiles = job < ka.nvifs ? tx * ((h2 + SQ_GPU_VIF_TH - 1) / SQ_GPU_VIF_TH) : 0;
    int64_t xs;
    const SQ_GLOBAL uint16_t *x = sq_gk_vif_src(arena, v, s - 1, side, &xs);
    SQ_GLOBAL uint16_t *out = sq_gk_vif_plane(arena, v, s, side);
    for (int k = SQ_TID; k <= 2 * r; k += SQ_NTH)
        ft[k] = sq_vi_tap(s, k);
    for (int tile = lane; tile < tiles; tile += sq_gpu_vif_lanes(&ka)) {
        const int i0 = tile / tx * SQ_GPU_VIF_TH, j0 = tile % tx * SQ_GPU_VIF_TW;
        const int rows = h2 - i0 < SQ_GPU_VIF_TH ? h2 - i0 : SQ_GPU_VIF_TH;
        const int cols = w2 - j0 < SQ_GPU_VIF_TW ? w2 - j0 : SQ_GPU_VIF_TW;
        const int vc = 2 * cols - 1 + 2 * r;
        for (int q = SQ_TID; q < 2 * rows + 2 * r; q += SQ_NTH)
            roff[q] = sq_mirror(2 * i0 - r + q, h) * xs;
        SQ_SYNC();
        sq_gk_vif_sub_vtile(ft, x, roff, w, j0, rows, vc, s, bpc, cv);
        SQ_SYNC();
        sq_gk_vif_sub_htile(ft, cv, rows, cols, s, out, w2, i0, j0);
        SQ_SYNC(); /* the shared values are the next tile's */
    }
}

/* Columns of a tile's vertical statistics: its own and the horizontal pass's reach. */
#define SQ_GK_VIF_TC (SQ_GPU_VIF_TW + 2 * SQ_VI_PAD)
#define SQ_GK_VIF_TN (SQ_GPU_VIF_TH * SQ_GK_VIF_TC)
/* Samples of a tile's input, either side: its rows and the vertical pass's reach. */
#define SQ_GK_VIF_XN ((SQ_GPU_VIF_TH + 2 * SQ_VI_PAD) * SQ_GK_VIF_TC)

/*
 * A tile's input: rows i0 - R .. i0 + rows - 1 + R of x (stride xs), then
 * of y (ys), at columns j0 - R .. j0 - R + vc - 1, mirrored as sq_mirror
 * mirrors them, into xy (x's at 0, y's at SQ_GK_VIF_XN; SQ_GK_VIF_TC a row), so
 * the vertical pass reads every tap at a constant stride.
 */
SQ_DFN void sq_gk_vif_stage(const SQ_GLOBAL uint16_t *x, int64_t xs, const SQ_GLOBAL uint16_t *y,
                            int64_t ys, int w, int h, int i0, int j0, int rows, int vc, int r,
                            SQ_SHARED_PTR uint16_t *xy)
{
    for (int e = SQ_TID; e < (rows + 2 * r) * SQ_GK_VIF_TC; e += SQ_NTH) {
        const int ri = e / SQ_GK_VIF_TC, ci = e - ri * SQ_GK_VIF_TC;
        if (ci >= vc)
            continue;
        const int64_t row = sq_mirror(i0 - r + ri, h);
        const int c = sq_mirror(j0 - r + ci, w);
        xy[e] = x[row * xs + c];
        xy[SQ_GK_VIF_XN + e] = y[row * ys + c];
    }
}

/*
 * A tile's vertical statistics (rows x vc columns, from the staged input
 * xy; scale s's taps in ft) into cs: five planes of SQ_GK_VIF_TN (m1, m2,
 * xx, yy, xy). Items step over whole rows of the shared layout (a
 * division by a constant) and skip the columns past the tile's. Helpers
 * of block-shared data are called from one place each (PoCL computed
 * wrong values with several inlined calls of them).
 */
SQ_DFN void sq_gk_vif_vtile(SQ_SHARED_PTR const uint32_t *ft, SQ_SHARED_PTR const uint16_t *xy,
                            int rows, int vc, int s, int bpc, SQ_SHARED_PTR uint32_t *cs)
{
    const int r = sq_vi_half(s);
    for (int e = SQ_TID; e < rows * SQ_GK_VIF_TC; e += SQ_NTH) {
        const int ri = e / SQ_GK_VIF_TC, ci = e - ri * SQ_GK_VIF_TC;
        if (ci >= vc)
            continue;
        SQ_SHARED_PTR const uint16_t *px = xy + e;
        SqViV sv = { 0, 0, 0, 0, 0 };
        for (int k = 0; k <= 2 * r; k++)
            sq_vi_vtap(&sv, ft[k], px[k * SQ_GK_VIF_TC], px[SQ_GK_VIF_XN + k * SQ_GK_VIF_TC]);
        const SqViCol col = sq_vi_vend(&sv, s, bpc);
        SQ_SHARED_PTR uint32_t *o = cs + e;
        o[0] = col.m1;
        o[SQ_GK_VIF_TN] = col.m2;
        o[2 * SQ_GK_VIF_TN] = col.xx;
        o[3 * SQ_GK_VIF_TN] = col.yy;
        o[4 * SQ_GK_VIF_TN] = col.xy;
    }
}

/* Each pixel of the tile (rows x cols) this item takes: its horizontal pass from cs, its
 * terms into a. */
SQ_DFN void sq_gk_vif_htile(SQ_SHARED_PTR const uint32_t *ft, SQ_SHARED_PTR const uint32_t *cs,
                            int rows, int cols, int s, sq_f64 egl, const SQ_GLOBAL uint16_t *lt,
                            SqViAcc *a)
{
    const int r = sq_vi_half(s);
    for (int e = SQ_TID; e < rows * SQ_GPU_VIF_TW; e += SQ_NTH) {
        const int ri = e / SQ_GPU_VIF_TW, cj = e - ri * SQ_GPU_VIF_TW;
        if (cj >= cols)
            continue;
        SQ_SHARED_PTR const uint32_t *o = cs + ri * SQ_GK_VIF_TC + cj;
        SqViH sh = { 0, 0, 0, 0, 0 };
        for (int k = 0; k <= 2 * r; k++) {
            SqViCol col;
            col.m1 = o[k];
            col.m2 = o[SQ_GK_VIF_TN + k];
            col.xx = o[2 * SQ_GK_VIF_TN + k];
            col.yy = o[3 * SQ_GK_VIF_TN + k];
            col.xy = o[4 * SQ_GK_VIF_TN + k];
            sq_vi_htap(&sh, ft[k], col);
        }
        sq_vi_pixel(sq_vi_hend(&sh), egl, lt, a);
    }
}

/*
 * Block (lane, job), scale s: tiles lane, lane + lanes, ... (sq_gpu_vif_lanes) of
 * the scale, each its vertical statistics into shared memory
 * (sq_gk_vif_vtile), then its pixels' horizontal pass and terms
 * (sq_gk_vif_htile); the block's four integer sums into its own. Skipped
 * scale 0 runs no tile.
 */
SQ_KERNEL_BEGIN(vif_stats, 256)
{
    SQ_SHARED uint64_t part[4 * SQ_GK_MAXTH];
    SQ_SHARED uint32_t cs[5 * SQ_GK_VIF_TN], ft[2 * SQ_VI_PAD + 1];
    SQ_SHARED uint16_t xy[2 * SQ_GK_VIF_XN];
    const int job = SQ_BY, lane = SQ_BX, s = ka.scale;
    const SQ_GLOBAL SqGpuVif *v = sq_gk_vif(arena, &ka, job);
    const int w = v->w >> s, h = v->h >> s, r = sq_vi_half(s), bpc = v->bpc;
    const int live = job < ka.nvifs && !(s == 0 && v->skip0);
    const int tx = (w + SQ_GPU_VIF_TW - 1) / SQ_GPU_VIF_TW;
    const int tiles = live ? tx * ((h + SQ_GPU_VIF_TH - 1) / SQ_GPU_VIF_TH) : 0;
    int64_t xs, ys;
    const SQ_GLOBAL uint16_t *x = sq_gk_vif_src(arena, v, s, 0, &xs);
    const SQ_GLOBAL uint16_t *y = sq_gk_vif_src(arena, v, s, 1, &ys);
    const SQ_GLOBAL uint16_t *lt = SQ_GK_PTR(const uint16_t, v->lt);
    const sq_f64 egl = v->egl;
    for (int k = SQ_TID; k <= 2 * r; k += SQ_NTH)
        ft[k] = sq_vi_tap(s, k);
    SqViAcc a;
    a.num_log = a.den_log = a.num_nonlog = a.den_nonlog = 0;
    for (int tile = lane; tile < tiles; tile += sq_gpu_vif_lanes(&ka)) {
        const int i0 = tile / tx * SQ_GPU_VIF_TH, j0 = tile % tx * SQ_GPU_VIF_TW;
        const int rows = h - i0 < SQ_GPU_VIF_TH ? h - i0 : SQ_GPU_VIF_TH;
        const int cols = w - j0 < SQ_GPU_VIF_TW ? w - j0 : SQ_GPU_VIF_TW, vc = cols + 2 * r;
        /* two barriers a tile: every item has left the previous tile's vertical pass (xy's
         * readers) before this staging, and its horizontal pass (cs's) before the next */
        sq_gk_vif_stage(x, xs, y, ys, w, h, i0, j0, rows, vc, r, xy);
        SQ_SYNC();
        sq_gk_vif_vtile(ft, xy, rows, vc, s, bpc, cs);
        SQ_SYNC();
        sq_gk_vif_htile(ft, cs, rows, cols, s, egl, lt, &a);
    }
    /* integer sums: every split of rows and columns gives the CPU's (as u64, wrapping alike) */
    part[SQ_TID] = (uint64_t)a.num_log;
    part[SQ_GK_MAXTH + SQ_TID] = (uint64_t)a.den_log;
    part[2 * SQ_GK_MAXTH + SQ_TID] = (uint64_t)a.num_nonlog;
    part[3 * SQ_GK_MAXTH + SQ_TID] = (uint64_t)a.den_nonlog;
    sq_gk_sum_n(part, 4);
    if (!live || SQ_TID != 0)
        return;
    SQ_GLOBAL uint64_t *sums = sq_gk_vif_sums(arena, v, s, lane);
    for (int k = 0; k < 4; k++)
        sums[k] = part[k * SQ_GK_MAXTH];
}

/* Block (1, job): each scale's blocks' sums added up, its num and den. */
SQ_KERNEL_BEGIN(vif_fold, 256)
{
    SQ_SHARED uint64_t part[4 * SQ_GK_MAXTH];
    const int job = SQ_BY, live = job < ka.nvifs;
    const SQ_GLOBAL SqGpuVif *v = sq_gk_vif(arena, &ka, job);
    for (int s = 0; s < 4; s++) {
        const int on = live && !(s == 0 && v->skip0);
        for (int k = 0; k < 4; k++) {
            uint64_t t = 0;
            for (int l = SQ_TID; on && l < sq_gpu_vif_lanes(&ka); l += SQ_NTH)
                t += sq_gk_vif_sums(arena, v, s, l)[k];
            part[k * SQ_GK_MAXTH + SQ_TID] = t;
        }
        sq_gk_sum_n(part, 4);
        if (!live || SQ_TID != 0)
            continue;
        SQ_GLOBAL SqGpuResult *res = SQ_GK_PTR(SqGpuResult, ka.results) + v->result;
        float num = 0.0f, den = -1.0f;
        if (on) {
            SqViAcc t;
            t.num_log = (int64_t)part[0];
            t.den_log = (int64_t)part[SQ_GK_MAXTH];
            t.num_nonlog = (int64_t)part[2 * SQ_GK_MAXTH];
            t.den_nonlog = (int64_t)part[3 * SQ_GK_MAXTH];
            sq_vi_scale_nd(&t, &num, &den);
        }
        res->vif.num[s] = num;
        res->vif.den[s] = den;
    }
}

#endif
