/*
 * The SpEED GPU kernels, written once: nvcc (CUDA), hipcc (HIP), an
 * OpenCL C 1.2 compiler (embedded as text by gpu/opencl/embed.py) and the
 * host C compiler (tests/gpu/null_gpu.c, the emulator of the tests) all
 * compile this file. Only the spelling of the GPU built-ins differs; it
 * comes from the block below, or from the includer (the emulator defines
 * SQ_KERNEL_BEGIN and the rest itself):
 *   SQ_KERNEL_BEGIN(name, threads)  kernel sq_k_<name>(SQ_GLOBAL uchar *arena, SqKArgs ka)
 *   SQ_TID, SQ_NTH, SQ_BX, SQ_BY    thread index, threads per block, block index
 *   SQ_SYNC()                       block barrier (local and global memory)
 *   SQ_SHARED                       block-shared storage, at kernel scope
 *   SQ_SHARED_PTR                   address space of a pointer to it
 *   SQ_DFN                          device helper qualifier
 *   SQ_ATOMIC_MAX(p, v), SQ_ATOMIC_OR(p, v), SQ_ATOMIC_ADD(p, v)
 *                                   on a SQ_GLOBAL uint32_t * (OpenCL 1.2 core)
 *   SQ_GPU_SHARED_WORK              1: the eigen/solve matrices live in block-shared
 *                                   memory (needs generic pointers: CUDA, HIP, C);
 *                                   0: in the side's global work area (OpenCL C 1.2,
 *                                   whose math core functions take __global only)
 *
 * Contract of every kernel: the arena is one device allocation, everything
 * in it is found through byte offsets (SqKArgs, then the tables it points
 * at); every loop over work items is `for (i = lo + tid; i < hi; i += nth)`
 * and nothing lives in a thread's registers across a barrier, so a block
 * of any size (1 thread in the emulator, 64-wide waves on AMD) computes the
 * same values; no kernel returns before a barrier (OpenCL requires every
 * work-item to reach each one): an idle block runs through with empty
 * loops. All float arithmetic is the math core's per-entry functions; the
 * serial glue between them reproduces the math core's step order exactly
 * (sq_tridiag, sq_eigenvalues, sq_qr_solve, sq_est_params, sq_pool).
 */
#ifndef SQ_KERNEL_BEGIN
#define SQ_GPU_DEVICE_ONLY 1
#if defined(__OPENCL_VERSION__)
#define SQ_KERNEL_BEGIN(name, threads) \
    __kernel void sq_k_##name(__global unsigned char *arena, SqKArgs ka)
#define SQ_TID ((int)get_local_id(0))
#define SQ_NTH ((int)get_local_size(0))
#define SQ_BX ((int)get_group_id(0))
#define SQ_BY ((int)get_group_id(1))
#define SQ_SYNC() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define SQ_SHARED __local
#define SQ_SHARED_PTR __local
#define SQ_DFN static inline
#define SQ_ATOMIC_MAX(p, v) atomic_max((volatile __global uint *)(p), (uint)(v))
#define SQ_ATOMIC_OR(p, v) atomic_or((volatile __global uint *)(p), (uint)(v))
#define SQ_ATOMIC_ADD(p, v) atomic_add((volatile __global uint *)(p), (uint)(v))
#define SQ_GPU_SHARED_WORK 0
#elif defined(__CUDACC__) || defined(__HIPCC__)
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif
/* nvcc and hipcc share the spelling (HIP keeps CUDA's built-ins). No warp
 * size is assumed anywhere: blocks synchronise with barriers only. */
#define SQ_KERNEL_BEGIN(name, threads) \
    extern "C" __global__ void __launch_bounds__(threads) sq_k_##name(unsigned char *arena, SqKArgs ka)
