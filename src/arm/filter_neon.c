/* NEON anti-alias filters and local mean: simd/filter_tmpl.h over simd/vec_neon.h. */
#include "simd/vec_neon.h"
#include "simd/filter_tmpl.h"
