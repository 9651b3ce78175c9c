/* AVX2 ADM scale-0 decouple and CSF: simd/adm_tmpl.h over simd/vec_avx2.h (4 positions a vector). */
#include "simd/vec_avx2.h"
#include "simd/adm_tmpl.h"
