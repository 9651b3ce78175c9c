/* arm64 NEON versions of the DSP slots (cpu/dsp.h). */
#ifndef SQ_ARM_DSP_ARM_H
#define SQ_ARM_DSP_ARM_H

#include <stddef.h>
#include <stdint.h>

void sq_vfilt_8bpc_neon(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                        const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,
                        const float *g, int taps, const int32_t *spans, int nspans, int w);
void sq_vfilt_16bpc_neon(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                         const uint8_t *prev, ptrdiff_t prev_stride, float scale, int h, int row,
                         const float *g, int taps, const int32_t *spans, int nspans, int w);
void sq_or_16bpc_neon(uint32_t *acc, const uint8_t *row, int w);
void sq_vfilt_f32_neon(float *dst, const float *img, ptrdiff_t stride, int h, int row,
                       const float *g, int taps, const int32_t *spans, int nspans, int w);
void sq_hfilt_dec_neon(float *dst, const float *src, int w, const float *g, int taps, int nout);
void sq_local_mean_neon(float *dst, const float *op, const float *mrow, int w,
                        const float *g, int taps);
void sq_cov_rows_neon(double *dl, const float *img, ptrdiff_t stride, int trunc_w, int trunc_h,
                      int rows, double *ws);
void sq_cov_sums_neon(double *sums, const double *dl, int sub_h);
void sq_tridiag_neon(float *a, int n, float *d, float *e, float *ws);
void sq_matmul_neon(float *out, ptrdiff_t ldo, const float *l, ptrdiff_t ldl,
                    const float *r, ptrdiff_t ldr, int rows, int cols, int depth);
void sq_backsub_neon(float *x, int ld, const float *rm, int n, int cols);
void sq_block_var_neon(float *s, const float *x, const float *y, int ld, int n, int cols);
void sq_entropy_neon(float *e, const float *lambda, int n, const float *s, int nb, float sigma_nn);

#endif
