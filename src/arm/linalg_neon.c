/*
 * NEON versions of the dense linear algebra of est_params (as
 * x86/linalg_avx2.c): lanes are independent outputs (columns j, blocks m),
 * each running the scalar sequence of math/eigen.h, solve.h and score.h.
 * A last partial vector is moved back to end at the row's end (the overlap
 * recomputes identical values) or done by the scalar function.
 */
#include <arm_neon.h>
#include <string.h>

#include "arm/dsp_arm.h"
#include "math/eigen.h"
#include "math/log2.h"
#include "math/score.h"
#include "math/solve.h"

#define AI static inline __attribute__((always_inline))

void sq_tridiag_neon(float *a, int n, float *d, float *e, float *ws)
{
    float *v = ws, *x = ws + n;
    for (int i = 0; i + 2 < n; i++) {
        float tau, s, beta;
        if (sq_tridiag_reflector(a, n, i, &tau, &s, &beta)) {
            for (int r = i + 1; r < n; r++)
                a[r * n + i] = a[r * n + i] / s;
            a[(i + 1) * n + i] = beta;
        }
        v[i + 1] = 1.0f;
        for (int r = i + 2; r < n; r++)
            v[r] = a[r * n + i];
        if (tau == 0.0f)
            continue;
        const int m = n - i - 1; /* active block [i + 1, n)^2, symmetric */
        if (m >= 4) {
            /* x[r] = sum over c of (tau * a[r][c]) * v[c]; a[r][c] = a[c][r]. */
            const float32x4_t vt = vdupq_n_f32(tau);
            for (int r = i + 1; r < n; r += 4) {
                const int r0 = r + 4 <= n ? r : n - 4;
                float32x4_t acc = vdupq_n_f32(0.0f);
                for (int c = i + 1; c < n; c++) {
                    const float32x4_t t = vmulq_f32(vt, vld1q_f32(a + c * n + r0));
                    acc = vaddq_f32(acc, vmulq_f32(t, vdupq_n_f32(v[c])));
                }
                vst1q_f32(x + r0, acc);
            }
        } else {
            for (int r = i + 1; r < n; r++)
                x[r] = sq_tridiag_x(a, n, i, tau, v, r);
        }
        float w = 0.0f;
        for (int r = i + 1; r < n; r++) {
            float prod = x[r] * v[r];
            w = w + prod;
        }
        const float gamma = (float)(-0.5 * (double)tau * (double)w);
        for (int r = i + 1; r < n; r++) {
            float gv = gamma * v[r];
            x[r] = x[r] + gv;
        }
        for (int r = i + 1; r < n; r++) {
            float *ar = a + r * n;
            const float32x4_t xr = vdupq_n_f32(x[r]), vr = vdupq_n_f32(v[r]);
            int c = i + 1;
            for (; c + 4 <= n; c += 4) {
                const float32x4_t t1 = vmulq_f32(xr, vld1q_f32(v + c));
                const float32x4_t t2 = vmulq_f32(vr, vld1q_f32(x + c));
                vst1q_f32(ar + c, vsubq_f32(vld1q_f32(ar + c), vaddq_f32(t1, t2)));
            }
            for (; c < n; c++) {
                float t1 = x[r] * v[c], t2 = v[r] * x[c];
                ar[c] = ar[c] - (t1 + t2);
            }
        }
    }
    for (int k = 0; k < n; k++)
        d[k] = a[k * n + k];
    for (int k = 0; k + 1 < n; k++)
        e[k] = a[(k + 1) * n + k];
}

/* Up to 4 vectors of columns (j[0..nv)) of one output row. */
AI void mm_row(float *o, const float *li, const float *r, ptrdiff_t ldr, int depth,
               const int *j, int nv)
{
    float32x4_t a[4];
    for (int q = 0; q < nv; q++)
        a[q] = vdupq_n_f32(0.0f);
    for (int k = 0; k < depth; k++) {
        const float32x4_t lk = vdupq_n_f32(li[k]);
        const float *rk = r + k * ldr;
        for (int q = 0; q < nv; q++)
            a[q] = vaddq_f32(a[q], vmulq_f32(lk, vld1q_f32(rk + j[q])));
    }
    for (int q = 0; q < nv; q++)
        vst1q_f32(o + j[q], a[q]);
}

