/*
 * The CPU backend's work on one plane side: est_params (math/est.h) in
 * stages, through the side's DSP table. Besides SIMD, three savings keep
 * every bit of the math core: the vertical pass runs only at the columns
 * (and prescale only at the rows) the decimated passes read; the input
 * rows a side reads are known in advance (sq_plan_rows_read); the explicit-Q
 * QR solve skips products that are exactly +-0. tests/checkkernel checks
 * all of it against a pipeline built from the math core alone.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "cpu/cpu.h"
#include "math/est.h"
#include "math/filter.h"
#include "math/prescale.h"
#include "math/score.h"

/* Rows the side reads of a plane with access acc, as planar rows into buf. */
static void unpack_plane(const SqPlan *p, const SqCpuSide *s, uint8_t *buf, const uint8_t *base,
                         int64_t stride, int acc)
{
    const size_t row = (size_t)p->d.w << (acc & SQ_ACC_16);
    for (int y = 0; y < p->d.h; y++)
        if (s->srcrows[y])
            sq_unpack_row(buf + (size_t)y * row, base + (ptrdiff_t)y * stride, p->d.w, acc);
}

/* src itself, or (another access) the same planes unpacked into s->unpack. */
static const SqSrc *planar_src(const SqPlan *p, SqCpuSide *s, const SqSrc *src, SqSrc *tmp)
{
    if (src->cur_acc < 2 && (!src->prev || src->prev_acc < 2))
        return src;
    *tmp = *src;
    const int64_t row = (int64_t)p->d.w << (src->hbd ? 1 : 0);
    if (src->cur_acc >= 2) {
        unpack_plane(p, s, s->unpack[0], src->cur, src->cur_stride, src->cur_acc);
        tmp->cur = s->unpack[0];
        tmp->cur_stride = row;
        tmp->cur_acc = src->hbd;
    }
    if (src->prev && src->prev_acc >= 2) {
        unpack_plane(p, s, s->unpack[1], src->prev, src->prev_stride, src->prev_acc);
        tmp->prev = s->unpack[1];
        tmp->prev_stride = row;
        tmp->prev_acc = src->hbd;
    }
    return tmp;
}

/*
 * The out-of-range check of one raw picture: the OR of every sample of the
 * rows [lo, hi) into acc[1], called right after the vertical pass read them.
 * One bit above the depth is all a bad sample needs, so the hot path is one
 * OR per sample; the largest value, for the message, is looked for only
 * then (range_finish).
 */
static void range_rows(const SqDsp *dsp, uint32_t *acc, const uint8_t *base, int64_t stride,
                       int lo, int hi, int w)
{
    if (acc)
        for (int y = lo; y < hi; y++)
            dsp->or_16bpc(&acc[1], base + (ptrdiff_t)y * stride, w);
}

static void range_finish(const SqPlan *p, const SqCpuSide *s, uint32_t *acc, const uint8_t *base,
                         int64_t stride, int bpc)
{
    if (!acc || !(acc[1] >> bpc))
        return;
    uint32_t mx = 0;
    for (int y = 0; y < p->d.h; y++) {
        const uint8_t *r = base + (ptrdiff_t)y * stride;
        for (int x = 0; s->srcrows[y] && x < p->d.w; x++) {
            const uint32_t v = sq_load_u16(r, x);
            mx = v > mx ? v : mx;
        }
    }
    acc[0] = mx;
}

/* Rows [lo, hi) of cur that the side reads, into save (SqSrc.save). */
static void save_rows(const SqPlan *p, const SqCpuSide *s, const SqSrc *src, int lo, int hi)
{
    const size_t bytes = (size_t)p->d.w << (src->hbd ? 1 : 0);
    /* rows packed in both planes (stride = width) go a run at a time: one
     * call per window of rows instead of one per row */
    const int packed = src->cur_stride == (int64_t)bytes && src->save_stride == (int64_t)bytes;
    for (int y = lo; y < hi;) {
        if (!s->srcrows[y]) {
            y++;
            continue;
        }
        int e = y + 1;
        while (packed && e < hi && s->srcrows[e])
            e++;
        memcpy(src->save + (ptrdiff_t)y * src->save_stride,
               src->cur + (ptrdiff_t)y * src->cur_stride, bytes * (size_t)(e - y));
        y = e;
    }
}

