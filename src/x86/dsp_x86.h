/* x86 versions of the DSP slots (cpu/dsp.h), one ISA per file. */
#ifndef SQ_X86_DSP_X86_H
#define SQ_X86_DSP_X86_H

#include <stddef.h>
#include <stdint.h>

void sq_vfilt_8bpc_avx2(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                        const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,
                        const float *g, int taps, const int32_t *spans, int nspans, int w);
void sq_vfilt_16bpc_avx2(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                         const uint8_t *prev, ptrdiff_t prev_stride, float scale, int h, int row,
                         const float *g, int taps, const int32_t *spans, int nspans, int w);
void sq_or_16bpc_avx2(uint32_t *acc, const uint8_t *row, int w);
void sq_vfilt_f32_avx2(float *dst, const float *img, ptrdiff_t stride, int h, int row,
                       const float *g, int taps, const int32_t *spans, int nspans, int w);
void sq_hfilt_dec_avx2(float *dst, const float *src, int w, const float *g, int taps, int nout);
void sq_local_mean_avx2(float *dst, const float *op, const float *mrow, int w,
                        const float *g, int taps);
void sq_cov_rows_avx2(double *dl, const float *img, ptrdiff_t stride, int trunc_w, int trunc_h,
                      int rows, double *ws);
void sq_cov_sums_avx2(double *sums, const double *dl, int sub_h);
void sq_tridiag_avx2(float *a, int n, float *d, float *e, float *ws);
void sq_matmul_avx2(float *out, ptrdiff_t ldo, const float *l, ptrdiff_t ldl,
                    const float *r, ptrdiff_t ldr, int rows, int cols, int depth);
void sq_backsub_avx2(float *x, int ld, const float *rm, int n, int cols);
void sq_block_var_avx2(float *s, const float *x, const float *y, int ld, int n, int cols);
void sq_prescale_row_avx2(float *dst, const float *src, ptrdiff_t stride, int method,
                          const int32_t *iy, const float *wy, const int32_t *ix, const float *wx,
                          int w);
void sq_entropy_avx2(float *e, const float *lambda, int n, const float *s, int nb, float sigma_nn);


/*
 * AVX-512 (F/BW/DQ/VL) versions. SQ_X512 names them; the emulated build of
 * the same sources (x86/simd512.h) gives them another suffix.
 */
#ifdef SQ_AVX512_EMU
#define SQ_X512(name) name##_avx512emu
#else
#define SQ_X512(name) name##_avx512
#endif
struct SqDsp;
/* Puts the AVX-512 versions in the slots where they pay (x86/init_avx512.c). */
void SQ_X512(sq_dsp_fill)(struct SqDsp *d, int vbmi);
void SQ_X512(sq_vfilt_8bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                            const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,
                            const float *g, int taps, const int32_t *spans, int nspans, int w);
void SQ_X512(sq_vfilt_16bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                             const uint8_t *prev, ptrdiff_t prev_stride, float scale, int h,
                             int row, const float *g, int taps, const int32_t *spans, int nspans,
                             int w);
void SQ_X512(sq_or_16bpc)(uint32_t *acc, const uint8_t *row, int w);
/* Needs AVX-512 VBMI besides the level's F/BW/DQ/VL (sq_x86_has_vbmi). */
int SQ_X512(sq_vhfilt_8bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                            const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,
                            const float *g, int taps, int w, int nout);
void SQ_X512(sq_local_mean)(float *dst, const float *op, const float *mrow, int w,
                            const float *g, int taps);
void SQ_X512(sq_cov_rows)(double *dl, const float *img, ptrdiff_t stride, int trunc_w,
                          int trunc_h, int rows, double *ws);
void SQ_X512(sq_cov_sums)(double *sums, const double *dl, int sub_h);
void SQ_X512(sq_matmul)(float *out, ptrdiff_t ldo, const float *l, ptrdiff_t ldl,
                        const float *r, ptrdiff_t ldr, int rows, int cols, int depth);
void SQ_X512(sq_backsub)(float *x, int ld, const float *rm, int n, int cols);
void SQ_X512(sq_pool_terms)(float *t, const float *er, const float *sr, const float *ed,
                            const float *sd, int nb, float base, int wvm);
void SQ_X512(sq_block_rows)(float *y, const float *img, int op_w, int nbh, int nbv);
void SQ_X512(sq_entropy)(float *e, const float *lambda, int n, const float *s, int nb,
                         float sigma_nn);

#endif
