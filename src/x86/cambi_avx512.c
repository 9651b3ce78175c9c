/* AVX-512 CAMBI histograms and c-values: simd/cambi_tmpl.h over simd/vec_avx512.h (16 columns a vector). */
#include "simd/vec_avx512.h"
#include "simd/cambi_tmpl.h"
