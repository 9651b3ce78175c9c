/*
 * Eigen / solve / score kernels, plus the composite solvers of cpu.c
 * (structured QR, eigenvalues) against the math core's sq_qr_solve and
 * sq_eigenvalues with every table.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkkernel.h"
#include "cpu/cpu.h"
#include "math/dims.h"
#include "math/eigen.h"
#include "math/solve.h"

#define NCASES 200

static int rand_n(void)
{
    return ck_chance(50) ? 25 : ck_irand(1, 32);
}

/* Symmetric n x n: random, positive definite (Gram), diagonal, zero, huge, tiny. */
static void rand_sym(float *k, int n, int kind)
{
    const int m = ck_irand(1, 3 * n + 1);
    float *b = malloc(sizeof(float) * (size_t)n * m);
    for (int i = 0; i < n * m; i++)
        b[i] = ck_frand(-20.0f, 20.0f);
    const float scale = kind == 4 ? 1e17f : kind == 5 ? 1e-20f : 1.0f;
    for (int p = 0; p < n; p++)
        for (int q = 0; q <= p; q++) {
            float v;
            if (kind == 0)
                v = ck_frand(-50.0f, 50.0f);
            else if (kind == 2)
                v = p == q ? ck_frand(-5.0f, 50.0f) : 0.0f;
            else if (kind == 3)
                v = 0.0f;
            else {
                double acc = 0.0;
                for (int i = 0; i < m; i++)
                    acc += (double)b[p * m + i] * b[q * m + i];
                v = (float)(acc / m) * scale + (p == q ? 1e-3f * scale : 0.0f);
            }
            k[p * n + q] = k[q * n + p] = v;
        }
    free(b);
}

static void check_tridiag(const CkCtx *c, const CkLevel *l)
{
    ck_begin("tridiag", l->name);
    for (int t = 0; t < NCASES; t++) {
        const int n = rand_n(), kind = ck_irand(0, 5);
        float *k = malloc(sizeof(float) * 32 * 32), *a = malloc(sizeof(float) * 32 * 32);
        float *b = malloc(sizeof(float) * 32 * 32), wa[128], wb[128];
        rand_sym(k, n, kind);
        memcpy(a, k, sizeof(float) * (size_t)n * n);
        memcpy(b, k, sizeof(float) * (size_t)n * n);
        float da[32] = { 0 }, db[32] = { 0 }, ea[32] = { 0 }, eb[32] = { 0 };
        c->ref.tridiag(a, n, da, ea, wa);
        l->dsp.tridiag(b, n, db, eb, wb);
        if (ck_cmp_f32("a", a, b, (size_t)n * n) || ck_cmp_f32("d", da, db, (size_t)n) ||
            ck_cmp_f32("e", ea, eb, (size_t)n))
            ck_fail("n %d kind %d", n, kind);
        free(k);
        free(a);
        free(b);
    }
    ck_end();
}

static void check_matmul(const CkCtx *c, const CkLevel *l)
{
    ck_begin("matmul", l->name);
    for (int t = 0; t < NCASES; t++) {
        const int rows = ck_irand(1, 30), cols = ck_chance(30) ? ck_irand(1, 9) : ck_irand(1, 400);
        const int depth = ck_irand(1, 30);
        const int ldl = depth + ck_irand(0, 3), ldr = cols + ck_irand(0, 3), ldo = cols + ck_irand(0, 3);
        float *lm = malloc(sizeof(float) * (size_t)rows * ldl);
        float *rm = malloc(sizeof(float) * (size_t)depth * ldr);
        const size_t no = (size_t)rows * ldo;
        float *a = malloc(sizeof(float) * no), *b = malloc(sizeof(float) * no);
        for (int i = 0; i < rows * ldl; i++)
            lm[i] = ck_chance(10) ? 0.0f : ck_frand(-2.0f, 2.0f);
        for (int i = 0; i < depth * ldr; i++)
            rm[i] = ck_chance(10) ? -0.0f : ck_frand(-100.0f, 100.0f);
        for (size_t i = 0; i < no; i++)
            a[i] = b[i] = NAN;
        c->ref.matmul(a, ldo, lm, ldl, rm, ldr, rows, cols, depth);
        l->dsp.matmul(b, ldo, lm, ldl, rm, ldr, rows, cols, depth);
        if (ck_cmp_f32("out", a, b, no))
            ck_fail("rows %d cols %d depth %d", rows, cols, depth);
        free(lm);
        free(rm);
        free(a);
        free(b);
    }
    ck_end();
}

