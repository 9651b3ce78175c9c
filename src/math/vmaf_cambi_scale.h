/*
 * libvmaf's CAMBI, part 2: one scale of the multi-scale loop (spec A.6.1 -
 * A.6.3): the decimation of the image and the mask, the 3x3 separable mode
 * filter, and the c-values from sliding window histograms. Images are
 * compact: a scale's image of cw x ch has stride cw, so the decimation works
 * in place (row i, column j reads (2i, 2j) of the wider image, never a place
 * already written).
 *
 * The histograms are libvmaf's: one row of cw counters per value v (bin
 * v + nd, so v - d - 1 < 0 lands on a bin that stays 0), counter j holding
 * the masked pixels of value v in the window around column j of the rows
 * i-pad..i+pad; a masked pixel adds 1 to the counters of the columns within
 * pad of its own. Only masked pixels are counted, and only those of the
 * band of values a c-value can read (sq_vc_band, libvmaf's band too).
 */
#ifndef SQ_MATH_VMAF_CAMBI_SCALE_H
#define SQ_MATH_VMAF_CAMBI_SCALE_H

#include "math/vmaf_cambi.h"

/*
 * Pixel (i, j) of the decimation of a pw-wide image and mask (x, m) into
 * the cw-wide (y, n): (2i, 2j). In place (y = x, n = m) when pixels go in
 * increasing order, as (2i, 2j) is never before (i, j).
 */
SQ_FN void sq_vc_decimate_at(const SQ_GLOBAL uint16_t *x, const SQ_GLOBAL uint8_t *m, int pw,
                             int cw, int i, int j, SQ_GLOBAL uint16_t *y, SQ_GLOBAL uint8_t *n)
{
    const int64_t from = (int64_t)2 * i * pw + 2 * j, to = (int64_t)i * cw + j;
    y[to] = x[from];
    n[to] = m[from];
}

/* Row i of the decimation (cw = (pw + 1) >> 1 samples), in place. */
SQ_FN void sq_vc_decimate_row(SQ_GLOBAL uint16_t *img, SQ_GLOBAL uint8_t *mask, int pw, int cw,
                              int i)
{
    for (int j = 0; j < cw; j++)
        sq_vc_decimate_at(img, mask, pw, cw, i, j, img, mask);
}

/* Image and mask of pw x ph to ((pw + 1) >> 1) x ((ph + 1) >> 1), in place. */
SQ_FN void sq_vc_decimate(SQ_GLOBAL uint16_t *img, SQ_GLOBAL uint8_t *mask, int pw, int ph)
{
    const int cw = (pw + 1) >> 1, ch = (ph + 1) >> 1;
    for (int i = 0; i < ch; i++)
        sq_vc_decimate_row(img, mask, pw, cw, i);
}

/* mode3: the value two of the three share, else the smallest (no branch: rows vectorise). */
SQ_FN uint16_t sq_vc_mode3(uint16_t a, uint16_t b, uint16_t c)
{
    const uint16_t m0 = a < b ? a : b;
    const uint16_t m = m0 < c ? m0 : c;
    const uint16_t r = b == c ? b : m;
    return ((a == b) | (a == c)) ? a : r;
}

/* The horizontal mode of row src into dst (columns 0 and w-1 copied). */
SQ_FN void sq_vc_mode_h(const SQ_GLOBAL uint16_t *src, int w, SQ_GLOBAL uint16_t *dst)
{
    dst[0] = src[0];
    for (int j = 1; j < w - 1; j++)
        dst[j] = sq_vc_mode3(src[j - 1], src[j], src[j + 1]);
    if (w > 1)
        dst[w - 1] = src[w - 1];
}

/* The horizontal mode at column j of row src (columns 0 and w-1 kept). */
SQ_FN uint16_t sq_vc_mode_h_at(const SQ_GLOBAL uint16_t *src, int w, int j)
{
    return j == 0 || j == w - 1 ? src[j] : sq_vc_mode3(src[j - 1], src[j], src[j + 1]);
}

/*
 * Pixel (i, j) of the mode filter of the w x h image x (A.6.2), written
 * elsewhere: what sq_vc_mode_filter leaves there, as it reads only
 * unfiltered rows (rows 0 and h-1, and every row when h < 3, kept).
 */
SQ_FN uint16_t sq_vc_mode_at(const SQ_GLOBAL uint16_t *x, int w, int h, int i, int j)
{
    const SQ_GLOBAL uint16_t *r = x + (int64_t)i * w;
    if (h < 3 || i == 0 || i == h - 1)
        return r[j];
    return sq_vc_mode3(sq_vc_mode_h_at(r - w, w, j), sq_vc_mode_h_at(r, w, j),
                       sq_vc_mode_h_at(r + w, w, j));
}

