/*
 * libvmaf's CAMBI (extractor "cambi", spec vmaf-cambi-and-prediction part A),
 * bit-identical to libvmaf 3.2.0, no-reference mode at the input size (no
 * enc_width/enc_height resampling, no full_ref). Part 1: the parameters,
 * the scratch buffers, the preprocessing (A.4: 10-bit conversion and
 * anti-dithering) and the spatial mask (A.5). The multi-scale loop (A.6) is
 * math/vmaf_cambi_scale.h; the pooling and the frame score (A.6.4, A.7)
 * math/vmaf_cambi_pool.h, whose sq_vc_frame is the entry point.
 *
 * What the host computes (the only parts that need libm: pow, and strtof
 * of a printed double), tests/vmafint/cambi_params.c for now:
 *   SqVcParams.tvi    the adjusted TVI thresholds (tvi_raw + nd, A.3);
 *   SqVcParams.vlt_luma, ws, hrs (effective), K[] (topk counts per scale);
 *   SqVcBufs.recip    the reciprocal table R[0..4225] (f32, A.3).
 * Everything here is integer but the f32 c-values (one conversion and one
 * multiply each) and the f64 pooling sums, through math/f64.h.
 */
#ifndef SQ_MATH_VMAF_CAMBI_H
#define SQ_MATH_VMAF_CAMBI_H

#include "math/f64.h"
#include "math/filter.h"

#define SQ_VC_SCALES 5
#define SQ_VC_MAX_DIFFS 32
#define SQ_VC_RECIP_N 4226
#define SQ_VC_MASK_SIDE 7
/* The pooling's counters (math/vmaf_cambi_pool.h): 65536 digits, then the
 * sums of their runs of SQ_VC_RUN. */
#define SQ_VC_RUN 128
#define SQ_VC_RUNS1 (32768 / SQ_VC_RUN)
#define SQ_VC_RUNS2 (65536 / SQ_VC_RUN)
#define SQ_VC_CNT (65536 + SQ_VC_RUNS2)

typedef struct SqVcParams {
    int w, h;        /* luma size (= the encode size: no resampling) */
    int bpc;         /* input bit depth */
    int anti_dither; /* enc_bitdepth < 10 */
    int nd;          /* 2^max_log_contrast */
    int ws;          /* window side, odd, the same at every scale */
    int hrs;         /* 1: high_res_speedup is effective (decimate at scale 0 too) */
    int vlt_luma;
    int tvi[SQ_VC_MAX_DIFFS];    /* adjusted thresholds tvi_raw[d] + nd */
    int weight[SQ_VC_MAX_DIFFS]; /* contrast weights w[d] */
    int K[SQ_VC_SCALES];         /* pooled count per scale, (int)(topk * N) in [1, N] */
    sq_f64 max_val;              /* cambi_max_val */
} SqVcParams;

/*
 * Scratch of one frame (sizes: sq_vc_sizes). img: the 10-bit working image,
 * decimated in place; zero: the zero-derivative indicator; mask: the
 * spatial mask, decimated in place; colsum: the mask's column sums; mode: the
 * mode filter's three rows; hist: the window histograms, one row of w
 * counters per value; c: the c-values of a scale; cnt: the pooling's radix
 * counts (65536); first: the first counted term per value (1025,
 * sq_vc_first_table); recip: R[] (host, read only).
 */
typedef struct SqVcBufs {
    SQ_GLOBAL uint16_t *img;
    SQ_GLOBAL uint8_t *zero;
    SQ_GLOBAL uint8_t *mask;
    SQ_GLOBAL uint16_t *colsum;
    SQ_GLOBAL uint16_t *mode;
    SQ_GLOBAL uint16_t *hist;
    SQ_GLOBAL float *c;
    SQ_GLOBAL uint32_t *cnt;
    SQ_GLOBAL uint8_t *first;
    const SQ_GLOBAL float *recip;
} SqVcBufs;

/* Element counts of SqVcBufs' members (recip: SQ_VC_RECIP_N floats). */
typedef struct SqVcSizes {
    int64_t img, zero, mask, colsum, mode, hist, c, cnt, first;
} SqVcSizes;

/* Histogram values: -nd .. 1024 + nd (a 12- or 16-bit maximum converts to 1024). */
SQ_FN int sq_vc_bins(int nd)
{
    return 1025 + 2 * nd;
}

SQ_FN SqVcSizes sq_vc_sizes(int w, int h, int nd)
{
    SqVcSizes s;
    const int64_t n = (int64_t)w * h;
    s.img = n;
    s.zero = n;
    s.mask = n;
    s.colsum = w;
    s.mode = 3 * (int64_t)w;
    /* 2 more: the SIMD c-values gather 32 bits at a 16-bit counter (cpu/dsp.h) */
    s.hist = (int64_t)w * sq_vc_bins(nd) + 2;
    s.c = n;
    s.cnt = SQ_VC_CNT;
    s.first = 1025;
    return s;
}

