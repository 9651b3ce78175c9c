/*
 * One frame's VMAF score from its feature values (predict.h), in libvmaf's
 * order of operations (spec B.3). Every step is a separate multiply or add
 * of doubles: a fused or reordered one would move the last bit.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predict.h"

/* b^e for e >= 0 by squaring, as libsvm's poly kernel takes it */
static double powi(double b, int e)
{
    double r = 1.0;
    for (int t = e; t > 0; t /= 2) {
        if (t % 2 == 1)
            r *= b;
        b = b * b;
    }
    return r;
}

/* x (dense, indices 1..n) against SV j: the squared distance over the union
 * of both index sets, walked in index order (rbf), or the dot product over
 * the indices both have (the other kernels). */
static double sv_distance(const SqPredictor *p, const double *x, int j, int dot)
{
    double s = 0.0;
    int i = 1, k = p->start[j];
    const int end = p->start[j + 1], n = p->nfeat;
    while (i <= n && k < end) {
        if (p->idx[k] == i) {
            if (dot) {
                s += x[i - 1] * p->val[k];
            } else {
                const double d = x[i - 1] - p->val[k];
                s += d * d;
            }
            i++;
            k++;
        } else if (i > p->idx[k]) {
            if (!dot)
                s += p->val[k] * p->val[k];
            k++;
        } else {
            if (!dot)
                s += x[i - 1] * x[i - 1];
            i++;
        }
    }
    for (; !dot && i <= n; i++)
        s += x[i - 1] * x[i - 1];
    for (; !dot && k < end; k++)
        s += p->val[k] * p->val[k];
    return s;
}

static double kernel(const SqPredictor *p, const double *x, int j)
{
    switch (p->kernel) {
    case SQ_SVM_LINEAR:
        return sv_distance(p, x, j, 1);
    case SQ_SVM_POLY:
        return powi(p->gamma * sv_distance(p, x, j, 1) + p->coef0, p->degree);
    case SQ_SVM_SIGMOID:
        return tanh(p->gamma * sv_distance(p, x, j, 1) + p->coef0);
    default:
        return exp(-p->gamma * sv_distance(p, x, j, 0));
    }
}

/* With the adm3 feature's value g (un-normalised again), a speed_chroma of
 * exactly 0 (a frame without chroma detail, or none) becomes c - c*g. */
static void chroma_correction(const SqPredictor *p, double *x)
{
    const int a = p->guide + 1, s = p->guided + 1;
    const double g = p->rescale ? (x[p->guide] - p->intercept[a]) / p->slope[a] : x[p->guide];
    const double r = p->rescale ? (x[p->guided] - p->intercept[s]) / p->slope[s]
                                : x[p->guided];
    if (r != 0.0)
        return;
    const double v = (-p->chroma_c * g) + p->chroma_c;
    x[p->guided] = p->rescale ? p->slope[s] * v + p->intercept[s] : v;
}

/* The piecewise-linear knots (spec B.3 step 5): each segment that covers t
 * (the first also below, the last also above) sets the result, later ones
 * over earlier ones; a segment out of order ends the walk. */
static double knots(const SqPredictor *p, double t)
{
    double z = 0.0;
    const int n = p->nknots;
    for (int k = 0; k + 1 < n; k++) {
        const double x0 = p->knots[k][0], y0 = p->knots[k][1];
        const double x1 = p->knots[k + 1][0], y1 = p->knots[k + 1][1];
        if (x0 >= x1 || y0 > y1)
            break;
        const int covers = (x0 <= t && t <= x1) || (k == 0 && t < x0) || (k == n - 2 && t > x1);
        if (!covers)
            continue;
        if (y0 == y1) {
            z = y0;
        } else {
            double a, b;
            if (x0 == 0) {
                b = y0;
                a = (y1 - b) / x1;
            } else {
                a = (y1 - y0) / (x1 - x0);
                b = y0 - x0 * a;
            }
            z = a * t + b;
        }
    }
    return z;
}

static double transform(const SqPredictor *p, double y)
{
    double t = y;
    if (p->has_p[0] || p->has_p[1] || p->has_p[2]) {
        t = 0.0;
        if (p->has_p[0])
            t += p->p[0];
        if (p->has_p[1])
            t += p->p[1] * y;
        if (p->has_p[2])
            t += (p->p[2] * y) * y;
    }
    if (p->nknots > 1)
        t = knots(p, t);
    if (p->out_lte_in && t > y)
        t = y;
    if (p->out_gte_in && t < y)
        t = y;
    return t;
}

double sq_predict(const SqPredictor *p, const double *f)
{
    double x[SQ_MODEL_MAX_FEATURES];
    for (int i = 0; i < p->nfeat; i++)
        x[i] = p->rescale ? p->slope[i + 1] * f[i] + p->intercept[i + 1] : f[i];
    if (p->chroma)
        chroma_correction(p, x);
    double sum = 0.0;
    for (int j = 0; j < p->nsv; j++)
        sum += p->coef[j] * kernel(p, x, j);
    sum -= p->rho;
    double y = p->rescale ? (sum - p->intercept[0]) / p->slope[0] : sum;
    if (p->transform)
        y = transform(p, y);
    /* a NaN stays NaN, as in libvmaf (the report refuses it) */
    if (p->clip) {
        y = y < p->clip_lo ? p->clip_lo : y;
        y = y > p->clip_hi ? p->clip_hi : y;
    }
    return y;
}

#ifndef SQ_HAVE_JSON_C
/* A build without json-c reads no model file (model.c says so first). */
int sq_predictor_load(SqPredictor *p, const SqModel *m, char *err, size_t len)
{
    memset(p, 0, sizeof *p);
    snprintf(err, len, "model %s: this build of speedqa reads no model files", m->path);
    return -1;
}

void sq_predictor_free(SqPredictor *p)
{
    (void)p;
}
#endif
