/*
 * libvmaf's CAMBI on the GPU (SQ_JOB_CAMBI jobs, SqGpuCambi): the math
 * core's per-pixel and per-column steps (math/vmaf_cambi*.h). The frame's
 * steps that the CPU runs in place, row after row (the anti-dithering, the
 * decimation, the mode filter), read one buffer and write another, so each
 * pixel is an independent item; the mask is the 7x7 integer sum per pixel.
 * The sliding window histograms run one item a column and band of rows
 * (sq_vc_cvalues_col, each band with histograms apart): an item's counters
 * are its own, so no two items share one. The pooling
 * of a scale is sq_vc_pool_fast's two radix passes in lanes (integer
 * counts by atomic increments, integer sums), each finished by one item a
 * job as on the CPU; its fallback, libvmaf's selection, depends on the
 * order, and runs in one item a job in the CPU's.
 * Included by gpu/kernels.h.
 */
#ifndef SQ_GPU_KERNELS_CAMBI_H
#define SQ_GPU_KERNELS_CAMBI_H

#include "math/vmaf_cambi_pool.h"

SQ_DFN const SQ_GLOBAL SqGpuCambi *sq_gk_vc(SQ_GLOBAL unsigned char *arena, const SqKArgs *ka,
                                           int i)
{
    return SQ_GK_PTR(const SqGpuCambi, ka->cambis) + (i < ka->ncambis ? i : 0);
}

/* Part k (SQ_GPU_VC_*) of the job's scratch. */
SQ_DFN SQ_GLOBAL unsigned char *sq_gk_vc_part(SQ_GLOBAL unsigned char *arena,
                                             const SQ_GLOBAL SqGpuCambi *cb, int k)
{
    return arena + cb->scratch + sq_gpu_vc_at(cb->vc.w, cb->vc.h, cb->vc.nd, cb->vc.hrs, k);
}

/* Decimations through scale s (sq_vc_scale_dims): scale s's mask is in M0 or M1 by its parity. */
SQ_DFN int sq_gk_vc_decims(const SQ_GLOBAL SqGpuCambi *cb, int s)
{
    return s + (cb->vc.hrs ? 1 : 0);
}

SQ_DFN SQ_GLOBAL uint8_t *sq_gk_vc_mask(SQ_GLOBAL unsigned char *arena,
                                        const SQ_GLOBAL SqGpuCambi *cb, int decims)
{
    return (SQ_GLOBAL uint8_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_M0 + (decims & 1));
}

/* Block (rows, job): the luma as 10-bit codes into Y; block 0 fills first[]. (No barrier.) */
SQ_KERNEL_BEGIN(cambi_conv, 256)
{
    const int job = SQ_BY, live = job < ka.ncambis;
    const SQ_GLOBAL SqGpuCambi *cb = sq_gk_vc(arena, &ka, job);
    const int w = cb->vc.w, bpc = cb->vc.bpc;
    int i0, i1;
    sq_gk_rows(SQ_BX, cb->vc.h, live, &i0, &i1);
    SQ_GLOBAL uint16_t *y = (SQ_GLOBAL uint16_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_Y);
    for (int i = i0; i < i1; i++)
        for (int j = SQ_TID; j < w; j += SQ_NTH) {
            /* a sample above the depth fails the frame (int_range's check): its code is
             * only kept inside the histograms' values */
            const int c = sq_vc_to10(sq_gk_sample(arena + cb->pic, cb->stride, cb->acc, i, j), bpc);
            y[(int64_t)i * w + j] = (uint16_t)(c > 1024 ? 1024 : c);
        }
    if (live && SQ_BX == 0) {
        const SQ_GLOBAL SqVcParams *p = &cb->vc;
        SQ_GLOBAL uint8_t *first = sq_gk_vc_part(arena, cb, SQ_GPU_VC_FIRST);
        for (int v = SQ_TID; v < 1025; v += SQ_NTH)
            first[v] = sq_vc_first_at(p, v);
    }
}

