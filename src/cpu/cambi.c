/*
 * libvmaf's CAMBI on the CPU: its scratch, and a frame's SQ_JOB_CAMBI jobs
 * (every stream's: each reads its own distorted luma) by the thread that
 * scores the frame.
 */
#include <string.h>

#include "cpu/backend_priv.h"
#include "cpu/cambi.h"

int sq_cpu_vc_alloc(SqVcBufs *b, int W, int H, int W0, int H0, int nd, const SqAlloc *a,
                    SqZeroLater *zl)
{
    /* c and hist hold one scale at a time, scale 0 the largest: sized for the input they
     * were 12 of 20 MB at 1080p with high_res_speedup, half of it never used yet zeroed at
     * open (first-touch faults) */
    const SqVcSizes z = sq_vc_sizes(W, H, nd), z0 = sq_vc_sizes(W0, H0, nd);
    memset(b, 0, sizeof(*b));
    b->img = sq_calloc_later(a, (size_t)z.img, sizeof(*b->img), zl);
    b->zero = sq_calloc_later(a, (size_t)z.zero, 1, zl);
    b->mask = sq_calloc_later(a, (size_t)z.mask, 1, zl);
    b->colsum = sq_calloc_later(a, (size_t)z.colsum, sizeof(*b->colsum), zl);
    b->mode = sq_calloc_later(a, (size_t)z.mode, sizeof(*b->mode), zl);
    b->hist = sq_calloc_later(a, (size_t)z0.hist + 2 * SQ_VC_HIST_SLACK, sizeof(*b->hist), zl);
    if (b->hist)
        b->hist += SQ_VC_HIST_SLACK;
    b->c = sq_calloc_later(a, (size_t)z0.c, sizeof(*b->c), zl);
    b->cnt = sq_calloc_later(a, (size_t)z.cnt, sizeof(*b->cnt), zl);
    b->first = sq_calloc_later(a, (size_t)z.first, 1, zl);
    return b->img && b->zero && b->mask && b->colsum && b->mode && b->hist && b->c && b->cnt &&
                   b->first
               ? 0
               : -1;
}

void sq_cpu_vc_free(SqVcBufs *b, const SqAlloc *a)
{
    sq_free(a, b->img);
    sq_free(a, b->zero);
    sq_free(a, b->mask);
    sq_free(a, b->colsum);
    sq_free(a, b->mode);
    sq_free(a, b->hist ? b->hist - SQ_VC_HIST_SLACK : NULL);
    sq_free(a, b->c);
    sq_free(a, b->cnt);
    sq_free(a, b->first);
    memset(b, 0, sizeof(*b));
}

/*
 * Mask row i (sq_vc_mask) from the column sums. dec: high_res_speedup's
 * decimation at scale 0 (sq_vc_decimate), here: only even rows are read
 * by it, and such a row's image and mask rows are decimated at once, in
 * place. Decimated row k = i/2 is written from k cw up to (k + 1) cw <=
 * (2k + 1) w (cw = (w + 1) >> 1): rows from i + 1 on, still read by the
 * sweep (rows i + 4 and on) and mask rows to come, are not touched, and
 * row k = 0 reads each sample at or after the one it writes.
 */
static void vc_mask_ready(const SqDsp *dsp, const SqVcBufs *bf, int w, int mi, int i, int dec)
{
    if (dec && (i & 1))
        return;
    dsp->vc_mask_row(bf->colsum, w, i, mi, bf->mask);
    if (!dec)
        return;
    dsp->vc_decimate_row(bf->img, bf->mask, w, (w + 1) >> 1, i >> 1);
}

