/*
 * From solved blocks to the score: GSM variance field, entropies, pooling
 * and the chroma u/v combination (spec 2.2, 4.7 steps 4-7, 4.8, 4.9).
 */
#ifndef SQ_MATH_SCORE_H
#define SQ_MATH_SCORE_H

#include "math/f64.h"
#include "math/log2.h"
#include "math/prelude.h"

/* Y[r*b + c][block] = the block's sample (r, c): the non-overlapping blocks. */
SQ_FN float sq_block_sample(const SQ_GLOBAL float *img, int64_t stride, int b, int nbh,
                            int row, int m)
{
    const int bi = m / nbh, bj = m % nbh, r = row / b, c = row % b;
    return img[(int64_t)(bi * b + r) * stride + bj * b + c];
}

/* S[m] = sum over k of (X[k][m] * Y[k][m]) / n, rows added in increasing k. */
SQ_FN float sq_block_variance(const SQ_GLOBAL float *x, const SQ_GLOBAL float *y, int n,
                              int nb, int m)
{
    float s = 0.0f;
    for (int k = 0; k < n; k++) {
        float prod = x[(int64_t)k * nb + m] * y[(int64_t)k * nb + m];
        float zk = prod / (float)n;
        s = k == 0 ? zk : s + zk;
    }
    return s;
}

/* E[m]: eigenvalues in solver order, re-rounded to float after each term. */
SQ_FN float sq_block_entropy(const SQ_GLOBAL float *lambda, int n, float s, float sigma_nn)
{
    float e = 0.0f;
    for (int k = 0; k < n; k++) {
        const float l = lambda[k] < 0.0f ? 0.0f : lambda[k];
        const float arg = l * s + sigma_nn;
        e = sq_d_to_float(sq_d_add(sq_d_from_float(e),
                                   sq_d_add(sq_log2(sq_d_from_float(arg)), SQ_D_LOG2_2PIE)));
    }
    return e;
}

SQ_FN float sq_pool_base(int n, float sigma_nn, float nn_floor)
{
    const float arg = (1.0f + nn_floor) * sigma_nn;
    return sq_d_to_float(
        sq_d_mul(sq_d_from_int(n), sq_d_add(sq_log2(sq_d_from_float(arg)), SQ_D_LOG2_2PIE)));
}

/* 1.0 + (double)(sr + sd) / 2.0 */
SQ_FN sq_f64 sq_pool_mid(float sr, float sd)
{
    return sq_d_add(SQ_D_ONE, sq_d_div(sq_d_from_float(sr + sd), SQ_D_TWO));
}

/* |a - b| of one block for speed_weight_var_mode wvm (0 for skipped blocks). */
SQ_FN float sq_pool_term(float er, float sr, float ed, float sd, float base, int wvm)
{
    if (er < base && ed < base)
        return 0.0f;
    const sq_f64 dsr = sq_d_from_float(sr), dsd = sq_d_from_float(sd);
    sq_f64 lr, ld;
    switch (wvm) {
    case 0: lr = sq_log2(sq_d_from_float(1.0f + sr)); ld = sq_log2(sq_d_from_float(1.0f + sd)); break;
    case 1: lr = sq_log2(sq_d_from_float(1.0f + sr)); ld = lr; break;
    case 2: lr = sq_log2(sq_d_from_float(1.0f + sd)); ld = lr; break;
    case 3: lr = sq_log2(sq_pool_mid(sr, sd)); ld = lr; break;
    case 4:
        lr = sq_log2(sq_d_from_float(1.0f + sr));
        ld = sq_log2(sq_pool_mid(sr, sd));
        break;
    case 5:
        lr = sq_log2(sq_d_from_float(1.0f + sr));
        ld = sq_log2(sq_d_add(SQ_D_ONE, sq_d_add(sq_d_mul(SQ_D_3QUARTERS, dsr),
                                                 sq_d_mul(SQ_D_QUARTER, dsd))));
        break;
    default:
        lr = sq_log2(sq_d_from_float(1.0f + sr));
        ld = sq_log2(sq_d_add(SQ_D_ONE, sq_d_add(sq_d_mul(SQ_D_QUARTER, dsr),
                                                 sq_d_mul(SQ_D_3QUARTERS, dsd))));
        break;
    }
    const float a = sq_d_to_float(sq_d_mul(sq_d_from_float(er), lr));
    const float b = sq_d_to_float(sq_d_mul(sq_d_from_float(ed), ld));
    return sq_fabsf(a - b);
}

/*
 * Mean of the nb block terms, a float sum in increasing m from +0: the one
 * order of every backend, since a float sum in any other order rounds
 * differently. Term m is terms[m] when terms is given (the GPU computes
 * them one thread per block first), else sq_pool_term of the sides' e, s.
 */
SQ_FN float sq_pool_mean(const SQ_GLOBAL float *terms, const SQ_GLOBAL float *er,
                         const SQ_GLOBAL float *sr, const SQ_GLOBAL float *ed,
                         const SQ_GLOBAL float *sd, int nb, float base, int wvm)
{
    float score = 0.0f;
    for (int m = 0; m < nb; m++)
        score = score + (terms ? terms[m] : sq_pool_term(er[m], sr[m], ed[m], sd[m], base, wvm));
    return score / (float)nb;
}

/* The pooled score of a plane from both sides' entropies and variances. */
SQ_FN float sq_pool(const SQ_GLOBAL float *er, const SQ_GLOBAL float *sr,
                    const SQ_GLOBAL float *ed, const SQ_GLOBAL float *sd, int n, int nb,
                    float sigma_nn, float nn_floor, int wvm)
{
    return sq_pool_mean(0, er, sr, ed, sd, nb, sq_pool_base(n, sigma_nn, nn_floor), wvm);
}

/* Exactly one side singular: 0; otherwise the pooled value (0 when both are). */
SQ_FN float sq_side_score(int err_ref, int err_dis, float pooled)
{
    return (err_ref != 0) != (err_dis != 0) ? 0.0f : pooled;
}

/* speed_chroma_uv: a singular channel defers to the other one. */
SQ_FN float sq_chroma_uv(float u, int err_u, float v, int err_v)
{
    if (err_u && !err_v)
        return v;
    if (err_v && !err_u)
        return u;
    return sq_d_to_float(sq_d_div(sq_d_add(sq_d_from_float(u), sq_d_from_float(v)), SQ_D_TWO));
}

#endif
