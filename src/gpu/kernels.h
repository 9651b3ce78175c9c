/*
 * The SpEED GPU kernels, written once for CUDA, HIP and the host emulator
 * of the tests. The includer defines:
 *   SQ_KERNEL_BEGIN(name, threads)  kernel signature taking (arena, SqKArgs ka)
 *   SQ_TID, SQ_NTH, SQ_BX, SQ_BY    thread index, threads per block, block index
 *   SQ_SYNC()                       block barrier
 *   SQ_SHARED                       block-shared storage qualifier
 *   SQ_DFN                          device helper qualifier
 *
 * Every loop over work items is `for (i = lo + tid; i < hi; i += nth)` and
 * nothing lives in a thread's registers across a barrier, so a block of any
 * size (1 thread in the emulator, 64-wide waves on AMD) computes the same
 * values. All float arithmetic is the math core's per-entry functions; the
 * serial glue between them reproduces the math core's step order exactly
 * (sq_tridiag, sq_eigenvalues, sq_qr_solve, sq_est_params, sq_pool).
 */
#include "gpu/gpu.h"
#include "math/cov.h"
#include "math/eigen.h"
#include "math/filter.h"
#include "math/prescale.h"
#include "math/score.h"
#include "math/solve.h"

/* Work items per block of the element-wise kernels (independent of SQ_NTH). */
#define SQ_GK_CHUNK 256
#define SQ_GK_PTR(T, off) ((T *)(arena + (off)))

SQ_DFN const SqGpuSide *sq_gk_side(unsigned char *arena, const SqKArgs *ka, int i)
{
    return SQ_GK_PTR(const SqGpuSide, ka->sides) + i;
}

SQ_DFN const SqGpuPlan *sq_gk_plan(unsigned char *arena, const SqKArgs *ka, int i)
{
    return SQ_GK_PTR(const SqGpuPlan, ka->plans) + i;
}

/* sq_est_params' rule: singular when the solve failed or any eigenvalue < 1e-6. */
SQ_DFN int sq_gk_singular(const int32_t *flags, const float *lambda, int n)
{
    int regular = 1;
    for (int i = 0; i < n; i++)
        if ((double)lambda[i] < 1e-6)
            regular = 0;
    return !regular || flags[0];
}

/* ---- prescale path: converted plane, then resampled plane -------------- */

SQ_KERNEL_BEGIN(convert, 256)
{
    if (SQ_BY >= ka.nsides)
        return;
    const SqGpuSide *sd = sq_gk_side(arena, &ka, SQ_BY);
    const SqGpuPlan *pl = sq_gk_plan(arena, &ka, sd->plan);
    if (pl->prescale < 0)
        return;
    const int w = pl->d.w;
    const int64_t total = (int64_t)w * pl->d.h, lo = (int64_t)SQ_BX * SQ_GK_CHUNK;
    const int64_t hi = lo + SQ_GK_CHUNK < total ? lo + SQ_GK_CHUNK : total;
    const uint8_t *cur = arena + sd->cur;
    const uint8_t *prev = sd->prev >= 0 ? arena + sd->prev : 0;
    float *conv = SQ_GK_PTR(float, sd->scratch + pl->lay.conv);
    for (int64_t t = lo + SQ_TID; t < hi; t += SQ_NTH)
        conv[t] = sq_src_at(cur, sd->cur_stride, prev, sd->prev_stride, sd->hbd, sd->scale,
                            (int)(t / w), (int)(t % w));
}