#define SQ_TID ((int)threadIdx.x)
#define SQ_NTH ((int)blockDim.x)
#define SQ_BX ((int)blockIdx.x)
#define SQ_BY ((int)blockIdx.y)
#define SQ_SYNC() __syncthreads()
#define SQ_SHARED __shared__
#define SQ_SHARED_PTR
#define SQ_DFN static __device__ inline
#define SQ_ATOMIC_MAX(p, v) atomicMax((unsigned int *)(p), (unsigned int)(v))
#define SQ_ATOMIC_OR(p, v) atomicOr((unsigned int *)(p), (unsigned int)(v))
#define SQ_ATOMIC_ADD(p, v) atomicAdd((unsigned int *)(p), (unsigned int)(v))
#define SQ_GPU_SHARED_WORK 1
#else
#error "gpu/kernels.h: define SQ_KERNEL_BEGIN and the other built-ins before including it"
#endif
#endif

#include "gpu/gpu.h"
#include "math/cov.h"
#include "math/eigen.h"
#include "math/filter.h"
#include "math/prescale.h"
#include "math/score.h"
#include "math/solve.h"

/* Work items per block of the element-wise kernels (independent of SQ_NTH). */
#define SQ_GK_CHUNK 256
/* End of the chunk of work items that starts at lo, out of total. */
#define SQ_GK_END(lo, total) ((lo) + SQ_GK_CHUNK < (total) ? (lo) + SQ_GK_CHUNK : (total))
#define SQ_GK_PTR(T, off) ((SQ_GLOBAL T *)(arena + (off)))

/* Block bx's rows [*i0, *i1) of an h-row plane (none for a block of no job: live 0). */
SQ_DFN void sq_gk_rows(int bx, int h, int live, int *i0, int *i1)
{
    *i0 = bx * SQ_GPU_ROWS;
    *i1 = !live ? *i0 : *i0 + SQ_GPU_ROWS < h ? *i0 + SQ_GPU_ROWS : h;
}

SQ_DFN const SQ_GLOBAL SqGpuSide *sq_gk_side(SQ_GLOBAL unsigned char *arena, const SqKArgs *ka,
                                             int i)
{
    return SQ_GK_PTR(const SqGpuSide, ka->sides) + i;
}

SQ_DFN const SQ_GLOBAL SqGpuPlan *sq_gk_plan(SQ_GLOBAL unsigned char *arena, const SqKArgs *ka,
                                             int i)
{
    return SQ_GK_PTR(const SqGpuPlan, ka->plans) + i;
}

/* sq_est_params' rule; the solve ran regardless, so its failure is in flags[0]. */
SQ_DFN int sq_gk_singular(const SQ_GLOBAL int32_t *flags, const SQ_GLOBAL float *lambda, int n)
{
    return !sq_eigen_regular(lambda, n) || flags[0];
}

/* ---- out-of-range check: max and OR of the raw samples read ------------ */

/* Largest block size any launch uses (the shared reduction array). */
#define SQ_GK_MAXTH 256

/* Where side `side` of the problem tables folds its range, or 0 when it does not check. */
SQ_DFN SQ_GLOBAL uint32_t *sq_gk_range_dst(SQ_GLOBAL unsigned char *arena, const SqKArgs *ka,
                                          int side)
{
    if (side >= ka->nsides || !sq_gk_side(arena, ka, side)->range_check)
        return 0;
    return (SQ_GK_PTR(SqGpuResult, ka->results) + (side >> 1))->range[side & 1];
}

SQ_DFN void sq_gk_fold(uint32_t *acc, uint32_t v)
{
    acc[0] = v > acc[0] ? v : acc[0];
    acc[1] |= v;
}

/*
 * Block-wide max / OR of every thread's acc (SQ_GPU_RANGE_N values), then
 * one atomic per value into dst (0: none). Every thread of the block calls
 * it: acc goes to shared memory before the first barrier, and the tree
 * works for any block size.
 */