/*
 * The mode filter in place on a w x h image (A.6.2), rows 0 and h-1 kept,
 * with ring, 3 rows of w, holding the horizontal modes of rows i-1..i+1:
 * row i+1's is taken before row i is written, from the unfiltered row.
 */
SQ_FN void sq_vc_mode_filter(SQ_GLOBAL uint16_t *img, int w, int h, SQ_GLOBAL uint16_t *ring)
{
    if (h < 3)
        return;
    sq_vc_mode_h(img, w, ring);
    sq_vc_mode_h(img + w, w, ring + w);
    for (int i = 1; i < h - 1; i++) {
        const SQ_GLOBAL uint16_t *a = ring + (int64_t)((i - 1) % 3) * w;
        const SQ_GLOBAL uint16_t *b = ring + (int64_t)(i % 3) * w;
        SQ_GLOBAL uint16_t *c = ring + (int64_t)((i + 1) % 3) * w;
        sq_vc_mode_h(img + (int64_t)(i + 1) * w, w, c);
        SQ_GLOBAL uint16_t *out = img + (int64_t)i * w;
        for (int j = 0; j < w; j++)
            out[j] = sq_vc_mode3(a[j], b[j], c[j]);
    }
}

/*
 * The band of raw values whose histogram a c-value can read (libvmaf's):
 * a term d counts only for v <= tvi[d] - nd and v + nd + d + 1 > vlt_luma,
 * and reads the values v - d - 1 .. v + d + 1. Pixels outside the band
 * have c = 0, their values are never read: they need not be counted.
 */
SQ_FN void sq_vc_band(const SQ_GLOBAL SqVcParams *p, int *lo, int *hi)
{
    int top = -1;
    for (int d = 0; d < p->nd; d++) {
        const int t = p->tvi[d] - p->nd + d + 1;
        top = t > top ? t : top;
    }
    const int bot = p->vlt_luma - 3 * p->nd + 1;
    *lo = bot < 0 ? 0 : bot;
    *hi = top > 1024 ? 1024 : top;
}

/* The histogram row of pixel j of row r if it is counted (masked, value in lo..hi), else -1. */
SQ_FN int sq_vc_hist_bin(const SQ_GLOBAL uint16_t *img, const SQ_GLOBAL uint8_t *mask, int w,
                         int h, int r, int j, int nd, int lo, int hi)
{
    if (r < 0 || r >= h)
        return -1;
    const int64_t o = (int64_t)r * w + j;
    const int v = img[o];
    return mask[o] && v >= lo && v <= hi ? v + nd : -1;
}

/* Adds 1 (sign 1) or -1 to the counters of histogram row bin within pad of column j. */
SQ_FN void sq_vc_hist_range(SQ_GLOBAL uint16_t *hist, int w, int bin, int j, int pad, int sign)
{
    SQ_GLOBAL uint16_t *row = hist + (int64_t)bin * w;
    const int a = j - pad < 0 ? 0 : j - pad, b = j + pad >= w ? w - 1 : j + pad;
    if (sign > 0)
        for (int k = a; k <= b; k++)
            row[k]++;
    else
        for (int k = a; k <= b; k++)
            row[k]--;
}

/*
 * The window moving down one row: row add's counted pixels in, row rem's out
 * (either may be outside the image). A column whose two pixels fall in the
 * same histogram row changes nothing (flat areas, where the mask is).
 */
SQ_FN void sq_vc_hist_move(const SQ_GLOBAL uint16_t *img, const SQ_GLOBAL uint8_t *mask, int w,
                           int h, int add, int rem, int pad, int nd, int lo, int hi,
                           SQ_GLOBAL uint16_t *hist)
{
    if ((add < 0 || add >= h) && (rem < 0 || rem >= h))
        return;
    for (int j = 0; j < w; j++) {
        const int ba = sq_vc_hist_bin(img, mask, w, h, add, j, nd, lo, hi);
        const int br = sq_vc_hist_bin(img, mask, w, h, rem, j, nd, lo, hi);
        if (ba == br)
            continue;
        if (ba >= 0)
            sq_vc_hist_range(hist, w, ba, j, pad, 1);
        if (br >= 0)
            sq_vc_hist_range(hist, w, br, j, pad, -1);
    }
}

