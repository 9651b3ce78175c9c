/*
 * CPU DSP table: the hot loops of the CPU backend as function pointers,
 * filled with the C reference (which calls the per-output functions of the
 * math core) and then upgraded by the arch init ladder for each CPU level
 * the machine has and the caller allows. Every slot computes exactly the
 * bits of its C version: SIMD only runs independent outputs side by side,
 * each lane keeping the scalar operation order (no FMA, same tap order).
 */
#ifndef SQ_CPU_DSP_H
#define SQ_CPU_DSP_H

#include <stddef.h>
#include <stdint.h>

struct SqVaScale;
struct SqVcParams;

/* Covariance layout for b = SQ_BLOCK (5): 41 lags + the plain sum. */
#define SQ_COV_SEQS 42
#define SQ_COV_K (SQ_COV_SEQS * 5)   /* row terms per operating row */
/* SQ_COV_K rounded up to 8 doubles: every row of row terms starts a 64-byte
 * line, so a vector store of 8 never splits one (212 split every other
 * row's stores, the most sampled instructions of the AVX-512 cov_rows). */
#define SQ_COV_LD 216

/* Counters around CAMBI's histograms that vc_hist_move may rewrite unchanged. */
#define SQ_VC_HIST_SLACK 64

/* Scratch of motion_sad for planes w wide (int32): a row of the vertical
 * pass in two halves, each with the two mirrored columns of either edge. */
#define SQ_MOTION_WS(w) (2 * (size_t)(w) + 8)