SQ_DFN void sq_gk_range_flush(SQ_SHARED_PTR uint32_t *red, const uint32_t *acc,
                              SQ_GLOBAL uint32_t *dst)
{
    const int tid = SQ_TID, nth = SQ_NTH;
    for (int k = 0; k < SQ_GPU_RANGE_N; k++)
        red[k * SQ_GK_MAXTH + tid] = acc[k];
    for (int s = 1; s < nth; s <<= 1) {
        SQ_SYNC();
        if (tid % (2 * s) == 0 && tid + s < nth)
            for (int k = 0; k < SQ_GPU_RANGE_N; k++) {
                SQ_SHARED_PTR uint32_t *a = red + k * SQ_GK_MAXTH + tid;
                const uint32_t b = a[s];
                *a = k & 1 ? *a | b : (b > *a ? b : *a);
            }
    }
    SQ_SYNC();
    if (tid == 0 && dst)
        for (int k = 0; k < SQ_GPU_RANGE_N; k++) {
            if (k & 1)
                SQ_ATOMIC_OR(dst + k, red[k * SQ_GK_MAXTH]);
            else
                SQ_ATOMIC_MAX(dst + k, red[k * SQ_GK_MAXTH]);
        }
}

/* A raw sample as the range check folds it: through the plane's sample access. */
SQ_DFN uint32_t sq_gk_sample(const SQ_GLOBAL uint8_t *base, int64_t stride, int acc, int y, int x)
{
    return sq_sample(base + (int64_t)y * stride, x, acc);
}

/* Block (rows, entry): the max and OR of an SqGpuRange's plane, every column of its rows. */
SQ_KERNEL_BEGIN(int_range, 256)
{
    SQ_SHARED uint32_t red[SQ_GPU_RANGE_N * SQ_GK_MAXTH];
    const int e = SQ_BY, live = e < ka.nranges;
    const SQ_GLOBAL SqGpuRange *rg = SQ_GK_PTR(const SqGpuRange, ka.ranges) + (live ? e : 0);
    uint32_t acc[SQ_GPU_RANGE_N] = { 0, 0, 0, 0 };
    int i0, i1;
    sq_gk_rows(SQ_BX, rg->h, live, &i0, &i1);
    for (int i = i0; i < i1; i++)
        for (int j = SQ_TID; j < rg->w; j += SQ_NTH)
            sq_gk_fold(acc, sq_gk_sample(arena + rg->pic, rg->stride, rg->acc, i, j));
    sq_gk_range_flush(red, acc,
                      live ? (SQ_GK_PTR(SqGpuResult, ka.results) + rg->result)->range[0] : 0);
}

/* ---- prescale path: converted plane, then resampled plane -------------- */

/* Side i and its plan when its feature prescales, else NULL. */
SQ_DFN const SQ_GLOBAL SqGpuSide *sq_gk_prescaled(SQ_GLOBAL unsigned char *arena,
                                                  const SqKArgs *ka, int i,
                                                  const SQ_GLOBAL SqGpuPlan **pl)
{
    if (i >= ka->nsides)
        return 0;
    const SQ_GLOBAL SqGpuSide *sd = sq_gk_side(arena, ka, i);
    *pl = sq_gk_plan(arena, ka, sd->plan);
    return (*pl)->prescale >= 0 ? sd : 0;
}

/* The whole plane is converted; only the rows the feature reads are range-checked. */
SQ_KERNEL_BEGIN(convert, 256)
{
    SQ_SHARED uint32_t red[SQ_GPU_RANGE_N * SQ_GK_MAXTH];
    const SQ_GLOBAL SqGpuPlan *pl = 0;
    const SQ_GLOBAL SqGpuSide *sd = sq_gk_prescaled(arena, &ka, SQ_BY, &pl);
    uint32_t acc[SQ_GPU_RANGE_N] = { 0, 0, 0, 0 };
    SQ_GLOBAL uint32_t *dst = sd ? sq_gk_range_dst(arena, &ka, SQ_BY) : 0;
    if (sd) {
        const int w = pl->d.w;
        int i0, i1;
        sq_gk_rows(SQ_BX, pl->d.h, 1, &i0, &i1);
        const SQ_GLOBAL uint8_t *cur = arena + sd->cur;
        const SQ_GLOBAL uint8_t *prev = sd->prev >= 0 ? arena + sd->prev : 0;
        const SQ_GLOBAL uint8_t *rows = arena + pl->ps_rows;
        SQ_GLOBAL float *conv = SQ_GK_PTR(float, sd->scratch + pl->lay.conv);
        for (int y = i0; y < i1; y++)
            for (int x = SQ_TID; x < w; x += SQ_NTH) {
                conv[(int64_t)y * w + x] = sq_src_at(cur, sd->cur_stride, prev, sd->prev_stride,
                                                     sd->acc, sd->scale, y, x);
                if (dst && rows[y]) {
                    sq_gk_fold(acc, sq_gk_sample(cur, sd->cur_stride, sq_acc_cur(sd->acc), y, x));
                    if (prev)
                        sq_gk_fold(acc + 2, sq_gk_sample(prev, sd->prev_stride,
                                                         sq_acc_prev(sd->acc), y, x));
                }
            }
    }
    sq_gk_range_flush(red, acc, dst);
}