/* Term d counts for raw value v (A.6.3). */
SQ_FN int sq_vc_counts(const SQ_GLOBAL SqVcParams *p, int v, int d)
{
    const int va = v + p->nd;
    return va <= p->tvi[d] && va + d + 1 > p->vlt_luma;
}

/* Contrast d's term at column j: f32 w[d] * p0 * pm * R[p0 + pm], pm the larger neighbour count. */
SQ_FN float sq_vc_term(const SQ_GLOBAL uint16_t *hist, int w, int j, int va, int d, int p0,
                       const SQ_GLOBAL SqVcParams *p, const SQ_GLOBAL float *recip)
{
    const int p1 = hist[(int64_t)(va + d + 1) * w + j];
    const int p2 = hist[(int64_t)(va - d - 1) * w + j];
    const int pm = p1 > p2 ? p1 : p2;
    return (float)(p->weight[d] * p0 * pm) * recip[p0 + pm];
}

/*
 * The c-value of a masked pixel of raw value v at column j (A.6.3): the
 * largest f32 w[d] * p0 * pm * R[p0 + pm] over the contrasts d that count.
 */
SQ_FN float sq_vc_cvalue(const SQ_GLOBAL uint16_t *hist, int w, int j, int v,
                         const SQ_GLOBAL SqVcParams *p, const SQ_GLOBAL float *recip)
{
    const int nd = p->nd, va = v + nd;
    const int p0 = hist[(int64_t)va * w + j];
    float c = 0.0f;
    for (int d = 0; d < nd; d++) {
        if (!sq_vc_counts(p, v, d))
            continue;
        const float val = sq_vc_term(hist, w, j, va, d, p0, p, recip);
        if (val > c)
            c = val;
    }
    return c;
}

/*
 * first[v] for v = 0..1024: the d0 with which exactly the terms d0..nd-1
 * count (nd: none, so c = 0), or SQ_VC_ANY where the counted terms are not
 * such a run (thresholds not increasing: every term tested). With bt1886
 * and pq the thresholds increase, and every value has its run.
 */
#define SQ_VC_ANY 255
SQ_FN uint8_t sq_vc_first_at(const SQ_GLOBAL SqVcParams *p, int v)
{
    int d0 = p->nd;
    while (d0 > 0 && sq_vc_counts(p, v, d0 - 1))
        d0--;
    int run = 1;
    for (int d = 0; d < d0; d++)
        run &= !sq_vc_counts(p, v, d);
    return (uint8_t)(run ? d0 : SQ_VC_ANY);
}

SQ_FN void sq_vc_first_table(const SQ_GLOBAL SqVcParams *p, SQ_GLOBAL uint8_t *first)
{
    for (int v = 0; v <= 1024; v++)
        first[v] = sq_vc_first_at(p, v);
}

/* The c-value of a masked pixel of value v whose terms d0..nd-1 count. */
SQ_FN float sq_vc_cvalue_run(const SQ_GLOBAL uint16_t *hist, int w, int j, int v, int d0,
                             const SQ_GLOBAL SqVcParams *p, const SQ_GLOBAL float *recip)
{
    const int nd = p->nd, va = v + nd;
    const int p0 = hist[(int64_t)va * w + j];
    float c = 0.0f;
    for (int d = d0; d < nd; d++) {
        const float val = sq_vc_term(hist, w, j, va, d, p0, p, recip);
        if (val > c)
            c = val;
    }
    return c;
}

/* The c-value of pixel (i, j) (0 where the mask is 0 or no term counts). */
SQ_FN float sq_vc_cvalue_at(const SQ_GLOBAL uint16_t *img, const SQ_GLOBAL uint8_t *mask,
                            const SQ_GLOBAL uint16_t *hist, int w, int i, int j,
                            const SQ_GLOBAL uint8_t *first, const SQ_GLOBAL SqVcParams *p,
                            const SQ_GLOBAL float *recip)
{
    const int64_t o = (int64_t)i * w + j;
    const int v = img[o], d0 = first[v];
    if (!mask[o] || d0 == p->nd)
        return 0.0f;
    return d0 == SQ_VC_ANY ? sq_vc_cvalue(hist, w, j, v, p, recip)
                           : sq_vc_cvalue_run(hist, w, j, v, d0, p, recip);
}