void sq_matmul_neon(float *out, ptrdiff_t ldo, const float *l, ptrdiff_t ldl,
                    const float *r, ptrdiff_t ldr, int rows, int cols, int depth)
{
    if (cols < 4) {
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++)
                out[i * ldo + j] = sq_matmul_entry_ld(l, ldl, r, ldr, depth, i, j);
        return;
    }
    for (int j = 0; j < cols; j += 16) {
        int js[4] = { 0, 0, 0, 0 }, nv = 0;
        for (int q = 0; q < 4 && j + 4 * q < cols; q++, nv++)
            js[q] = j + 4 * q + 4 <= cols ? j + 4 * q : cols - 4;
        for (int i = 0; i < rows; i++) {
            float *o = out + i * ldo;
            const float *li = l + i * ldl;
            switch (nv) {
            case 4: mm_row(o, li, r, ldr, depth, js, 4); break;
            case 3: mm_row(o, li, r, ldr, depth, js, 3); break;
            case 2: mm_row(o, li, r, ldr, depth, js, 2); break;
            default: mm_row(o, li, r, ldr, depth, js, 1); break;
            }
        }
    }
}

void sq_backsub_neon(float *x, int ld, const float *rm, int n, int cols)
{
    const int nv = cols & ~3;
    for (int i = n - 1; i >= 0; i--) {
        float *xi = x + (size_t)i * ld;
        const float32x4_t dg = vdupq_n_f32(rm[i * n + i]);
        int j = 0;
        for (; j + 16 <= nv; j += 16) {
            float32x4_t t0 = vld1q_f32(xi + j), t1 = vld1q_f32(xi + j + 4);
            float32x4_t t2 = vld1q_f32(xi + j + 8), t3 = vld1q_f32(xi + j + 12);
            for (int k = i + 1; k < n; k++) {
                const float32x4_t rk = vdupq_n_f32(rm[i * n + k]);
                const float *xk = x + (size_t)k * ld + j;
                t0 = vsubq_f32(t0, vmulq_f32(vld1q_f32(xk), rk));
                t1 = vsubq_f32(t1, vmulq_f32(vld1q_f32(xk + 4), rk));
                t2 = vsubq_f32(t2, vmulq_f32(vld1q_f32(xk + 8), rk));
                t3 = vsubq_f32(t3, vmulq_f32(vld1q_f32(xk + 12), rk));
            }
            vst1q_f32(xi + j, vdivq_f32(t0, dg));
            vst1q_f32(xi + j + 4, vdivq_f32(t1, dg));
            vst1q_f32(xi + j + 8, vdivq_f32(t2, dg));
            vst1q_f32(xi + j + 12, vdivq_f32(t3, dg));
        }
        for (; j < nv; j += 4) {
            float32x4_t t0 = vld1q_f32(xi + j);
            for (int k = i + 1; k < n; k++)
                t0 = vsubq_f32(t0, vmulq_f32(vld1q_f32(x + (size_t)k * ld + j),
                                             vdupq_n_f32(rm[i * n + k])));
            vst1q_f32(xi + j, vdivq_f32(t0, dg));
        }
        for (; j < cols; j++)
            xi[j] = sq_backsub_entry(rm, n, x, ld, i, j, xi[j]);
    }
}

void sq_block_var_neon(float *s, const float *x, const float *y, int ld, int n, int cols)
{
    if (cols < 4) {
        for (int m = 0; m < cols; m++)
            s[m] = sq_block_variance(x, y, n, ld, m);
        return;
    }
    const float32x4_t fn = vdupq_n_f32((float)n);
    for (int m = 0; m < cols; m += 4) {
        const int m0 = m + 4 <= cols ? m : cols - 4;
        float32x4_t acc = vdupq_n_f32(0.0f);
        for (int k = 0; k < n; k++) {
            const float32x4_t prod = vmulq_f32(vld1q_f32(x + (size_t)k * ld + m0),
                                               vld1q_f32(y + (size_t)k * ld + m0));
            const float32x4_t zk = vdivq_f32(prod, fn);
            acc = k == 0 ? zk : vaddq_f32(acc, zk);
        }
        vst1q_f32(s + m0, acc);
    }
}

/*
 * sq_log2 (math/log2.h) on 2 lanes, for positive normal finite inputs
 * only; *special is set when a lane is anything else.
 */