/* Block (rows, job): X, the anti-dithered Y (A.4.4: reads rows i, i + 1 of Y), or Y. */
SQ_KERNEL_BEGIN(cambi_pre, 256)
{
    const SQ_GLOBAL SqGpuCambi *cb = sq_gk_vc(arena, &ka, SQ_BY);
    const int w = cb->vc.w, h = cb->vc.h;
    int i0, i1;
    sq_gk_rows(SQ_BX, h, SQ_BY < ka.ncambis, &i0, &i1);
    const SQ_GLOBAL uint16_t *y = (const SQ_GLOBAL uint16_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_Y);
    SQ_GLOBAL uint16_t *x = (SQ_GLOBAL uint16_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_X);
    for (int i = i0; i < i1; i++) {
        const SQ_GLOBAL uint16_t *yr = y + (int64_t)i * w;
        SQ_GLOBAL uint16_t *xr = x + (int64_t)i * w;
        for (int j = SQ_TID; j < w; j += SQ_NTH)
            xr[j] = cb->vc.anti_dither ? sq_vc_dither_at(yr, w, i == h - 1, j) : yr[j];
    }
}

/* Block (rows, job): Z of X (A.5). */
SQ_KERNEL_BEGIN(cambi_zero, 256)
{
    const SQ_GLOBAL SqGpuCambi *cb = sq_gk_vc(arena, &ka, SQ_BY);
    const int w = cb->vc.w, h = cb->vc.h;
    int i0, i1;
    sq_gk_rows(SQ_BX, h, SQ_BY < ka.ncambis, &i0, &i1);
    const SQ_GLOBAL uint16_t *x = (const SQ_GLOBAL uint16_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_X);
    SQ_GLOBAL uint8_t *z = sq_gk_vc_part(arena, cb, SQ_GPU_VC_Z);
    for (int i = i0; i < i1; i++)
        for (int j = SQ_TID; j < w; j += SQ_NTH)
            z[(int64_t)i * w + j] = sq_vc_zero_at(x + (int64_t)i * w, w, i == h - 1, j);
}

/*
 * Block (rows, job): the input's spatial mask M0 from Z (A.5): a row's
 * column sums (7 rows of Z) in shared memory, then each pixel's 7 of them;
 * a row wider than the shared array sums each pixel's 7x7 itself.
 */
SQ_KERNEL_BEGIN(cambi_mask, 256)
{
    SQ_SHARED uint16_t cs[SQ_GPU_VC_MASK_W + SQ_VC_MASK_SIDE - 1];
    const SQ_GLOBAL SqGpuCambi *cb = sq_gk_vc(arena, &ka, SQ_BY);
    const int w = cb->vc.w, h = cb->vc.h, mi = sq_vc_mask_index(w, h);
    const int mh = SQ_VC_MASK_SIDE >> 1;
    int i0, i1;
    sq_gk_rows(SQ_BX, h, SQ_BY < ka.ncambis, &i0, &i1);
    const SQ_GLOBAL uint8_t *z = sq_gk_vc_part(arena, cb, SQ_GPU_VC_Z);
    SQ_GLOBAL uint8_t *m = sq_gk_vc_mask(arena, cb, 0);
    /* the same for the whole block: its job's width */
    const int wide = w > SQ_GPU_VC_MASK_W;
    for (int i = i0; i < i1 && wide; i++)
        for (int j = SQ_TID; j < w; j += SQ_NTH)
            m[(int64_t)i * w + j] = sq_vc_mask_at(z, w, h, i, j, mi);
    for (int i = i0; i < i1 && !wide; i++) {
        for (int k = SQ_TID; k < w + 2 * mh; k += SQ_NTH)
            cs[k] = (uint16_t)sq_vc_mask_col(z, w, h, i, k - mh);
        SQ_SYNC();
        for (int j = SQ_TID; j < w; j += SQ_NTH) {
            int sum = 0;
            for (int k = 0; k <= 2 * mh; k++)
                sum += cs[j + k];
            m[(int64_t)i * w + j] = (uint8_t)sq_vc_masked(sum, mi);
        }
        SQ_SYNC();
    }
}

/*
 * Block (rows, job), scale s: Y, scale s's image before the mode filter:
 * X (the scale before, or the input) decimated with its mask into the
 * other mask (sq_vc_scale_image), or X itself at an undecimated scale 0.
 */