SQ_KERNEL_BEGIN(prescale, 256)
{
    if (SQ_BY >= ka.nsides)
        return;
    const SqGpuSide *sd = sq_gk_side(arena, &ka, SQ_BY);
    const SqGpuPlan *pl = sq_gk_plan(arena, &ka, sd->plan);
    if (pl->prescale < 0)
        return;
    const int sw = pl->d.scaled_w;
    const int64_t total = (int64_t)sw * pl->d.scaled_h, lo = (int64_t)SQ_BX * SQ_GK_CHUNK;
    const int64_t hi = lo + SQ_GK_CHUNK < total ? lo + SQ_GK_CHUNK : total;
    const float *conv = SQ_GK_PTR(const float, sd->scratch + pl->lay.conv);
    float *scaled = SQ_GK_PTR(float, sd->scratch + pl->lay.scaled);
    const int32_t *iy = SQ_GK_PTR(const int32_t, pl->ps_iy), *ix = SQ_GK_PTR(const int32_t, pl->ps_ix);
    const float *wy = SQ_GK_PTR(const float, pl->ps_wy), *wx = SQ_GK_PTR(const float, pl->ps_wx);
    for (int64_t t = lo + SQ_TID; t < hi; t += SQ_NTH) {
        const int y = (int)(t / sw), x = (int)(t % sw);
        scaled[t] = sq_prescale_at(conv, pl->d.w, pl->prescale, iy + y * SQ_PS_TAPS,
                                   wy + y * SQ_PS_TAPS, ix + x * SQ_PS_TAPS, wx + x * SQ_PS_TAPS);
    }
}

/* ---- operating image: block (i, side) = op row i ----------------------- */

SQ_KERNEL_BEGIN(opimg, 256)
{
    if (SQ_BY >= ka.nsides)
        return;
    const SqGpuSide *sd = sq_gk_side(arena, &ka, SQ_BY);
    const SqGpuPlan *pl = sq_gk_plan(arena, &ka, sd->plan);
    const SqDims *d = &pl->d;
    const int i = SQ_BX;
    if (i >= d->op_h)
        return;
    const int sw = d->scaled_w, sh = d->scaled_h, row = i << SQ_DECIM_SHIFT;
    float *vrow = SQ_GK_PTR(float, sd->scratch + pl->lay.vrow) + (int64_t)i * sw;
    if (pl->prescale >= 0) {
        const float *scaled = SQ_GK_PTR(const float, sd->scratch + pl->lay.scaled);
        for (int c = SQ_TID; c < sw; c += SQ_NTH)
            vrow[c] = sq_vfilter_f32(scaled, sw, sh, pl->ga, pl->taps_a, row, c);
    } else {
        const uint8_t *cur = arena + sq_gpu_run_base(sd->cur, sd->cur_stride, sd->cur_runs, i);
        const uint8_t *prev = sd->prev >= 0
            ? arena + sq_gpu_run_base(sd->prev, sd->prev_stride, sd->prev_runs, i) : 0;
        for (int c = SQ_TID; c < sw; c += SQ_NTH)
            vrow[c] = sq_vfilter_raw(cur, sd->cur_stride, prev, sd->prev_stride, sd->hbd,
                                     sd->scale, sh, pl->ga, pl->taps_a, row, c);
    }
    SQ_SYNC();
    float *op = SQ_GK_PTR(float, sd->scratch + pl->lay.op) + (int64_t)i * d->op_w;
    for (int j = SQ_TID; j < d->op_w; j += SQ_NTH)
        op[j] = sq_hfilter_f32(vrow, sw, pl->ga, pl->taps_a, j << SQ_DECIM_SHIFT);
}

SQ_KERNEL_BEGIN(localmean, 256)
{
    if (SQ_BY >= ka.nsides)
        return;
    const SqGpuSide *sd = sq_gk_side(arena, &ka, SQ_BY);
    const SqGpuPlan *pl = sq_gk_plan(arena, &ka, sd->plan);
    const SqDims *d = &pl->d;
    const int i = SQ_BX, ow = d->op_w;
    if (i >= d->op_h)
        return;
    const float *op = SQ_GK_PTR(const float, sd->scratch + pl->lay.op);
    float *mrow = SQ_GK_PTR(float, sd->scratch + pl->lay.mrow) + (int64_t)i * ow;
    float *dimg = SQ_GK_PTR(float, sd->scratch + pl->lay.dimg) + (int64_t)i * ow;
    for (int j = SQ_TID; j < ow; j += SQ_NTH)
        mrow[j] = sq_vfilter_f32(op, ow, d->op_h, pl->gm, pl->taps_m, i, j);
    SQ_SYNC();
    for (int j = SQ_TID; j < ow; j += SQ_NTH)
        dimg[j] = sq_local_mean_at(mrow, ow, op + (int64_t)i * ow, pl->gm, pl->taps_m, j);
}