/* One input sample as a 10-bit code (A.4.2). */
SQ_FN int sq_vc_to10(uint32_t v, int bpc)
{
    if (bpc <= 8)
        return (int)(v << (10 - bpc));
    if (bpc == 9)
        return (int)(v << 1);
    const int r = bpc == 10 ? 0 : 1 << (bpc - 11);
    return ((int)v + r) >> (bpc - 10);
}

/* Row i of the input plane as 10-bit codes into img (stride w). */
SQ_FN void sq_vc_convert_row(const SQ_GLOBAL uint8_t *src, int64_t stride, int acc, int bpc,
                             int w, int i, SQ_GLOBAL uint16_t *img)
{
    const SQ_GLOBAL uint8_t *row = src + (int64_t)i * stride;
    SQ_GLOBAL uint16_t *out = img + (int64_t)i * w;
    if (acc == 0 && bpc == 8) {
        for (int j = 0; j < w; j++)
            out[j] = (uint16_t)(row[j] << 2);
        return;
    }
    for (int j = 0; j < w; j++)
        out[j] = (uint16_t)sq_vc_to10(sq_sample(row, j, acc), bpc);
}

/* Pixel j of a row p (w wide) anti-dithered (A.4.4), last: p is the last row (else p + w is the next). */
SQ_FN uint16_t sq_vc_dither_at(const SQ_GLOBAL uint16_t *p, int w, int last, int j)
{
    const SQ_GLOBAL uint16_t *q = p + w;
    if (!last)
        return (uint16_t)(j < w - 1 ? (p[j] + p[j + 1] + q[j] + q[j + 1]) >> 2 : (p[j] + q[j]) >> 1);
    return (uint16_t)(j < w - 1 ? (p[j] + p[j + 1]) >> 1 : p[j]);
}

/*
 * Anti-dithering of row i in place (A.4.4), rows in increasing order: row i
 * reads rows i and i+1 before either is filtered (row i+1 is filtered later,
 * and each pixel reads only pixels to its right and below).
 */
SQ_FN void sq_vc_dither_row(SQ_GLOBAL uint16_t *img, int w, int h, int i)
{
    SQ_GLOBAL uint16_t *p = img + (int64_t)i * w;
    for (int j = 0; j < w; j++)
        p[j] = sq_vc_dither_at(p, w, i == h - 1, j);
}

/* The whole preprocessing of a frame into bf->img. */
SQ_FN void sq_vc_preprocess(const SQ_GLOBAL uint8_t *src, int64_t stride, int acc,
                            const SQ_GLOBAL SqVcParams *p, const SqVcBufs *bf)
{
    for (int i = 0; i < p->h; i++)
        sq_vc_convert_row(src, stride, acc, p->bpc, p->w, i, bf->img);
    if (p->anti_dither)
        for (int i = 0; i < p->h; i++)
            sq_vc_dither_row(bf->img, p->w, p->h, i);
}

/* mask_index of A.5: (49 + 3 * (ceil_log2(n) - 11) - 1) >> 1, n = (w >> 6) * (h >> 6). */
SQ_FN int sq_vc_mask_index(int w, int h)
{
    const uint32_t n = ((uint32_t)w >> 6) * ((uint32_t)h >> 6);
    int cl = 0;
    if (n)
        for (uint32_t m = n - 1; m; m >>= 1)
            cl++;
    return (49 + 3 * (cl - 11) - 1) >> 1;
}

/* Z at pixel j of row p (A.5), last: p is the last row (else p + w is the next). */
SQ_FN uint8_t sq_vc_zero_at(const SQ_GLOBAL uint16_t *p, int w, int last, int j)
{
    const SQ_GLOBAL uint16_t *q = p + w;
    if (!last)
        return (uint8_t)(j < w - 1 ? (p[j] == p[j + 1]) & (p[j] == q[j]) : p[j] == q[j]);
    return (uint8_t)(j < w - 1 ? p[j] == p[j + 1] : 1);
}

/* Row i of the zero-derivative indicator Z (A.5). */
SQ_FN void sq_vc_zero_row(const SQ_GLOBAL uint16_t *img, int w, int h, int i,
                          SQ_GLOBAL uint8_t *zero)
{
    const SQ_GLOBAL uint16_t *p = img + (int64_t)i * w;
    SQ_GLOBAL uint8_t *z = zero + (int64_t)i * w;
    for (int j = 0; j < w; j++)
        z[j] = sq_vc_zero_at(p, w, i == h - 1, j);
}

