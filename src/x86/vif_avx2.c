/* AVX2 integer VIF rows: simd/vif_tmpl.h over simd/vec_avx2.h (8 columns a vector). */
#include "simd/vec_avx2.h"
#include "simd/vif_tmpl.h"