/* ---- covariance -------------------------------------------------------- */

/* Block (chunk, side): SQ_GK_CHUNK of the trunc_h x (nlags + 1) prefix sequences. */
SQ_KERNEL_BEGIN(covrows, 256)
{
    if (SQ_BY >= ka.nsides)
        return;
    const SqGpuSide *sd = sq_gk_side(arena, &ka, SQ_BY);
    const SqGpuPlan *pl = sq_gk_plan(arena, &ka, sd->plan);
    const SqDims *d = &pl->d;
    const int b = d->b, nseq = sq_cov_nlags(b) + 1;
    const int64_t rd = sq_cov_row_doubles(b);
    const int total = d->trunc_h * nseq, lo = SQ_BX * SQ_GK_CHUNK;
    const int hi = lo + SQ_GK_CHUNK < total ? lo + SQ_GK_CHUNK : total;
    const float *dimg = SQ_GK_PTR(const float, sd->scratch + pl->lay.dimg);
    double *rows = SQ_GK_PTR(double, sd->scratch + pl->lay.rows);
    for (int t = lo + SQ_TID; t < hi; t += SQ_NTH) {
        const int y = t / nseq, lag = t % nseq;
        sq_cov_row_lag(dimg, d->op_w, d->trunc_w, d->trunc_h, b, d->sub_w, y, lag,
                       rows + y * rd + lag * 2 * b);
    }
}

/* Block per side: the n window sums of the plain sum, then K, then Y. */
SQ_KERNEL_BEGIN(covk, 256)
{
    SQ_SHARED double sx[SQ_GPU_NMAX];
    SQ_SHARED float mean[SQ_GPU_NMAX];
    if (SQ_BX >= ka.nsides)
        return;
    const SqGpuSide *sd = sq_gk_side(arena, &ka, SQ_BX);
    const SqGpuPlan *pl = sq_gk_plan(arena, &ka, sd->plan);
    const SqDims *d = &pl->d;
    const int b = d->b, n = d->n, nb = d->nb, nlags = sq_cov_nlags(b);
    const int64_t rd = sq_cov_row_doubles(b);
    const double *rows = SQ_GK_PTR(const double, sd->scratch + pl->lay.rows);
    for (int p = SQ_TID; p < n; p += SQ_NTH) {
        sx[p] = sq_cov_window_sum(rows, rd, b, d->sub_h, nlags, p / b, p % b);
        mean[p] = sq_cov_mean(sx[p], d->npatch);
    }
    SQ_SYNC();
    float *k = SQ_GK_PTR(float, sd->scratch + pl->lay.k);
    for (int t = SQ_TID; t < n * n; t += SQ_NTH) {
        /* (p, q) and (q, p) both evaluate the pair with q <= p. */
        const int p = t / n > t % n ? t / n : t % n, q = t / n > t % n ? t % n : t / n;
        int r0, c0;
        const int seq = sq_cov_pair_seq(b, p, q, &r0, &c0);
        const double sxy = sq_cov_window_sum(rows, rd, b, d->sub_h, seq, r0, c0);
        k[t] = sq_cov_entry(sxy, sx[p], sx[q], mean[p], mean[q], d->npatch);
    }
    const float *dimg = SQ_GK_PTR(const float, sd->scratch + pl->lay.dimg);
    float *y = SQ_GK_PTR(float, sd->scratch + pl->lay.y);
    for (int t = SQ_TID; t < n * nb; t += SQ_NTH)
        y[t] = sq_block_sample(dimg, d->op_w, b, d->nbh, t / nb, t % nb);
}

