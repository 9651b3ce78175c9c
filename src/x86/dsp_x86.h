/* x86 versions of the DSP slots (cpu/dsp.h): the templates of src/simd/ per ISA. */
#ifndef SQ_X86_DSP_X86_H
#define SQ_X86_DSP_X86_H

#include <stddef.h>
#include <stdint.h>

#include "simd/dsp_simd.h"

#define SQ_AVX2(name) name##_avx2
SQ_SIMD_PROTOS_ALL(SQ_AVX2)
void sq_prescale_row_avx2(float *dst, const float *src, ptrdiff_t stride, int method,
                          const int32_t *iy, const float *wy, const int32_t *ix, const float *wx,
                          int w);

/*
 * AVX-512 (F/BW/DQ/VL) versions. SQ_X512 names them; the emulated build of
 * the same sources (x86/simd512.h) gives them another suffix.
 */
#ifdef SQ_AVX512_EMU
#define SQ_X512(name) name##_avx512emu
#define SQ_X512V(name) name##_avx512vnniemu
#else
#define SQ_X512(name) name##_avx512
#define SQ_X512V(name) name##_avx512vnni
#endif
/* The extensions beside F/BW/DQ/VL that some slots' versions need (sq_x86_ext). */
enum { SQ_X86_VBMI = 1, SQ_X86_VNNI = 2 };
/* The SQ_X86_* this CPU has (x86/cpu.c; asked of CPUID once a process). */
unsigned sq_x86_ext(void);
struct SqDsp;
/* Puts the AVX-512 versions in the slots where they pay (x86/init_avx512.c); ext: SQ_X86_*. */
void SQ_X512(sq_dsp_fill)(struct SqDsp *d, unsigned ext);
SQ_SIMD_FILTER_PROTOS(SQ_X512)
SQ_SIMD_COV_PROTOS(SQ_X512)
SQ_SIMD_LINALG_PROTOS(SQ_X512)
SQ_SIMD_MOTION_PROTOS(SQ_X512)
SQ_SIMD_ADM_PROTOS(SQ_X512)
SQ_SIMD_CAMBI_PROTOS(SQ_X512)
SQ_SIMD_VIF_PROTOS(SQ_X512)
/* VIF's rows built for AVX-512 VNNI as well (x86/vif_avx512vnni.c): vs_dp16 is vpdpwssd. */
SQ_SIMD_VIF_PROTOS(SQ_X512V)
/* Needs AVX-512 VBMI besides the level's F/BW/DQ/VL. */
int SQ_X512(sq_vhfilt_8bpc)(float *dst, const uint8_t *cur, ptrdiff_t cur_stride,
                            const uint8_t *prev, ptrdiff_t prev_stride, int h, int row,
                            const float *g, int taps, int w, int nout);
void SQ_X512(sq_pool_terms)(float *t, const float *er, const float *sr, const float *ed,
                            const float *sd, int nb, float base, int wvm);
void SQ_X512(sq_block_rows)(float *y, const float *img, int op_w, int nbh, int nbv);

#endif