static void prescale_plane(const SqPlan *p, SqCpuSide *s, const SqSrc *src)
{
    const SqDims *d = &p->d;
    /* Conversion (and temporal difference) of the rows the prescale reads:
     * a one-tap vertical pass, 0 + 1 * x == x exactly (x is never -0). */
    static const float one = 1.0f;
    const int32_t all[2] = { 0, d->w };
    for (int y = 0; y < d->h; y++) {
        if (!s->srcrows[y])
            continue;
        float *dst = s->conv + (size_t)y * d->w;
        if (src->hbd) {
            s->dsp.vfilt_16bpc(dst, src->cur, src->cur_stride, src->prev, src->prev_stride,
                               src->scale, d->h, y, &one, 1, all, 1, d->w);
            range_rows(&s->dsp, src->range_cur, src->cur, src->cur_stride, y, y + 1, d->w);
            range_rows(&s->dsp, src->range_prev, src->prev, src->prev_stride, y, y + 1, d->w);
        } else
            s->dsp.vfilt_8bpc(dst, src->cur, src->cur_stride, src->prev, src->prev_stride, d->h, y,
                              &one, 1, all, 1, d->w);
        if (src->save) /* row y is read once here */
            save_rows(p, s, src, y, y + 1);
    }
    /* Only the rows the decimated vertical pass reads. */
    for (int y = 0; y < d->scaled_h; y++) {
        if (!s->rows[y])
            continue;
        s->dsp.prescale_row(s->scaled + (size_t)y * d->scaled_w, s->conv, d->w, p->prescale,
                            p->ps_iy + (size_t)y * SQ_PS_TAPS, p->ps_wy + (size_t)y * SQ_PS_TAPS,
                            p->ps_ix, p->ps_wx, d->scaled_w);
    }
}

/*
 * Rows [i0, i1) of the operating image before the local mean: the vertical
 * pass into vrow (scaled_w floats) and the decimated horizontal pass, and
 * the range check of the raw rows their windows read, OR-ed into rc / rp
 * (NULL: none). Each output row depends on the input alone, so rows can be
 * computed in any split (sq_cpu_front_band) with the same bits.
 */
static void op_rows(const SqPlan *p, SqCpuSide *s, const SqSrc *src, int i0, int i1, float *vrow,
                    uint32_t *rc, uint32_t *rp)
{
    const SqDims *d = &p->d;
    const SqDsp *dsp = &s->dsp;
    const int sw = d->scaled_w, sh = d->scaled_h;
    /* raw rows [0, checked) are range-checked; each once, though windows overlap */
    int checked = 0, saved = 0;
    const int r = p->taps_a >> 1;
    for (int i = i0; i < i1; i++) {
        const int row = i << SQ_DECIM_SHIFT;
        int onepass = 0;
        if (p->prescale >= 0) {
            dsp->vfilt_f32(vrow, s->scaled, sw, sh, row, p->ga, p->taps_a, s->spans, s->nspans, sw);
        } else if (src->hbd) {
            dsp->vfilt_16bpc(vrow, src->cur, src->cur_stride, src->prev, src->prev_stride,
                             src->scale, sh, row, p->ga, p->taps_a, s->spans, s->nspans, sw);
            /* a window's mirrored rows lie inside it, so this covers them */
            const int lo = row - r > checked ? row - r : checked;
            const int hi = row + r + 1 < sh ? row + r + 1 : sh;
            range_rows(dsp, rc, src->cur, src->cur_stride, lo, hi, sw);
            range_rows(dsp, rp, src->prev, src->prev_stride, lo, hi, sw);
            checked = hi > checked ? hi : checked;
        } else if (!dsp->vhfilt_8bpc ||
                   dsp->vhfilt_8bpc(s->op + (size_t)i * d->op_w, src->cur, src->cur_stride,
                                    src->prev, src->prev_stride, sh, row, p->ga, p->taps_a, sw,
                                    d->op_w) < 0) {
            dsp->vfilt_8bpc(vrow, src->cur, src->cur_stride, src->prev, src->prev_stride,
                            sh, row, p->ga, p->taps_a, s->spans, s->nspans, sw);
        } else {
            onepass = 1; /* both passes done */
        }
        if (!onepass)
            dsp->hfilt_dec(s->op + (size_t)i * d->op_w, vrow, sw, p->ga, p->taps_a, d->op_w);
        if (src->save && p->prescale < 0) {
            /* the windows of later rows read rows >= 16 (i + 1) - r only
             * (mirrored ones included), so the rows below are done */
            const int next = i + 1 < d->op_h ? ((i + 1) << SQ_DECIM_SHIFT) - r : sh;
            if (next > saved) {
                save_rows(p, s, src, saved, next < sh ? next : sh);
                saved = next;
            }
        }
    }
}