AI float64x2_t log2_pd(float64x2_t x, int *special)
{
    const uint64x2_t u = vreinterpretq_u64_f64(x);
    const uint64x2_t spec = vorrq_u64(vcltq_u64(u, vdupq_n_u64(0x0010000000000000ull)),
                                      vcgtq_u64(u, vdupq_n_u64(0x7fefffffffffffffull)));
    *special = (vgetq_lane_u64(spec, 0) | vgetq_lane_u64(spec, 1)) != 0;

    uint64x2_t hx = vaddq_u64(vshrq_n_u64(u, 32), vdupq_n_u64(0x3ff00000u - SQ_LOG2_SQRTH_HI));
    const int64x2_t k = vsubq_s64(vreinterpretq_s64_u64(vshrq_n_u64(hx, 20)), vdupq_n_s64(0x3ff));
    hx = vaddq_u64(vandq_u64(hx, vdupq_n_u64(0xfffff)), vdupq_n_u64(SQ_LOG2_SQRTH_HI));
    const float64x2_t m = vreinterpretq_f64_u64(
        vorrq_u64(vshlq_n_u64(hx, 32), vandq_u64(u, vdupq_n_u64(0xffffffffull))));
    const float64x2_t y = vcvtq_f64_s64(k); /* |k| < 2^11: exact */

#define C(v) vdupq_n_f64(v)
#define ADD vaddq_f64
#define SUB vsubq_f64
#define MUL vmulq_f64
    const float64x2_t f = SUB(m, C(1.0));
    const float64x2_t hfsq = MUL(MUL(C(0.5), f), f);
    const float64x2_t s = vdivq_f64(f, ADD(C(2.0), f));
    const float64x2_t z = MUL(s, s);
    const float64x2_t w = MUL(z, z);
    const float64x2_t t1 =
        MUL(w, ADD(C(SQ_LOG2_LG2), MUL(w, ADD(C(SQ_LOG2_LG4), MUL(w, C(SQ_LOG2_LG6))))));
    const float64x2_t t2 = MUL(
        z, ADD(C(SQ_LOG2_LG1),
               MUL(w, ADD(C(SQ_LOG2_LG3), MUL(w, ADD(C(SQ_LOG2_LG5), MUL(w, C(SQ_LOG2_LG7))))))));
    const float64x2_t r = ADD(t2, t1);
    float64x2_t hi = SUB(f, hfsq);
    hi = vreinterpretq_f64_u64(
        vandq_u64(vreinterpretq_u64_f64(hi), vdupq_n_u64(0xffffffff00000000ull)));
    const float64x2_t lo = ADD(SUB(SUB(f, hi), hfsq), MUL(s, ADD(hfsq, r)));
    const float64x2_t val_hi = MUL(hi, C(SQ_LOG2_INV_LN2_HI));
    float64x2_t val_lo = ADD(MUL(ADD(lo, hi), C(SQ_LOG2_INV_LN2_LO)), MUL(lo, C(SQ_LOG2_INV_LN2_HI)));
    const float64x2_t sum = ADD(y, val_hi);
    val_lo = ADD(val_lo, ADD(SUB(y, sum), val_hi));
    return ADD(val_lo, sum);
#undef C
#undef ADD
#undef SUB
#undef MUL
}

/* e + (log2(arg) + log2(2 pi e)) for 2 blocks, with the scalar sq_log2 for special lanes. */
AI float64x2_t entropy_term(float64x2_t ed, float64x2_t argd)
{
    int special;
    float64x2_t lg = log2_pd(argd, &special);
    if (special) {
        double a[2], l[2];
        vst1q_f64(a, argd);
        for (int i = 0; i < 2; i++)
            l[i] = sq_log2(a[i]);
        lg = vld1q_f64(l);
    }
    return vaddq_f64(ed, vaddq_f64(lg, vdupq_n_f64(SQ_LOG2_2PIE)));
}

void sq_entropy_neon(float *e, const float *lambda, int n, const float *s, int nb, float sigma_nn)
{
    if (nb < 4) {
        for (int m = 0; m < nb; m++)
            e[m] = sq_block_entropy(lambda, n, s[m], sigma_nn);
        return;
    }
    const float32x4_t sn = vdupq_n_f32(sigma_nn);
    for (int m = 0; m < nb; m += 4) {
        const int m0 = m + 4 <= nb ? m : nb - 4;
        const float32x4_t sv = vld1q_f32(s + m0);
        float32x4_t ev = vdupq_n_f32(0.0f);
        for (int k = 0; k < n; k++) {
            const float l = lambda[k] < 0.0f ? 0.0f : lambda[k];
            const float32x4_t arg = vaddq_f32(vmulq_f32(vdupq_n_f32(l), sv), sn);
            const float64x2_t lo = entropy_term(vcvt_f64_f32(vget_low_f32(ev)),
                                                vcvt_f64_f32(vget_low_f32(arg)));
            const float64x2_t hi = entropy_term(vcvt_high_f64_f32(ev), vcvt_high_f64_f32(arg));
            ev = vcvt_high_f32_f64(vcvt_f32_f64(lo), hi);
        }
        vst1q_f32(e + m0, ev);
    }
}
