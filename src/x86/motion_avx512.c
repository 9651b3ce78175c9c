/* AVX-512 integer motion SAD: simd/motion_tmpl.h over simd/vec_avx512.h (16 columns a vector). */
#include "simd/vec_avx512.h"
#include "simd/motion_tmpl.h"
