/*
 * The C reference of every DSP slot: loops around the math core's
 * per-output functions, so the C table computes exactly what the math core
 * defines, and SIMD versions are checked against it (tests/checkkernel).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/dsp.h"
#include "math/cov.h"
#include "math/eigen.h"
#include "math/filter.h"
#include "math/prescale.h"
#include "math/score.h"
#include "math/solve.h"
#include "math/vmaf_adm_pool.h"
#include "math/vmaf_cambi_pool.h"
#include "math/vmaf_motion.h"
#include "math/vmaf_vif.h"
#include "speedqa/speedqa.h"

static void vfilt_8bpc_c(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                         const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,
                         const float *g, int taps, const int32_t *spans, int nspans, int w)
{
    (void)w;
    for (int s = 0; s < nspans; s++)
        for (int c = spans[2 * s]; c < spans[2 * s + 1]; c++)
            dst[c] = sq_vfilter_raw(cur, cur_stride, prev, prev_stride, 0, 1.0f, h, g, taps, row, c);
}

static void or_16bpc_c(uint32_t *acc, const uint8_t *row, int w)
{
    uint16_t bits = 0; /* 16-bit lanes: the loop vectorises without widening */
    for (int x = 0; x < w; x++)
        bits |= (uint16_t)sq_load_u16(row, x);
    *acc |= bits;
}

static void vfilt_16bpc_c(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                          const uint8_t *prev, ptrdiff_t prev_stride, float scale, int h, int row,
                          const float *g, int taps, const int32_t *spans, int nspans, int w)
{
    (void)w;
    for (int s = 0; s < nspans; s++)
        for (int c = spans[2 * s]; c < spans[2 * s + 1]; c++)
            dst[c] = sq_vfilter_raw(cur, cur_stride, prev, prev_stride, 1, scale, h, g, taps, row, c);
}

static void vfilt_f32_c(float *dst, const float *img, ptrdiff_t stride, int h, int row,
                        const float *g, int taps, const int32_t *spans, int nspans, int w)
{
    (void)w;
    for (int s = 0; s < nspans; s++)
        for (int c = spans[2 * s]; c < spans[2 * s + 1]; c++)
            dst[c] = sq_vfilter_f32(img, stride, h, g, taps, row, c);
}

static void hfilt_dec_c(float *dst, const float *src, int w, const float *g, int taps, int nout)
{
    for (int j = 0; j < nout; j++)
        dst[j] = sq_hfilter_f32(src, w, g, taps, j << SQ_DECIM_SHIFT);
}

static void local_mean_c(float *dst, const float *op, const float *mrow, int w,
                         const float *g, int taps)
{
    for (int j = 0; j < w; j++)
        dst[j] = sq_local_mean_at(mrow, w, op, g, taps, j);
}

static void cov_rows_c(double *dl, const float *img, ptrdiff_t stride, int trunc_w, int trunc_h,
                       int rows, double *ws)
{
    const int b = SQ_BLOCK, sub_w = trunc_w - b + 1;
    (void)ws;
    for (int y = 0; y < rows; y++)
        for (int seq = 0; seq < SQ_COV_SEQS; seq++) {
            double ck[2 * SQ_BLOCK] = { 0 };
            sq_cov_row_lag(img, stride, trunc_w, trunc_h, b, sub_w, y, seq, ck);
            for (int c = 0; c < b; c++)
                dl[(size_t)y * SQ_COV_LD + seq * b + c] = ck[b + c] - ck[c];
        }
}

static void cov_sums_c(double *sums, const double *dl, int sub_h)
{
    for (int r0 = 0; r0 < SQ_BLOCK; r0++)
        for (int k = 0; k < SQ_COV_K; k++) {
            double acc = 0.0;
            for (int i = 0; i < sub_h; i++)
                acc = acc + dl[(size_t)(r0 + i) * SQ_COV_LD + k];
            sums[r0 * SQ_COV_LD + k] = acc;
        }
}

static void tridiag_c(float *a, int n, float *d, float *e, float *ws)
{
    sq_tridiag(a, n, d, e, ws);
}