/* ---- eigenvalues (sq_eigenvalues, tridiagonal update across threads) ---- */

SQ_DFN void sq_gk_eigen(const float *kmat, int n, float *lambda, int32_t *flags, float *a,
                        float *dd, float *ee, float *v, float *x, float *sc)
{
    const int tid = SQ_TID, nth = SQ_NTH;
    if (n == 1) {
        if (tid == 0) {
            lambda[0] = kmat[0];
            flags[1] = 0;
        }
        return;
    }
    for (int t = tid; t < n * n; t += nth)
        a[t] = kmat[t];
    SQ_SYNC();
    /* sq_tridiag, step i */
    for (int i = 0; i + 2 < n; i++) {
        if (tid == 0) {
            float ss = 0.0f;
            for (int r = i + 2; r < n; r++) {
                float sq = a[r * n + i] * a[r * n + i];
                ss = ss + sq;
            }
            const float xnorm = sq_sqrtf_d(ss);
            float tau = 0.0f, s = 0.0f, beta = 0.0f;
            if (xnorm != 0.0f) {
                const float alpha = a[(i + 1) * n + i];
                beta = -sq_sgnf(alpha) * sq_hypf(alpha, xnorm);
                tau = (beta - alpha) / beta;
                s = alpha - beta;
            }
            sc[0] = tau;
            sc[1] = s;
            sc[2] = beta;
            sc[3] = xnorm != 0.0f && s != 0.0f ? 1.0f : 0.0f;
        }
        SQ_SYNC();
        const float tau = sc[0], s = sc[1];
        if (sc[3] != 0.0f) {
            /* row i + 1 would be divided too, but beta overwrites it */
            for (int r = i + 2 + tid; r < n; r += nth)
                a[r * n + i] = a[r * n + i] / s;
            if (tid == 0)
                a[(i + 1) * n + i] = sc[2];
        }
        SQ_SYNC();
        for (int r = i + 1 + tid; r < n; r += nth)
            v[r] = r == i + 1 ? 1.0f : a[r * n + i];
        SQ_SYNC();
        if (tau != 0.0f) {
            for (int r = i + 1 + tid; r < n; r += nth)
                x[r] = sq_tridiag_x(a, n, i, tau, v, r);
            SQ_SYNC();
            if (tid == 0) {
                float w = 0.0f;
                for (int r = i + 1; r < n; r++) {
                    float prod = x[r] * v[r];
                    w = w + prod;
                }
                sc[4] = (float)(-0.5 * (double)tau * (double)w);
            }
            SQ_SYNC();
            const float gamma = sc[4];
            for (int r = i + 1 + tid; r < n; r += nth) {
                float gv = gamma * v[r];
                x[r] = x[r] + gv;
            }
            SQ_SYNC();
            const int m = n - i - 1;
            for (int t = tid; t < m * m; t += nth) {
                const int r = i + 1 + t / m, c = i + 1 + t % m;
                float t1 = x[r] * v[c], t2 = v[r] * x[c];
                a[r * n + c] = a[r * n + c] - (t1 + t2);
            }
            SQ_SYNC();
        }
    }
    for (int k = tid; k < n; k += nth) {
        dd[k] = a[k * n + k];
        if (k + 1 < n)
            ee[k] = a[(k + 1) * n + k];
    }
    SQ_SYNC();
    if (tid == 0) {
        /* the serial implicit QR iteration of sq_eigenvalues */
        sq_eigen_chop(dd, ee, n);
        int b = n - 1, iter = 0;
        while (b > 0 && iter < SQ_EIGEN_MAX_ITER) {
            if (ee[b - 1] == 0.0f) {
                b--;
                continue;
            }
            int a0 = b - 1;
            while (a0 > 0 && ee[a0 - 1] != 0.0f)
                a0--;
            sq_qr_step(dd + a0, ee + a0, b - a0 + 1);
            sq_eigen_chop(dd + a0, ee + a0, b - a0 + 1);
            iter++;
        }
        for (int i = 0; i < n; i++)
            lambda[i] = dd[i];
        flags[1] = b > 0;
    }
}