/* Row i of the c-values into c (row i of a w-wide scale). */
SQ_FN void sq_vc_cvalue_row(const SQ_GLOBAL uint16_t *img, const SQ_GLOBAL uint8_t *mask,
                            const SQ_GLOBAL uint16_t *hist, int w, int i,
                            const SQ_GLOBAL uint8_t *first, const SQ_GLOBAL SqVcParams *p,
                            const SQ_GLOBAL float *recip, SQ_GLOBAL float *c)
{
    const int64_t o = (int64_t)i * w;
    for (int j = 0; j < w; j++)
        c[o + j] = sq_vc_cvalue_at(img, mask, hist, w, i, j, first, p, recip);
}

/* The band (sq_vc_band) into lo, hi, and the histogram rows a c-value reads cleared. */
SQ_FN void sq_vc_hist_clear(const SQ_GLOBAL SqVcParams *p, const SqVcBufs *bf, int w, int *lo, int *hi)
{
    sq_vc_band(p, lo, hi);
    /* the rows a c-value reads: bins of lo - nd .. hi + nd */
    for (int64_t k = (int64_t)*lo * w; k < (int64_t)(*hi + 2 * p->nd + 1) * w; k++)
        bf->hist[k] = 0;
}

/* The c-values of a w x h scale into bf->c, the histograms sliding down the rows. */
SQ_FN void sq_vc_cvalues(const SQ_GLOBAL SqVcParams *p, const SqVcBufs *bf, int w, int h)
{
    const int pad = p->ws >> 1, nd = p->nd;
    int lo, hi;
    sq_vc_hist_clear(p, bf, w, &lo, &hi);
    for (int r = 0; r < pad; r++)
        sq_vc_hist_move(bf->img, bf->mask, w, h, r, -1, pad, nd, lo, hi, bf->hist);
    for (int i = 0; i < h; i++) {
        sq_vc_hist_move(bf->img, bf->mask, w, h, i + pad, i - pad - 1, pad, nd, lo, hi, bf->hist);
        sq_vc_cvalue_row(bf->img, bf->mask, bf->hist, w, i, bf->first, p, bf->recip, bf->c);
    }
}

/* A pixel of histogram row ba in (ba >= 0), one of row br out, in column counters col. */
SQ_FN void sq_vc_hist_pair(SQ_GLOBAL uint16_t *col, int w, int ba, int br)
{
    if (ba == br)
        return;
    if (ba >= 0)
        col[(int64_t)ba * w]++;
    if (br >= 0)
        col[(int64_t)br * w]--;
}

/* Column j's counters (col, of bin 0) with row add's counted pixels within [a, e] in, row rem's out. */
SQ_FN void sq_vc_hist_col(const SqVcBufs *bf, SQ_GLOBAL uint16_t *col, int w, int h, int a, int e,
                          int add, int rem, int nd, int lo, int hi)
{
    for (int k = a; k <= e; k++)
        sq_vc_hist_pair(col, w, sq_vc_hist_bin(bf->img, bf->mask, w, h, add, k, nd, lo, hi),
                        sq_vc_hist_bin(bf->img, bf->mask, w, h, rem, k, nd, lo, hi));
}

/*
 * Rows i0..i1-1 of column j's part of sq_vc_cvalues, for the GPU's one item
 * a column and band of rows: the column's counters of every histogram row
 * read, in hist (a histogram of the band's own), cleared, the window of row
 * i0 counted, then slid down the band (each counted pixel within pad of
 * column j in, the one leaving out), and the c-values. Counter (bin, j) is
 * the item's alone, and counts are integers: the counters, and so the
 * c-values, are sq_vc_cvalues'.
 */
SQ_FN void sq_vc_cvalues_col(const SQ_GLOBAL SqVcParams *p, const SqVcBufs *bf, SQ_GLOBAL uint16_t *hist,
                             int w, int h, int j, int i0, int i1)
{
    const int pad = p->ws >> 1, nd = p->nd;
    int lo, hi;
    sq_vc_band(p, &lo, &hi);
    SQ_GLOBAL uint16_t *col = hist + j;
    for (int b = lo; b < hi + 2 * nd + 1; b++)
        col[(int64_t)b * w] = 0;
    const int a = j - pad < 0 ? 0 : j - pad, e = j + pad >= w ? w - 1 : j + pad;
    for (int r = i0 - pad; r < i0 + pad; r++)
        sq_vc_hist_col(bf, col, w, h, a, e, r, -1, nd, lo, hi);
    for (int i = i0; i < i1; i++) {
        sq_vc_hist_col(bf, col, w, h, a, e, i + pad, i > i0 ? i - pad - 1 : -1, nd, lo, hi);
        bf->c[(int64_t)i * w + j] =
            sq_vc_cvalue_at(bf->img, bf->mask, hist, w, i, j, bf->first, p, bf->recip);
    }
}

#endif