/* After every row of the operating image: the range check's maximum, the local mean. */
static void op_finish(const SqPlan *p, SqCpuSide *s, const SqSrc *src)
{
    const SqDims *d = &p->d;
    const SqDsp *dsp = &s->dsp;
    if (src->hbd) {
        range_finish(p, s, src->range_cur, src->cur, src->cur_stride, src->bpc);
        range_finish(p, s, src->range_prev, src->prev, src->prev_stride, src->bpc);
    }
    const int32_t all[2] = { 0, d->op_w };
    for (int i = 0; i < d->op_h; i++) {
        dsp->vfilt_f32(s->mrow, s->op, d->op_w, d->op_h, i, p->gm, p->taps_m, all, 1, d->op_w);
        dsp->local_mean(s->dimg + (size_t)i * d->op_w, s->op + (size_t)i * d->op_w, s->mrow,
                        d->op_w, p->gm, p->taps_m);
    }
}

void sq_cpu_operating_image(const SqPlan *p, SqCpuSide *s, const SqSrc *src_in)
{
    SqSrc tmp;
    const SqSrc *src = planar_src(p, s, src_in, &tmp);
    if (p->prescale >= 0)
        prescale_plane(p, s, src);
    op_rows(p, s, src, 0, p->d.op_h, s->vrow, src->range_cur, src->range_prev);
    op_finish(p, s, src);
}

int sq_cpu_front_bands(const SqPlan *p, const SqSrc *src)
{
    /* prescale, unpacked and saved rows are whole-plane steps before or
     * within the rows: such a side stays whole */
    if (p->prescale >= 0 || src->save || src->cur_acc >= 2 || (src->prev && src->prev_acc >= 2))
        return 1;
    return p->d.op_h / SQ_CPU_BAND_ROWS; /* at least SQ_CPU_BAND_ROWS operating rows a band */
}

void sq_cpu_front_band(const SqPlan *p, SqCpuSide *s, const SqSrc *src, int band, int nbands,
                       float *vrow, uint32_t range[4])
{
    const int h = p->d.op_h;
    memset(range, 0, 4 * sizeof(*range));
    op_rows(p, s, src, (int)((int64_t)h * band / nbands), (int)((int64_t)h * (band + 1) / nbands),
            vrow, src->range_cur ? &range[0] : NULL,
            src->range_prev ? &range[2] : NULL);
}

void sq_cpu_front_join(const SqPlan *p, SqCpuSide *s, const SqSrc *src, const uint32_t (*range)[4],
                       int nbands)
{
    /* OR is order-free: the merged check equals the whole side's */
    for (int b = 0; b < nbands; b++) {
        if (src->range_cur)
            src->range_cur[1] |= range[b][1];
        if (src->range_prev)
            src->range_prev[1] |= range[b][3];
    }
    op_finish(p, s, src);
}

/*
 * Row terms of operating rows [y0, y1): y0 a multiple of 8, y1 one too or
 * trunc_h. They read image rows y0 .. y1 + b - 2 only, so the band is
 * passed as an image of those rows (the ones past trunc_h still absent).
 */
