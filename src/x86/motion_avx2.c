/* AVX2 integer motion SAD: simd/motion_tmpl.h over simd/vec_avx2.h (8 columns a vector). */
#include "simd/vec_avx2.h"
#include "simd/motion_tmpl.h"
