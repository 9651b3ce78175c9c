/* AVX-512 ADM scale-0 decouple and CSF: simd/adm_tmpl.h over simd/vec_avx512.h (8 positions a vector). */
#include "simd/vec_avx512.h"
#include "simd/adm_tmpl.h"