/* (No barrier: an idle block may return.) */
SQ_KERNEL_BEGIN(prescale, 256)
{
    const SQ_GLOBAL SqGpuPlan *pl;
    const SQ_GLOBAL SqGpuSide *sd = sq_gk_prescaled(arena, &ka, SQ_BY, &pl);
    if (!sd)
        return;
    const int sw = pl->d.scaled_w;
    int i0, i1;
    sq_gk_rows(SQ_BX, pl->d.scaled_h, 1, &i0, &i1);
    const SQ_GLOBAL float *conv = SQ_GK_PTR(const float, sd->scratch + pl->lay.conv);
    SQ_GLOBAL float *scaled = SQ_GK_PTR(float, sd->scratch + pl->lay.scaled);
    const SQ_GLOBAL int32_t *iy = SQ_GK_PTR(const int32_t, pl->ps_iy);
    const SQ_GLOBAL int32_t *ix = SQ_GK_PTR(const int32_t, pl->ps_ix);
    const SQ_GLOBAL float *wy = SQ_GK_PTR(const float, pl->ps_wy);
    const SQ_GLOBAL float *wx = SQ_GK_PTR(const float, pl->ps_wx);
    for (int y = i0; y < i1; y++)
        for (int x = SQ_TID; x < sw; x += SQ_NTH)
            scaled[(int64_t)y * sw + x] =
                sq_prescale_px(conv, pl->d.w, pl->prescale, iy, wy, ix, wx, y, x);
}

/* ---- operating image: block (i, side) = op row i ----------------------- */

SQ_KERNEL_BEGIN(opimg, 256)
{
    SQ_SHARED uint32_t red[SQ_GPU_RANGE_N * SQ_GK_MAXTH];
    uint32_t acc[SQ_GPU_RANGE_N] = { 0, 0, 0, 0 };
    SQ_GLOBAL uint32_t *dst = 0;
    const int side_ok = SQ_BY < ka.nsides;
    const SQ_GLOBAL SqGpuSide *sd = sq_gk_side(arena, &ka, side_ok ? SQ_BY : 0);
    const SQ_GLOBAL SqGpuPlan *pl = sq_gk_plan(arena, &ka, sd->plan);
    const SQ_GLOBAL SqDims *d = &pl->d;
    const int i = SQ_BX, ok = side_ok && i < d->op_h, sw = d->scaled_w;
    SQ_GLOBAL float *vrow = SQ_GK_PTR(float, sd->scratch + pl->lay.vrow) + (int64_t)i * sw;
    if (ok) {
        const int sh = d->scaled_h, row = i << SQ_DECIM_SHIFT;
        if (pl->prescale >= 0) {
            const SQ_GLOBAL float *scaled = SQ_GK_PTR(const float, sd->scratch + pl->lay.scaled);
            for (int c = SQ_TID; c < sw; c += SQ_NTH)
                vrow[c] = sq_vfilter_f32(scaled, sw, sh, pl->ga, pl->taps_a, row, c);
        } else {
            const SQ_GLOBAL uint8_t *cur =
                arena + sq_gpu_run_base(sd->cur, sd->cur_stride, sd->cur_runs, i);
            const SQ_GLOBAL uint8_t *prev = sd->prev >= 0
                ? arena + sq_gpu_run_base(sd->prev, sd->prev_stride, sd->prev_runs, i) : 0;
            for (int c = SQ_TID; c < sw; c += SQ_NTH)
                vrow[c] = sq_vfilter_raw(cur, sd->cur_stride, prev, sd->prev_stride, sd->acc,
                                         sd->scale, sh, pl->ga, pl->taps_a, row, c);
            /* The same samples again, from cache: every column of the rows read. */
            dst = sq_gk_range_dst(arena, &ka, SQ_BY);
            const int r = pl->taps_a >> 1;
            for (int c = SQ_TID; dst && c < sw; c += SQ_NTH)
                for (int k = 0; k < pl->taps_a; k++) {
                    const int y = sq_mirror(row - r + k, sh);
                    sq_gk_fold(acc, sq_gk_sample(cur, sd->cur_stride, sq_acc_cur(sd->acc), y, c));
                    if (prev)
                        sq_gk_fold(acc + 2, sq_gk_sample(prev, sd->prev_stride,
                                                         sq_acc_prev(sd->acc), y, c));
                }
        }
    }
    SQ_SYNC();
    if (ok) {
        SQ_GLOBAL float *op = SQ_GK_PTR(float, sd->scratch + pl->lay.op) + (int64_t)i * d->op_w;
        for (int j = SQ_TID; j < d->op_w; j += SQ_NTH)
            op[j] = sq_hfilter_f32(vrow, sw, pl->ga, pl->taps_a, j << SQ_DECIM_SHIFT);
    }
    sq_gk_range_flush(red, acc, dst);
}