/* Up to three column bands [0, c0), [c0, c1), [c1, nb), random, some empty. */
static void rand_bands(int nb, int *c0, int *c1)
{
    *c0 = ck_irand(0, nb);
    *c1 = ck_irand(*c0, nb);
}

static void check_backsub(const CkCtx *c, const CkLevel *l)
{
    ck_begin("backsub", l->name);
    for (int t = 0; t < NCASES; t++) {
        const int n = rand_n(), nb = ck_chance(30) ? ck_irand(1, 9) : ck_irand(1, 700);
        float *r = malloc(sizeof(float) * (size_t)n * n);
        float *a = malloc(sizeof(float) * (size_t)n * nb), *b = malloc(sizeof(float) * (size_t)n * nb);
        float *bb = malloc(sizeof(float) * (size_t)n * nb);
        for (int i = 0; i < n * n; i++)
            r[i] = ck_frand(-3.0f, 3.0f);
        for (int i = 0; i < n; i++)
            r[i * n + i] = (ck_chance(50) ? -1.0f : 1.0f) * ck_frand(0.01f, 40.0f);
        for (int i = 0; i < n * nb; i++)
            a[i] = b[i] = bb[i] = ck_frand(-200.0f, 200.0f);
        c->ref.backsub(a, nb, r, n, nb);
        l->dsp.backsub(b, nb, r, n, nb);
        if (ck_cmp_f32("x", a, b, (size_t)n * nb))
            ck_fail("n %d nb %d", n, nb);
        /* in column bands (a lone frame's solve split over threads): the same bits */
        int c0, c1;
        rand_bands(nb, &c0, &c1);
        l->dsp.backsub(bb, nb, r, n, c0);
        l->dsp.backsub(bb + c0, nb, r, n, c1 - c0);
        l->dsp.backsub(bb + c1, nb, r, n, nb - c1);
        if (ck_cmp_f32("x bands", a, bb, (size_t)n * nb))
            ck_fail("n %d nb %d bands at %d, %d", n, nb, c0, c1);
        free(r);
        free(a);
        free(b);
        free(bb);
    }
    ck_end();
}

static void check_block_rows(const CkCtx *c, const CkLevel *l)
{
    ck_begin("block_rows", l->name);
    for (int t = 0; t < NCASES; t++) {
        const int nbh = ck_irand(1, 70), nbv = ck_irand(1, 20);
        const int op_w = 5 * nbh + ck_irand(0, 12), h = 5 * nbv + ck_irand(0, 4);
        const int nb = nbh * nbv;
        float *img = malloc(sizeof(float) * (size_t)op_w * h);
        float *a = malloc(sizeof(float) * 25 * (size_t)nb), *b = malloc(sizeof(float) * 25 * (size_t)nb);
        for (int i = 0; i < op_w * h; i++)
            img[i] = ck_frand(-100.0f, 100.0f);
        c->ref.block_rows(a, img, op_w, nbh, nbv);
        l->dsp.block_rows(b, img, op_w, nbh, nbv);
        if (ck_cmp_f32("y", a, b, 25 * (size_t)nb))
            ck_fail("op_w %d nbh %d nbv %d", op_w, nbh, nbv);
        free(img);
        free(a);
        free(b);
    }
    ck_end();
}

/* An s of the pooling: ordinary, or (special) sometimes what makes 1 + s special. */
static float pool_s(int special)
{
    switch (special ? ck_irand(0, 12) : 12) {
    case 0: return -1.0f;                 /* log2(0) */
    case 1: return ck_frand(-3.0f, -1.0f); /* log2 of a negative */
    case 2: return 0.0f;
    case 3: return ck_frand(1e30f, 3e38f);
    case 4: return -1.0f + 1e-7f;
    default: return ck_frand(-0.9f, 500.0f);
    }
}