static void cov_rows(const SqPlan *p, SqCpuSide *s, int y0, int y1, double *ws)
{
    const SqDims *d = &p->d;
    const int end = y1 + d->b - 1 < d->trunc_h ? y1 + d->b - 1 : d->trunc_h;
    s->dsp.cov_rows(s->dl + (size_t)y0 * SQ_COV_LD, s->dimg + (size_t)y0 * d->op_w, d->op_w,
                    d->trunc_w, end - y0, y1 - y0, ws);
}

int sq_cpu_cov_bands(const SqPlan *p)
{
    return p->d.trunc_h / SQ_CPU_COV_ROWS;
}

void sq_cpu_cov_band(const SqPlan *p, SqCpuSide *s, int band, int nbands, double *ws)
{
    const int h = p->d.trunc_h;
    const int y0 = (int)((int64_t)h * band / nbands) & ~7;
    const int y1 = band + 1 == nbands ? h : (int)((int64_t)h * (band + 1) / nbands) & ~7;
    cov_rows(p, s, y0, y1, ws);
}

void sq_cpu_cov_join(const SqPlan *p, SqCpuSide *s)
{
    const SqDims *d = &p->d;
    const int b = d->b, n = d->n, nlags = SQ_COV_SEQS - 1;
    double sx[SQ_BLOCK * SQ_BLOCK];
    float mean[SQ_BLOCK * SQ_BLOCK];
    s->dsp.cov_sums(s->sums, s->dl, d->sub_h);
    for (int q = 0; q < n; q++) {
        sx[q] = s->sums[(q / b) * SQ_COV_LD + nlags * b + q % b];
        mean[q] = sq_cov_mean(sx[q], d->npatch);
    }
    for (int pp = 0; pp < n; pp++)
        for (int q = 0; q <= pp; q++) {
            int r0, c0;
            const int seq = sq_cov_pair_seq(b, pp, q, &r0, &c0);
            const double sxy = s->sums[r0 * SQ_COV_LD + seq * b + c0];
            const float v = sq_cov_entry(sxy, sx[pp], sx[q], mean[pp], mean[q], d->npatch);
            s->k[pp * n + q] = v;
            s->k[q * n + pp] = v;
        }
}

void sq_cpu_covariance(const SqPlan *p, SqCpuSide *s)
{
    cov_rows(p, s, 0, p->d.trunc_h, s->covws);
    sq_cpu_cov_join(p, s);
}

int sq_cpu_eigen(const SqPlan *p, SqCpuSide *s)
{
    return sq_cpu_eigenvalues(&s->dsp, s->k, p->d.n, s->lambda, s->eig) < 0 ? SQ_EST_EIGEN_CAP : 0;
}

int sq_cpu_back_prep(const SqPlan *p, SqCpuSide *s)
{
    const SqDims *d = &p->d;
    s->dsp.block_rows(s->y, s->dimg, d->op_w, d->nbh, d->nbv);
    const int ok = sq_eigen_regular(s->lambda, d->n) && sq_cpu_qr_factor(&s->dsp, s->k, d->n, s->sol) == 0;
    if (!ok)
        memset(s->x, 0, sizeof(float) * (size_t)d->n * d->nb);
    s->singular = ok ? 0 : SQ_EST_SINGULAR;
    return s->singular;
}

/* Variances and entropies of blocks [c0, c1). */
static void entropy_cols(const SqPlan *p, SqCpuSide *s, int c0, int c1)
{
    const SqDims *d = &p->d;
    s->dsp.block_var(s->s + c0, s->x + c0, s->y + c0, d->nb, d->n, c1 - c0);
    s->dsp.entropy(s->e + c0, s->lambda, d->n, s->s + c0, c1 - c0, p->sigma_nn);
}

void sq_cpu_back_cols(const SqPlan *p, SqCpuSide *s, int c0, int c1)
{
    if (!s->singular)
        sq_cpu_qr_apply(&s->dsp, p->d.n, s->y, p->d.nb, c0, c1, s->sol);
    entropy_cols(p, s, c0, c1);
}

