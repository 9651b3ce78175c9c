/*
 * AVX-512 VNNI integer VIF rows: simd/vif_tmpl.h over simd/vec_avx512.h
 * with vs_dp16 as vpdpwssd (the int16 pairs' products added to the sums in
 * one instruction; the same wrapping int32 sums as vpmaddwd and vpaddd).
 */
#define SQ_VNNI 1
#include "simd/vec_avx512.h"
#include "simd/vif_tmpl.h"
