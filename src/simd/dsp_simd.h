/*
 * The DSP slots (cpu/dsp.h) the templates of src/simd/ define, declared once
 * for every ISA: N is the ISA's naming macro (x86/dsp_x86.h, arm/dsp_arm.h),
 * N(sq_matmul) the function of that level. Each group is one template's
 * part; a level declares the groups its files instantiate.
 */
#ifndef SQ_SIMD_DSP_SIMD_H
#define SQ_SIMD_DSP_SIMD_H

#include <stddef.h>
#include <stdint.h>

struct SqVaScale;
struct SqVcParams;

/* simd/filter_tmpl.h: the vertical passes over raw rows, the range OR, the local mean. */
#define SQ_SIMD_FILTER_PROTOS(N)                                                              \
    void N(sq_vfilt_8bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,               \
                          const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,         \
                          const float *g, int taps, const int32_t *spans, int nspans, int w); \
    void N(sq_vfilt_16bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,              \
                           const uint8_t *prev, ptrdiff_t prev_stride, float scale, int h,    \
                           int row, const float *g, int taps, const int32_t *spans,           \
                           int nspans, int w);                                                \
    void N(sq_or_16bpc)(uint32_t *acc, const uint8_t *row, int w);                            \
    void N(sq_local_mean)(float *dst, const float *op, const float *mrow, int w,              \
                          const float *g, int taps);

/* simd/filter_tmpl.h: the passes over float rows (vertical, decimated horizontal). */
#define SQ_SIMD_FILTER_F32_PROTOS(N)                                                          \
    void N(sq_vfilt_f32)(float *dst, const float *img, ptrdiff_t stride, int h, int row,      \
                         const float *g, int taps, const int32_t *spans, int nspans, int w);  \
    void N(sq_hfilt_dec)(float *dst, const float *src, int w, const float *g, int taps,       \
                         int nout);

/* simd/cov_tmpl.h */
#define SQ_SIMD_COV_PROTOS(N)                                                                 \
    void N(sq_cov_rows)(double *dl, const float *img, ptrdiff_t stride, int trunc_w,          \
                        int trunc_h, int rows, double *ws);                                   \
    void N(sq_cov_sums)(double *sums, const double *dl, int sub_h);

/* simd/linalg_tmpl.h */
#define SQ_SIMD_LINALG_PROTOS(N)                                                              \
    void N(sq_matmul)(float *out, ptrdiff_t ldo, const float *l, ptrdiff_t ldl,               \
                      const float *r, ptrdiff_t ldr, int rows, int cols, int depth);          \
    void N(sq_backsub)(float *x, int ld, const float *rm, int n, int cols);                   \
    void N(sq_entropy)(float *e, const float *lambda, int n, const float *s, int nb,          \
                       float sigma_nn);

/* simd/linalg_tmpl.h without SQ_T_NO_TRIDIAG, SQ_T_NO_BLOCK_VAR */
#define SQ_SIMD_LINALG_SYM_PROTOS(N)                                                          \
    void N(sq_tridiag)(float *a, int n, float *d, float *e, float *ws);                       \
    void N(sq_block_var)(float *s, const float *x, const float *y, int ld, int n, int cols);

/* simd/motion_tmpl.h */
#define SQ_SIMD_MOTION_PROTOS(N)                                                              \
    uint64_t N(sq_motion_sad)(const uint8_t *prev, ptrdiff_t prev_stride, const uint8_t *cur, \
                              ptrdiff_t cur_stride, int acc, int w, int h, int bpc, int y0,   \
                              int y1, int32_t *ws);

/* simd/adm_tmpl.h (with simd/adm_pool_tmpl.h) */
#define SQ_SIMD_ADM_PROTOS(N)                                                                  \
    void N(sq_adm_dec0)(const int32_t *const *ob, const int32_t *const *tb, int n, double egl, \
                        const uint32_t *ir, int32_t *const *r, int32_t *const *e,              \
                        int32_t *const *A, uint32_t *S);                           \
    void N(sq_adm_decs)(const int32_t *const *ob, const int32_t *const *tb, int n, double egl, \
                        const uint32_t *ir, int32_t *const *r, int32_t *const *e,              \
                        int32_t *const *A, uint32_t *S);                                       \
    void N(sq_adm_dwt)(const uint8_t *src8, ptrdiff_t stride, int acc, int bpc,                 \
                       const int32_t *src, int w, int h, int scale, int only_a, int i0, int i1, \
                       int32_t *lo, int32_t *hi, int32_t *const *band);                        \
    void N(sq_adm_den_row)(int s, const int32_t *const *row, int l, int r, int c, int rho,      \
                           uint64_t *acc);                                                     \
    void N(sq_adm_csf_row)(int s, const uint32_t *ir, const int32_t *const *src, int n,        \
                           int32_t *const *A, uint32_t *S);                                    \
    void N(sq_adm_cm_row)(int scale, const uint32_t *ir, const int32_t *const *X,               \
                          const int32_t *const *A, const uint32_t *S, int w, int h,             \
                          int64_t up, int64_t mid, int64_t dn, int64_t *acc, uint32_t *vs);

