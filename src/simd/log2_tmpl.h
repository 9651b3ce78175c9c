/*
 * sq_log2 (math/log2.h) on the VD_N lanes of a vd, written once over the
 * vector operations of the including ISA (simd/vec_*.h): each lane runs the
 * scalar function's double operations in its order (separate multiplies
 * and adds), for positive normal finite inputs only; *special is set when
 * a lane is anything else and the caller takes sq_log2 for the vector.
 */
#ifndef SQ_SIMD_LOG2_TMPL_H
#define SQ_SIMD_LOG2_TMPL_H

#include "math/log2.h"

V_AI vd log2_pd(vd x, int *special)
{
    vd y;
    const vd m = vd_log2_split(x, 0x3ff00000u - SQ_LOG2_SQRTH_HI, SQ_LOG2_SQRTH_HI, &y, special);
#define C(v) vd_set1(v)
#define ADD vd_add
#define SUB vd_sub
#define MUL vd_mul
    const vd f = SUB(m, C(1.0));
    const vd hfsq = MUL(MUL(C(0.5), f), f);
    const vd s = vd_div(f, ADD(C(2.0), f));
    const vd z = MUL(s, s);
    const vd w = MUL(z, z);
    const vd t1 = MUL(w, ADD(C(SQ_LOG2_LG2), MUL(w, ADD(C(SQ_LOG2_LG4), MUL(w, C(SQ_LOG2_LG6))))));
    const vd t2 = MUL(
        z, ADD(C(SQ_LOG2_LG1),
               MUL(w, ADD(C(SQ_LOG2_LG3), MUL(w, ADD(C(SQ_LOG2_LG5), MUL(w, C(SQ_LOG2_LG7))))))));
    const vd r = ADD(t2, t1);
    const vd hi = vd_hi32(SUB(f, hfsq));
    const vd lo = ADD(SUB(SUB(f, hi), hfsq), MUL(s, ADD(hfsq, r)));
    const vd val_hi = MUL(hi, C(SQ_LOG2_INV_LN2_HI));
    vd val_lo = ADD(MUL(ADD(lo, hi), C(SQ_LOG2_INV_LN2_LO)), MUL(lo, C(SQ_LOG2_INV_LN2_HI)));
    const vd sum = ADD(y, val_hi);
    val_lo = ADD(val_lo, ADD(SUB(y, sum), val_hi));
    return ADD(val_lo, sum);
#undef C
#undef ADD
#undef SUB
#undef MUL
}

#endif
