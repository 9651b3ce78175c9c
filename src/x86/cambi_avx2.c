/* AVX2 CAMBI histograms and c-values: simd/cambi_tmpl.h over simd/vec_avx2.h (8 columns a vector). */
#include "simd/vec_avx2.h"
#include "simd/cambi_tmpl.h"
