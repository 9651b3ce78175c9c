/* AVX2 dense linear algebra of est_params: simd/linalg_tmpl.h over simd/vec_avx2.h. */
#include "simd/vec_avx2.h"
#include "simd/linalg_tmpl.h"
