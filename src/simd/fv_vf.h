/*
 * The filters' column vector where it is one vf (vec_avx2.h, vec_avx512.h):
 * the fv operations of the templates are the vf ones.
 */
#ifndef SQ_SIMD_FV_VF_H
#define SQ_SIMD_FV_VF_H

typedef vf fv;
V_AI fv fv_zero(void) { return vf_zero(); }
V_AI fv fv_set1(float x) { return vf_set1(x); }
V_AI fv fv_loadt(const float *p, vmask m) { return vf_loadt(p, m); }
V_AI void fv_storet(float *p, fv v, vmask m) { vf_storet(p, v, m); }
V_AI fv fv_add(fv a, fv b) { return vf_add(a, b); }
V_AI fv fv_sub(fv a, fv b) { return vf_sub(a, b); }
V_AI fv fv_mul(fv a, fv b) { return vf_mul(a, b); }

#endif