SQ_KERNEL_BEGIN(cambi_dec, 256)
{
    const int job = SQ_BY, s = ka.scale;
    const SQ_GLOBAL SqGpuCambi *cb = sq_gk_vc(arena, &ka, job);
    const SQ_GLOBAL SqVcParams *p = &cb->vc;
    int cw, ch, pw = p->w, ph = p->h, i0, i1;
    sq_vc_scale_dims(p, s, &cw, &ch);
    if (s > 0)
        sq_vc_scale_dims(p, s - 1, &pw, &ph);
    const int f = sq_gk_vc_decims(cb, s);
    sq_gk_rows(SQ_BX, ch, job < ka.ncambis, &i0, &i1);
    const SQ_GLOBAL uint16_t *x = (const SQ_GLOBAL uint16_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_X);
    SQ_GLOBAL uint16_t *y = (SQ_GLOBAL uint16_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_Y);
    const SQ_GLOBAL uint8_t *m = sq_gk_vc_mask(arena, cb, f - 1);
    SQ_GLOBAL uint8_t *mo = sq_gk_vc_mask(arena, cb, f);
    for (int i = i0; i < i1; i++)
        for (int j = SQ_TID; j < cw; j += SQ_NTH) {
            if (f == 0)
                y[(int64_t)i * cw + j] = x[(int64_t)i * cw + j];
            else
                sq_vc_decimate_at(x, m, pw, cw, i, j, y, mo);
        }
}

/* Block (rows, job), scale s: X, the mode filter of Y (A.6.2). */
SQ_KERNEL_BEGIN(cambi_mode, 256)
{
    const int job = SQ_BY, s = ka.scale;
    const SQ_GLOBAL SqGpuCambi *cb = sq_gk_vc(arena, &ka, job);
    const SQ_GLOBAL SqVcParams *p = &cb->vc;
    int cw, ch, i0, i1;
    sq_vc_scale_dims(p, s, &cw, &ch);
    sq_gk_rows(SQ_BX, ch, job < ka.ncambis, &i0, &i1);
    const SQ_GLOBAL uint16_t *y = (const SQ_GLOBAL uint16_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_Y);
    SQ_GLOBAL uint16_t *x = (SQ_GLOBAL uint16_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_X);
    for (int i = i0; i < i1; i++)
        for (int j = SQ_TID; j < cw; j += SQ_NTH)
            x[(int64_t)i * cw + j] = sq_vc_mode_at(y, cw, ch, i, j);
}

/* Scale s's buffers of a job for the math core's c-values and pooling. */
SQ_DFN SqVcBufs sq_gk_vc_bufs(SQ_GLOBAL unsigned char *arena, const SQ_GLOBAL SqGpuCambi *cb,
                              int s)
{
    SqVcBufs bf;
    bf.img = (SQ_GLOBAL uint16_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_X);
    bf.zero = sq_gk_vc_part(arena, cb, SQ_GPU_VC_Z);
    bf.mask = sq_gk_vc_mask(arena, cb, sq_gk_vc_decims(cb, s));
    bf.colsum = 0;
    bf.mode = 0;
    bf.hist = (SQ_GLOBAL uint16_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_HIST);
    bf.c = (SQ_GLOBAL float *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_C);
    bf.cnt = (SQ_GLOBAL uint32_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_CNT);
    bf.first = sq_gk_vc_part(arena, cb, SQ_GPU_VC_FIRST);
    bf.recip = SQ_GK_PTR(const float, cb->recip);
    return bf;
}

/*
 * Block (chunk of columns and band of rows, job), scale s: each column's
 * histograms of the band (its own copy) slid down its rows, its c-values.
 * The block steps down the band's rows together: a step's entering and
 * leaving rows' bins (sq_vc_hist_bin) over the chunk and its window's
 * margins are computed once into shared memory, then each column moves its
 * window's pairs (sq_vc_hist_pair, sq_vc_hist_col's order and counts).
 */
