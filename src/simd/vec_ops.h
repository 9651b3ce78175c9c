/*
 * The one-line operations every vec_*.h has, made from its ISA's intrinsic
 * names, so the headers hold only what differs between ISAs. T the vector
 * type, E its element, P the prefix (vf, vd).
 */
#ifndef SQ_SIMD_VEC_OPS_H
#define SQ_SIMD_VEC_OPS_H

#define SQ_V_BASIC(T, E, P, SET1, LOAD, STORE, ADD, SUB, MUL, DIV) \
    V_AI T P##_set1(E x) { return SET1(x); }                        \
    V_AI T P##_zero(void) { return SET1((E)0); }                    \
    V_AI T P##_load(const E *p) { return LOAD(p); }                 \
    V_AI void P##_store(E *p, T v) { STORE(p, v); }                 \
    V_AI T P##_add(T a, T b) { return ADD(a, b); }                  \
    V_AI T P##_sub(T a, T b) { return SUB(a, b); }                  \
    V_AI T P##_mul(T a, T b) { return MUL(a, b); }                  \
    V_AI T P##_div(T a, T b) { return DIV(a, b); }

/*
 * Tails that move the last vector back (V_MASKED 0): a vmask is carried
 * along and ignored, every load and store is a whole vector.
 */
#define SQ_V_MOVE_BACK                                                            \
    typedef int vmask;                                                            \
    V_AI vmask v_mask(int n) { (void)n; return 0; }                               \
    V_AI vf vf_loadt(const float *p, vmask m) { (void)m; return vf_load(p); }     \
    V_AI void vf_storet(float *p, vf v, vmask m) { (void)m; vf_store(p, v); }     \
    V_AI vf vf_loadt_or(const float *p, vmask m, float other)                     \
    {                                                                             \
        (void)other;                                                              \
        return vf_loadt(p, m);                                                    \
    }

#endif
