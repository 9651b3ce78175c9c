/* AVX-512 integer VIF rows: simd/vif_tmpl.h over simd/vec_avx512.h (16 columns a vector). */
#include "simd/vec_avx512.h"
#include "simd/vif_tmpl.h"
