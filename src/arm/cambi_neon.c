/* NEON CAMBI histograms and c-values: simd/cambi_tmpl.h over simd/vec_neon.h (4 columns a vector). */
#include "simd/vec_neon.h"
#include "simd/cambi_tmpl.h"