static void check_pool_terms(const CkCtx *c, const CkLevel *l)
{
    ck_begin("pool_terms", l->name);
    for (int t = 0; t < NCASES; t++) {
        const int nb = ck_irand(1, 400), wvm = ck_chance(50) ? 0 : ck_irand(0, 6);
        const float base = ck_frand(-50.0f, 50.0f);
        float *er = malloc(sizeof(float) * 4 * (size_t)nb), *a = malloc(sizeof(float) * 2 * (size_t)nb);
        float *sr = er + nb, *ed = sr + nb, *sd = ed + nb, *b = a + nb;
        const int cold = ck_chance(30), special = ck_chance(50); /* cold: most blocks below base */
        for (int m = 0; m < nb; m++) {
            er[m] = ck_frand(-60.0f, cold ? base + 1.0f : 60.0f);
            ed[m] = ck_frand(-60.0f, cold ? base + 1.0f : 60.0f);
            sr[m] = pool_s(special && ck_chance(10));
            sd[m] = pool_s(special && ck_chance(10));
        }
        c->ref.pool_terms(a, er, sr, ed, sd, nb, base, wvm);
        l->dsp.pool_terms(b, er, sr, ed, sd, nb, base, wvm);
        if (ck_cmp_f32("terms", a, b, (size_t)nb))
            ck_fail("nb %d wvm %d base %g", nb, wvm, (double)base);
        free(er);
        free(a);
    }
    ck_end();
}

static void check_block_var(const CkCtx *c, const CkLevel *l)
{
    ck_begin("block_var", l->name);
    for (int t = 0; t < NCASES; t++) {
        const int n = rand_n(), nb = ck_chance(30) ? ck_irand(1, 9) : ck_irand(1, 1300);
        float *x = malloc(sizeof(float) * (size_t)n * nb), *y = malloc(sizeof(float) * (size_t)n * nb);
        float *a = malloc(sizeof(float) * (size_t)(nb + 8)), *b = malloc(sizeof(float) * (size_t)(nb + 8));
        float *bb = malloc(sizeof(float) * (size_t)(nb + 8));
        const int zero = ck_chance(10);
        for (int i = 0; i < n * nb; i++) {
            x[i] = zero ? 0.0f : ck_frand(-5.0f, 5.0f);
            y[i] = ck_frand(-128.0f, 128.0f);
        }
        for (int i = 0; i < nb + 8; i++)
            a[i] = b[i] = bb[i] = NAN;
        c->ref.block_var(a, x, y, nb, n, nb);
        l->dsp.block_var(b, x, y, nb, n, nb);
        if (ck_cmp_f32("s", a, b, (size_t)nb + 8))
            ck_fail("n %d nb %d", n, nb);
        int c0, c1;
        rand_bands(nb, &c0, &c1);
        l->dsp.block_var(bb, x, y, nb, n, c0);
        l->dsp.block_var(bb + c0, x + c0, y + c0, nb, n, c1 - c0);
        l->dsp.block_var(bb + c1, x + c1, y + c1, nb, n, nb - c1);
        if (ck_cmp_f32("s bands", a, bb, (size_t)nb + 8))
            ck_fail("n %d nb %d bands at %d, %d", n, nb, c0, c1);
        free(x);
        free(y);
        free(a);
        free(b);
        free(bb);
    }
    ck_end();
}

static float rand_var(void)
{
    switch (ck_irand(0, 7)) {
    case 0: return 0.0f;
    case 1: return -ck_frand(0.0f, 1.0f);          /* negative: log2 of <= 0 */
    case 2: return ck_frand(0.0f, 1e-30f);
    case 3: return ck_frand(1e3f, 1e30f);
    default: return ck_frand(0.0f, 50.0f);
    }
}