/* Row z of Z is ready: into the column sums, and the mask row it completes. */
static void vc_zero_ready(const SqDsp *dsp, const SqVcBufs *bf, int w, int h, int mi, int z,
                          int dec)
{
    const int mh = SQ_VC_MASK_SIDE >> 1, i = z - mh;
    /* row z in and row i - mh - 1 out in one pass (u16 sums modulo 2^16: as sq_vc_colsum_row's two) */
    if (i - mh - 1 >= 0)
        dsp->vc_colsum_move(bf->zero + (int64_t)z * w, bf->zero + (int64_t)(i - mh - 1) * w, w,
                            bf->colsum);
    else
        sq_vc_colsum_row(bf->zero, w, h, z, 1, bf->colsum);
    if (i >= 0)
        vc_mask_ready(dsp, bf, w, mi, i, dec);
}

/*
 * sq_vc_frame_begin with the DSP table's rows, a few rows apart in one
 * sweep (each row is read while in cache): row i+1 converted before row i
 * is dithered (which reads it unfiltered), Z's row i-1 once rows i-1 and i
 * are final, a mask row once Z's rows to 3 below it are summed, and with
 * p->hrs scale 0's decimation (vc_mask_ready).
 */
static void vc_begin(const SqDsp *dsp, const uint8_t *src, int64_t stride, int acc,
                     const SqVcParams *p, const SqVcBufs *bf)
{
    const int w = p->w, h = p->h, mh = SQ_VC_MASK_SIDE >> 1;
    const int mi = sq_vc_mask_index(w, h);
    memset(bf->colsum, 0, (size_t)w * sizeof(*bf->colsum));
    dsp->vc_convert_row(src, stride, acc, p->bpc, w, 0, bf->img);
    for (int i = 0; i < h; i++) {
        if (i + 1 < h)
            dsp->vc_convert_row(src, stride, acc, p->bpc, w, i + 1, bf->img);
        if (p->anti_dither)
            dsp->vc_dither_row(bf->img, w, h, i);
        if (i >= 1) {
            dsp->vc_zero_row(bf->img, w, h, i - 1, bf->zero);
            vc_zero_ready(dsp, bf, w, h, mi, i - 1, p->hrs);
        }
    }
    dsp->vc_zero_row(bf->img, w, h, h - 1, bf->zero);
    vc_zero_ready(dsp, bf, w, h, mi, h - 1, p->hrs);
    /* the last rows' masks: nothing left to add */
    for (int i = h > mh ? h - mh : 0; i < h; i++) {
        sq_vc_colsum_row(bf->zero, w, h, i - mh - 1, -1, bf->colsum);
        vc_mask_ready(dsp, bf, w, mi, i, p->hrs);
    }
    sq_vc_first_table(p, bf->first);
}

/* sq_vc_cvalues through the DSP table's kernels. */
static void vc_cvalues(const SqDsp *dsp, const SqVcParams *p, const SqVcBufs *bf, int w, int h)
{
    const int pad = p->ws >> 1, nd = p->nd;
    int lo, hi;
    sq_vc_hist_clear(p, bf, w, &lo, &hi);
    for (int r = 0; r < pad; r++)
        dsp->vc_hist_move(bf->img, bf->mask, w, h, r, -1, pad, nd, lo, hi, bf->hist);
    for (int i = 0; i < h; i++) {
        dsp->vc_hist_move(bf->img, bf->mask, w, h, i + pad, i - pad - 1, pad, nd, lo, hi,
                          bf->hist);
        dsp->vc_cvalue_row(bf->img, bf->mask, bf->hist, w, i, bf->first, p, bf->recip, bf->c);
    }
}

/* sq_vc_mode_filter with the DSP table's rows. */
static void vc_mode_filter(const SqDsp *dsp, uint16_t *img, int w, int h, uint16_t *ring)
{
    if (h < 3)
        return;
    dsp->vc_mode_h(img, w, ring);
    dsp->vc_mode_h(img + w, w, ring + w);
    for (int i = 1; i < h - 1; i++) {
        const uint16_t *a = ring + (int64_t)((i - 1) % 3) * w;
        const uint16_t *b = ring + (int64_t)(i % 3) * w;
        uint16_t *c = ring + (int64_t)((i + 1) % 3) * w;
        dsp->vc_mode_h(img + (int64_t)(i + 1) * w, w, c);
        dsp->vc_mode_v(a, b, c, w, img + (int64_t)i * w);
    }
}

