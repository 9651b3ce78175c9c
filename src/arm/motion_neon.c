/* NEON integer motion SAD: simd/motion_tmpl.h over simd/vec_neon.h (4 columns a vector). */
#include "simd/vec_neon.h"
#include "simd/motion_tmpl.h"