SQ_KERNEL_BEGIN(localmean, 256)
{
    const int side_ok = SQ_BY < ka.nsides;
    const SQ_GLOBAL SqGpuSide *sd = sq_gk_side(arena, &ka, side_ok ? SQ_BY : 0);
    const SQ_GLOBAL SqGpuPlan *pl = sq_gk_plan(arena, &ka, sd->plan);
    const SQ_GLOBAL SqDims *d = &pl->d;
    const int i = SQ_BX, ow = d->op_w, nop = side_ok && i < d->op_h ? ow : 0;
    const SQ_GLOBAL float *op = SQ_GK_PTR(const float, sd->scratch + pl->lay.op);
    SQ_GLOBAL float *mrow = SQ_GK_PTR(float, sd->scratch + pl->lay.mrow) + (int64_t)i * ow;
    SQ_GLOBAL float *dimg = SQ_GK_PTR(float, sd->scratch + pl->lay.dimg) + (int64_t)i * ow;
    for (int j = SQ_TID; j < nop; j += SQ_NTH)
        mrow[j] = sq_vfilter_f32(op, ow, d->op_h, pl->gm, pl->taps_m, i, j);
    SQ_SYNC();
    for (int j = SQ_TID; j < nop; j += SQ_NTH)
        dimg[j] = sq_local_mean_at(mrow, ow, op + (int64_t)i * ow, pl->gm, pl->taps_m, j);
}

/* ---- covariance -------------------------------------------------------- */

/* Block (chunk, side): SQ_GK_CHUNK of the trunc_h x (nlags + 1) prefix sequences (no barrier). */
SQ_KERNEL_BEGIN(covrows, 256)
{
    if (SQ_BY >= ka.nsides)
        return;
    const SQ_GLOBAL SqGpuSide *sd = sq_gk_side(arena, &ka, SQ_BY);
    const SQ_GLOBAL SqGpuPlan *pl = sq_gk_plan(arena, &ka, sd->plan);
    const SQ_GLOBAL SqDims *d = &pl->d;
    const int b = d->b, nseq = sq_cov_nlags(b) + 1;
    const int64_t rd = sq_cov_row_doubles(b);
    const int total = d->trunc_h * nseq, lo = SQ_BX * SQ_GK_CHUNK, hi = SQ_GK_END(lo, total);
    const SQ_GLOBAL float *dimg = SQ_GK_PTR(const float, sd->scratch + pl->lay.dimg);
    SQ_GLOBAL sq_f64 *rows = SQ_GK_PTR(sq_f64, sd->scratch + pl->lay.rows);
    for (int t = lo + SQ_TID; t < hi; t += SQ_NTH) {
        const int y = t / nseq, lag = t % nseq;
        sq_cov_row_lag(dimg, d->op_w, d->trunc_w, d->trunc_h, b, d->sub_w, y, lag,
                       rows + y * rd + lag * 2 * b);
    }
}

