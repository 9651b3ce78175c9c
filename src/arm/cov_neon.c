/* NEON covariance row terms and window sums: simd/cov_tmpl.h over simd/vec_neon.h. */
#include "simd/vec_neon.h"
#include "simd/cov_tmpl.h"