typedef struct SqDsp {
    /*
     * Vertical anti-alias pass of decimated output row `row` straight from
     * raw samples (spec 4.4): dst[c] = sq_vfilter_raw(...) for every column
     * c of the spans (nspans [begin, end) pairs inside [0, w)). prev != NULL
     * filters the temporal difference prev - cur. Columns outside the spans
     * may be written too (with their correct values).
     */
    void (*vfilt_8bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                       const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,
                       const float *g, int taps, const int32_t *spans, int nspans, int w);
    void (*vfilt_16bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                        const uint8_t *prev, ptrdiff_t prev_stride, float scale, int h, int row,
                        const float *g, int taps, const int32_t *spans, int nspans, int w);
    /*
     * *acc |= every one of the w 16-bit samples of row: the out-of-range
     * check (a bit above the declared depth set anywhere), run on each raw
     * row right after the vertical pass read it, while it is in cache.
     */
    void (*or_16bpc)(uint32_t *acc, const uint8_t *row, int w);
    /*
     * Both anti-alias passes of one operating row from raw 8-bit samples:
     * dst[j] = hfilt_dec's output j over the row vfilt_8bpc gives (row
     * `row`, every column of [0, w) the decimated pass reads), j < nout.
     * Returns 0, or -1 having written nothing when this version does not
     * take these taps or sizes (the caller then runs the two passes).
     * NULL (the C table, AVX2, NEON): the two passes are the way.
     */
    int (*vhfilt_8bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                       const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,
                       const float *g, int taps, int w, int nout);
    /* Same over a float image (prescaled plane, local mean): sq_vfilter_f32. */
    void (*vfilt_f32)(float *dst, const float *img, ptrdiff_t stride, int h, int row,
                      const float *g, int taps, const int32_t *spans, int nspans, int w);
    /* dst[j] = sq_hfilter_f32(src, w, g, taps, j << 4) for j < nout. */
    void (*hfilt_dec)(float *dst, const float *src, int w, const float *g, int taps, int nout);
    /* dst[j] = sq_local_mean_at(mrow, w, op, g, taps, j) for j < w. */
    void (*local_mean)(float *dst, const float *op, const float *mrow, int w,
                       const float *g, int taps);
    /*
     * Covariance step 1 for b = 5 (math/cov.h): for every operating row
     * y < rows and sequence s <= nlags (41 lags, then the plain sum),
     * dl[y * SQ_COV_LD + s * 5 + c] = P(sub_w + c) - P(c), c < 5, the row
     * term of a window starting at column c, image rows from trunc_h on
     * counting as absent. rows is trunc_h or a multiple of 8 below it (a
     * band: each row is its own sum, so any such split gives the same
     * bits); rows up to it rounded up to 4 may be written.
     * ws: sq_cov_ws_doubles(trunc_w, trunc_h).
     */
    void (*cov_rows)(double *dl, const float *img, ptrdiff_t stride, int trunc_w, int trunc_h,
                     int rows, double *ws);
    /* Step 2: sums[r0 * SQ_COV_LD + k] = sum of dl[(r0 + i) * SQ_COV_LD + k], i < sub_h
     * in increasing i from 0.0, for r0 < 5 and k < SQ_COV_K. */
    void (*cov_sums)(double *sums, const double *dl, int sub_h);
    /* sq_tridiag; a must be symmetric (a covariance is, bit for bit). */
    void (*tridiag)(float *a, int n, float *d, float *e, float *ws);
    /*
     * out[i * ldo + j] = sum over k < depth of l[i * ldl + k] * r[k * ldr + j],
     * float, increasing k, from 0 (sq_matmul_entry); out must not overlap l, r.
     */
    void (*matmul)(float *out, ptrdiff_t ldo, const float *l, ptrdiff_t ldl,
                   const float *r, ptrdiff_t ldr, int rows, int cols, int depth);
    /*
     * Back substitution of sq_qr_solve in place on columns [0, cols) of x
     * (n rows ld apart, rows = b on entry): x[i][j] = sq_backsub_entry(rm,
     * n, x, ld, i, j, x[i][j]) for i = n-1 .. 0. Each column is its own
     * problem, so any split of the columns gives the same bits. The caller
     * has checked the diagonal of rm.
     */
    void (*backsub)(float *x, int ld, const float *rm, int n, int cols);
    /*
     * The solve's right-hand sides, plain copies: y[row * nb + m] =
     * sq_block_sample(img, op_w, 5, nbh, row, m) for row < 25 and
     * m < nb = nbh * nbv (b = SQ_BLOCK).
     */
    void (*block_rows)(float *y, const float *img, int op_w, int nbh, int nbv);
    /* s[m] = sq_block_variance(x, y, n, ld, m) for m < cols (rows ld apart). */
    void (*block_var)(float *s, const float *x, const float *y, int ld, int n, int cols);
    /* e[m] = sq_block_entropy(lambda, n, s[m], sigma_nn). */
    void (*entropy)(float *e, const float *lambda, int n, const float *s, int nb, float sigma_nn);
    /* t[m] = sq_pool_term(er[m], sr[m], ed[m], sd[m], base, wvm), the terms sq_pool_mean sums. */
    void (*pool_terms)(float *t, const float *er, const float *sr, const float *ed,
                       const float *sd, int nb, float base, int wvm);
    /*
     * Output row y of speed_prescale (math/prescale.h): dst[x] =
     * sq_prescale_at(src, stride, method, iy, wy, ix + SQ_PS_TAPS x,
     * wx + SQ_PS_TAPS x) for x < w; iy, wy are row y's table entries.
     */
    void (*prescale_row)(float *dst, const float *src, ptrdiff_t stride, int method,
                         const int32_t *iy, const float *wy, const int32_t *ix, const float *wx,
                         int w);
    /*
     * libvmaf's integer motion SAD of rows [y0, y1) of a w x h plane pair
     * (spec vmaf-integer-features 2.3): sq_vm_rows_sad2 with both planes in
     * access acc (0: bytes, SQ_ACC_16: 16-bit containers), any bpc 8..16 and
     * any sample values. ws: SQ_MOTION_WS(w) int32 of scratch.
     */
    uint64_t (*motion_sad)(const uint8_t *prev, ptrdiff_t prev_stride, const uint8_t *cur,
                           ptrdiff_t cur_stride, int acc, int w, int h, int bpc, int y0, int y1,
                           int32_t *ws);
    /*
     * libvmaf's integer ADM, scale 0: the decouple and CSF of positions
     * [0, n) of one band row (math/vmaf_adm.h, sq_va_decouple_at then
     * sq_va_csf_sum_at). ob, tb: the reference's and distorted's bands
     * (SQ_VA_* order), r, e, A by orientation h, v, d, and S (F's sum over
     * the orientations, all that adm_cm_row reads of F), every pointer at
     * the row's first position; egl: adm_enhn_gain_limit (>= 0: the
     * option's range is [1, 100]); ir: the scale's CSF factors.
     */
    void (*adm_dec0)(const int32_t *const *ob, const int32_t *const *tb, int n, double egl,
                     const uint32_t *ir, int32_t *const *r, int32_t *const *e, int32_t *const *A,
                     uint32_t *S);
    /* The same at scales 1..3 (which compute alike: math/vmaf_adm.h tests only scale == 0). */
    void (*adm_decs)(const int32_t *const *ob, const int32_t *const *tb, int n, double egl,
                     const uint32_t *ir, int32_t *const *r, int32_t *const *e, int32_t *const *A,
                     uint32_t *S);
    /*
     * One level of ADM's DWT over output rows [i0, i1) (math/vmaf_adm_dwt.h,
     * sq_va_dwt_rows): scale 0 from the raw plane src8 (stride, access acc,
     * bpc), scales 1..3 from the int32 band src (at scale 1 scale 0's a,
     * int16 values: the SIMD levels rely on it); w x h in; band: the four
     * bands out, ((w + 1) / 2) wide, row i at band[b] + (i - i0) * ((w + 1)
     * / 2); lo, hi: rows of w int32 of scratch.
     */
    void (*adm_dwt)(const uint8_t *src8, ptrdiff_t stride, int acc, int bpc, const int32_t *src,
                    int w, int h, int scale, int only_a, int i0, int i1, int32_t *lo, int32_t *hi,
                    int32_t *const *band);
    /*
     * One row of ADM's CSF denominator (math/vmaf_adm_pool.h,
     * sq_va_den_row): acc[th] += the rounded sum over columns [l, r) of the
     * reference's band rows row (SQ_VA_* order; c, rho: sq_va_den_shifts).
     */
    void (*adm_den_row)(int s, const int32_t *const *row, int l, int r, int c, int rho,
                        uint64_t *acc);
    /*
     * The AIM pass's CSF of positions [0, n) of one row (math/vmaf_adm.h,
     * sq_va_csf_sum_at over src = r): A by orientation and S (as
     * adm_dec0's), every pointer at the row's first position. Scale 0's src
     * holds int16 values.
     */
    void (*adm_csf_row)(int s, const uint32_t *ir, const int32_t *const *src, int n,
                        int32_t *const *A, uint32_t *S);
    /*
     * One pooling row of ADM's masking numerator (math/vmaf_adm.h,
     * sq_va_cm_rows_sum): acc[th] += the row's rounded sum, from X (r or
     * e) and A (by orientation h, v, d; rows of w), S (F's sum over the
     * orientations at each position, u32) and the scale's CSF factors ir;
     * up, mid, dn: the offsets of the row above, the row and the row below
     * in those planes (the caller mirrors them; h only sets the rounding).
     * Scale 0's planes hold int16 values and its ir are u16 (as libvmaf
     * stores them). vs: w u32 of scratch.
     */
    void (*adm_cm_row)(int scale, const uint32_t *ir, const int32_t *const *X,
                       const int32_t *const *A, const uint32_t *S, int w, int h,
                       int64_t up, int64_t mid, int64_t dn, int64_t *acc, uint32_t *vs);
    /*
     * libvmaf's CAMBI (math/vmaf_cambi_scale.h): the window histograms
     * moving down one row, sq_vc_hist_move (img, mask of a w x h scale,
     * rows add and rem, either may be outside), and the c-values of row i,
     * sq_vc_cvalue_row. Every img value is at most 1024; hist holds
     * sq_vc_sizes' count (2 counters past the last row: cvalue_row's
     * vectors may gather 32 bits at a 16-bit counter), with
     * SQ_VC_HIST_SLACK counters before and after it that hist_move may
     * read and write back unchanged (it adds whole aligned vectors, 0
     * outside a window).
     */
    void (*vc_hist_move)(const uint16_t *img, const uint8_t *mask, int w, int h, int add,
                         int rem, int pad, int nd, int lo, int hi, uint16_t *hist);
    void (*vc_cvalue_row)(const uint16_t *img, const uint8_t *mask, const uint16_t *hist, int w,
                          int i, const uint8_t *first, const struct SqVcParams *p,
                          const float *recip, float *c);
    /*
     * CAMBI's pooling passes over a scale's n c-values (math/vmaf_cambi_pool.h):
     * sq_vc_count_hi and sq_vc_sum_hi over [0, n). cnt: at least 32768 + 16
     * counters (the SIMD pass 1 borrows 16 past the last digit, 0x7f7f, as
     * scratch and puts them back as they were).
     */
    /*
     * CAMBI's preprocessing and spatial mask, a row each (math/vmaf_cambi.h):
     * sq_vc_dither_row, sq_vc_zero_row, sq_vc_mask_row. img values are at most
     * 1024 (10-bit codes): four of them add up inside 16 bits.
     */
    void (*vc_dither_row)(uint16_t *img, int w, int h, int i);
    /* Row i of the input plane as 10-bit codes (sq_vc_convert_row). */
    void (*vc_convert_row)(const uint8_t *src, int64_t stride, int acc, int bpc, int w, int i,
                           uint16_t *img);
    void (*vc_zero_row)(const uint16_t *img, int w, int h, int i, uint8_t *zero);
    void (*vc_mask_row)(const uint16_t *colsum, int w, int i, int mask_index, uint8_t *mask);
    /* The mask's column sums, a row of Z (add) in and one (rem) out: colsum[j] + add[j] - rem[j], u16. */
    void (*vc_colsum_move)(const uint8_t *add, const uint8_t *rem, int w, uint16_t *colsum);
    /*
     * high_res_speedup's decimation of image and mask rows, row i of the
     * half-size scale (cw = (pw + 1) >> 1 samples) from row 2i of the pw
     * wide one, in place (sq_vc_decimate_row): row i >= 1 lies wholly below
     * row 2i, row 0 below what is still to be read.
     */
    void (*vc_decimate_row)(uint16_t *img, uint8_t *mask, int pw, int cw, int i);
    int (*vc_count_hi)(const float *c, int n, uint32_t *cnt, uint32_t *zeros);
    int (*vc_sum_hi)(const float *c, int n, int hi, int emin, int64_t *sum, uint32_t *cnt);
    /*
     * CAMBI's mode filter (math/vmaf_cambi_scale.h), a row each: vc_mode_h
     * is sq_vc_mode_h, vc_mode_v sq_vc_mode3 of rows a, b, c at each of w
     * columns into out. Values are at most 1024.
     */
    void (*vc_mode_h)(const uint16_t *src, int w, uint16_t *dst);
    void (*vc_mode_v)(const uint16_t *a, const uint16_t *b, const uint16_t *c, int w,
                      uint16_t *out);
    /*
     * libvmaf's integer VIF (math/vmaf_vif.h), a row each: vif_vrow is
     * sq_vi_vrow over [0, w) of statistics row i of scale s (t: the five
     * rows m1, m2, xx, yy, xy), vif_hrow sq_vi_hrow over [0, w) of padded
     * rows (acc: num_log, den_log, num_nonlog, den_nonlog, added to),
     * vif_sub_row output row i of the decimation into scale s (sq_vi_sub_vrow
     * over [0, w) into t, padded, then sq_vi_sub_hrow over [0, w / 2) into out).
     */
    void (*vif_vrow)(const uint16_t *x, ptrdiff_t xs, const uint16_t *y, ptrdiff_t ys, int w,
                     int h, int s, int bpc, int i, uint32_t *const *t);
    void (*vif_hrow)(const uint32_t *const *t, int w, int s, double egl, const uint16_t *lt,
                     int64_t *acc);
    void (*vif_sub_row)(const uint16_t *x, ptrdiff_t xs, int w, int h, int s, int bpc, int i,
                        uint32_t *t, uint16_t *out);
    /* sq_vi_log of n integers in [2^16, 2^53): the rows' logs alone, which checkkernel
     * compares for every table index (levels may compute them without lt) */
    void (*vif_log)(const uint64_t *v, int n, const uint16_t *lt, int64_t *out);
    /* Column granularity of vfilt_*: spans closer than this are merged. */
    int vgran;
} SqDsp;

/*
 * SPEEDQA_CPU_* levels this machine and OS support, detected once. A
 * context restricts them with SpeedqaSettings.cpu_mask (the test programs
 * take SPEEDQA_CPU_MASK from their environment into it: tests/common).
 */
unsigned sq_cpu_flags(void);

/* Fill d for the levels in flags & sq_cpu_flags(). flags 0: C only. */
void sq_dsp_init(SqDsp *d, unsigned flags);

/* Workspace of cov_rows for a trunc_w x trunc_h region. */
size_t sq_cov_ws_doubles(int trunc_w, int trunc_h);

/* Arch layer (src/x86/, or cpu/arch_none.c): raw detection and the ladder. */
unsigned sq_arch_cpu_flags(void);
void sq_dsp_init_arch(SqDsp *d, unsigned flags);

#endif