/* Block per side: the n window sums of the plain sum, then K, then Y. */
SQ_KERNEL_BEGIN(covk, 256)
{
    SQ_SHARED sq_f64 sx[SQ_GPU_NMAX];
    SQ_SHARED float mean[SQ_GPU_NMAX];
    const int side_ok = SQ_BX < ka.nsides;
    const SQ_GLOBAL SqGpuSide *sd = sq_gk_side(arena, &ka, side_ok ? SQ_BX : 0);
    const SQ_GLOBAL SqGpuPlan *pl = sq_gk_plan(arena, &ka, sd->plan);
    const SQ_GLOBAL SqDims *d = &pl->d;
    const int b = d->b, n = side_ok ? d->n : 0, nb = d->nb, nlags = sq_cov_nlags(b);
    const int64_t rd = sq_cov_row_doubles(b);
    const SQ_GLOBAL sq_f64 *rows = SQ_GK_PTR(const sq_f64, sd->scratch + pl->lay.rows);
    for (int p = SQ_TID; p < n; p += SQ_NTH) {
        sx[p] = sq_cov_window_sum(rows, rd, b, d->sub_h, nlags, p / b, p % b);
        mean[p] = sq_cov_mean(sx[p], d->npatch);
    }
    SQ_SYNC();
    SQ_GLOBAL float *k = SQ_GK_PTR(float, sd->scratch + pl->lay.k);
    for (int t = SQ_TID; t < n * n; t += SQ_NTH) {
        /* (p, q) and (q, p) both evaluate the pair with q <= p. */
        const int p = t / n > t % n ? t / n : t % n, q = t / n > t % n ? t % n : t / n;
        int r0, c0;
        const int seq = sq_cov_pair_seq(b, p, q, &r0, &c0);
        const sq_f64 sxy = sq_cov_window_sum(rows, rd, b, d->sub_h, seq, r0, c0);
        k[t] = sq_cov_entry(sxy, sx[p], sx[q], mean[p], mean[q], d->npatch);
    }
    const SQ_GLOBAL float *dimg = SQ_GK_PTR(const float, sd->scratch + pl->lay.dimg);
    SQ_GLOBAL float *y = SQ_GK_PTR(float, sd->scratch + pl->lay.y);
    for (int t = SQ_TID; t < n * nb; t += SQ_NTH)
        y[t] = sq_block_sample(dimg, d->op_w, b, d->nbh, t / nb, t % nb);
}

/* ---- eigenvalues and K X = Y (gpu/kernels_linalg.h) -------------------- */

#include "gpu/kernels_linalg.h"

/* ---- scores ------------------------------------------------------------ */

/* Block (chunk, pair): per block m, S and E of both sides and |a - b| (no barrier). */
SQ_KERNEL_BEGIN(entropy, 256)
{
    if (SQ_BY >= ka.npairs)
        return;
    const SQ_GLOBAL SqGpuPair *pr = SQ_GK_PTR(const SqGpuPair, ka.pairs) + SQ_BY;
    const SQ_GLOBAL SqGpuPlan *pl = sq_gk_plan(arena, &ka, pr->plan);
    const int n = pl->d.n, nb = pl->d.nb, lo = SQ_BX * SQ_GK_CHUNK, hi = SQ_GK_END(lo, nb);
    SQ_GLOBAL float *terms = SQ_GK_PTR(float, pr->terms);
    const float base = sq_pool_base(n, pl->sigma_nn, pl->nn_floor);
    for (int m = lo + SQ_TID; m < hi; m += SQ_NTH) {
        float e[2], s[2];
        for (int side = 0; side < 2; side++) {
            const SQ_GLOBAL SqGpuSide *sd = sq_gk_side(arena, &ka, 2 * SQ_BY + side);
            const SQ_GLOBAL float *lambda = SQ_GK_PTR(const float, sd->scratch + pl->lay.lambda);
            const SQ_GLOBAL float *y = SQ_GK_PTR(const float, sd->scratch + pl->lay.y);
            SQ_GLOBAL float *x = SQ_GK_PTR(float, sd->scratch + pl->lay.x);
            if (sq_gk_singular(SQ_GK_PTR(const int32_t, sd->scratch + pl->lay.flags), lambda, n))
                for (int k = 0; k < n; k++)
                    x[(int64_t)k * nb + m] = 0.0f; /* column m is this thread's */
            s[side] = sq_block_variance(x, y, n, nb, m);
            e[side] = sq_block_entropy(lambda, n, s[side], pl->sigma_nn);
        }
        terms[m] = sq_pool_term(e[0], s[0], e[1], s[1], base, pr->wvm);
    }
}

