/* NEON dense linear algebra of est_params: simd/linalg_tmpl.h over simd/vec_neon.h. */
#include "simd/vec_neon.h"
#include "simd/linalg_tmpl.h"