/* sq_vc_scale_image with the DSP table's mode filter. */
static void vc_scale_image(const SqDsp *dsp, const SqVcParams *p, const SqVcBufs *bf, int s,
                           int *pw, int *ph)
{
    int cw, ch;
    sq_vc_scale_dims(p, s, &cw, &ch);
    if (cw != *pw || ch != *ph)
        sq_vc_decimate(bf->img, bf->mask, *pw, *ph);
    *pw = cw;
    *ph = ch;
    vc_mode_filter(dsp, bf->img, cw, ch, bf->mode);
}

/* sq_vc_pool_fast with the DSP table's passes (sq_vc_topk_exact's steps). */
static sq_f64 vc_pool(const SqDsp *dsp, float *c, int n, int k, uint32_t *cnt)
{
    uint32_t *runs = cnt + 65536;
    memset(cnt, 0, 32768 * sizeof(*cnt));
    uint32_t zeros = 0;
    if (!dsp->vc_count_hi(c, n, cnt, &zeros))
        return sq_vc_pool(c, n, k);
    sq_vc_run_sums(cnt, SQ_VC_RUNS1, runs);
    sq_vc_add_zeros(cnt, runs, zeros);
    int hi, above;
    const int emin = sq_vc_topk_digit(cnt, runs, k, &hi, &above);
    memset(cnt, 0, 65536 * sizeof(*cnt));
    int64_t sum = 0;
    const int ok = dsp->vc_sum_hi(c, n, hi, emin, &sum, cnt);
    sq_vc_run_sums(cnt, SQ_VC_RUNS2, runs);
    return sq_vc_pool_end(c, n, k, cnt, runs, ok, hi, above, emin, sum, zeros);
}

/* sq_vc_frame with the DSP table's kernels. */
static double vc_frame(const SqDsp *dsp, const uint8_t *src, int64_t stride, int acc,
                       const SqVcParams *p, const SqVcBufs *bf)
{
    sq_f64 sc[SQ_VC_SCALES];
    vc_begin(dsp, src, stride, acc, p, bf);
    /* with hrs, vc_begin decimated the image and mask to scale 0's size */
    int w = p->w, h = p->h;
    if (p->hrs)
        sq_vc_scale_dims(p, 0, &w, &h);
    for (int s = 0; s < SQ_VC_SCALES; s++) {
        vc_scale_image(dsp, p, bf, s, &w, &h);
        vc_cvalues(dsp, p, bf, w, h);
        sc[s] = vc_pool(dsp, bf->c, w * h, sq_vc_scale_k(p, s, w * h), bf->cnt);
    }
    return sq_vc_score(sc, p);
}

void sq_cpu_cambi_jobs(const CpuPriv *c, Worker *w, const Planes *cur, uint32_t present,
                       SqRawResult *out)
{
    const int bpc = c->p.format.bpc;
    for (int idx = 0; idx < c->p.njobs; idx++) {
        const SqJob *jb = &c->p.jobs[idx];
        const int d = idx / c->per;
        if (jb->kind != SQ_JOB_CAMBI || !(present >> (1 + d) & 1))
            continue;
        const SqPlan *plan = c->p.plans[jb->plan];
        const Planes *pc = &cur[jb->side[1].pic];
        const int pl = jb->side[1].plane, acc = pc->acc[pl];
        /* A sample above the depth (the range frame.c took before the jobs) fails the
         * frame (sq_jobs_check_range) and is not scored: the math's histograms hold 10-bit
         * codes only */
        if (bpc > 8 && bpc < 16 && out->range[idx][1][SQ_RANGE_CUR_MAX] >> bpc)
            continue;
        SqVcBufs bf = w->vc;
        bf.recip = plan->vc_recip;
        out->cambi[idx] = vc_frame(&c->dsp, pc->data[pl], pc->stride[pl], acc, &plan->vc, &bf);
    }
}