static void matmul_c(float *out, ptrdiff_t ldo, const float *l, ptrdiff_t ldl,
                     const float *r, ptrdiff_t ldr, int rows, int cols, int depth)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            out[i * ldo + j] = sq_matmul_entry_ld(l, ldl, r, ldr, depth, i, j);
}

static void backsub_c(float *x, int ld, const float *rm, int n, int cols)
{
    for (int i = n - 1; i >= 0; i--)
        for (int j = 0; j < cols; j++)
            x[(size_t)i * ld + j] = sq_backsub_entry(rm, n, x, ld, i, j, x[(size_t)i * ld + j]);
}

static void block_rows_c(float *y, const float *img, int op_w, int nbh, int nbv)
{
    const int nb = nbh * nbv;
    for (int row = 0; row < SQ_BLOCK * SQ_BLOCK; row++)
        for (int m = 0; m < nb; m++)
            y[(size_t)row * nb + m] = sq_block_sample(img, op_w, SQ_BLOCK, nbh, row, m);
}

static void pool_terms_c(float *t, const float *er, const float *sr, const float *ed,
                         const float *sd, int nb, float base, int wvm)
{
    for (int m = 0; m < nb; m++)
        t[m] = sq_pool_term(er[m], sr[m], ed[m], sd[m], base, wvm);
}

static void block_var_c(float *s, const float *x, const float *y, int ld, int n, int cols)
{
    for (int m = 0; m < cols; m++)
        s[m] = sq_block_variance(x, y, n, ld, m);
}

static void entropy_c(float *e, const float *lambda, int n, const float *s, int nb, float sigma_nn)
{
    for (int m = 0; m < nb; m++)
        e[m] = sq_block_entropy(lambda, n, s[m], sigma_nn);
}

static void prescale_row_c(float *dst, const float *src, ptrdiff_t stride, int method,
                           const int32_t *iy, const float *wy, const int32_t *ix, const float *wx,
                           int w)
{
    for (int x = 0; x < w; x++)
        dst[x] = sq_prescale_at(src, stride, method, iy, wy, ix + (size_t)x * SQ_PS_TAPS,
                                wx + (size_t)x * SQ_PS_TAPS);
}

static uint64_t motion_sad_c(const uint8_t *prev, ptrdiff_t prev_stride, const uint8_t *cur,
                             ptrdiff_t cur_stride, int acc, int w, int h, int bpc, int y0, int y1,
                             int32_t *ws)
{
    return sq_vm_rows_sad2(prev, prev_stride, acc, cur, cur_stride, acc, w, h, bpc, y0, y1, ws);
}

static void adm_dec0_c(const int32_t *const *ob, const int32_t *const *tb, int n, double egl,
                       const uint32_t *ir, int32_t *const *r, int32_t *const *e, int32_t *const *A,
                       uint32_t *S)
{
    const SqVaScale sc = { { ir[0], ir[1], ir[2] }, { 0.0, 0.0, 0.0 } };
    for (int j = 0; j < n; j++) {
        sq_va_decouple_at(0, ob, tb, j, egl, r, e);
        sq_va_csf_sum_at(0, &sc, (const int32_t *const *)e, j, A, S);
    }
}

static void adm_decs_c(const int32_t *const *ob, const int32_t *const *tb, int n, double egl,
                       const uint32_t *ir, int32_t *const *r, int32_t *const *e, int32_t *const *A,
                       uint32_t *S)
{
    const SqVaScale sc = { { ir[0], ir[1], ir[2] }, { 0.0, 0.0, 0.0 } };
    for (int j = 0; j < n; j++) {
        sq_va_decouple_at(1, ob, tb, j, egl, r, e);
        sq_va_csf_sum_at(1, &sc, (const int32_t *const *)e, j, A, S);
    }
}

static void adm_dwt_c(const uint8_t *src8, ptrdiff_t stride, int acc, int bpc, const int32_t *src,
                      int w, int h, int scale, int only_a, int i0, int i1, int32_t *lo,
                      int32_t *hi, int32_t *const *band)
{
    sq_va_dwt_rows(src8, stride, acc, bpc, src, w, h, scale, only_a, i0, i1, lo, hi, band);
}