/* Adds (sign 1) or removes (-1) row r of Z to the column sums, if r is a row. */
SQ_FN void sq_vc_colsum_row(const SQ_GLOBAL uint8_t *zero, int w, int h, int r, int sign,
                            SQ_GLOBAL uint16_t *colsum)
{
    if (r < 0 || r >= h)
        return;
    const SQ_GLOBAL uint8_t *z = zero + (int64_t)r * w;
    for (int j = 0; j < w; j++)
        colsum[j] = (uint16_t)(colsum[j] + sign * z[j]);
}

/* Column j of the column sums, a row of Z in (add) and one out (rem): u16, modulo 2^16. */
SQ_FN void sq_vc_colsum_move_at(const SQ_GLOBAL uint8_t *add, const SQ_GLOBAL uint8_t *rem, int j,
                                SQ_GLOBAL uint16_t *colsum)
{
    colsum[j] = (uint16_t)(colsum[j] + add[j] - rem[j]);
}

/* A pixel is in the mask when its 7x7 sum of Z is above mask_index (A.5). */
SQ_FN int sq_vc_masked(int sum, int mask_index)
{
    return sum > mask_index;
}

/* Column k of Z summed over rows i-3..i+3 inside the image (0 outside its columns). */
SQ_FN int sq_vc_mask_col(const SQ_GLOBAL uint8_t *zero, int w, int h, int i, int k)
{
    const int mh = SQ_VC_MASK_SIDE >> 1;
    int s = 0;
    if (k < 0 || k >= w)
        return 0;
    for (int r = i - mh; r <= i + mh; r++)
        if (r >= 0 && r < h)
            s += zero[(int64_t)r * w + k];
    return s;
}

/*
 * The mask at pixel (i, j) from Z alone: the 7x7 sum inside the image
 * (what sq_vc_mask_row reads from the sliding column sums, an integer sum
 * in any order), for the GPU's one item a pixel.
 */
SQ_FN uint8_t sq_vc_mask_at(const SQ_GLOBAL uint8_t *zero, int w, int h, int i, int j,
                            int mask_index)
{
    const int mh = SQ_VC_MASK_SIDE >> 1;
    int s = 0;
    for (int k = j - mh; k <= j + mh; k++)
        s += sq_vc_mask_col(zero, w, h, i, k);
    return (uint8_t)sq_vc_masked(s, mask_index);
}

/* The column sums of columns j-3..j+3 inside the row. */
SQ_FN int sq_vc_mask_sum(const SQ_GLOBAL uint16_t *colsum, int w, int j)
{
    const int mh = SQ_VC_MASK_SIDE >> 1;
    int s = 0;
    for (int k = j - mh; k <= j + mh; k++)
        if (k >= 0 && k < w)
            s += colsum[k];
    return s;
}

/*
 * Row i of the mask from the column sums of rows i-3..i+3: the 7x7 sum >
 * mask_index. Each column's seven sums added anew, not slid: no chain from
 * column to column, so the inner columns vectorise.
 */
SQ_FN void sq_vc_mask_row(const SQ_GLOBAL uint16_t *colsum, int w, int i, int mask_index,
                          SQ_GLOBAL uint8_t *mask)
{
    const int mh = SQ_VC_MASK_SIDE >> 1;
    SQ_GLOBAL uint8_t *m = mask + (int64_t)i * w;
    const int a = mh < w ? mh : w, b = w - mh > a ? w - mh : a;
    for (int j = 0; j < a; j++)
        m[j] = (uint8_t)sq_vc_masked(sq_vc_mask_sum(colsum, w, j), mask_index);
    for (int j = a; j < b; j++) {
        int s = 0;
        for (int k = -mh; k <= mh; k++)
            s += colsum[j + k];
        m[j] = (uint8_t)sq_vc_masked(s, mask_index);
    }
    for (int j = b; j < w; j++)
        m[j] = (uint8_t)sq_vc_masked(sq_vc_mask_sum(colsum, w, j), mask_index);
}

/* The spatial mask of the preprocessed frame into bf->mask (A.5). */
SQ_FN void sq_vc_mask(const SQ_GLOBAL SqVcParams *p, const SqVcBufs *bf)
{
    const int w = p->w, h = p->h, mh = SQ_VC_MASK_SIDE >> 1;
    const int mi = sq_vc_mask_index(w, h);
    for (int i = 0; i < h; i++)
        sq_vc_zero_row(bf->img, w, h, i, bf->zero);
    for (int j = 0; j < w; j++)
        bf->colsum[j] = 0;
    for (int r = 0; r < mh; r++)
        sq_vc_colsum_row(bf->zero, w, h, r, 1, bf->colsum);
    for (int i = 0; i < h; i++) {
        sq_vc_colsum_row(bf->zero, w, h, i + mh, 1, bf->colsum);
        sq_vc_colsum_row(bf->zero, w, h, i - mh - 1, -1, bf->colsum);
        sq_vc_mask_row(bf->colsum, w, i, mi, bf->mask);
    }
}

#endif
