/* NEON integer VIF rows: simd/vif_tmpl.h over simd/vec_neon.h (4 columns a vector). */
#include "simd/vec_neon.h"
#include "simd/vif_tmpl.h"
