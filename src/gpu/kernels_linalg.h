/*
 * Part of gpu/kernels.h, included from it at this point (after the
 * covariance kernels, before the score kernels): the eigenvalues and the
 * QR solve of each side's K, and the eigsolve kernel that runs both. It
 * relies on everything kernels.h defines before the include (the built-in
 * macros SQ_KERNEL_BEGIN ... SQ_GPU_SHARED_WORK, SQ_GK_PTR, sq_gk_side,
 * sq_gk_plan) and is compiled only through it, by all four compilers.
 */
#ifndef SQ_GK_PTR
#error "gpu/kernels_linalg.h is part of gpu/kernels.h: include that instead"
#endif

/* ---- eigenvalues (sq_eigenvalues, tridiagonal update across threads) ---- */

/*
 * w: a (n x n), d, e, v, x (n each). n == 1 needs no special case (no
 * reflector, no QR step: lambda = k); n == 0 (idle block) writes nothing.
 */
SQ_DFN void sq_gk_eigen(const SQ_GLOBAL float *kmat, int n, SQ_GLOBAL float *lambda,
                        SQ_GLOBAL int32_t *flags, SQ_GLOBAL float *w, SQ_SHARED_PTR float *sc)
{
    const int tid = SQ_TID, nth = SQ_NTH;
    SQ_GLOBAL float *a = w, *dd = a + n * n, *ee = dd + n, *v = ee + n, *x = v + n;
    for (int t = tid; t < n * n; t += nth)
        a[t] = kmat[t];
    SQ_SYNC();
    /* sq_tridiag, step i */
    for (int i = 0; i + 2 < n; i++) {
        if (tid == 0) {
            float tau, s, beta;
            sc[3] = sq_tridiag_reflector(a, n, i, &tau, &s, &beta) ? 1.0f : 0.0f;
            sc[0] = tau;
            sc[1] = s;
            sc[2] = beta;
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
            v[r] = sq_tridiag_v(a, n, i, r);
        SQ_SYNC();
        if (tau != 0.0f) {
            for (int r = i + 1 + tid; r < n; r += nth)
                x[r] = sq_tridiag_x(a, n, i, tau, v, r);
            SQ_SYNC();
            if (tid == 0)
                sc[4] = sq_tridiag_gamma(x, v, n, i, tau);
            SQ_SYNC();
            const float gamma = sc[4];
            for (int r = i + 1 + tid; r < n; r += nth)
                x[r] = sq_tridiag_xg(x, v, gamma, r);
            SQ_SYNC();
            const int m = n - i - 1;
            for (int t = tid; t < m * m; t += nth) {
                const int r = i + 1 + t / m, c = i + 1 + t % m;
                a[r * n + c] = sq_tridiag_rank2(a, n, x, v, r, c);
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
    if (tid == 0 && n > 0) {
        flags[1] = sq_eigen_qr_iterate(dd, ee, n) < 0; /* serial, as in sq_eigenvalues */
        for (int i = 0; i < n; i++)
            lambda[i] = dd[i];
    }
}

/* ---- K X = Y (sq_qr_solve, every product entry on its own thread) ------- */

/* w: a, z, p, h, t1, t2 (n x n each), u (n). n == 0 (idle block) writes nothing. */
SQ_DFN void sq_gk_solve(const SQ_GLOBAL float *kmat, int n, const SQ_GLOBAL float *y,
                        SQ_GLOBAL float *bm, int nb, SQ_GLOBAL int32_t *flags, SQ_GLOBAL float *w,
                        SQ_SHARED_PTR float *sc)
{
    const int tid = SQ_TID, nth = SQ_NTH, nn = n * n;
    SQ_GLOBAL float *a = w, *z = a + nn, *p = z + nn, *h = p + nn, *t1 = h + nn, *t2 = t1 + nn;
    SQ_GLOBAL float *u = t2 + nn;
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
        SQ_GLOBAL float *tz = z, *tp = p;
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
            if (!sq_solve_pivot_ok(h[i * n + i]))
                fail = 1;
        if (n > 0)
            flags[0] = fail;
        sc[5] = (float)fail;
    }
    SQ_SYNC();
    /* Column j only reads column j: one thread runs all rows of it. */
    const int ncols = sc[5] != 0.0f ? 0 : nb;
    for (int j = tid; j < ncols; j += nth)
        for (int i = n - 1; i >= 0; i--)
            bm[(int64_t)i * nb + j] = sq_backsub_entry(h, n, bm, nb, i, j, bm[(int64_t)i * nb + j]);
}

/*
 * Grid (side, 2): y = 0 eigenvalues, y = 1 solve; both only read K and Y.
 * An idle block (side >= nsides) runs with n = 0: no barrier skipped,
 * nothing written.
 */
SQ_KERNEL_BEGIN(eigsolve, 256)
{
#if SQ_GPU_SHARED_WORK
    SQ_SHARED float shm[SQ_GPU_WORK_SOLVE(SQ_GPU_NMAX)]; /* the larger of the two */
#endif
    SQ_SHARED float sc[8];
    const int side_ok = SQ_BX < ka.nsides;
    const SQ_GLOBAL SqGpuSide *sd = sq_gk_side(arena, &ka, side_ok ? SQ_BX : 0);
    const SQ_GLOBAL SqGpuPlan *pl = sq_gk_plan(arena, &ka, sd->plan);
    const int n = side_ok ? pl->d.n : 0;
    const int64_t base = sd->scratch;
    const SQ_GLOBAL float *k = SQ_GK_PTR(const float, base + pl->lay.k);
    SQ_GLOBAL int32_t *flags = SQ_GK_PTR(int32_t, base + pl->lay.flags);
#if SQ_GPU_SHARED_WORK
    SQ_GLOBAL float *w = shm;
#else
    SQ_GLOBAL float *w = SQ_GK_PTR(float, base + pl->lay.work) + (SQ_BY ? SQ_GPU_WORK_EIGEN(n) : 0);
#endif
    if (SQ_BY == 0)
        sq_gk_eigen(k, n, SQ_GK_PTR(float, base + pl->lay.lambda), flags, w, sc);
    else
        sq_gk_solve(k, n, SQ_GK_PTR(const float, base + pl->lay.y),
                    SQ_GK_PTR(float, base + pl->lay.x), pl->d.nb, flags, w, sc);
}