static void adm_den_row_c(int s, const int32_t *const *row, int l, int r, int c, int rho,
                          uint64_t *acc)
{
    sq_va_den_row(s, row, l, r, c, rho, acc);
}

static void adm_csf_row_c(int s, const uint32_t *ir, const int32_t *const *src, int n,
                          int32_t *const *A, uint32_t *S)
{
    const SqVaScale sc = { { ir[0], ir[1], ir[2] }, { 0.0, 0.0, 0.0 } };
    for (int j = 0; j < n; j++)
        sq_va_csf_sum_at(s, &sc, src, j, A, S);
}

static void adm_cm_row_c(int scale, const uint32_t *ir, const int32_t *const *X,
                         const int32_t *const *A, const uint32_t *S, int w, int h,
                         int64_t up, int64_t mid, int64_t dn, int64_t *acc, uint32_t *vs)
{
    const SqVaScale sc = { { ir[0], ir[1], ir[2] }, { 0.0, 0.0, 0.0 } };
    sq_va_cm_rows_sum(scale, &sc, X, A, S, w, h, up, mid, dn, acc, vs);
}

static void vc_hist_move_c(const uint16_t *img, const uint8_t *mask, int w, int h, int add,
                           int rem, int pad, int nd, int lo, int hi, uint16_t *hist)
{
    sq_vc_hist_move(img, mask, w, h, add, rem, pad, nd, lo, hi, hist);
}

static void vc_cvalue_row_c(const uint16_t *img, const uint8_t *mask, const uint16_t *hist, int w,
                            int i, const uint8_t *first, const SqVcParams *p, const float *recip,
                            float *c)
{
    sq_vc_cvalue_row(img, mask, hist, w, i, first, p, recip, c);
}

static void vc_convert_row_c(const uint8_t *src, int64_t stride, int acc, int bpc, int w, int i,
                             uint16_t *img)
{
    sq_vc_convert_row(src, stride, acc, bpc, w, i, img);
}

static void vc_dither_row_c(uint16_t *img, int w, int h, int i)
{
    sq_vc_dither_row(img, w, h, i);
}

static void vc_zero_row_c(const uint16_t *img, int w, int h, int i, uint8_t *zero)
{
    sq_vc_zero_row(img, w, h, i, zero);
}

static void vc_mask_row_c(const uint16_t *colsum, int w, int i, int mask_index, uint8_t *mask)
{
    sq_vc_mask_row(colsum, w, i, mask_index, mask);
}

static int vc_count_hi_c(const float *c, int n, uint32_t *cnt, uint32_t *zeros)
{
    return sq_vc_count_hi(c, 0, n, cnt, zeros);
}

static void vc_colsum_move_c(const uint8_t *add, const uint8_t *rem, int w, uint16_t *colsum)
{
    for (int j = 0; j < w; j++)
        sq_vc_colsum_move_at(add, rem, j, colsum);
}

static void vc_decimate_row_c(uint16_t *img, uint8_t *mask, int pw, int cw, int i)
{
    sq_vc_decimate_row(img, mask, pw, cw, i);
}

static void vc_mode_h_c(const uint16_t *src, int w, uint16_t *dst)
{
    sq_vc_mode_h(src, w, dst);
}

static void vc_mode_v_c(const uint16_t *a, const uint16_t *b, const uint16_t *c, int w,
                        uint16_t *out)
{
    for (int j = 0; j < w; j++)
        out[j] = sq_vc_mode3(a[j], b[j], c[j]);
}

static int vc_sum_hi_c(const float *c, int n, int hi, int emin, int64_t *sum, uint32_t *cnt)
{
    return sq_vc_sum_hi(c, 0, n, hi, emin, sum, cnt);
}

size_t sq_cov_ws_doubles(int trunc_w, int trunc_h)
{
    /* Transposed, zero-padded copy used by the SIMD versions (columns of
     * rows rounded up to 8, plus 8), then AVX-512's band of 8 rows of
     * every column and room to put both on a 64-byte line. */
    return (size_t)(trunc_w + 8) * (size_t)(((trunc_h + 7) & ~7) + 8 + 8) + 8;
}