int sq_cpu_solve(const SqPlan *p, SqCpuSide *s)
{
    const int r = sq_cpu_back_prep(p, s);
    if (!r)
        sq_cpu_qr_apply(&s->dsp, p->d.n, s->y, p->d.nb, 0, p->d.nb, s->sol);
    return r;
}

void sq_cpu_entropy(const SqPlan *p, SqCpuSide *s)
{
    entropy_cols(p, s, 0, p->d.nb);
}

int sq_cpu_side(const SqPlan *p, SqCpuSide *s, const SqSrc *src)
{
    sq_cpu_operating_image(p, s, src);
    sq_cpu_covariance(p, s);
    int flags = sq_cpu_eigen(p, s);
    flags |= sq_cpu_solve(p, s); /* sets s->singular */
    sq_cpu_entropy(p, s);
    return flags;
}

void sq_cpu_side_front(const SqPlan *p, SqCpuSide *s, const SqSrc *src)
{
    sq_cpu_operating_image(p, s, src);
    sq_cpu_covariance(p, s);
}

void sq_cpu_sides_eigen(SqCpuSide *const *s, const SqPlan *const *p, int count)
{
    /* the eigen-cap flag is not part of a plane's score */
    const float *k[SQ_CPU_EIGEN_WAYS];
    float *lambda[SQ_CPU_EIGEN_WAYS], *ws[SQ_CPU_EIGEN_WAYS];
    int ret[SQ_CPU_EIGEN_WAYS];
    while (count > 0) {
        /* a run of sides of one size at most SQ_CPU_EIGEN_WAYS long */
        int q = 0;
        for (; q < count && q < SQ_CPU_EIGEN_WAYS && p[q]->d.n == p[0]->d.n; q++) {
            k[q] = s[q]->k;
            lambda[q] = s[q]->lambda;
            ws[q] = s[q]->eig;
        }
        sq_cpu_eigenvalues_n(&s[0]->dsp, k, p[0]->d.n, lambda, ws, ret, q);
        s += q;
        p += q;
        count -= q;
    }
}

void sq_cpu_side_back(const SqPlan *p, SqCpuSide *s)
{
    sq_cpu_back_prep(p, s);
    sq_cpu_back_cols(p, s, 0, p->d.nb);
}

void sq_cpu_sides2(const SqPlan *p, SqCpuSide *a, SqCpuSide *b, const SqSrc *sa, const SqSrc *sb)
{
    /* sq_cpu_side on both, with the two eigenvalue problems side by side */
    sq_cpu_side_front(p, a, sa);
    sq_cpu_side_front(p, b, sb);
    SqCpuSide *const s[2] = { a, b };
    const SqPlan *const pp[2] = { p, p };
    sq_cpu_sides_eigen(s, pp, 2);
    sq_cpu_side_back(p, a);
    sq_cpu_side_back(p, b);
}

float sq_cpu_plane_score(const SqPlan *p, SqCpuSide *ref, SqCpuSide *dis,
                         const SqSrc *ref_src, const SqSrc *dis_src, int wvm, int *err)
{
    sq_cpu_sides2(p, ref, dis, ref_src, dis_src);
    return sq_cpu_pair_score(p, ref, dis, wvm, err);
}

float sq_cpu_pair_score(const SqPlan *p, const SqCpuSide *ref, SqCpuSide *dis, int wvm,
                        int *err)
{
    /* sq_pool, its terms through the DSP table (the log2s, side by side) */
    const float base = sq_pool_base(p->d.n, p->sigma_nn, p->nn_floor);
    dis->dsp.pool_terms(dis->terms, ref->e, ref->s, dis->e, dis->s, p->d.nb, base, wvm);
    const float pooled = sq_pool_mean(dis->terms, NULL, NULL, NULL, NULL, p->d.nb, base, wvm);
    *err = ref->singular || dis->singular;
    return sq_side_score(ref->singular, dis->singular, pooled);
}