SQ_KERNEL_BEGIN(cambi_cval, 256)
{
    SQ_SHARED int bins[2][SQ_GK_CHUNK + 2 * SQ_GPU_VC_PAD];
    const int job = SQ_BY, s = ka.scale, nb = ka.vc_bands, band = SQ_BX % nb;
    const SQ_GLOBAL SqGpuCambi *cb = sq_gk_vc(arena, &ka, job);
    const SQ_GLOBAL SqVcParams *p = &cb->vc;
    int cw, ch, blo, bhi;
    sq_vc_scale_dims(p, s, &cw, &ch);
    sq_vc_band(p, &blo, &bhi);
    const int lo = SQ_BX / nb * SQ_GK_CHUNK;
    const int hi = SQ_GK_END(lo, job < ka.ncambis ? cw : 0);
    const int i0 = ch * band / nb, i1 = ch * (band + 1) / nb;
    const int pad = p->ws >> 1, nd = p->nd;
    const SqVcBufs bf = sq_gk_vc_bufs(arena, cb, s);
    SQ_GLOBAL uint16_t *hist = bf.hist + (int64_t)band * sq_gpu_vc_band_hist(p->w, p->nd, p->hrs);
    /* the same for the whole block: its job's window */
    if (pad > SQ_GPU_VC_PAD) {
        for (int j = lo + SQ_TID; j < hi && i0 < i1; j += SQ_NTH)
            sq_vc_cvalues_col(p, &bf, hist, cw, ch, j, i0, i1);
        return;
    }
    for (int j = lo + SQ_TID; j < hi; j += SQ_NTH)
        for (int b = blo; b < bhi + 2 * nd + 1; b++)
            hist[(int64_t)b * cw + j] = 0;
    const int span = hi - lo + 2 * pad, steps = i0 < i1 && hi > lo ? i1 - i0 + 2 * pad : 0;
    for (int t = 0; t < steps; t++) {
        const int ra = i0 - pad + t, i = ra - pad, rr = t > 2 * pad ? i - pad - 1 : -1;
        for (int k = SQ_TID; k < span; k += SQ_NTH) {
            const int x = lo - pad + k, in = x >= 0 && x < cw;
            bins[0][k] = in ? sq_vc_hist_bin(bf.img, bf.mask, cw, ch, ra, x, nd, blo, bhi) : -1;
            bins[1][k] = in ? sq_vc_hist_bin(bf.img, bf.mask, cw, ch, rr, x, nd, blo, bhi) : -1;
        }
        SQ_SYNC();
        /* one column an item on a GPU (SQ_GK_CHUNK items), all in a block of one */
        for (int j = lo + SQ_TID; j < hi; j += SQ_NTH) {
            for (int k = j - lo; k <= j - lo + 2 * pad; k++)
                sq_vc_hist_pair(hist + j, cw, bins[0][k], bins[1][k]);
            if (i >= i0)
                bf.c[(int64_t)i * cw + j] =
                    sq_vc_cvalue_at(bf.img, bf.mask, hist, cw, i, j, bf.first, p, bf.recip);
        }
        SQ_SYNC();
    }
}

SQ_DFN SQ_GLOBAL SqGpuVcPool *sq_gk_vc_pool(SQ_GLOBAL unsigned char *arena,
                                            const SQ_GLOBAL SqGpuCambi *cb)
{
    return (SQ_GLOBAL SqGpuVcPool *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_POOL);
}

/* Block (chunk, job), scale s: the pooling's counters of both passes and its state cleared. */
SQ_KERNEL_BEGIN(cambi_zcnt, 256)
{
    const int job = SQ_BY;
    const SQ_GLOBAL SqGpuCambi *cb = sq_gk_vc(arena, &ka, job);
    const int64_t n = job < ka.ncambis ? SQ_GPU_VC_CNT1 + SQ_GPU_VC_CNT2 : 0;
    const int64_t lo = (int64_t)SQ_BX * SQ_GK_CHUNK, hi = SQ_GK_END(lo, n);
    SQ_GLOBAL uint32_t *cnt = (SQ_GLOBAL uint32_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_CNT);
    for (int64_t t = lo + SQ_TID; t < hi; t += SQ_NTH)
        cnt[t] = 0;
    if (lo == 0 && n && SQ_TID == 0) {
        SQ_GLOBAL SqGpuVcPool *st = sq_gk_vc_pool(arena, cb);
        st->zeros = 0;
        st->bad = 0;
    }
}

/* Lane `lane`'s part [*i0, *i1) of a scale's n c-values. */
SQ_DFN void sq_gk_vc_lane(int n, int lane, int *i0, int *i1)
{
    *i0 = (int)((int64_t)n * lane / SQ_GPU_VC_LANES);
    *i1 = (int)((int64_t)n * (lane + 1) / SQ_GPU_VC_LANES);
}