static void check_entropy(const CkCtx *c, const CkLevel *l)
{
    ck_begin("entropy", l->name);
    for (int t = 0; t < NCASES; t++) {
        const int n = rand_n(), nb = ck_chance(30) ? ck_irand(1, 9) : ck_irand(1, 1300);
        float lam[32], *s = malloc(sizeof(float) * (size_t)nb);
        float *a = malloc(sizeof(float) * (size_t)(nb + 8)), *b = malloc(sizeof(float) * (size_t)(nb + 8));
        for (int k = 0; k < n; k++)
            lam[k] = ck_chance(10) ? -ck_frand(0.0f, 1.0f) : ck_chance(5) ? 0.0f : ck_frand(0.0f, 60.0f);
        for (int m = 0; m < nb; m++)
            s[m] = ck_chance(80) ? ck_frand(0.0f, 20.0f) : rand_var();
        const float sigma = ck_chance(10) ? 0.0f : ck_frand(0.1f, 2.0f);
        for (int i = 0; i < nb + 8; i++)
            a[i] = b[i] = NAN;
        c->ref.entropy(a, lam, n, s, nb, sigma);
        l->dsp.entropy(b, lam, n, s, nb, sigma);
        if (ck_cmp_f32("e", a, b, (size_t)nb + 8))
            ck_fail("n %d nb %d sigma %g", n, nb, (double)sigma);
        free(s);
        free(a);
        free(b);
    }
    ck_end();
}

static int same_f32(const float *a, const float *b, size_t n)
{
    return !memcmp(a, b, n * sizeof(float));
}

/* cpu.c's solvers with this table against the math core. */
static void check_solvers(const CkLevel *l, const char *lname, const SqDsp *d)
{
    ck_begin("qr_solve", lname);
    for (int t = 0; t < NCASES; t++) {
        const int n = rand_n(), nb = ck_irand(1, 350), kind = ck_irand(0, 6);
        float *k = malloc(sizeof(float) * (size_t)n * n), *y = malloc(sizeof(float) * (size_t)n * nb);
        if (kind == 6) /* not symmetric at all */
            for (int i = 0; i < n * n; i++)
                k[i] = ck_frand(-10.0f, 10.0f);
        else
            rand_sym(k, n, kind);
        for (int i = 0; i < n * nb; i++)
            y[i] = ck_frand(-100.0f, 100.0f);
        const size_t ws = (size_t)sq_solve_ws_floats(n, nb);
        float *wa = calloc(ws, sizeof(float)), *wb = calloc(ws, sizeof(float));
        const int ra = sq_qr_solve(k, n, y, nb, wa);
        const int rb = sq_cpu_qr_solve(d, k, n, y, nb, wb);
        const size_t off = 5 * (size_t)n * n;
        if (ra != rb || (!ra && !same_f32(wa + off, wb + off, (size_t)n * nb))) {
            if (ra == rb)
                ck_cmp_f32("x", wa + off, wb + off, (size_t)n * nb);
            ck_fail("n %d nb %d kind %d: rc %d vs %d", n, nb, kind, ra, rb);
        }
        free(k);
        free(y);
        free(wa);
        free(wb);
    }
    ck_end();
    ck_begin("eigenvalues", lname);
    for (int t = 0; t < NCASES; t++) {
        const int n = rand_n(), kind = ck_irand(0, 5);
        float k[32 * 32], la[32], lb[32], wa[32 * 32 + 128], wb[32 * 32 + 128];
        rand_sym(k, n, kind);
        const int ra = sq_eigenvalues(k, n, la, wa), rb = sq_cpu_eigenvalues(d, k, n, lb, wb);
        if (ra != rb || ck_cmp_f32("lambda", la, lb, (size_t)n))
            ck_fail("n %d kind %d: rc %d vs %d", n, kind, ra, rb);
    }
    ck_end();
    /* Two problems interleaved: each must be its own sq_eigenvalues run,
     * whichever needs more steps or deflates first. */
    ck_begin("eigenvalues2", lname);
    for (int t = 0; t < NCASES; t++) {
        const int n = rand_n(), kind0 = ck_irand(0, 5), kind1 = ck_irand(0, 5);
        static float k[2][32 * 32], la[2][32], lb[2][32], wa[32 * 32 + 128], wb[2][32 * 32 + 128];
        rand_sym(k[0], n, kind0);
        if (ck_chance(10))
            memcpy(k[1], k[0], sizeof(k[0]));
        else
            rand_sym(k[1], n, kind1);
        const float *const kp[2] = { k[0], k[1] };
        float *const lp[2] = { lb[0], lb[1] }, *const wp[2] = { wb[0], wb[1] };
        int rb[2];
        sq_cpu_eigenvalues2(d, kp, n, lp, wp, rb);
        for (int q = 0; q < 2; q++) {
            const int ra = sq_eigenvalues(k[q], n, la[q], wa);
            if (ra != rb[q] || ck_cmp_f32("lambda", la[q], lb[q], (size_t)n))
                ck_fail("n %d kinds %d %d, problem %d: rc %d vs %d", n, kind0, kind1, q, ra, rb[q]);
        }
    }
    ck_end();
    /* Up to 10 problems (past SQ_CPU_EIGEN_WAYS: in groups), of one size,
     * some equal: each its own run. */
    ck_begin("eigenvalues_n", lname);
    for (int t = 0; t < NCASES / 3; t++) {
        const int n = rand_n(), count = ck_irand(1, 10);
        static float k[10][32 * 32], la[32], lb[10][32], wa[32 * 32 + 128], wb[10][32 * 32 + 128];
        const float *kp[10];
        float *lp[10], *wp[10];
        int rb[10], kinds[10];
        for (int q = 0; q < count; q++) {
            kinds[q] = ck_irand(0, 5);
            if (q && ck_chance(10))
                memcpy(k[q], k[q - 1], sizeof(k[0]));
            else
                rand_sym(k[q], n, kinds[q]);
            kp[q] = k[q];
            lp[q] = lb[q];
            wp[q] = wb[q];
        }
        sq_cpu_eigenvalues_n(d, kp, n, lp, wp, rb, count);
        for (int q = 0; q < count; q++) {
            const int ra = sq_eigenvalues(k[q], n, la, wa);
            if (ra != rb[q] || ck_cmp_f32("lambda", la, lb[q], (size_t)n))
                ck_fail("n %d count %d, problem %d kind %d: rc %d vs %d", n, count, q, kinds[q], ra,
                        rb[q]);
        }
    }
    ck_end();
    (void)l;
}