/* ---- K X = Y (sq_qr_solve, every product entry on its own thread) ------- */

SQ_DFN void sq_gk_solve(const float *kmat, int n, const float *y, float *bm, int nb,
                        int32_t *flags, float *sm, float *sc)
{
    const int tid = SQ_TID, nth = SQ_NTH, nn = n * n;
    float *a = sm, *z = a + nn, *p = z + nn, *h = p + nn, *t1 = h + nn, *t2 = t1 + nn;
    float *u = t2 + nn;
    for (int t = tid; t < nn; t += nth) {
        a[t] = kmat[t];
        z[t] = kmat[t];
        p[t] = t / n == t % n ? 1.0f : 0.0f;
    }
    SQ_SYNC();
    for (int k = 0; k + 1 < n; k++) {
        for (int t = tid; t < nn; t += nth) {
            const int r = t / n, c = t % n;
            if (r < k || c < k)
                z[t] = r == c ? 1.0f : 0.0f;
        }
        SQ_SYNC();
        if (tid == 0)
            sq_householder_vec(z, kmat, n, k, u);
        SQ_SYNC();
        for (int t = tid; t < nn; t += nth)
            h[t] = sq_householder_entry(u, t / n, t % n);
        SQ_SYNC();
        for (int t = tid; t < 2 * nn; t += nth) {
            if (t < nn)
                t1[t] = sq_matmul_entry(h, n, z, n, t / n, t % n);
            else
                t2[t - nn] = sq_matmul_entry(h, n, p, n, (t - nn) / n, (t - nn) % n);
        }
        SQ_SYNC();
        float *tz = z, *tp = p;
        z = t1;
        p = t2;
        t1 = tz;
        t2 = tp;
    }
    for (int t = tid; t < nn; t += nth)
        h[t] = sq_matmul_entry(p, n, a, n, t / n, t % n); /* R */
    for (int t = tid; t < n * nb; t += nth)
        bm[t] = sq_matmul_entry(p, n, y, nb, t / nb, t % nb);
    SQ_SYNC();
    if (tid == 0) {
        int fail = 0;
        for (int i = n - 1; i >= 0; i--)
            if (sq_fabs(h[i * n + i]) < SQ_SOLVE_EPS)
                fail = 1;
        flags[0] = fail;
        sc[5] = (float)fail;
    }
    SQ_SYNC();
    if (sc[5] != 0.0f)
        return;
    /* Column j only reads column j: one thread runs all rows of it. */
    for (int j = tid; j < nb; j += nth)
        for (int i = n - 1; i >= 0; i--)
            bm[(int64_t)i * nb + j] = sq_backsub_entry(h, n, bm, nb, i, j, bm[(int64_t)i * nb + j]);
}

/* Grid (side, 2): y = 0 eigenvalues, y = 1 solve; both only read K and Y. */
SQ_KERNEL_BEGIN(eigsolve, 256)
{
    SQ_SHARED float sm[6 * SQ_GPU_NMAX * SQ_GPU_NMAX + SQ_GPU_NMAX];
    SQ_SHARED float sc[8];
    if (SQ_BX >= ka.nsides)
        return;
    const SqGpuSide *sd = sq_gk_side(arena, &ka, SQ_BX);
    const SqGpuPlan *pl = sq_gk_plan(arena, &ka, sd->plan);
    const int n = pl->d.n, nn = n * n;
    const int64_t base = sd->scratch;
    const float *k = SQ_GK_PTR(const float, base + pl->lay.k);
    int32_t *flags = SQ_GK_PTR(int32_t, base + pl->lay.flags);
    if (SQ_BY == 0)
        sq_gk_eigen(k, n, SQ_GK_PTR(float, base + pl->lay.lambda), flags, sm, sm + nn,
                    sm + nn + n, sm + nn + 2 * n, sm + nn + 3 * n, sc);
    else
        sq_gk_solve(k, n, SQ_GK_PTR(const float, base + pl->lay.y),
                    SQ_GK_PTR(float, base + pl->lay.x), pl->d.nb, flags, sm, sc);
}