/* simd/cambi_tmpl.h */
#define SQ_SIMD_CAMBI_PROTOS(N)                                                                \
    void N(sq_vc_hist_move)(const uint16_t *img, const uint8_t *mask, int w, int h, int add,   \
                            int rem, int pad, int nd, int lo, int hi, uint16_t *hist);         \
    void N(sq_vc_cvalue_row)(const uint16_t *img, const uint8_t *mask, const uint16_t *hist,    \
                             int w, int i, const uint8_t *first, const struct SqVcParams *p,   \
                             const float *recip, float *c);                            \
    void N(sq_vc_convert_row)(const uint8_t *src, int64_t stride, int acc, int bpc, int w,    \
                              int i, uint16_t *img);                                      \
    void N(sq_vc_dither_row)(uint16_t *img, int w, int h, int i);                             \
    void N(sq_vc_zero_row)(const uint16_t *img, int w, int h, int i, uint8_t *zero);          \
    void N(sq_vc_mask_row)(const uint16_t *colsum, int w, int i, int mask_index,              \
                           uint8_t *mask);                                                    \
    int N(sq_vc_count_hi)(const float *c, int n, uint32_t *cnt, uint32_t *zeros);             \
    int N(sq_vc_sum_hi)(const float *c, int n, int hi, int emin, int64_t *sum, uint32_t *cnt); \
    void N(sq_vc_mode_h)(const uint16_t *src, int w, uint16_t *dst);                          \
    void N(sq_vc_colsum_move)(const uint8_t *add, const uint8_t *rem, int w, uint16_t *colsum); \
    void N(sq_vc_decimate_row)(uint16_t *img, uint8_t *mask, int pw, int cw, int i);          \
    void N(sq_vc_mode_v)(const uint16_t *a, const uint16_t *b, const uint16_t *c, int w,      \
                         uint16_t *out);

/* simd/vif_tmpl.h */
#define SQ_SIMD_VIF_PROTOS(N)                                                                  \
    void N(sq_vif_vrow)(const uint16_t *x, ptrdiff_t xs, const uint16_t *y, ptrdiff_t ys,      \
                        int w, int h, int s, int bpc, int i, uint32_t *const *t);              \
    void N(sq_vif_hrow)(const uint32_t *const *t, int w, int s, double egl,                    \
                        const uint16_t *lt, int64_t *acc);                                     \
    void N(sq_vif_sub_row)(const uint16_t *x, ptrdiff_t xs, int w, int h, int s, int bpc,      \
                           int i, uint32_t *t, uint16_t *out);                                 \
    void N(sq_vif_log)(const uint64_t *v, int n, const uint16_t *lt, int64_t *out);

/* All the groups: a level that instantiates every template in full. */
#define SQ_SIMD_PROTOS_ALL(N)        \
    SQ_SIMD_FILTER_PROTOS(N)         \
    SQ_SIMD_FILTER_F32_PROTOS(N)     \
    SQ_SIMD_COV_PROTOS(N)            \
    SQ_SIMD_LINALG_PROTOS(N)         \
    SQ_SIMD_LINALG_SYM_PROTOS(N)     \
    SQ_SIMD_MOTION_PROTOS(N)         \
    SQ_SIMD_ADM_PROTOS(N)           \
    SQ_SIMD_CAMBI_PROTOS(N)          \
    SQ_SIMD_VIF_PROTOS(N)

/* Every slot of the groups above into the table d (a level that has them all). */
#define SQ_SIMD_FILL_ALL(d, N)                \
    do {                                      \
        (d)->vfilt_8bpc = N(sq_vfilt_8bpc);   \
        (d)->vfilt_16bpc = N(sq_vfilt_16bpc); \
        (d)->or_16bpc = N(sq_or_16bpc);       \
        (d)->vfilt_f32 = N(sq_vfilt_f32);     \
        (d)->hfilt_dec = N(sq_hfilt_dec);     \
        (d)->local_mean = N(sq_local_mean);   \
        (d)->cov_rows = N(sq_cov_rows);       \
        (d)->cov_sums = N(sq_cov_sums);       \
        (d)->tridiag = N(sq_tridiag);         \
        (d)->matmul = N(sq_matmul);           \
        (d)->backsub = N(sq_backsub);         \
        (d)->block_var = N(sq_block_var);     \
        (d)->entropy = N(sq_entropy);         \
        (d)->motion_sad = N(sq_motion_sad);   \
        (d)->adm_dec0 = N(sq_adm_dec0);       \
        (d)->adm_decs = N(sq_adm_decs);       \
        (d)->adm_dwt = N(sq_adm_dwt);         \
        (d)->adm_den_row = N(sq_adm_den_row); \
        (d)->adm_csf_row = N(sq_adm_csf_row); \
        (d)->adm_cm_row = N(sq_adm_cm_row);   \
        (d)->vc_hist_move = N(sq_vc_hist_move); \
        (d)->vc_cvalue_row = N(sq_vc_cvalue_row); \
        (d)->vc_convert_row = N(sq_vc_convert_row); \
        (d)->vc_dither_row = N(sq_vc_dither_row); \
        (d)->vc_zero_row = N(sq_vc_zero_row); \
        (d)->vc_mask_row = N(sq_vc_mask_row); \
        (d)->vc_count_hi = N(sq_vc_count_hi); \
        (d)->vc_sum_hi = N(sq_vc_sum_hi);     \
        (d)->vc_mode_h = N(sq_vc_mode_h);     \
        (d)->vc_colsum_move = N(sq_vc_colsum_move); \
        (d)->vc_decimate_row = N(sq_vc_decimate_row); \
        (d)->vc_mode_v = N(sq_vc_mode_v);     \
        (d)->vif_vrow = N(sq_vif_vrow);       \
        (d)->vif_hrow = N(sq_vif_hrow);       \
        (d)->vif_sub_row = N(sq_vif_sub_row); \
        (d)->vif_log = N(sq_vif_log);         \
    } while (0)

#endif