typedef struct BArgs {
    const SqDsp *d;
    float *k, *y, *ws, *a, *x;
    int which;
} BArgs;

static void bench_fn(void *p)
{
    BArgs *b = p;
    float d[32], e[32];
    switch (b->which) {
    case 0: memcpy(b->a, b->k, 625 * sizeof(float)); b->d->tridiag(b->a, 25, d, e, b->ws); break;
    case 1: b->d->matmul(b->a, 25, b->k, 25, b->k + 625, 25, 25, 25, 25); break;
    case 2: b->d->matmul(b->x, 312, b->k, 25, b->y, 312, 25, 312, 25); break;
    case 3: b->d->backsub(b->x, 312, b->k + 625, 25, 312); break;
    case 4: b->d->block_var(b->a, b->x, b->y, 312, 25, 312); break;
    case 5: b->d->entropy(b->a, b->k, 25, b->x, 312, 0.29f); break;
    case 6: sq_cpu_qr_solve(b->d, b->k, 25, b->y, 312, b->ws); break;
    case 7: sq_qr_solve(b->k, 25, b->y, 312, b->ws); break;
    case 8: sq_cpu_eigenvalues(b->d, b->k, 25, d, b->ws); break;
    case 10: { /* two problems, interleaved: per problem, compare with case 8 */
        float d2[32];
        const float *const kp[2] = { b->k, b->a + 1024 };
        float *const lp[2] = { d, d2 }, *const wp[2] = { b->ws, b->ws + 2048 };
        int r2[2];
        sq_cpu_eigenvalues2(b->d, kp, 25, lp, wp, r2);
        break;
    }
    case 11: { /* six problems (a frame's sides): three pairs, or six in one */
        float dd[6][32];
        static float w6[6][1024];
        const float *const kp[6] = { b->k, b->a + 1024, b->k, b->a + 1024, b->k, b->a + 1024 };
        float *const lp[6] = { dd[0], dd[1], dd[2], dd[3], dd[4], dd[5] };
        float *const wp[6] = { w6[0], w6[1], w6[2], w6[3], w6[4], w6[5] };
        int r6[6];
        if (b->x == NULL)
            for (int q = 0; q < 6; q += 2)
                sq_cpu_eigenvalues2(b->d, kp + q, 25, lp + q, wp + q, r6 + q);
        else
            sq_cpu_eigenvalues_n(b->d, kp, 25, lp, wp, r6, 6);
        break;
    }
    default: sq_eigenvalues(b->k, 25, d, b->ws); break;
    }
}

