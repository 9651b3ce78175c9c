/* AVX2 anti-alias filters and local mean: simd/filter_tmpl.h over simd/vec_avx2.h. */
#include "simd/vec_avx2.h"
#include "simd/filter_tmpl.h"
