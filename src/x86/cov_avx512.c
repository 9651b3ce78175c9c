/*
 * AVX-512 covariance row terms and window sums: simd/cov_tmpl.h over
 * simd/vec_avx512.h (8 operating rows a vector; the lags' rows read from an
 * aligned band, V_COV_BAND; three vectors of columns per window-sum chunk).
 */
#include "simd/vec_avx512.h"
#include "simd/cov_tmpl.h"