static void bench_linalg(const CkCtx *c, const CkLevel *l)
{
    static const char *const names[] = {
        "tridiag (25)", "matmul (25x25x25)", "matmul (25x25 * 25x312)", "backsub (25, 312)",
        "block_var (25, 312)", "entropy (25, 312)", "qr_solve (25, 312), cpu.c",
        "  qr_solve, math core (C)", "eigenvalues (25), cpu.c", "  eigenvalues, math core (C)" };
    float *k = malloc(sizeof(float) * 1250), *y = malloc(sizeof(float) * 25 * 312);
    float *ws = calloc((size_t)sq_solve_ws_floats(25, 312), sizeof(float));
    float *a = calloc(1024 + 625, sizeof(float)), *x = malloc(sizeof(float) * 25 * 312);
    rand_sym(k, 25, 1);
    rand_sym(a + 1024, 25, 1); /* the second problem of case 10 */
    for (int i = 625; i < 1250; i++)
        k[i] = (i - 625) % 26 == 0 ? 1.0f : ck_frand(-1e-3f, 1e-3f);
    for (int i = 0; i < 25 * 312; i++) {
        y[i] = ck_frand(-50.0f, 50.0f);
        x[i] = ck_frand(0.0f, 3.0f);
    }
    for (int w = 0; w < 10; w++) {
        BArgs bc = { &c->ref, k, y, ws, a, x, w }, bo = { &l->dsp, k, y, ws, a, x, w };
        for (int i = 0; i < 25 * 312; i++)
            x[i] = ck_frand(0.0f, 3.0f);
        const double tc = ck_time(bench_fn, &bc);
        for (int i = 0; i < 25 * 312; i++)
            x[i] = ck_frand(0.0f, 3.0f);
        ck_bench_row(names[w], tc, l->name, ck_time(bench_fn, &bo));
    }
    /* both sides' eigenvalues: two runs after another vs interleaved (level's table) */
    BArgs b8 = { &l->dsp, k, y, ws, a, x, 8 }, b10 = { &l->dsp, k, y, ws, a, x, 10 };
    const double t8 = ck_time(bench_fn, &b8);
    b8.k = a + 1024;
    ck_bench_row("eigenvalues 2 x 25: 2 runs | 2 in 1", t8 + ck_time(bench_fn, &b8), l->name,
                 ck_time(bench_fn, &b10));
    BArgs b11p = { &l->dsp, k, y, ws, a, NULL, 11 }, b11 = { &l->dsp, k, y, ws, a, x, 11 };
    ck_bench_row("eigenvalues 6 x 25: 3 x (2 in 1) | 6 in 1", ck_time(bench_fn, &b11p), l->name,
                 ck_time(bench_fn, &b11));
    free(k);
    free(y);
    free(ws);
    free(a);
    free(x);
}

void ck_linalg(const CkCtx *c)
{
    if (!c->bench && ck_wanted(c, "qr_solve"))
        check_solvers(NULL, "c", &c->ref);
    for (int i = 0; i < c->nlvl; i++) {
        const CkLevel *l = &c->lvl[i];
        if (c->bench) {
            bench_linalg(c, l);
            continue;
        }
        if (ck_wanted(c, "tridiag"))
            check_tridiag(c, l);
        if (ck_wanted(c, "matmul"))
            check_matmul(c, l);
        if (ck_wanted(c, "backsub"))
            check_backsub(c, l);
        if (ck_wanted(c, "block_rows"))
            check_block_rows(c, l);
        if (ck_wanted(c, "block_var"))
            check_block_var(c, l);
        if (ck_wanted(c, "pool_terms"))
            check_pool_terms(c, l);
        if (ck_wanted(c, "entropy"))
            check_entropy(c, l);
        if (ck_wanted(c, "qr_solve"))
            check_solvers(l, l->name, &l->dsp);
    }
}
