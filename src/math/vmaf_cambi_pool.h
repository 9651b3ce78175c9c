/*
 * libvmaf's CAMBI, part 3: the spatial pooling of a scale (spec A.6.4: the
 * top K c-values through libvmaf's exact quickselect, summed in f64 in the
 * order the selection leaves them), the frame score (A.7: the scale weights
 * 16, 8, 4, 2, 1, divided by ws^2, clipped to cambi_max_val) and the whole
 * frame, sq_vc_frame.
 */
#ifndef SQ_MATH_VMAF_CAMBI_POOL_H
#define SQ_MATH_VMAF_CAMBI_POOL_H

#include "math/vmaf_cambi_scale.h"

/* Reorders a[0..n) so that a[0..k) holds the k largest values (libvmaf's selection). */
SQ_FN void sq_vc_select(SQ_GLOBAL float *a, int n, int k)
{
    int left = 0, right = n - 1;
    while (left < right) {
        const float pivot = a[k];
        int i = left, j = right;
        do {
            while (a[i] > pivot)
                i++;
            while (a[j] < pivot)
                j--;
            if (i <= j) {
                const float t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < k)
            left = i;
        if (k < i)
            right = j;
    }
}

/* score[s]: the mean of the top k of the n c-values (selection first unless k == n). */
SQ_FN sq_f64 sq_vc_pool(SQ_GLOBAL float *c, int n, int k)
{
    if (k < n)
        sq_vc_select(c, n, k);
    sq_f64 sum = SQ_D_ZERO;
    for (int i = 0; i < k; i++)
        sum = sq_d_add(sum, sq_d_from_float(c[i]));
    return sq_d_div(sum, sq_d_from_int(k));
}

/* The pooled count of an n-pixel scale when topk is 1 or the host has none: n. */
SQ_FN int sq_vc_scale_k(const SqVcParams *p, int s, int n)
{
    const int k = p->K[s];
    return k < 1 ? 1 : k > n ? n : k;
}

/* The published score from the five scale scores. */
SQ_FN sq_f64 sq_vc_score(const sq_f64 *score, const SqVcParams *p)
{
    sq_f64 acc = SQ_D_ZERO;
    for (int s = 0; s < SQ_VC_SCALES; s++)
        acc = sq_d_add(acc, sq_d_mul(score[s], sq_d_from_int(16 >> s)));
    const sq_f64 raw = sq_d_div(acc, sq_d_from_int((int64_t)p->ws * p->ws));
    return sq_d_lt(p->max_val, raw) ? p->max_val : raw;
}

/* Size of scale s (decimation at s > 0, and at s = 0 with hrs). */
SQ_FN void sq_vc_scale_dims(const SqVcParams *p, int s, int *cw, int *ch)
{
    int w = p->w, h = p->h;
    for (int k = 0; k <= s; k++)
        if (k > 0 || p->hrs) {
            w = (w + 1) >> 1;
            h = (h + 1) >> 1;
        }
    *cw = w;
    *ch = h;
}

/*
 * CAMBI of one luma plane (acc: sq_sample's access code, p->bpc bits),
 * score[] the five scale scores (may be NULL). Returns the published value.
 */
SQ_FN sq_f64 sq_vc_frame(const SQ_GLOBAL uint8_t *src, int64_t stride, int acc,
                         const SqVcParams *p, const SqVcBufs *bf, sq_f64 *score)
{
    sq_f64 sc[SQ_VC_SCALES];
    sq_vc_preprocess(src, stride, acc, p, bf);
    sq_vc_mask(p, bf);
    int pw = p->w, ph = p->h;
    for (int s = 0; s < SQ_VC_SCALES; s++) {
        int cw, ch;
        sq_vc_scale_dims(p, s, &cw, &ch);
        if (cw != pw || ch != ph)
            sq_vc_decimate(bf->img, bf->mask, pw, ph);
        pw = cw;
        ph = ch;
        sq_vc_mode_filter(bf->img, cw, ch, bf->mode);
        sq_vc_cvalues(p, bf, cw, ch);
        sc[s] = sq_vc_pool(bf->c, cw * ch, sq_vc_scale_k(p, s, cw * ch));
        if (score)
            score[s] = sc[s];
    }
    return sq_vc_score(sc, p);
}

#endif