/* Thread per pair: sq_pool's ordered sum of the entropy kernel's terms, then the singular rule. */
SQ_KERNEL_BEGIN(pool, 256)
{
    const int lo = SQ_BX * SQ_GK_CHUNK, hi = SQ_GK_END(lo, ka.npairs);
    for (int i = lo + SQ_TID; i < hi; i += SQ_NTH) {
        const SQ_GLOBAL SqGpuPair *pr = SQ_GK_PTR(const SqGpuPair, ka.pairs) + i;
        const SQ_GLOBAL SqGpuPlan *pl = sq_gk_plan(arena, &ka, pr->plan);
        const int n = pl->d.n, nb = pl->d.nb;
        const float pooled =
            sq_pool_mean(SQ_GK_PTR(const float, pr->terms), 0, 0, 0, 0, nb, 0.0f, 0);
        int err[2];
        for (int side = 0; side < 2; side++) {
            const SQ_GLOBAL SqGpuSide *sd = sq_gk_side(arena, &ka, 2 * i + side);
            err[side] = sq_gk_singular(SQ_GK_PTR(const int32_t, sd->scratch + pl->lay.flags),
                                       SQ_GK_PTR(const float, sd->scratch + pl->lay.lambda), n);
        }
        SQ_GLOBAL SqGpuResult *res = SQ_GK_PTR(SqGpuResult, ka.results) + i;
        res->score = sq_side_score(err[0], err[1], pooled);
        res->err = err[0] || err[1];
    }
}

#define SQ_GK_SUM_W 16

/* Block-wide sums of part[k * SQ_GK_MAXTH + tid] into part[k * SQ_GK_MAXTH], k < n. */
SQ_DFN void sq_gk_sum_n(SQ_SHARED_PTR uint64_t *part, int n)
{
    /* in two levels of SQ_GK_SUM_W (integers, wrapping u64, add up alike in any order):
     * item t < SQ_GK_SUM_W adds the entries t + m SQ_GK_SUM_W into its own, then item
     * k < n adds the first SQ_GK_SUM_W of row k (no barrier inside a loop) */
    SQ_SYNC();
    for (int k = 0; k < n && SQ_TID < SQ_GK_SUM_W; k++)
        for (int t = SQ_TID + SQ_GK_SUM_W; t < SQ_NTH; t += SQ_GK_SUM_W)
            part[k * SQ_GK_MAXTH + SQ_TID] += part[k * SQ_GK_MAXTH + t];
    SQ_SYNC();
    for (int k = SQ_TID; k < n; k += SQ_NTH)
        for (int t = 1; t < SQ_GK_SUM_W && t < SQ_NTH; t++)
            part[k * SQ_GK_MAXTH] += part[k * SQ_GK_MAXTH + t];
    SQ_SYNC();
}

/* ---- libvmaf's integer motion, ADM, VIF, CAMBI (gpu/kernels_*.h) -------- */

#include "gpu/kernels_motion.h"
#include "gpu/kernels_adm.h"
#include "gpu/kernels_vif.h"
#include "gpu/kernels_cambi.h"