/*
 * Block (lane, job), scale s: pass 1 (sq_vc_count_hi's steps) over the
 * lane's c-values, the digits counted by atomic increments: integers, the
 * same counts in any order.
 */
SQ_KERNEL_BEGIN(cambi_cnt1, 256)
{
    const int job = SQ_BY, s = ka.scale;
    const SQ_GLOBAL SqGpuCambi *cb = sq_gk_vc(arena, &ka, job);
    const SQ_GLOBAL SqVcParams *p = &cb->vc;
    int cw, ch, i0, i1;
    sq_vc_scale_dims(p, s, &cw, &ch);
    sq_gk_vc_lane(job < ka.ncambis ? cw * ch : 0, SQ_BX, &i0, &i1);
    const SQ_GLOBAL float *c = (const SQ_GLOBAL float *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_C);
    SQ_GLOBAL uint32_t *cnt = (SQ_GLOBAL uint32_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_CNT);
    SQ_GLOBAL SqGpuVcPool *st = sq_gk_vc_pool(arena, cb);
    uint32_t z = 0, bad = 0;
    for (int i = i0 + SQ_TID; i < i1; i += SQ_NTH) {
        const int d = sq_vc_digit_hi(sq_f32_bits(c[i]));
        if (d == -1)
            z++;
        else if (d == -2)
            bad = 1;
        else
            SQ_ATOMIC_ADD(cnt + d, 1);
    }
    if (z)
        SQ_ATOMIC_ADD(&st->zeros, z);
    if (bad)
        SQ_ATOMIC_OR(&st->bad, 1);
}

/*
 * Block (0, job): the run sums of the job's n runs into st->runs, in
 * parallel; 0 for the block's one item to go on with (item 0), else 1.
 * Sixteen items a run, each adding its counters 16 apart and its sum to
 * the run's by an atomic add (u32 counts: sq_vc_run_sum's in any order):
 * a warp's reads are whole lines (an item a run read 512 bytes of its own,
 * the block's time spent in the cache's tag lookups).
 */
SQ_DFN int sq_gk_vc_runs(const SQ_GLOBAL uint32_t *cnt, int n, SQ_GLOBAL SqGpuVcPool *st)
{
    for (int r = SQ_TID; r < n; r += SQ_NTH)
        st->runs[r] = 0;
    SQ_SYNC();
    for (int x = SQ_TID; x < n * 16; x += SQ_NTH) {
        const SQ_GLOBAL uint32_t *c = cnt + (x >> 4) * SQ_VC_RUN + (x & 15);
        uint32_t sum = 0;
        for (int m = 0; m < SQ_VC_RUN; m += 16)
            sum += c[m];
        if (sum)
            SQ_ATOMIC_ADD(st->runs + (x >> 4), sum);
    }
    SQ_SYNC();
    return SQ_TID != 0;
}

/* Block (0, job), scale s: the digit of the top K's smallest (its run sums in parallel). */
SQ_KERNEL_BEGIN(cambi_digit, 256)
{
    const int job = SQ_BY, s = ka.scale;
    const SQ_GLOBAL SqGpuCambi *cb = sq_gk_vc(arena, &ka, job);
    SQ_GLOBAL SqGpuVcPool *st = sq_gk_vc_pool(arena, cb);
    /* the same for the whole block: pass 1's flag, set before this launch */
    if (job >= ka.ncambis || st->bad)
        return;
    SQ_GLOBAL uint32_t *cnt = (SQ_GLOBAL uint32_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_CNT);
    if (sq_gk_vc_runs(cnt, SQ_VC_RUNS1, st))
        return;
    const SQ_GLOBAL SqVcParams *p = &cb->vc;
    int cw, ch, dh, above;
    sq_vc_scale_dims(p, s, &cw, &ch);
    sq_vc_add_zeros(cnt, st->runs, st->zeros);
    st->emin = sq_vc_topk_digit(cnt, st->runs, sq_vc_scale_k(p, s, cw * ch), &dh, &above);
    st->hi = dh;
    st->above = above;
}

