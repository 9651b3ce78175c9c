/* arm64 NEON versions of the DSP slots (cpu/dsp.h): the templates of src/simd/. */
#ifndef SQ_ARM_DSP_ARM_H
#define SQ_ARM_DSP_ARM_H

#include "simd/dsp_simd.h"

#define SQ_NEON(name) name##_neon
SQ_SIMD_PROTOS_ALL(SQ_NEON)

#endif
