/* AVX2 covariance row terms and window sums: simd/cov_tmpl.h over simd/vec_avx2.h. */
#include "simd/vec_avx2.h"
#include "simd/cov_tmpl.h"
