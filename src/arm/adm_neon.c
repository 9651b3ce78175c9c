/* NEON ADM scale-0 decouple and CSF: simd/adm_tmpl.h over simd/vec_neon.h (2 positions a vector). */
#include "simd/vec_neon.h"
#include "simd/adm_tmpl.h"