static SqViRows vi_rows(const uint32_t *const *t)
{
    SqViRows r = { (uint32_t *)t[0], (uint32_t *)t[1], (uint32_t *)t[2], (uint32_t *)t[3],
                   (uint32_t *)t[4] };
    return r;
}

static void vif_vrow_c(const uint16_t *x, ptrdiff_t xs, const uint16_t *y, ptrdiff_t ys, int w,
                       int h, int s, int bpc, int i, uint32_t *const *t)
{
    sq_vi_vrow(x, xs, y, ys, h, s, bpc, i, 0, w, vi_rows((const uint32_t *const *)t));
}

static void vif_hrow_c(const uint32_t *const *t, int w, int s, double egl, const uint16_t *lt,
                       int64_t *acc)
{
    SqViAcc a = { acc[0], acc[1], acc[2], acc[3] };
    sq_vi_hrow(vi_rows(t), s, 0, w, egl, lt, &a);
    acc[0] = a.num_log;
    acc[1] = a.den_log;
    acc[2] = a.num_nonlog;
    acc[3] = a.den_nonlog;
}

static void vif_sub_row_c(const uint16_t *x, ptrdiff_t xs, int w, int h, int s, int bpc, int i,
                          uint32_t *t, uint16_t *out)
{
    sq_vi_sub_vrow(x, xs, h, s, bpc, i, 0, w, t);
    sq_vi_pad(t, w, sq_vi_half(s));
    sq_vi_sub_hrow(t, s, 0, w / 2, out);
}

static void vif_log_c(const uint64_t *v, int n, const uint16_t *lt, int64_t *out)
{
    for (int k = 0; k < n; k++)
        out[k] = sq_vi_log(lt, v[k]);
}

static pthread_once_t flags_once = PTHREAD_ONCE_INIT;
static unsigned flags_word;

static void flags_init(void)
{
    flags_word = sq_arch_cpu_flags();
}

unsigned sq_cpu_flags(void)
{
    pthread_once(&flags_once, flags_init);
    return flags_word;
}

void sq_dsp_init(SqDsp *d, unsigned flags)
{
    d->vfilt_8bpc = vfilt_8bpc_c;
    d->vfilt_16bpc = vfilt_16bpc_c;
    d->vhfilt_8bpc = NULL;
    d->or_16bpc = or_16bpc_c;
    d->vfilt_f32 = vfilt_f32_c;
    d->hfilt_dec = hfilt_dec_c;
    d->local_mean = local_mean_c;
    d->cov_rows = cov_rows_c;
    d->cov_sums = cov_sums_c;
    d->tridiag = tridiag_c;
    d->matmul = matmul_c;
    d->backsub = backsub_c;
    d->block_rows = block_rows_c;
    d->block_var = block_var_c;
    d->entropy = entropy_c;
    d->pool_terms = pool_terms_c;
    d->prescale_row = prescale_row_c;
    d->motion_sad = motion_sad_c;
    d->adm_dec0 = adm_dec0_c;
    d->adm_decs = adm_decs_c;
    d->adm_dwt = adm_dwt_c;
    d->adm_den_row = adm_den_row_c;
    d->adm_csf_row = adm_csf_row_c;
    d->adm_cm_row = adm_cm_row_c;
    d->vc_hist_move = vc_hist_move_c;
    d->vc_cvalue_row = vc_cvalue_row_c;
    d->vc_convert_row = vc_convert_row_c;
    d->vc_dither_row = vc_dither_row_c;
    d->vc_zero_row = vc_zero_row_c;
    d->vc_mask_row = vc_mask_row_c;
    d->vc_count_hi = vc_count_hi_c;
    d->vc_sum_hi = vc_sum_hi_c;
    d->vc_mode_h = vc_mode_h_c;
    d->vc_colsum_move = vc_colsum_move_c;
    d->vc_decimate_row = vc_decimate_row_c;
    d->vc_mode_v = vc_mode_v_c;
    d->vif_vrow = vif_vrow_c;
    d->vif_hrow = vif_hrow_c;
    d->vif_sub_row = vif_sub_row_c;
    d->vif_log = vif_log_c;
    d->vgran = 1;
    sq_dsp_init_arch(d, flags & sq_cpu_flags());
}