/* ---- scores ------------------------------------------------------------ */

/* Block (chunk, pair): per block m, S and E of both sides and |a - b|. */
SQ_KERNEL_BEGIN(entropy, 256)
{
    if (SQ_BY >= ka.npairs)
        return;
    const SqGpuPair *pr = SQ_GK_PTR(const SqGpuPair, ka.pairs) + SQ_BY;
    const SqGpuPlan *pl = sq_gk_plan(arena, &ka, pr->plan);
    const int n = pl->d.n, nb = pl->d.nb, lo = SQ_BX * SQ_GK_CHUNK;
    const int hi = lo + SQ_GK_CHUNK < nb ? lo + SQ_GK_CHUNK : nb;
    float *terms = SQ_GK_PTR(float, pr->terms);
    const float base = sq_pool_base(n, pl->sigma_nn, pl->nn_floor);
    for (int m = lo + SQ_TID; m < hi; m += SQ_NTH) {
        float e[2], s[2];
        for (int side = 0; side < 2; side++) {
            const SqGpuSide *sd = sq_gk_side(arena, &ka, 2 * SQ_BY + side);
            const float *lambda = SQ_GK_PTR(const float, sd->scratch + pl->lay.lambda);
            const float *y = SQ_GK_PTR(const float, sd->scratch + pl->lay.y);
            float *x = SQ_GK_PTR(float, sd->scratch + pl->lay.x);
            if (sq_gk_singular(SQ_GK_PTR(const int32_t, sd->scratch + pl->lay.flags), lambda, n))
                for (int k = 0; k < n; k++)
                    x[(int64_t)k * nb + m] = 0.0f; /* column m is this thread's */
            s[side] = sq_block_variance(x, y, n, nb, m);
            e[side] = sq_block_entropy(lambda, n, s[side], pl->sigma_nn);
        }
        terms[m] = sq_pool_term(e[0], s[0], e[1], s[1], base, pr->wvm);
    }
}

/* Thread per pair: sq_pool's ordered sum, then the singular-side rule. */
SQ_KERNEL_BEGIN(pool, 256)
{
    const int lo = SQ_BX * SQ_GK_CHUNK;
    const int hi = lo + SQ_GK_CHUNK < ka.npairs ? lo + SQ_GK_CHUNK : ka.npairs;
    for (int i = lo + SQ_TID; i < hi; i += SQ_NTH) {
        const SqGpuPair *pr = SQ_GK_PTR(const SqGpuPair, ka.pairs) + i;
        const SqGpuPlan *pl = sq_gk_plan(arena, &ka, pr->plan);
        const int n = pl->d.n, nb = pl->d.nb;
        const float *terms = SQ_GK_PTR(const float, pr->terms);
        float score = 0.0f;
        for (int m = 0; m < nb; m++)
            score = score + terms[m];
        const float pooled = score / (float)nb;
        int err[2];
        for (int side = 0; side < 2; side++) {
            const SqGpuSide *sd = sq_gk_side(arena, &ka, 2 * i + side);
            err[side] = sq_gk_singular(SQ_GK_PTR(const int32_t, sd->scratch + pl->lay.flags),
                                       SQ_GK_PTR(const float, sd->scratch + pl->lay.lambda), n);
        }
        SqGpuResult *res = SQ_GK_PTR(SqGpuResult, ka.results) + i;
        res->score = sq_side_score(err[0], err[1], pooled);
        res->err = err[0] || err[1];
    }
}