/*
 * Block (lane, job), scale s: pass 2 (sq_vc_sum_hi's steps) over the lane's
 * c-values: the low digits counted by atomic increments, the values above
 * digit hi summed per item, then per block, exact integers in any order
 * (each part below 2^53, or the lane marks the sum unusable).
 */
SQ_KERNEL_BEGIN(cambi_cnt2, 256)
{
    SQ_SHARED uint64_t part[SQ_GK_MAXTH];
    const int job = SQ_BY, s = ka.scale;
    const SQ_GLOBAL SqGpuCambi *cb = sq_gk_vc(arena, &ka, job);
    const SQ_GLOBAL SqVcParams *p = &cb->vc;
    SQ_GLOBAL SqGpuVcPool *st = sq_gk_vc_pool(arena, cb);
    /* bit 0 is pass 1's, set before this launch: the same for every item */
    const int live = job < ka.ncambis && !(st->bad & 1);
    int cw, ch, i0, i1;
    sq_vc_scale_dims(p, s, &cw, &ch);
    sq_gk_vc_lane(live ? cw * ch : 0, SQ_BX, &i0, &i1);
    const int hi = live ? st->hi : 0, emin = live ? st->emin : 0;
    const SQ_GLOBAL float *c = (const SQ_GLOBAL float *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_C);
    SQ_GLOBAL uint32_t *cnt2 =
        (SQ_GLOBAL uint32_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_CNT) + SQ_GPU_VC_CNT1;
    int64_t sum = 0;
    int ok = 1;
    for (int i = i0 + SQ_TID; i < i1 && ok; i += SQ_NTH) {
        int d;
        ok = sq_vc_sum_one(sq_f32_bits(c[i]), hi, emin, &sum, &d);
        if (ok && d >= 0)
            SQ_ATOMIC_ADD(cnt2 + d, 1);
    }
    if (!ok)
        SQ_ATOMIC_OR(&st->bad, 2);
    part[SQ_TID] = (uint64_t)sum;
    sq_gk_sum_n(part, 1);
    if (live && SQ_TID == 0)
        st->part[SQ_BX] = (int64_t)part[0];
}

/*
 * Block (0, job), scale s: the lanes' sums added (sq_vc_add_part: exact,
 * or the selection), the run sums of pass 2's counters in parallel, the
 * scale's score (sq_vc_pool_end, as the CPU's), and after the last scale
 * the frame's.
 */
SQ_KERNEL_BEGIN(cambi_fin, 256)
{
    const int job = SQ_BY, s = ka.scale;
    if (job >= ka.ncambis)
        return;
    const SQ_GLOBAL SqGpuCambi *cb = sq_gk_vc(arena, &ka, job);
    SQ_GLOBAL SqGpuVcPool *st = sq_gk_vc_pool(arena, cb);
    SQ_GLOBAL uint32_t *cnt2 =
        (SQ_GLOBAL uint32_t *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_CNT) + SQ_GPU_VC_CNT1;
    if (sq_gk_vc_runs(cnt2, SQ_VC_RUNS2, st))
        return;
    const SQ_GLOBAL SqVcParams *p = &cb->vc;
    int cw, ch;
    sq_vc_scale_dims(p, s, &cw, &ch);
    const int n = cw * ch;
    int64_t sum = 0;
    int ok = !st->bad;
    for (int l = 0; l < SQ_GPU_VC_LANES && ok; l++)
        ok = sq_vc_add_part(&sum, st->part[l]);
    SQ_GLOBAL float *c = (SQ_GLOBAL float *)sq_gk_vc_part(arena, cb, SQ_GPU_VC_C);
    st->score[s] = sq_d_bits(sq_vc_pool_end(c, n, sq_vc_scale_k(p, s, n), cnt2, st->runs, ok,
                                            st->hi, st->above, st->emin, sum, st->zeros));
    if (s < SQ_VC_SCALES - 1)
        return;
    sq_f64 score[SQ_VC_SCALES];
    for (int k = 0; k < SQ_VC_SCALES; k++)
        score[k] = sq_d_from_bits(st->score[k]);
    (SQ_GK_PTR(SqGpuResult, ka.results) + cb->result)->cambi = sq_d_bits(sq_vc_score(score, p));
}

#endif
